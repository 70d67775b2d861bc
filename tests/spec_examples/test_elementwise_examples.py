"""OPS.md worked examples of element-wise ops (A.4 broadcasting, Abs ... Xor), built with the
builder and checked against the spec's stated results."""

import math

import numpy as np
import pytest
from spec_util import S, assert_close, assert_equal, run

from xlapy import XlaBuilder, ops


def _unary(fn, value, dtype):
    b = XlaBuilder("unary")
    x = ops.Constant(b, np.asarray(value, dtype))
    out = fn(x)
    return out, b.build()


def _binary(fn, lhs, rhs, dtype, *extra):
    b = XlaBuilder("binary")
    out = fn(
        ops.Constant(b, np.asarray(lhs, dtype)), ops.Constant(b, np.asarray(rhs, dtype)), *extra
    )
    return out, b.build()


# ---- A.4 broadcasting ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rhs", "bdims", "want"),
    [
        ([10, 20, 30], (1,), [[11, 22, 33], [14, 25, 36]]),
        ([100, 200], (0,), [[101, 102, 103], [204, 205, 206]]),
    ],
)
def test_a4_add_with_broadcast_dimensions(rhs, bdims, want):
    b = XlaBuilder("a4")
    m = ops.Constant(b, np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    out = ops.Add(m, ops.Constant(b, np.array(rhs, np.float32)), bdims)
    assert out.shape == S("f32[2,3]")
    assert_equal(run(b.build())[0], np.array(want, np.float32))


def test_a4_degenerate_dimensions_and_scalars_broadcast():
    b = XlaBuilder("a4")
    col = ops.Constant(b, np.array([[1], [2]], np.int32))
    row = ops.Constant(b, np.array([[10, 20, 30]], np.int32))
    out = ops.Tuple(b, [ops.Add(col, row), ops.Mul(row, ops.ConstantR0(b, 2))])
    assert out.shape == S("(s32[2,3], s32[1,3])")
    got = run(b.build())
    assert_equal(got[0], [[11, 21, 31], [12, 22, 32]])
    assert_equal(got[1], [[20, 40, 60]])


def test_a4_comparisons_give_pred():
    out, module = _binary(ops.Lt, [1, 5], [3, 3], np.int32)
    assert out.shape == S("pred[2]")
    assert_equal(run(module)[0], [True, False])


# ---- unary -----------------------------------------------------------------------------


def test_abs_of_complex_is_real_and_int_min_wraps():
    out, module = _unary(ops.Abs, [3 + 4j, -1j], np.complex64)
    assert out.shape == S("f32[2]")
    assert_equal(run(module)[0], np.array([5, 1], np.float32))
    out, module = _unary(ops.Abs, [-128, -3], np.int8)
    assert_equal(run(module)[0], np.array([-128, 3], np.int8))


def test_cbrt_of_negative():
    _out, module = _unary(ops.Cbrt, [-8.0, 27.0], np.float32)
    assert_close(run(module)[0], [-2.0, 3.0])


@pytest.mark.parametrize(
    ("value", "dtype", "want"),
    [(0, np.int32, 32), (1, np.uint8, 7), (-1, np.int32, 0)],
)
def test_clz(value, dtype, want):
    out, module = _unary(ops.Clz, value, dtype)
    assert out.shape.element_type.numpy == np.dtype(dtype)
    assert_equal(run(module)[0], np.asarray(want, dtype))


@pytest.mark.parametrize(("value", "dtype", "want"), [(-1, np.int8, 8), (7, np.uint32, 3)])
def test_population_count(value, dtype, want):
    _out, module = _unary(ops.PopulationCount, value, dtype)
    assert_equal(run(module)[0], np.asarray(want, dtype))


def test_imag_and_real_of_float_and_complex():
    b = XlaBuilder("parts")
    c = ops.Constant(b, np.array([1 + 2j, 3 - 4j], np.complex64))
    f = ops.Constant(b, np.array([5.0, -6.0], np.float32))
    out = ops.Tuple(b, [ops.Real(c), ops.Imag(c), ops.Real(f), ops.Imag(f)])
    assert out.shape == S("(f32[2], f32[2], f32[2], f32[2])")
    got = run(b.build())
    for g, w in zip(got, [[1, 3], [2, -4], [5, -6], [0, 0]], strict=True):
        assert_equal(g, np.array(w, np.float32))


def test_is_finite():
    out, module = _unary(ops.IsFinite, [1.0, np.inf, -np.inf, np.nan], np.float32)
    assert out.shape == S("pred[4]")
    assert_equal(run(module)[0], [True, False, False, False])


def test_neg_wraps_int_min_and_not_is_bitwise():
    _, module = _unary(ops.Neg, [-(2**31), 5], np.int32)
    assert_equal(run(module)[0], np.array([-(2**31), -5], np.int32))
    _, module = _unary(ops.Not, [0, 5], np.int8)
    assert_equal(run(module)[0], np.array([-1, -6], np.int8))
    _out, module = _unary(ops.LogicalNot, [True, False], np.bool_)
    assert_equal(run(module)[0], [False, True])


@pytest.mark.parametrize(
    ("fn", "want"),
    [
        (ops.Round, [-3, -0.0, 1, 2, 3]),
        (ops.RoundNearestAfz, [-3, -0.0, 1, 2, 3]),
        (ops.RoundNearestEven, [-2, -0.0, 0, 2, 2]),
    ],
)
def test_rounding(fn, want):
    _out, module = _unary(fn, [-2.5, -0.4, 0.5, 1.5, 2.5], np.float32)
    assert_equal(run(module)[0], np.array(want, np.float32))


def test_sign():
    _, module = _unary(ops.Sign, [-3.0, -0.0, np.nan, 0.0, 2.0], np.float32)
    assert_equal(run(module)[0], np.array([-1, -0.0, np.nan, 0.0, 1], np.float32))
    _out, module = _unary(ops.Sign, [-7, 0, 9], np.int32)
    assert_equal(run(module)[0], np.array([-1, 0, 1], np.int32))


@pytest.mark.parametrize(
    ("fn", "ref"),
    [
        (ops.Cos, np.cos),
        (ops.Cosh, np.cosh),
        (ops.Exp, np.exp),
        (ops.Expm1, np.expm1),
        (ops.Log, np.log),
        (ops.Log1p, np.log1p),
        (ops.Sin, np.sin),
        (ops.Sqrt, np.sqrt),
        (ops.Tan, np.tan),
        (ops.Tanh, np.tanh),
        (ops.Rsqrt, lambda x: 1 / np.sqrt(x)),
        (ops.Logistic, lambda x: 1 / (1 + np.exp(-x))),
        (ops.Erf, lambda x: np.array([math.erf(v) for v in x])),
        (ops.Ceil, np.ceil),
        (ops.Floor, np.floor),
    ],
)
def test_unary_functions(fn, ref):
    values = np.array([0.25, 0.5, 1.0, 2.0], np.float64)
    out, module = _unary(fn, values, np.float64)
    assert out.shape == S("f64[4]")
    assert_close(run(module)[0], ref(values), rtol=1e-14, atol=0)


def test_result_accuracy_is_accepted():
    from xlapy.ir.attrs import ResultAccuracy

    b = XlaBuilder("acc")
    out = ops.Exp(ops.ConstantR0(b, 1.0), ResultAccuracy(mode="highest"))
    assert out.instruction.attrs.result_accuracy == ResultAccuracy(mode="highest")


# ---- binary ----------------------------------------------------------------------------


def test_div_truncates_and_rem_takes_the_dividend_sign():
    _, module = _binary(ops.Div, [-5, -1, 0], [3, -4, -4], np.int32)
    assert_equal(run(module)[0], np.array([-1, 0, 0], np.int32))
    _, module = _binary(ops.Rem, [-2, 8], [5, -2], np.int32)
    assert_equal(run(module)[0], np.array([-2, 0], np.int32))
    _out, module = _binary(ops.Rem, [1.0], [0.0], np.float32)
    assert np.isnan(run(module)[0][0])


@pytest.mark.parametrize(
    ("fn", "want"),
    [
        (ops.Add, [6, 8]),
        (ops.Sub, [-4, -4]),
        (ops.Mul, [5, 12]),
        (ops.Max, [5, 6]),
        (ops.Min, [1, 2]),
        (ops.Pow, [1, 64]),
        (ops.And, [1, 2]),
        (ops.Or, [5, 6]),
        (ops.Xor, [4, 4]),
    ],
)
def test_binary_arithmetic(fn, want):
    _out, module = _binary(fn, [1, 2], [5, 6], np.int32)
    assert_equal(run(module)[0], np.array(want, np.int32))


def test_logical_aliases():
    _, module = _binary(ops.LogicalAnd, [True, True], [True, False], np.bool_)
    assert_equal(run(module)[0], [True, False])
    _out, module = _binary(ops.LogicalOr, [False, False], [True, False], np.bool_)
    assert_equal(run(module)[0], [True, False])


def test_atan2():
    _out, module = _binary(ops.Atan2, [1.0, -1.0], [0.0, 0.0], np.float64)
    assert_close(run(module)[0], [math.pi / 2, -math.pi / 2])


def test_complex():
    out, module = _binary(ops.Complex, [1.0, 3.0], [2.0, 4.0], np.float32)
    assert out.shape == S("c64[2]")
    assert_equal(run(module)[0], np.array([1 + 2j, 3 + 4j], np.complex64))
    out, module = _binary(ops.Complex, [1.0], [2.0], np.float64)
    assert out.shape == S("c128[1]")


@pytest.mark.parametrize(
    ("fn", "lhs", "rhs", "want"),
    [
        (ops.ShiftLeft, [-1, 1, 1, 1], [1, 3, 32, -1], [-2, 8, 0, 0]),
        (ops.ShiftRightArithmetic, [-8, 8, -1, 5], [1, 3, 40, -1], [-4, 1, -1, 0]),
        (ops.ShiftRightLogical, [-1, 8, 5, 5], [28, 3, 32, -1], [15, 1, 0, 0]),
    ],
)
def test_shifts(fn, lhs, rhs, want):
    _out, module = _binary(fn, lhs, rhs, np.int32)
    assert_equal(run(module)[0], np.array(want, np.int32))


# ---- comparisons (A.12) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "lhs", "rhs", "want"),
    [
        (ops.Eq, -0.0, 0.0, True),
        (ops.EqTotalOrder, -0.0, 0.0, False),
        (ops.Eq, np.nan, np.nan, False),
        (ops.Ne, np.nan, np.nan, True),
        (ops.LtTotalOrder, -np.nan, -np.inf, True),
        (ops.Lt, -np.nan, -np.inf, False),
        (ops.LtTotalOrder, -0.0, 0.0, True),
        (ops.Ge, 2.0, 2.0, True),
        (ops.Gt, 2.0, 2.0, False),
        (ops.Le, 1.0, 2.0, True),
        (ops.GeTotalOrder, 0.0, -0.0, True),
        (ops.GtTotalOrder, np.nan, np.inf, True),
        (ops.LeTotalOrder, -0.0, -0.0, True),
        (ops.NeTotalOrder, -0.0, 0.0, True),
    ],
)
def test_comparisons(fn, lhs, rhs, want):
    out, module = _binary(fn, [lhs], [rhs], np.float32)
    assert out.shape == S("pred[1]")
    assert_equal(run(module)[0], [want])


def test_compare_with_direction_and_type():
    b = XlaBuilder("cmp")
    x = ops.Constant(b, np.array([-0.0, 2.0], np.float32))
    y = ops.Constant(b, np.array([0.0, 1.0], np.float32))
    total = ops.Compare(x, y, (), "LT", "TOTALORDER")
    assert total.instruction.attrs.type.value == "TOTALORDER"
    default = ops.Compare(x, y, "LT")
    assert default.instruction.attrs.type is None
    ops.Tuple(b, [default, total])
    got = run(b.build())
    assert_equal(got[0], [False, False])
    assert_equal(got[1], [True, False])


# ---- ternary and conversions -----------------------------------------------------------


def test_clamp_example():
    b = XlaBuilder("clamp")
    operand = ops.Constant(b, np.array([-1, 5, 9], np.int32))
    out = ops.Clamp(ops.ConstantR0(b, 0), operand, ops.ConstantR0(b, 6))
    assert out.shape == S("s32[3]")
    assert_equal(run(b.build())[0], np.array([0, 5, 6], np.int32))


def test_clamp_min_above_max_gives_max():
    b = XlaBuilder("clamp")
    ops.Clamp(
        ops.ConstantR0(b, 5), ops.Constant(b, np.array([1, 9], np.int32)), ops.ConstantR0(b, 3)
    )
    assert_equal(run(b.build())[0], np.array([3, 3], np.int32))


@pytest.mark.parametrize(
    ("pred", "want"),
    [([True, False, False, True], [1, 200, 300, 4]), (True, [1, 2, 3, 4])],
)
def test_select_examples(pred, want):
    b = XlaBuilder("select")
    p = ops.Constant(b, np.array(pred, np.bool_))
    v1 = ops.Constant(b, np.array([1, 2, 3, 4], np.int32))
    v2 = ops.Constant(b, np.array([100, 200, 300, 400], np.int32))
    out = ops.Select(p, v1, v2)
    assert out.shape == S("s32[4]")
    assert_equal(run(b.build())[0], np.array(want, np.int32))


def test_select_between_tuples_with_a_scalar_pred():
    b = XlaBuilder("select")
    t1 = ops.Tuple(b, [ops.ConstantR0(b, 1), ops.ConstantR0(b, 2.0)])
    t2 = ops.Tuple(b, [ops.ConstantR0(b, 3), ops.ConstantR0(b, 4.0)])
    out = ops.Select(ops.ConstantR0(b, False), t1, t2)
    assert out.shape == S("(s32[], f32[])")
    got = run(b.build())
    assert [int(got[0]), float(got[1])] == [3, 4.0]


def test_convert_element_type_example():
    b = XlaBuilder("convert")
    out = ops.ConvertElementType(ops.Constant(b, np.array([0, 1, 2], np.int32)), "f32")
    assert out.shape == S("f32[3]")
    assert_equal(run(b.build())[0], np.array([0.0, 1.0, 2.0], np.float32))


def test_bitcast_convert_shapes_and_value():
    b = XlaBuilder("bitcast")
    x = ops.Parameter(b, 0, S("f32[10]"), "x")
    assert ops.BitcastConvertType(x, "f16").shape == S("f16[10,2]")
    h = ops.Parameter(b, 1, S("f16[10,2]"), "h")
    assert ops.BitcastConvertType(h, "f32").shape == S("f32[10]")
    s = ops.Parameter(b, 2, S("f32[]"), "s")
    assert ops.BitcastConvertType(s, "f16").shape == S("f16[2]")
    b = XlaBuilder("bitcast")
    ops.BitcastConvertType(ops.ConstantR0(b, 1.0), "s32")
    assert_equal(run(b.build())[0], np.int32(1065353216))


@pytest.mark.parametrize(
    ("value", "want"),
    [(1.0009765625, 1.0009765625), (1 + 2**-11, 1.0), (65520.0, np.inf)],
)
def test_reduce_precision_vectors(value, want):
    b = XlaBuilder("rp")
    ops.ReducePrecision(ops.ConstantR0(b, value), 5, 10)
    assert_equal(run(b.build())[0], np.float32(want))
