"""Elementwise evals: exact values from the spec, the conformance corpus and XLA's rules, one
test per type category an op handles differently (StableHLO guideline G1)."""

import math

import ml_dtypes
import numpy as np
import pytest
from elementwise_util import assert_bitwise_equal, run_op

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import EVALUATORS, load_evaluators
from xlapy.ir import Opcode

i4, u4, i2, u2 = ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2
bf16 = ml_dtypes.bfloat16
NAN, INF = float("nan"), float("inf")

ELEMENTWISE_OPCODES = [
    *[
        "ABS",
        "ADD",
        "AND",
        "ATAN2",
        "CBRT",
        "CEIL",
        "CLZ",
        "COMPLEX",
        "COS",
        "DIVIDE",
        "ERF",
        "EXP",
        "EXPM1",
        "FLOOR",
        "IMAG",
    ],
    *[
        "IS_FINITE",
        "LOG",
        "LOG1P",
        "LOGISTIC",
        "MAXIMUM",
        "MINIMUM",
        "MULTIPLY",
        "NEGATE",
        "NOT",
        "OR",
        "POPCNT",
    ],
    *[
        "POWER",
        "REAL",
        "REMAINDER",
        "ROUND_NEAREST_AFZ",
        "ROUND_NEAREST_EVEN",
        "RSQRT",
        "SHIFT_LEFT",
    ],
    *[
        "SHIFT_RIGHT_ARITHMETIC",
        "SHIFT_RIGHT_LOGICAL",
        "SIGN",
        "SIN",
        "SQRT",
        "SUBTRACT",
        "TAN",
        "TANH",
        "XOR",
    ],
    *[
        "ACOS",
        "ACOSH",
        "ASIN",
        "ASINH",
        "ATAN",
        "ATANH",
        "COSH",
        "SINH",
        "MULHI",
        "COMPARE",
        "SELECT",
        "CLAMP",
        "CONVERT",
    ],
    *[
        "BITCAST_CONVERT",
        "REDUCE_PRECISION",
        "COPY",
        "STOCHASTIC_CONVERT",
        "ERF_INV",
        "ERFC",
        "LGAMMA",
    ],
    *["DIGAMMA", "BESSEL_I1E", "POLYGAMMA", "ZETA", "IGAMMA", "IGAMMAC", "NEXT_AFTER"],
]


@pytest.mark.parametrize("name", ELEMENTWISE_OPCODES)
def test_every_elementwise_op_has_an_evaluator(name):
    load_evaluators()
    assert Opcode[name] in EVALUATORS


def arr(values, dtype):
    return np.array(values, dtype=dtype)


# ---- integer wrap-around for every width --------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "lhs", "rhs", "expected"),
    [
        (i2, [1, 0, -1, -2], [-1, 1, 1, 1], [0, 1, 0, -1]),
        (u2, [0, 2, 3], [1, 1, 1], [1, 3, 0]),
        (i4, [0, 1, 2, -3, 7], [-8, -1, 2, -3, 1], [-8, 0, 4, -6, -8]),
        (u4, [0, 2, 15], [15, 3, 1], [15, 5, 0]),
        (np.int8, [127, -128], [1, -1], [-128, 127]),
        (np.uint8, [255, 16], [1, 16], [0, 32]),
        (np.int64, [2**63 - 1, -(2**63)], [1, -1], [-(2**63), 2**63 - 1]),
        (np.uint64, [2**64 - 1], [2], [1]),
    ],
)
def test_add_wraps(dtype, lhs, rhs, expected):
    got = run_op(Opcode.ADD, [arr(lhs, dtype), arr(rhs, dtype)], _name(dtype))
    assert_bitwise_equal(got, arr(expected, dtype), "add")


def _name(dtype):
    from xlapy import dtypes

    return dtypes.from_numpy(dtype)


@pytest.mark.parametrize(
    ("opcode", "dtype", "operand", "expected"),
    [
        (Opcode.NEGATE, np.int8, [-128, 5, 0], [-128, -5, 0]),
        (Opcode.NEGATE, np.uint8, [1, 0, 255], [255, 0, 1]),
        (Opcode.NEGATE, u4, [1, 0], [15, 0]),
        (Opcode.ABS, np.int32, [-(2**31), -3, 3], [-(2**31), 3, 3]),
        (Opcode.ABS, i4, [-8, -7], [-8, 7]),
        (Opcode.SIGN, np.int64, [-5, 0, 9], [-1, 0, 1]),
        (Opcode.SIGN, np.uint8, [0, 200], [0, 1]),
        (Opcode.NOT, np.int8, [0, -1, 5], [-1, 0, -6]),
        (Opcode.NOT, u4, [0, 15, 5], [15, 0, 10]),
        (Opcode.CLZ, np.int64, [0, 1, 128, -1], [64, 63, 56, 0]),
        (Opcode.CLZ, i4, [0, 1, -1, 7], [4, 3, 0, 1]),
        (Opcode.CLZ, np.uint8, [1], [7]),
        (Opcode.POPCNT, np.int64, [0, 1, 2, 127], [0, 1, 1, 7]),
        (Opcode.POPCNT, i4, [-1, -8], [4, 1]),
        (Opcode.POPCNT, np.int8, [-1], [8]),
    ],
)
def test_integer_unary(opcode, dtype, operand, expected):
    got = run_op(opcode, [arr(operand, dtype)], _name(dtype))
    assert_bitwise_equal(got, arr(expected, dtype), opcode.value)


# ---- integer division, remainder, pow, shifts (XLA's rules) ---------------------------------


def test_divide_truncates_and_follows_xla_for_zero_and_overflow():
    lhs = arr([17, -17, 17, -17, 5, -5, -(2**31), 0], np.int32)
    rhs = arr([3, 3, -3, -3, 0, 0, -1, 0], np.int32)
    got = run_op(Opcode.DIVIDE, [lhs, rhs], "s32")
    assert_bitwise_equal(got, arr([5, -5, -5, 5, -1, -1, -(2**31), -1], np.int32))


def test_remainder_sign_of_dividend_and_xla_rules():
    lhs = arr([17, -17, 17, -17, 5, -5, -128], np.int8)
    rhs = arr([3, 3, -3, -3, 0, 0, -1], np.int8)
    got = run_op(Opcode.REMAINDER, [lhs, rhs], "s8")
    assert_bitwise_equal(got, arr([2, -2, 2, -2, 5, -5, 0], np.int8))


def test_unsigned_divide_by_zero_is_all_ones():
    got = run_op(Opcode.DIVIDE, [arr([5, 7, 20], np.uint8), arr([0, 0, 7], np.uint8)], "u8")
    assert_bitwise_equal(got, arr([255, 255, 2], np.uint8))
    got = run_op(Opcode.REMAINDER, [arr([5, 20], np.uint64), arr([0, 7], np.uint64)], "u64")
    assert_bitwise_equal(got, arr([5, 6], np.uint64))


def test_integer_power():
    lhs = arr([-1, -1, -3, 1, -3, 0, -1, 2, 3], np.int64)
    rhs = arr([1, 0, -3, -3, 3, 2, -4, -1, 41], np.int64)
    got = run_op(Opcode.POWER, [lhs, rhs], "s64")
    expected = [-1, 1, 0, 1, -27, 0, 1, 0, (3**41 + 2**63) % 2**64 - 2**63]
    assert_bitwise_equal(got, arr(expected, np.int64))
    got = run_op(
        Opcode.POWER, [arr([0, 0, 1, 5, 3], np.uint8), arr([0, 1, 0, 5, 5], np.uint8)], "u8"
    )
    assert_bitwise_equal(got, arr([1, 0, 1, 3125 % 256, 243], np.uint8))


@pytest.mark.parametrize(
    ("opcode", "lhs", "rhs", "expected"),
    [
        (Opcode.SHIFT_LEFT, [1, 1, 1, -1, 3], [7, 8, -1, 100, 1], [-128, 0, 0, 0, 6]),
        (
            Opcode.SHIFT_RIGHT_ARITHMETIC,
            [-128, -1, 64, -5, 8],
            [7, 8, -1, 100, 3],
            [-1, -1, 0, -1, 1],
        ),
        (Opcode.SHIFT_RIGHT_LOGICAL, [-128, -1, 64, -5, -1], [7, 8, -1, 1, 9], [1, 0, 0, 125, 0]),
    ],
)
def test_shifts_s8(opcode, lhs, rhs, expected):
    got = run_op(opcode, [arr(lhs, np.int8), arr(rhs, np.int8)], "s8")
    assert_bitwise_equal(got, arr(expected, np.int8), opcode.value)


def test_shift_right_arithmetic_reads_unsigned_as_signed():
    got = run_op(
        Opcode.SHIFT_RIGHT_ARITHMETIC,
        [arr([200, 128, 7], np.uint8), arr([1, 9, 1], np.uint8)],
        "u8",
    )
    assert_bitwise_equal(got, arr([228, 255, 3], np.uint8))


def test_shifts_s64_spec_examples():
    lhs, rhs = arr([-1, 0, 1], np.int64), arr([1, 2, 3], np.int64)
    assert run_op(Opcode.SHIFT_LEFT, [lhs, rhs], "s64").tolist() == [-2, 0, 8]
    lhs = arr([-1, 0, 8], np.int64)
    assert run_op(Opcode.SHIFT_RIGHT_ARITHMETIC, [lhs, rhs], "s64").tolist() == [-1, 0, 1]
    assert run_op(Opcode.SHIFT_RIGHT_LOGICAL, [lhs, rhs], "s64").tolist() == [2**63 - 1, 0, 1]


@pytest.mark.parametrize(
    ("dtype", "lhs", "rhs", "expected"),
    [
        (np.int8, [64, -64, -64], [4, 4, -4], [1, -1, 1]),
        (np.uint8, [240, 128], [16, 2], [15, 1]),
        (np.int32, [268435456, -268435456], [16, 16], [1, -1]),
        (
            np.int64,
            [2**60, -(2**60), -1, 2**63 - 1],
            [16, 16, -1, 2**63 - 1],
            [1, -1, 0, 2**62 - 1],
        ),
        (
            np.uint64,
            [17293822569102704640, 2**63, 2**64 - 1],
            [16, 2, 2**64 - 1],
            [15, 1, 2**64 - 2],
        ),
    ],
)
def test_mulhi(dtype, lhs, rhs, expected):
    got = run_op(Opcode.MULHI, [arr(lhs, dtype), arr(rhs, dtype)], _name(dtype))
    assert_bitwise_equal(got, arr(expected, dtype), "mulhi")


# ---- pred ----------------------------------------------------------------------------------


def test_pred_ops_are_logical():
    a, b = arr([False, False, True, True], np.bool_), arr([False, True, False, True], np.bool_)
    assert run_op(Opcode.ADD, [a, b], "pred").tolist() == [False, True, True, True]
    assert run_op(Opcode.MULTIPLY, [a, b], "pred").tolist() == [False, False, False, True]
    assert run_op(Opcode.MAXIMUM, [a, b], "pred").tolist() == [False, True, True, True]
    assert run_op(Opcode.MINIMUM, [a, b], "pred").tolist() == [False, False, False, True]
    assert run_op(Opcode.XOR, [a, b], "pred").tolist() == [False, True, True, False]
    assert run_op(Opcode.NOT, [a], "pred").tolist() == [True, True, False, False]


# ---- floats ---------------------------------------------------------------------------------


def test_max_min_propagate_nan_and_order_signed_zeros():
    a = arr([-0.0, 0.0, NAN, 1.0, 2.0], np.float32)
    b = arr([0.0, -0.0, 1.0, NAN, -3.0], np.float32)
    got = run_op(Opcode.MAXIMUM, [a, b], "f32")
    assert_bitwise_equal(got, arr([0.0, 0.0, NAN, NAN, 2.0], np.float32))
    got = run_op(Opcode.MINIMUM, [a, b], "f32")
    assert_bitwise_equal(got, arr([-0.0, -0.0, NAN, NAN, -3.0], np.float32))


def test_complex_max_min_are_lexicographic():
    a, b = arr([1 + 2j, 1 + 1j], np.complex64), arr([1 + 1j, 2 + 0j], np.complex64)
    assert run_op(Opcode.MAXIMUM, [a, b], "c64").tolist() == [1 + 2j, 2 + 0j]
    assert run_op(Opcode.MINIMUM, [a, b], "c64").tolist() == [1 + 1j, 1 + 1j]


def test_sign_float_keeps_zero_sign_and_nan():
    x = arr([NAN, -1.5, -0.0, 0.0, 7.0, -INF], np.float64)
    got = run_op(Opcode.SIGN, [x], "f64")
    assert_bitwise_equal(got, arr([NAN, -1.0, -0.0, 0.0, 1.0, -1.0], np.float64))


def test_sign_complex():
    z = arr([complex(NAN, 0), complex(0, NAN), 0, 1j, 3 + 4j], np.complex128)
    got = run_op(Opcode.SIGN, [z], "c128")
    assert np.isnan(got[0].real)
    assert np.isnan(got[0].imag)
    assert np.isnan(got[1].real)
    assert got[2:].tolist() == [0, 1j, 0.6 + 0.8j]


def test_round_nearest_afz_and_even():
    x = arr([-2.5, -0.4, 0.5, 1.5, 2.5, 0.49999997, -0.5, INF], np.float32)
    got = run_op(Opcode.ROUND_NEAREST_AFZ, [x], "f32")
    assert_bitwise_equal(got, arr([-3, -0.0, 1, 2, 3, 0, -1, INF], np.float32))
    got = run_op(Opcode.ROUND_NEAREST_EVEN, [x], "f32")
    assert_bitwise_equal(got, arr([-2, -0.0, 0, 2, 2, 0, -0.0, INF], np.float32))


def test_floor_ceil_bf16_keep_special_values():
    x = arr([-INF, -2.5, -0.0, 0.0, 2.5, INF], bf16)
    assert_bitwise_equal(run_op(Opcode.FLOOR, [x], "bf16"), arr([-INF, -3, -0.0, 0, 2, INF], bf16))
    assert_bitwise_equal(run_op(Opcode.CEIL, [x], "bf16"), arr([-INF, -2, -0.0, 0, 3, INF], bf16))


def test_float_remainder_is_fmod():
    got = run_op(
        Opcode.REMAINDER, [arr([17.1, -17.1, 1.0], np.float64), arr([3, 3, 0], np.float64)], "f64"
    )
    assert got[0] == 2.1000000000000014
    assert got[1] == -2.1000000000000014
    assert np.isnan(got[2])


def test_narrow_float_arithmetic_rounds_once_from_f32():
    # bf16: 1 + 2**-8 is a tie between 1 and 1 + 2**-7: rounds to even (1).
    one, tiny = arr([1.0, 1.0], bf16), arr([2**-8, 3 * 2**-9], bf16)
    got = run_op(Opcode.ADD, [one, tiny], "bf16")
    assert got.astype(np.float64).tolist() == [1.0, 1.0078125]


def test_power_float_and_complex():
    lhs = arr([-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0], np.float64)
    rhs = arr([2.0, 2.0, 1.1, 2.0, -1.0, 10.0], np.float64)
    got = run_op(Opcode.POWER, [lhs, rhs], "f64")
    assert got[[0, 3, 5]].tolist() == [4.0, 25.0, 1e40]
    assert np.isnan(got[2])
    z = run_op(
        Opcode.POWER, [arr([1.5 + 2.5j], np.complex128), arr([2.5 + 1.5j], np.complex128)], "c128"
    )
    assert abs(z[0] - (-1.5679313814305016 - 2.6674775446623613j)) < 1e-12


def test_abs_complex_returns_component_type():
    got = run_op(Opcode.ABS, [arr([3 + 4j], np.complex64)], "f32")
    assert_bitwise_equal(got, arr([5.0], np.float32))


def test_real_imag_complex_and_is_finite():
    z = arr([1 + 2j, complex(NAN, INF)], np.complex128)
    assert run_op(Opcode.REAL, [z], "f64")[0] == 1.0
    assert run_op(Opcode.IMAG, [z], "f64").tolist() == [2.0, INF]
    assert run_op(Opcode.IMAG, [arr([3.0], np.float32)], "f32").tolist() == [0.0]
    x = arr([1.0, INF, -INF, NAN], np.float16)
    assert run_op(Opcode.IS_FINITE, [x], "pred").tolist() == [True, False, False, False]


def test_complex_from_parts_keeps_infinities():
    got = run_op(Opcode.COMPLEX, [arr([INF, 1.0], np.float32), arr([0.0, INF], np.float32)], "c64")
    assert got.dtype == np.complex64
    assert got.real.tolist() == [INF, 1.0]
    assert got.imag.tolist() == [0.0, INF]


def test_atan2_real_and_complex():
    got = run_op(
        Opcode.ATAN2, [arr([0.0, 1.0, -1.0], np.float64), arr([0.0] * 3, np.float64)], "f64"
    )
    assert got.tolist() == [0.0, math.pi / 2, -math.pi / 2]
    z = run_op(
        Opcode.ATAN2, [arr([1.0, -1.0], np.complex128), arr([0j, 0j], np.complex128)], "c128"
    )
    assert np.allclose(z, [math.pi / 2, -math.pi / 2])


@pytest.mark.parametrize(
    ("opcode", "reference"),
    [
        (Opcode.EXP, np.exp),
        (Opcode.LOG, np.log),
        (Opcode.SIN, np.sin),
        (Opcode.TANH, np.tanh),
        (Opcode.CBRT, np.cbrt),
        (Opcode.LOGISTIC, lambda x: 1 / (1 + np.exp(-x))),
        (Opcode.RSQRT, lambda x: 1 / np.sqrt(x)),
    ],
)
def test_transcendental_f32_is_f64_rounded_once(opcode, reference):
    x = np.linspace(0.01, 5, 101).astype(np.float32)
    got = run_op(opcode, [x], "f32")
    assert_bitwise_equal(got, reference(x.astype(np.float64)).astype(np.float32), opcode.value)


def test_transcendental_on_narrow_types_rounds_f64_once():
    x = arr([0.5, 1.0, 2.0, 3.0], np.float16)
    got = run_op(Opcode.EXP, [x], "f16")
    assert_bitwise_equal(got, np.exp(x.astype(np.float64)).astype(np.float16))
    x = arr([0.5, 1.0], ml_dtypes.float8_e4m3fn)
    got = run_op(Opcode.SQRT, [x], "f8e4m3fn")
    assert got.astype(np.float32).tolist() == [0.6875, 1.0]


def test_unsupported_type_names_op_instruction_and_type():
    with pytest.raises(InvalidArgument, match=r"sine op\.1: element type s32 is not accepted"):
        run_op(Opcode.SIN, [arr([1], np.int32)], "s32")
    with pytest.raises(InvalidArgument, match=r"shift-left op\.1: element type f32"):
        run_op(Opcode.SHIFT_LEFT, [arr([1.0], np.float32)] * 2, "f32")


def test_scalar_operands_give_arrays():
    got = run_op(Opcode.ADD, [np.int32(2**31 - 1), np.int32(1)], "s32")
    assert isinstance(got, np.ndarray)
    assert got.shape == ()
    assert int(got) == -(2**31)


@pytest.mark.parametrize(
    ("dtype", "name"), [(np.float16, "f16"), (np.float32, "f32"), (np.float64, "f64")]
)
def test_erf_inv_keeps_the_sign_of_zero(dtype, name):
    # oracle_findings.md F5: erf_inv is odd; erf_inv(-0.0) = -0.0.
    got = run_op(Opcode.ERF_INV, [arr([-0.0, 0.0], dtype)], name)
    assert_bitwise_equal(got, arr([-0.0, 0.0], dtype))


def test_lgamma_infinities_and_subnormals():
    # oracle_findings.md F3/F4: lgamma(+-inf) = +inf (C99); lgamma(x) = -log|x| for subnormal x.
    x = arr([-INF, INF, 5e-324, -5e-324, 1e-310, 0.0], np.float64)
    got = run_op(Opcode.LGAMMA, [x], "f64")
    expected = [INF, INF, math.lgamma(5e-324), math.lgamma(5e-324), math.lgamma(1e-310), INF]
    assert_bitwise_equal(got, arr(expected, np.float64))
    assert expected[2] == 744.4400719213812


def test_digamma_poles_are_nan():
    # oracle_findings.md F6: CHLO's decomposition gives NaN at 0, -0 and the negative integers.
    x = arr([0.0, -0.0, -1.0, -2.0], np.float32)
    got = run_op(Opcode.DIGAMMA, [x], "f32")
    assert np.isnan(got).all()


def test_flush_keeps_the_smallest_e8m0_value():
    # oracle_findings.md F1: 2^-127 (0x00) is a normal f8e8m0fnu value; XLA:CPU ceil gives 1.
    x = np.array([0x00, 0x7F], np.uint8).view(ml_dtypes.float8_e8m0fnu)
    got = run_op(Opcode.CEIL, [x], "f8e8m0fnu", flush_denormals=True)
    assert np.asarray(got).view(np.uint8).tolist() == [0x7F, 0x7F]


def test_power_does_not_flush_its_operands():
    # oracle_findings.md F2: XLA:CPU's pow reads subnormal operands as they are.
    base = arr([-1e-45, 1e-45], np.float32)
    exponent = arr([2.8e-12, -7.6e-13], np.float32)
    got = run_op(Opcode.POWER, [base, exponent], "f32", flush_denormals=True)
    assert np.isnan(got[0])
    assert got[1] == np.float32(1.0)
