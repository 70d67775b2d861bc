"""Numerical linear algebra ops of HLO: cholesky and triangular-solve (batched over the
leading dimensions).

Spec: OPS.md Cholesky, TriangularSolve. Both are computed in double precision (complex128
for complex types) and rounded once to the element type; the substitutions run over the
matrix size (sequential by spec) and are vectorised over batches and right-hand sides.
"""

from __future__ import annotations

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.attrs import TransposeA
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value


def wide_dtype(dtype: np.dtype) -> np.dtype:
    """complex128 for complex element types, float64 otherwise."""
    return np.dtype(np.complex128 if np.issubdtype(dtype, np.complexfloating) else np.float64)


def _check_square(op: str, instr: HloInstruction, a: Array, what: str = "a") -> int:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise InvalidArgument(
            f"{op} {instr.name}: {what} must be a (batch of) square matrices [..., M, M]; "
            f"got {list(a.shape)}"
        )
    return int(a.shape[-1])


def cholesky_lower(a: Array) -> tuple[Array, Array]:
    """XLA's Cholesky–Banachiewicz factorisation of the lower triangle of ``a`` (wide type).

    Column j: ``t = a[j:, j] - l[j:, :j] @ conj(l[j, :j])``, ``l[j:, j] = t / sqrt(t[0])``
    (the square root of the real part for complex types). Returns ``(l, failed)`` where
    ``failed[...]`` is set for matrices where a square root was NaN (not positive
    definite); the strict upper triangle of ``l`` is zero.
    """
    n = a.shape[-1]
    l = np.zeros_like(a)
    failed = np.zeros(a.shape[:-2], bool)
    for j in range(n):  # sequential by spec
        t = a[..., j:, j] - np.einsum("...ik,...k->...i", l[..., j:, :j], np.conj(l[..., j, :j]))
        with np.errstate(invalid="ignore", divide="ignore"):
            root = np.sqrt(np.real(t[..., 0]))
            failed |= np.isnan(root)
            l[..., j:, j] = t / root[..., None]
    return l, failed


@evaluates(Opcode.CHOLESKY)
def cholesky(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Cholesky(a, lower): ``a = l l^H`` (lower) or ``a = u^H u`` (upper), per batch matrix.

    Spec: OPS.md Cholesky. Only the selected triangle is read; the other triangle of the
    result is zero. For a matrix that is not positive definite the result is
    implementation-defined; xlapy returns what XLA:CPU's expansion returns: the whole matrix
    NaN when a pivot is negative (or NaN), and NaN from 0/0 in the columns of a zero pivot.
    Upper is computed as XLA does: the lower factorisation of the (plain) transpose,
    transposed back.
    """
    (a,) = (np.asarray(v) for v in operands)
    _check_square("cholesky", instr, a)
    dtype = instr.shape.element_type.numpy
    wide = a.astype(wide_dtype(a.dtype))
    lower = bool(instr.attrs.lower)
    if not lower:
        wide = np.swapaxes(wide, -1, -2)
    l, failed = cholesky_lower(wide)
    l = np.where(failed[..., None, None], np.array(np.nan, dtype=l.dtype), l)
    if not lower:
        l = np.swapaxes(l, -1, -2)
    return l.astype(dtype)


def solve_lower_left(a: Array, b: Array) -> Array:
    """Solves ``a x = b`` by forward substitution for lower-triangular ``a [..., M, M]``,
    ``b [..., M, K]`` (wide types; only the lower triangle and diagonal of ``a`` are read)."""
    m = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for i in range(m):  # sequential by spec
            partial = np.einsum("...k,...kn->...n", a[..., i, :i], x[..., :i, :])
            x[..., i, :] = (b[..., i, :] - partial) / a[..., i, i][..., None]
    return x


@evaluates(Opcode.TRIANGULAR_SOLVE)
def triangular_solve(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """TriangularSolve: solves ``op(a) x = b`` (left_side) or ``x op(a) = b`` for ``x``.

    Spec: OPS.md TriangularSolve. ``op(a)`` is ``a``, its transpose or its conjugate
    transpose; only the ``lower`` (or upper) triangle of ``a`` is read, and with
    ``unit_diagonal`` the diagonal is taken as 1. Batched over leading dimensions.
    """
    a, b = (np.asarray(v) for v in operands)
    m = _check_square("triangular-solve", instr, a)
    attrs = instr.attrs
    left = bool(attrs.left_side)
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2] or b.shape[-2 if left else -1] != m:
        side = "[..., M, K]" if left else "[..., K, M]"
        raise InvalidArgument(
            f"triangular-solve {instr.name}: b must be {side} with a's batch dimensions and "
            f"M={m}; got a {list(a.shape)} and b {list(b.shape)}"
        )
    dtype = instr.shape.element_type.numpy
    wide = wide_dtype(a.dtype)
    tri = np.tril(a.astype(wide)) if attrs.lower else np.triu(a.astype(wide))
    if attrs.unit_diagonal:
        index = np.arange(m)
        tri[..., index, index] = 1
    transpose = attrs.transpose_a
    if transpose is TransposeA.TRANSPOSE:
        tri = np.swapaxes(tri, -1, -2)
    elif transpose is TransposeA.ADJOINT:
        tri = np.conj(np.swapaxes(tri, -1, -2))
    rhs = b.astype(wide)
    if not left:
        # x op(a) = b  <=>  op(a)^T x^T = b^T
        tri = np.swapaxes(tri, -1, -2)
        rhs = np.swapaxes(rhs, -1, -2)
    # Each transposition swaps which triangle holds the coefficients.
    is_lower = bool(attrs.lower) ^ (transpose is not TransposeA.NO_TRANSPOSE) ^ (not left)
    if is_lower:
        x = solve_lower_left(tri, rhs)
    else:
        # Back substitution is forward substitution on the reversed system.
        x = solve_lower_left(tri[..., ::-1, ::-1], rhs[..., ::-1, :])[..., ::-1, :]
    if not left:
        x = np.swapaxes(x, -1, -2)
    return np.ascontiguousarray(x).astype(dtype)
