"""Compiled ``convolution`` as GEMM: the input laid out channels-last, padded and dilated once,
then im2col patches built chunk by chunk (a few MB each) and multiplied with the kernel by
BLAS, one matmul per feature group.

Any dim_labels, strides, padding (negative too), lhs/rhs dilation, window reversal and
feature_group_count; batch_group_count > 1 and dynamic-conv stay on the interpreter.
Accumulation follows the interpreter's contraction rules (``dot``'s precision rules).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numba
import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.kernels import blas
from xlapy.backend.cpu.kernels.dot import integer_matmul, integer_result
from xlapy.interpreter.evals.contraction import (
    accumulator_dtype,
    from_accumulator,
    to_accumulator,
)
from xlapy.interpreter.evals.convolution import conv_output_size
from xlapy.ir.attrs import ConvolutionDimensionNumbers, Window, WindowDimension
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

# Patches of one chunk of images are kept under this many bytes: large enough for efficient
# GEMMs, small enough to bound the extra memory.
_CHUNK_BYTES = 32 << 20
# Spatial dimensions are padded with unit ones up to this rank (one compiled im2col).
_SPATIAL = 3


def _padded(x: Array, window: Sequence[WindowDimension]) -> Array:
    """Channels-last ``x`` (b, spatial..., f) with lhs dilation (zeros between elements) and
    low/high padding applied (negative padding crops)."""
    spatial = x.shape[1:-1]
    dilated = [
        (n - 1) * d.base_dilation + 1 if n else 0 for n, d in zip(spatial, window, strict=True)
    ]
    full = [
        max(d.padding_low, 0) + m + max(d.padding_high, 0)
        for m, d in zip(dilated, window, strict=True)
    ]
    out = np.zeros((x.shape[0], *full, x.shape[-1]), x.dtype)
    target = tuple(
        slice(max(d.padding_low, 0), max(d.padding_low, 0) + m, d.base_dilation)
        for m, d in zip(dilated, window, strict=True)
    )
    out[(slice(None), *target, slice(None))] = x
    crop = tuple(
        slice(-min(d.padding_low, 0), f - (-min(d.padding_high, 0)))
        for f, d in zip(full, window, strict=True)
    )
    return out[(slice(None), *crop, slice(None))]


@numba.njit(cache=True, parallel=True)
def _im2col(padded: Array, patches: Array, first: int, stride: Array, dilation: Array) -> None:
    """``patches[b, o0, o1, o2, k0, k1, k2, f] = padded[first + b, o*stride + k*dilation, f]``
    for three spatial dimensions (rows of output positions in parallel)."""
    rows, n0, n1, n2, k0s, k1s, k2s, features = patches.shape
    for r in numba.prange(rows * n0 * n1):
        b = r // (n0 * n1)
        o0 = r // n1 % n0
        o1 = r % n1
        for o2 in range(n2):
            for k0 in range(k0s):
                i0 = o0 * stride[0] + k0 * dilation[0]
                for k1 in range(k1s):
                    i1 = o1 * stride[1] + k1 * dilation[1]
                    for k2 in range(k2s):
                        i2 = o2 * stride[2] + k2 * dilation[2]
                        for f in range(features):
                            patches[b, o0, o1, o2, k0, k1, k2, f] = padded[first + b, i0, i1, i2, f]


@kernel_for(Opcode.CONVOLUTION, priority=10)
def convolution_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Convolution: ``out[b, o..., of] = sum_{k..., if} lhs[b, o*s + k*d - pad, if] *
    rhs[k..., if, of]`` per feature group (OPS.md Conv), as im2col + GEMM.

    Integers are exact (wrapping); floats go through BLAS in the interpreter's accumulator
    type with a different summation order (within the contraction tolerance).
    """
    lhs_shape, rhs_shape = (o.shape for o in instr.operands)
    if not all(s.is_array and s.is_static for s in (lhs_shape, rhs_shape, instr.shape)):
        raise NoKernel("non-array or dynamic operands")
    a = instr.attrs
    dn: ConvolutionDimensionNumbers = a.dim_labels
    fg, bg = int(a.feature_group_count), int(a.batch_group_count)
    if bg != 1:
        raise NoKernel("batch_group_count > 1")
    spatial = len(dn.input_spatial_dimensions)
    window: Window = a.window
    kernel_sizes = [rhs_shape.dims[d] for d in dn.kernel_spatial_dimensions]
    if not window.dimensions and spatial:
        window = Window.make(kernel_sizes)
    dims = window.dimensions
    if len(dims) != spatial or any(d.size != k for d, k in zip(dims, kernel_sizes, strict=True)):
        raise NoKernel("window disagrees with the kernel (the interpreter reports it)")
    if any(d.stride < 1 or d.base_dilation < 1 or d.window_dilation < 1 for d in dims):
        raise NoKernel("invalid window (the interpreter reports it)")
    features = lhs_shape.dims[dn.input_feature_dimension]
    kernel_in = rhs_shape.dims[dn.kernel_input_feature_dimension]
    out_features = rhs_shape.dims[dn.kernel_output_feature_dimension]
    if fg < 1 or kernel_in * fg != features or out_features % fg:
        raise NoKernel("feature groups disagree (the interpreter reports it)")
    batch = lhs_shape.dims[dn.input_batch_dimension]
    in_sizes = [lhs_shape.dims[d] for d in dn.input_spatial_dimensions]
    out_sizes = [conv_output_size(n, d) for n, d in zip(in_sizes, dims, strict=True)]
    order = [dn.output_batch_dimension, *dn.output_spatial_dimensions, dn.output_feature_dimension]
    staged = [batch, *out_sizes, out_features]
    if [staged[order.index(d)] for d in range(len(order))] != list(instr.shape.dims):
        raise NoKernel("result shape disagrees with the window")
    result_type = instr.shape.element_type
    exact = result_type.is_integer or result_type.is_pred
    types = [lhs_shape.element_type, rhs_shape.element_type]
    if exact and not all(t.is_integer or t.is_pred for t in types):
        raise NoKernel(f"{types[0]} x {types[1]} -> {result_type}")
    if any(t.is_complex for t in types) and not result_type.is_complex:
        raise NoKernel("complex operands with a real result (the interpreter reports it)")
    flush = options.flush_denormals
    lhs_order = [dn.input_batch_dimension, *dn.input_spatial_dimensions, dn.input_feature_dimension]
    rhs_order = [
        *dn.kernel_spatial_dimensions,
        dn.kernel_input_feature_dimension,
        dn.kernel_output_feature_dimension,
    ]
    reversed_axes = tuple(i for i, d in enumerate(dims) if d.window_reversal)
    taps = math.prod(kernel_sizes)
    positions = math.prod(out_sizes)
    group_in, group_out = kernel_in, out_features // fg
    if spatial > _SPATIAL:
        raise NoKernel(f"{spatial} spatial dimensions")
    lead = (1,) * (_SPATIAL - spatial)
    strides = np.array([*lead, *(d.stride for d in dims)], np.int64)
    dilations = np.array([*lead, *(d.window_dilation for d in dims)], np.int64)
    # result dimension r is staged axis to_result[r]
    to_result = [order.index(d) for d in range(len(order))]

    def run(operands: list[Value], ctx: RunContext) -> Value:
        lhs, rhs = (np.asarray(v) for v in operands)
        if exact:
            x = lhs.transpose(lhs_order)
            w = rhs.transpose(rhs_order)
            acc: np.dtype = np.dtype(np.int64)
        else:
            acc = accumulator_dtype(result_type, lhs, rhs)
            x, w = lhs.transpose(lhs_order), rhs.transpose(rhs_order)
            if flush or x.dtype != acc or w.dtype != acc:
                x, w = to_accumulator(x, acc, flush), to_accumulator(w, acc, flush)
        if reversed_axes:
            w = np.flip(w, axis=reversed_axes)
        # w: (taps, group_in, fg, group_out) with K ordered (tap, input feature)
        w = np.ascontiguousarray(w).reshape(taps, group_in, fg, group_out)
        total = np.zeros(staged, acc)
        if positions and batch and out_features and taps and group_in:
            padded = _padded(x, dims)
            padded = padded.reshape(batch, *lead, *padded.shape[1:])
            per_image = positions * taps * features * padded.dtype.itemsize
            rows = max(1, min(_CHUNK_BYTES // max(per_image, 1), -(-batch // blas.workers())))
            patches_shape = (*lead, *out_sizes, *lead, *kernel_sizes, features)

            def chunk_task(start: int) -> Callable[[], None]:
                def task() -> None:
                    stop = min(batch, start + rows)
                    patches = np.empty((stop - start, *patches_shape), padded.dtype)
                    _im2col(padded, patches, start, strides, dilations)
                    grouped = patches.reshape(-1, taps, fg, group_in)
                    chunk = total[start:stop].reshape(-1, fg, group_out)
                    for g in range(fg):
                        left = grouped[:, :, g, :].reshape(-1, taps * group_in)
                        right = w[:, :, g, :].reshape(taps * group_in, group_out)
                        if exact:
                            chunk[:, g, :] = integer_matmul(left, right)
                        elif fg == 1:
                            np.matmul(left, right, out=chunk[:, 0, :])
                        else:
                            chunk[:, g, :] = left @ right

                return task

            blas.run_parallel([chunk_task(start) for start in range(0, batch, rows)])
        result = np.ascontiguousarray(total.transpose(to_result))
        if exact:
            return integer_result(result, result_type)
        if result.dtype == result_type.numpy and not flush:
            return result
        return from_accumulator(result, result_type, flush)

    started = time.perf_counter()
    sample = (
        lhs_shape.element_type.numpy
        if exact
        else accumulator_dtype(
            result_type,
            np.zeros(0, lhs_shape.element_type.numpy),
            np.zeros(0, rhs_shape.element_type.numpy),
        )
    )
    ones = np.ones(_SPATIAL, np.int64)
    _im2col(np.zeros((1,) * 5, sample), np.zeros((1,) * 8, sample), 0, ones, ones)
    compile_seconds = time.perf_counter() - started
    how = f"numba im2col + BLAS GEMM in image chunks over the cores, {taps} tap(s), {fg} group(s)"
    return Kernel(run=run, how=how, compile_seconds=compile_seconds, exact=exact, views=())
