"""Compiled ``convolution`` as GEMM: the input laid out channels-last, then the im2col patches
of one block of output positions at a time (about 1 MB, padding and dilation applied as they
are read) multiplied with the kernel by BLAS into the block's rows of the result, one matmul
per feature group; the cores take blocks in turn. Long rows (a weight gradient, whose window
is the whole image) keep blocks of at least ``_MIN_ROWS`` positions and take the taps in
slices, accumulating. A base-dilated input (the input gradient of a strided convolution) is
split into classes of output positions that see the same taps, so that no product reads a
dilation hole (3/4 of a 2x2-dilated im2col would be zeros).

A convolution with more window taps than output positions (a weight gradient: the window is
the image, the output the kernel's taps) runs *swapped* (``_gemm_conv_swapped``): the roles
of output positions and taps, and of batch and input features, exchanged, so that the
contraction over the images runs in blocks whose products are summed in block order. Its
operands are then used in their own layouts (a weight gradient's ``f01b`` images and
``i01o`` output gradients need no transposed copy: 1 ms each for 2 MB) and each block is
one GEMM (``[taps x batch, rows] @ [rows, out features]``), where the direct form re-packed
the kernel matrix per block and slice.

Any dim_labels, strides, padding (negative too), lhs/rhs dilation, window reversal and
feature_group_count; batch_group_count > 1 and dynamic-conv stay on the interpreter.
Accumulation follows the interpreter's contraction rules (``dot``'s precision rules).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    generating,
    kernel_for,
    require_generation,
)
from xlapy.backend.cpu.kernels import blas
from xlapy.backend.cpu.kernels.dot import integer_matmul, integer_result
from xlapy.backend.cpu.kernels.window_taps import tap_tables
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
# A block has at least this many output positions (when there are as many), even when their
# patches exceed _BLOCK_BYTES: then the taps are taken in slices of about _BLOCK_BYTES. A
# weight gradient of a 3x3 conv over 16x32x32x16 has 288 positions of 16384 values: 16-row
# blocks re-packed the 2 MB kernel matrix for every block (4x XLA's time).
_MIN_ROWS = 256
# A swapped convolution's GEMM has ``batch x positions`` rows: with fewer than this, BLAS runs
# it slowly (weight gradients of a 3x3 conv over 3 channels, 27 rows: 1.6 ms swapped, 0.7 ms
# not; of a 1x1 conv over 32 channels, 32 rows: 0.35 ms swapped, 1.5 ms not; of a 3x3 conv
# over 32 channels, 288 rows: 6.0 ms swapped, 6.7 ms not).
_MIN_SWAPPED_WIDTH = 32
# A swapped convolution sums its blocks' products in this many lanes (fixed, so the bits do
# not depend on the cores; each lane holds one partial result).
_LANES = 4


def _im2col_numpy(
    x: Array, patches: Array, first: int, out_sizes: Array, t0: Array, t1: Array, t2: Array
) -> None:
    """``im2col.im2col`` in numpy (the quick tier: nothing to compile), the same values."""
    rows = patches.shape[0]
    s0, s1, s2 = (int(n) for n in out_sizes)
    position = np.arange(first, first + rows)
    b, o0, o1, o2 = (
        position // (s0 * s1 * s2),
        position // (s1 * s2) % s0,
        position // s2 % s1,
        position % s2,
    )
    n0, n1, n2, features = x.shape[1:]
    i0, i1, i2 = t0[o0][:, :, None, None], t1[o1][:, None, :, None], t2[o2][:, None, None, :]
    outside = ((i0 < 0) | (i1 < 0) | (i2 < 0)).reshape(-1)
    # One flat row index per (position, tap): a single take into the patches, the padding
    # (read at row 0) zeroed after.
    i0, i1, i2 = np.maximum(i0, 0), np.maximum(i1, 0), np.maximum(i2, 0)
    flat = ((b[:, None, None, None] * n0 + i0) * n1 + i1) * n2 + i2
    out = patches.reshape(-1, features)
    np.take(x.reshape(-1, features), flat.reshape(-1), axis=0, out=out)
    if outside.any():
        out[outside] = 0


@dataclass(frozen=True)
class _Part:
    """The output positions ``outputs`` (per padded spatial dimension, a slice of the result)
    of one class of a base-dilated convolution: their sizes, the window taps that read input
    elements for them (``taps``, per dimension; empty: the outputs are zeros) and the tap
    tables restricted to both (no entry is a dilation hole)."""

    outputs: tuple[slice, ...]
    out_sizes: Array
    taps: tuple[Array, ...]
    tables: tuple[Array, ...]


def _dilation_classes(
    in_sizes: Sequence[int], window: Window, out_sizes: Sequence[int]
) -> list[_Part] | None:
    """The classes of output positions of a base-dilated window (None without base
    dilation). Along a dimension, tap ``k`` of output ``o`` reads an input element only when
    ``(o*stride + k*window_dilation - padding_low) % base_dilation == 0`` (OPS.md A.9), which
    depends on ``o`` modulo ``period = base_dilation / gcd(stride, base_dilation)``: the
    outputs ``c::period`` share their taps. A class is the product of one per dimension."""
    if all(d.base_dilation == 1 for d in window.dimensions):
        return None
    lead = _SPATIAL - len(out_sizes)
    unit = (slice(None), 1, np.zeros(1, np.int64), np.zeros((1, 1), np.int64))
    per_dim: list[list[tuple[slice, int, Array, Array]]] = [[unit] for _ in range(lead)]
    tables = tap_tables(in_sizes, window, out_sizes)
    for d, table, count in zip(window.dimensions, tables, out_sizes, strict=True):
        period = d.base_dilation // math.gcd(d.stride, d.base_dilation)
        classes = []
        for c in range(min(period, count)):
            q = c * d.stride + np.arange(d.size) * d.window_dilation - d.padding_low
            taps = np.flatnonzero(q % d.base_dilation == 0)
            rows = table[c::period]
            classes.append(
                (slice(c, None, period), len(rows), taps, np.ascontiguousarray(rows[:, taps]))
            )
        per_dim.append(classes)
    return [
        _Part(
            tuple(c[0] for c in combo),
            np.array([c[1] for c in combo], np.int64),
            tuple(c[2] for c in combo),
            tuple(c[3] for c in combo),
        )
        for combo in itertools.product(*per_dim)
    ]


def _gemm_conv(
    x: Array,
    w: Array,
    tables: Sequence[Array],
    out_sizes: Array,
    dest: Array,
    exact: bool,
    im2col: Callable[..., None],
) -> None:
    """``dest[(b, o...), g, :]`` = the im2col patches of the channels-last ``x``
    (``(batch, n0, n1, n2, features)``) at the outputs of ``out_sizes`` times the kernel ``w``
    (``(k0, k1, k2, group_in, groups, group_out)``), tap ``k`` of output ``o`` along dimension
    ``d`` reading ``x`` at ``tables[d][o, k]``; blocks of positions on the cores in turn,
    each block's taps in slices along the first dimension with more than one tap when its
    patches would exceed ``_BLOCK_BYTES`` (products accumulated in ``dest``); ``im2col``
    builds the patches (``im2col.im2col`` or ``_im2col_numpy``)."""
    kshape = w.shape[:_SPATIAL]
    group_in, fg, group_out = w.shape[_SPATIAL:]
    positions = dest.shape[0]
    row_bytes = math.prod(kshape) * x.shape[-1] * x.dtype.itemsize
    block = max(1, _BLOCK_BYTES // row_bytes)
    if block < _MIN_ROWS:
        block = min(positions, _MIN_ROWS)
        block = -(-positions // -(-positions // block))  # equal blocks
    count = -(-positions // block)
    axis = next((a for a, k in enumerate(kshape) if k > 1), 0)
    per_tap = max(1, block * row_bytes // kshape[axis])
    step = max(1, min(kshape[axis], _BLOCK_BYTES // per_tap))
    slices = []
    for lo in range(0, kshape[axis], step):
        hi = min(lo + step, kshape[axis])
        part = [*tables]
        part[axis] = np.ascontiguousarray(tables[axis][:, lo:hi])
        shape = [*kshape]
        shape[axis] = hi - lo
        # w is C-contiguous and every axis before ``axis`` has one tap: a view
        weights = w[(slice(None),) * axis + (slice(lo, hi),)]
        slices.append((shape, math.prod(shape), part, weights.reshape(-1, group_in, fg, group_out)))
    blocks = itertools.count()  # shared by the tasks: next() is atomic under the GIL

    def task() -> None:
        buffer = np.empty(block * max(n for _, n, _, _ in slices) * x.shape[-1], x.dtype)
        while (k := next(blocks)) < count:
            start = k * block
            stop = min(positions, start + block)
            out = dest[start:stop]
            for first, (shape, taps, part, weights) in enumerate(slices):
                rows = buffer[: (stop - start) * taps * x.shape[-1]]
                rows = rows.reshape(stop - start, *shape, x.shape[-1])
                im2col(x, rows, start, out_sizes, *part)
                grouped = rows.reshape(-1, taps, fg, group_in)
                for g in range(fg):
                    left = grouped[:, :, g, :].reshape(-1, taps * group_in)
                    right = weights[:, :, g, :].reshape(taps * group_in, group_out)
                    if exact:
                        product = integer_matmul(left, right)
                    elif first == 0 and fg == 1:
                        np.matmul(left, right, out=out[:, 0, :])
                        continue
                    else:
                        product = left @ right
                    if first == 0:
                        out[:, g, :] = product
                    else:
                        out[:, g, :] += product

    blas.run_parallel([task] * min(blas.workers(), count))


def _gemm_conv_swapped(
    xs: Array,
    ws: Array,
    tables: Sequence[Array],
    window_sizes: Array,
    dest: Array,
    im2col: Callable[..., None],
) -> None:
    """``dest[(o..., b), :]`` = the convolution of ``_gemm_conv`` with output positions and
    taps exchanged: ``xs`` is the input with batch and features exchanged (``(features, n0,
    n1, n2, batch)``), ``ws`` the kernel as ``(features, k0, k1, k2, out features)`` and
    ``tables[d][k, o]`` the transposed tap tables. Row ``(f, k...)`` of the swapped im2col
    holds ``x[b, t(o, k), f]`` for every ``(o..., b)``. The rows are cut in blocks and the
    blocks dealt to ``_LANES`` lanes in turn (block ``k`` to lane ``k % _LANES``); the cores
    take whole lanes, a lane sums its blocks' products ``patches^T @ ws[rows]`` in block order,
    and the lanes are summed in lane order: the same bits on any number of cores, whichever
    core took which lane, with at most ``_LANES`` partial results in memory."""
    rows_total = math.prod(ws.shape[:-1])
    width = dest.shape[0]  # (o..., b)
    out_shape = tuple(int(t.shape[1]) for t in tables)  # (o0, o1, o2)
    block = max(_MIN_ROWS, _BLOCK_BYTES // max(1, width * xs.dtype.itemsize))
    block = min(rows_total, block)
    count = -(-rows_total // block)
    block = -(-rows_total // count)  # equal blocks
    lanes = min(_LANES, count)
    w_rows = ws.reshape(rows_total, -1)
    partial = np.empty((lanes, *dest.shape), dest.dtype)
    next_lane = itertools.count()  # shared by the tasks: next() is atomic under the GIL

    def task() -> None:
        buffer = np.empty(block * width, xs.dtype)
        product = np.empty(dest.shape, dest.dtype) if count > lanes else None
        while (lane := next(next_lane)) < lanes:
            for k in range(lane, count, lanes):
                start = k * block
                stop = min(rows_total, start + block)
                rows = buffer[: (stop - start) * width].reshape(stop - start, *out_shape, -1)
                im2col(xs, rows, start, window_sizes, *tables)
                patches = rows.reshape(stop - start, width).T
                if k == lane:
                    np.matmul(patches, w_rows[start:stop], out=partial[lane])
                else:
                    assert product is not None
                    np.matmul(patches, w_rows[start:stop], out=product)
                    partial[lane] += product

    blas.run_parallel([task] * min(blas.workers(), lanes))
    dest[...] = partial[0]
    for lane in range(1, lanes):
        dest += partial[lane]


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
    classes = _dilation_classes(in_sizes, window, out_sizes)
    # More taps than output positions (a weight gradient): positions and taps exchanged.
    swapped = (
        classes is None
        and fg == 1
        and not exact
        and not flush
        and taps * features > batch * positions >= _MIN_SWAPPED_WIDTH
    )
    swapped_tables = [np.ascontiguousarray(t.T) for t in taps_of] if swapped else []
    window_sizes = np.array([*lead, *kernel_sizes], np.int64)
    x_swap = (spatial + 1, *range(1, spatial + 1), 0)  # (b, n..., f) -> (f, n..., b)
    w_swap = (spatial, *range(spatial), spatial + 1)  # (k..., i, o) -> (i, k..., o)
    if flush:  # numba passes: the quick tier leaves these to the interpreter
        require_generation(f"convolution {instr.name}: f32 subnormals flushed by numba")
        from xlapy.backend.cpu.kernels.flush import flush_f32, flushed_f32
    im2col = _im2col_numpy
    if generating():
        from xlapy.backend.cpu.kernels.im2col import im2col

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
        covered = bool(positions and batch and out_features and taps and group_in)
        if covered and swapped:
            xs = np.ascontiguousarray(x.transpose(x_swap))
            ws = np.ascontiguousarray(w.transpose(w_swap))
            dest = np.empty((positions * batch, out_features), acc)
            _gemm_conv_swapped(
                xs.reshape(features, *lead, *in_sizes, batch),
                ws.reshape(features, *lead, *kernel_sizes, out_features),
                swapped_tables,
                window_sizes,
                dest,
                im2col,
            )
            total = np.moveaxis(dest.reshape(*out_sizes, batch, out_features), spatial, 0)
        else:
            total = np.empty(staged, acc) if covered else np.zeros(staged, acc)
        if covered and not swapped:
            x = np.ascontiguousarray(x).reshape(batch, *lead, *in_sizes, features)
            # w: (k0, k1, k2, group_in, fg, group_out), K ordered (tap, input feature)
            w = np.ascontiguousarray(w).reshape(*lead, *kernel_sizes, group_in, fg, group_out)
            # Skipping a hole skips 0 * w: the same sum unless w has an infinity or a NaN
            if classes is None or not (exact or np.isfinite(w).all()):
                flat = total.reshape(batch * positions, fg, group_out)
                _gemm_conv(x, w, taps_of, out_sizes_, flat, exact, im2col)
            else:
                grid = total.reshape(batch, *out_sizes_, out_features)
                for part in classes:
                    where = (slice(None), *part.outputs)
                    if not all(t.size for t in part.taps):
                        grid[where] = 0
                        continue
                    sub = np.empty((batch, *part.out_sizes, out_features), acc)
                    flat = sub.reshape(-1, fg, group_out)
                    _gemm_conv(
                        x, w[np.ix_(*part.taps)], part.tables, part.out_sizes, flat, exact, im2col
                    )
                    grid[where] = sub
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
    if generating():  # compiled now (or loaded from numba's cache), not on the first call
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
        im2col(np.zeros((1,) * 5, sample), np.zeros((1,) * 5, sample), 0, ones, table, table, table)
    compile_seconds = time.perf_counter() - started
    how = (
        f"{'numba' if generating() else 'numpy'} im2col + BLAS GEMM in blocks of output positions over the cores, {taps} tap(s), "
        f"{fg} group(s){', positions and taps swapped' if swapped else ''}"
    )
    return Kernel(run=run, how=how, compile_seconds=compile_seconds, exact=exact, views=())
