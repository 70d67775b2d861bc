"""The MPI runtime: the devices of one SPMD program spread over the ranks of an MPI job.

With N ranks and R x P devices (N divides R*P), rank r runs the k = R*P/N devices
r*k .. r*k+k-1 as threads (k = 1: device d on rank d); a one-device program runs whole on
every rank (so a StableHLO ``interpreter.run_parallel`` test spreads its grid over the ranks).
``xlapy.run(..., runtime="mpi")`` and ``mpirun -n N xlapy run ... --runtime mpi`` use it.

The collective evals talk to it through the ``Runtime`` interface. A collective first meets
the rank's own members (in-process rendezvous); one leader thread per rank then announces the
collective to the group's other ranks (small point-to-point messages on a control
communicator, polled, so a member that never comes is named after ``timeout`` and a finished
or failed one at once) and moves the data with MPI collectives on the group's communicator
(``mpi_collectives``; created once per group, kept for later runs). Channels (send/recv) are
queues on the rank ``channel % N``; infeed/outfeed are the rank's own queues. A process runs
one program at a time on this runtime (every rank calls ``run`` in the same order).

Faults: a device error is sent to every rank (which stop at their next wait and report it);
at the end of a run the ranks agree on the outcome, so every rank raises: the failing rank its
own error, the others one naming it. A blocking MPI call that outlives the timeout (at least
``LONG_WAIT``; a rank died inside it) ends the job through the watchdog (``MPI_Abort``). After
an error, end the job (``python -m mpi4py script.py`` aborts every rank on an uncaught
exception); ``xlapy run --runtime mpi`` does so itself (``_World.farewell``, then ``os._exit``).
"""

from __future__ import annotations

import itertools
import threading
import zlib
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlapy.errors import EvaluationError, InvalidArgument, Unimplemented
from xlapy.interpreter import mpi_collectives
from xlapy.interpreter.mpi_collectives import GroupPlan
from xlapy.interpreter.mpi_transport import (
    BufferPool,
    Deadline,
    Layout,
    Watchdog,
    describe,
    layout_of,
)
from xlapy.interpreter.run import register_runtime
from xlapy.interpreter.runtime import DEFAULT_TIMEOUT, Runtime, is_secondary

_TAG_ERROR, _TAG_FINISHED, _TAG_CHANNEL, _TAG_STATUS, _TAG_GRID = 1, 2, 3, 4, 5
_TAG_FAREWELL = 6
"""On COMM_WORLD itself, which carries no other message of xlapy's."""
_FIRST_GROUP_TAG = 64
LONG_WAIT = 60.0
"""Seconds, at least, that the ranks wait for each other at the start of a run (processes of
one job may start seconds apart on a loaded machine) and that a blocking transfer may take
once every member arrived, before the watchdog ends the job."""


class _World:
    """The process's MPI state, shared by every run: rank, size, a duplicate of
    COMM_WORLD and the communicator of each device group (created once, reused)."""

    def __init__(self) -> None:
        try:
            from mpi4py import MPI
        except ImportError:
            raise Unimplemented(
                "runtime mpi needs mpi4py and an MPI library: pip install 'xlapy[mpi]'"
            ) from None
        self.mpi = MPI
        world = MPI.COMM_WORLD
        self.rank: int = world.Get_rank()
        self.size: int = world.Get_size()
        self.threads_ok = MPI.Query_thread() >= MPI.THREAD_MULTIPLE
        self.tag_limit = int(world.Get_attr(MPI.TAG_UB) or 32767)
        self.watchdog = Watchdog(self.rank, lambda: world.Abort(1))
        self.buffers = BufferPool()
        self.base: Any = None
        self.spare: Any = None
        """The control communicator of the last clean run, for the next run to reuse."""
        self.pending: list[Any] = []
        """Sends of earlier runs still under way (kept alive until they complete)."""
        self._groups: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {}
        self._lock = threading.Lock()

    def tag(self, group: Sequence[int]) -> int:
        """A tag for a group's messages, the same on every rank."""
        span = self.tag_limit - _FIRST_GROUP_TAG
        return _FIRST_GROUP_TAG + zlib.crc32(repr(tuple(group)).encode()) % span

    def ensure_base(self, timeout: float) -> None:
        """Duplicates COMM_WORLD once (every rank's first run); fails if a rank never starts."""
        if self.base is None:
            comm, request = self.mpi.COMM_WORLD.Idup()
            _poll(request, timeout, "runtime mpi: not every rank started its first run")
            self.base = comm

    def gather(self, values: list[Any], timeout: float, root: int | None = 0) -> list[Any] | None:
        """Every rank's ``values`` concatenated in rank order, on rank ``root`` (None on the
        others), or on every rank when ``root`` is None."""
        if self.size == 1:
            return list(values)
        from mpi4py.util import pkl5

        comm = pkl5.Intracomm(self.base)
        with self.watchdog.guard("runtime mpi: gathering the results", max(timeout, LONG_WAIT)):
            if root is None:
                gathered = comm.allgather(values)
            else:
                gathered = comm.gather(values, root=root)
        return None if gathered is None else [v for rank in gathered for v in rank]

    def farewell(self, seconds: float) -> None:
        """Tells every other rank that this one leaves after an error, and waits up to
        ``seconds`` for each of theirs, so that every rank has printed its error before one
        leaves (the launcher ends the job when the first rank exits).

        A rank that failed must then leave without ``MPI_Finalize`` (``os._exit``): whether
        the others know every rank's outcome cannot be agreed in a bounded number of
        messages, and ``MPI_Finalize`` waits for every rank, so one rank finalizing while
        another leaves without it hangs the job (MPICH's launcher does not end a rank that
        is inside ``MPI_Finalize``)."""
        if self.size == 1:
            return
        world = self.mpi.COMM_WORLD
        others = [r for r in range(self.size) if r != self.rank]
        sends = [world.isend(self.rank, dest=r, tag=_TAG_FAREWELL) for r in others]
        waiting = set(others)
        deadline = Deadline(seconds)
        while waiting and not deadline.passed:
            for r in sorted(waiting):
                message = world.improbe(source=r, tag=_TAG_FAREWELL)
                if message is not None:
                    message.recv()
                    waiting.discard(r)
            deadline.pause()
        self.pending += sends

    def group_comm(self, ranks: list[int], group: Sequence[int], timeout: float, what: str) -> Any:
        """The communicator of ``ranks`` for device ``group``; created (by every member, as
        they all reach their first collective over the group together) on first use."""
        key = (tuple(ranks), tuple(group))
        with self._lock:
            comm = self._groups.get(key)
        if comm is None:
            members = self.base.Get_group().Incl(ranks)
            with self.watchdog.guard(f"{what}: creating the group's communicator", timeout):
                comm = self.base.Create_group(members, self.tag(group))
            members.Free()
            with self._lock:
                self._groups[key] = comm
        return comm


_WORLD: _World | None = None
_WORLD_LOCK = threading.Lock()


def world() -> _World:
    """The process's MPI state (initializes MPI through mpi4py on first use)."""
    global _WORLD
    with _WORLD_LOCK:
        if _WORLD is None:
            _WORLD = _World()
        return _WORLD


def placement(num_devices: int, rank: int, size: int) -> tuple[int, ...]:
    """The devices rank ``rank`` of ``size`` runs: k = num_devices / size consecutive ones
    (all of them, on every rank, for a one-device program); raises InvalidArgument when
    ``size`` does not divide ``num_devices``."""
    if num_devices == 1:
        return (0,)
    if num_devices % size:
        raise InvalidArgument(
            f"runtime mpi: {num_devices} devices cannot be spread evenly over {size} ranks; "
            f"run with a number of ranks that divides {num_devices}"
        )
    k = num_devices // size
    return tuple(range(rank * k, rank * k + k))


def _poll(request: Any, timeout: float, message: str) -> None:
    """Waits for an MPI request; raises EvaluationError with ``message`` after ``timeout``."""
    deadline = Deadline(timeout)
    while not request.Test():
        if deadline.passed:
            raise EvaluationError(f"{message} (waited {timeout:g} s)")
        deadline.pause()


class _RemoteFailure(EvaluationError):
    """A device of another rank failed (what the service thread records)."""


@dataclass(frozen=True)
class _Reduction:
    """How an all-reduce folds: the reduction computation, and its builtin name if any."""

    fold: Callable[[Any, Any], Any]
    builtin: str | None


_Extra = _Reduction | int | None
"""What a collective needs besides the values: a reduction, the all-gather dimension, or
nothing."""


@dataclass
class _Published:
    """A leader's results for the rank's other members of a collective."""

    results: dict[int, Any]
    left: int


class MpiRuntime(Runtime):
    """Devices of one program run spread over the ranks of the MPI job (see the module)."""

    def __init__(
        self, num_replicas: int, num_partitions: int, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        super().__init__(num_replicas, num_partitions, timeout)
        self.world = world()
        self.rank, self.size = self.world.rank, self.world.size
        self._local = placement(self.num_devices, self.rank, self.size)
        self.replicated = self.num_devices == 1
        self.per_rank = len(self._local)
        if self.per_rank > 1 and not self.world.threads_ok:
            raise Unimplemented(
                f"runtime mpi: {self.per_rank} devices per rank need an MPI library with "
                "MPI_THREAD_MULTIPLE"
            )
        self._control: Any = None
        self._service: threading.Thread | None = None
        self._stopping = threading.Event()
        self._requests: list[Any] = []
        self._published: dict[Hashable, _Published] = {}
        self._remote: tuple[int, int, str] | None = None
        self._own_error: tuple[int, str] | None = None
        self._current = threading.local()
        self._channel_values: dict[Hashable, deque[Any]] = {}
        self._channel_waiters: dict[Hashable, deque[tuple[int, int]]] = {}
        self._replies: dict[int, Any] = {}
        self._request_ids = itertools.count()
        self.statuses: dict[int, tuple[str, int, str]] = {}
        self._silent: set[int] = set()
        """Ranks a collective waited for in vain: the end of the run does not wait again."""

    # ---- placement ---------------------------------------------------------------------
    @property
    def local_devices(self) -> tuple[int, ...]:
        return self._local

    def owner(self, device: int) -> int:
        """The rank that runs ``device``."""
        return self.rank if self.replicated else device // self.per_rank

    def nested(self, num_replicas: int, num_partitions: int) -> Runtime:
        return MpiRuntime(num_replicas, num_partitions, self.timeout)

    def all_devices(self, local_results: list[Any]) -> list[Any]:
        """Every device's result on every rank (an all-gather over the job)."""
        if self.replicated:
            return local_results
        gathered = self.world.gather(local_results, self.timeout, root=None)
        assert gathered is not None
        return gathered

    def _members(self, group: Sequence[int]) -> dict[int, list[int]]:
        members: dict[int, list[int]] = {}
        for d in group:
            members.setdefault(self.owner(d), []).append(d)
        return members

    # ---- failures ----------------------------------------------------------------------
    def fail(self, exc: BaseException) -> None:
        """Records the failure; a device's own error also goes to every other rank."""
        super().fail(exc)
        if not _is_own(exc) or self._control is None:
            return
        with self._cond:
            if self._own_error is not None:
                return
            device = getattr(self._current, "device", self._local[0])
            self._own_error = (device, f"{type(exc).__name__}: {exc}")
            notice = (self.rank, *self._own_error)
            for r in range(self.size):
                if r != self.rank:
                    self._requests.append(self._control.isend(notice, dest=r, tag=_TAG_ERROR))

    def _check_failure(self, what: str) -> None:
        if self.failure is not None:
            raise EvaluationError(f"{what}: another device failed first")

    # ---- collectives -------------------------------------------------------------------
    def exchange(
        self, key: Hashable, group: Sequence[int], me: int, value: Any, what: str
    ) -> dict[int, Any]:
        if self._single_rank(group):
            return super().exchange(key, group, me, value, what)
        result: dict[int, Any] = self._collective("gather", key, group, me, value, what, None)
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
        if self._single_rank(group):
            return super().all_reduce(key, group, me, operands, fold, what, builtin)
        extra = _Reduction(fold, builtin)
        result: list[Any] = self._collective("reduce", key, group, me, list(operands), what, extra)
        return result

    def all_gather(
        self,
        key: Hashable,
        group: Sequence[int],
        me: int,
        operands: Sequence[Any],
        dim: int,
        what: str,
    ) -> list[Any]:
        if self._single_rank(group):
            return super().all_gather(key, group, me, operands, dim, what)
        payload = list(operands)
        result: list[Any] = self._collective("allgather", key, group, me, payload, what, dim)
        return result

    def join(self, blocks: Sequence[Any], dim: int) -> Any:
        """The blocks an all-to-all received, as one array: a view of the receive buffer when
        they lie back to back in it."""
        return mpi_collectives.join(blocks, dim)

    def scatter_exchange(
        self, key: Hashable, group: Sequence[int], me: int, parts: Sequence[Any], what: str
    ) -> list[Any]:
        if self._single_rank(group):
            return super().scatter_exchange(key, group, me, parts, what)
        result: list[Any] = self._collective("scatter", key, group, me, list(parts), what, None)
        return result

    def _single_rank(self, group: Sequence[int]) -> bool:
        return self.replicated or all(self.owner(d) == self.rank for d in group)

    def _collective(
        self,
        kind: str,
        key: Hashable,
        group: Sequence[int],
        me: int,
        payload: Any,
        what: str,
        extra: _Extra,
    ) -> Any:
        """Meets the rank's members; the first of them leads the exchange with the other
        ranks and hands each member its result."""
        members = self._members(group)
        local = members[self.rank]
        slot = (key, tuple(group))
        gathered = {me: payload}
        if len(local) > 1:
            gathered = super().exchange(("local", slot), local, me, payload, what)
        if me != local[0]:
            return self._await(slot, me, local[0], what)
        results = self._lead(kind, key, list(group), members, gathered, what, extra)
        if len(local) > 1:
            with self._cond:
                self._published[slot] = _Published(results, len(local) - 1)
                self._cond.notify_all()
        return results[me]

    def _await(self, slot: Hashable, me: int, leader: int, what: str) -> Any:
        with self._cond:
            deadline = Deadline(3 * self.timeout)
            while slot not in self._published:
                self._check_failure(what)
                if deadline.passed:
                    raise EvaluationError(
                        f"{what}: device {leader} did not bring the other ranks' values "
                        f"(waited {deadline.seconds:g} s)"
                    )
                self._cond.wait(0.05)
            entry = self._published[slot]
            entry.left -= 1
            if entry.left == 0:
                del self._published[slot]
            return entry.results[me]

    def _lead(
        self,
        kind: str,
        key: Hashable,
        group: list[int],
        members: dict[int, list[int]],
        gathered: dict[int, Any],
        what: str,
        extra: _Extra,
    ) -> dict[int, Any]:
        ranks = sorted(members)
        if kind == "gather":
            mine: dict[int, Any] = {d: layout_of(v) for d, v in gathered.items()}
        else:
            mine = {d: [layout_of(v) for v in values] for d, values in gathered.items()}
        layouts = self._arrive(key, group, members, ranks, mine, what)
        _check_layouts(kind, group, layouts, what)
        comm = self.world.group_comm(ranks, group, max(self.timeout, LONG_WAIT), what)
        patience = max(self.timeout, LONG_WAIT)
        world = self.world
        plan = GroupPlan(
            comm, group, ranks, members, self.rank, world.watchdog, patience, what, world.buffers
        )
        if kind == "gather":
            everyone = mpi_collectives.gather(plan, gathered, layouts)
            return {d: everyone for d in plan.local}
        if kind == "scatter":
            return mpi_collectives.scatter(plan, gathered, layouts)
        if isinstance(extra, int):
            joined = mpi_collectives.all_gather(plan, gathered, layouts, extra)
            return {d: joined for d in plan.local}
        assert isinstance(extra, _Reduction)
        first = layouts[group[0]]
        reduced = mpi_collectives.all_reduce(plan, gathered, first, extra.fold, extra.builtin)
        return {d: reduced for d in plan.local}

    def _arrive(
        self,
        key: Hashable,
        group: list[int],
        members: dict[int, list[int]],
        ranks: list[int],
        mine: dict[int, Any],
        what: str,
    ) -> dict[int, Any]:
        """Tells the group's other ranks that this rank's members reached the collective and
        waits for theirs; returns every member's layout. Raises naming the devices that did
        not come (timeout), finished their program, or reached another collective."""
        tag = self.world.tag(group)
        others = [r for r in ranks if r != self.rank]
        with self._cond:
            for r in others:
                self._requests.append(self._control.isend((key, what, mine), dest=r, tag=tag))
        layouts = dict(mine)
        waiting = set(others)
        deadline = Deadline(self.timeout)
        while waiting:
            absent = [d for r in sorted(waiting) for d in members[r]]
            gone = sorted(set(absent) & self.finished)
            failed = self.failure is not None
            for r in sorted(waiting):
                message = self._control.improbe(source=r, tag=tag)
                if message is None:
                    continue
                their_key, their_what, theirs = message.recv()
                if their_key != key:
                    raise EvaluationError(
                        f"{what}: devices {members[r]} reached {their_what} (execution "
                        f"{_count(their_key)}) where this device reached this collective "
                        f"(execution {_count(key)})"
                    )
                layouts.update(theirs)
                waiting.discard(r)
                deadline.reset_pause()
            if not waiting:
                break
            if failed:
                raise EvaluationError(f"{what}: another device failed first")
            if gone:
                raise EvaluationError(
                    f"{what}: devices {absent} of group {group} never reached this collective: "
                    f"device(s) {gone} finished their program"
                )
            if deadline.passed:
                self._silent.update(waiting)
                raise EvaluationError(
                    f"{what}: devices {absent} of group {group} never reached this collective "
                    f"(waited {self.timeout:g} s)"
                )
            deadline.pause()
        return layouts

    # ---- channels (send/recv) ----------------------------------------------------------
    def _channel_owner(self, channel: Hashable) -> int:
        if self.replicated:
            return self.rank
        number = channel if isinstance(channel, int) else zlib.crc32(repr(channel).encode())
        return number % self.size

    def send(self, channel: Hashable, value: Any) -> None:
        owner = self._channel_owner(channel)
        with self._cond:
            if owner == self.rank:
                self._serve(channel, value=value)
            else:
                message = ("send", channel, value)
                request = self._control.isend(message, dest=owner, tag=_TAG_CHANNEL)
                self._requests.append(request)

    def recv(self, channel: Hashable, what: str) -> Any:
        owner = self._channel_owner(channel)
        with self._cond:
            rid = next(self._request_ids)
            if owner == self.rank:
                self._serve(channel, waiter=(self.rank, rid))
            else:
                message = ("recv", channel, (self.rank, rid))
                request = self._control.isend(message, dest=owner, tag=_TAG_CHANNEL)
                self._requests.append(request)
            self._wait(
                lambda: rid in self._replies,
                lambda: f"{what}: nothing was sent on channel {channel}",
            )
            return self._replies.pop(rid)

    def _serve(
        self, channel: Hashable, value: Any = None, waiter: tuple[int, int] | None = None
    ) -> None:
        """The channel owner's queue (holding the lock): a value sent or a receiver waiting;
        values go to receivers in the order both came."""
        values = self._channel_values.setdefault(channel, deque())
        waiters = self._channel_waiters.setdefault(channel, deque())
        if waiter is None:
            values.append(value)
        else:
            waiters.append(waiter)
        while values and waiters:
            (rank, rid), value = waiters.popleft(), values.popleft()
            if rank == self.rank:
                self._replies[rid] = value
                self._cond.notify_all()
            else:
                request = self._control.isend(("reply", rid, value), dest=rank, tag=_TAG_CHANNEL)
                self._requests.append(request)

    # ---- the service thread ------------------------------------------------------------
    def _service_loop(self) -> None:
        """Receives error and finished notices and channel traffic while the run lasts."""
        from mpi4py import MPI

        deadline = Deadline(1.0)
        while not self._stopping.is_set():
            if self.world.watchdog.busy:  # a transfer runs: keep off MPI's lock meanwhile
                self._stopping.wait(1e-3)
                continue
            handled = False
            for tag in (_TAG_ERROR, _TAG_FINISHED, _TAG_CHANNEL):
                message = self._control.improbe(source=MPI.ANY_SOURCE, tag=tag)
                if message is not None:
                    self._handle(tag, message.recv())
                    handled = True
            with self._cond:
                self._requests = [r for r in self._requests if not r.Test()]
            if handled:
                deadline.reset_pause()
            else:
                deadline.pause(self._stopping)

    def _handle(self, tag: int, message: Any) -> None:
        with self._cond:
            if tag == _TAG_ERROR:
                self._remote_failure(message)
            elif tag == _TAG_FINISHED:
                flat, notice = message
                if notice is not None:  # the failure first: waiters report it, not the finish
                    self._remote_failure(notice)
                self.finished.add(flat)
            elif message[0] == "send":
                self._serve(message[1], value=message[2])
            elif message[0] == "recv":
                self._serve(message[1], waiter=message[2])
            else:
                self._replies[message[1]] = message[2]
            self._cond.notify_all()

    def _remote_failure(self, notice: tuple[int, int, str]) -> None:
        rank, device, text = notice
        if self._remote is None:
            self._remote = notice
        super().fail(_RemoteFailure(f"rank {rank} (device {device}) failed: {text}"))

    # ---- running -----------------------------------------------------------------------
    def run_devices(self, body: Callable[[int], Any]) -> list[Any]:
        """Runs this rank's devices; then every rank learns every other's outcome, so all of
        them raise when one failed (the failing rank its own error)."""
        self._start()
        error: BaseException | None = None
        results: list[Any] = []

        def device(flat: int) -> Any:
            self._current.device = flat
            notice = None
            try:
                return body(flat)
            except BaseException as exc:
                self.fail(exc)
                if _is_own(exc):
                    notice = (self.rank, flat, f"{type(exc).__name__}: {exc}")
                raise
            finally:
                self._announce_finished(flat, notice)

        try:
            results = super().run_devices(device)
        except BaseException as exc:
            error = exc
        try:
            self._conclude(error)
        finally:
            self._stop()
        if error is not None and _is_own(error):
            raise error
        failed = [(r, s) for r, s in sorted(self.statuses.items()) if s[0] == "error"]
        if failed:
            rank, (_, dev, text) = failed[0]
            raise EvaluationError(f"rank {rank} (device {dev}) failed: {text}") from error
        if self._remote is not None:
            rank, dev, text = self._remote
            raise EvaluationError(f"rank {rank} (device {dev}) failed: {text}") from error
        if error is not None:
            raise error
        missing = [r for r in range(self.size) if r not in self.statuses]
        if missing:
            raise EvaluationError(
                f"runtime mpi: rank(s) {missing} did not finish the program (waited "
                f"{self.timeout:g} s)"
            )
        return results

    def _start(self) -> None:
        """Makes the run's control communicator, checks that every rank runs the same grid
        and starts the service thread."""
        if self._control is not None:
            raise InvalidArgument("runtime mpi: a runtime runs one program once")
        startup = max(self.timeout, LONG_WAIT)
        self.world.ensure_base(startup)
        comm, self.world.spare = self.world.spare, None
        if comm is None:
            comm, request = self.world.base.Idup()
            _poll(request, startup, "runtime mpi: not every rank started this run")
        self._control = comm
        grid = np.array([self.num_replicas, self.num_partitions], np.int64)
        grids = np.empty((self.size, 2), np.int64)
        _poll(comm.Iallgather(grid, grids), startup, "runtime mpi: grid handshake")
        if (grids != grid).any():
            shown = ", ".join(f"rank {r}: {a} x {b}" for r, (a, b) in enumerate(grids.tolist()))
            raise InvalidArgument(
                f"runtime mpi: every rank must run the same replicas x partitions; got {shown}"
            )
        self._service = threading.Thread(
            target=self._service_loop, name="xlapy-mpi-service", daemon=True
        )
        self._service.start()

    def _announce_finished(self, flat: int, notice: tuple[int, int, str] | None) -> None:
        """Tells the other ranks that ``flat`` finished (with its error, if it failed)."""
        with self._cond:
            for r in range(self.size):
                if r != self.rank and not self.replicated:
                    message = (flat, notice)
                    self._requests.append(self._control.isend(message, dest=r, tag=_TAG_FINISHED))

    def _conclude(self, error: BaseException | None) -> None:
        """Every rank sends its outcome to every other and waits (up to the timeout) for
        theirs: ``statuses[rank] = ("ok" | "error" | "secondary", device, message)``."""
        if error is None:
            status = ("ok", -1, "")
        elif self._own_error is not None and _is_own(error):
            status = ("error", *self._own_error)
        else:
            status = ("secondary", self._local[0], f"{type(error).__name__}: {error}")
        self.statuses = {self.rank: status}
        with self._cond:
            for r in range(self.size):
                if r != self.rank:
                    self._requests.append(self._control.isend(status, dest=r, tag=_TAG_STATUS))
        deadline = Deadline(self.timeout)
        while len(self.statuses) < self.size and not deadline.passed:
            expected = [r for r in range(self.size) if r not in self.statuses]
            if all(r in self._silent for r in expected):
                break
            for r in expected:
                if r not in self.statuses:
                    message = self._control.improbe(source=r, tag=_TAG_STATUS)
                    if message is not None:
                        self.statuses[r] = message.recv()
                        deadline.reset_pause()
            deadline.pause()

    def _stop(self) -> None:
        """Stops the service thread. After a run every rank finished cleanly, takes the
        messages still on their way and leaves the control communicator to the next run (a
        failed run's may hold stray messages: it is dropped)."""
        from mpi4py import MPI

        self._stopping.set()
        if self._service is not None:
            self._service.join()
        clean = len(self.statuses) == self.size
        clean = clean and all(s[0] == "ok" for s in self.statuses.values())
        if clean:
            while (message := self._control.improbe(MPI.ANY_SOURCE, MPI.ANY_TAG)) is not None:
                message.recv()
            self.world.spare = self._control
        with self._cond:
            pending = self.world.pending + self._requests
            self.world.pending = [r for r in pending if not r.Test()]


def _is_own(exc: BaseException) -> bool:
    """A device's own error, not one raised because another device failed."""
    return not isinstance(exc, _RemoteFailure) and not is_secondary(exc)


def _count(key: object) -> object:
    """The 1-based execution number of a collective's key ``(instruction, count)``."""
    return key[1] + 1 if isinstance(key, tuple) and len(key) == 2 else key


def _check_layouts(kind: str, group: list[int], layouts: dict[int, Any], what: str) -> None:
    """The members of a collective must agree on their operands' shapes and types (as XLA
    requires); for an all-to-all, on what each member sends to each member."""
    if kind == "scatter":
        for j, target in enumerate(group):
            sent = [(m, layouts[m][j]) for m in group if layouts[m][j] != ("v", None)]
            for m, layout in sent[1:]:
                if layout != sent[0][1]:
                    raise EvaluationError(
                        f"{what}: the devices' operands differ; device {sent[0][0]} sends "
                        f"{describe(sent[0][1])} and device {m} sends {describe(layout)} to "
                        f"device {target}"
                    )
        return
    first = layouts[group[0]]
    for d in group[1:]:
        if layouts[d] != first:
            raise EvaluationError(
                f"{what}: the devices' operands differ; got {_show(first)} on device "
                f"{group[0]} and {_show(layouts[d])} on device {d}"
            )


def _show(layout: Layout | list[Layout]) -> str:
    return describe(("t", tuple(layout))) if isinstance(layout, list) else describe(layout)


register_runtime("mpi", MpiRuntime)
