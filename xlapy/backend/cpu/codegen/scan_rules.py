"""When a reduce-window is a scan (``scan_emitter``, the quick tier's stepwise scan in
``kernels/scan.py``), and what its reducer allows: no numba here, so the quick tier can use
these rules without numba's import. See ``scan_emitter`` for the order they preserve."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy.backend.cpu.kernel import NoKernel
from xlapy.interpreter.evals.reduce import apply_computation, simple_binary_reducer
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array

ASSOCIATIVE = frozenset(
    {Opcode.ADD, Opcode.MULTIPLY, Opcode.MAXIMUM, Opcode.MINIMUM, Opcode.AND, Opcode.OR, Opcode.XOR}
)


def reducer_op(reduce: HloInstruction) -> Opcode | None:
    """The combining opcode of a ``op(p0, p1)`` reducer, None for any other body."""
    comp: HloComputation = reduce.attrs.to_apply
    return simple_binary_reducer(comp) if len(reduce.operands) == 2 else None


def cumulative(instr: HloInstruction) -> tuple[int, bool] | None:
    """``(axis, reverse)`` of a reduce-window over static arrays that is a cumulative
    reduction, else None."""
    if instr.opcode is not Opcode.REDUCE_WINDOW or not instr.operands:
        return None
    operand = instr.operands[0].shape
    if not (operand.is_array and operand.is_static):
        return None
    result: tuple[int, bool] | None = instr.attrs.window.cumulative_axis(operand.dims)
    return result


def idempotent(evaluator: Evaluator, comp: HloComputation, inits: Sequence[Array]) -> bool:
    """True when ``comp(inits, inits)`` is ``inits`` bit for bit (the interpreter's call)."""
    combined = apply_computation(evaluator, comp, [*inits, *inits])
    return all(
        np.asarray(c).tobytes() == np.asarray(i).tobytes()
        for c, i in zip(combined, inits, strict=True)
    )


def check_inits(scan: HloInstruction, flush_denormals: bool) -> None:
    """Raises NoKernel unless every init is a constant and ``reducer(inits, inits) ==
    inits`` bit for bit, evaluated by the interpreter (with ``flush_denormals`` as the
    program runs): the condition under which the scan is the window order."""
    half = len(scan.operands) // 2
    inits = scan.operands[half:]
    if any(i.opcode is not Opcode.CONSTANT for i in inits):
        raise NoKernel(f"reduce-window {scan.name}: init values that are not constants")
    module = scan.parent.parent if scan.parent is not None else None
    if module is None:
        raise NoKernel(f"reduce-window {scan.name}: not in a module")
    values = [np.asarray(i.attrs.literal.to_numpy()) for i in inits]
    evaluator = Evaluator(module, EvalOptions(flush_denormals=flush_denormals))
    if not idempotent(evaluator, scan.attrs.to_apply, values):
        raise NoKernel(
            f"reduce-window {scan.name}: reducer(init, init) != init, so windows of "
            "different padding differ in more than their elements"
        )


def exactly_associative(scan: HloInstruction) -> bool:
    """True for one-op reducers whose every regrouping gives the same bits: integer and
    pred add/multiply/and/or/xor/maximum/minimum (wrapping), float maximum/minimum."""
    op = reducer_op(scan)
    if op not in ASSOCIATIVE:
        return False
    t = scan.shape.element_type
    return t.is_integer or t.is_pred or op in (Opcode.MAXIMUM, Opcode.MINIMUM)
