"""Compiled ``dot`` (dot_general): BLAS through numpy's matmul on transposed/reshaped views.

Precision rules as the interpreter's contraction eval (OPS.md A.10, spec/conformance): real
floats accumulate in f32 (f64 when the result or an operand is f64; bf16/f16/f8 operands are
widened exactly to f32 and the result rounded once); complex numbers in c64/c128; integers
wrap in the result type. Ragged-dot and scaled-dot stay on the interpreter.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    kernel_for,
    require_generation,
)
from xlapy.backend.cpu.kernels import blas
from xlapy.dtypes import ElementType
from xlapy.interpreter.evals.contraction import (
    accumulator_dtype,
    from_accumulator,
    to_accumulator,
    wrap_integer,
)
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

# Integer sums whose every partial sum stays below 2**53 in magnitude are exact in f64, in any
# summation order, so dgemm computes them exactly.
_F64_EXACT = float(2**53)


def _free_dims(rank: int, batch: Sequence[int], contract: Sequence[int]) -> list[int]:
    return [d for d in range(rank) if d not in batch and d not in contract]


def _as_bmk(x: Array, batch: Sequence[int], free: Sequence[int], contract: Sequence[int]) -> Array:
    """``x`` as ``[b, m, k]`` (a view when the layout allows, else a copy)."""
    b = math.prod(x.shape[d] for d in batch)
    m = math.prod(x.shape[d] for d in free)
    k = math.prod(x.shape[d] for d in contract)
    return x.transpose([*batch, *free, *contract]).reshape(b, m, k)


def _row_major_stack(dims: Sequence[int], groups: Sequence[Sequence[int]]) -> bool:
    """Whether the ``(batch, rows, columns)`` axis groups of a row-major array of ``dims``,
    each merged into one axis, are a view that is a stack of row-major matrices (numpy merges
    axes without a copy when each one's stride is the next one's stride times its size)."""
    strides, step = [0] * len(dims), 1
    for d in reversed(range(len(dims))):
        strides[d] = step
        step *= max(int(dims[d]), 1)
    merged: list[int | None] = []
    for group in groups:
        axes = [a for a in group if dims[a] != 1]
        if any(strides[a] != strides[b] * dims[b] for a, b in itertools.pairwise(axes)):
            return False
        merged.append(strides[axes[-1]] if axes else None)  # None: the merged axis has size 1
    _, rows, columns = merged
    return columns in (None, 1) and (rows is None or rows == math.prod(dims[a] for a in groups[2]))


def _arrangement(
    dims: Sequence[int],
    batch: Sequence[int],
    free: Sequence[int],
    contract: Sequence[int],
    left: bool,
) -> tuple[tuple[int, ...], tuple[int, int, int], bool]:
    """How an operand of ``dims`` becomes the matrix stack BLAS takes, ``[b, m, k]`` on the
    left, ``[b, k, n]`` on the right: a permutation of its axes, the stack's shape, and
    whether the stack is then used with its last two axes swapped.

    The wanted order when it is a view; else, when the swapped order is a view, that one
    swapped (BLAS reads the matrices transposed), on the right only for a single matrix;
    else a copy in the wanted order: numpy's stacked matmul takes 1.6x the time for ``[b, m,
    k] @ [b, n, k]^T`` than for ``[b, m, k] @ [b, k, n]`` (32 attention heads of 64x32 @
    32x64: 129 vs 79 us), whereas ``[b, k, m]^T`` on the left costs nothing.
    """
    b, f, k = (math.prod(dims[d] for d in group) for group in (batch, free, contract))
    free_first = ((batch, free, contract), (b, f, k))
    contract_first = ((batch, contract, free), (b, k, f))
    wanted, swapped = (free_first, contract_first) if left else (contract_first, free_first)
    choice, swap = wanted, False
    if not _row_major_stack(dims, wanted[0]) and _row_major_stack(dims, swapped[0]):
        choice, swap = (swapped, True) if left or b == 1 else (wanted, False)
    groups, shape = choice
    return (*groups[0], *groups[1], *groups[2]), shape, swap


def integer_matmul(left: Array, right: Array) -> Array:
    """``left @ right`` (``[..., m, k] @ [..., k, n]``) for integer/pred operands as int64
    modulo 2**64.

    Exact by either route: dgemm when every partial sum is below 2**53 (checked on the
    operands' actual ranges), else int64 matmul, which wraps modulo 2**64 and so agrees with
    any narrower result type's wrap-around.
    """
    k = left.shape[-1]

    def bound(x: Array) -> float:
        if x.size == 0:
            return 0.0
        return float(max(abs(int(x.max())), abs(int(x.min()))))

    if bound(left) * bound(right) * k < _F64_EXACT:
        if left.ndim == 2:
            wide = blas.matmul(left[None].astype(np.float64), right[None].astype(np.float64))[0]
        else:
            wide = blas.matmul(left.astype(np.float64), right.astype(np.float64))
        return wide.astype(np.int64)
    return np.matmul(left.astype(np.int64), right.astype(np.int64))


def integer_result(total: Array, result_type: ElementType) -> Array:
    """An int64 total (modulo 2**64) wrapped to the integer result type (pred: nonzero)."""
    if result_type.is_pred:
        return np.asarray(total != 0)
    return wrap_integer(total.view(np.uint64), result_type)


@kernel_for(Opcode.DOT, priority=10)
def dot_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """``result[batch..., lhs_free..., rhs_free...] = sum_k lhs * rhs`` as one (batched)
    matmul: operands viewed as ``[b, m, k]`` and ``[b, k, n]``.

    Spec: OPS.md DotGeneral. Integers and pred are exact (bit-identical to the interpreter);
    floats and complex numbers go through BLAS, whose summation order is its own.
    """
    lhs_shape, rhs_shape = (o.shape for o in instr.operands)
    if not (lhs_shape.is_array and rhs_shape.is_array and instr.shape.is_array):
        raise NoKernel("dot of non-array operands")
    if not (lhs_shape.is_static and rhs_shape.is_static):
        raise NoKernel("dynamic dimensions")
    a = instr.attrs
    lb, lc = tuple(a.lhs_batch_dims), tuple(a.lhs_contracting_dims)
    rb, rc = tuple(a.rhs_batch_dims), tuple(a.rhs_contracting_dims)
    lf = _free_dims(lhs_shape.rank, lb, lc)
    rf = _free_dims(rhs_shape.rank, rb, rc)
    result_type = instr.shape.element_type
    out_dims = tuple(instr.shape.dims)
    types = (lhs_shape.element_type, rhs_shape.element_type)
    if any(t.is_complex for t in types) and not result_type.is_complex:
        raise NoKernel("complex operands with a real result (the interpreter reports it)")
    exact = result_type.is_integer or result_type.is_pred
    if exact and not all(t.is_integer or t.is_pred for t in types):
        raise NoKernel(f"{types[0]} x {types[1]} -> {result_type}")
    flush = options.flush_denormals

    if exact:

        def run(operands: list[Value], ctx: RunContext) -> Value:
            lhs, rhs = (np.asarray(v) for v in operands)
            left = _as_bmk(lhs, lb, lf, lc)
            right = _as_bmk(rhs, rb, rf, rc).transpose(0, 2, 1)
            return integer_result(integer_matmul(left, right), result_type).reshape(out_dims)

        how = "matmul, exact integers (f64 BLAS when it cannot round, else int64)"
        return Kernel(run=run, how=how, exact=True, views=())

    native = result_type in (dtypes.F32, dtypes.F64, dtypes.C64, dtypes.C128) and all(
        t is result_type for t in types
    )
    # Flushing touches f32 operands and results only (the interpreter's contraction rules).
    flush_f32 = flush and result_type is dtypes.F32
    if flush_f32 and native:  # numba passes: the quick tier leaves them to the interpreter
        require_generation(f"dot {instr.name}: f32 subnormals flushed by numba")
        from xlapy.backend.cpu.kernels.flush import flush_f32 as flush_result
        from xlapy.backend.cpu.kernels.flush import flushed_f32 as flushed
    if native:
        # Static shapes: the [b, m, k] and [b, k, n] stacks are planned once.
        lperm, lview, lswap = _arrangement(lhs_shape.dims, lb, lf, lc, left=True)
        rperm, rview, rswap = _arrangement(rhs_shape.dims, rb, rf, rc, left=False)
        lsame, rsame = lperm == tuple(range(len(lperm))), rperm == tuple(range(len(rperm)))
        # A right stack in neither order: reshape may still merge it into a view whose
        # matrices are column-major, which numpy's stacked matmul runs 1.4x slower than a
        # copy in the wanted order and the product ([32,32,64] @ [32,64,64]^T of the GPT's
        # attention gradient: 0.18 ms as such a view, 0.12-0.135 ms copied first).
        rcopy = not rswap and not _row_major_stack(rhs_shape.dims, (rb, rc, rf))
        matmul = blas.matmul

        def run_native(operands: list[Value], ctx: RunContext) -> Value:
            lhs, rhs = operands
            if flush_f32:  # flushed copies, then the same views
                lhs, rhs = flushed(lhs), flushed(rhs)  # type: ignore[arg-type]
            left = (lhs if lsame else lhs.transpose(lperm)).reshape(lview)  # type: ignore[union-attr]
            right = (rhs if rsame else rhs.transpose(rperm)).reshape(rview)  # type: ignore[union-attr]
            if rcopy:
                right = np.ascontiguousarray(right)
            product = matmul(
                left.transpose(0, 2, 1) if lswap else left,
                right.transpose(0, 2, 1) if rswap else right,
            )
            if flush_f32:
                flush_result(product.reshape(-1))  # a fresh array: flushed where it is
            return product.reshape(out_dims)

    def run_float(operands: list[Value], ctx: RunContext) -> Value:
        lhs, rhs = (np.asarray(v) for v in operands)
        acc = accumulator_dtype(result_type, lhs, rhs)
        left, right = to_accumulator(lhs, acc, flush), to_accumulator(rhs, acc, flush)
        product = blas.matmul(
            _as_bmk(left, lb, lf, lc), _as_bmk(right, rb, rf, rc).transpose(0, 2, 1)
        )
        return from_accumulator(product.reshape(out_dims), result_type, flush)

    routine = "cgemm/zgemm" if result_type.is_complex else "sgemm/dgemm"
    how = f"BLAS {routine} via numpy matmul, single-threaded BLAS in row blocks over the cores"
    chosen = run_native if native else run_float
    return Kernel(run=chosen, how=how, exact=False, views=())
