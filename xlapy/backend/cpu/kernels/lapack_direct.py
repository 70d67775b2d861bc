"""Batched LAPACK/BLAS calls without the Python wrapper per matrix: ``potrf``, ``getrf``,
``trsm``, ``geqrf``, ``orgqr``/``ungqr`` and real ``syevd`` of a whole batch through scipy's
own C entry points (``scipy.linalg.cython_lapack`` / ``cython_blas``, the library the
interpreter's ``scipy.linalg.lapack`` wrappers call). Each matrix gets the call the scipy
wrapper makes (same routine, arguments and default workspace sizes, which decide LAPACK's
block sizes; a column-major copy of the logical matrix), so results are the interpreter's
bit for bit.

One compiled loop (``_batched``, cached with the package) walks the batch: it copies each
matrix transposed into a column-major scratch matrix (in cache), calls the routine through
its address (``_call``: an LLVM call of a function pointer, so the loop caches) and copies
the result back. Measured on 16 32x32 matrices: spotrf 50 -> ~28 us (one ctypes call per
matrix cost about 1 us, and two whole-batch transposing copies 12 us). A large batch of
small matrices is split into blocks that one thread per core takes in turn, each walked by
such a loop (``_run``), as XLA:CPU spreads these calls over its threads.

Used by ``kernels/linalg.py`` for non-empty matrices whose operand and result types are the
routine's own; the other routines and cases keep the per-matrix path.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from functools import partial
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import get_cython_function_address, intrinsic

from xlapy.backend.cpu.kernels import blas
from xlapy.literal import Array

_NARGS = {
    "potrf": 5,
    "getrf": 6,
    "trsm": 11,
    "geqrf": 8,
    "orgqr": 9,
    "ungqr": 9,
    "syevd": 11,
    "gesdd": 14,
}
"""Arguments of each routine (Fortran calling convention: every argument by address)."""

_ARITIES = tuple(sorted(set(_NARGS.values())))


@intrinsic
def _call(typingctx: Any, fn: Any, nargs: Any, ptrs: Any) -> Any:
    """Calls the C function at address ``fn`` with the first ``nargs`` addresses of the
    int64 array ``ptrs`` as pointer arguments (``nargs`` one of ``_ARITIES``; any other
    count calls nothing)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        address, count, array = args
        data = context.make_array(signature.args[2])(context, builder, array).data
        pointer = ir.IntType(8).as_pointer()
        end = builder.append_basic_block("call_end")
        switch = builder.switch(count, end)
        for n in _ARITIES:
            block = builder.append_basic_block(f"call_{n}")
            switch.add_case(ir.Constant(count.type, n), block)
            with builder.goto_block(block):
                function = ir.FunctionType(ir.VoidType(), [pointer] * n)
                target = builder.inttoptr(address, function.as_pointer())
                values = [
                    builder.inttoptr(
                        builder.load(builder.gep(data, [ir.Constant(ir.IntType(64), k)])),
                        pointer,
                    )
                    for k in range(n)
                ]
                builder.call(target, values)
                builder.branch(end)
        builder.position_at_end(end)
        return context.get_dummy_value()

    return types.void(types.int64, types.int64, ptrs), codegen


@numba.njit(cache=True, nogil=True)
def _to_fortran(m: Array, f: Array) -> None:
    """``f`` (flat) holds the matrix ``m`` in column-major order."""
    rows, cols = m.shape
    for j in range(cols):
        for i in range(rows):
            f[j * rows + i] = m[i, j]


@numba.njit(cache=True, nogil=True)
def _from_fortran(f: Array, m: Array) -> None:
    """The matrix ``m`` takes the column-major values of ``f`` (flat)."""
    rows, cols = m.shape
    for i in range(rows):
        for j in range(cols):
            m[i, j] = f[j * rows + i]


@numba.njit(cache=True, nogil=True)
def _scratch(x: Array, out: Array) -> Array:
    """A flat scratch matrix as large as a matrix of ``x`` or ``out`` (one may be empty)."""
    return np.empty(max(x.shape[1] * x.shape[2], out.shape[1] * out.shape[2]), out.dtype)


@numba.njit(cache=True, nogil=True)
def _batched(
    fn: int,
    nargs: int,
    ptrs: Array,
    a: Array,
    a_out: Array,
    a_at: int,
    b: Array,
    b_out: Array,
    b_at: int,
    c: Array,
    c_out: Array,
    c_at: int,
    u: Array,
    u_at: int,
    v: Array,
    v_at: int,
    w: Array,
    w_at: int,
    iw: Array,
    iw_at: int,
    start: int,
    stop: int,
) -> None:
    """Workspaces ``w`` and ``iw`` passed at ``w_at`` and ``iw_at`` (when >= 0). For each
    matrix ``i`` of the batch from ``start`` to ``stop`` (at most the batch's size): the
    matrices ``a[i]``, ``b[i]`` and ``c[i]``
    copied column-major into scratch matrices passed at argument positions ``a_at``,
    ``b_at`` and ``c_at`` (a position < 0: not passed; an empty input batch: nothing copied
    in), rows ``i`` of ``u`` and ``v`` passed at ``u_at`` and ``v_at`` (when >= 0), one call
    of the routine at ``fn``, then the scratch matrices copied back into ``a_out[i]``,
    ``b_out[i]`` and ``c_out[i]`` (the non-empty ones)."""
    fa, fb, fc = _scratch(a, a_out), _scratch(b, b_out), _scratch(c, c_out)
    if w_at >= 0:
        ptrs[w_at] = np.int64(w.ctypes.data)
    if iw_at >= 0:
        ptrs[iw_at] = np.int64(iw.ctypes.data)
    ptrs[a_at] = np.int64(fa.ctypes.data)
    if b_at >= 0:
        ptrs[b_at] = np.int64(fb.ctypes.data)
    if c_at >= 0:
        ptrs[c_at] = np.int64(fc.ctypes.data)
    for i in range(start, min(stop, max(a.shape[0], a_out.shape[0]))):
        if a.shape[0]:
            _to_fortran(a[i], fa)
        if b_at >= 0 and b.shape[0]:
            _to_fortran(b[i], fb)
        if c_at >= 0 and c.shape[0]:
            _to_fortran(c[i], fc)
        if u_at >= 0:
            ptrs[u_at] = np.int64(u.ctypes.data) + i * u.strides[0]
        if v_at >= 0:
            ptrs[v_at] = np.int64(v.ctypes.data) + i * v.strides[0]
        _call(fn, nargs, ptrs)
        if a_out.shape[0]:
            _from_fortran(fa, a_out[i])
        if b_out.shape[0]:
            _from_fortran(fb, b_out[i])
        if c_out.shape[0]:
            _from_fortran(fc, c_out[i])


_ADDRESSES: dict[str, int] = {}


def _address(kind: str, prefix: str) -> int:
    """The address of the C entry point of ``prefix + kind``."""
    key = prefix + kind
    if key not in _ADDRESSES:
        module = "cython_blas" if kind == "trsm" else "cython_lapack"
        _ADDRESSES[key] = get_cython_function_address(f"scipy.linalg.{module}", key)
    return _ADDRESSES[key]


_SPLIT_FLOPS = 3e6
"""A batch of about this many floating-point operations or more is split over the cores, as
XLA:CPU splits these custom calls over its threads: such a batch takes 0.5 ms or more on one
core, a hand-off to a pool thread ~30 us on an idle machine but far more when other
processes hold the cores (16 matrices: gesdd 48x32 and syevd 32, 1.7 and 1.4 ms, split).
Smaller batches stay on one thread: 16 48x32 geqrf + orgqr (jnp.linalg.qr, 2.4e6 flops)
measured 0.57-0.63 ms per program call on one thread and 0.85-0.95 ms split, on an idle
machine."""

_BLOCK_FLOPS = 2e5
"""A split batch is walked in blocks of about this many operations (at least one matrix,
at most a core's share), which the threads take in turn: a thread the scheduler runs late
leaves its blocks to the others (a block's call costs a few us)."""

_SPLIT_MAX_DIM = 64
"""Only batches of matrices of at most this many rows and columns are split. OpenBLAS runs
the BLAS calls of a LAPACK routine on them on the calling thread alone (its gemm threads
above 65536 x 4 multiply-adds, its gemv above 2304 x 4 elements), on whichever thread that
is; on larger matrices it may start its own threads, and the bits of some routines then
depend on how many it uses (c64 geqrf of a 100x70 matrix differs between one and two)."""


_NONE = np.zeros((0, 0), np.int32)
"""An unused row batch."""
_NO_WORK = np.zeros(0, np.float32)
"""An unused workspace."""
_NO_IWORK = np.zeros(0, np.int32)
"""An unused int32 workspace."""
_UNUSED = -1
"""The argument position of an unused matrix, row batch or workspace."""
_EMPTY: dict[np.dtype, Array] = {}
"""Per dtype, an empty batch of matrices: the matrix slots a call leaves unused."""


def _empty(dtype: np.dtype) -> Array:
    """An empty C-contiguous batch of ``dtype`` matrices (shared: nothing is written to it)."""
    empty = _EMPTY.get(dtype)
    if empty is None:
        empty = _EMPTY[dtype] = np.zeros((0, 0, 0), dtype)
    return empty


@functools.lru_cache(maxsize=256)
def _template(
    nargs: int, values: tuple[tuple[int, str, object], ...]
) -> tuple[Array, tuple[Array, ...]]:
    """The addresses of a call's scalar arguments: an int64 array of ``nargs`` addresses,
    at each position of ``values`` that of a one-element array holding the value (kind
    ``"c"``: a character, ``"i"``: an int32, else a scalar of that dtype), 0 elsewhere; and
    those arrays (whoever uses the addresses keeps them). Read only: calls copy it."""
    ptrs = np.zeros(nargs, np.int64)
    keep = []
    for at, kind, value in values:
        if kind == "c":
            x = np.array([ord(str(value))], np.uint8)
        else:
            x = np.array([value], np.int32 if kind == "i" else kind)
        x.flags.writeable = False
        keep.append(x)
        ptrs[at] = x.ctypes.data
    ptrs.flags.writeable = False
    return ptrs, tuple(keep)


def _run(
    kind: str,
    prefix: str,
    scalars: tuple[tuple[int, str, object], ...],
    matrices: Sequence[tuple[int, Array | None, Array | None]],
    rows: Sequence[tuple[int, Array]] = (),
    work: Sequence[tuple[int, Array]] = (),
    flops: float = 0.0,
) -> None:
    """Calls the routine once per matrix. ``scalars``: the scalar arguments (``_template``);
    ``matrices`` (one to three): per position, the C-contiguous batch of logical matrices
    passed column-major (None: not read, an output) and the batch receiving the results
    (None: read only); ``rows``: per position, a C-contiguous 2-D batch whose row ``i`` is
    passed with matrix ``i``; ``work``: per position, a workspace (a float, then an int32
    one) shared by the calls of one thread. ``flops``: about how many floating-point
    operations one matrix takes; a batch of at least ``_SPLIT_FLOPS`` of small matrices
    (``_SPLIT_MAX_DIM``) is split into blocks of matrices (``_BLOCK_FLOPS``) that one thread
    per core takes in turn, each thread with its own workspaces (every matrix gets the same
    call either way: the same results)."""
    ptrs, keep = _template(_NARGS[kind], scalars)
    slots: list[Array | int] = []
    largest = 0
    for at, x, out in matrices:
        like = x if out is None else out
        assert like is not None
        empty = _empty(like.dtype)
        slots += [empty if x is None else x, empty if out is None else out, at]
        largest = max(largest, like.shape[1], like.shape[2])
    empty = _empty(slots[0].dtype)  # type: ignore[union-attr]
    for _ in range(3 - len(matrices)):
        slots += [empty, empty, _UNUSED]
    u_at, u = rows[0] if rows else (_UNUSED, _NONE)
    v_at, v = rows[1] if len(rows) > 1 else (_UNUSED, _NONE)
    w_at, w = work[0] if work else (_UNUSED, _NO_WORK)
    iw_at, iw = work[1] if len(work) > 1 else (_UNUSED, _NO_IWORK)
    fn, nargs = _address(kind, prefix), _NARGS[kind]
    count = slots[0].shape[0] or slots[1].shape[0]  # type: ignore[union-attr]
    if count < 2 or count * flops < _SPLIT_FLOPS or largest > _SPLIT_MAX_DIM:
        _batched(fn, nargs, ptrs.copy(), *slots, u, u_at, v, v_at, w, w_at, iw, iw_at, 0, count)
        return

    per_block = max(1, min(-(-count // blas.workers()), round(_BLOCK_FLOPS / max(flops, 1.0))))
    starts = iter(range(0, count, per_block))  # shared by the tasks: next() is atomic (GIL)

    def task(first: bool) -> None:
        ws, iws = (w, iw) if first else (np.empty_like(w), np.empty_like(iw))
        copy = ptrs.copy()
        for lo in starts:
            _batched(
                fn, nargs, copy, *slots, u, u_at, v, v_at, ws, w_at, iws, iw_at, lo, lo + per_block
            )

    blas.run_parallel([partial(task, k == 0) for k in range(min(blas.workers(), count))])
    del keep


def _batch(a: Array) -> Array:
    """``a`` as a C-contiguous batch of matrices (the caller's array is never written)."""
    return np.ascontiguousarray(a)


def potrf(prefix: str, a: Array, lower: bool) -> tuple[Array, Array]:
    """``(factor, info)`` of every matrix of ``a`` (batch, n, n), n > 0; the other triangle is
    left as it was (scipy's ``clean=0``)."""
    a = _batch(a)
    out = np.empty_like(a)
    info = np.zeros(a.shape[0], np.int32)
    n = a.shape[1]
    scalars = ((0, "c", "L" if lower else "U"), (1, "i", n), (3, "i", n))
    _run("potrf", prefix, scalars, [(2, a, out)], [(4, info.reshape(-1, 1))], flops=n**3 / 3)
    return out, info


def getrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(lu, 1-based pivots, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0."""
    a = _batch(a)
    out = np.empty_like(a)
    m, n = a.shape[-2], a.shape[-1]
    piv = np.zeros((a.shape[0], min(m, n)), np.int32)
    info = np.zeros(a.shape[0], np.int32)
    scalars = ((0, "i", m), (1, "i", n), (3, "i", m))
    rows = [(4, piv), (5, info.reshape(-1, 1))]
    _run("getrf", prefix, scalars, [(2, a, out)], rows, flops=m * n * min(m, n))
    return out, piv, info


def trsm(
    prefix: str, a: Array, b: Array, right: bool, lower: bool, trans: str, unit: bool
) -> Array:
    """``op(a) x = b`` (or ``x op(a) = b`` with ``right``) for every matrix, alpha 1, b
    non-empty."""
    a, b = _batch(a), _batch(b)
    out = np.empty_like(b)
    m, n = b.shape[-2], b.shape[-1]
    scalars = (
        (0, "c", "R" if right else "L"),
        (1, "c", "L" if lower else "U"),
        (2, "c", trans),
        (3, "c", "U" if unit else "N"),
        (4, "i", m),
        (5, "i", n),
        (6, a.dtype.str, 1),
        (8, "i", a.shape[-2]),
        (10, "i", m),
    )
    _run("trsm", prefix, scalars, [(7, a, None), (9, b, out)], flops=m * n * a.shape[-1])
    return out


def geqrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(qr, tau, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0, with scipy's
    default workspace ``max(3n, 1)`` (the workspace size decides LAPACK's block size)."""
    a = _batch(a)
    out = np.empty_like(a)
    m, n = a.shape[-2], a.shape[-1]
    tau = np.zeros((a.shape[0], min(m, n)), a.dtype)
    info = np.zeros(a.shape[0], np.int32)
    lwork = max(3 * n, 1)
    scalars = ((0, "i", m), (1, "i", n), (3, "i", m), (6, "i", lwork))
    rows = [(4, tau), (7, info.reshape(-1, 1))]
    work = [(5, np.zeros(lwork, a.dtype))]
    _run("geqrf", prefix, scalars, [(2, a, out)], rows, work, flops=2 * m * n * min(m, n))
    return out, tau, info


def orgqr(prefix: str, a: Array, tau: Array) -> tuple[Array, Array]:
    """``(q, info)``: the first n columns of Q from every (a, tau) of geqrf, m >= n >= k > 0,
    with scipy's default workspace ``max(3n, 1)``."""
    a = _batch(a)
    out = np.empty_like(a)
    m, n = a.shape[-2], a.shape[-1]
    info = np.zeros(a.shape[0], np.int32)
    lwork = max(3 * n, 1)
    kind = "ungqr" if prefix in "cz" else "orgqr"
    scalars = ((0, "i", m), (1, "i", n), (2, "i", tau.shape[-1]), (4, "i", m), (7, "i", lwork))
    rows = [(5, np.ascontiguousarray(tau)), (8, info.reshape(-1, 1))]
    work = [(6, np.zeros(lwork, a.dtype))]
    _run(kind, prefix, scalars, [(3, a, out)], rows, work, flops=2 * m * n * tau.shape[-1])
    return out, info


def syevd(prefix: str, a: Array, lower: bool) -> tuple[Array, Array, Array]:
    """``(eigenvectors, eigenvalues, info)`` of every real symmetric matrix of ``a``
    (batch, n, n), n > 0, with scipy's default workspaces (``1 + 6n + 2n^2``, ``3 + 5n``)."""
    a = _batch(a)
    out = np.empty_like(a)
    n = a.shape[-1]
    w = np.zeros((a.shape[0], n), a.dtype)
    info = np.zeros(a.shape[0], np.int32)
    lwork, liwork = max(1 + 6 * n + 2 * n * n, 1), 3 + 5 * n
    scalars = (
        (0, "c", "V"),
        (1, "c", "L" if lower else "U"),
        (2, "i", n),
        (4, "i", n),
        (7, "i", lwork),
        (9, "i", liwork),
    )
    work = [(6, np.zeros(lwork, a.dtype)), (8, np.zeros(liwork, np.int32))]
    rows = [(5, w), (10, info.reshape(-1, 1))]
    _run("syevd", prefix, scalars, [(3, a, out)], rows, work, flops=9 * n**3)
    return out, w, info


def gesdd(prefix: str, a: Array, full: bool) -> tuple[Array, Array, Array, Array]:
    """``(s, u, vt, info)`` of every real matrix of ``a`` (batch, m, n), m, n > 0, singular
    vectors computed (``full``: jobz "A", else the thin "S"), with scipy's default
    workspaces (``lwork = max(4k^2 + max(m, n) + 9k, 1)``, ``iwork`` of ``8k``, k = min(m,
    n))."""
    a = _batch(a)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    count = a.shape[0]
    u = np.empty((count, m, m if full else k), a.dtype)
    vt = np.empty((count, n if full else k, n), a.dtype)
    s = np.zeros((count, k), a.dtype)
    info = np.zeros(count, np.int32)
    lwork = max(4 * k * k + max(m, n) + 9 * k, 1)
    scalars = (
        (0, "c", "A" if full else "S"),
        (1, "i", m),
        (2, "i", n),
        (4, "i", m),
        (7, "i", m),
        (9, "i", vt.shape[1]),
        (11, "i", lwork),
    )
    matrices = [(3, a, None), (6, None, u), (8, None, vt)]
    work = [(10, np.zeros(lwork, a.dtype)), (12, np.zeros(8 * k, np.int32))]
    rows = [(5, s), (13, info.reshape(-1, 1))]
    _run("gesdd", prefix, scalars, matrices, rows, work, flops=4 * m * n * k + 8 * k**3)
    return s, u, vt, info
