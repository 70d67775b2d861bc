"""Plans: a computation compiled to one kernel call per instruction, in post-order.

A plan gives every instruction a *slot* (its position in post-order). Parameters and constants
are slots filled before the steps run; every other instruction is a step whose kernel is the
first one a factory gives (``xlapy.backend.cpu.kernel``) or, when every factory declines, the
interpreter's eval of the instruction: ``cpu`` never runs less than ``interpreter``. The steps
become one generated Python function (``plan_code``) that drops each value after its last use
and tells each kernel which operands it may overwrite (``liveness``). ``Program`` holds the
plans of a module (built once, shared by every device); ``Session`` is one device running them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    factories,
    generated_kernels,
)
from xlapy.backend.cpu.liveness import Liveness, NodeInfo, Origin, analyze
from xlapy.backend.cpu.plan_code import PlanHooks, generate
from xlapy.errors import EvaluationError, InvalidArgument, XlaError
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value
from xlapy.profiling.active import compile_progress

Mask = tuple[bool, ...]


@dataclass(frozen=True)
class StepRecord:
    """How one instruction of a plan runs (a line of ``Executable.report()``).

    Attributes:
        instr: the instruction.
        kind: ``parameter`` or ``constant`` (slots filled before the steps: free), ``kernel``
            or ``fallback`` (the interpreter's eval).
        how: the kernel's one-line description, or why it fell back.
        reasons: why each factory tried before declined (``factory: reason``).
        compile_seconds: time spent building the kernel (0 for the others).
        source: the kernel's generated source, if any.
        exact: the kernel's results are bit-identical to the interpreter's.
        calls: computations the kernel runs as plans of their own.
    """

    instr: HloInstruction
    kind: str
    how: str
    reasons: tuple[str, ...] = ()
    compile_seconds: float = 0.0
    source: str = ""
    exact: bool = True
    calls: tuple[HloComputation, ...] = ()


def _factory_name(factory: object) -> str:
    module = getattr(factory, "__module__", "") or ""
    return f"{module.rsplit('.', 1)[-1]}.{getattr(factory, '__name__', repr(factory))}"


def choose_kernel(
    instr: HloInstruction, options: CompileOptions
) -> tuple[Kernel | None, list[str], float]:
    """The first kernel the factories of ``instr``'s opcode give (by priority), why the
    factories before it declined, and the seconds it took to build. A factory that fails with
    an error is reported and skipped, so a kernel bug costs speed, never a program."""
    reasons: list[str] = []
    for factory in factories(instr.opcode):
        start = time.perf_counter()
        try:
            kernel = factory(instr, options)
        except NoKernel as why:
            reasons.append(f"{_factory_name(factory)}: {why}")
            continue
        except Exception as err:
            reasons.append(f"{_factory_name(factory)} failed: {type(err).__name__}: {err}")
            continue
        seconds = max(kernel.compile_seconds, time.perf_counter() - start)
        return kernel, reasons, seconds
    return None, reasons, 0.0


def _fallback(instr: HloInstruction) -> Kernel:
    evaluate_one = Evaluator.evaluate

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return evaluate_one(ctx.evaluator, instr, operands)

    return Kernel(run=run, how="interpreter eval", views=None, owns_result=False)


class Plan:
    """One computation compiled to a generated Python function (see the module docstring).

    Attributes:
        computation: what it runs.
        records: one per instruction, in slot order (for the report).
        liveness: the analysis the steps were built from.
        kernels: the kernel of each slot (None for parameters and constants).
        source: the generated function: one statement per step, commented with the
            instruction, the values it drops (``del``) after their last use.
    """

    def __init__(
        self,
        comp: HloComputation,
        records: list[StepRecord],
        kernels: list[Kernel | None],
        hooks: PlanHooks | None = None,
    ) -> None:
        """``hooks`` generates the observed variant of the plan (``xlapy.profiling``)."""
        self.computation = comp
        self.records = records
        self.kernels = kernels
        self.instructions = [r.instr for r in records]
        nodes = []
        for record, kernel in zip(records, kernels, strict=True):
            if record.kind in ("parameter", "constant"):
                origin = Origin.PARAMETER if record.kind == "parameter" else Origin.CONSTANT
                nodes.append(NodeInfo(record.instr, (), origin, template=True))
            else:
                assert kernel is not None
                origin = Origin.FRESH if kernel.owns_result else Origin.CONSTANT
                if record.kind == "fallback":
                    origin = Origin.FOREIGN
                nodes.append(NodeInfo(record.instr, kernel.views, origin, template=False))
        slot = {id(instr): i for i, instr in enumerate(self.instructions)}
        self.root_slot = slot[id(comp.root)]
        self.liveness: Liveness = analyze(nodes, self.root_slot)
        self.num_steps = sum(r.kind in ("kernel", "fallback") for r in records)
        code = generate(comp.name, records, kernels, self.liveness, self.root_slot, hooks)
        self.source = code.source
        self._function = code.function
        self._line_slots = code.line_slots
        self._kernel_slots = frozenset(i for i, r in enumerate(records) if r.kind == "kernel")
        live = self.liveness
        self._conditional_slots = code.conditional_slots
        self._static_donations = tuple(live.donatable[i] for i in code.conditional_slots)
        self._donations: dict[Mask, tuple[frozenset[int], ...]] = {}
        self.no_ownership: Mask = (False,) * sum(live.parameter_leaves)
        self._result_static: Mask = tuple(leaf.possible and not leaf.needs for leaf in live.result)
        self._result_by_mask: dict[Mask, Mask] = {}
        # (mask, value) of the last lookups, one attribute each so that threads swap them whole.
        self._last_donations: tuple[Mask | None, tuple[frozenset[int], ...]] = (None, ())
        self._last_result: tuple[Mask | None, Mask] = (None, ())
        self._lock = threading.Lock()

    def _donations_for(self, owned: Mask) -> tuple[frozenset[int], ...]:
        """The donatable positions of the steps whose donations depend on ownership (a loop
        passes the same mask object every iteration: found by identity first)."""
        last_mask, last = self._last_donations
        if owned is last_mask:
            return last
        donations = self._donations.get(owned)
        if donations is None:
            live = self.liveness
            donations = tuple(
                live.donatable[i]
                | {k for k, needs in live.conditional[i] if all(owned[p] for p in needs)}
                for i in self._conditional_slots
            )
            with self._lock:
                self._donations[owned] = donations
        self._last_donations = (owned, donations)
        return donations

    def result_owned(self, owned: Mask) -> Mask:
        """Which leaves of the result the caller owns, given the parameter leaves it owned."""
        if True not in owned:
            return self._result_static
        last_owned, last = self._last_result
        if owned is last_owned:
            return last
        mask = self._result_by_mask.get(owned)
        if mask is None:
            mask = tuple(
                leaf.possible and all(owned[p] for p in leaf.needs) for leaf in self.liveness.result
            )
            with self._lock:
                self._result_by_mask[owned] = mask
        self._last_result = (owned, mask)
        return mask

    def execute(self, session: Session, args: Sequence[Value], owned: Mask) -> Value:
        """Runs the plan on ``args`` (one value per parameter); may overwrite the parameter
        leaves flagged in ``owned``.

        Raises:
            EvaluationError: a kernel failed with an error that is not an XlaError (a bug of
                that kernel); errors of interpreter evals pass through as the interpreter
                raises them.
        """
        ctx = session.contexts.get(self) or session.context(self)
        if self._conditional_slots and True in owned:
            donations = self._donations_for(owned)
        else:
            donations = self._static_donations
        try:
            value: Value = self._function(args, ctx, donations)
            return value
        except (XlaError, RecursionError):
            raise
        except KeyboardInterrupt as interrupt:
            slot = self._failed_slot(interrupt)
            if slot is not None and not hasattr(interrupt, "xlapy_instruction"):
                instr = self.instructions[slot]
                interrupt.xlapy_instruction = f"{instr.opcode.value} {instr.name}"  # type: ignore[attr-defined]
            raise
        except Exception as err:
            slot = self._failed_slot(err)
            if slot is None or slot not in self._kernel_slots or hasattr(err, "xlapy_passed"):
                err.xlapy_passed = True  # type: ignore[attr-defined]
                raise  # the interpreter's own behaviour (e.g. a user's custom call)
            instr = self.instructions[slot]
            raise EvaluationError(
                f"{instr.opcode.value} {instr.name}: internal error in its cpu kernel "
                f"({self.records[slot].how}): {type(err).__name__}: {err}"
            ) from err

    def _failed_slot(self, err: BaseException) -> int | None:
        """The slot whose statement of the generated function was running when ``err`` came."""
        code = self._function.__code__
        tb = err.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is code:
                return self._line_slots.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


def build_plan(program: Program, comp: HloComputation) -> Plan:
    """Compiles ``comp``: a kernel or the interpreter's eval for each instruction, in
    post-order; computations the kernels run are compiled first (``program.plan``). Without
    ``options.generated_kernels`` (the quick tier) no factory generates code."""
    with generated_kernels(program.options.generated_kernels):
        return _build_plan(program, comp)


def _build_plan(program: Program, comp: HloComputation) -> Plan:
    records: list[StepRecord] = []
    kernels: list[Kernel | None] = []
    progress = compile_progress()  # a progress display on a terminal, if any
    for instr in comp.post_order():
        if instr.opcode is Opcode.PARAMETER:
            records.append(StepRecord(instr, "parameter", "argument"))
            kernels.append(None)
            continue
        if instr.opcode is Opcode.CONSTANT and not instr.attrs.literal.elided:
            records.append(StepRecord(instr, "constant", "literal"))
            kernels.append(None)
            continue
        if progress is not None:
            progress.kernel_started(instr)
        kernel, reasons, seconds = choose_kernel(instr, program.options)
        if progress is not None:
            progress.kernel_done(kernel is not None)
        if kernel is None:
            why = "; ".join(reasons) or (
                "no kernel registered"
                if program.options.generated_kernels
                else "quick tier: no prebuilt kernel of kernel.QUICK_MODULES"
            )
            records.append(StepRecord(instr, "fallback", why, tuple(reasons)))
            kernels.append(_fallback(instr))
            continue
        for callee in kernel.calls:
            program.plan(callee)
        records.append(
            StepRecord(
                instr,
                "kernel",
                kernel.how,
                tuple(reasons),
                seconds,
                kernel.source,
                kernel.exact,
                kernel.calls,
            )
        )
        kernels.append(kernel)
    return Plan(comp, records, kernels)


class Program:
    """The plans of one module, built on first use and shared by every device.

    Attributes:
        module: the (optimized) module.
        options: how kernels are compiled.
        plans: the plan of each computation compiled so far, in build order.
    """

    def __init__(self, module: HloModule, options: CompileOptions) -> None:
        self.module = module
        self.options = options
        self.plans: dict[HloComputation, Plan] = {}
        self._lock = threading.RLock()

    def plan(self, comp: HloComputation) -> Plan:
        """The plan of ``comp`` (compiled now if it is not yet)."""
        plan = self.plans.get(comp)
        if plan is None:
            with self._lock:
                plan = self.plans.get(comp)
                if plan is None:
                    plan = self._build(comp)
                    self.plans[comp] = plan
        return plan

    def _build(self, comp: HloComputation) -> Plan:
        """A new plan of ``comp``: its kernels compiled."""
        return build_plan(self, comp)

    @property
    def compile_seconds(self) -> float:
        """Seconds spent building kernels so far."""
        return sum(r.compile_seconds for p in self.plans.values() for r in p.records)


class Session:
    """One device running a program: its state, an evaluator for the fallbacks, and one
    RunContext per plan (a plan never runs inside itself, so a context is never shared by
    two running steps)."""

    __slots__ = ("contexts", "device", "evaluator", "program")

    def __init__(self, program: Program, device: DeviceState, evaluator: Evaluator) -> None:
        self.program = program
        self.device = device
        self.evaluator = evaluator
        self.contexts: dict[Plan, RunContext] = {}

    def context(self, plan: Plan) -> RunContext:
        ctx = RunContext(
            device=self.device,
            evaluator=self.evaluator,
            call=self.call,
            call_owned=self.call_owned,
        )
        self.contexts[plan] = ctx
        return ctx

    def run(self, comp: HloComputation, args: Sequence[Value]) -> Value:
        """Runs ``comp`` on arguments it may not overwrite (the user's)."""
        plan = self.program.plan(comp)
        return plan.execute(self, args, plan.no_ownership)

    def call(self, comp: HloComputation, args: Sequence[Value]) -> Value:
        """``RunContext.call``: ``comp`` as a plan; a region applied to whole arrays of its
        scalars at once (as reducers and comparators are) runs on the interpreter, which
        evaluates such batched calls."""
        if len(args) != comp.num_parameters:
            raise InvalidArgument(
                f"computation {comp.name} takes {comp.num_parameters} arguments; got {len(args)}"
            )
        for arg, param in zip(args, comp.parameters, strict=True):
            if (
                isinstance(arg, np.ndarray)
                and param.shape.is_array
                and param.shape.is_static
                and arg.shape != param.shape.dims
            ):
                return self.evaluator.call(comp, args)
        return self.run(comp, args)

    def call_owned(
        self, comp: HloComputation, args: Sequence[Value], owned: Mask
    ) -> tuple[Value, Mask]:
        """``RunContext.call_owned``: ``comp`` as a plan that may overwrite the ``owned``
        leaves of ``args``; returns its value and which of its leaves the caller owns."""
        plan = self.program.plans.get(comp) or self.program.plan(comp)
        return plan.execute(self, args, owned), plan.result_owned(owned)
