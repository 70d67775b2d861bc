"""Contractions: dot (dot_general with batch/contracting dims), ragged-dot and scaled-dot,
plus the accumulation rules they share with convolution.

Spec: OPS.md Dot, DotGeneral, RaggedDot, ScaledDot, A.10. ``operand_precision`` and
``algorithm`` only ask for more precision than a backend may use and are ignored; the
result element type is the preferred type. Integers accumulate exactly (wrapping); floats
accumulate the way XLA:CPU does (measured on the conformance data, where float64
accumulation rounded once is up to 128 ULPs away from XLA's f32 results): real floats with a
BLAS matmul in f32 (f64 for f64; narrow floats in f32, rounded once), complex numbers as a
sequential sum over the contracting index of complex products in the element precision.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

# ---- accumulation rules (shared with convolution) ------------------------------------------


def accumulator_dtype(result_type: ElementType, *operands: Array) -> np.dtype:
    """The numpy type a contraction with this result type accumulates in.

    Integers and pred: uint64 (wraps modulo 2^64; truncating once to the result width equals
    wrapping after every step). f64: float64. f32, f16, bf16 and f8 results: float32 (XLA:CPU
    accumulates narrow floats in f32 and rounds once), float64 if an operand is f64.
    c64: complex64, c128: complex128.
    """
    if result_type.is_integer or result_type.is_pred:
        return np.dtype(np.uint64)
    wide = any(np.asarray(x).dtype in (np.float64, np.complex128) for x in operands)
    if result_type.is_complex:
        return np.dtype(np.complex64 if result_type is dtypes.C64 and not wide else np.complex128)
    if result_type.is_float:
        return np.dtype(np.float32 if result_type is not dtypes.F64 and not wide else np.float64)
    raise InvalidArgument(f"contractions are not defined for element type {result_type}")


def contract(left: Array, right: Array) -> Array:
    """``left [b, m, k] @ right [b, k, n]`` in the accumulator type.

    Complex: ``sum_k left[..., k] * right[k, ...]`` in index order, one complex product per
    step (XLA:CPU's order); everything else: numpy's matmul (BLAS for floats).
    """
    if left.shape[-1] == 0:
        return np.zeros((*left.shape[:-1], right.shape[-1]), dtype=np.result_type(left, right))
    if left.dtype.kind == "c":
        total = left[:, :, 0, None] * right[:, None, 0, :]
        for k in range(1, left.shape[-1]):  # sequential by XLA:CPU's order
            total = total + left[:, :, k, None] * right[:, None, k, :]
        return np.asarray(total)
    return np.asarray(np.matmul(left, right))


def to_accumulator(x: Array, acc: np.dtype, flush_denormals: bool = False) -> Array:
    """Converts an operand to the accumulator type exactly (ints sign-extended mod 2^64)."""
    x = np.asarray(x)
    kind = dtypes.from_numpy(x.dtype)
    if acc == np.uint64:
        if kind.is_float or kind.is_complex:
            raise Unimplemented(
                f"a contraction of {kind} operands into an integer result is not supported"
            )
        if kind.is_pred or kind.is_unsigned:
            return x.astype(np.uint64)
        return x.astype(np.int64).astype(np.uint64)
    if acc.kind == "f" and kind.is_complex:
        raise InvalidArgument(f"cannot contract {kind} operands into a real result")
    if flush_denormals and kind in (dtypes.F32, dtypes.BF16):
        x = _flush(x.astype(np.float32))
    return x.astype(acc)


def from_accumulator(
    total: Array, result_type: ElementType, flush_denormals: bool = False
) -> Array:
    """Rounds (floats) or wraps (integers) an accumulated value to the result type once."""
    dtype = result_type.numpy
    assert dtype is not None
    total = np.asarray(total)
    if result_type.is_pred:
        return np.asarray(total != 0)
    if result_type.is_integer:
        return wrap_integer(total, result_type)
    if result_type.is_complex:
        return total.astype(dtype)
    if result_type is dtypes.F64:
        return total.astype(dtype)
    as_f32 = total.astype(np.float32)
    if flush_denormals and result_type in (dtypes.F32, dtypes.BF16):
        as_f32 = _flush(as_f32)
    return as_f32.astype(dtype)


def wrap_integer(total: Array, result_type: ElementType) -> Array:
    """uint64 values modulo 2^bits as ``result_type`` (two's complement for signed types)."""
    dtype = result_type.numpy
    assert dtype is not None
    bits = result_type.bits
    if bits >= 8 and dtype.itemsize * 8 == bits:
        return total.astype(np.uint64).astype(dtype)
    low = total.astype(np.uint64) & np.uint64((1 << bits) - 1)
    values = low.astype(np.int64)
    if result_type.is_signed:
        values = np.where(values >= (1 << (bits - 1)), values - (1 << bits), values)
    return values.astype(dtype)


def _flush(x: Array) -> Array:
    """XLA:CPU flushes f32 subnormals to (signed) zero."""
    tiny = np.finfo(np.float32).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.float32(0), x), x).astype(np.float32)


def flushes(ctx: Evaluator) -> bool:
    return bool(ctx.options.flush_denormals)


# ---- dot -----------------------------------------------------------------------------------


def _check_dims(
    op: str,
    instr: HloInstruction,
    side: str,
    rank: int,
    batch: Sequence[int],
    contract: Sequence[int],
) -> list[int]:
    used = [*batch, *contract]
    if len(set(used)) != len(used) or any(not 0 <= d < rank for d in used):
        raise InvalidArgument(
            f"{op} {instr.name}: {side} batch and contracting dimensions must be distinct "
            f"dimensions in [0, {rank}); got batch={list(batch)} contracting={list(contract)}"
        )
    return [d for d in range(rank) if d not in used]


def dot_general(
    op: str,
    instr: HloInstruction,
    lhs: Array,
    rhs: Array,
    lhs_batch: Sequence[int],
    lhs_contract: Sequence[int],
    rhs_batch: Sequence[int],
    rhs_contract: Sequence[int],
) -> Array:
    """The accumulated (not yet rounded) dot_general of two accumulator-typed arrays.

    ``result[batch..., lhs_free..., rhs_free...] =
    sum over contracting indices of lhs[...] * rhs[...]`` (OPS.md DotGeneral).
    """
    lhs_free = _check_dims(op, instr, "lhs", lhs.ndim, lhs_batch, lhs_contract)
    rhs_free = _check_dims(op, instr, "rhs", rhs.ndim, rhs_batch, rhs_contract)
    if len(lhs_batch) != len(rhs_batch) or len(lhs_contract) != len(rhs_contract):
        raise InvalidArgument(
            f"{op} {instr.name}: lhs and rhs must have as many batch and contracting dimensions; "
            f"got lhs_batch_dims={list(lhs_batch)} rhs_batch_dims={list(rhs_batch)} "
            f"lhs_contracting_dims={list(lhs_contract)} rhs_contracting_dims={list(rhs_contract)}"
        )
    for kind, ls, rs in (
        ("batch", lhs_batch, rhs_batch),
        ("contracting", lhs_contract, rhs_contract),
    ):
        for a, b in zip(ls, rs, strict=True):
            if lhs.shape[a] != rhs.shape[b]:
                raise InvalidArgument(
                    f"{op} {instr.name}: {kind} dimensions must have the same size; got "
                    f"lhs dimension {a} of size {lhs.shape[a]} and rhs dimension {b} of size "
                    f"{rhs.shape[b]}"
                )
    batch_shape = [lhs.shape[d] for d in lhs_batch]
    m_shape = [lhs.shape[d] for d in lhs_free]
    n_shape = [rhs.shape[d] for d in rhs_free]
    k = int(np.prod([lhs.shape[d] for d in lhs_contract], dtype=np.int64))
    b = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(m_shape, dtype=np.int64))
    n = int(np.prod(n_shape, dtype=np.int64))
    left = lhs.transpose([*lhs_batch, *lhs_free, *lhs_contract]).reshape(b, m, k)
    right = rhs.transpose([*rhs_batch, *rhs_contract, *rhs_free]).reshape(b, k, n)
    return contract(left, right).reshape([*batch_shape, *m_shape, *n_shape])


@evaluates(Opcode.DOT)
def dot(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Dot: sums products over the contracting dimensions, per batch index.

    Spec: OPS.md Dot / DotGeneral. Result dimensions: batch, lhs free, rhs free. Integer
    dots wrap in the result type; floats accumulate in float64 and round once (narrow floats
    through f32); mixed operand types are converted exactly to the accumulator first.
    """
    lhs, rhs = (np.asarray(v) for v in operands)
    result_type = instr.shape.element_type
    acc = accumulator_dtype(result_type, lhs, rhs)
    flush = flushes(ctx)
    a = instr.attrs
    total = dot_general(
        "dot",
        instr,
        to_accumulator(lhs, acc, flush),
        to_accumulator(rhs, acc, flush),
        a.lhs_batch_dims,
        a.lhs_contracting_dims,
        a.rhs_batch_dims,
        a.rhs_contracting_dims,
    )
    return from_accumulator(total, result_type, flush)


# ---- ragged-dot ----------------------------------------------------------------------------


def _group_of(group_sizes: Array, length: int, batch_shape: Sequence[int]) -> Array:
    """For every position along the ragged dimension, the group it belongs to (``g`` past
    the last group). ``group_sizes`` is ``[g]`` or ``[batch..., g]``; result
    ``[batch..., length]`` (broadcastable)."""
    sizes = group_sizes.astype(np.int64)
    ends = np.cumsum(sizes, axis=-1)
    positions = np.arange(length)
    # group(i) = number of groups whose end is <= i
    return np.asarray((ends[..., None, :] <= positions[:, None]).sum(axis=-1))


@evaluates(Opcode.RAGGED_DOT)
def ragged_dot(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """RaggedDot: a dot whose ``lhs_ragged_dims[0]`` is split into consecutive groups of
    ``group_sizes`` positions (chlo.ragged_dot).

    Modes, by the kind of the ragged lhs dimension:
      1. non-contracting (``[b, m, k] x [g, b, k, n] -> [b, m, n]``): rows of group i use
         ``rhs[i]`` (``rhs_group_dims[0]``); rows past the last group give 0.
      2. contracting (``[b, m, k] x [b, k, n] -> [g, b, m, n]``): result i contracts only the
         positions of group i.
      3. batch (``[b, m, k] x [b, k, n] -> [b, m, n]``): a plain dot; batches past the last
         group give 0.
    ``group_sizes`` is ``[g]`` (shared by all batches) or ``[batch..., g]``.
    """
    lhs, rhs, group_sizes = (np.asarray(v) for v in operands)
    a = instr.attrs
    result_type = instr.shape.element_type
    acc = accumulator_dtype(result_type, lhs, rhs)
    flush = flushes(ctx)
    left = to_accumulator(lhs, acc, flush)
    right = to_accumulator(rhs, acc, flush)
    if len(a.lhs_ragged_dims) != 1:
        raise InvalidArgument(
            f"ragged-dot {instr.name}: expects exactly one lhs ragged dimension; "
            f"got lhs_ragged_dims={list(a.lhs_ragged_dims)}"
        )
    ragged = a.lhs_ragged_dims[0]
    lb, lc, rb, rc = (
        a.lhs_batch_dims,
        a.lhs_contracting_dims,
        a.rhs_batch_dims,
        a.rhs_contracting_dims,
    )
    batch_shape = [lhs.shape[d] for d in lb]
    num_groups = group_sizes.shape[-1]
    zero = np.zeros((), acc)
    if ragged in lc:
        # Mode 2: group i contracts the positions of group i of the ragged dimension.
        groups = _group_of(group_sizes, lhs.shape[ragged], batch_shape)
        results = []
        for g in range(num_groups):  # one dot per group
            mask = _along(groups == g, lhs.ndim, [*lb, ragged] if groups.ndim > 1 else [ragged])
            results.append(
                dot_general("ragged-dot", instr, np.where(mask, left, zero), right, lb, lc, rb, rc)
            )
        total = np.stack(results) if results else np.zeros(instr.shape.dims, acc)
        return from_accumulator(total, result_type, flush)
    if ragged in lb:
        # Mode 3: a plain dot; batch positions past the last group are zero.
        total = dot_general("ragged-dot", instr, left, right, lb, lc, rb, rc)
        position = list(lb).index(ragged)
        groups = _group_of(group_sizes.reshape(-1), lhs.shape[ragged], [])
        mask = _along(groups < num_groups, total.ndim, [position])
        return from_accumulator(np.where(mask, total, zero), result_type, flush)
    # Mode 1: rows of group i are multiplied by rhs[i].
    if len(a.rhs_group_dims) != 1:
        raise InvalidArgument(
            f"ragged-dot {instr.name}: a non-contracting ragged dimension needs one rhs group "
            f"dimension; got rhs_group_dims={list(a.rhs_group_dims)}"
        )
    group_dim = a.rhs_group_dims[0]
    if rhs.shape[group_dim] != num_groups:
        raise InvalidArgument(
            f"ragged-dot {instr.name}: rhs group dimension {group_dim} must have one entry per "
            f"group ({num_groups}); got size {rhs.shape[group_dim]}"
        )

    def drop(d: int) -> int:
        return d - 1 if d > group_dim else d

    rb1 = [drop(d) for d in rb]
    rc1 = [drop(d) for d in rc]
    lhs_free = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    row_axis = len(lb) + lhs_free.index(ragged)
    groups = _group_of(group_sizes, lhs.shape[ragged], batch_shape)
    combined: Array | None = None
    for g in range(num_groups):  # one dot per group
        part = dot_general(
            "ragged-dot", instr, left, np.take(right, g, axis=group_dim), lb, lc, rb1, rc1
        )
        axes = [*range(len(lb)), row_axis] if groups.ndim > 1 else [row_axis]
        mask = _along(groups == g, part.ndim, axes)
        combined = np.where(mask, part, zero if combined is None else combined)
    if combined is None:
        combined = np.zeros(instr.shape.dims, acc)
    return from_accumulator(combined, result_type, flush)


def _along(mask: Array, rank: int, axes: Sequence[int]) -> Array:
    """Reshapes ``mask`` (dims = ``axes`` in order) to broadcast against a rank-``rank`` array."""
    order = np.argsort(axes)
    mask = mask.transpose(order)
    shape = [1] * rank
    for axis, size in zip(np.asarray(axes)[order], mask.shape, strict=True):
        shape[int(axis)] = size
    return mask.reshape(shape)


# ---- scaled-dot ----------------------------------------------------------------------------


def _apply_block_scale(x: Array, scale: Array, what: str, instr: HloInstruction) -> Array:
    """Multiplies every block of ``x`` by its scale: each dimension of ``x`` is a multiple of
    the scale's and scale element ``j`` covers the block ``[j*B, (j+1)*B)``."""
    if scale.ndim == 0:
        return x * scale
    if scale.ndim != x.ndim or any(
        s == 0 or n % s for n, s in zip(x.shape, scale.shape, strict=True)
    ):
        raise InvalidArgument(
            f"scaled-dot {instr.name}: every dimension of {what} must be a multiple of its "
            f"scale's; got {list(x.shape)} and scale {list(scale.shape)}"
        )
    for axis, (n, s) in enumerate(zip(x.shape, scale.shape, strict=True)):
        scale = np.repeat(scale, n // s, axis=axis)
    return x * scale


@evaluates(Opcode.SCALED_DOT)
def scaled_dot(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """ScaledDot(lhs, lhs_scale, rhs, rhs_scale): DotGeneral of the block-scaled operands.

    Spec: OPS.md ScaledDot. Each scale element multiplies a contiguous block of its operand
    (broadcast over the block), in float64, before the dot; the result rounds once.
    """
    # Operand order as OPS.md's signature and HLO text: scaled-dot(lhs, lhs_scale, rhs, rhs_scale).
    lhs, lhs_scale, rhs, rhs_scale = (np.asarray(v) for v in operands)
    result_type = instr.shape.element_type
    if not (result_type.is_float or result_type.is_complex):
        raise InvalidArgument(
            f"scaled-dot {instr.name}: the result must be a float type; got {result_type}"
        )
    acc = accumulator_dtype(result_type, lhs, rhs)
    left = _apply_block_scale(
        to_accumulator(lhs, acc), to_accumulator(lhs_scale, acc), "lhs", instr
    )
    right = _apply_block_scale(
        to_accumulator(rhs, acc), to_accumulator(rhs_scale, acc), "rhs", instr
    )
    a = instr.attrs
    total = dot_general(
        "scaled-dot",
        instr,
        left,
        right,
        a.lhs_batch_dims,
        a.lhs_contracting_dims,
        a.rhs_batch_dims,
        a.rhs_contracting_dims,
    )
    return from_accumulator(total, result_type, flushes(ctx))
