"""What the MPI runtime moves and how it waits: value layouts and byte buffers, polled
requests with a deadline, and the watchdog that ends a job stuck in a blocking MPI call.

A value (an array, a tuple/list of values, or a plain object such as ``None`` or a token)
travels as a *layout* (small, pickled: structure, dtypes, shapes) plus the bytes of its arrays
in one flat buffer, so large arrays go through MPI's buffer interface without pickling.
Nothing here knows about devices or HLO; ``mpi_runtime`` does.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.literal import Array
from xlapy.shape import Shape

Layout = tuple[Any, ...]
"""``("a", dtype, shape)`` for an array, ``("t"|"l", children)`` for a tuple or list,
``("v", object)`` for anything else (carried in the layout itself)."""


def layout_of(value: object) -> Layout:
    """The layout of ``value`` (see ``Layout``)."""
    if isinstance(value, np.ndarray):
        return ("a", value.dtype, value.shape)
    if isinstance(value, tuple | list):
        return ("t" if isinstance(value, tuple) else "l", tuple(layout_of(v) for v in value))
    return ("v", value)


def arrays_of(value: object) -> list[Array]:
    """The arrays of ``value``, depth first, as the layout lists them."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, tuple | list):
        return [a for v in value for a in arrays_of(v)]
    return []


def nbytes(layout: Layout) -> int:
    """Bytes the arrays of a value with this layout take in a buffer."""
    if layout[0] == "a":
        return int(layout[1].itemsize * int(np.prod(layout[2], dtype=np.int64)))
    if layout[0] in "tl":
        return sum(nbytes(child) for child in layout[1])
    return 0


def pack(values: Sequence[object]) -> Array:
    """The bytes of every array of ``values``, in order, as one ``uint8`` buffer: a view, not
    a copy, when the arrays lie back to back in one buffer (one array; an operand's blocks in
    order)."""
    arrays = [a for v in values for a in arrays_of(v)]
    if not arrays:
        return np.empty(0, np.uint8)
    span = contiguous_span(arrays)
    if span is not None:
        return span
    return np.concatenate([np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in arrays])


def _address(array: Array) -> int:
    return int(array.__array_interface__["data"][0])


def contiguous_span(arrays: Sequence[Array]) -> Array | None:
    """A ``uint8`` view of the memory of ``arrays`` when they are contiguous and back to back
    inside the buffer of the first one; None otherwise."""
    base = arrays[0]
    while isinstance(base.base, np.ndarray):
        base = base.base
    if not base.flags.c_contiguous:
        return None
    start = end = _address(arrays[0])
    for array in arrays:
        if not array.flags.c_contiguous or (array.nbytes and _address(array) != end):
            return None
        end += array.nbytes
    first = _address(base)
    if start < first or end > first + base.nbytes:
        return None
    return base.reshape(-1).view(np.uint8)[start - first : end - first]


def unpack(layout: Layout, buffer: Array, offset: int) -> tuple[Any, int]:
    """The value of ``layout`` whose bytes start at ``buffer[offset]``, and the offset after
    it; arrays are views of ``buffer``."""
    kind = layout[0]
    if kind == "a":
        dtype, shape = layout[1], layout[2]
        size = nbytes(layout)
        array = buffer[offset : offset + size].view(dtype).reshape(shape)
        return array, offset + size
    if kind in "tl":
        children = []
        for child in layout[1]:
            value, offset = unpack(child, buffer, offset)
            children.append(value)
        return (tuple(children) if kind == "t" else children), offset
    return layout[1], offset


def describe(layout: Layout) -> str:
    """A layout in HLO shape syntax (``f32[4]``, ``(s32[], f32[2,2])``), for messages."""
    kind = layout[0]
    if kind == "a":
        etype = dtypes.from_numpy(layout[1])
        return Shape.array(etype, layout[2]).to_hlo(layout=False)
    if kind in "tl":
        return "(" + ", ".join(describe(child) for child in layout[1]) + ")"
    return type(layout[1]).__name__ if layout[1] is not None else "nothing"


class BufferPool:
    """Receive buffers kept for reuse: a fresh buffer of hundreds of MB costs more in page
    faults than the transfer into it. A buffer is handed out again only when nothing else
    refers to it (no result or view of it is alive: views keep their base referenced)."""

    _MIN_BYTES = 1 << 20

    def __init__(self, keep: int = 4) -> None:
        self._keep = keep
        self._buffers: list[Array] = []
        self._lock = threading.Lock()

    def take(self, size: int) -> Array:
        """A ``uint8`` buffer of ``size`` bytes (uninitialized)."""
        if size < self._MIN_BYTES:
            return np.empty(size, np.uint8)
        with self._lock:
            for i in range(len(self._buffers)):
                buffer = self._buffers[i]
                # References: the list, ``buffer``, getrefcount's argument.
                if buffer.size == size and sys.getrefcount(buffer) <= 3:
                    del self._buffers[i]
                    self._buffers.append(buffer)
                    return buffer
            buffer = np.empty(size, np.uint8)
            self._buffers.append(buffer)
            if len(self._buffers) > self._keep:
                del self._buffers[0]
            return buffer


def displacements(counts: Sequence[int]) -> list[int]:
    """Start offsets of consecutive blocks of the given sizes."""
    starts, total = [], 0
    for count in counts:
        starts.append(total)
        total += count
    return starts


class Deadline:
    """A point in time ``seconds`` from now, polled: the first polls only yield the GIL, then
    sleeps grow from 20 us to 2 ms, so short waits stay fast and long ones cost little CPU."""

    _SPINS = 200

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.reset_pause()

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.end

    def pause(self, stop: threading.Event | None = None) -> None:
        """Sleeps a little (returns early when ``stop`` is set)."""
        if self._spins < self._SPINS:
            self._spins += 1
            time.sleep(0)
            return
        if stop is None:
            time.sleep(self._pause)
        else:
            stop.wait(self._pause)
        self._pause = min(self._pause * 2, 2e-3)

    def reset_pause(self) -> None:
        self._spins = 0
        self._pause = 2e-5


class Watchdog:
    """Ends the MPI job when a blocking MPI call outlives its deadline.

    A blocking call (a collective whose members have all arrived, a communicator creation)
    runs inside ``guard(what, seconds)``; if it has not returned in time (a rank died inside
    it), the watchdog thread prints ``what`` to stderr and calls ``abort`` (``MPI_Abort``),
    which ends every rank with a non-zero status instead of a hang.
    """

    def __init__(self, rank: int, abort: Callable[[], None]) -> None:
        self._rank = rank
        self._abort = abort
        self._cond = threading.Condition()
        self._guards: dict[int, tuple[float, str]] = {}
        self._next = 0
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        """Whether a guarded (blocking) MPI call is under way: pollers then keep off MPI,
        whose lock they would contend for."""
        return bool(self._guards)

    @contextmanager
    def guard(self, what: str, seconds: float) -> Iterator[None]:
        with self._cond:
            token = self._next
            self._next += 1
            self._guards[token] = (time.monotonic() + seconds, f"{what} (waited {seconds:g} s)")
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="xlapy-mpi-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()
        try:
            yield
        finally:
            with self._cond:
                del self._guards[token]

    def _watch(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                late = [what for end, what in self._guards.values() if end <= now]
                if late:
                    break
                ends = [end for end, _ in self._guards.values()]
                self._cond.wait(min(ends) - now if ends else None)
        sys.stderr.write(
            f"error: rank {self._rank}: {late[0]}: an MPI transfer did not complete (did a "
            "rank die?); aborting the job\n"
        )
        sys.stderr.flush()
        self._abort()
