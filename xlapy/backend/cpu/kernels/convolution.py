"""Compiled ``convolution`` as GEMM: the input laid out channels-last, then the im2col patches
of one block of output positions at a time (about 1 MB, padding and dilation applied as they
are read) multiplied with the kernel by BLAS into the block's rows of the result, one matmul
per feature group; the cores take blocks in turn.

Any dim_labels, strides, padding (negative too), lhs/rhs dilation, window reversal and
feature_group_count; batch_group_count > 1 and dynamic-conv stay on the interpreter.
Accumulation follows the interpreter's contraction rules (``dot``'s precision rules).
"""

from __future__ import annotations

import itertools
import math
import time

import numba
import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.kernels import blas
from xlapy.backend.cpu.kernels.dot import integer_matmul, integer_result
from xlapy.backend.cpu.kernels.flush import flush_f32, flushed_f32
from xlapy.backend.cpu.kernels.windows import tap_tables
from xlapy.interpreter.evals.contraction import (
    accumulator_dtype,
    from_accumulator,
    to_accumulator,
)
from xlapy.interpreter.evals.convolution import conv_output_size
from xlapy.ir.attrs import ConvolutionDimensionNumbers, Window
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

# One block of output positions is multiplied at a time: its im2col patches (about this many
# bytes) stay in the core's cache between being written and read by the GEMM, and the extra
# memory of a call is one block per core (the whole im2col matrix of the conv2d benchmark,
# 32x64x64 positions by 288 values, would be 151 MB).
_BLOCK_BYTES = 1 << 20
# Spatial dimensions are padded with unit ones up to this rank (one compiled im2col).
_SPATIAL = 3


@numba.njit(cache=True, nogil=True)
def _im2col(
    x: Array, patches: Array, first: int, out_sizes: Array, t0: Array, t1: Array, t2: Array
) -> None:
    """Row ``r`` of ``patches`` (``(rows, k0, k1, k2, features)``) is the window of output
    position ``first + r`` (flattened ``(b, o0, o1, o2)`` over ``out_sizes``) in
    channels-last ``x`` (``(b, n0, n1, n2, features)``): tap ``k`` of output ``o`` along
    dimension ``d`` reads input index ``t<d>[o, k]`` (``windows.tap_tables``: negative in
    the padding and in base-dilation holes, which read as zeros)."""
    rows, k0s, k1s, k2s, features = patches.shape
    o0s, o1s, o2s = out_sizes[0], out_sizes[1], out_sizes[2]
    o2 = first % o2s
    o1 = first // o2s % o1s
    o0 = first // (o1s * o2s) % o0s
    b = first // (o0s * o1s * o2s)
    for r in range(rows):
        for k0 in range(k0s):
            i0 = t0[o0, k0]
            for k1 in range(k1s):
                i1 = t1[o1, k1]
                for k2 in range(k2s):
                    i2 = t2[o2, k2]
                    if i0 >= 0 and i1 >= 0 and i2 >= 0:
                        for f in range(features):
                            patches[r, k0, k1, k2, f] = x[b, i0, i1, i2, f]
                    else:
                        for f in range(features):
                            patches[r, k0, k1, k2, f] = 0
        o2 += 1  # the next position, without divisions
        if o2 == o2s:
            o2 = 0
            o1 += 1
            if o1 == o1s:
                o1 = 0
                o0 += 1
                if o0 == o0s:
                    o0 = 0
                    b += 1


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
    taps_of = [np.zeros((1, 1), np.int64) for _ in lead]
    taps_of += tap_tables(in_sizes, window, out_sizes)
    out_sizes_ = np.array([*lead, *out_sizes], np.int64)
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
            if flush and x.dtype == w.dtype == acc == np.float32:
                x, w = flushed_f32(x), flushed_f32(w)
            elif flush or x.dtype != acc or w.dtype != acc:
                x, w = to_accumulator(x, acc, flush), to_accumulator(w, acc, flush)
        if reversed_axes:
            w = np.flip(w, axis=reversed_axes)
        # w: (taps, group_in, fg, group_out) with K ordered (tap, input feature)
        w = np.ascontiguousarray(w).reshape(taps, group_in, fg, group_out)
        covered = bool(positions and batch and out_features and taps and group_in)
        total = np.empty(staged, acc) if covered else np.zeros(staged, acc)
        if covered:
            x = np.ascontiguousarray(x).reshape(batch, *lead, *in_sizes, features)
            flat = total.reshape(batch * positions, fg, group_out)
            block = max(1, _BLOCK_BYTES // (taps * features * x.dtype.itemsize))
            count = -(-(batch * positions) // block)
            blocks = itertools.count()  # shared by the tasks: next() is atomic under the GIL

            def task() -> None:
                patches = np.empty((block, *lead, *kernel_sizes, features), x.dtype)
                while (k := next(blocks)) < count:
                    start = k * block
                    stop = min(batch * positions, start + block)
                    rows = patches[: stop - start]
                    _im2col(x, rows, start, out_sizes_, *taps_of)
                    grouped = rows.reshape(-1, taps, fg, group_in)
                    out = flat[start:stop]
                    for g in range(fg):
                        left = grouped[:, :, g, :].reshape(-1, taps * group_in)
                        right = w[:, :, g, :].reshape(taps * group_in, group_out)
                        if exact:
                            out[:, g, :] = integer_matmul(left, right)
                        elif fg == 1:
                            np.matmul(left, right, out=out[:, 0, :])
                        else:
                            out[:, g, :] = left @ right

            blas.run_parallel([task] * min(blas.workers(), count))
        result = np.ascontiguousarray(total.transpose(to_result))
        if exact:
            return integer_result(result, result_type)
        if result.dtype == result_type.numpy and not flush:
            return result
        if flush and result.dtype == result_type.numpy == np.float32:
            flush_f32(result.reshape(-1))  # the result is ours: flushed where it is
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
    table = np.zeros((1, 1), np.int64)
    ones = np.ones(_SPATIAL, np.int64)
    _im2col(np.zeros((1,) * 5, sample), np.zeros((1,) * 5, sample), 0, ones, table, table, table)
    compile_seconds = time.perf_counter() - started
    how = (
        f"numba im2col + BLAS GEMM in blocks of output positions over the cores, {taps} tap(s), "
        f"{fg} group(s)"
    )
    return Kernel(run=run, how=how, compile_seconds=compile_seconds, exact=exact, views=())
