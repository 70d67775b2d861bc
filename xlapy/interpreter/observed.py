"""The ``interpreter`` platform observed (``xlapy.profiling.observer``): an ``Evaluator`` that
reports each instruction and computation call to its device's log, timed when the observer
is a profile. Calls without an observer use the plain ``Evaluator``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.literal import Value
from xlapy.profiling.observer import CLOCK, NO_LOOPS, DeviceLog, LoopInfo, RunObserver


class ObservedEvaluator(Evaluator):
    """An ``Evaluator`` that reports each instruction and computation call to a device log
    (timed when the log records events)."""

    def __init__(
        self,
        module: HloModule,
        options: EvalOptions | None,
        device: DeviceState | None,
        log: DeviceLog,
        loops: dict[int, LoopInfo],
        objects: dict[int, Any],
    ) -> None:
        super().__init__(module, options, device)
        self.log = log
        self.loops = loops
        self.objects = objects

    def call(self, comp: HloComputation, args: Sequence[Value]) -> Value:
        log = self.log
        resets, loop = self.loops.get(id(comp), NO_LOOPS)
        log.entered(resets, loop)
        if log.events is None:
            return super().call(comp, args)
        self.objects[id(comp)] = comp
        start = CLOCK()
        value = super().call(comp, args)
        log.call(comp, start)
        return value

    def evaluate(self, instr: HloInstruction, operands: list[Value]) -> Value:
        log = self.log
        if log.events is None:
            log.instructions += 1
            return super().evaluate(instr, operands)
        self.objects[id(instr)] = instr
        start = CLOCK()
        value = super().evaluate(instr, operands)
        log.step(instr, start)
        return value


def observed_evaluator(observer: RunObserver, platform: str) -> Callable[..., Evaluator]:
    """The evaluator factory ``factory(module, options, device)`` of the calls ``observer``
    watches on ``platform``: each evaluator is made in its device's thread and binds that
    device's log."""

    def make(
        module: HloModule, options: EvalOptions | None = None, device: DeviceState | None = None
    ) -> Evaluator:
        device = device or DeviceState()
        log = observer.bind(module, device, platform)
        loops = observer.loops(module)
        return ObservedEvaluator(module, options, device, log, loops, observer.objects)

    return make
