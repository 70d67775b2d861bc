"""Shape inference for instructions on uniform quantized tensors (``!quant.uniform``; StableHLO
spec, "QuantizedTensorType"): the two quantization ops, and how every other op's rules apply
when quantized types are involved.

* ``uniform_quantize`` / ``uniform_dequantize`` have their own rules (below).
* Ops the spec computes in the expressed type (``dequantize_op_quantize``, compare, select,
  dot_general, convolution, ...: ``EXPRESSED``) are checked with every quantized type replaced
  by its expressed type; a quantized declared result then keeps its own quantization.
* Every other op (data movement, control flow, reductions) moves storage values: its rules
  apply to the quantized types themselves, except that a per-axis quantized result may put its
  quantization dimension elsewhere (reshape, transpose, broadcast_in_dim...).
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy.dtypes import QuantizedType
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import Shape
from xlapy.shape_inference.common import InferCtx, InferFn, fmt, infers
from xlapy.shape_inference.elementwise import BINARY_TYPES, UNARY_TYPES

EXPRESSED: frozenset[Opcode] = frozenset({
    *UNARY_TYPES, *BINARY_TYPES, Opcode.BATCH_NORM_GRAD, Opcode.BATCH_NORM_INFERENCE,
    Opcode.BATCH_NORM_TRAINING, Opcode.CHOLESKY, Opcode.CLAMP, Opcode.COMPARE,
    Opcode.CONVOLUTION, Opcode.DOT, Opcode.DYNAMIC_CONV, Opcode.IOTA, Opcode.REDUCE_PRECISION,
    Opcode.SELECT, Opcode.TRIANGULAR_SOLVE,
})  # fmt: skip
"""Ops whose quantized form is defined on the expressed values."""

NO_QUANTIZED: frozenset[Opcode] = frozenset({Opcode.CONVERT})
"""Ops the spec does not define on quantized tensors (convert: use uniform_quantize)."""


def involves_quantized(shapes: Sequence[Shape | None]) -> bool:
    """Whether any of ``shapes`` (tuples included) has a quantized element type."""
    for shape in shapes:
        if shape is None:
            continue
        if shape.is_tuple:
            if involves_quantized(shape.tuple_shapes):
                return True
        elif shape.element_type.is_quantized:
            return True
    return False


def expressed_shape(shape: Shape) -> Shape:
    """``shape`` with every quantized element type replaced by its expressed type."""
    if shape.is_tuple:
        return Shape.tuple_of([expressed_shape(s) for s in shape.tuple_shapes])
    etype = shape.element_type
    if isinstance(etype, QuantizedType):
        return shape.with_element_type(etype.expressed)
    return shape


def infer_quantized(ctx: InferCtx, fn: InferFn, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """``fn``'s result for operands or a declared result that involve quantized types (see the
    module docstring for which rule applies to which op)."""
    if ctx.opcode in NO_QUANTIZED:
        shapes = ", ".join(fmt(s) for s in (*operands, *([ctx.result] if ctx.result else [])))
        raise ctx.error(
            None,
            "is not defined on quantized tensors (use uniform_quantize / uniform_dequantize); "
            f"got {shapes}",
        )
    if ctx.opcode in EXPRESSED:
        declared = ctx.result
        inner = InferCtx(
            ctx.opcode, ctx.name, None if declared is None else expressed_shape(declared)
        )
        inferred = fn(inner, [expressed_shape(s) for s in operands], attrs)
        return _requantize_like(inferred, declared)
    inferred = fn(ctx, operands, attrs)
    return _moved_axis(inferred, ctx.result)


def _requantize_like(inferred: Shape, declared: Shape | None) -> Shape:
    """``inferred`` (expressed types) with the declared result's quantized element types where
    they express the inferred type."""
    if declared is None:
        return inferred
    if inferred.is_tuple and declared.is_tuple:
        if len(inferred.tuple_shapes) != len(declared.tuple_shapes):
            return inferred
        return Shape.tuple_of([
            _requantize_like(a, b)
            for a, b in zip(inferred.tuple_shapes, declared.tuple_shapes, strict=True)
        ])  # fmt: skip
    etype = declared.element_type if declared.is_array else None
    if (
        isinstance(etype, QuantizedType)
        and inferred.is_array
        and inferred.element_type is etype.expressed
    ):
        return Shape(etype, inferred.dims, inferred.dynamic, inferred.layout)
    return inferred


def _moved_axis(inferred: Shape, declared: Shape | None) -> Shape:
    """``inferred`` with the declared per-axis quantized element type when the two differ only
    in the quantization dimension."""
    if declared is None:
        return inferred
    if inferred.is_tuple and declared.is_tuple:
        if len(inferred.tuple_shapes) != len(declared.tuple_shapes):
            return inferred
        return Shape.tuple_of([
            _moved_axis(a, b)
            for a, b in zip(inferred.tuple_shapes, declared.tuple_shapes, strict=True)
        ])  # fmt: skip
    got, want = inferred.element_type, declared.element_type
    if (
        isinstance(got, QuantizedType)
        and isinstance(want, QuantizedType)
        and got.is_per_axis
        and want.is_per_axis
        and want.quantization_dimension is not None
        and got.with_quantization_dimension(want.quantization_dimension) is want
    ):
        return Shape(want, inferred.dims, inferred.dynamic, inferred.layout)
    return inferred


@infers(Opcode.UNIFORM_QUANTIZE)
def infer_uniform_quantize(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#uniform_quantize (C1: same shape, a floating-point or quantized operand,
    a quantized result; C2: the result expresses the operand's (expressed) element type)."""
    (operand,) = operands
    result = ctx.need_result("the quantized element type")
    want = result.element_type if result.is_array else None
    if not isinstance(want, QuantizedType):
        raise ctx.error("C1", f"the result must be a quantized tensor; got {fmt(result)}")
    got = operand.element_type if operand.is_array else None
    if got is None or not (got.is_float or isinstance(got, QuantizedType)):
        raise ctx.error(
            "C1", f"operand must be a floating-point or quantized tensor; got {fmt(operand)}"
        )
    expressed = got.expressed if isinstance(got, QuantizedType) else got
    if expressed is not want.expressed:
        raise ctx.error(
            "C2",
            "the result's expressed type must be the operand's (expressed) element type; "
            f"got {fmt(operand)} -> {fmt(result)}",
        )
    return operand.with_element_type(want)


@infers(Opcode.UNIFORM_DEQUANTIZE)
def infer_uniform_dequantize(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#uniform_dequantize (C1: same shape; C2: the result has the operand's
    expressed type)."""
    (operand,) = operands
    got = operand.element_type if operand.is_array else None
    if not isinstance(got, QuantizedType):
        raise ctx.error("C1", f"operand must be a quantized tensor; got {fmt(operand)}")
    return operand.with_element_type(got.expressed)
