"""dot_general and convolution (and dynamic_conv) on uniform quantized tensors, with the StableHLO
reference interpreter's results (it runs them as ``stablehlo-legalize-quant-to-math`` lowers
them; see ``quantized`` for the shared arithmetic).

Three forms, chosen from the operand and result types:

* **integer**: a per-tensor quantized lhs with a per-tensor (or per-axis) quantized rhs and
  result. The storage integers are contracted exactly in i32 (``raw``), a zero-point offset
  is computed from sums of the operands (``rhs_zp * sum(lhs) + lhs_zp * sum(rhs) - lhs_zp *
  rhs_zp * K``), both are scaled by ``lhs_scale * rhs_scale / result_scale`` through f32 when
  that is not within 0.001 of 1 (truncating to i32), and the result is ``raw + result_zp -
  offset``, wrapped into the storage type. Convolution takes this form only for a zero rhs
  zero point, no lhs dilation and the NHWC/NCHW/NDHWC/NCDHW layouts; its lhs is padded with
  its zero point explicitly.
* **hybrid** (float lhs, quantized rhs, float result: the spec's ``hybrid_dequantize_then_op``)
  and every other mix (``dequantize_op_quantize``): quantized operands are dequantized, the
  op runs in floating point, a quantized result is quantized.

The floating-point forms accumulate as the reference interpreter does: one product and one
sum at a time in the result type, over the contracting index in lexicographic order
(convolution: the spatial window positions, then the input features; a reversed window is
walked backwards), starting from +0.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from xlapy import dtypes
from xlapy.dtypes import QuantizedType
from xlapy.errors import InvalidArgument
from xlapy.interpreter import numerics
from xlapy.interpreter.evals.convolution import check_deferred, conv_output_size
from xlapy.interpreter.evals.quantized import (
    dequantize_operands,
    quantize,
    quantized_type,
)
from xlapy.interpreter.evaluator import EVALUATORS, Evaluator, evaluates_quantized
from xlapy.ir.attrs import ConvolutionDimensionNumbers, Window, WindowDimension
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.literal import Array, Value
from xlapy.shape import Shape

# ---- floating point in the reference interpreter's order ------------------------------------


def sequential_dot(lhs: Array, rhs: Array, attrs: Attrs, dtype: np.dtype) -> Array:
    """dot_general of float operands in ``dtype``: ``sum_k lhs * rhs`` one step at a time over
    the contracting index (lexicographic in ``lhs_contracting_dims`` order)."""
    lb, lc = tuple(attrs.lhs_batch_dims), tuple(attrs.lhs_contracting_dims)
    rb, rc = tuple(attrs.rhs_batch_dims), tuple(attrs.rhs_contracting_dims)
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    batch = [lhs.shape[d] for d in lb]
    sizes = [lhs.shape[d] for d in lc]
    left = lhs.transpose([*lb, *lf, *lc]).astype(dtype)
    right = rhs.transpose([*rb, *rc, *rf]).astype(dtype)
    m, k = math.prod(lhs.shape[d] for d in lf), math.prod(sizes)
    n = math.prod(rhs.shape[d] for d in rf)
    b = math.prod(batch)
    left = left.reshape(b, m, k)
    right = right.reshape(b, k, n)
    total = np.zeros((b, m, n), dtype)
    with np.errstate(all="ignore"):
        for i in range(k):  # sequential by the reference interpreter's order
            total = total + left[:, :, i, None] * right[:, None, i, :]
    dims = [*batch, *(lhs.shape[d] for d in lf), *(rhs.shape[d] for d in rf)]
    return total.reshape(dims)


def full_window(window: Window, rhs: Array, dnums: ConvolutionDimensionNumbers) -> Window:
    """``window`` with one entry per spatial dimension (an empty window is the kernel's)."""
    if window.dimensions or not dnums.kernel_spatial_dimensions:
        return window
    return Window.make([rhs.shape[d] for d in dnums.kernel_spatial_dimensions])


def _taps(n: int, d: WindowDimension, out: int) -> Array:
    """For one spatial dimension of size ``n``: the lhs index of each (output position, window
    position), ``n`` (a zero) where it falls in padding or between dilated elements."""
    position = np.arange(out)[:, None] * d.stride + np.arange(d.size)[None, :] * d.window_dilation
    q = position - d.padding_low
    dilated = (n - 1) * d.base_dilation + 1 if n else 0
    real = (q >= 0) & (q < dilated) & (q % d.base_dilation == 0)
    index = np.where(real, q // d.base_dilation, n)
    return index[:, ::-1] if d.window_reversal else index


def sequential_convolution(
    lhs: Array,
    rhs: Array,
    window: Window,
    dnums: ConvolutionDimensionNumbers,
    feature_group_count: int,
    batch_group_count: int,
    dtype: np.dtype,
) -> Array:
    """Convolution of float operands in ``dtype``, each output element summed one product at a
    time over (window position..., input feature) in lexicographic order, per feature or batch
    group, the groups' results concatenated along the output features."""
    lhs_c = lhs.transpose(
        [dnums.input_batch_dimension, dnums.input_feature_dimension,
         *dnums.input_spatial_dimensions]
    ).astype(dtype)  # fmt: skip
    rhs_c = rhs.transpose(
        [dnums.kernel_output_feature_dimension, dnums.kernel_input_feature_dimension,
         *dnums.kernel_spatial_dimensions]
    ).astype(dtype)  # fmt: skip
    spatial = lhs_c.ndim - 2
    dims = full_window(window, rhs, dnums).dimensions
    out_sizes = [conv_output_size(n, d) for n, d in zip(lhs_c.shape[2:], dims, strict=True)]
    padded = np.pad(lhs_c, [(0, 0), (0, 0)] + [(0, 1)] * spatial)
    index: list[Array] = []
    for axis, (n, d, out) in enumerate(zip(lhs_c.shape[2:], dims, out_sizes, strict=True)):
        shape = [1] * (2 * spatial)
        shape[axis], shape[spatial + axis] = out, d.size
        index.append(_taps(n, d, out).reshape(shape))
    patches = padded[(slice(None), slice(None), *index)]
    batch, features = lhs_c.shape[:2]
    out_features = rhs_c.shape[0]
    positions, taps = math.prod(out_sizes), math.prod(d.size for d in dims)
    patches = patches.reshape(batch, features, positions, taps)
    weights = rhs_c.reshape(out_features, rhs_c.shape[1], taps)
    groups = max(feature_group_count, batch_group_count)
    results = []
    for g in range(groups):
        if batch_group_count > 1:
            part = batch // groups
            p = patches[g * part : (g + 1) * part]
        else:
            part = features // groups
            p = patches[:, g * part : (g + 1) * part]
        og = out_features // groups
        w = weights[g * og : (g + 1) * og]
        total = np.zeros((p.shape[0], og, positions), dtype)
        with np.errstate(all="ignore"):
            for t in range(taps):  # sequential by the reference interpreter's order
                for i in range(p.shape[1]):
                    total = total + p[:, None, i, :, t] * w[None, :, i, t, None]
        results.append(total)
    result = np.concatenate(results, axis=1).reshape(-1, out_features, *out_sizes)
    order = [dnums.output_batch_dimension, dnums.output_feature_dimension,
             *dnums.output_spatial_dimensions]  # fmt: skip
    return result.transpose(np.argsort(order))


# ---- the integer form -------------------------------------------------------------------------


def _wrap32(values: Array) -> Array:
    return numerics.wrap(np.asarray(values).astype(np.int64), dtypes.S32).astype(np.int64)


def _scaled(values: Array, scale: float) -> Array:
    """``i32(f32(values) * f32(scale))``, truncating and saturating like a convert."""
    product = np.asarray(values).astype(np.float32) * np.float32(scale)
    return numerics.saturate_float_to_int(product, dtypes.S32).astype(np.int64)


def integer_form(lq: QuantizedType, rq: QuantizedType, q: QuantizedType) -> bool:
    """A per-tensor lhs with a rhs and result both per tensor or both per axis."""
    return lq.is_per_tensor and (rq.is_per_tensor == q.is_per_tensor)


def finish(
    raw: Array, offset: Array | None, lq: QuantizedType, rq: QuantizedType, q: QuantizedType
) -> Array:
    """``raw * s + result_zp - offset * s`` with ``s = lhs_scale * rhs_scale / result_scale``
    (the first scale of per-axis types), in i32, wrapped into the result's storage."""
    raw = _wrap32(raw)
    combined = lq.scales[0] * rq.scales[0] / q.scales[0]
    if abs(combined - 1.0) > 0.001:
        raw = _scaled(raw, combined)
        if offset is not None:
            offset = _scaled(offset, combined)
    zero_point = q.zero_points[0] if q.is_per_tensor else 0
    shift = zero_point if offset is None else _wrap32(zero_point - offset)
    return numerics.wrap(_wrap32(raw + shift), q.storage)


def _storage_instruction(
    instr: HloInstruction, opcode: Opcode, operands: list[Array], types: list[QuantizedType],
    attrs: Attrs,
) -> HloInstruction:  # fmt: skip
    """``instr`` over storage integers with an i32 result (the integer kernel)."""
    params = [
        HloInstruction(
            Opcode.PARAMETER, Shape.array(t.storage, v.shape), (), {"parameter_number": i}
        )
        for i, (v, t) in enumerate(zip(operands, types, strict=True))
    ]
    result = Shape.array(dtypes.S32, instr.shape.dims)
    return HloInstruction(opcode, result, params, attrs, name=instr.name)


def _dot_offset(lhs: Array, rhs: Array, attrs: Attrs, lhs_zp: int, rhs_zp: int) -> Array | None:
    """The zero-point offset of an integer dot_general, broadcastable to the result
    ``[batch..., lhs free..., rhs free...]``; None when both zero points are 0."""
    lb, lc = list(attrs.lhs_batch_dims), list(attrs.lhs_contracting_dims)
    rb, rc = list(attrs.rhs_batch_dims), list(attrs.rhs_contracting_dims)
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    offset: Array | None = None
    if rhs_zp:
        kept = [d for d in range(lhs.ndim) if d not in lc]
        sums = _wrap32(lhs.astype(np.int64).sum(axis=tuple(lc)))
        sums = sums.transpose([kept.index(d) for d in (*lb, *lf)])
        offset = _wrap32(sums.reshape(*sums.shape, *([1] * len(rf))) * rhs_zp)
    if lhs_zp:
        kept = [d for d in range(rhs.ndim) if d not in rc]
        sums = _wrap32(rhs.astype(np.int64).sum(axis=tuple(rc)))
        sums = sums.transpose([kept.index(d) for d in (*rb, *rf)])
        batch = sums.shape[: len(rb)]
        part = _wrap32(sums.reshape(*batch, *([1] * len(lf)), *sums.shape[len(rb) :]) * lhs_zp)
        offset = part if offset is None else _wrap32(offset + part)
    if lhs_zp and rhs_zp:
        size = math.prod(rhs.shape[d] for d in rc)
        offset = _wrap32(np.asarray(offset) - _wrap32(np.asarray(lhs_zp * rhs_zp * size)))
    return offset


@evaluates_quantized(Opcode.DOT)
def dot(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """dot_general on quantized operands (module docstring: integer, hybrid or
    dequantize_op_quantize form)."""
    lq, rq, q = (quantized_type(s) for s in (*(o.shape for o in instr.operands), instr.shape))
    lhs, rhs = (np.asarray(v) for v in operands)
    if lq is not None and rq is not None and q is not None and integer_form(lq, rq, q):
        kernel = _storage_instruction(instr, Opcode.DOT, [lhs, rhs], [lq, rq], instr.attrs)
        raw = np.asarray(EVALUATORS[Opcode.DOT](ctx, kernel, [lhs, rhs]))
        rhs_zp = rq.zero_points[0] if rq.is_per_tensor else 0
        offset = _dot_offset(lhs, rhs, instr.attrs, lq.zero_points[0], rhs_zp)
        return finish(raw, offset, lq, rq, q)
    floats = [np.asarray(v) for v in dequantize_operands(instr, operands)]
    dtype = (q.expressed if q is not None else instr.shape.element_type).numpy
    result = sequential_dot(floats[0], floats[1], instr.attrs, dtype)
    return result if q is None else quantize(result, q)


# ---- convolution ------------------------------------------------------------------------------

_INTEGER_LAYOUTS = (
    # (lhs b, f, spatial), (kernel i, o, spatial), (output b, f, spatial): NHWC, NCHW, NDHWC and
    # NCDHW as the reference's integer lowering recognises them.
    ((0, 3, (1, 2)), (2, 3, (0, 1)), (0, 3, (1, 2))),
    ((0, 1, (2, 3)), (1, 0, (2, 3)), (0, 1, (2, 3))),
    ((0, 4, (1, 2, 3)), (3, 4, (0, 1, 2)), (0, 4, (1, 2, 3))),
    ((0, 1, (2, 3, 4)), (0, 1, (2, 3, 4)), (0, 1, (2, 3, 4))),
)


def _layout(d: ConvolutionDimensionNumbers) -> tuple[object, ...]:
    return (
        (d.input_batch_dimension, d.input_feature_dimension, tuple(d.input_spatial_dimensions)),
        (d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
         tuple(d.kernel_spatial_dimensions)),
        (d.output_batch_dimension, d.output_feature_dimension,
         tuple(d.output_spatial_dimensions)),
    )  # fmt: skip


def conv_integer_form(
    lq: QuantizedType, rq: QuantizedType, q: QuantizedType, window: Window,
    dnums: ConvolutionDimensionNumbers, rhs_rank: int,
) -> bool:  # fmt: skip
    """Whether a quantized convolution takes the integer form: ``integer_form``, zero rhs (and
    per-axis result) zero points, a per-axis rhs quantized along its last dimension with result
    scales proportional to its own, no lhs dilation, and one of the four layouts."""
    if not integer_form(lq, rq, q):
        return False
    if rq.is_per_tensor:
        if rq.zero_points[0]:
            return False
    else:
        if any(rq.zero_points) or any(q.zero_points):
            return False
        if rq.quantization_dimension != rhs_rank - 1:
            return False
        ratios = [a / b for a, b in zip(q.scales, rq.scales, strict=False)]
        if any(abs((r - ratios[0]) / ratios[0]) > 0.001 for r in ratios):
            return False
    if any(d.base_dilation != 1 for d in window.dimensions):
        return False
    return _layout(dnums) in _INTEGER_LAYOUTS


def _pad_with(x: Array, value: int, window: Window, dnums: ConvolutionDimensionNumbers) -> Array:
    """``x`` padded (or cropped, for negative padding) by the window's padding with ``value``."""
    pads = [(0, 0)] * x.ndim
    crops = [slice(None)] * x.ndim
    for axis, d in zip(dnums.input_spatial_dimensions, window.dimensions, strict=True):
        pads[axis] = (max(d.padding_low, 0), max(d.padding_high, 0))
    padded = np.pad(x, pads, constant_values=value)
    for axis, d in zip(dnums.input_spatial_dimensions, window.dimensions, strict=True):
        crops[axis] = slice(max(-d.padding_low, 0), padded.shape[axis] - max(-d.padding_high, 0))
    return padded[tuple(crops)]


def _convolve(
    ctx: Evaluator, instr: HloInstruction, operands: list[Array], window: Window
) -> Value:
    """convolution of ``operands`` (lhs, rhs and, for dynamic_conv, the padding) with
    ``window``, in the form the types select."""
    lhs, rhs = operands[:2]
    attrs = instr.attrs
    dnums: ConvolutionDimensionNumbers = attrs.dim_labels
    window = full_window(window, rhs, dnums)
    lq, rq, q = (quantized_type(s) for s in (*(o.shape for o in instr.operands[:2]), instr.shape))
    if (
        lq is not None
        and rq is not None
        and q is not None
        and conv_integer_form(lq, rq, q, window, dnums, rhs.ndim)
    ):
        padded = _pad_with(lhs, lq.zero_points[0], window, dnums)
        unpadded = Window(
            tuple(replace(d, padding_low=0, padding_high=0) for d in window.dimensions)
        )
        kernel_attrs = instr.attrs.replace(window=unpadded)
        kernel = _storage_instruction(
            instr, Opcode.CONVOLUTION, [padded, rhs], [lq, rq], kernel_attrs
        )
        raw = np.asarray(EVALUATORS[Opcode.CONVOLUTION](ctx, kernel, [padded, rhs]))
        offset = None
        if lq.zero_points[0]:
            reduced = (*dnums.kernel_spatial_dimensions, dnums.kernel_input_feature_dimension)
            sums = _wrap32(rhs.astype(np.int64).sum(axis=reduced))
            shape = [1] * raw.ndim
            shape[dnums.output_feature_dimension] = sums.size
            offset = _wrap32(sums.reshape(shape) * lq.zero_points[0])
        return finish(raw, offset, lq, rq, q)
    floats = [np.asarray(v) for v in dequantize_operands(instr, operands)]
    dtype = (q.expressed if q is not None else instr.shape.element_type).numpy
    result = sequential_convolution(
        floats[0], floats[1], window, dnums, int(attrs.feature_group_count),
        int(attrs.batch_group_count), dtype,
    )  # fmt: skip
    if tuple(result.shape) != tuple(instr.shape.dims) and instr.shape.is_static:
        raise InvalidArgument(
            f"{instr.opcode.value} {instr.name}: window={window} dim_labels={dnums} gives "
            f"{list(result.shape)}; got result shape {instr.shape}"
        )
    return result if q is None else quantize(result, q)


@evaluates_quantized(Opcode.CONVOLUTION)
def convolution(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """convolution on quantized operands (module docstring)."""
    return _convolve(ctx, instr, [np.asarray(v) for v in operands], instr.attrs.window)


@evaluates_quantized(Opcode.DYNAMIC_CONV)
def dynamic_conv(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """dynamic_conv on quantized operands: a convolution whose padding is its third operand."""
    check_deferred(instr)
    lhs, rhs, padding = (np.asarray(v) for v in operands)
    dnums: ConvolutionDimensionNumbers = instr.attrs.dim_labels
    window = full_window(instr.attrs.window, rhs, dnums)
    if padding.shape != (len(window.dimensions), 2):
        raise InvalidArgument(
            f"dynamic-conv {instr.name}: padding must have shape [{len(window.dimensions)}, 2]; "
            f"got {list(padding.shape)}"
        )
    window = Window(
        tuple(
            replace(d, padding_low=int(low), padding_high=int(high))
            for d, (low, high) in zip(window.dimensions, padding.tolist(), strict=True)
        )
    )
    return _convolve(ctx, instr, [lhs, rhs, padding], window)
