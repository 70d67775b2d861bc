"""Uniform quantized tensors (``!quant.uniform``): ``uniform_quantize``, ``uniform_dequantize``
and every other op on quantized operands, with the results of the StableHLO reference
interpreter (which lowers them with ``stablehlo-legalize-quant-to-math`` before running).

Values of a quantized type are its storage integers. The arithmetic, per StableHLO spec
("Quantization computations") as that lowering computes it:

* ``dequantize(x) = convert(i32(x) - zero_point) * scale`` in the expressed type;
* ``quantize(x) = convert(round_nearest_even(clamp(min, x / scale + zero_point, max)))``, in
  the operand's floating-point type (float -> int conversions truncate and saturate, NaN -> 0);
* requantizing (quantized -> quantized) multiplies the f32 storage values by the merged scale
  ``in_scale / out_scale`` and adds the merged zero point ``out_zp - in_zp * merged_scale``
  (both rounded to f32), clamps when the storage is narrower than 32 bits, then rounds;
* ``add`` of per-tensor quantized operands requantizes both to the result's parameters in
  i32 and computes ``lhs + rhs - zero_point``, clamped to the storage range;
* ``maximum``/``minimum`` of one per-tensor type and ``select`` of one type pick storage
  values (scales are positive, so the order is the same);
* dot_general and convolution: ``quantized_contraction``;
* every other op the spec defines on quantized tensors is ``dequantize_op_quantize``: its
  operands are dequantized, the op runs on the expressed values, the result is quantized.

Ops that only move values (reshape, transpose, gather, pad, reduce, ...) need nothing here:
their evaluators move storage integers, and the ops inside their bodies dispatch here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.dtypes import QuantizedType
from xlapy.errors import InvalidArgument
from xlapy.interpreter import numerics
from xlapy.interpreter.evaluator import (
    EVALUATORS,
    QUANTIZED_EVALUATORS,
    Evaluator,
    evaluates,
    evaluates_quantized,
)
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value
from xlapy.shape import Shape
from xlapy.shape_inference.quantized import EXPRESSED, expressed_shape

# ---- the quantization arithmetic -------------------------------------------------------------


def parameters(q: QuantizedType, rank: int) -> tuple[Array, Array]:
    """(scales as float64, zero points as int64), shaped to broadcast against an array of
    ``rank`` dimensions: scalars per tensor, one entry per index of the quantization
    dimension per axis."""
    d = q.quantization_dimension
    if d is None:
        return np.asarray(q.scales[0]), np.asarray(q.zero_points[0], np.int64)
    shape = [1] * rank
    shape[d] = len(q.scales)
    return np.reshape(q.scales, shape), np.reshape(np.asarray(q.zero_points, np.int64), shape)


def dequantize(x: Array, q: QuantizedType) -> Array:
    """``(x - zero_point) * scale`` in ``q``'s expressed type; the difference is taken in i32
    (it wraps there, as the reference's ``i32`` subtraction does)."""
    scale, zero_point = parameters(q, x.ndim)
    expressed = q.expressed.numpy
    difference = numerics.wrap(np.asarray(x).astype(np.int64) - zero_point, dtypes.S32)
    return np.asarray(difference.astype(expressed) * scale.astype(expressed), dtype=expressed)


def quantize(x: Array, q: QuantizedType) -> Array:
    """Floating-point ``x`` -> storage values of ``q``: ``x / scale + zero_point`` clamped to
    the storage range and rounded to nearest even, all in ``x``'s type."""
    x = np.asarray(x)
    ct = x.dtype
    scale, zero_point = parameters(q, x.ndim)
    with np.errstate(all="ignore"):
        scaled = x / scale.astype(ct) + zero_point.astype(ct)
        low, high = np.asarray(q.storage_min).astype(ct), np.asarray(q.storage_max).astype(ct)
        clamped = np.minimum(np.maximum(scaled, low), high)
        return to_storage(np.rint(clamped), q)


def to_storage(values: Array, q: QuantizedType) -> Array:
    """Integral float ``values`` converted to ``q``'s storage type the way a float -> int
    convert does (truncation toward zero, saturation, NaN -> 0)."""
    return numerics.saturate_float_to_int(np.asarray(values, np.float64), q.storage)


def requantize(x: Array, source: QuantizedType, target: QuantizedType, *, i32: bool) -> Array:
    """Storage values of ``source`` re-expressed in ``target``'s parameters: the f32 values
    times the merged scale, plus the merged zero point when it is not zero, clamped when the
    new storage is narrower than 32 bits, rounded to nearest even. ``i32`` gives the values
    as int32 (add's intermediate form) instead of ``target``'s storage."""
    out = dtypes.S32 if i32 else target.storage
    if source is target:
        return numerics.wrap(np.asarray(x).astype(np.int64), out)
    if (
        source.is_per_axis
        and target.is_per_axis
        and source.quantization_dimension != target.quantization_dimension
    ):
        raise InvalidArgument(
            "uniform_quantize: cannot requantize while changing the quantization "
            f"dimension; got {source.mlir} -> {target.mlir}"
        )
    x = np.asarray(x)
    per_axis = target if target.is_per_axis else source
    count = len(per_axis.scales)

    def channel(q: QuantizedType, values: tuple[float, ...] | tuple[int, ...]) -> list[float]:
        return [float(v) for v in values] if q.is_per_axis else [float(values[0])] * count

    in_scales, out_scales = channel(source, source.scales), channel(target, target.scales)
    in_zps, out_zps = channel(source, source.zero_points), channel(target, target.zero_points)
    merged_scale = [a / b for a, b in zip(in_scales, out_scales, strict=True)]
    merged_zp = [z - y * m for z, y, m in zip(out_zps, in_zps, merged_scale, strict=True)]
    shape = [1] * x.ndim
    if per_axis.quantization_dimension is not None:
        shape[per_axis.quantization_dimension] = count
    else:
        shape = []
    scale32 = np.reshape(np.asarray(merged_scale, np.float32), shape)
    with np.errstate(all="ignore"):
        values = x.astype(np.float32) * scale32
        if any(z != 0 for z in merged_zp):
            values = values + np.reshape(np.asarray(merged_zp, np.float32), shape)
        if out.bits < 32:
            low, high = np.float32(target.storage_min), np.float32(target.storage_max)
            values = np.minimum(np.maximum(values, low), high)
        return numerics.saturate_float_to_int(np.rint(values).astype(np.float64), out)


def quantized_type(shape: Shape) -> QuantizedType | None:
    etype = shape.element_type
    return etype if isinstance(etype, QuantizedType) else None


# ---- uniform_quantize / uniform_dequantize -------------------------------------------------


@evaluates(Opcode.UNIFORM_QUANTIZE)
def uniform_quantize(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Spec: stablehlo#uniform_quantize: ``quantize`` of a float operand, requantization of a
    quantized one."""
    target = quantized_type(instr.shape)
    if target is None:
        raise InvalidArgument(f"uniform-quantize {instr.name}: the result must be quantized")
    source = quantized_type(instr.operands[0].shape)
    x = np.asarray(operands[0])
    if source is None:
        return quantize(x, target)
    return requantize(x, source, target, i32=False)


@evaluates(Opcode.UNIFORM_DEQUANTIZE)
def uniform_dequantize(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Spec: stablehlo#uniform_dequantize."""
    source = quantized_type(instr.operands[0].shape)
    if source is None:
        raise InvalidArgument(f"uniform-dequantize {instr.name}: the operand must be quantized")
    return dequantize(np.asarray(operands[0]), source)


# ---- dequantize -> op -> quantize ------------------------------------------------------------


def expressed_instruction(instr: HloInstruction) -> HloInstruction:
    """A copy of ``instr`` whose operands and result have the expressed types of its
    quantized ones (operands become parameters), for running the op's own evaluator."""
    operands = [
        HloInstruction(Opcode.PARAMETER, expressed_shape(o.shape), (), {"parameter_number": i})
        for i, o in enumerate(instr.operands)
    ]
    return HloInstruction(
        instr.opcode, expressed_shape(instr.shape), operands, instr.attrs, name=instr.name
    )


def dequantize_operands(instr: HloInstruction, operands: Sequence[Value]) -> list[Value]:
    """Every quantized operand dequantized; the others unchanged."""
    out: list[Value] = []
    for o, v in zip(instr.operands, operands, strict=True):
        q = quantized_type(o.shape)
        out.append(v if q is None else dequantize(np.asarray(v), q))
    return out


def quantize_result(value: Value, shape: Shape) -> Value:
    """``value`` (expressed types) quantized wherever ``shape`` is quantized."""
    if shape.is_tuple and isinstance(value, tuple):
        return tuple(quantize_result(v, s) for v, s in zip(value, shape.tuple_shapes, strict=True))
    q = quantized_type(shape)
    return value if q is None else quantize(np.asarray(value), q)


def dequantize_op_quantize(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The spec's ``dequantize_op_quantize``: the op's own evaluator on the dequantized
    operands, its result quantized to the result type."""
    floats = dequantize_operands(instr, operands)
    result = EVALUATORS[instr.opcode](ctx, expressed_instruction(instr), floats)
    return quantize_result(result, instr.shape)


# ---- ops with a storage-integer form ---------------------------------------------------------


def _types(instr: HloInstruction) -> list[QuantizedType | None]:
    return [quantized_type(s) for s in (*(o.shape for o in instr.operands), instr.shape)]


@evaluates_quantized(Opcode.ADD)
def add(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Quantized add: per tensor, both operands requantized to the result's parameters (in
    i32), ``lhs + rhs - zero_point`` clamped to the storage range; per axis (one i32 type
    throughout), ``lhs + rhs - zero_points``; any other mix by dequantize_op_quantize."""
    lq, rq, q = _types(instr)
    if lq is None or rq is None or q is None:
        return dequantize_op_quantize(ctx, instr, operands)
    lhs, rhs = (np.asarray(v) for v in operands)
    if lq.is_per_tensor and rq.is_per_tensor and q.is_per_tensor:
        total = (
            requantize(lhs, lq, q, i32=True).astype(np.int64)
            + requantize(rhs, rq, q, i32=True)
            - q.zero_points[0]
        )
        total = numerics.wrap(total, dtypes.S32).astype(np.int64)
        if q.storage.bits != 32:
            total = np.clip(total, q.storage_min, q.storage_max)
        return numerics.wrap(total, q.storage)
    if lq is rq is q and q.storage.bits == 32:
        _, zero_points = parameters(q, lhs.ndim)
        total = lhs.astype(np.int64) + rhs.astype(np.int64) - zero_points
        return numerics.wrap(numerics.wrap(total, dtypes.S32).astype(np.int64), q.storage)
    return dequantize_op_quantize(ctx, instr, operands)


@evaluates_quantized(Opcode.MAXIMUM, Opcode.MINIMUM)
def maximum_minimum(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """max/min of operands and result of one per-tensor type compare storage values; any other
    mix is dequantize_op_quantize."""
    lq, rq, q = _types(instr)
    if q is not None and lq is q and rq is q and q.is_per_tensor:
        pick = np.maximum if instr.opcode is Opcode.MAXIMUM else np.minimum
        return np.asarray(pick(operands[0], operands[1]), dtype=q.numpy)
    return dequantize_op_quantize(ctx, instr, operands)


@evaluates_quantized(Opcode.SELECT)
def select(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """select of one quantized type picks storage values; with different parameters it is
    the spec's dequantize_select_quantize."""
    _, tq, fq, q = _types(instr)
    if q is not None and tq is q and fq is q:
        return EVALUATORS[Opcode.SELECT](ctx, instr, operands)
    return dequantize_op_quantize(ctx, instr, operands)


_CONTRACTIONS = frozenset({Opcode.CONVOLUTION, Opcode.DOT, Opcode.DYNAMIC_CONV})
for _opcode in sorted(EXPRESSED - _CONTRACTIONS, key=lambda o: o.value):
    if _opcode not in QUANTIZED_EVALUATORS:
        evaluates_quantized(_opcode)(dequantize_op_quantize)
