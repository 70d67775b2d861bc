"""Batched LAPACK/BLAS calls without the Python wrapper per matrix: ``potrf``, ``getrf``,
``trsm``, ``geqrf``, ``orgqr``/``ungqr`` and real ``syevd`` of a whole batch through scipy's
own C entry points (``scipy.linalg.cython_lapack`` / ``cython_blas``, the library the
interpreter's ``scipy.linalg.lapack`` wrappers call), one ctypes call per matrix (about a
microsecond, nothing to compile). Each matrix gets the call the scipy wrapper makes (same
routine, arguments and default workspace sizes, which decide LAPACK's block sizes; a
column-major copy of the logical matrix), so results are the interpreter's bit for bit.

Used by ``kernels/linalg.py`` for non-empty matrices whose operand and result types are the
routine's own; the other routines and cases keep the per-matrix path.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np
from numba.extending import get_cython_function_address

from xlapy.literal import Array

_NARGS = {"potrf": 5, "getrf": 6, "trsm": 11, "geqrf": 8, "orgqr": 9, "ungqr": 9, "syevd": 11}
"""Arguments of each routine (Fortran calling convention: every argument by address)."""

_CACHE: dict[str, Callable[..., None]] = {}


def _fn(kind: str, prefix: str) -> Callable[..., None]:
    """The C entry point of ``prefix + kind`` as a ctypes function of pointer arguments."""
    key = prefix + kind
    if key not in _CACHE:
        module = "cython_blas" if kind == "trsm" else "cython_lapack"
        address = get_cython_function_address(f"scipy.linalg.{module}", key)
        _CACHE[key] = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * _NARGS[kind]))(address)
    return _CACHE[key]


def _addr(x: Array) -> int:
    return int(x.ctypes.data)


def _batch_call(
    kind: str, prefix: str, args: list[Array | None], batched: dict[int, Array]
) -> None:
    """Calls the routine once per matrix. ``args`` holds the arrays passed by address (None
    at the positions of ``batched``); an argument at a position of ``batched`` points at the
    next matrix (row) of its C-contiguous batch array on each call."""
    fn = _fn(kind, prefix)
    count = next(iter(batched.values())).shape[0]
    call: list[int] = [0 if x is None else _addr(x) for x in args]
    bases = [(p, _addr(x), x.strides[0]) for p, x in batched.items()]
    for i in range(count):
        for p, base, stride in bases:
            call[p] = base + i * stride
        fn(*call)


def _ints(*values: int) -> list[Array]:
    return [np.array([v], np.int32) for v in values]


def _chars(*values: str) -> list[Array]:
    return [np.array([ord(v)], np.uint8) for v in values]


def _fortran(a: Array) -> Array:
    """A new C-contiguous batch whose matrix ``i`` holds ``a[i]`` in column-major order (always
    a copy: the routines overwrite it, and ``a`` may be the caller's)."""
    return np.array(np.swapaxes(a, -1, -2), order="C", copy=True)


def _logical(f: Array) -> Array:
    return np.ascontiguousarray(np.swapaxes(f, -1, -2))


def potrf(prefix: str, a: Array, lower: bool) -> tuple[Array, Array]:
    """``(factor, info)`` of every matrix of ``a`` (batch, n, n), n > 0; the other triangle is
    left as it was (scipy's ``clean=0``)."""
    f = _fortran(a)
    info = np.zeros(f.shape[0], np.int32)
    (uplo,) = _chars("L" if lower else "U")
    (n,) = _ints(f.shape[1])
    _batch_call("potrf", prefix, [uplo, n, None, n, None], {2: f, 4: info})
    return _logical(f), info


def getrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(lu, 1-based pivots, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0."""
    f = _fortran(a)
    m, n = a.shape[-2], a.shape[-1]
    piv = np.zeros((f.shape[0], min(m, n)), np.int32)
    info = np.zeros(f.shape[0], np.int32)
    pm, pn = _ints(m, n)
    _batch_call("getrf", prefix, [pm, pn, None, pm, None, None], {2: f, 4: piv, 5: info})
    return _logical(f), piv, info


def trsm(
    prefix: str, a: Array, b: Array, right: bool, lower: bool, trans: str, unit: bool
) -> Array:
    """``op(a) x = b`` (or ``x op(a) = b`` with ``right``) for every matrix, alpha 1, b
    non-empty."""
    fa, fb = _fortran(a), _fortran(b)
    m, n = b.shape[-2], b.shape[-1]
    side, uplo, transa, diag = _chars(
        "R" if right else "L", "L" if lower else "U", trans, "U" if unit else "N"
    )
    pm, pn, lda = _ints(m, n, a.shape[-2])
    alpha = np.ones(1, a.dtype)
    args = [side, uplo, transa, diag, pm, pn, alpha, None, lda, None, pm]
    _batch_call("trsm", prefix, args, {7: fa, 9: fb})
    return _logical(fb)


def geqrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(qr, tau, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0, with scipy's
    default workspace ``max(3n, 1)`` (the workspace size decides LAPACK's block size)."""
    f = _fortran(a)
    m, n = a.shape[-2], a.shape[-1]
    tau = np.zeros((f.shape[0], min(m, n)), a.dtype)
    info = np.zeros(f.shape[0], np.int32)
    lwork = max(3 * n, 1)
    pm, pn, plwork = _ints(m, n, lwork)
    work = np.zeros(lwork, a.dtype)
    args = [pm, pn, None, pm, None, work, plwork, None]
    _batch_call("geqrf", prefix, args, {2: f, 4: tau, 7: info})
    return _logical(f), tau, info


def orgqr(prefix: str, a: Array, tau: Array) -> tuple[Array, Array]:
    """``(q, info)``: the first n columns of Q from every (a, tau) of geqrf, m >= n >= k > 0,
    with scipy's default workspace ``max(3n, 1)``."""
    f = _fortran(a)
    m, n = a.shape[-2], a.shape[-1]
    info = np.zeros(f.shape[0], np.int32)
    lwork = max(3 * n, 1)
    pm, pn, pk, plwork = _ints(m, n, tau.shape[-1], lwork)
    work = np.zeros(lwork, a.dtype)
    kind = "ungqr" if prefix in "cz" else "orgqr"
    args = [pm, pn, pk, None, pm, None, work, plwork, None]
    _batch_call(kind, prefix, args, {3: f, 5: np.ascontiguousarray(tau), 8: info})
    return _logical(f), info


def syevd(prefix: str, a: Array, lower: bool) -> tuple[Array, Array, Array]:
    """``(eigenvectors, eigenvalues, info)`` of every real symmetric matrix of ``a``
    (batch, n, n), n > 0, with scipy's default workspaces (``1 + 6n + 2n^2``, ``3 + 5n``)."""
    f = _fortran(a)
    n = a.shape[-1]
    w = np.zeros((f.shape[0], n), a.dtype)
    info = np.zeros(f.shape[0], np.int32)
    lwork, liwork = max(1 + 6 * n + 2 * n * n, 1), 3 + 5 * n
    jobz, uplo = _chars("V", "L" if lower else "U")
    pn, plwork, pliwork = _ints(n, lwork, liwork)
    work, iwork = np.zeros(lwork, a.dtype), np.zeros(liwork, np.int32)
    args = [jobz, uplo, pn, None, pn, None, work, plwork, iwork, pliwork, None]
    _batch_call("syevd", prefix, args, {3: f, 5: w, 10: info})
    return _logical(f), w, info
