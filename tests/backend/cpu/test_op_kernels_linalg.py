"""The compiled LAPACK custom-call kernels (``kernels/linalg.py``) against the interpreter,
bit for bit: JAX's own lowerings of qr, eigh, solve (getrf, trsm), cholesky (potrf, trsm),
svd, in f32, f64 and c128, batched, with an empty batch and NaN inputs; every LAPACK custom
call of these programs runs as a kernel, none as an interpreter eval. The whole-batch loops
run on one thread and split into blocks over threads (``split``): the same bits."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numba
import numpy as np
import pytest
from op_kernels_util import assert_outputs_same, assert_same

import xlapy


def _spd(rng, batch, n, dtype):
    a = rng.standard_normal((*batch, n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((*batch, n, n))
    spd = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return spd.astype(dtype)


def _general(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.fixture(params=["one thread", "split"])
def split(request, monkeypatch):
    """``split``: every batch of ``lapack_direct`` is split into blocks of matrices over three
    threads, however small (one block per matrix for a batch of 2 or 3)."""
    from xlapy.backend.cpu.kernels import blas, lapack_direct

    if request.param == "split":
        monkeypatch.setattr(lapack_direct, "_SPLIT_FLOPS", 0.0)
        monkeypatch.setattr(blas, "workers", lambda: 3)


def _cholesky_solve(a, b):
    return jsl.cho_solve(jsl.cho_factor(a), b)


MODELS = {
    "qr": (lambda a: jnp.linalg.qr(a), lambda r, d, b: [_general(r, (*b, 12, 7), d)]),
    "eigh": (
        lambda a: jnp.linalg.eigh(a),
        lambda r, d, b: [_spd(r, b, 6, d)],
    ),
    "solve": (
        lambda a, x: jnp.linalg.solve(a, x),
        lambda r, d, b: [_general(r, (*b, 5, 5), d), _general(r, (*b, 5, 3), d)],
    ),
    "cholesky": (
        _cholesky_solve,
        lambda r, d, b: [_spd(r, b, 5, d), _general(r, (*b, 5, 2), d)],
    ),
    "svd": (lambda a: jnp.linalg.svd(a), lambda r, d, b: [_general(r, (*b, 6, 4), d)]),
}


def _compare(fn, args):
    with jax.enable_x64(True):  # f64/c128 arguments stay wide; no other test sees the flag
        text = jax.jit(fn).lower(*args).as_text()
    module = xlapy.load(text)
    exe = xlapy.compile(module, platform="cpu", tiered=False)
    report = exe.report()
    lapack = [line for line in report.splitlines() if line.split()[1:2] == ["custom-call"]]
    assert lapack, report
    assert all(" LAPACK " in line for line in lapack), report
    got = exe(*args)
    want = xlapy.run(module, *args, platform="interpreter")
    return assert_outputs_same(got, want)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_lapack_programs_match_the_interpreter(name, dtype, split):
    fn, make = MODELS[name]
    args = make(np.random.default_rng(1), np.dtype(dtype), (3,))
    want = _compare(fn, args)
    if name == "solve":  # the values are right, not only equal to the interpreter's
        a, b = args
        tol = 1e-3 if dtype == np.float32 else 1e-9
        np.testing.assert_allclose(a @ want[0], b, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_direct_kernels_type_their_loop_when_built(name, monkeypatch):
    """Building a LAPACK kernel types ``lapack_direct._batched`` (a lazily typed numba
    dispatcher) for the calls it makes, so a compiled tier loads it while it is built and
    no call compiles or loads it: a fresh dispatcher has its signatures once the program is
    compiled and gets none from calls, with writable or read-only operands."""
    from xlapy.backend.cpu.kernels import lapack_direct

    fresh = numba.njit(cache=True, nogil=True)(lapack_direct._batched.py_func)
    monkeypatch.setattr(lapack_direct, "_batched", fresh)
    fn, make = MODELS[name]
    args = make(np.random.default_rng(3), np.dtype(np.float32), (2,))
    module = xlapy.load(jax.jit(fn).lower(*args).as_text())
    exe = xlapy.compile(module, platform="cpu", tiered=False)
    typed = list(fresh.signatures)
    assert typed, exe.report()
    read_only = [np.array(a) for a in args]
    for a in read_only:
        a.flags.writeable = False
    got, again = exe(*args), exe(*read_only)
    assert fresh.signatures == typed
    want = xlapy.run(module, *args, platform="interpreter")
    assert_outputs_same(got, want)
    assert_outputs_same(again, want)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_lapack_programs_empty_batch(name):
    fn, make = MODELS[name]
    args = make(np.random.default_rng(2), np.dtype(np.float32), (0,))
    for w in _compare(fn, args):
        assert w.shape[0] == 0


@pytest.mark.parametrize("name", sorted(MODELS))
def test_lapack_programs_nan_inputs(name):
    fn, make = MODELS[name]
    args = make(np.random.default_rng(3), np.dtype(np.float64), (2, 2))
    args[0][1, 0, 0, 0] = np.nan
    _compare(fn, args)


def test_svd_of_nan_matrix_is_nan_as_in_xla():
    """gesdd rejects a NaN matrix (info -4); JAX turns that into NaN results, and so must we."""
    a = _general(np.random.default_rng(4), (2, 6, 4), np.float64)
    a[1, 2, 3] = np.nan
    fn = MODELS["svd"][0]
    got = _compare(fn, [a])
    with jax.enable_x64(True):
        xla = [np.asarray(x) for x in jax.jit(fn)(a)]
    for g, x in zip(got, xla, strict=True):
        assert np.isnan(g[1]).all()
        assert np.isnan(x[1]).all()
        np.testing.assert_allclose(np.abs(g[0]), np.abs(x[0]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("prefix", ["s", "d", "c", "z"])
def test_direct_batched_routines_equal_scipy_wrappers(prefix, split):
    """The whole-batch numba loops make the call scipy's wrappers make, for every option."""
    import scipy.linalg.blas as blas
    import scipy.linalg.lapack as lapack

    from xlapy.backend.cpu.kernels import lapack_direct

    dtype = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}[prefix]
    rng = np.random.default_rng(7)
    spd = _spd(rng, (4,), 7, dtype)
    spd[3, 2, 2] = -100.0  # not positive definite: info > 0, as LAPACK reports it
    for lower in (True, False):
        c, info = lapack_direct.potrf(prefix, spd, lower)
        for i in range(4):
            want, want_info = getattr(lapack, prefix + "potrf")(spd[i], lower=lower, clean=0)
            assert_same(c[i], want)
            assert info[i] == want_info
    assert info[3] > 0
    wide = _general(rng, (4, 7, 4), dtype)
    lu, piv, info = lapack_direct.getrf(prefix, wide)
    for i in range(4):
        want_lu, want_piv, want_info = getattr(lapack, prefix + "getrf")(wide[i])
        assert_same(lu[i], want_lu)
        assert_same(piv[i], (want_piv + 1).astype(np.int32))
        assert info[i] == want_info
    for right, b in (
        (False, _general(rng, (4, 7, 3), dtype)),
        (True, _general(rng, (4, 3, 7), dtype)),
    ):
        for lower in (True, False):
            for trans, code in (("N", 0), ("T", 1), ("C", 2)):
                for unit in (False, True):
                    x = lapack_direct.trsm(prefix, spd, b, right, lower, trans, unit)
                    for i in range(4):
                        want = getattr(blas, prefix + "trsm")(
                            1.0,
                            spd[i],
                            b[i],
                            side=int(right),
                            lower=int(lower),
                            trans_a=code,
                            diag=int(unit),
                        )
                        assert_same(x[i], want)


@pytest.mark.parametrize("prefix", ["s", "d", "c", "z"])
def test_direct_workspace_routines_equal_scipy_wrappers(prefix, split):
    """geqrf, orgqr/ungqr and syevd with scipy's default workspaces give scipy's bits, on
    shapes where the workspace decides the block size; operands are never overwritten (a
    one-column matrix is contiguous either way)."""
    import scipy.linalg.lapack as lapack

    from xlapy.backend.cpu.kernels import lapack_direct

    dtype = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}[prefix]
    rng = np.random.default_rng(8)
    for m, n in ((100, 70), (48, 32), (5, 1)):
        a = _general(rng, (2, m, n), dtype)
        before = a.copy()
        qr, tau, _ = lapack_direct.geqrf(prefix, a)
        q, _ = lapack_direct.orgqr(prefix, qr, tau)
        assert_same(a, before)
        name = prefix + ("ungqr" if prefix in "cz" else "orgqr")
        for i in range(2):
            want_qr, want_tau, _, _ = getattr(lapack, prefix + "geqrf")(a[i])
            assert_same(qr[i], want_qr)
            assert_same(tau[i], want_tau)
            assert_same(q[i], getattr(lapack, name)(want_qr, want_tau)[0])
    if prefix in "sd":
        for n in (70, 1):
            s = _spd(rng, (2,), n, dtype)
            before = s.copy()
            for lower in (True, False):
                v, w, info = lapack_direct.syevd(prefix, s, lower)
                for i in range(2):
                    want_w, want_v, want_info = getattr(lapack, prefix + "syevd")(
                        s[i], compute_v=1, lower=int(lower)
                    )
                    assert_same(v[i], want_v)
                    assert_same(w[i], want_w)
                    assert info[i] == want_info
            assert_same(s, before)
        for m, n in ((48, 32), (7, 30), (5, 1)):
            a = _general(rng, (2, m, n), dtype)
            before = a.copy()
            for full in (True, False):
                sv, u, vt, info = lapack_direct.gesdd(prefix, a, full)
                for i in range(2):
                    want_u, want_s, want_vt, want_info = getattr(lapack, prefix + "gesdd")(
                        a[i], compute_uv=1, full_matrices=int(full)
                    )
                    assert_same(u[i], want_u)
                    assert_same(sv[i], want_s)
                    assert_same(vt[i], want_vt)
                    assert info[i] == want_info
            assert_same(a, before)


def test_thin_svd_matches_the_interpreter():
    a = _general(np.random.default_rng(10), (3, 4, 6), np.float32)
    _compare(lambda x: jnp.linalg.svd(x, full_matrices=False), [a])


def test_direct_trsm_leaves_a_one_column_operand_alone():
    from xlapy.backend.cpu.kernels import lapack_direct

    rng = np.random.default_rng(9)
    a = _spd(rng, (3,), 6, np.float64)
    b = _general(rng, (3, 6, 1), np.float64)
    before_a, before_b = a.copy(), b.copy()
    lapack_direct.trsm("d", a, b, False, True, "N", False)
    lapack_direct.potrf("d", a, True)
    assert_same(a, before_a)
    assert_same(b, before_b)
