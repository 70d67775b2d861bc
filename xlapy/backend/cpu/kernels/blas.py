"""How the ``cpu`` kernels call BLAS: OpenBLAS single-threaded for the calling thread (its
thread-local setting), and large products split into row blocks over a small pool of Python
threads, one per core.

Why: OpenBLAS's own worker threads busy-wait between calls and fight numba's workers and any
other load for the cores; on the shared 2-core machine a 256x784x512 sgemm measured 1.3 ms
at best but 23-68 ms in the median with them, 2.2 ms median single-threaded. Pool threads
that wait on a queue cost nothing while idle.

Under ``flush_denormals`` the f32 operands and results of BLAS calls are flushed as the
interpreter's contraction rules do (``flush``). This module imports no numba: the quick tier
calls BLAS (``xlapy.backend.cpu.kernel.QUICK_MODULES``).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xlapy.literal import Array

if TYPE_CHECKING:  # imported with the pool (4.5-5.7 ms, which quick first calls never need)
    from concurrent.futures import ThreadPoolExecutor

# A product below this many multiply-adds runs on the calling thread alone. Mid-sized products
# split over the 2 cores of this machine measured slower inside a program, idle or loaded: the
# pool thread starts ~0.1 ms late and its half runs on cold caches (a 512x128x512 sgemm in
# the GPT forward: own half 0.50 ms, then 0.39 ms waiting for the pool's, against 0.76 ms on
# one thread); gpt_forward per call 8.6-10.1 ms split from 2**24, 8.1-9.3 ms unsplit.
_SPLIT_FLOPS = 1 << 26
# An outer product of at least this many elements is split over the cores.
_SPLIT_OUTER = 1 << 18
# A float32 product of at least this many multiply-adds, summing at most
# ``_OPENBLAS_THREADS_MAX_K`` terms, runs on OpenBLAS's own threads, one per core, when the
# program runs on the main thread and another core is idle (``spare_core``). Its threads share
# the packed panels and start within microseconds, where a pool thread starts ~0.1 ms late: a
# 512x128x512 sgemm takes 0.68 ms on one thread, 0.42 ms on two; in one process, alternated,
# gpt_forward 7.9 -> 6.3 ms and gpt_adamw 27.9 -> 24.7 ms per call (XLA:CPU 7.1 and 30.2 then).
# Under load its spinning threads would fight other processes for the cores (a 256x784x512
# sgemm once took 23-68 ms so): then products stay on one thread.
_OPENBLAS_THREADS_FLOPS = 1 << 20
# OpenBLAS splits such a product's rows and columns over its threads, so each element is the
# one-thread sum (tests/backend/cpu/test_op_kernels_dot.py checks the bits); longer sums are
# blocked differently on several threads (float32 from 449 terms with its SkylakeX kernels
# here), and float64 and complex products differ at some shapes of 128 terms.
_OPENBLAS_THREADS_MAX_K = 256
# Below this many multiply-adds OpenBLAS's gemm never starts its threads (its
# SMP_THRESHOLD_MIN 65536 x GEMM_MULTITHREAD_THRESHOLD 4): no thread setting is needed, which
# saves two ctypes calls (about 4 us, more than a 16x32x32 product takes).
_OPENBLAS_ONE_THREAD = 1 << 18


def openblas_thread_setter(libs: Path) -> Callable[[int], int] | None:
    """``openblas_set_num_threads_local`` (OpenBLAS 0.3.27+) of the OpenBLAS a wheel bundles
    in ``libs`` (``numpy.libs``, ``scipy.libs``), or None."""
    for path in sorted(libs.glob("libscipy_openblas*")) if libs.is_dir() else []:
        try:
            fn = ctypes.CDLL(str(path)).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.argtypes = [ctypes.c_int]
        fn.restype = ctypes.c_int
        return fn  # type: ignore[no-any-return]
    return None


# numpy's bundled OpenBLAS: the one np.matmul calls.
_set_local = openblas_thread_setter(Path(np.__file__).resolve().parent.parent / "numpy.libs")
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_inside = threading.local()  # set while a thread runs a task: tasks never split again


def workers() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def blas_threads(count: int) -> Iterator[None]:
    """BLAS calls of this thread run on at most ``count`` OpenBLAS threads inside the block."""
    if _set_local is None:
        yield
        return
    previous = _set_local(count)
    try:
        yield
    finally:
        _set_local(previous)


def one_thread() -> contextlib.AbstractContextManager[None]:
    """BLAS calls of this thread run single-threaded inside the block."""
    return blas_threads(1)


_CHECK_SECONDS = 0.5
"""How long one reading of the other processes' CPU use is trusted."""

_last = {"at": -math.inf, "busy": 0.0, "ours": 0.0, "spare": False}
"""The last reading: when (``time.monotonic``), the machine's busy CPU seconds, this
process's CPU seconds, and whether a core was spare."""


def _machine_busy_seconds() -> float | None:
    """CPU seconds every core of the machine spent busy since boot (``/proc/stat``: all but
    idle and iowait), or None where there is no such file."""
    try:
        with open("/proc/stat", "rb") as f:
            # user nice system idle iowait irq softirq steal (guest time is in user's)
            ticks = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def spare_core() -> bool:
    """Whether, over the last half second or so, other processes left a core idle besides
    the one the calling thread runs on (their CPU use: the machine's less this process's):
    work split over threads that wait for each other is only worth it then. Without
    ``/proc/stat``: always; before a first interval was measured: never."""
    now = time.monotonic()
    if now - _last["at"] > _CHECK_SECONDS:
        busy, ours = _machine_busy_seconds(), time.process_time()
        if busy is None:
            return True
        others = (busy - _last["busy"]) - (ours - _last["ours"])
        spare = _last["at"] > -math.inf and others <= (workers() - 1.5) * (now - _last["at"])
        _last.update(at=now, busy=busy, ours=ours, spare=spare)
    return bool(_last["spare"])


def run_parallel(tasks: list[Callable[[], None]]) -> None:
    """Runs ``tasks`` on the pool (the first on the calling thread), each with single-threaded
    BLAS, and waits for all; re-raises the first failure. A task no pool thread has started
    by the time the calling thread is done with its own runs on the calling thread: when other
    processes hold the cores, a woken pool thread can wait milliseconds for one, and the call
    then takes about what it takes on one thread instead."""
    global _pool
    if len(tasks) <= 1 or workers() == 1 or getattr(_inside, "active", False):
        with one_thread():
            for task in tasks:
                task()
        return
    with _pool_lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(max_workers=workers(), thread_name_prefix="xlapy-blas")
        pool = _pool

    def call(task: Callable[[], None]) -> None:
        _inside.active = True
        try:
            with one_thread():
                task()
        finally:
            _inside.active = False

    futures = [pool.submit(call, task) for task in tasks[1:]]
    call(tasks[0])
    for task, future in zip(tasks[1:], futures, strict=True):
        if future.cancel():
            call(task)
        else:
            future.result()


def _outer(left: Array, right: Array, out: Array) -> None:
    """``out = left @ right`` for ``[b, m, 1] @ [b, 1, n]``: one product per element, as the
    sum BLAS forms (``0 + l * r``: a zero product is +0 for real types; the interpreter's
    complex contraction starts from the product itself, so complex zeros keep their signs)."""
    np.multiply(left, right, out=out)
    if out.dtype.kind != "c":
        np.add(out, out.dtype.type(0), out=out)


def _blocks(b: int, m: int, parts: int) -> list[tuple[slice, slice]]:
    """``parts`` blocks of batches (of rows when there are fewer batches than parts)."""
    if b >= parts:
        step = math.ceil(b / parts)
        return [(slice(i, i + step), slice(None)) for i in range(0, b, step)]
    step = math.ceil(m / parts)
    return [(slice(None), slice(i, i + step)) for i in range(0, m, step)]


def matmul(left: Array, right: Array) -> Array:
    """``np.matmul(left, right)`` for ``[b, m, k] @ [b, k, n]`` stacks, split into blocks of
    batches (or of rows when there are fewer batches than cores) when the product is large.
    An outer product (``k == 1``) is an elementwise multiply: memory-bound, where sgemm with
    one contracting index runs 2-3x slower (per-example gradients: ``vmap(grad)`` of a dense
    layer is a ``[32, 784, 1] @ [32, 1, 128]`` product)."""
    b, m, k = left.shape
    n = right.shape[-1]
    out = np.empty((b, m, n), np.result_type(left, right))
    if k == 1:
        outer_parts = workers() if b * m * n >= _SPLIT_OUTER else 1
        if outer_parts == 1 or getattr(_inside, "active", False):
            _outer(left, right, out)
            return out
        run_parallel(
            [
                partial(_outer, left[batches, rows], right[batches], out[batches, rows])
                for batches, rows in _blocks(b, m, outer_parts)
            ]
        )
        return out
    if m * n * k < _OPENBLAS_ONE_THREAD and left.dtype == right.dtype:
        if b == 1:  # np.dot: half the call cost of a stacked np.matmul
            np.dot(left[0], right[0], out=out[0])
        else:
            np.matmul(left, right, out=out)
        return out
    inside = getattr(_inside, "active", False)
    if (
        b * m * n * k >= _OPENBLAS_THREADS_FLOPS
        and k <= _OPENBLAS_THREADS_MAX_K
        and out.dtype == np.float32
        and not inside
        and workers() > 1
        and threading.current_thread() is threading.main_thread()
        and spare_core()
    ):
        with blas_threads(workers()):
            np.matmul(left, right, out=out)
        return out
    large = b * m * n * k >= _SPLIT_FLOPS and not inside
    parts = workers() if large else 1
    if parts == 1:
        with one_thread():
            np.matmul(left, right, out=out)
        return out

    def task(batches: slice, rows: slice) -> Callable[[], None]:
        return lambda: np.matmul(left[batches, rows], right[batches], out=out[batches, rows])

    run_parallel([task(*block) for block in _blocks(b, m, parts)])
    return out
