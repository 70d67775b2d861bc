"""cholesky and triangular-solve: OPS.md examples, XLA:CPU's non-positive-definite
behaviour, every side/triangle/transpose/diagonal combination against XLA through jax."""

import ml_dtypes
import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.ir.attrs import TransposeA
from xlapy.shape import Shape


def param(shape, number):
    return HloInstruction(Opcode.PARAMETER, shape, attrs={"parameter_number": number})


def evaluate(opcode, shape, values, attrs, *, flush_denormals=False):
    """Evaluates one instruction whose operands are ``values``."""
    values = [np.asarray(v) for v in values]
    operands = [
        param(Shape.array(dtypes.from_numpy(v.dtype), v.shape), i) for i, v in enumerate(values)
    ]
    instr = HloInstruction(opcode, shape, operands, attrs)
    options = EvalOptions(flush_denormals=flush_denormals)
    return Evaluator(HloModule("m"), options).evaluate(instr, values)


SPEC_A = np.array([[4, 12, -16], [12, 37, -43], [-16, -43, 98]], np.float32)
SPEC_L = np.array([[2, 0, 0], [6, 1, 0], [-8, 5, 3]], np.float32)


def cholesky(a, lower=True):
    return evaluate(
        Opcode.CHOLESKY,
        Shape.array(dtypes.from_numpy(a.dtype), a.shape),
        [a],
        {"lower": lower},
    )


def test_cholesky_spec_example():
    np.testing.assert_array_equal(cholesky(SPEC_A), SPEC_L)
    np.testing.assert_array_equal(cholesky(SPEC_A, lower=False), SPEC_L.T)


def test_cholesky_reads_only_its_triangle():
    garbage = SPEC_A.copy()
    garbage[np.triu_indices(3, 1)] = 99
    np.testing.assert_array_equal(cholesky(garbage), SPEC_L)
    garbage = SPEC_A.copy()
    garbage[np.tril_indices(3, -1)] = 99
    np.testing.assert_array_equal(cholesky(garbage, lower=False), SPEC_L.T)


def test_cholesky_not_positive_definite_like_xla():
    # XLA:CPU: a negative pivot makes that whole matrix NaN; a zero pivot gives 0/0 NaNs
    # in its column; other matrices of the batch are unaffected.
    negative = SPEC_A.copy()
    negative[2, 2] = -5
    zero_pivot = np.diag(np.array([1, 1, 0], np.float32))
    got = cholesky(np.stack([negative, zero_pivot, SPEC_A]))
    assert np.isnan(got[0]).all()
    expected = np.eye(3, dtype=np.float32)
    expected[2, 2] = np.nan
    np.testing.assert_array_equal(got[1], expected)
    np.testing.assert_array_equal(got[2], SPEC_L)


def test_complex_cholesky_upper():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    a = (m @ m.conj().T + 3 * np.eye(3)).astype(np.complex128)
    u = cholesky(a, lower=False)
    np.testing.assert_allclose(u.conj().T @ u, a, rtol=1e-12)
    np.testing.assert_array_equal(u, np.triu(u))


def triangular_solve(
    a, b, left_side=True, lower=True, unit_diagonal=False, transpose_a=TransposeA.NO_TRANSPOSE
):
    return evaluate(
        Opcode.TRIANGULAR_SOLVE,
        Shape.array(dtypes.from_numpy(b.dtype), b.shape),
        [a, b],
        {
            "left_side": left_side,
            "lower": lower,
            "unit_diagonal": unit_diagonal,
            "transpose_a": transpose_a,
        },
    )


def test_triangular_solve_spec_example():
    a = np.array([[2, 0], [1, 1]], np.float32)
    b = np.array([[2], [3]], np.float32)
    np.testing.assert_array_equal(triangular_solve(a, b), [[1], [2]])
    np.testing.assert_array_equal(triangular_solve(a, b, unit_diagonal=True), [[2], [1]])


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
@pytest.mark.parametrize("transpose_a", list(TransposeA))
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_triangular_solve_matches_jax(left_side, lower, unit_diagonal, transpose_a, dtype):
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((2, 4, 3) if left_side else (2, 3, 4))
    if dtype is np.complex64:
        a = a + 1j * rng.standard_normal(a.shape)
        b = b + 1j * rng.standard_normal(b.shape)
    a, b = a.astype(dtype), b.astype(dtype)
    expected = jax.lax.linalg.triangular_solve(
        a,
        b,
        left_side=left_side,
        lower=lower,
        unit_diagonal=unit_diagonal,
        transpose_a=transpose_a is not TransposeA.NO_TRANSPOSE,
        conjugate_a=transpose_a is TransposeA.ADJOINT,
    )
    got = triangular_solve(a, b, left_side, lower, unit_diagonal, transpose_a)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-5, atol=1e-5)


def test_triangular_solve_bf16_rounds_once():
    bf16 = ml_dtypes.bfloat16
    a = np.array([[3, 0], [1, 7]], bf16)
    b = np.array([[1], [1]], bf16)
    got = triangular_solve(a, b)
    assert got.dtype == bf16
    exact = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_array_equal(got, exact.astype(np.float32).astype(bf16))
