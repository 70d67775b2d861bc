"""dot (dot_general), ragged-dot and scaled-dot: OPS.md examples, exact integer wrap-around,
narrow-float accumulation, mixed and complex types, XLA through jax."""

import ml_dtypes
import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
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


def dot(lhs, rhs, element_type, out_dims, lb=(), lc=(1,), rb=(), rc=(0,), **kw):
    attrs = {
        "lhs_batch_dims": lb,
        "lhs_contracting_dims": lc,
        "rhs_batch_dims": rb,
        "rhs_contracting_dims": rc,
    }
    return evaluate(Opcode.DOT, Shape.array(element_type, out_dims), [lhs, rhs], attrs, **kw)


def test_dot_spec_examples():
    f = np.float32
    assert float(dot(np.array([1, 2, 3], f), np.array([4, 5, 6], f), dtypes.F32, [], lc=(0,))) == 32
    m = np.array([[1, 2], [3, 4]], f)
    np.testing.assert_array_equal(dot(m, np.array([5, 6], f), dtypes.F32, [2]), [17, 39])
    np.testing.assert_array_equal(
        dot(m, np.array([[5, 6], [7, 8]], f), dtypes.F32, [2, 2]), [[19, 22], [43, 50]]
    )


def test_dot_general_spec_examples():
    lhs = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    rhs = np.array([[1, 1, 1], [2, 2, 2]], np.float32)
    got = dot(lhs, rhs, dtypes.F32, [2, 2], lc=(1,), rc=(1,))
    np.testing.assert_array_equal(got, [[6, 12], [15, 30]])
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], np.float32)
    rhs = np.broadcast_to(np.eye(2, dtype=np.float32), (2, 2, 2))
    got = dot(lhs, rhs, dtypes.F32, [2, 2, 2], lb=(0,), lc=(2,), rb=(0,), rc=(1,))
    np.testing.assert_array_equal(got, lhs)


def test_result_dimension_order_is_batch_lhs_rhs():
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((3, 2, 4, 5))  # free 3, batch 2 (dim 1), contract 4, free 5
    rhs = rng.standard_normal((4, 6, 2))  # contract 4, free 6, batch 2
    got = dot(lhs, rhs, dtypes.F64, [2, 3, 5, 6], lb=(1,), lc=(2,), rb=(2,), rc=(0,))
    np.testing.assert_allclose(got, np.einsum("abkc,kdb->bacd", lhs, rhs), rtol=1e-12)


@pytest.mark.parametrize("element_type", [dtypes.S8, dtypes.U8, dtypes.S32, dtypes.U64, dtypes.S4])
def test_integer_dot_wraps_in_result_type(element_type):
    rng = np.random.default_rng(1)
    info = np.iinfo(np.int8 if element_type.is_signed else np.uint8)
    lhs = rng.integers(info.min, info.max, (3, 17)).astype(element_type.numpy)
    rhs = rng.integers(info.min, info.max, (17, 2)).astype(element_type.numpy)
    got = dot(lhs, rhs, element_type, [3, 2])
    exact = lhs.astype(np.int64) @ rhs.astype(np.int64)
    bits = element_type.bits
    wrapped = exact % (1 << bits) if bits < 64 else exact.astype(np.uint64)
    if element_type.is_signed:
        wrapped = np.where(wrapped >= 1 << (bits - 1), wrapped - (1 << bits), wrapped)
    assert got.dtype == element_type.numpy
    np.testing.assert_array_equal(got.astype(np.int64), np.asarray(wrapped).astype(np.int64))


def test_bf16_dot_accumulates_in_f32_and_rounds_once():
    bf16 = ml_dtypes.bfloat16
    lhs = np.array([[1.0, 2.0**-8, 2.0**-8]], bf16)
    rhs = np.ones((3, 1), bf16)
    got = dot(lhs, rhs, dtypes.BF16, [1, 1])
    # Accumulating in bf16 would round 1 + 2^-8 back to 1 twice; f32 keeps 1 + 2^-7.
    assert got.dtype == bf16
    assert float(got[0, 0]) == 1.0 + 2.0**-7


def ulp_distance(a, b):
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    a = np.ascontiguousarray(a).view(bits).astype(np.int64)
    b = np.ascontiguousarray(b).view(bits).astype(np.int64)
    mask = (1 << (8 * bits().itemsize - 1)) - 1
    return np.abs(np.where(a < 0, -(a & mask), a) - np.where(b < 0, -(b & mask), b))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_small_dots_match_xla_within_3_ulp(dtype):
    # f64 accumulation rounded once can be far (in ULPs) from XLA:CPU's f32 result where
    # the sum cancels; xlapy accumulates as XLA does.
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(11)
    for _ in range(20):
        lhs = (rng.standard_normal((4, 3)) * 4).astype(np.float32)
        rhs = (rng.standard_normal((3, 6)) * 4).astype(np.float32)
        if dtype is np.complex64:
            lhs = (lhs + 1j * rng.standard_normal((4, 3))).astype(dtype)
            rhs = (rhs + 1j * rng.standard_normal((3, 6))).astype(dtype)
        expected = np.asarray(jax.jit(jax.numpy.matmul)(lhs, rhs))
        got = dot(lhs, rhs, dtypes.from_numpy(np.dtype(dtype)), [4, 6])
        if dtype is np.float32:
            assert ulp_distance(got, expected).max() <= 3
        else:  # XLA's complex accumulation order is not reproduced bit for bit
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


def test_mixed_operand_types_and_preferred_type():
    lhs = np.array([[1, 2], [3, 4]], np.int8)
    rhs = np.array([[0.5, 1.0], [1.5, 2.0]], np.float32)
    got = dot(lhs, rhs, dtypes.F32, [2, 2])
    np.testing.assert_array_equal(got, lhs.astype(np.float32) @ rhs)
    got = dot(lhs, lhs, dtypes.S32, [2, 2])
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, lhs.astype(np.int32) @ lhs.astype(np.int32))


def test_complex_dot():
    rng = np.random.default_rng(2)
    lhs = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(np.complex64)
    rhs = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    got = dot(lhs, rhs, dtypes.C64, [2, 4])
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, lhs.astype(np.complex128) @ rhs, rtol=1e-6)


def test_pred_dot_is_or_of_ands():
    lhs = np.array([[True, False], [False, False]])
    rhs = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(
        dot(lhs, rhs, dtypes.PRED, [2, 2]), [[True, False], [False, False]]
    )


def test_flush_denormals_in_f32_dot():
    tiny = np.float32(1e-40)
    got = dot(
        np.array([[tiny]], np.float32),
        np.array([[1.0]], np.float32),
        dtypes.F32,
        [1, 1],
        flush_denormals=True,
    )
    assert got[0, 0] == 0
    got = dot(np.array([[tiny]], np.float32), np.array([[1.0]], np.float32), dtypes.F32, [1, 1])
    assert got[0, 0] == tiny


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_dot_general_matches_jax(dtype):
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(3)
    lhs = rng.standard_normal((2, 5, 3, 4)).astype(dtype)
    rhs = rng.standard_normal((3, 2, 4, 6)).astype(dtype)
    dims = (((2, 3), (0, 2)), ((0,), (1,)))
    expected = np.asarray(
        jax.lax.dot_general(lhs, rhs, dims, precision=jax.lax.Precision.HIGHEST)
    ).astype(np.float64)
    got = dot(
        lhs,
        rhs,
        dtypes.from_numpy(np.dtype(dtype)),
        [2, 5, 6],
        lb=(0,),
        lc=(2, 3),
        rb=(1,),
        rc=(0, 2),
    )
    tolerance = {np.float64: 1e-12, np.float32: 1e-5}.get(dtype, 2e-2)
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=tolerance, atol=tolerance)


def ragged(lhs, rhs, group_sizes, out_dims, element_type=dtypes.F32, **dims):
    attrs = {
        "lhs_batch_dims": (),
        "lhs_contracting_dims": (),
        "rhs_batch_dims": (),
        "rhs_contracting_dims": (),
        "lhs_ragged_dims": (),
        "rhs_group_dims": (),
    }
    attrs.update(dims)
    return evaluate(
        Opcode.RAGGED_DOT, Shape.array(element_type, out_dims), [lhs, rhs, group_sizes], attrs
    )


def test_ragged_dot_mode_1_non_contracting():
    rng = np.random.default_rng(4)
    lhs = rng.standard_normal((11, 5)).astype(np.float32)
    rhs = rng.standard_normal((3, 5, 7)).astype(np.float32)
    sizes = np.array([4, 4, 2], np.int64)  # the last row belongs to no group
    got = ragged(
        lhs,
        rhs,
        sizes,
        [11, 7],
        lhs_contracting_dims=(1,),
        rhs_contracting_dims=(1,),
        lhs_ragged_dims=(0,),
        rhs_group_dims=(0,),
    )
    expected = np.zeros((11, 7))
    for g, (start, stop) in enumerate([(0, 4), (4, 8), (8, 10)]):
        expected[start:stop] = lhs[start:stop].astype(np.float64) @ rhs[g]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_ragged_dot_mode_1_with_batch():
    rng = np.random.default_rng(5)
    lhs = rng.standard_normal((2, 6, 5)).astype(np.float32)
    rhs = rng.standard_normal((3, 2, 5, 4)).astype(np.float32)
    sizes = np.array([1, 3, 2], np.int32)
    got = ragged(
        lhs,
        rhs,
        sizes,
        [2, 6, 4],
        lhs_batch_dims=(0,),
        rhs_batch_dims=(1,),
        lhs_contracting_dims=(2,),
        rhs_contracting_dims=(2,),
        lhs_ragged_dims=(1,),
        rhs_group_dims=(0,),
    )
    group = np.repeat([0, 1, 2], sizes)
    expected = np.einsum("bmk,mbkn->bmn", lhs.astype(np.float64), rhs[group])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_ragged_dot_mode_2_contracting():
    rng = np.random.default_rng(6)
    lhs = rng.standard_normal((3, 6)).astype(np.float32)
    rhs = rng.standard_normal((6, 4)).astype(np.float32)
    sizes = np.array([2, 4], np.int32)
    got = ragged(
        lhs,
        rhs,
        sizes,
        [2, 3, 4],
        lhs_contracting_dims=(1,),
        rhs_contracting_dims=(0,),
        lhs_ragged_dims=(1,),
    )
    expected = np.stack(
        [lhs[:, :2].astype(np.float64) @ rhs[:2], lhs[:, 2:].astype(np.float64) @ rhs[2:]]
    )
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_ragged_dot_mode_3_batch():
    rng = np.random.default_rng(7)
    lhs = rng.standard_normal((4, 2, 3)).astype(np.float32)
    rhs = rng.standard_normal((4, 3, 5)).astype(np.float32)
    sizes = np.array([1, 2], np.int32)  # batch 3 belongs to no group
    got = ragged(
        lhs,
        rhs,
        sizes,
        [4, 2, 5],
        lhs_batch_dims=(0,),
        rhs_batch_dims=(0,),
        lhs_contracting_dims=(2,),
        rhs_contracting_dims=(1,),
        lhs_ragged_dims=(0,),
    )
    expected = np.matmul(lhs.astype(np.float64), rhs)
    expected[3] = 0
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_ragged_dot_matches_jax():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(8)
    lhs = rng.standard_normal((9, 4)).astype(np.float32)
    rhs = rng.standard_normal((3, 4, 5)).astype(np.float32)
    sizes = np.array([3, 5, 1], np.int32)
    expected = np.asarray(jax.lax.ragged_dot(lhs, rhs, sizes, precision=jax.lax.Precision.HIGHEST))
    got = ragged(
        lhs,
        rhs,
        sizes,
        [9, 5],
        lhs_contracting_dims=(1,),
        rhs_contracting_dims=(1,),
        lhs_ragged_dims=(0,),
        rhs_group_dims=(0,),
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_scaled_dot_applies_block_scales():
    f8 = ml_dtypes.float8_e4m3fn
    rng = np.random.default_rng(9)
    lhs = rng.standard_normal((2, 8)).astype(f8)
    rhs = rng.standard_normal((8, 3)).astype(f8)
    lhs_scale = np.array([[2.0, 0.5], [1.0, 4.0]], ml_dtypes.float8_e8m0fnu)  # blocks of 4
    rhs_scale = np.array([[1.0, 2.0, 4.0], [0.5, 1.0, 8.0]], ml_dtypes.float8_e8m0fnu)
    got = evaluate(
        Opcode.SCALED_DOT,
        Shape.array(dtypes.F32, [2, 3]),
        [lhs, lhs_scale, rhs, rhs_scale],
        {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)},
    )
    left = lhs.astype(np.float64) * np.repeat(lhs_scale.astype(np.float64), 4, axis=1)
    right = rhs.astype(np.float64) * np.repeat(rhs_scale.astype(np.float64), 4, axis=0)
    np.testing.assert_allclose(got, (left @ right).astype(np.float32), rtol=1e-7)
