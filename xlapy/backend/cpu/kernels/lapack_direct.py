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
from dataclasses import dataclass
from functools import partial
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import get_cython_function_address, intrinsic

from xlapy.backend.cpu.kernels import blas
from xlapy.backend.cpu.kernels.typed_args import read_only
from xlapy.interpreter.evals.lapack import PREFIX_DTYPES
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
Split only when ``blas.spare_core`` saw an idle core was measured no better: at a load of
3-4 (spare_core False) jnp.linalg.eigh still ran 0.89 ms (p10) split against 1.0 on one
thread, the other load coming and going.
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


@functools.cache
def _empty(dtype: np.dtype) -> Array:
    """An empty C-contiguous batch of ``dtype`` matrices, for the matrix slots a call leaves
    unused (shared: nothing is written to it)."""
    return np.zeros((0, 0, 0), dtype)


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


@dataclass(frozen=True)
class _Prepared:
    """A routine's calls on batches of one shape, everything but the arrays settled once
    (address, scalar arguments, argument positions): a call is then
    little more than ``_batched``'s dispatch (a LAPACK step's Python work ~5 -> ~3 us)."""

    fn: int
    nargs: int
    ptrs: Array
    keep: tuple[Array, ...]
    """The scalar arguments ``ptrs`` points at."""
    positions: tuple[int, int, int, int, int, int, int]
    """Argument positions of the matrices a, b, c, the rows u, v and the workspaces w, iw
    (``_UNUSED``: not passed)."""
    count: int
    flops: float
    """About how many floating-point operations one matrix takes."""
    small: bool
    """Whether the matrices have at most ``_SPLIT_MAX_DIM`` rows and columns."""

    def __call__(
        self,
        a: Array,
        a_out: Array,
        b: Array,
        b_out: Array,
        c: Array,
        c_out: Array,
        u: Array,
        v: Array,
        w: Array,
        iw: Array,
    ) -> None:
        """One routine call per matrix (``_batched``'s arguments; an unused matrix is an
        empty batch, an unused row batch ``_NONE``, unused workspaces ``_NO_WORK`` and
        ``_NO_IWORK``)."""
        a_at, b_at, c_at, u_at, v_at, w_at, iw_at = self.positions
        fn, nargs, count = self.fn, self.nargs, self.count
        args = (a, a_out, a_at, b, b_out, b_at, c, c_out, c_at, u, u_at, v, v_at)
        split = count >= 2 and count * self.flops >= _SPLIT_FLOPS and self.small
        if not split:
            _batched(fn, nargs, self.ptrs.copy(), *args, w, w_at, iw, iw_at, 0, count)
            return
        share = -(-count // blas.workers())
        per_block = max(1, min(share, round(_BLOCK_FLOPS / max(self.flops, 1.0))))
        starts = iter(range(0, count, per_block))  # shared by the tasks: next() is atomic

        def task(first: bool) -> None:
            ws, iws = (w, iw) if first else (np.empty_like(w), np.empty_like(iw))
            ptrs = self.ptrs.copy()
            for lo in starts:
                _batched(fn, nargs, ptrs, *args, ws, w_at, iws, iw_at, lo, lo + per_block)

        blas.run_parallel([partial(task, k == 0) for k in range(min(blas.workers(), count))])


def _prepare(
    kind: str,
    prefix: str,
    scalars: tuple[tuple[int, str, object], ...],
    positions: Sequence[int],
    count: int,
    largest: int,
    flops: float,
) -> _Prepared:
    """The calls of routine ``prefix + kind`` on ``count`` matrices of at most ``largest``
    rows and columns. ``scalars``: the scalar arguments (``_template``); ``positions``: as
    ``_Prepared.positions`` (fewer: the rest unused). ``flops``: about how many
    floating-point operations one matrix takes; a batch of at least ``_SPLIT_FLOPS`` of small
    matrices (``_SPLIT_MAX_DIM``) is split into blocks of matrices (``_BLOCK_FLOPS``) that
    one thread per core takes in turn, each thread with its own workspaces (every matrix gets
    the same call either way: the same results)."""
    ptrs, keep = _template(_NARGS[kind], scalars)
    at = (*positions, *[_UNUSED] * (7 - len(positions)))
    small = largest <= _SPLIT_MAX_DIM
    fn = _address(kind, prefix)
    return _Prepared(fn, _NARGS[kind], ptrs, keep, at, count, flops, small)  # type: ignore[arg-type]


def _batch(a: Array) -> Array:
    """``a`` as a C-contiguous read-only batch of matrices (or rows): inputs reach
    ``_batched`` read only whatever the caller's flags (a program's parameters may be
    read-only views, its intermediates are not), so its calls take the argument types
    ``type_calls`` compiled (``typed_args``)."""
    return read_only(a)


def type_calls(routine: str, prefix: str) -> None:
    """Types ``_batched`` now for the calls of ``routine`` (a ``_NARGS`` key) on ``prefix``'s
    matrices, by calling the routine's function on an empty batch (no routine runs): numba
    compiles it into its cache, or loads it from there, when the kernel is built (in the
    tier worker, then on the tier-up thread) instead of on the program's first call
    (cholesky's potrf and trsm: ~1.1 s to compile, ~9 ms to load). The argument types
    depend on the routine and dtype only: inputs are read-only views (``_batch``),
    everything else is allocated here alike at any shape."""
    a = np.zeros((0, 1, 1), PREFIX_DTYPES[prefix])
    if routine == "potrf":
        potrf(prefix, a, True)
    elif routine == "getrf":
        getrf(prefix, a)
    elif routine == "trsm":
        trsm(prefix, a, a, False, True, "N", False)
    elif routine == "geqrf":
        geqrf(prefix, a)
    elif routine in ("orgqr", "ungqr"):
        orgqr(prefix, a, a[:, 0])
    elif routine == "syevd":
        syevd(prefix, a, True)
    elif routine == "gesdd":
        gesdd(prefix, a, False)
    else:
        raise ValueError(f"no batched calls of LAPACK routine {routine!r}")


@functools.lru_cache(maxsize=256)
def _potrf(prefix: str, count: int, n: int, lower: bool) -> _Prepared:
    scalars = ((0, "c", "L" if lower else "U"), (1, "i", n), (3, "i", n))
    return _prepare("potrf", prefix, scalars, (2, -1, -1, 4), count, n, n**3 / 3)


def potrf(prefix: str, a: Array, lower: bool) -> tuple[Array, Array]:
    """``(factor, info)`` of every matrix of ``a`` (batch, n, n), n > 0; the other triangle is
    left as it was (scipy's ``clean=0``)."""
    a = _batch(a)
    count = a.shape[0]
    out = np.empty_like(a)
    info = np.zeros((count, 1), np.int32)
    e = _empty(a.dtype)
    _potrf(prefix, count, a.shape[1], lower)(a, out, e, e, e, e, info, _NONE, _NO_WORK, _NO_IWORK)
    return out, info.reshape(count)


@functools.lru_cache(maxsize=256)
def _getrf(prefix: str, count: int, m: int, n: int) -> _Prepared:
    scalars = ((0, "i", m), (1, "i", n), (3, "i", m))
    return _prepare(
        "getrf", prefix, scalars, (2, -1, -1, 4, 5), count, max(m, n), m * n * min(m, n)
    )


def getrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(lu, 1-based pivots, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0."""
    a = _batch(a)
    count, m, n = a.shape
    out = np.empty_like(a)
    piv = np.zeros((count, min(m, n)), np.int32)
    info = np.zeros((count, 1), np.int32)
    e = _empty(a.dtype)
    _getrf(prefix, count, m, n)(a, out, e, e, e, e, piv, info, _NO_WORK, _NO_IWORK)
    return out, piv, info.reshape(count)


@functools.lru_cache(maxsize=256)
def _trsm(
    prefix: str,
    dtype: str,
    count: int,
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
    right: bool,
    lower: bool,
    trans: str,
    unit: bool,
) -> _Prepared:
    (k, _), (m, n) = shapes
    scalars = (
        (0, "c", "R" if right else "L"),
        (1, "c", "L" if lower else "U"),
        (2, "c", trans),
        (3, "c", "U" if unit else "N"),
        (4, "i", m),
        (5, "i", n),
        (6, dtype, 1),
        (8, "i", k),
        (10, "i", m),
    )
    return _prepare("trsm", prefix, scalars, (7, 9), count, max(k, m, n), m * n * shapes[0][1])


def trsm(
    prefix: str, a: Array, b: Array, right: bool, lower: bool, trans: str, unit: bool
) -> Array:
    """``op(a) x = b`` (or ``x op(a) = b`` with ``right``) for every matrix, alpha 1, b
    non-empty."""
    a, b = _batch(a), _batch(b)
    out = np.empty_like(b)
    shapes = (a.shape[1:], b.shape[1:])
    prepared = _trsm(prefix, a.dtype.str, b.shape[0], shapes, right, lower, trans, unit)
    e = _empty(b.dtype)
    prepared(a, e, b, out, e, e, _NONE, _NONE, _NO_WORK, _NO_IWORK)
    return out


@functools.lru_cache(maxsize=256)
def _geqrf(prefix: str, count: int, m: int, n: int) -> _Prepared:
    scalars = ((0, "i", m), (1, "i", n), (3, "i", m), (6, "i", max(3 * n, 1)))
    flops = 2 * m * n * min(m, n)
    return _prepare("geqrf", prefix, scalars, (2, -1, -1, 4, 7, 5), count, max(m, n), flops)


def geqrf(prefix: str, a: Array) -> tuple[Array, Array, Array]:
    """``(qr, tau, info)`` of every matrix of ``a`` (batch, m, n), m, n > 0, with scipy's
    default workspace ``max(3n, 1)`` (the workspace size decides LAPACK's block size)."""
    a = _batch(a)
    count, m, n = a.shape
    out = np.empty_like(a)
    tau = np.zeros((count, min(m, n)), a.dtype)
    info = np.zeros((count, 1), np.int32)
    work = np.zeros(max(3 * n, 1), a.dtype)
    e = _empty(a.dtype)
    _geqrf(prefix, count, m, n)(a, out, e, e, e, e, tau, info, work, _NO_IWORK)
    return out, tau, info.reshape(count)


@functools.lru_cache(maxsize=256)
def _orgqr(prefix: str, count: int, m: int, n: int, k: int) -> _Prepared:
    kind = "ungqr" if prefix in "cz" else "orgqr"
    scalars = ((0, "i", m), (1, "i", n), (2, "i", k), (4, "i", m), (7, "i", max(3 * n, 1)))
    return _prepare(kind, prefix, scalars, (3, -1, -1, 5, 8, 6), count, max(m, n), 2 * m * n * k)


def orgqr(prefix: str, a: Array, tau: Array) -> tuple[Array, Array]:
    """``(q, info)``: the first n columns of Q from every (a, tau) of geqrf, m >= n >= k > 0,
    with scipy's default workspace ``max(3n, 1)``."""
    a = _batch(a)
    count, m, n = a.shape
    out = np.empty_like(a)
    info = np.zeros((count, 1), np.int32)
    work = np.zeros(max(3 * n, 1), a.dtype)
    e = _empty(a.dtype)
    prepared = _orgqr(prefix, count, m, n, tau.shape[-1])
    prepared(a, out, e, e, e, e, _batch(tau), info, work, _NO_IWORK)
    return out, info.reshape(count)


@functools.lru_cache(maxsize=256)
def _syevd(prefix: str, count: int, n: int, lower: bool) -> _Prepared:
    scalars = (
        (0, "c", "V"),
        (1, "c", "L" if lower else "U"),
        (2, "i", n),
        (4, "i", n),
        (7, "i", max(1 + 6 * n + 2 * n * n, 1)),
        (9, "i", 3 + 5 * n),
    )
    return _prepare("syevd", prefix, scalars, (3, -1, -1, 5, 10, 6, 8), count, n, 9 * n**3)


def syevd(prefix: str, a: Array, lower: bool) -> tuple[Array, Array, Array]:
    """``(eigenvectors, eigenvalues, info)`` of every real symmetric matrix of ``a``
    (batch, n, n), n > 0, with scipy's default workspaces (``1 + 6n + 2n^2``, ``3 + 5n``)."""
    a = _batch(a)
    count, n = a.shape[0], a.shape[-1]
    out = np.empty_like(a)
    w = np.zeros((count, n), a.dtype)
    info = np.zeros((count, 1), np.int32)
    work = np.zeros(max(1 + 6 * n + 2 * n * n, 1), a.dtype)
    iwork = np.zeros(3 + 5 * n, np.int32)
    e = _empty(a.dtype)
    _syevd(prefix, count, n, lower)(a, out, e, e, e, e, w, info, work, iwork)
    return out, w, info.reshape(count)


def _gesdd_lwork(m: int, n: int) -> int:
    """scipy's default gesdd workspace with singular vectors: ``max(4k^2 + max(m, n) + 9k,
    1)``, k = min(m, n)."""
    k = min(m, n)
    return max(4 * k * k + max(m, n) + 9 * k, 1)


@functools.lru_cache(maxsize=256)
def _gesdd(prefix: str, count: int, m: int, n: int, full: bool) -> _Prepared:
    k = min(m, n)
    scalars = (
        (0, "c", "A" if full else "S"),
        (1, "i", m),
        (2, "i", n),
        (4, "i", m),
        (7, "i", m),
        (9, "i", n if full else k),
        (11, "i", _gesdd_lwork(m, n)),
    )
    flops = 4 * m * n * k + 8 * k**3
    return _prepare("gesdd", prefix, scalars, (3, 6, 8, 5, 13, 10, 12), count, max(m, n), flops)


def gesdd(prefix: str, a: Array, full: bool) -> tuple[Array, Array, Array, Array]:
    """``(s, u, vt, info)`` of every real matrix of ``a`` (batch, m, n), m, n > 0, singular
    vectors computed (``full``: jobz "A", else the thin "S"), with scipy's default
    workspaces (``_gesdd_lwork``, ``iwork`` of ``8k``, k = min(m, n))."""
    a = _batch(a)
    count, m, n = a.shape
    k = min(m, n)
    u = np.empty((count, m, m if full else k), a.dtype)
    vt = np.empty((count, n if full else k, n), a.dtype)
    s = np.zeros((count, k), a.dtype)
    info = np.zeros((count, 1), np.int32)
    work = np.zeros(_gesdd_lwork(m, n), a.dtype)
    e = _empty(a.dtype)
    iwork = np.zeros(8 * k, np.int32)
    _gesdd(prefix, count, m, n, full)(a, e, e, u, e, vt, s, info, work, iwork)
    return s, u, vt, info.reshape(count)
