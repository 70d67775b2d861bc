"""Batched LAPACK/BLAS calls without Python per matrix: ``potrf``, ``getrf``, ``trsm``,
``geqrf``, ``orgqr``/``ungqr`` and real ``syevd`` of a whole batch in one numba loop over
scipy's own routines (``scipy.linalg.cython_lapack`` / ``cython_blas``, the library the
interpreter's ``scipy.linalg.lapack`` wrappers call). Each matrix gets the call the scipy
wrapper makes (same routine, arguments and default workspace sizes, which decide LAPACK's
block sizes; a column-major copy of the logical matrix), so results are the interpreter's bit
for bit.

Used by ``kernels/linalg.py`` for non-empty matrices whose operand and result types are the
routine's own; the other routines and cases keep the per-matrix path.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numba
import numpy as np
from numba.extending import get_cython_function_address

from xlapy.literal import Array

_VP = ctypes.c_void_p


def _routine(module: str, name: str, nargs: int) -> Callable[..., None]:
    """The C entry point ``name`` of ``scipy.linalg.<module>`` as a ctypes function of
    ``nargs`` pointer arguments (Fortran calling convention: every argument by address)."""
    address = get_cython_function_address(f"scipy.linalg.{module}", name)
    return ctypes.CFUNCTYPE(None, *([_VP] * nargs))(address)  # type: ignore[no-any-return]


_CACHE: dict[str, Callable[..., None]] = {}


def _potrf_loop(fn: Callable[..., None]) -> Callable[..., None]:
    @numba.njit
    def loop(a: Array, uplo: Array, n: Array, info: Array) -> None:
        for i in range(a.shape[0]):
            fn(uplo.ctypes, n.ctypes, a[i].ctypes, n.ctypes, info[i:].ctypes)

    return loop  # type: ignore[no-any-return]


def _getrf_loop(fn: Callable[..., None]) -> Callable[..., None]:
    @numba.njit
    def loop(a: Array, mn: Array, piv: Array, info: Array) -> None:
        for i in range(a.shape[0]):
            fn(
                mn[0:].ctypes,
                mn[1:].ctypes,
                a[i].ctypes,
                mn[0:].ctypes,
                piv[i].ctypes,
                info[i:].ctypes,
            )

    return loop  # type: ignore[no-any-return]


def _trsm_loop(fn: Callable[..., None]) -> Callable[..., None]:
    @numba.njit
    def loop(a: Array, b: Array, flags: Array, dims: Array, alpha: Array) -> None:
        # dims: m, n, lda, ldb
        for i in range(a.shape[0]):
            fn(
                flags[0:].ctypes,
                flags[1:].ctypes,
                flags[2:].ctypes,
                flags[3:].ctypes,
                dims[0:].ctypes,
                dims[1:].ctypes,
                alpha.ctypes,
                a[i].ctypes,
                dims[2:].ctypes,
                b[i].ctypes,
                dims[3:].ctypes,
            )

    return loop  # type: ignore[no-any-return]


def _geqrf_loop(fn: Callable[..., None]) -> Callable[..., None]:
    @numba.njit
    def loop(a: Array, tau: Array, dims: Array, work: Array, info: Array) -> None:
        # dims: m, n, lwork
        for i in range(a.shape[0]):
            fn(
                dims[0:].ctypes,
                dims[1:].ctypes,
                a[i].ctypes,
                dims[0:].ctypes,
                tau[i].ctypes,
                work.ctypes,
                dims[2:].ctypes,
                info[i:].ctypes,
            )

    return loop  # type: ignore[no-any-return]


def _orgqr_loop(fn: Callable[..., None]) -> Callable[..., None]:
    @numba.njit
    def loop(a: Array, tau: Array, dims: Array, work: Array, info: Array) -> None:
        # dims: m, n, k, lwork
        for i in range(a.shape[0]):
            fn(
                dims[0:].ctypes,
                dims[1:].ctypes,
                dims[2:].ctypes,
                a[i].ctypes,
                dims[0:].ctypes,
                tau[i].ctypes,
                work.ctypes,
                dims[3:].ctypes,
                info[i:].ctypes,
            )

    return loop  # type: ignore[no-any-return]


def _syevd_loop(fn: Callable[..., None]) -> Callable[..., None]:
    @numba.njit
    def loop(
        a: Array, w: Array, flags: Array, dims: Array, work: Array, iwork: Array, info: Array
    ) -> None:
        # flags: jobz, uplo; dims: n, lwork, liwork
        for i in range(a.shape[0]):
            fn(
                flags[0:].ctypes,
                flags[1:].ctypes,
                dims[0:].ctypes,
                a[i].ctypes,
                dims[0:].ctypes,
                w[i].ctypes,
                work.ctypes,
                dims[1:].ctypes,
                iwork.ctypes,
                dims[2:].ctypes,
                info[i:].ctypes,
            )

    return loop  # type: ignore[no-any-return]


_LOOPS = {
    "potrf": ("cython_lapack", 5, _potrf_loop),
    "getrf": ("cython_lapack", 6, _getrf_loop),
    "trsm": ("cython_blas", 11, _trsm_loop),
    "geqrf": ("cython_lapack", 8, _geqrf_loop),
    "orgqr": ("cython_lapack", 9, _orgqr_loop),
    "ungqr": ("cython_lapack", 9, _orgqr_loop),
    "syevd": ("cython_lapack", 11, _syevd_loop),
}


def _loop(kind: str, prefix: str) -> Callable[..., None]:
    key = prefix + kind
    if key not in _CACHE:
        module, nargs, make = _LOOPS[kind]
        _CACHE[key] = make(_routine(module, key, nargs))
    return _CACHE[key]


def _fortran(a: Array) -> Array:
    """A new C-contiguous batch whose matrix ``i`` holds ``a[i]`` in column-major order (always
    a copy: the routines overwrite it, and ``a`` may be the caller's)."""
    return np.array(np.swapaxes(a, -1, -2), order="C", copy=True)


def _logical(f: Array) -> Array:
    return np.swapaxes(f, -1, -2)


def potrf(prefix: str, a: Array, lower: bool) -> tuple[Array, Array]:
    """``(factor, info)`` of every matrix of ``a`` (batch, n, n), n > 0; the other triangle is
    left as it was (scipy's ``clean=0``)."""
    f = _fortran(a)
    info = np.zeros(f.shape[0], np.int32)
    uplo = np.array([ord("L" if lower else "U")], np.uint8)
    n = np.array([f.shape[1]], np.int32)
    _loop("potrf", prefix)(f, uplo, n, info)
    return np.ascontiguousarray(_logical(f)), info


def getrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(lu, 1-based pivots, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0."""
    f = _fortran(a)
    m, n = a.shape[-2], a.shape[-1]
    piv = np.zeros((f.shape[0], min(m, n)), np.int32)
    info = np.zeros(f.shape[0], np.int32)
    _loop("getrf", prefix)(f, np.array([m, n], np.int32), piv, info)
    return np.ascontiguousarray(_logical(f)), piv, info


def trsm(
    prefix: str, a: Array, b: Array, right: bool, lower: bool, trans: str, unit: bool
) -> Array:
    """``op(a) x = b`` (or ``x op(a) = b`` with ``right``) for every matrix, alpha 1, b
    non-empty."""
    fa, fb = _fortran(a), _fortran(b)
    m, n = b.shape[-2], b.shape[-1]
    flags = np.array(
        [
            ord("R" if right else "L"),
            ord("L" if lower else "U"),
            ord(trans),
            ord("U" if unit else "N"),
        ],
        np.uint8,
    )
    dims = np.array([m, n, a.shape[-2], m], np.int32)
    alpha = np.ones(1, a.dtype)
    _loop("trsm", prefix)(fa, fb, flags, dims, alpha)
    return np.ascontiguousarray(_logical(fb))


def geqrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(qr, tau, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0, with scipy's
    default workspace ``max(3n, 1)`` (the workspace size decides LAPACK's block size)."""
    f = _fortran(a)
    m, n = a.shape[-2], a.shape[-1]
    tau = np.zeros((f.shape[0], min(m, n)), a.dtype)
    info = np.zeros(f.shape[0], np.int32)
    lwork = max(3 * n, 1)
    _loop("geqrf", prefix)(
        f, tau, np.array([m, n, lwork], np.int32), np.zeros(lwork, a.dtype), info
    )
    return np.ascontiguousarray(_logical(f)), tau, info


def orgqr(prefix: str, a: Array, tau: Array) -> tuple[Array, Array]:
    """``(q, info)``: the first n columns of Q from every (a, tau) of geqrf, m >= n >= k > 0,
    with scipy's default workspace ``max(3n, 1)``."""
    f = _fortran(a)
    m, n = a.shape[-2], a.shape[-1]
    info = np.zeros(f.shape[0], np.int32)
    lwork = max(3 * n, 1)
    dims = np.array([m, n, tau.shape[-1], lwork], np.int32)
    kind = "ungqr" if prefix in "cz" else "orgqr"
    _loop(kind, prefix)(f, np.ascontiguousarray(tau), dims, np.zeros(lwork, a.dtype), info)
    return np.ascontiguousarray(_logical(f)), info


def syevd(prefix: str, a: Array, lower: bool) -> tuple[Array, Array, Array]:
    """``(eigenvectors, eigenvalues, info)`` of every real symmetric matrix of ``a``
    (batch, n, n), n > 0, with scipy's default workspaces (``1 + 6n + 2n^2``, ``3 + 5n``)."""
    f = _fortran(a)
    n = a.shape[-1]
    w = np.zeros((f.shape[0], n), a.dtype)
    info = np.zeros(f.shape[0], np.int32)
    lwork, liwork = max(1 + 6 * n + 2 * n * n, 1), 3 + 5 * n
    flags = np.array([ord("V"), ord("L" if lower else "U")], np.uint8)
    dims = np.array([n, lwork, liwork], np.int32)
    work, iwork = np.zeros(lwork, a.dtype), np.zeros(liwork, np.int32)
    _loop("syevd", prefix)(f, w, flags, dims, work, iwork, info)
    return np.ascontiguousarray(_logical(f)), w, info
