"""Element-wise builder ops (OPS.md A.16/A.17): binary arithmetic with the broadcasting of
A.4, comparisons (and their TotalOrder forms), unary functions, Select, Clamp and the type
conversions. Re-exported by ``xlapy.builder.ops``."""

# ruff: noqa: N802

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlapy import dtypes
from xlapy.builder.helpers import broadcast_to, enum_arg, etype, ints
from xlapy.builder.xla_builder import Operand, XlaOp, as_op
from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import ComparisonDirection, ComparisonType, ResultAccuracy
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.shape_inference.common import InferCtx
from xlapy.shape_inference.elementwise import (
    broadcast_binary_dims,
    check_binary_types,
    default_comparison_type,
)


def _operands(lhs: object, rhs: object, opcode: Opcode) -> tuple[XlaOp, XlaOp]:
    """Both operands as XlaOps of one builder; a Python/numpy scalar takes the other's type."""
    if isinstance(lhs, XlaOp):
        rhs = as_op(lhs.builder, rhs, lhs.dtype)
    elif isinstance(rhs, XlaOp):
        lhs = as_op(rhs.builder, lhs, rhs.dtype)
    else:
        raise InvalidArgument(f"{opcode.value}: needs at least one XlaOp operand")
    assert isinstance(lhs, XlaOp)
    assert isinstance(rhs, XlaOp)
    lhs.builder.check_owned(rhs, f"{opcode.value}: rhs")
    return lhs, rhs


def _mapping(op: XlaOp, rank: int, bdims: tuple[int, ...]) -> tuple[int, ...]:
    if op.ndim == rank:
        return tuple(range(rank))
    if op.ndim == 0:
        return ()
    return bdims


def binary_op(
    opcode: Opcode,
    lhs: object,
    rhs: object,
    broadcast_dimensions: Sequence[int] = (),
    attrs: dict[str, object] | None = None,
) -> XlaOp:
    """``opcode(lhs, rhs)`` after broadcasting both to their common shape (OPS.md A.4)."""
    left, right = _operands(lhs, rhs, opcode)
    ctx = InferCtx(opcode)
    if opcode is not Opcode.COMPARE:
        check_binary_types(ctx, left.shape, right.shape)
    bdims = ints(broadcast_dimensions, "broadcast_dimensions")
    dims = broadcast_binary_dims(ctx, left.shape, right.shape, bdims)
    left = broadcast_to(left, dims, _mapping(left, len(dims), bdims))
    right = broadcast_to(right, dims, _mapping(right, len(dims), bdims))
    return left.builder.add(opcode, [left, right], attrs or {})


def Add(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs + rhs`` (OPS.md Add)."""
    return binary_op(Opcode.ADD, lhs, rhs, broadcast_dimensions)


def Sub(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs - rhs`` (OPS.md Sub)."""
    return binary_op(Opcode.SUBTRACT, lhs, rhs, broadcast_dimensions)


def Mul(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs * rhs`` (OPS.md Mul)."""
    return binary_op(Opcode.MULTIPLY, lhs, rhs, broadcast_dimensions)


def Div(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs / rhs``; integers truncate toward zero (OPS.md Div)."""
    return binary_op(Opcode.DIVIDE, lhs, rhs, broadcast_dimensions)


def Rem(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise remainder with the dividend's sign (OPS.md Rem)."""
    return binary_op(Opcode.REMAINDER, lhs, rhs, broadcast_dimensions)


def Max(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise maximum (OPS.md Max)."""
    return binary_op(Opcode.MAXIMUM, lhs, rhs, broadcast_dimensions)


def Min(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise minimum (OPS.md Min)."""
    return binary_op(Opcode.MINIMUM, lhs, rhs, broadcast_dimensions)


def Pow(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs ** rhs`` (OPS.md Pow)."""
    return binary_op(Opcode.POWER, lhs, rhs, broadcast_dimensions)


def Atan2(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``atan2(lhs, rhs)`` (OPS.md Atan2)."""
    return binary_op(Opcode.ATAN2, lhs, rhs, broadcast_dimensions)


def Complex(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs + i*rhs``: f32 parts give c64, f64 parts c128 (OPS.md Complex)."""
    return binary_op(Opcode.COMPLEX, lhs, rhs, broadcast_dimensions)


def And(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise AND: logical for pred, bitwise for integers (OPS.md And)."""
    return binary_op(Opcode.AND, lhs, rhs, broadcast_dimensions)


def Or(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise OR (OPS.md Or)."""
    return binary_op(Opcode.OR, lhs, rhs, broadcast_dimensions)


def Xor(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise XOR (OPS.md Xor)."""
    return binary_op(Opcode.XOR, lhs, rhs, broadcast_dimensions)


def ShiftLeft(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
    """Element-wise ``lhs << rhs`` (OPS.md ShiftLeft)."""
    return binary_op(Opcode.SHIFT_LEFT, lhs, rhs, broadcast_dimensions)


def ShiftRightArithmetic(
    lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()
) -> XlaOp:
    """Element-wise sign-extending right shift (OPS.md ShiftRightArithmetic)."""
    return binary_op(Opcode.SHIFT_RIGHT_ARITHMETIC, lhs, rhs, broadcast_dimensions)


def ShiftRightLogical(
    lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()
) -> XlaOp:
    """Element-wise zero-filling right shift (OPS.md ShiftRightLogical)."""
    return binary_op(Opcode.SHIFT_RIGHT_LOGICAL, lhs, rhs, broadcast_dimensions)


def NextAfter(lhs: Operand, rhs: Operand) -> XlaOp:
    """The next representable value after ``lhs`` towards ``rhs`` (chlo.next_after)."""
    return binary_op(Opcode.NEXT_AFTER, lhs, rhs)


def Igamma(a: Operand, x: Operand) -> XlaOp:
    """The regularized lower incomplete gamma function."""
    return binary_op(Opcode.IGAMMA, a, x)


def Igammac(a: Operand, x: Operand) -> XlaOp:
    """The regularized upper incomplete gamma function."""
    return binary_op(Opcode.IGAMMAC, a, x)


def Zeta(x: Operand, q: Operand) -> XlaOp:
    """The Hurwitz zeta function (chlo.zeta)."""
    return binary_op(Opcode.ZETA, x, q)


def Polygamma(n: Operand, x: Operand) -> XlaOp:
    """The polygamma function (chlo.polygamma)."""
    return binary_op(Opcode.POLYGAMMA, n, x)


LogicalAnd = And
LogicalOr = Or


# ---- comparisons ---------------------------------------------------------------------


def Compare(
    lhs: XlaOp,
    rhs: XlaOp,
    broadcast_dimensions: Sequence[int] | ComparisonDirection | str = (),
    direction: ComparisonDirection | str | None = None,
    compare_type: ComparisonType | str | None = None,
) -> XlaOp:
    """Element-wise comparison with ``direction`` (EQ, NE, GE, GT, LE, LT) and optional
    ``compare_type`` (FLOAT, TOTALORDER, SIGNED, UNSIGNED); the result is pred (OPS.md
    Compare). ``Compare(lhs, rhs, direction)`` is accepted too."""
    if isinstance(broadcast_dimensions, ComparisonDirection | str):
        direction, broadcast_dimensions = broadcast_dimensions, ()
    if direction is None:
        raise InvalidArgument("compare: a comparison direction is required")
    direction = enum_arg(ComparisonDirection, direction, "direction")
    left, right = _operands(lhs, rhs, Opcode.COMPARE)
    attrs: dict[str, object] = {"direction": direction}
    if compare_type is not None:
        ctype = enum_arg(ComparisonType, compare_type, "compare_type")
        if ctype is not default_comparison_type(left.dtype):
            attrs["type"] = ctype
    return binary_op(Opcode.COMPARE, left, right, broadcast_dimensions, attrs)


def _compare(direction: str, total_order: bool) -> Callable[..., XlaOp]:
    def fn(lhs: Operand, rhs: Operand, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
        left, right = _operands(lhs, rhs, Opcode.COMPARE)
        ctype = ComparisonType.TOTALORDER if total_order and left.dtype.is_float else None
        return Compare(left, right, broadcast_dimensions, direction, ctype)

    suffix = "TotalOrder" if total_order else ""
    fn.__name__ = direction.capitalize() + suffix
    order = " under the total order -NaN < -Inf < ... < +Inf < +NaN" if total_order else ""
    fn.__doc__ = (
        f"Element-wise ``lhs {_SYMBOLS[direction]} rhs``{order}; pred result (OPS.md A.12)."
    )
    return fn


_SYMBOLS = {"EQ": "==", "NE": "!=", "GE": ">=", "GT": ">", "LE": "<=", "LT": "<"}

Eq = _compare("EQ", False)
Ne = _compare("NE", False)
Ge = _compare("GE", False)
Gt = _compare("GT", False)
Le = _compare("LE", False)
Lt = _compare("LT", False)
EqTotalOrder = _compare("EQ", True)
NeTotalOrder = _compare("NE", True)
GeTotalOrder = _compare("GE", True)
GtTotalOrder = _compare("GT", True)
LeTotalOrder = _compare("LE", True)
LtTotalOrder = _compare("LT", True)


# ---- unary ------------------------------------------------------------------------------


def unary_op(
    opcode: Opcode, operand: XlaOp, result_accuracy: ResultAccuracy | None = None
) -> XlaOp:
    if not isinstance(operand, XlaOp):
        raise InvalidArgument(f"{opcode.value}: operand must be an XlaOp; got {operand!r}")
    problem = result_accuracy.problem() if result_accuracy is not None else None
    if problem is not None:
        raise InvalidArgument(f"{opcode.value}: result_accuracy: {problem}")
    attrs = {"result_accuracy": result_accuracy} if result_accuracy is not None else {}
    return operand.builder.add(opcode, [operand], attrs)


def _unary(opcode: Opcode, name: str, meaning: str, accuracy: bool) -> Callable[..., XlaOp]:
    if accuracy:

        def fn(operand: XlaOp, result_accuracy: ResultAccuracy | None = None) -> XlaOp:
            return unary_op(opcode, operand, result_accuracy)
    else:

        def fn(operand: XlaOp) -> XlaOp:  # type: ignore[misc]
            return unary_op(opcode, operand)

    fn.__name__ = name
    fn.__doc__ = f"Element-wise {meaning} (OPS.md {name})."
    return fn


Abs = _unary(Opcode.ABS, "Abs", "absolute value; complex gives the real modulus", False)
Ceil = _unary(Opcode.CEIL, "Ceil", "ceiling", False)
Floor = _unary(Opcode.FLOOR, "Floor", "floor", False)
Neg = _unary(Opcode.NEGATE, "Neg", "negation", False)
Not = _unary(Opcode.NOT, "Not", "logical/bitwise NOT", False)
Sign = _unary(Opcode.SIGN, "Sign", "sign", False)
Clz = _unary(Opcode.CLZ, "Clz", "count of leading zero bits", False)
PopulationCount = _unary(Opcode.POPCNT, "PopulationCount", "count of set bits", False)
IsFinite = _unary(Opcode.IS_FINITE, "IsFinite", "finiteness test (pred result)", False)
Real = _unary(Opcode.REAL, "Real", "real part", False)
Imag = _unary(Opcode.IMAG, "Imag", "imaginary part", False)
Round = _unary(Opcode.ROUND_NEAREST_AFZ, "Round", "rounding, ties away from zero", False)
RoundNearestAfz = _unary(Opcode.ROUND_NEAREST_AFZ, "RoundNearestAfz", "rounding, ties away", False)
RoundNearestEven = _unary(Opcode.ROUND_NEAREST_EVEN, "RoundNearestEven", "rounding, ties to even",
                          False)  # fmt: skip
Cbrt = _unary(Opcode.CBRT, "Cbrt", "cube root", True)
Cos = _unary(Opcode.COS, "Cos", "cosine", True)
Cosh = _unary(Opcode.COSH, "Cosh", "hyperbolic cosine", True)
Erf = _unary(Opcode.ERF, "Erf", "error function", True)
Exp = _unary(Opcode.EXP, "Exp", "e^x", True)
Expm1 = _unary(Opcode.EXPM1, "Expm1", "e^x - 1", True)
Log = _unary(Opcode.LOG, "Log", "natural logarithm", True)
Log1p = _unary(Opcode.LOG1P, "Log1p", "ln(1 + x)", True)
Logistic = _unary(Opcode.LOGISTIC, "Logistic", "logistic function", True)
Rsqrt = _unary(Opcode.RSQRT, "Rsqrt", "1 / sqrt(x)", True)
Sin = _unary(Opcode.SIN, "Sin", "sine", True)
Sinh = _unary(Opcode.SINH, "Sinh", "hyperbolic sine", True)
Sqrt = _unary(Opcode.SQRT, "Sqrt", "square root", True)
Tan = _unary(Opcode.TAN, "Tan", "tangent", True)
Tanh = _unary(Opcode.TANH, "Tanh", "hyperbolic tangent", True)
Acos = _unary(Opcode.ACOS, "Acos", "arc cosine", True)
Acosh = _unary(Opcode.ACOSH, "Acosh", "inverse hyperbolic cosine", True)
Asin = _unary(Opcode.ASIN, "Asin", "arc sine", True)
Asinh = _unary(Opcode.ASINH, "Asinh", "inverse hyperbolic sine", True)
Atan = _unary(Opcode.ATAN, "Atan", "arc tangent", True)
Atanh = _unary(Opcode.ATANH, "Atanh", "inverse hyperbolic tangent", True)
Lgamma = _unary(Opcode.LGAMMA, "Lgamma", "log-gamma", False)
Digamma = _unary(Opcode.DIGAMMA, "Digamma", "digamma", False)
ErfInv = _unary(Opcode.ERF_INV, "ErfInv", "inverse error function", False)
Erfc = _unary(Opcode.ERFC, "Erfc", "complementary error function", False)
BesselI1e = _unary(Opcode.BESSEL_I1E, "BesselI1e", "scaled Bessel I1", False)
LogicalNot = Not


# ---- ternary and conversions ---------------------------------------------------------


def Select(pred: XlaOp, on_true: XlaOp, on_false: XlaOp) -> XlaOp:
    """Element-wise choice by ``pred``; a scalar pred selects whole arrays or tuples (OPS.md
    Select). Scalar operands are broadcast to the others' shape first."""
    b = pred.builder
    b.check_owned(on_true, "select: on_true")
    b.check_owned(on_false, "select: on_false")
    ops3 = [pred, on_true, on_false]
    arrays = [o for o in ops3 if o.shape.is_array and o.ndim > 0]
    if arrays and all(o.shape.is_array for o in ops3):
        dims = arrays[0].shape.dims
        ops3 = [broadcast_to(o, dims, ()) if o.ndim == 0 else o for o in ops3]
    return b.add(Opcode.SELECT, ops3)


def Clamp(min: Operand, operand: XlaOp, max: Operand) -> XlaOp:
    """``min(max(operand, min), max)``; min and max may be scalars (OPS.md Clamp)."""
    b = operand.builder
    low = as_op(b, min, operand.dtype)
    high = as_op(b, max, operand.dtype)
    return b.add(Opcode.CLAMP, [low, operand, high])


def ConvertElementType(operand: XlaOp, new_element_type: object) -> XlaOp:
    """Element-wise conversion to ``new_element_type`` (OPS.md ConvertElementType)."""
    new = etype(new_element_type)
    return operand.builder.add(Opcode.CONVERT, [operand], {}, operand.shape.with_element_type(new))


def BitcastConvertType(operand: XlaOp, new_element_type: object) -> XlaOp:
    """Bit-level reinterpretation; a width change adds or drops the minor dimension (OPS.md
    BitcastConvertType)."""
    new = etype(new_element_type)
    return operand.builder.add(Opcode.BITCAST_CONVERT, [operand], {}, Shape.scalar(new))


def ReducePrecision(operand: XlaOp, exponent_bits: int, mantissa_bits: int) -> XlaOp:
    """Round-trip through a float format with the given bit counts (OPS.md ReducePrecision)."""
    return operand.builder.add(
        Opcode.REDUCE_PRECISION,
        [operand],
        {"exponent_bits": int(exponent_bits), "mantissa_bits": int(mantissa_bits)},
    )


def StochasticConvertType(operand: XlaOp, random: XlaOp, new_element_type: object) -> XlaOp:
    """Stochastic rounding of ``operand`` to ``new_element_type`` using ``random`` bits."""
    new = etype(new_element_type)
    return operand.builder.add(
        Opcode.STOCHASTIC_CONVERT, [operand, random], {}, operand.shape.with_element_type(new)
    )


def scalar_like(op: XlaOp, value: object) -> XlaOp:
    """A scalar constant of ``op``'s element type."""
    return as_op(op.builder, np.asarray(value, dtype=op.dtype.numpy), op.dtype)


def to_pred(op: XlaOp) -> XlaOp:
    return op if op.dtype is dtypes.PRED else ConvertElementType(op, dtypes.PRED)
