"""Watching calls while they run: which device executed how many instructions, and which while
loop is at which iteration.

This module is the layer the platforms plug into; it knows neither of them (every import
arrow points down: ``interpreter`` and ``backend.cpu`` import ``profiling``, never the other
way). A ``RunObserver`` is attached to a call (``PreparedCall.observer``). The platforms then
run observed variants of their code, so that calls made without an observer run exactly as
before:

- ``interpreter``: every device evaluates with an ``ObservedEvaluator``
  (``xlapy.interpreter.observed``: an ``Evaluator`` whose ``evaluate`` and ``call`` report to
  the device's log);
- ``cpu``: every device runs an ``ObservedProgram`` (``xlapy.backend.cpu.observed_plan``),
  whose plans are generated again with calls to the log (``plan_code.PlanHooks``).

A platform reports through ``RunObserver.bind`` (a device starts: its ``DeviceLog``),
``RunObserver.loops`` (which computations restart or advance a while loop), ``DeviceLog``
(``entered``, ``step``, ``call``) and ``RunObserver.objects`` (what event keys name); it keeps
what it derives from an observer (an observed program) in ``RunObserver.derived``. Devices and
runtimes are seen through the ``ObservedDevice`` and ``ObservedRuntime`` protocols.

Each device's thread reports to its own ``DeviceLog``, so nothing is shared while the program
runs. The base observer only counts (the progress display of ``xlapy run``); ``Profile``
(``xlapy.profiling.recorder``) also times every instruction.

Loop iterations are counted without looking inside the while evals: entering the body of a
while loop starts its next iteration, and entering the computation that holds a while
instruction starts that loop afresh (its count is dropped until its body runs again).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode

CLOCK = time.perf_counter_ns
"""The clock of every recorded time (nanoseconds, monotonic, shared by all threads)."""

INSTRUCTION, COMPUTATION, WAIT = 0, 1, 2
"""Kinds of recorded events: ``(kind, key, start, end)``, where ``key`` is the ``id`` of the
instruction or computation (``RunObserver.objects`` maps it back; 0 for waits). Tuples of
plain ints are left alone by the garbage collector, so a long profile costs it nothing."""

LoopInfo = tuple[tuple[str, ...], str | None]
"""For a computation: the while loops it holds (restarted when it is entered) and the while
loop whose body it is (whose iteration advances when it is entered)."""

NO_LOOPS: LoopInfo = ((), None)

T = TypeVar("T")


class ObservedRuntime(Protocol):
    """The devices of one call as an observer sees them (``interpreter.runtime.Runtime``)."""

    on_wait: Callable[[int], None] | None
    """Told the clock at which a device began a wait that has just ended."""


class ObservedDevice(Protocol):
    """One device of a call as an observer sees it (``interpreter.evaluator.DeviceState``)."""

    @property
    def replica_id(self) -> int: ...

    @property
    def partition_id(self) -> int: ...

    @property
    def flat_id(self) -> int: ...

    @property
    def runtime(self) -> ObservedRuntime: ...


def loop_table(module: HloModule) -> dict[int, LoopInfo]:
    """``LoopInfo`` of every computation of ``module`` that holds or is the body of a while
    loop, by ``id`` of the computation."""
    holds: dict[int, list[str]] = {}
    body_of: dict[int, str] = {}
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.opcode is Opcode.WHILE:
                holds.setdefault(id(comp), []).append(instr.name)
                body_of[id(instr.attrs.body)] = instr.name
    return {
        key: (tuple(holds.get(key, ())), body_of.get(key)) for key in holds.keys() | body_of.keys()
    }


class RunRecord:
    """One call observed: its module and platform, and the log of each device that ran.

    Attributes:
        index: position among the calls of the observer (0 for the first).
        module: the module's name.
        platform: ``interpreter`` or ``cpu``.
        runtime: the call's devices (kept so that its identity names this call).
        logs: one per device, in the order the devices started.
    """

    def __init__(self, index: int, module: str, platform: str, runtime: ObservedRuntime) -> None:
        self.index = index
        self.module = module
        self.platform = platform
        self.runtime = runtime
        self.logs: list[DeviceLog] = []


class DeviceLog:
    """What one device reported during one call; written only by that device's thread.

    Attributes:
        run: the call.
        device: the device's flat id (``replica * partitions + partition``).
        replica, partition: the device's replica and partition ids.
        instructions: instructions executed so far.
        loops: the iteration each running while loop is at (by instruction name).
        current_loop: the while loop whose iteration advanced last.
        events: recorded ``(kind, key, start, end)`` events, or None when only counting.
    """

    __slots__ = (
        "current_loop", "device", "events", "instructions", "loops", "partition", "replica", "run",
    )  # fmt: skip

    def __init__(self, run: RunRecord, device: ObservedDevice, timed: bool) -> None:
        self.run = run
        self.device = device.flat_id
        self.replica = device.replica_id
        self.partition = device.partition_id
        self.instructions = 0
        self.loops: dict[str, int] = {}
        self.current_loop: str | None = None
        self.events: list[tuple[int, int, int, int]] | None = [] if timed else None

    def entered(self, resets: Sequence[str], loop: str | None) -> None:
        """A computation started: restart the loops it holds, advance the one it is the
        body of."""
        loops = self.loops
        for name in resets:
            loops.pop(name, None)
        if loop is not None:
            loops[loop] = loops.get(loop, 0) + 1
            self.current_loop = loop

    def step(self, instr: HloInstruction, start: int) -> None:
        """Instruction ``instr`` (registered in ``RunObserver.objects``) ran from ``start``
        until now."""
        self.instructions += 1
        if self.events is not None:
            self.events.append((INSTRUCTION, id(instr), start, CLOCK()))

    def call(self, comp: HloComputation, start: int) -> None:
        """A call of ``comp`` (registered in ``RunObserver.objects``) ran from ``start``
        until now."""
        if self.events is not None:
            self.events.append((COMPUTATION, id(comp), start, CLOCK()))

    def loop_status(self) -> str:
        """``while NAME iteration N`` for the loop that advanced last, if it still runs."""
        name = self.current_loop
        if name is None or name not in self.loops:
            return ""
        return f"while {name} iteration {self.loops[name]:,}"


class RunObserver:
    """Observes the calls it is attached to: per device, instructions executed and the
    current while-loop iteration (read by the progress display from another thread).

    Attributes:
        runs: the calls observed, in order.
        origin: ``CLOCK()`` when the observer was made (times are reported from there).
        local: per thread, ``local.log``: the log of the device that thread runs.
        objects: the instructions and computations events name, by ``id`` (kept alive here,
            so that the ids stay theirs).
    """

    timed = False
    """Whether devices record timed events (``Profile``) or only count."""

    def __init__(self) -> None:
        self.runs: list[RunRecord] = []
        self.origin = CLOCK()
        self._by_runtime: dict[int, RunRecord] = {}
        self.local = threading.local()
        self.objects: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._loops: dict[int, tuple[HloModule, dict[int, LoopInfo]]] = {}
        self._derived: dict[tuple[str, int], tuple[object, Any]] = {}

    def loops(self, module: HloModule) -> dict[int, LoopInfo]:
        """``loop_table(module)``, computed once per module."""
        known = self._loops.get(id(module))
        if known is None or known[0] is not module:
            known = (module, loop_table(module))
            with self._lock:
                self._loops[id(module)] = known
        return known[1]

    def bind(self, module: HloModule, device: ObservedDevice, platform: str) -> DeviceLog:
        """A new log for ``device`` in the call its runtime belongs to, made the log of the
        calling thread (the device's thread)."""
        runtime = device.runtime
        with self._lock:
            run = self._by_runtime.get(id(runtime))
            if run is None or run.runtime is not runtime:
                run = RunRecord(len(self.runs), module.name, platform, runtime)
                self.runs.append(run)
                self._by_runtime[id(runtime)] = run
                if self.timed:
                    runtime.on_wait = self.waited
            log = DeviceLog(run, device, self.timed)
            run.logs.append(log)
        self.local.log = log
        return log

    def waited(self, start: int) -> None:
        """The calling device waited at a rendezvous or channel from ``start`` until now
        (``Runtime.on_wait``)."""
        log: DeviceLog | None = getattr(self.local, "log", None)
        if log is not None and log.events is not None:
            log.events.append((WAIT, 0, start, CLOCK()))

    def derived(self, kind: str, source: object, make: Callable[[], T]) -> T:
        """What a platform derives from ``source`` for this observer (``kind`` names it, e.g.
        the observed program of a compiled program): made by ``make()`` once per source."""
        key = (kind, id(source))
        known = self._derived.get(key)
        if known is None or known[0] is not source:
            known = (source, make())
            with self._lock:
                self._derived[key] = known
        return known[1]

    def status(self) -> str:
        """One line on the latest call: instructions executed (device 0, or the first device
        of this process) and the loop it is in."""
        if not self.runs or not self.runs[-1].logs:
            return ""
        run = self.runs[-1]
        log = min(run.logs, key=lambda entry: entry.device)
        text = f"{log.instructions:,} instructions"
        if len(run.logs) > 1:
            text += f" on device {log.device} ({len(run.logs)} devices)"
        loop = log.loop_status()
        return f"{text}, {loop}" if loop else text
