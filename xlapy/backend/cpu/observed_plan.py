"""The ``cpu`` platform observed (``xlapy.profiling.observer``): the same kernels, in plan
functions generated again with calls to the running device's log (``plan_code.PlanHooks``).

A counting observer's plans make one call when they start (which adds the plan's step count
to the device's instructions and advances the while loop whose body it is); a profile's plans
also read the clock around every step that calls a kernel and around the whole call. Plans
run without an observer keep their own generated code, so observing costs nothing to calls
made without it.
"""

from __future__ import annotations

from collections.abc import Callable

from xlapy.backend.cpu.kernel import RunContext
from xlapy.backend.cpu.plan import Plan, Program
from xlapy.backend.cpu.plan_code import PlanHooks
from xlapy.interpreter.evaluator import Evaluator
from xlapy.interpreter.observed import observed_evaluator
from xlapy.ir.computation import HloComputation
from xlapy.profiling.observer import CLOCK, NO_LOOPS, DeviceLog, RunObserver


class ObservedProgram(Program):
    """The plans of ``base``, observed by ``observer``; built from ``base``'s plans on first
    use (which builds those too), never compiling a kernel again."""

    def __init__(self, base: Program, observer: RunObserver) -> None:
        super().__init__(base.module, base.options)
        self.base = base
        self.observer = observer
        self.loops = observer.loops(base.module)

    def _build(self, comp: HloComputation) -> Plan:
        """``base``'s plan of ``comp`` (its kernels) generated again with the observer's hooks."""
        original = self.base.plan(comp)
        return Plan(comp, original.records, original.kernels, self._hooks(original))

    def _hooks(self, original: Plan) -> PlanHooks:
        objects = self.observer.objects
        objects[id(original.computation)] = original.computation
        for record in original.records:
            objects[id(record.instr)] = record.instr
        resets, loop = self.loops.get(id(original.computation), NO_LOOPS)
        local = self.observer.local
        steps = original.num_steps
        timed = self.observer.timed

        def enter(ctx: RunContext) -> DeviceLog:
            log: DeviceLog = local.log
            log.entered(resets, loop)
            if not timed:
                log.instructions += steps
            return log

        return PlanHooks(enter=enter, timed=timed, clock=CLOCK, computation=original.computation)


def observed_program(
    observer: RunObserver, program: Program
) -> tuple[Program, Callable[..., Evaluator]]:
    """What a call on ``cpu`` watched by ``observer`` runs instead of ``program``, and its
    evaluator factory (``factory(module, options, device)``, for the instructions that run
    their interpreter eval). The observed program is made once per program and observer and
    shares its kernels."""
    observed = observer.derived("cpu program", program, lambda: ObservedProgram(program, observer))
    return observed, observed_evaluator(observer, "cpu")
