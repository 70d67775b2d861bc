"""The evaluator: walks a computation in post-order and dispatches each instruction to the
eval function registered for its opcode (``EVALUATORS``, filled by ``xlapy.interpreter.evals``).

An eval function is ``fn(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value``.
It reads attributes from ``instr.attrs``, the result type from ``instr.shape``, calls
sub-computations with ``ctx.call(comp, args)`` and never mutates its operands.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from xlapy.errors import EvaluationError, InvalidArgument, Unimplemented, XlaError
from xlapy.interpreter.runtime import Runtime
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.literal import Value

EvalFn = Callable[["Evaluator", HloInstruction, list[Value]], Value]
EVALUATORS: dict[Opcode, EvalFn] = {}
CUSTOM_CALLS: dict[str, EvalFn] = {}
QUANTIZED_EVALUATORS: dict[Opcode, EvalFn] = {}
"""Evaluators used instead of ``EVALUATORS`` when an operand or the result of the instruction
has a quantized element type (``xlapy.interpreter.evals.quantized``)."""


def evaluates(*opcodes: Opcode) -> Callable[[EvalFn], EvalFn]:
    """Registers the decorated function as the evaluator of ``opcodes``."""

    def register(fn: EvalFn) -> EvalFn:
        for opcode in opcodes:
            if opcode in EVALUATORS:
                raise RuntimeError(f"two evaluators registered for {opcode.value}")
            EVALUATORS[opcode] = fn
        return fn

    return register


def evaluates_quantized(*opcodes: Opcode) -> Callable[[EvalFn], EvalFn]:
    """Registers the decorated function as the evaluator of ``opcodes`` on quantized tensors."""

    def register(fn: EvalFn) -> EvalFn:
        for opcode in opcodes:
            if opcode in QUANTIZED_EVALUATORS:
                raise RuntimeError(f"two quantized evaluators registered for {opcode.value}")
            QUANTIZED_EVALUATORS[opcode] = fn
        return fn

    return register


def custom_call_target(*targets: str) -> Callable[[EvalFn], EvalFn]:
    """Registers the decorated function as the implementation of custom-call ``targets``.

    Users register their own Python callbacks the same way::

        @xlapy.custom_call_target("my_op")
        def my_op(ctx, instr, operands):
            return operands[0] * 2
    """

    def register(fn: EvalFn) -> EvalFn:
        for target in targets:
            CUSTOM_CALLS[target] = fn
        return fn

    return register


@dataclass
class EvalOptions:
    """How to evaluate.

    Attributes:
        flush_denormals: reproduce XLA:CPU, which flushes f32/bf16 subnormal operands and
            results of arithmetic and comparisons to zero (data movement keeps the bits).
        max_while_iterations: the most iterations one run of a while loop may make (None: no
            bound); a loop whose condition still holds after that many fails
            (``xlapy.interpreter.loop_limit``).
    """

    flush_denormals: bool = False
    max_while_iterations: int | None = None


@dataclass
class DeviceState:
    """What one device owns while a program runs: its ids, RNG state, and the runtime it
    shares with the other devices (collectives, channels, host infeed/outfeed queues)."""

    replica_id: int = 0
    partition_id: int = 0
    rng_state: int = 0
    runtime: Runtime = field(default_factory=lambda: Runtime(1, 1))
    executions: dict[int, int] = field(default_factory=dict)

    @property
    def flat_id(self) -> int:
        """``replica_id * num_partitions + partition_id``."""
        return self.runtime.flat_id(self.replica_id, self.partition_id)

    def execution_key(self, instr: HloInstruction) -> tuple[str, int]:
        """Identifies this execution of ``instr`` (the n-th time this device runs it), so that
        the devices of a group meet at the same rendezvous even inside loops."""
        count = self.executions.get(id(instr), 0)
        self.executions[id(instr)] = count + 1
        return (instr.name, count)


_load_lock = threading.Lock()
_loaded = False


def load_evaluators() -> None:
    """Imports every module of ``xlapy.interpreter.evals`` so that they register (once,
    thread-safe: device threads may race here)."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        from xlapy.interpreter import evals

        for info in sorted(pkgutil.iter_modules(evals.__path__), key=lambda m: m.name):
            importlib.import_module(f"{evals.__name__}.{info.name}")
        _loaded = True


def evaluator_for(opcode: Opcode) -> EvalFn:
    """The eval registered for ``opcode``, importing the module of ``evals`` that registers it
    on first use (``evals.MODULES``; every module when the index names none or the wrong
    one), so a program imports the evals of its own opcodes only.

    Raises:
        Unimplemented: no module registers an eval for ``opcode``.
    """
    fn = EVALUATORS.get(opcode)
    if fn is not None:
        return fn
    from xlapy.interpreter import evals

    module = evals.module_of(opcode.value)
    if module is not None:
        importlib.import_module(f"{evals.__name__}.{module}")
        fn = EVALUATORS.get(opcode)
    if fn is None:
        load_evaluators()
        fn = EVALUATORS.get(opcode)
    if fn is None:
        raise Unimplemented(f"{opcode.value}: the interpreter cannot run this op")
    return fn


class Evaluator:
    """Evaluates computations of one module on one device."""

    def __init__(
        self,
        module: HloModule,
        options: EvalOptions | None = None,
        device: DeviceState | None = None,
    ) -> None:
        self.module = module
        self.options = options or EvalOptions()
        self.device = device or DeviceState()
        self._batched = 0

    def call(self, comp: HloComputation, args: Sequence[Value]) -> Value:
        """Evaluates ``comp`` on ``args`` (one value per parameter) and returns its root value."""
        if len(args) != comp.num_parameters:
            raise InvalidArgument(
                f"computation {comp.name} takes {comp.num_parameters} arguments; got {len(args)}"
            )
        batched = any(
            isinstance(a, np.ndarray) and a.shape != p.shape.dims
            for a, p in zip(args, comp.parameters, strict=False)
            if p.shape.is_array and p.shape.is_static
        )
        # Region bodies (reducers, comparators...) may run on whole arrays of scalars at once;
        # their instructions then see arrays larger than their declared shapes.
        self._batched += batched
        try:
            env: dict[int, Value] = {}
            for instr in comp.post_order():
                if instr.opcode is Opcode.PARAMETER:
                    env[id(instr)] = args[instr.parameter_number]
                    continue
                operands = [env[id(o)] for o in instr.operands]
                try:
                    env[id(instr)] = self.evaluate(instr, operands)
                except KeyboardInterrupt as interrupt:
                    note_interrupt(interrupt, instr)
                    raise
            return env[id(comp.root)]
        finally:
            self._batched -= batched

    def evaluate(self, instr: HloInstruction, operands: list[Value]) -> Value:
        """Evaluates one instruction on the values of its operands."""
        fn = EVALUATORS.get(instr.opcode)
        if _quantized(instr):  # rare: the quantized evals load with all the others
            load_evaluators()
            fn = QUANTIZED_EVALUATORS.get(instr.opcode) or EVALUATORS.get(instr.opcode)
        if fn is None:
            try:
                fn = evaluator_for(instr.opcode)
            except Unimplemented:
                raise Unimplemented(
                    f"{instr.opcode.value} {instr.name}: the interpreter cannot run this op"
                ) from None
        if Trait.ELEMENTWISE in instr.opdef.traits and _has_dynamic_operand(instr):
            _check_same_dims(instr, operands)
        try:
            result = fn(self, instr, operands)
        except XlaError:
            raise
        except ValueError as exc:
            if "array is too big" not in str(exc):
                raise _internal(instr, exc) from exc
            raise Unimplemented(
                f"{instr.opcode.value} {instr.name}: numpy cannot hold its result "
                f"{instr.shape}: its nonzero dimensions times the element size pass 2^63 "
                f"bytes, which numpy refuses even when another dimension is zero"
            ) from exc
        except (TypeError, IndexError, ArithmeticError) as exc:
            raise _internal(instr, exc) from exc
        _check_result(instr, result, check_dims=not self._batched)
        return result


def _internal(instr: HloInstruction, exc: Exception) -> EvaluationError:
    """A failure inside an eval that no rule explains (a bug of the interpreter)."""
    return EvaluationError(
        f"{instr.opcode.value} {instr.name}: internal error while evaluating: "
        f"{type(exc).__name__}: {exc}"
    )


def note_interrupt(interrupt: KeyboardInterrupt, instr: HloInstruction) -> None:
    """Records on a Ctrl-C the innermost instruction that was running (the CLI prints it)."""
    if not hasattr(interrupt, "xlapy_instruction"):
        interrupt.xlapy_instruction = f"{instr.opcode.value} {instr.name}"  # type: ignore[attr-defined]


def _quantized(instr: HloInstruction) -> bool:
    """Whether the result or an operand of ``instr`` has a quantized element type."""
    return instr.shape.element_type.is_quantized or any(
        o.shape.element_type.is_quantized for o in instr.operands
    )


def _has_dynamic_operand(instr: HloInstruction) -> bool:
    return any(o.shape.is_array and any(o.shape.dynamic) for o in instr.operands)


def _check_same_dims(instr: HloInstruction, operands: list[Value]) -> None:
    """Element-wise operands with dynamic dimensions must agree at run time (non-scalars)."""
    arrays = [(i, v) for i, v in enumerate(operands) if isinstance(v, np.ndarray) and v.ndim]
    for i, value in arrays[1:]:
        first, want = arrays[0]
        if value.shape != want.shape:
            raise EvaluationError(
                f"{instr.opcode.value} {instr.name}: element-wise operands must have the same "
                f"dims at run time; got {list(want.shape)} (operand {first}) and "
                f"{list(value.shape)} (operand {i})"
            )


RUNTIME_SHAPED = frozenset({
    Opcode.CUSTOM_CALL, Opcode.DYNAMIC_BROADCAST_IN_DIM, Opcode.DYNAMIC_CONV,
    Opcode.DYNAMIC_GATHER, Opcode.DYNAMIC_IOTA, Opcode.DYNAMIC_PAD, Opcode.DYNAMIC_RESHAPE,
    Opcode.REAL_DYNAMIC_SLICE,
})  # fmt: skip
"""Ops whose result sizes depend on operand values (checked against the declared result only
when they run)."""


def _check_result(instr: HloInstruction, value: Value, *, check_dims: bool) -> None:
    """Guards every eval: its value must have the instruction's element type and static dims."""
    shape = instr.shape
    if shape.is_array:
        if not isinstance(value, np.ndarray) or value.dtype != shape.element_type.numpy:
            got = type(value).__name__ if not isinstance(value, np.ndarray) else value.dtype
            raise EvaluationError(
                f"{instr.opcode.value} {instr.name}: internal error: the evaluator produced "
                f"{got} for a result of type {shape.element_type}"
            )
        if check_dims and (
            value.ndim != shape.rank
            or any(
                not dyn and d != n
                for d, n, dyn in zip(shape.dims, value.shape, shape.dynamic, strict=True)
            )
        ):
            if instr.opcode in RUNTIME_SHAPED:
                # The sizes come from operand values, so no load-time check could catch this.
                raise EvaluationError(
                    f"{instr.opcode.value} {instr.name}: its operand values give a result of "
                    f"dims {list(value.shape)}, which the declared result "
                    f"{shape.to_hlo(layout=False)} does not allow"
                )
            raise EvaluationError(
                f"{instr.opcode.value} {instr.name}: internal error: the evaluator produced an "
                f"array of dims {list(value.shape)} for a result of shape {shape}"
            )
    elif shape.is_tuple and (not isinstance(value, tuple) or len(value) != len(shape.tuple_shapes)):
        raise EvaluationError(
            f"{instr.opcode.value} {instr.name}: internal error: the evaluator produced "
            f"{type(value).__name__} for a result of shape {shape}"
        )


@evaluates(Opcode.CUSTOM_CALL)
def _custom_call(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Runs the Python implementation registered for ``custom_call_target``."""
    target = instr.attrs.custom_call_target
    fn = CUSTOM_CALLS.get(target)
    if fn is None:  # the targets of xlapy's own evals register as their modules load
        from xlapy.interpreter import evals

        for module in evals.CUSTOM_CALL_MODULES:
            importlib.import_module(f"{evals.__name__}.{module}")
        fn = CUSTOM_CALLS.get(target)
    if fn is None:
        load_evaluators()
        fn = CUSTOM_CALLS.get(target)
    if fn is None:
        raise Unimplemented(
            f"custom-call {instr.name}: no implementation registered for target {target!r} "
            "(register one with xlapy.custom_call_target)"
        )
    return fn(ctx, instr, operands)
