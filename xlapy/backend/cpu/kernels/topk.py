"""Compiled ``topk``: per row, a numba selection of the k best (a sorted buffer, or the radix
argsort when k is large); on the quick tier (no numba) a numpy selection of the same keys.
Both give the unique order of (key, index) pairs, so the same bits as the interpreter.

Importing this imports neither numba (until the compiled tier builds a kernel) nor the
interpreter's evals: a quick plan of a program with a ``topk`` imports only what it runs.
"""

from __future__ import annotations

import math
import time

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    generating,
    kernel_for,
)
from xlapy.backend.cpu.kernels.sort_keys import (
    SIGNED,
    TOTAL_ORDER,
    UNSIGNED,
    argsort_numpy,
    encode_numpy,
    index_pairs,
    pair_indices,
)
from xlapy.dtypes import ElementType
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

# Up to this k, top-k keeps a sorted buffer of the k best per row; above it, a full argsort.
_SELECT_MAX_K = 128


def _smallest_numpy(bits: Array, width: int, mode: int, descending: bool, k: int) -> Array:
    """``radix.select_rows`` in numpy (the quick tier): the indices of the ``k`` smallest
    encoded keys of every row, smallest first, equal keys by lower index. Keys of up to 32
    bits are paired with their index in one 64-bit integer (unique pairs, ordered as (key,
    index)): the rows' few candidates (``_candidates``) or else a partition find the ``k``
    smallest pairs, a sort of those orders them; wider keys take the stable argsort."""
    n = bits.shape[1]
    if width > 32 or n >= 2**32:
        return argsort_numpy(bits, width, mode, descending)[:, :k]
    keys = encode_numpy(bits, width, mode, descending)
    best = _candidates(keys, k)
    if best is None:
        pairs = index_pairs(keys)
        best = np.partition(pairs, k - 1, axis=1)[:, :k] if k < n else pairs
    best.sort(axis=1)
    return pair_indices(best[:, :k])


# The candidates of ``_candidates`` are used when they are at most this fraction of the keys.
_FEW_CANDIDATES = 1 / 8


def _candidates(keys: Array, k: int) -> Array | None:
    """The (key, index) pairs (``index_pairs``) of every row that can be among its ``k``
    smallest, padded to one length with pairs above any real one; None when they are not
    few (``_FEW_CANDIDATES``: e.g. sorted rows or many ties, which a partition handles).

    Each row splits into ``k`` blocks; their minima are ``k`` distinct keys no larger than
    the greatest of them, so the ``k`` smallest keys are all at most that bound: the keys up
    to it are the candidates (on random rows of 4096 with k=16, about 56 a row)."""
    rows, n = keys.shape
    block = n // k
    if block < 2:
        return None
    bound = keys[:, : k * block].reshape(rows, k, block).min(axis=2).max(axis=1)
    flat = np.flatnonzero(keys <= bound[:, None])
    if flat.size > rows * n * _FEW_CANDIDATES:
        return None
    row, index = np.divmod(flat, n)
    counts = np.bincount(row, minlength=rows)
    firsts = np.cumsum(counts) - counts
    # Indices are below 2**32 - 1: no real pair has every bit set.
    padded = np.full((rows, int(counts.max())), np.iinfo(np.uint64).max, np.uint64)
    pairs = keys.reshape(-1)[flat].astype(np.uint64)
    pairs <<= np.uint64(32)
    pairs |= index.astype(np.uint64)
    padded[row, np.arange(flat.size) - firsts[row]] = pairs
    return padded


def _topk_bits(line: Array, t: ElementType) -> tuple[Array, int, int]:
    """``(raw bits, width, encoding)`` of ``line`` in the order ``topk`` ranks it: floats in
    total order (-NaN < -Inf < ... < -0 < +0 < ... < +NaN), integers by value, pred as 0/1."""
    size = line.dtype.itemsize
    if t.is_float:
        if t.bits == 8 * size and t is not dtypes.F8E8M0FNU:
            return line.view(f"u{size}"), t.bits, TOTAL_ORDER
        # Imported here: a quick plan of the native float and integer types runs without
        # the interpreter's numerics (~0.3 ms to import in a fresh process).
        from xlapy.interpreter.numerics import total_order_key

        return total_order_key(line, t).view(np.uint64), 64, SIGNED
    if t.is_pred:
        return line.view(np.uint8), 8, UNSIGNED
    mode = SIGNED if t.is_signed else UNSIGNED
    if t.bits == 8 * size:
        return line.view(f"u{size}"), t.bits, mode
    return line.astype(np.int64 if t.is_signed else np.uint64).view(np.uint64), 64, mode


@kernel_for(Opcode.TOPK, priority=10)
def topk_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """TopK: per row of the last dimension, the ``k`` largest (or smallest) entries and their
    indices, equal entries by lower index.

    Spec: OPS.md TopK. Bit-identical to the interpreter's eval: both give the unique order of
    (key, index) pairs, keys in total order for floats. Rows are scanned once with a sorted
    buffer of k (up to ``_SELECT_MAX_K``), else argsorted whole (the radix sort above).
    """
    (operand,) = instr.operands
    shape = operand.shape
    if not (shape.is_array and shape.is_static and shape.rank >= 1 and instr.shape.is_tuple):
        raise NoKernel("operand of rank 0, dynamic or non-array")
    t = shape.element_type
    if t.is_complex or (t.numpy is None):
        raise NoKernel(f"{t} operand (the interpreter reports it)")
    k = int(instr.attrs.k)
    n = shape.dims[-1]
    if not 0 <= k <= n:
        raise NoKernel(f"k={k} out of range (the interpreter reports it)")
    largest = bool(instr.attrs.largest)
    index_type = instr.shape.tuple_shapes[1].element_type.numpy
    out_dims = (*shape.dims[:-1], k)
    started = time.perf_counter()
    select, argsort = None, None
    if generating():
        from xlapy.backend.cpu.kernels import radix
        from xlapy.backend.cpu.kernels.typed_args import read_only

        select, argsort = radix.select_rows, radix.stable_argsort
        # typed now for the calls' raw bits (read only: typed_args), so that no call compiles
        probe, width, mode = _topk_bits(np.zeros((1, 2), t.numpy), t)
        if k > _SELECT_MAX_K and math.prod(shape.dims[:-1]):
            radix.type_calls(probe.dtype, math.prod(shape.dims[:-1]))
        select(read_only(probe), width, mode, largest, 1, np.empty((1, 1), np.int64))
    compile_seconds = time.perf_counter() - started

    def run(operands: list[Value], ctx: RunContext) -> Value:
        line = np.ascontiguousarray(operands[0]).reshape(-1, n)
        if k == 0 or line.shape[0] == 0:
            order = np.zeros((line.shape[0], k), np.int64)
        else:
            bits, width, mode = _topk_bits(line, t)
            if argsort is None:  # the quick tier
                order = _smallest_numpy(bits, width, mode, largest, k)
            elif select is not None and k <= _SELECT_MAX_K:
                order = np.empty((line.shape[0], k), np.int64)
                select(read_only(bits), width, mode, largest, k, order)
            else:
                order = argsort(bits, width, mode, largest)[:, :k]
        values = np.take_along_axis(line, order, axis=1).reshape(out_dims)
        return (values, order.astype(index_type).reshape(out_dims))

    how = (
        "numpy selection of (key, index) pairs (a row's few candidates, or a partition), or "
        "stable argsort, first k (quick tier)"
        if argsort is None
        else f"numba top-{k} selection (a sorted buffer per row)"
        if k <= _SELECT_MAX_K
        else "numba stable radix argsort, first k"
    )
    return Kernel(run=run, how=how, compile_seconds=compile_seconds, exact=True, views=())
