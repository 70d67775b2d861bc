"""Shape inference of element-wise ops: the unary and binary tables (accepted element types and
result-type rule, OPS.md A.16/A.17), compare, select, clamp, convert, bitcast-convert,
reduce-precision, complex/real/imag, and the builder's broadcasting rule (OPS.md A.4).

HLO element-wise instructions take operands of identical dimensions: the builder makes
broadcasting explicit with ``broadcast`` instructions, as XLA's builder does.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.ir import attrs as A
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import Shape
from xlapy.shape_inference.common import (
    InferCtx,
    array,
    array_shape,
    describe_allowed,
    element_type_in,
    fmt,
    fmt_ints,
    infers,
    same_element_type,
    type_allowed,
)

# ---- unary -----------------------------------------------------------------------------

_FLOAT_OR_COMPLEX = "float|complex"

UNARY_TYPES: dict[Opcode, str] = {
    Opcode.ABS: "sint|float|complex",
    Opcode.ACOS: _FLOAT_OR_COMPLEX,
    Opcode.ACOSH: _FLOAT_OR_COMPLEX,
    Opcode.ASIN: _FLOAT_OR_COMPLEX,
    Opcode.ASINH: _FLOAT_OR_COMPLEX,
    Opcode.ATAN: _FLOAT_OR_COMPLEX,
    Opcode.ATANH: _FLOAT_OR_COMPLEX,
    Opcode.BESSEL_I1E: "float",
    Opcode.CBRT: _FLOAT_OR_COMPLEX,
    Opcode.CEIL: "float",
    Opcode.CLZ: "int",
    Opcode.COS: _FLOAT_OR_COMPLEX,
    Opcode.COSH: _FLOAT_OR_COMPLEX,
    Opcode.DIGAMMA: "float",
    Opcode.ERF: "float",
    Opcode.ERF_INV: "float",
    Opcode.ERFC: "float",
    Opcode.EXP: _FLOAT_OR_COMPLEX,
    Opcode.EXPM1: _FLOAT_OR_COMPLEX,
    Opcode.FLOOR: "float",
    Opcode.IMAG: _FLOAT_OR_COMPLEX,
    Opcode.IS_FINITE: "float",
    Opcode.LGAMMA: "float",
    Opcode.LOG: _FLOAT_OR_COMPLEX,
    Opcode.LOG1P: _FLOAT_OR_COMPLEX,
    Opcode.LOGISTIC: _FLOAT_OR_COMPLEX,
    Opcode.NEGATE: "int|float|complex",
    Opcode.NOT: "pred|int",
    Opcode.POPCNT: "int",
    Opcode.REAL: _FLOAT_OR_COMPLEX,
    Opcode.ROUND_NEAREST_AFZ: "float",
    Opcode.ROUND_NEAREST_EVEN: "float",
    Opcode.RSQRT: _FLOAT_OR_COMPLEX,
    Opcode.SIGN: "sint|float|complex",
    Opcode.SIN: _FLOAT_OR_COMPLEX,
    Opcode.SINH: _FLOAT_OR_COMPLEX,
    Opcode.SQRT: _FLOAT_OR_COMPLEX,
    Opcode.TAN: _FLOAT_OR_COMPLEX,
    Opcode.TANH: _FLOAT_OR_COMPLEX,
}
"""Element types each unary op accepts (StableHLO "Inputs" tables)."""

_TO_COMPONENT = frozenset({Opcode.ABS, Opcode.REAL, Opcode.IMAG})


def unary_result_type(opcode: Opcode, etype: ElementType) -> ElementType:
    """Result element type of a unary op: pred for is-finite, the component type of a complex
    operand for abs/real/imag (OPS.md A.17), the operand type otherwise."""
    if opcode is Opcode.IS_FINITE:
        return dtypes.PRED
    if opcode in _TO_COMPONENT:
        return etype.component
    return etype


@infers(*UNARY_TYPES)
def infer_unary(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Element-wise unary ops (OPS.md A.17). Spec: stablehlo#<op> (C1: same shape; the result
    type is the operand type, except abs/real/imag of complex and is-finite)."""
    (operand,) = operands
    etype = element_type_in(ctx, operand, UNARY_TYPES[ctx.opcode], "operand")
    return operand.with_element_type(unary_result_type(ctx.opcode, etype))


@infers(Opcode.COPY)
def infer_copy(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """copy: the operand's value (any shape, tuples included), possibly in another layout."""
    return (
        ctx.result if ctx.result is not None and ctx.result.compatible(operands[0]) else operands[0]
    )


@infers(Opcode.REDUCE_PRECISION)
def infer_reduce_precision(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#reduce_precision (C1-C3)."""
    (operand,) = operands
    element_type_in(ctx, operand, "float", "operand", "C1")
    if attrs.exponent_bits < 1:
        raise ctx.error("C2", f"exponent_bits must be at least 1; got {attrs.exponent_bits}")
    if attrs.mantissa_bits < 0:
        raise ctx.error("C3", f"mantissa_bits must be non-negative; got {attrs.mantissa_bits}")
    return operand


@infers(Opcode.CONVERT)
def infer_convert(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#convert (C1: same shape). The new element type comes from the result."""
    (operand,) = operands
    array(ctx, operand, "operand")
    result = ctx.need_result("convert's new element type")
    if not result.is_array:
        raise ctx.error(None, f"the new element type must be an array type; got {fmt(result)}")
    return operand.with_element_type(result.element_type)


@infers(Opcode.BITCAST_CONVERT)
def infer_bitcast_convert(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#bitcast_convert (C1: the minor dimension absorbs the width ratio;
    C2: no complex <-> non-complex). The new element type comes from the result."""
    (operand,) = operands
    array(ctx, operand, "operand")
    result = ctx.need_result("bitcast-convert's new element type")
    new = result.element_type
    old = operand.element_type
    if not new.is_array:
        raise ctx.error(None, f"the new element type must be an array type; got {fmt(result)}")
    if old.is_complex != new.is_complex:
        raise ctx.error(
            "C2",
            f"cannot bitcast between complex and non-complex types; got {old} -> {new}",
        )
    if (old.is_pred or new.is_pred) and old is not new:
        # HLO's pred is 8 bits wide, StableHLO's i1 one bit (stablehlo#bitcast_convert): the
        # declared result tells which one the program means.
        one_bit = _bitcast_shape(ctx, operand, new, 1 if old.is_pred else old.bits,
                                 1 if new.is_pred else new.bits, raise_error=False)  # fmt: skip
        if one_bit is not None and one_bit.compatible(result):
            return one_bit
    shape = _bitcast_shape(ctx, operand, new, old.bits, new.bits, raise_error=True)
    assert shape is not None
    return shape


def _bitcast_shape(
    ctx: InferCtx, operand: Shape, new: ElementType, old_bits: int, new_bits: int,
    raise_error: bool,
) -> Shape | None:  # fmt: skip
    """bitcast-convert's result for element widths ``old_bits`` -> ``new_bits`` (C1)."""
    old = operand.element_type
    if new_bits == old_bits:
        return operand.with_element_type(new)
    if new_bits < old_bits:
        if old_bits % new_bits:
            if not raise_error:
                return None
            raise ctx.error("C1", f"bit widths must divide each other; got {old} -> {new}")
        return Shape.array(new, (*operand.dims, old_bits // new_bits))
    ratio = new_bits // old_bits
    if new_bits % old_bits or operand.rank == 0 or operand.dims[-1] != ratio:
        if not raise_error:
            return None
        raise ctx.error(
            "C1",
            f"converting {old} to the wider {new} needs a minor dimension of size {ratio}; "
            f"got {fmt(operand)}",
        )
    return Shape.array(new, operand.dims[:-1])


# ---- binary ----------------------------------------------------------------------------

BINARY_TYPES: dict[Opcode, str] = {
    Opcode.ADD: "any",
    Opcode.AND: "pred|int",
    Opcode.ATAN2: _FLOAT_OR_COMPLEX,
    Opcode.DIVIDE: "int|float|complex",
    Opcode.IGAMMA: "float",
    Opcode.IGAMMAC: "float",
    Opcode.MAXIMUM: "any",
    Opcode.MINIMUM: "any",
    Opcode.MULHI: "int",
    Opcode.MULTIPLY: "any",
    Opcode.NEXT_AFTER: "float",
    Opcode.OR: "pred|int",
    Opcode.POLYGAMMA: "float",
    Opcode.POWER: "int|float|complex",
    Opcode.REMAINDER: "int|float|complex",
    Opcode.SHIFT_LEFT: "int",
    Opcode.SHIFT_RIGHT_ARITHMETIC: "int",
    Opcode.SHIFT_RIGHT_LOGICAL: "int",
    Opcode.SUBTRACT: "int|float|complex",
    Opcode.XOR: "pred|int",
    Opcode.ZETA: "float",
}
"""Element types each binary op accepts (StableHLO "Inputs" tables)."""


def same_shape_operands(ctx: InferCtx, named: Sequence[tuple[Shape, str]], label: str) -> None:
    """Every operand has the dims of the first (HLO forbids implicit broadcasting)."""
    first, first_what = named[0]
    for shape, what in named[1:]:
        if shape.dims != first.dims:
            raise ctx.error(
                label,
                f"{first_what} and {what} must have the same shape (HLO has no implicit "
                f"broadcasting); got {fmt(first)} ({first_what}) and {fmt(shape)} ({what})",
            )


@infers(*BINARY_TYPES)
def infer_binary(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Element-wise binary ops (OPS.md A.16). Spec: stablehlo#<op> (C1: lhs, rhs and result
    have the same type)."""
    lhs, rhs = operands
    allowed = BINARY_TYPES[ctx.opcode]
    element_type_in(ctx, lhs, allowed, "lhs")
    element_type_in(ctx, rhs, allowed, "rhs")
    same_element_type(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")
    same_shape_operands(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")
    return lhs


@infers(Opcode.COMPLEX)
def infer_complex(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#complex (C1: same type, f32 or f64; C2-C3: complex of that type)."""
    lhs, rhs = operands
    for shape, what in ((lhs, "lhs"), (rhs, "rhs")):
        array(ctx, shape, what)
        if shape.element_type not in (dtypes.F32, dtypes.F64):
            raise ctx.error("C1", f"{what} must have element type f32 or f64; got {fmt(shape)}")
    same_element_type(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")
    same_shape_operands(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")
    return lhs.with_element_type(dtypes.C64 if lhs.element_type is dtypes.F32 else dtypes.C128)


def default_comparison_type(etype: ElementType) -> A.ComparisonType:
    """The compare ``type`` implied by the operand type (XLA DefaultComparisonType)."""
    if etype.is_float or etype.is_complex:
        return A.ComparisonType.FLOAT
    if etype.is_signed:
        return A.ComparisonType.SIGNED
    return A.ComparisonType.UNSIGNED


@infers(Opcode.COMPARE)
def infer_compare(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#compare (C1: same element type, C2: same shape, C3: compare_type legal
    for the element type). Result: pred of the operand shape."""
    lhs, rhs = operands
    array(ctx, lhs, "lhs")
    array(ctx, rhs, "rhs")
    etype = same_element_type(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")
    same_shape_operands(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C2")
    ctype = attrs.type
    if ctype is not None:
        legal: tuple[A.ComparisonType, ...]
        if etype.is_float:
            legal = (A.ComparisonType.FLOAT, A.ComparisonType.TOTALORDER)
        else:
            legal = (default_comparison_type(etype),)
        if ctype not in legal:
            raise ctx.error(
                "C3",
                f"comparison type {ctype.value} is not legal for element type {etype}; "
                f"expected {' or '.join(t.value for t in legal)}",
            )
    return lhs.with_element_type(dtypes.PRED)


# ---- ternary ---------------------------------------------------------------------------


@infers(Opcode.SELECT)
def infer_select(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#select (C1: pred is a scalar or has on_true's shape; C2: on_true and
    on_false have the same type). Tuples may be selected with a scalar pred (OPS.md Select)."""
    pred, on_true, on_false = operands
    element_type_in(ctx, pred, "pred", "pred")
    if not on_true.compatible(on_false):
        raise ctx.error(
            "C2",
            "on_true and on_false must have the same type; "
            f"got {fmt(on_true)} (on_true) and {fmt(on_false)} (on_false)",
        )
    if pred.rank != 0 and (not on_true.is_array or pred.dims != on_true.dims):
        raise ctx.error(
            "C1",
            f"pred must be a scalar or have the shape of on_true; got {fmt(pred)} (pred) and "
            f"{fmt(on_true)} (on_true)",
        )
    if not on_true.is_array and not on_true.is_tuple:
        raise ctx.error("C2", f"on_true must be an array or a tuple; got {fmt(on_true)}")
    return on_true


@infers(Opcode.CLAMP)
def infer_clamp(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#clamp (C1/C2: min and max are scalars or have the operand's shape;
    C3: same element type)."""
    low, operand, high = operands
    array(ctx, operand, "operand")
    for shape, what, label in ((low, "min", "C1"), (high, "max", "C2")):
        array(ctx, shape, what)
        if shape.rank != 0 and shape.dims != operand.dims:
            raise ctx.error(
                label,
                f"{what} must be a scalar or have the shape of operand; got {fmt(shape)} "
                f"({what}) and {fmt(operand)} (operand)",
            )
    same_element_type(ctx, [(low, "min"), (operand, "operand"), (high, "max")], "C3")
    return operand


@infers(Opcode.STOCHASTIC_CONVERT)
def infer_stochastic_convert(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """stochastic-convert(operand, random): float operand, unsigned random bits of the same
    width and shape; the integer/float result type comes from the result."""
    operand, random = operands
    element_type_in(ctx, operand, "float", "operand")
    element_type_in(ctx, random, "int", "random")
    if random.element_type.is_signed or random.element_type.bits != operand.element_type.bits:
        raise ctx.error(
            None,
            f"random must be unsigned with the operand's bit width; got {fmt(random)} for "
            f"operand {fmt(operand)}",
        )
    same_shape_operands(ctx, [(operand, "operand"), (random, "random")], "C1")
    result = ctx.need_result("the converted element type")
    return operand.with_element_type(result.element_type)


# ---- builder broadcasting (OPS.md A.4) ------------------------------------------------


def broadcast_binary_dims(
    ctx: InferCtx,
    lhs: Shape,
    rhs: Shape,
    broadcast_dimensions: Sequence[int] = (),
) -> tuple[int, ...]:
    """The result dims of ``Op(lhs, rhs, broadcast_dimensions)`` (OPS.md A.4).

    Same rank: each dimension pair is equal or one side is 1 (degenerate); broadcast_dimensions
    must then be empty or the identity. Different rank: a scalar broadcasts to anything;
    otherwise broadcast_dimensions maps each lower-rank dimension to a higher-rank one (in
    increasing order) and the expanded shapes are broadcast as above.
    """
    array(ctx, lhs, "lhs")
    array(ctx, rhs, "rhs")
    bdims = tuple(broadcast_dimensions)
    if lhs.rank == rhs.rank:
        if bdims and bdims != tuple(range(lhs.rank)):
            raise ctx.error(
                None,
                "broadcast_dimensions must be empty or the identity for operands of the same "
                f"rank; got {fmt_ints(bdims)} for {fmt(lhs)} (lhs) and {fmt(rhs)} (rhs)",
            )
        return degenerate_broadcast(ctx, lhs, rhs, lhs.dims, rhs.dims)
    small, large = (lhs, rhs) if lhs.rank < rhs.rank else (rhs, lhs)
    if small.rank == 0 and not bdims:
        return large.dims
    if len(bdims) != small.rank:
        raise ctx.error(
            None,
            "operands of different rank need broadcast_dimensions with one entry per dimension "
            f"of the lower-rank operand; got {fmt_ints(bdims)} for {fmt(lhs)} (lhs) and "
            f"{fmt(rhs)} (rhs)",
        )
    for i, d in enumerate(bdims):
        if not 0 <= d < large.rank:
            raise ctx.error(
                None,
                f"broadcast_dimensions entries must be in [0, {large.rank}); got {fmt_ints(bdims)}",
            )
        if i and d <= bdims[i - 1]:
            raise ctx.error(
                None, f"broadcast_dimensions must be strictly increasing; got {fmt_ints(bdims)}"
            )
    expanded = [1] * large.rank
    for i, d in enumerate(bdims):
        expanded[d] = small.dims[i]
    if small is lhs:
        return degenerate_broadcast(ctx, lhs, rhs, tuple(expanded), rhs.dims)
    return degenerate_broadcast(ctx, lhs, rhs, lhs.dims, tuple(expanded))


def degenerate_broadcast(
    ctx: InferCtx, lhs: Shape, rhs: Shape, a: Sequence[int], b: Sequence[int]
) -> tuple[int, ...]:
    out = []
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ctx.error(
                None,
                f"shapes are not compatible for broadcasting: dimension {i} has size {x} in one "
                f"operand and {y} in the other; got {fmt(lhs)} (lhs) and {fmt(rhs)} (rhs)",
            )
    return tuple(out)


def check_binary_types(ctx: InferCtx, lhs: Shape, rhs: Shape) -> None:
    """The element-type rules of a binary op, checked before the builder broadcasts."""
    if ctx.opcode in BINARY_TYPES:
        allowed = BINARY_TYPES[ctx.opcode]
        for shape, what in ((lhs, "lhs"), (rhs, "rhs")):
            array(ctx, shape, what)
            if not type_allowed(shape.element_type, allowed):
                raise ctx.error(
                    None,
                    f"{what} must have {describe_allowed(allowed)} element type; got {fmt(shape)}",
                )
    same_element_type(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")


def result_of_broadcast(etype: ElementType, dims: Sequence[int]) -> Shape:
    return array_shape(etype, dims)
