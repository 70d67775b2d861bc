"""The in-process SPMD runtime: N = replicas x partitions devices, one thread each.

Devices meet at rendezvous points for collectives and exchange values through channels
(send/recv) and host queues (infeed/outfeed). A device that never arrives ends the wait with an
EvaluationError naming the op, the group and the missing devices — never a hang.
The runtime is the only thing collective evals talk to, so a multi-process runtime
(``xlapy.interpreter.mpi_runtime``) replaces it without touching the ops: a subclass overrides
``exchange``, the collectives built on it (``all_reduce``, ``all_gather``, ``all_to_all``,
``scatter_exchange``), ``send``/``recv`` and ``run_devices`` (which runs the
``local_devices`` of this process).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xlapy.errors import EvaluationError, InvalidArgument, XlaError

DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True, slots=True)
class DeviceId:
    """A device of the SPMD grid; ``flat = replica * num_partitions + partition``."""

    replica: int
    partition: int
    flat: int


@dataclass
class _Rendezvous:
    values: dict[int, Any] = field(default_factory=dict)
    taken: int = 0


class Runtime:
    """Devices of one program run; rendezvous, channels and host feeds between them."""

    def __init__(self, num_replicas: int, num_partitions: int, timeout: float = DEFAULT_TIMEOUT):
        if num_replicas < 1 or num_partitions < 1:
            raise InvalidArgument(
                f"replicas and partitions must be >= 1; got {num_replicas} x {num_partitions}"
            )
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.timeout = timeout
        self._cond = threading.Condition()
        self._rendezvous: dict[Hashable, _Rendezvous] = {}
        self._channels: dict[Hashable, deque[Any]] = {}
        self.infeed: deque[Any] = deque()
        self.outfeed: list[Any] = []
        self.failure: BaseException | None = None
        self.finished: set[int] = set()
        self.on_wait: Callable[[int], None] | None = None
        """Told ``time.perf_counter_ns()`` at which a device began a wait that has just ended
        (a profile sets it: ``xlapy.profiling``)."""

    @property
    def num_devices(self) -> int:
        return self.num_replicas * self.num_partitions

    @property
    def local_devices(self) -> tuple[int, ...]:
        """The flat ids of the devices this process runs (here: all of them)."""
        return tuple(range(self.num_devices))

    def nested(self, num_replicas: int, num_partitions: int) -> Runtime:
        """A fresh runtime of the same kind for a grid run inside a program
        (``interpreter.run_parallel``)."""
        return Runtime(num_replicas, num_partitions, self.timeout)

    def all_devices(self, local_results: list[Any]) -> list[Any]:
        """Every device's result, in device order, from this process's ``run_devices`` results
        (here they are already all of them)."""
        return local_results

    def device(self, flat: int) -> DeviceId:
        return DeviceId(flat // self.num_partitions, flat % self.num_partitions, flat)

    def flat_id(self, replica: int, partition: int) -> int:
        return replica * self.num_partitions + partition

    # ---- failure propagation -----------------------------------------------------------
    def fail(self, exc: BaseException) -> None:
        """Records the first failure and wakes every waiting device."""
        with self._cond:
            if self.failure is None:
                self.failure = exc
            self._cond.notify_all()

    def _wait(
        self,
        ready: Callable[[], bool],
        describe_missing: Callable[[], str],
        needed: Callable[[], set[int]] = set,
    ) -> None:
        """Waits (holding the condition) until ``ready()``; fails at once when a device in
        ``needed()`` has finished its program, or another device failed, and after the timeout."""
        if ready():
            return
        deadline = time.monotonic() + self.timeout
        began = time.perf_counter_ns()
        while not ready():
            gone = sorted(needed() & self.finished)
            if gone:
                raise EvaluationError(
                    f"{describe_missing()}: device(s) {gone} finished their program"
                )
            if self.failure is not None:
                raise EvaluationError(f"{describe_missing()}: another device failed first")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EvaluationError(f"{describe_missing()} (waited {self.timeout:g} s)")
            self._cond.wait(remaining)
        if self.on_wait is not None:
            self.on_wait(began)

    # ---- collectives -------------------------------------------------------------------
    def exchange(
        self, key: Hashable, group: Sequence[int], me: int, value: Any, what: str
    ) -> dict[int, Any]:
        """Contributes ``value`` for device ``me`` and returns every group member's value.

        Args:
            key: identifies one execution of one collective (same on every member).
            group: flat device ids of the participants, in group order.
            me: this device's flat id (a member of ``group``).
            what: the op and instruction, for error messages.
        """
        with self._cond:
            slot = self._rendezvous.setdefault((key, tuple(group)), _Rendezvous())
            slot.values[me] = value
            self._cond.notify_all()

            def missing() -> str:
                absent = [d for d in group if d not in slot.values]
                return (
                    f"{what}: devices {absent} of group {list(group)} never reached this collective"
                )

            self._wait(
                lambda: len(slot.values) == len(group),
                missing,
                lambda: {d for d in group if d not in slot.values},
            )
            result = dict(slot.values)
            slot.taken += 1
            if slot.taken == len(group):
                del self._rendezvous[(key, tuple(group))]
            return result

    def all_reduce(
        self,
        key: Hashable,
        group: Sequence[int],
        me: int,
        operands: Sequence[Any],
        fold: Callable[[Any, Any], Any],
        what: str,
        builtin: str | None = None,
    ) -> list[Any]:
        """Each operand reduced over the group: ``fold`` applied left to right in group order
        (``fold(fold(v0, v1), v2)...``), element-wise.

        Args:
            operands: this device's arrays (all members have the same shapes and dtypes).
            fold: the reduction computation on two arrays (element-wise).
            builtin: the reduction's name when it is a plain ``add``/``multiply``/``minimum``/
                ``maximum``/``and``/``or``/``xor`` of its two parameters: a runtime may then
                use a native reduction where its bits cannot differ (integers).
        """
        everyone = self.exchange(key, group, me, list(operands), what)
        results = []
        for i in range(len(operands)):
            acc = everyone[group[0]][i]
            for d in group[1:]:
                acc = fold(acc, everyone[d][i])
            results.append(acc)
        return results

    def all_gather(
        self,
        key: Hashable,
        group: Sequence[int],
        me: int,
        operands: Sequence[Any],
        dim: int,
        what: str,
    ) -> list[Any]:
        """Each operand of every member, concatenated along ``dim`` in group order."""
        everyone = self.exchange(key, group, me, list(operands), what)
        return [
            np.concatenate([everyone[d][i] for d in group], axis=dim) for i in range(len(operands))
        ]

    def all_to_all(
        self,
        key: Hashable,
        group: Sequence[int],
        me: int,
        operands: Sequence[Any],
        dim: int,
        what: str,
    ) -> list[Any]:
        """Each operand split into len(group) blocks along ``dim``, block j sent to member j;
        returns, per operand, the blocks received, concatenated along ``dim`` in group order."""
        n = len(group)
        blocks = [np.split(operand, n, axis=dim) for operand in operands]
        parts = [[block[j] for block in blocks] for j in range(n)]
        received = self.scatter_exchange(key, group, me, parts, what)
        return [self.join([member[i] for member in received], dim) for i in range(len(operands))]

    def join(self, blocks: Sequence[Any], dim: int) -> Any:
        """The blocks an all-to-all received, concatenated along ``dim``."""
        return np.concatenate(blocks, axis=dim)

    def scatter_exchange(
        self, key: Hashable, group: Sequence[int], me: int, parts: Sequence[Any], what: str
    ) -> list[Any]:
        """All-to-all: ``parts[j]`` goes to member ``group[j]``; returns what each member sent
        to ``me``, in group order (``None`` parts carry nothing)."""
        everyone = self.exchange(key, group, me, list(parts), what)
        mine = list(group).index(me)
        return [everyone[d][mine] for d in group]

    # ---- channels (send/recv) ----------------------------------------------------------
    def send(self, channel: Hashable, value: Any) -> None:
        with self._cond:
            self._channels.setdefault(channel, deque()).append(value)
            self._cond.notify_all()

    def recv(self, channel: Hashable, what: str) -> Any:
        with self._cond:
            queue = self._channels.setdefault(channel, deque())
            self._wait(
                lambda: bool(queue), lambda: f"{what}: nothing was sent on channel {channel}"
            )
            return queue.popleft()

    # ---- host feeds ----------------------------------------------------------------------
    def pop_infeed(self, what: str) -> Any:
        with self._cond:
            if not self.infeed:
                raise EvaluationError(f"{what}: the infeed queue is empty")
            return self.infeed.popleft()

    def push_outfeed(self, value: Any) -> None:
        with self._cond:
            self.outfeed.append(value)

    # ---- running -------------------------------------------------------------------------
    def run_devices(self, body: Callable[[int], Any]) -> list[Any]:
        """Runs ``body(flat_id)`` on one thread per local device; returns their results in
        device order.

        The first device error is re-raised after all threads finished (the others are woken
        and fail fast).
        """
        local = self.local_devices
        results: dict[int, Any] = {}
        errors: dict[int, BaseException] = {}

        def work(flat: int) -> None:
            try:
                results[flat] = body(flat)
            except BaseException as exc:  # re-raised below, in the caller's thread
                errors[flat] = exc
                self.fail(exc)
            with self._cond:
                self.finished.add(flat)
                self._cond.notify_all()

        if len(local) == 1:
            work(local[0])
        else:
            threads = [
                threading.Thread(target=work, args=(d,), name=f"xlapy-device-{d}", daemon=True)
                for d in local
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        failed = [errors[d] for d in local if d in errors]
        first = next((e for e in failed if not is_secondary(e)), None)
        first = first or next(iter(failed), None)
        if first is not None:
            if isinstance(first, XlaError) or not isinstance(first, Exception):
                raise first  # KeyboardInterrupt and SystemExit go through unchanged
            raise EvaluationError(f"device failed: {type(first).__name__}: {first}") from first
        return [results[d] for d in local]


def is_secondary(exc: BaseException) -> bool:
    """True for the error of a device that stopped because another device failed first."""
    return isinstance(exc, EvaluationError) and "another device failed first" in str(exc)
