"""convert, bitcast-convert, reduce-precision, stochastic-convert, copy, compare, select, clamp
and the special functions: exact values from the spec, the conformance corpus and XLA."""

import ml_dtypes
import numpy as np
import pytest
import scipy.special
from elementwise_util import assert_bitwise_equal, bits, run_op

from xlapy.errors import InvalidArgument
from xlapy.ir import Opcode
from xlapy.ir.attrs import ComparisonDirection as D
from xlapy.ir.attrs import ComparisonType as T

bf16, i4, u4 = ml_dtypes.bfloat16, ml_dtypes.int4, ml_dtypes.uint4
NAN, INF = float("nan"), float("inf")


def arr(values, dtype):
    return np.array(values, dtype=dtype)


# ---- convert ---------------------------------------------------------------------------------


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero():
    x = arr([-1.5, -0.5, 2.9, 1e20, -1e20, NAN, INF, -INF], np.float32)
    got = run_op(Opcode.CONVERT, [x], "s32")
    assert got.tolist() == [-1, 0, 2, 2**31 - 1, -(2**31), 0, 2**31 - 1, -(2**31)]
    got = run_op(Opcode.CONVERT, [x], "u32")
    assert got.tolist() == [0, 0, 2, 2**32 - 1, 0, 0, 2**32 - 1, 0]
    got = run_op(Opcode.CONVERT, [arr([-1e3, 200, NAN, 7.9, -8.9], np.float32)], "s4")
    assert got.astype(int).tolist() == [-8, 7, 0, 7, -8]
    got = run_op(Opcode.CONVERT, [arr([2.0**63, -(2.0**63), 2.0**64], np.float64)], "s64")
    assert got.tolist() == [2**63 - 1, -(2**63), 2**63 - 1]


def test_int_to_int_wraps():
    got = run_op(Opcode.CONVERT, [arr([300, -1, 128], np.int32)], "s8")
    assert got.tolist() == [44, -1, -128]
    got = run_op(Opcode.CONVERT, [arr([-1, 17], np.int64)], "u4")
    assert got.astype(int).tolist() == [15, 1]
    got = run_op(Opcode.CONVERT, [arr([0, 1], u4)], "u64")
    assert got.tolist() == [0, 1]


def test_int_to_float_rounds_once_to_nearest_even():
    x = arr([2**24 + 1, 2**24 + 3, 257, 259, -((2**8 + 1) * 2**50 + 1)], np.int64)
    got = run_op(Opcode.CONVERT, [x], "bf16").astype(np.float64)
    # 257*2**50 + 1 is above the tie between 256 and 258 (* 2**50): correct rounding goes up.
    assert got.tolist() == [2**24, 2**24, 256, 260, -258 * 2**50]
    got = run_op(Opcode.CONVERT, [arr([2**24 + 1, 2**24 + 3], np.int64)], "f32")
    assert got.tolist() == [2**24, 2**24 + 4]
    got = run_op(Opcode.CONVERT, [arr([2**64 - 1], np.uint64)], "f16")
    assert got.tolist() == [INF]


def test_float_to_narrower_float_rounds_once():
    x = arr([1 + 2**-8 + 2**-30, 1 + 2**-8, 1e300, -1e-300, NAN], np.float64)
    got = run_op(Opcode.CONVERT, [x], "bf16").astype(np.float64)
    assert got[:4].tolist() == [1 + 2**-7, 1.0, INF, -0.0]
    assert np.isnan(got[4])
    got = run_op(Opcode.CONVERT, [arr([448.0, 464.0, 1e6, -INF], np.float32)], "f8e4m3fn")
    assert got[:2].astype(np.float32).tolist() == [448.0, 448.0]
    assert np.isnan(got[2:].astype(np.float32)).all()


def test_pred_and_complex_conversions():
    assert run_op(Opcode.CONVERT, [arr([-1, 0, 1], np.int64)], "pred").tolist() == [
        True,
        False,
        True,
    ]
    assert run_op(Opcode.CONVERT, [arr([NAN, 0.0, -0.0], np.float32)], "pred").tolist() == [
        True,
        False,
        False,
    ]
    z = arr([-1 + 0j, 1j, 1 + 0j], np.complex128)
    assert run_op(Opcode.CONVERT, [z], "pred").tolist() == [True, False, True]
    assert run_op(Opcode.CONVERT, [z], "s64").tolist() == [-1, 0, 1]
    assert run_op(Opcode.CONVERT, [z], "f64").tolist() == [-1.0, 0.0, 1.0]
    got = run_op(Opcode.CONVERT, [arr([True, False], np.bool_)], "c128")
    assert got.tolist() == [1 + 0j, 0j]
    got = run_op(Opcode.CONVERT, [arr([-1, 0, 1], i4)], "c128")
    assert got.tolist() == [-1 + 0j, 0j, 1 + 0j]
    got = run_op(Opcode.CONVERT, [arr([1.1 + 2.2j], np.complex128)], "c64")
    assert got.dtype == np.complex64
    assert got[0] == np.complex64(1.1 + 2.2j)


def test_convert_flush_denormals_only_fpu_types():
    x = arr([1e-40, -1e-40], np.float32)
    flushed = run_op(Opcode.CONVERT, [x], "f64", flush_denormals=True)
    assert_bitwise_equal(flushed, arr([0.0, -0.0], np.float64))
    kept = run_op(Opcode.CONVERT, [x], "bf16", flush_denormals=True)
    assert kept.astype(np.float32)[0] > 0
    assert run_op(Opcode.CONVERT, [x], "f64")[0] == np.float64(np.float32(1e-40))


# ---- bitcast-convert -------------------------------------------------------------------------


def test_bitcast_same_width():
    got = run_op(Opcode.BITCAST_CONVERT, [arr(1.0, np.float32)], "s32")
    assert int(got) == 1065353216
    x = arr([NAN, -0.0], np.float32)
    x.view(np.uint32)[0] = 0x7FC00123  # payload survives
    back = run_op(Opcode.BITCAST_CONVERT, [run_op(Opcode.BITCAST_CONVERT, [x], "u32")], "f32")
    assert_bitwise_equal(back, x)


def test_bitcast_i1_vector_to_i64_and_back():
    value = 0x0123456789ABCDEF
    pred_bits = arr([(value >> i) & 1 for i in range(64)], np.bool_)
    got = run_op(Opcode.BITCAST_CONVERT, [pred_bits], "s64", dims=[])
    assert int(got) == value
    back = run_op(Opcode.BITCAST_CONVERT, [arr(value, np.int64)], "pred", dims=[64])
    assert back.tolist() == pred_bits.tolist()


def test_bitcast_c128_to_two_c64_little_endian():
    z = np.zeros(1, np.complex128)
    z.view(np.uint64)[:] = [0x0123456789ABCDEF, 0x0000000011111111]
    z = z.reshape(())
    got = run_op(Opcode.BITCAST_CONVERT, [z], "c64", dims=[2])
    assert bits(got.view(np.float32).reshape(4)).tolist() == [
        0x89ABCDEF,
        0x01234567,
        0x11111111,
        0,
    ]


def test_bitcast_between_widths_puts_low_part_first():
    got = run_op(
        Opcode.BITCAST_CONVERT, [arr([0x12345678, 0x0000FFFF], np.uint32)], "u16", dims=[2, 2]
    )
    assert got.tolist() == [[0x5678, 0x1234], [0xFFFF, 0]]
    back = run_op(Opcode.BITCAST_CONVERT, [got], "u32", dims=[2])
    assert back.tolist() == [0x12345678, 0x0000FFFF]
    nibbles = run_op(Opcode.BITCAST_CONVERT, [arr([0xF1, 0x7E], np.uint8)], "s4", dims=[2, 2])
    assert nibbles.astype(int).tolist() == [[1, -1], [-2, 7]]
    assert run_op(Opcode.BITCAST_CONVERT, [nibbles], "u8", dims=[2]).tolist() == [0xF1, 0x7E]


def test_bitcast_rejects_inconsistent_widths():
    with pytest.raises(InvalidArgument, match=r"bitcast-convert op\.1"):
        run_op(Opcode.BITCAST_CONVERT, [arr([1, 2, 3], np.uint8)], "u32", dims=[])


# ---- reduce-precision ------------------------------------------------------------------------


def test_reduce_precision_f64_to_e5m10():
    x = np.array([INF, NAN, 5e-324, 0.0, 65505.0, 65520.0, 1 + 2**-11, 1 + 2**-10])
    got = run_op(Opcode.REDUCE_PRECISION, [x], "f64", {"exponent_bits": 5, "mantissa_bits": 10})
    assert np.isnan(got[1])
    assert got[[0, 2, 3, 4, 5, 6, 7]].tolist() == [INF, 0.0, 0.0, 65504.0, INF, 1.0, 1 + 2**-10]


def test_reduce_precision_keeps_nan_even_without_mantissa_bits():
    # The spec keeps NaN (XLA returns a quiet NaN of the same sign; the StableHLO reference
    # interpreter returns inf here).
    x = arr([NAN, -NAN, INF, 1.0, 3.0, 6.0], np.float32)
    got = run_op(Opcode.REDUCE_PRECISION, [x], "f32", {"exponent_bits": 5, "mantissa_bits": 0})
    # 1.5 * 2**e ties to the power of two with an even exponent field (as XLA): 3 -> 2, 6 -> 8.
    assert bits(got).tolist()[:4] == [0x7FC00000, 0xFFC00000, 0x7F800000, 0x3F800000]
    assert got[4:].tolist() == [2.0, 8.0]


def test_reduce_precision_bf16_operand():
    x = arr([1.0078125, 3e38, 1e-30], bf16)
    got = run_op(Opcode.REDUCE_PRECISION, [x], "bf16", {"exponent_bits": 5, "mantissa_bits": 2})
    assert got.astype(np.float32).tolist() == [1.0, INF, 0.0]


# ---- stochastic-convert, copy -----------------------------------------------------------------


def test_stochastic_convert_rounds_up_below_the_fraction():
    x = arr([1.25, 1.25, -1.25, -1.25, NAN, INF, 1e10], np.float32)
    random = arr([0, 2**30, 0, 2**31, 0, 0, 0], np.uint32)
    got = run_op(Opcode.STOCHASTIC_CONVERT, [x, random], "s8")
    assert got.tolist() == [2, 1, -2, -1, 0, 127, 127]


def test_copy_keeps_bits_and_tuples():
    x = arr([NAN, -0.0], np.float32)
    assert_bitwise_equal(run_op(Opcode.COPY, [x], "f32"), x)


# ---- compare, select, clamp -------------------------------------------------------------------


def _compare(lhs, rhs, direction, ctype=None, flush=False):
    attrs = {"direction": direction}
    if ctype is not None:
        attrs["type"] = ctype
    return run_op(Opcode.COMPARE, [lhs, rhs], "pred", attrs, flush_denormals=flush).tolist()


def test_compare_float_ieee():
    lhs = arr([NAN, -0.0, 1.0, 1.0], np.float64)
    rhs = arr([NAN, 0.0, 2.0, NAN], np.float64)
    assert _compare(lhs, rhs, D.EQ, T.FLOAT) == [False, True, False, False]
    assert _compare(lhs, rhs, D.NE) == [True, False, True, True]
    assert _compare(lhs, rhs, D.LT) == [False, False, True, False]


def test_compare_total_order():
    values = arr([-NAN, -INF, -1.0, -0.0, 0.0, 1.0, INF, NAN], np.float32)
    lhs, rhs = values[:-1], values[1:]
    assert _compare(lhs, rhs, D.LT, T.TOTALORDER) == [True] * 7
    assert _compare(values, values, D.EQ, T.TOTALORDER) == [True] * 8
    assert _compare(arr([-0.0], bf16), arr([0.0], bf16), D.EQ, T.TOTALORDER) == [False]


def test_compare_total_order_e8m0_is_unsigned_with_nan_last():
    # oracle_findings.md F7: f8e8m0fnu has no sign bit; 0xFF (NaN) is the largest.
    e8m0 = ml_dtypes.float8_e8m0fnu
    lhs = np.array([0x00, 0x7F, 0x80, 0xFE], np.uint8).view(e8m0)
    rhs = np.array([0x7F, 0x80, 0xFE, 0xFF], np.uint8).view(e8m0)
    assert _compare(lhs, rhs, D.LT, T.TOTALORDER) == [True] * 4
    assert _compare(rhs, lhs, D.LT, T.TOTALORDER) == [False] * 4


def test_compare_total_order_scalars_keep_rank_0():
    got = run_op(Opcode.COMPARE, [arr(-1.0, np.float32), arr(NAN, np.float32)], "pred",
                 {"direction": D.LT, "type": T.TOTALORDER})  # fmt: skip
    assert got.shape == ()
    assert bool(got)


def test_compare_integers_signed_unsigned_and_pred():
    assert _compare(arr([-1], np.int8), arr([1], np.int8), D.LT) == [True]
    assert _compare(arr([-1], np.int8), arr([1], np.int8), D.LT, T.UNSIGNED) == [False]
    assert _compare(arr([2**64 - 1], np.uint64), arr([1], np.uint64), D.GT) == [True]
    assert _compare(arr([False, True], np.bool_), arr([True, True], np.bool_), D.LT) == [
        True,
        False,
    ]


def test_compare_complex_eq_only():
    z = arr([1 + 2j, 1 + 1j], np.complex64)
    assert _compare(z, arr([1 + 2j, 1 + 2j], np.complex64), D.EQ) == [True, False]
    with pytest.raises(InvalidArgument, match="only EQ and NE"):
        _compare(z, z, D.LT)


def test_compare_flushes_subnormals_in_xla_mode():
    lhs, rhs = arr([0.0], np.float32), arr([1e-40], np.float32)
    assert _compare(lhs, rhs, D.LT) == [True]
    assert _compare(lhs, rhs, D.LT, flush=True) == [False]


def test_select_elementwise_and_scalar():
    pred = arr([True, False, True], np.bool_)
    a, b = arr([2, 3, -1], np.int64), arr([3, 7, -3], np.int64)
    assert run_op(Opcode.SELECT, [pred, a, b], "s64").tolist() == [2, 7, -1]
    assert run_op(Opcode.SELECT, [arr(False, np.bool_), a, b], "s64").tolist() == [3, 7, -3]


def test_clamp_with_scalar_bounds_and_nan():
    operand = arr([2, 3, -1], np.int64)
    got = run_op(Opcode.CLAMP, [arr(0, np.int64), operand, arr([1, 1, 4], np.int64)], "s64")
    assert got.tolist() == [1, 1, 0]
    got = run_op(
        Opcode.CLAMP,
        [arr(0.0, np.float32), arr([NAN, -0.0, 5.0], np.float32), arr(1.0, np.float32)],
        "f32",
    )
    assert np.isnan(got[0])
    assert bits(got[1:]).tolist() == [0, 0x3F800000]


# ---- special functions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opcode", "reference"),
    [
        (Opcode.ERF, scipy.special.erf),
        (Opcode.ERFC, scipy.special.erfc),
        (Opcode.ERF_INV, scipy.special.erfinv),
        (Opcode.LGAMMA, scipy.special.gammaln),
        (Opcode.DIGAMMA, scipy.special.psi),
        (Opcode.BESSEL_I1E, scipy.special.i1e),
    ],
)
def test_unary_special_functions(opcode, reference):
    x = arr([-0.75, -0.25, 0.125, 0.5, 0.875], np.float32)
    got = run_op(opcode, [x], "f32")
    assert_bitwise_equal(got, reference(x.astype(np.float64)).astype(np.float32), opcode.value)


def test_binary_special_functions():
    a, x = arr([0.5, 2.0, -1.0], np.float64), arr([1.0, 3.0, 1.0], np.float64)
    got = run_op(Opcode.IGAMMA, [a, x], "f64")
    assert got[:2].tolist() == scipy.special.gammainc(a[:2], x[:2]).tolist()
    assert np.isnan(got[2])
    got = run_op(Opcode.IGAMMAC, [a, x], "f64")
    assert got[:2].tolist() == scipy.special.gammaincc(a[:2], x[:2]).tolist()
    got = run_op(
        Opcode.POLYGAMMA, [arr([0.0, 1.0, 1.5], np.float64), arr([2.0] * 3, np.float64)], "f64"
    )
    assert got[:2].tolist() == [scipy.special.psi(2.0), scipy.special.polygamma(1, 2.0)]
    assert np.isnan(got[2])
    got = run_op(Opcode.ZETA, [arr([2.0, 0.5], np.float64), arr([1.0, 1.0], np.float64)], "f64")
    assert got[0] == pytest.approx(np.pi**2 / 6, rel=1e-15)
    assert np.isnan(got[1])


def test_next_after_in_the_storage_type():
    x = arr([1.0, 0.0, -0.0, 1.0, NAN], bf16)
    y = arr([2.0, -1.0, 1.0, 1.0, 0.0], bf16)
    got = run_op(Opcode.NEXT_AFTER, [x, y], "bf16")
    assert bits(got).tolist()[:4] == [0x3F81, 0x8001, 0x0001, 0x3F80]
    assert np.isnan(got[4].astype(np.float32))


def test_convert_real_to_complex_keeps_subnormals():
    # oracle_findings.md F8: XLA:CPU widens to complex without DAZ; bf16 -> pred tests bits.
    x = arr([1e-45, -1e-45, 1.0], np.float32)
    got = run_op(Opcode.CONVERT, [x], "c64", flush_denormals=True)
    assert got.real.view(np.uint32).tolist() == [0x00000001, 0x80000001, 0x3F800000]
    assert got.imag.tolist() == [0.0, 0.0, 0.0]
    tiny_bf16 = np.array([0x0001, 0x0000], np.uint16).view(bf16)
    assert run_op(Opcode.CONVERT, [tiny_bf16], "pred", flush_denormals=True).tolist() == [
        True,
        False,
    ]


def test_reduce_precision_rounds_the_raw_mantissa_of_subnormals():
    # oracle_findings.md F10: f16 2^-24 (bits 0x0001) keeps 0 of its 10 mantissa bits -> 0.
    x = np.array([0x0001, 0x8001, 0x0200, 0x3C00], np.uint16).view(np.float16)
    attrs = {"exponent_bits": 6, "mantissa_bits": 0}
    got = run_op(Opcode.REDUCE_PRECISION, [x], "f16", attrs)
    assert got.view(np.uint16).tolist() == [0x0000, 0x8000, 0x0000, 0x3C00]
