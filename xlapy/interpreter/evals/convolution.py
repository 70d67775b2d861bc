"""Convolution (any dim_labels, strides, low/high padding incl. negative, lhs/rhs dilation,
window reversal, feature and batch groups) and the extension op dynamic-conv.

Spec: OPS.md Conv ("[Derived] general element formula" and group counts), A.9. The dilated,
padded input is gathered with index arrays into one patch per output position and kernel
tap, and contracted with the kernel as one batched matmul per group.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evals.contraction import (
    accumulator_dtype,
    contract,
    flushes,
    from_accumulator,
    to_accumulator,
)
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.attrs import ConvolutionDimensionNumbers, Window, WindowDimension
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value
from xlapy.shape_inference.dot_conv import DEFERRED_ERROR


def _spatial_index(n: int, k: int, out: int, d: WindowDimension) -> tuple[Array, Array]:
    """For one spatial dimension: the lhs index of every (output position, kernel tap) and
    whether it is a real element.

    ``q = o*stride + k*rhs_dilation - padding_low``; the term exists only if
    ``q % lhs_dilation == 0`` and ``0 <= q / lhs_dilation < n`` (OPS.md Conv).
    """
    o = np.arange(out)[:, None]
    taps = np.arange(k)[None, :]
    q = o * d.stride + taps * d.window_dilation - d.padding_low
    dilated = (n - 1) * d.base_dilation + 1 if n else 0
    valid = (q >= 0) & (q < dilated) & (q % d.base_dilation == 0)
    return np.where(valid, q // d.base_dilation, n), valid


def conv_output_size(n: int, d: WindowDimension) -> int:
    dilated = (n - 1) * d.base_dilation + 1 if n else 0
    padded = d.padding_low + dilated + d.padding_high
    effective = (d.size - 1) * d.window_dilation + 1
    return (padded - effective) // d.stride + 1 if padded >= effective else 0


def convolve(
    op: str,
    instr: HloInstruction,
    lhs: Array,
    rhs: Array,
    window: Window,
    dnums: ConvolutionDimensionNumbers,
    feature_group_count: int,
    batch_group_count: int,
) -> Array:
    """The accumulated convolution of accumulator-typed ``lhs`` and ``rhs``, laid out per
    ``dnums``' output labels."""
    spatial = len(dnums.input_spatial_dimensions)
    # Canonical orders: lhs (b, f, spatial...), rhs (o, i, spatial...).
    lhs_c = lhs.transpose(
        [
            dnums.input_batch_dimension,
            dnums.input_feature_dimension,
            *dnums.input_spatial_dimensions,
        ]
    )
    rhs_c = rhs.transpose(
        [
            dnums.kernel_output_feature_dimension,
            dnums.kernel_input_feature_dimension,
            *dnums.kernel_spatial_dimensions,
        ]
    )
    kernel_sizes = rhs_c.shape[2:]
    if not window.dimensions and spatial:
        window = Window.make(kernel_sizes)
    if len(window.dimensions) != spatial or any(
        d.size != k for d, k in zip(window.dimensions, kernel_sizes, strict=True)
    ):
        raise InvalidArgument(
            f"{op} {instr.name}: the window must match the kernel's spatial sizes "
            f"{list(kernel_sizes)}; got window={window}"
        )
    batch, features = lhs_c.shape[:2]
    out_features, kernel_in = rhs_c.shape[:2]
    fg, bg = feature_group_count, batch_group_count
    if fg < 1 or bg < 1 or (fg > 1 and bg > 1):
        raise InvalidArgument(
            f"{op} {instr.name}: feature_group_count and batch_group_count must be >= 1 and "
            f"not both > 1; got {fg} and {bg}"
        )
    if features % fg or kernel_in * fg != features or out_features % (fg * bg) or batch % bg:
        raise InvalidArgument(
            f"{op} {instr.name}: input features ({features}) must equal kernel input features "
            f"({kernel_in}) x feature_group_count ({fg}); output features ({out_features}) must "
            f"be divisible by the group count and input batch ({batch}) by "
            f"batch_group_count ({bg})"
        )
    for d, dim in enumerate(window.dimensions):
        if dim.stride < 1 or dim.base_dilation < 1 or dim.window_dilation < 1:
            raise InvalidArgument(
                f"{op} {instr.name}: strides and dilations must be >= 1; got window={window}"
            )
        if dim.window_reversal:
            rhs_c = np.flip(rhs_c, axis=2 + d)
    out_sizes = [
        conv_output_size(n, d) for n, d in zip(lhs_c.shape[2:], window.dimensions, strict=True)
    ]
    # patches[b, f, o_1..o_n, k_1..k_n] = dilated, padded lhs at o*stride + k*rhs_dilation
    # (zero where the tap lands in padding or a dilation hole: index n is an appended zero).
    index = []
    for d, (n, k, out, dim) in enumerate(
        zip(lhs_c.shape[2:], kernel_sizes, out_sizes, window.dimensions, strict=True)
    ):
        idx, _ = _spatial_index(n, k, out, dim)
        shape = [1] * (2 * spatial)
        shape[d], shape[spatial + d] = out, k
        index.append(idx.reshape(shape))
    padded = np.pad(lhs_c, [(0, 0), (0, 0)] + [(0, 1)] * spatial)
    selection: tuple[slice | Array, ...] = (slice(None), slice(None), *index)
    patches = padded[selection] if spatial else padded
    positions = int(np.prod(out_sizes, dtype=np.int64))
    taps = int(np.prod(kernel_sizes, dtype=np.int64))
    groups = fg * bg
    group_out = out_features // groups
    if bg > 1:
        # Batch groups: lhs batch splits into bg groups paired with output-feature groups.
        patches = patches.reshape(bg, batch // bg, features, positions, taps)
        left = patches.transpose(0, 1, 3, 2, 4).reshape(
            bg, (batch // bg) * positions, features * taps
        )
        out_batch = batch // bg
    else:
        patches = patches.reshape(batch, fg, features // fg, positions, taps)
        left = patches.transpose(1, 0, 3, 2, 4).reshape(
            fg, batch * positions, (features // fg) * taps
        )
        out_batch = batch
    right = rhs_c.reshape(groups, group_out, kernel_in * taps).transpose(0, 2, 1)
    product = contract(left, right)
    # (groups, out_batch * positions, group_out) -> (out_batch, groups * group_out, spatial...)
    result = product.reshape(groups, out_batch, positions, group_out).transpose(1, 0, 3, 2)
    result = result.reshape([out_batch, out_features, *out_sizes])
    order = [
        dnums.output_batch_dimension,
        dnums.output_feature_dimension,
        *dnums.output_spatial_dimensions,
    ]
    return result.transpose(np.argsort(order))


def _evaluate(
    ctx: Evaluator, instr: HloInstruction, lhs: Array, rhs: Array, window: Window, op: str
) -> Array:
    result_type = instr.shape.element_type
    acc = accumulator_dtype(result_type, lhs, rhs)
    flush = flushes(ctx)
    a = instr.attrs
    total = convolve(
        op,
        instr,
        to_accumulator(lhs, acc, flush),
        to_accumulator(rhs, acc, flush),
        window,
        a.dim_labels,
        int(a.feature_group_count),
        int(a.batch_group_count),
    )
    if tuple(total.shape) != tuple(instr.shape.dims) and instr.shape.is_static:
        raise InvalidArgument(
            f"{op} {instr.name}: window={window} dim_labels={a.dim_labels} gives "
            f"{list(total.shape)}; got result shape {instr.shape}"
        )
    return from_accumulator(total, result_type, flush)


@evaluates(Opcode.CONVOLUTION)
def convolution(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Convolution: ``out(b, oz, o) = sum_iz sum_k lhs(b, iz, i) * rhs(oz, iz, k')``.

    Spec: OPS.md Conv, ConvGeneralDilated. Accumulates like dot (integers wrap in the
    result type, floats in float64 rounded once); ``operand_precision`` is ignored.
    """
    lhs, rhs = (np.asarray(v) for v in operands)
    return _evaluate(ctx, instr, lhs, rhs, instr.attrs.window, "convolution")


def check_deferred(instr: HloInstruction) -> None:
    """Raises the window-attribute error the loader deferred to run time (dynamic-conv C2-C9:
    one entry per spatial dimension, checked upstream once the padding is known)."""
    message = instr.frontend_attributes.get(DEFERRED_ERROR)
    if message:
        raise InvalidArgument(f"dynamic-conv {instr.name} [C2]: {message}")


@evaluates(Opcode.DYNAMIC_CONV)
def dynamic_conv(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """dynamic-conv(lhs, rhs, padding): a convolution whose ``[spatial, 2]`` (low, high)
    padding comes from the third operand instead of the window attribute."""
    check_deferred(instr)
    lhs, rhs, padding = (np.asarray(v) for v in operands)
    window: Window = instr.attrs.window
    spatial = len(instr.attrs.dim_labels.input_spatial_dimensions)
    if padding.shape != (spatial, 2):
        raise InvalidArgument(
            f"dynamic-conv {instr.name}: padding must have shape [{spatial}, 2]; "
            f"got {list(padding.shape)}"
        )
    if not window.dimensions and spatial:
        kernel = [rhs.shape[d] for d in instr.attrs.dim_labels.kernel_spatial_dimensions]
        window = Window.make(kernel)
    dims: Sequence[WindowDimension] = window.dimensions
    window = Window(
        tuple(
            WindowDimension(
                d.size,
                d.stride,
                int(low),
                int(high),
                d.window_dilation,
                d.base_dilation,
                d.window_reversal,
            )
            for d, (low, high) in zip(dims, padding.tolist(), strict=True)
        )
    )
    _check_padded_sizes(instr, lhs.shape, window)
    return _evaluate(ctx, instr, lhs, rhs, window, "dynamic-conv")


def _check_padded_sizes(instr: HloInstruction, lhs: Sequence[int], window: Window) -> None:
    """The output spatial sizes the runtime padding gives must be the declared result's
    (checked before the convolution allocates anything)."""
    labels = instr.attrs.dim_labels
    for i, d in enumerate(window.dimensions):
        size = lhs[labels.input_spatial_dimensions[i]]
        padded = max(size - 1, 0) * d.base_dilation + (1 if size else 0) + d.padding_low
        padded += d.padding_high
        extent = (d.size - 1) * d.window_dilation + 1
        got = (padded - extent) // d.stride + 1 if padded >= extent and d.stride > 0 else 0
        out = labels.output_spatial_dimensions[i]
        want = instr.shape.dims[out]
        if not instr.shape.dynamic[out] and got != want:
            raise InvalidArgument(
                f"dynamic-conv {instr.name}: the padding operand gives output spatial dimension "
                f"{out} the size {got}, which the declared result "
                f"{instr.shape.to_hlo(layout=False)} does not allow"
            )
