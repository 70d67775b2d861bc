"""JAX's CPU LAPACK custom calls, with the operand/result shapes and backend_config that
``jax.jit(...).lower(x).compiler_ir('hlo')`` prints for jax 0.10, against jax's results."""

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.shape import Shape

jax = pytest.importorskip("jax")
jnp = jax.numpy
jsl = pytest.importorskip("jax.scipy.linalg")

S32 = dtypes.S32


def custom_call(target, shapes, values, config=""):
    values = [np.asarray(v) for v in values]
    operands = [
        HloInstruction(
            Opcode.PARAMETER,
            Shape.array(dtypes.from_numpy(v.dtype), v.shape),
            attrs={"parameter_number": i},
        )
        for i, v in enumerate(values)
    ]
    shape = Shape.tuple_of(shapes) if len(shapes) > 1 else shapes[0]
    instr = HloInstruction(
        Opcode.CUSTOM_CALL, shape, operands, {"custom_call_target": target}, backend_config=config
    )
    return Evaluator(HloModule("m")).evaluate(instr, values)


def A(dtype, *dims):
    return Shape.array(dtypes.from_numpy(np.dtype(dtype)), dims)


TYPES = [("s", np.float32), ("c", np.complex64)]


def random(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def hermitian_pd(rng, n, dtype):
    m = random(rng, (2, n, n), dtype)
    return (m @ np.conj(m.transpose(0, 2, 1)) + n * np.eye(n)).astype(dtype)


def close(got, expected, tol=1e-4):
    np.testing.assert_allclose(got, np.asarray(expected), rtol=tol, atol=tol)


@pytest.mark.parametrize(("p", "dtype"), TYPES)
def test_potrf(p, dtype):
    rng = np.random.default_rng(0)
    a = hermitian_pd(rng, 3, dtype)
    a[1, 2, 2] = -50  # not positive definite: info > 0
    factor, info = custom_call(
        f"lapack_{p}potrf_ffi", [A(dtype, 2, 3, 3), A(np.int32, 2)], [a], "{uplo = 76 : ui8}"
    )
    assert info.tolist()[0] == 0
    assert info.tolist()[1] > 0
    close(np.tril(factor[0]), jnp.linalg.cholesky(a[0]))
    np.testing.assert_array_equal(np.triu(factor[0], 1), np.triu(a[0], 1))  # untouched


@pytest.mark.parametrize(("p", "dtype"), TYPES)
def test_getrf_pivots_are_one_based(p, dtype):
    x = random(np.random.default_rng(1), (2, 4, 3), dtype)
    lu, pivots, info = custom_call(
        f"lapack_{p}getrf_ffi", [A(dtype, 2, 4, 3), A(np.int32, 2, 3), A(np.int32, 2)], [x]
    )
    expected_lu, expected_pivots, _ = jax.lax.linalg.lu(x)
    close(lu, expected_lu)
    np.testing.assert_array_equal(pivots - 1, expected_pivots)
    np.testing.assert_array_equal(info, [0, 0])


@pytest.mark.parametrize(
    ("p", "orgqr", "dtype"), [("s", "orgqr", np.float32), ("c", "ungqr", np.complex64)]
)
def test_geqrf_and_householder_product(p, orgqr, dtype):
    x = random(np.random.default_rng(2), (2, 4, 3), dtype)
    qr, tau = custom_call(f"lapack_{p}geqrf_ffi", [A(dtype, 2, 4, 3), A(dtype, 2, 3)], [x])
    q = custom_call(f"lapack_{p}{orgqr}_ffi", [A(dtype, 2, 4, 3)], [qr, tau])
    expected_q, expected_r = jnp.linalg.qr(x)
    close(q, expected_q)
    close(np.triu(qr[:, :3]), expected_r)


@pytest.mark.parametrize(
    ("p", "routine", "dtype"), [("s", "syevd", np.float32), ("c", "heevd", np.complex64)]
)
def test_eigh(p, routine, dtype):
    a = hermitian_pd(np.random.default_rng(3), 3, dtype)
    real = np.float32
    v, w, _info = custom_call(
        f"lapack_{p}{routine}_ffi",
        [A(dtype, 2, 3, 3), A(real, 2, 3), A(np.int32, 2)],
        [a],
        "{mode = 86 : ui8, uplo = 76 : ui8}",
    )
    expected_w, _ = jnp.linalg.eigh(a)
    close(w, expected_w)
    close(v @ (w[..., None] * np.conj(v.transpose(0, 2, 1))), a, 1e-3)


@pytest.mark.parametrize(("p", "dtype"), TYPES)
@pytest.mark.parametrize(("mode", "u_cols", "vt_rows"), [(65, 4, 3), (83, 3, 3), (78, 4, 3)])
def test_gesdd(p, dtype, mode, u_cols, vt_rows):
    x = random(np.random.default_rng(4), (2, 4, 3), dtype)
    shapes = [
        A(dtype, 2, 4, 3),
        A(np.float32, 2, 3),
        A(dtype, 2, 4, u_cols),
        A(dtype, 2, vt_rows, 3),
        A(np.int32, 2),
    ]
    _, s, u, vt, info = custom_call(f"lapack_{p}gesdd_ffi", shapes, [x], f"{{mode = {mode} : ui8}}")
    close(s, jnp.linalg.svd(x, compute_uv=False))
    if mode != 78:
        close(u[..., :3] @ (s[..., None] * vt[..., :3, :]), x)
    np.testing.assert_array_equal(info, [0, 0])


def test_real_geev_unpacks_complex_eigenvectors():
    g = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 2]], np.float32)[None]  # eigenvalues ±i, 2
    shapes = [
        A(np.float32, 1, 3),
        A(np.float32, 1, 3),
        A(np.complex64, 1, 3, 3),
        A(np.complex64, 1, 3, 3),
        A(np.int32, 1),
    ]
    wr, wi, _, vr, _ = custom_call(
        "lapack_sgeev_ffi", shapes, [g], "{compute_left = 78 : ui8, compute_right = 86 : ui8}"
    )
    w = wr + 1j * wi
    close(g[0].astype(np.complex64) @ vr[0], vr[0] * w[0][None, :])
    expected_w, expected_v = jnp.linalg.eig(g)
    close(w, expected_w)
    close(vr, expected_v)


def test_complex_geev():
    g = random(np.random.default_rng(5), (2, 3, 3), np.complex64)
    shapes = [
        A(np.complex64, 2, 3),
        A(np.complex64, 2, 3, 3),
        A(np.complex64, 2, 3, 3),
        A(np.int32, 2),
    ]
    w, _, vr, _ = custom_call(
        "lapack_cgeev_ffi", shapes, [g], "{compute_left = 78 : ui8, compute_right = 86 : ui8}"
    )
    expected_w, expected_v = jnp.linalg.eig(g)
    close(w, expected_w)
    close(vr, expected_v)


def test_gees_schur():
    g = random(np.random.default_rng(6), (3, 3), np.float32)
    shapes = [
        A(np.float32, 3, 3),
        A(np.float32, 3, 3),
        A(np.float32, 3),
        A(np.float32, 3),
        A(np.int32),
        A(np.int32),
    ]
    t, vs, _, _, _, info = custom_call(
        "lapack_sgees_ffi", shapes, [g], "{mode = 86 : ui8, sort = 78 : ui8}"
    )
    expected_t, expected_vs = jsl.schur(g)
    close(t, expected_t)
    close(vs, expected_vs)
    assert int(info) == 0


def test_gehrd_hessenberg():
    g = random(np.random.default_rng(7), (3, 3), np.float32)
    h, _tau, _info = custom_call(
        "lapack_sgehrd_ffi",
        [A(np.float32, 3, 3), A(np.float32, 2), A(np.int32)],
        [g],
        "{high = 3 : i32, low = 1 : i32}",
    )
    close(np.triu(h, -1), jsl.hessenberg(g))


@pytest.mark.parametrize(
    ("p", "routine", "dtype"), [("s", "sytrd", np.float32), ("c", "hetrd", np.complex64)]
)
def test_tridiagonal_reduction(p, routine, dtype):
    a = hermitian_pd(np.random.default_rng(8), 3, dtype)
    shapes = [
        A(dtype, 2, 3, 3),
        A(np.float32, 2, 3),
        A(np.float32, 2, 2),
        A(dtype, 2, 2),
        A(np.int32, 2),
    ]
    c, d, e, tau, _ = custom_call(f"lapack_{p}{routine}_ffi", shapes, [a], "{uplo = 76 : ui8}")
    expected = jax.lax.linalg.tridiagonal(a)
    for got, want in zip((c, d, e, tau), expected, strict=True):
        close(got, want)


@pytest.mark.parametrize(("p", "dtype"), TYPES)
def test_trsm(p, dtype):
    rng = np.random.default_rng(9)
    a = hermitian_pd(rng, 3, dtype)
    b = random(rng, (2, 3, 3), dtype)
    x = custom_call(
        f"lapack_{p}trsm_ffi",
        [A(dtype, 2, 3, 3)],
        [a, b],
        "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}",
    )
    close(x, jsl.solve_triangular(a, b, lower=True))


def test_gtsv():
    rng = np.random.default_rng(10)
    dl = np.array([[0, 1, 2], [0, 3, 1]], np.float32)
    d = np.array([[4, 5, 6], [7, 8, 9]], np.float32)
    du = np.array([[1, 2, 0], [2, 1, 0]], np.float32)
    b = random(rng, (2, 3, 2), np.float32)
    shapes = [A(np.float32, 2, 3)] * 3 + [A(np.float32, 2, 3, 2), A(np.int32, 2)]
    *_, x, info = custom_call("lapack_sgtsv_ffi", shapes, [dl, d, du, b])
    close(x, jax.lax.linalg.tridiagonal_solve(dl, d, du, b))
    np.testing.assert_array_equal(info, [0, 0])
