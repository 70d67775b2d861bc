"""compare, select and clamp.

Spec: stablehlo#compare, #select, #clamp; XLA operation semantics Compare (A.12 total order),
Select, Clamp. clamp reuses the maximum/minimum kernels, so NaN and signed-zero rules match.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.interpreter import numerics
from xlapy.interpreter.evals.binary_arith import MAXIMUM, MINIMUM
from xlapy.interpreter.evals.elementwise import (
    call,
    element_type,
    finish,
    flush_enabled,
    prepare,
    reject,
)
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.interpreter.numerics import I64, Array, total_order_key
from xlapy.ir.attrs import ComparisonDirection, ComparisonType
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

DIRECTIONS: dict[ComparisonDirection, Callable[[Array, Array], Array]] = {
    ComparisonDirection.EQ: np.equal,
    ComparisonDirection.NE: np.not_equal,
    ComparisonDirection.LT: np.less,
    ComparisonDirection.LE: np.less_equal,
    ComparisonDirection.GT: np.greater,
    ComparisonDirection.GE: np.greater_equal,
}


def default_comparison_type(t: ElementType) -> ComparisonType:
    """FLOAT for float and complex types, SIGNED for signed integers, UNSIGNED otherwise."""
    if t.is_float or t.is_complex:
        return ComparisonType.FLOAT
    return ComparisonType.SIGNED if t.is_signed else ComparisonType.UNSIGNED


def _signed_view(values: Array, t: ElementType) -> Array:
    """The bit pattern of integer values read as a signed number of ``t.bits`` bits."""
    return numerics.wrap(values, numerics.signed_type(t)).astype(I64)


@evaluates(Opcode.COMPARE)
def compare(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``lhs <direction> rhs`` elementwise. FLOAT compares IEEE values (NaN unordered,
    -0 == +0); TOTALORDER compares floats by total order; SIGNED/UNSIGNED compare integers
    (pred as false < true); complex operands support EQ and NE."""
    direction: ComparisonDirection = instr.attrs.direction
    t = element_type(operands[0], instr, 0)
    ctype: ComparisonType = instr.attrs.type or default_comparison_type(t)
    lhs, rhs = np.asarray(operands[0]), np.asarray(operands[1])
    if ctype is ComparisonType.TOTALORDER:
        if not t.is_float:
            raise reject(instr, t, "float (TOTALORDER)")
        lhs, rhs = total_order_key(lhs, t), total_order_key(rhs, t)
    elif t.is_complex and direction not in (ComparisonDirection.EQ, ComparisonDirection.NE):
        raise InvalidArgument(
            f"compare {instr.name}: complex operands support only EQ and NE; got {direction.value}"
        )
    elif t.is_float or t.is_complex:
        if ctype is not ComparisonType.FLOAT:
            raise reject(instr, t, f"integer or pred for {ctype.value}")
        lhs, rhs = prepare([lhs, rhs], [t, t], False, flush_enabled(ctx, t))
    elif ctype is ComparisonType.FLOAT:
        raise reject(instr, t, "float or complex for FLOAT")
    else:
        lhs, rhs = prepare([lhs, rhs], [t, t], False, False)
        if ctype is ComparisonType.SIGNED and not t.is_signed:
            lhs, rhs = _signed_view(lhs, t), _signed_view(rhs, t)
        elif ctype is ComparisonType.UNSIGNED and t.is_signed:
            lhs, rhs = numerics.unsigned_bits(lhs, t), numerics.unsigned_bits(rhs, t)
    with np.errstate(all="ignore"):
        return finish(DIRECTIONS[direction](lhs, rhs), instr.shape.element_type, False, lhs.shape)


@evaluates(Opcode.SELECT)
def select(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``on_true`` where ``pred`` else ``on_false``; a scalar ``pred`` picks a whole operand
    (the only form allowed for tuple operands). Bits are kept (no flushing)."""
    pred, on_true, on_false = operands
    if not isinstance(pred, np.ndarray) or pred.dtype != np.bool_:
        raise InvalidArgument(f"select {instr.name}: pred must be a pred array; got {pred!r:.60}")
    if pred.ndim == 0:
        chosen = on_true if bool(pred) else on_false
        return np.array(chosen, copy=True) if isinstance(chosen, np.ndarray) else chosen
    if not isinstance(on_true, np.ndarray) or not isinstance(on_false, np.ndarray):
        raise InvalidArgument(
            f"select {instr.name}: tuple operands need a scalar pred; got pred{list(pred.shape)}"
        )
    return np.array(np.where(pred, on_true, on_false), dtype=on_true.dtype)


@evaluates(Opcode.CLAMP)
def clamp(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``minimum(maximum(operand, min), max)`` with the maximum/minimum rules of the type;
    ``min`` and ``max`` may be scalars."""
    types = [element_type(v, instr, i) for i, v in enumerate(operands)]
    t = types[1]
    maximum, minimum = MAXIMUM.kernel(t), MINIMUM.kernel(t)
    if maximum is None or minimum is None:
        raise reject(instr, t, MAXIMUM.accepted())
    flush = flush_enabled(ctx, t)
    low, operand, high = prepare([np.asarray(v) for v in operands], types, False, flush)
    with np.errstate(all="ignore"):
        values = call(minimum, t, call(maximum, t, operand, low), high)
        return finish(values, instr.shape.element_type, flush, operand.shape)
