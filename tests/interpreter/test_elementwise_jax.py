"""Elementwise evals against XLA:CPU through jax (``jax.jit`` of lax ops).

XLA:CPU flushes f32/f64/bf16 subnormals, so the interpreter runs with ``flush_denormals=True``
here. Integer ops and exact float ops (+, -, *, /, sqrt, rem, min/max, rounding, compare,
convert) must agree bit for bit; transcendental functions within the ULP bounds of ``ULPS``.
Known, deliberate differences from XLA are excluded and named where they are excluded.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from elementwise_util import bits, run_op

from xlapy import dtypes
from xlapy.ir import Opcode
from xlapy.ir.attrs import ComparisonDirection

jax = pytest.importorskip("jax")
lax = jax.lax
jnp = jax.numpy

pytestmark = pytest.mark.oracle

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def random_ints(dtype, n, rng):
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2], dtype=object)
    values = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    small = rng.integers(max(info.min, -70), 70, n // 4).astype(dtype)
    return np.concatenate([edges.astype(dtype), values, small])


def random_floats(dtype, n, rng, low=-100.0, high=100.0):
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-40, -3e-310]
    values = rng.uniform(low, high, n)
    values[: n // 8] = rng.standard_normal(n // 8) * 1e-3
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(specials), values]).astype(dtype)


def jax_run(fn, *operands):
    return np.asarray(jax.jit(fn)(*operands))


def assert_same_bits(got, expected, what):
    __tracebackhide__ = True
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != {expected.dtype}"
    g, e = bits(got), bits(expected)
    if got.dtype.kind == "f" or got.dtype == np.dtype(ml_dtypes.bfloat16):
        # Any NaN matches any NaN (XLA does not promise payloads).
        nan = np.isnan(got.astype(np.float64)) & np.isnan(expected.astype(np.float64))
        g, e = np.where(nan, 0, g), np.where(nan, 0, e)
    bad = np.flatnonzero(g != e)
    if bad.size:
        i = bad[:5]
        raise AssertionError(
            f"{what}: {bad.size} mismatches, e.g. at {i.tolist()}: got {got.flat[i]!r}, "
            f"XLA {expected.flat[i]!r}"
        )


# ---- integers: bit for bit --------------------------------------------------------------------

INT_BINARY = [
    (Opcode.ADD, lax.add),
    (Opcode.SUBTRACT, lax.sub),
    (Opcode.MULTIPLY, lax.mul),
    (Opcode.DIVIDE, lax.div),
    (Opcode.REMAINDER, lax.rem),
    (Opcode.MAXIMUM, lax.max),
    (Opcode.MINIMUM, lax.min),
    (Opcode.AND, lax.bitwise_and),
    (Opcode.OR, lax.bitwise_or),
    (Opcode.XOR, lax.bitwise_xor),
    (Opcode.SHIFT_LEFT, lax.shift_left),
    (Opcode.SHIFT_RIGHT_ARITHMETIC, lax.shift_right_arithmetic),
    (Opcode.SHIFT_RIGHT_LOGICAL, lax.shift_right_logical),
]
INT_UNARY = [
    (Opcode.NEGATE, lax.neg),
    (Opcode.ABS, lax.abs),
    (Opcode.SIGN, lax.sign),
    (Opcode.NOT, lax.bitwise_not),
    (Opcode.CLZ, lax.clz),
    (Opcode.POPCNT, lax.population_count),
]


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("opcode", "fn"), INT_BINARY, ids=lambda x: getattr(x, "value", ""))
def test_integer_binary_matches_xla(opcode, fn, dtype):
    if opcode is Opcode.ABS and np.dtype(dtype).kind == "u":
        pytest.skip("lax.abs rejects unsigned types")
    rng = np.random.default_rng(7)
    lhs = random_ints(dtype, 300, rng)
    rhs = rng.permutation(random_ints(dtype, 300, rng))
    if opcode.value.startswith("shift"):
        width = np.dtype(dtype).itemsize * 8
        rhs[: len(rhs) // 2] = rng.integers(0, width + 2, len(rhs) // 2).astype(dtype)
    if opcode in (Opcode.DIVIDE, Opcode.REMAINDER):
        rhs[::7] = 0
        rhs[1::7] = -1 if np.dtype(dtype).kind == "i" else 1
    got = run_op(opcode, [lhs, rhs], dtypes.from_numpy(dtype))
    assert_same_bits(got, jax_run(fn, lhs, rhs), f"{opcode.value} {np.dtype(dtype)}")


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("opcode", "fn"), INT_UNARY, ids=lambda x: getattr(x, "value", ""))
def test_integer_unary_matches_xla(opcode, fn, dtype):
    if opcode in (Opcode.ABS, Opcode.NEGATE) and np.dtype(dtype).kind == "u":
        pytest.skip("lax rejects abs/neg of unsigned types")
    operand = random_ints(dtype, 300, np.random.default_rng(3))
    got = run_op(opcode, [operand], dtypes.from_numpy(dtype))
    assert_same_bits(got, jax_run(fn, operand), f"{opcode.value} {np.dtype(dtype)}")


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("direction", list(ComparisonDirection), ids=lambda d: d.value)
def test_compare_matches_xla(direction, dtype):
    rng = np.random.default_rng(11)
    if np.dtype(dtype).kind in "iu":
        lhs = random_ints(dtype, 200, rng)
    else:
        lhs = random_floats(dtype, 200, rng)
    rhs = rng.permutation(lhs)
    rhs[::3] = lhs[::3]
    fn = {
        "EQ": lax.eq,
        "NE": lax.ne,
        "LT": lax.lt,
        "LE": lax.le,
        "GT": lax.gt,
        "GE": lax.ge,
    }[direction.value]
    got = run_op(Opcode.COMPARE, [lhs, rhs], "pred", {"direction": direction}, flush_denormals=True)
    assert_same_bits(got, jax_run(fn, lhs, rhs), f"compare {direction.value}")


# ---- floats: exact ops bit for bit ---------------------------------------------------------------

FLOAT_BINARY = [
    (Opcode.ADD, lax.add),
    (Opcode.SUBTRACT, lax.sub),
    (Opcode.MULTIPLY, lax.mul),
    (Opcode.DIVIDE, lax.div),
    (Opcode.REMAINDER, lax.rem),
    (Opcode.MAXIMUM, lax.max),
    (Opcode.MINIMUM, lax.min),
]
FLOAT_UNARY = [
    (Opcode.NEGATE, lax.neg),
    (Opcode.ABS, lax.abs),
    (Opcode.SIGN, lax.sign),
    (Opcode.FLOOR, lax.floor),
    (Opcode.CEIL, lax.ceil),
    (Opcode.ROUND_NEAREST_AFZ, lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)),
    (Opcode.ROUND_NEAREST_EVEN, lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)),
    (Opcode.SQRT, lax.sqrt),
    (Opcode.IS_FINITE, lax.is_finite),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("opcode", "fn"), FLOAT_BINARY, ids=lambda x: getattr(x, "value", ""))
def test_float_binary_matches_xla(opcode, fn, dtype):
    rng = np.random.default_rng(5)
    lhs = random_floats(dtype, 300, rng)
    rhs = rng.permutation(random_floats(dtype, 300, rng))
    got = run_op(opcode, [lhs, rhs], dtypes.from_numpy(dtype), flush_denormals=True)
    assert_same_bits(got, jax_run(fn, lhs, rhs), f"{opcode.value} {np.dtype(dtype)}")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("opcode", "fn"), FLOAT_UNARY, ids=lambda x: getattr(x, "value", ""))
def test_float_unary_matches_xla(opcode, fn, dtype):
    operand = random_floats(dtype, 300, np.random.default_rng(9))
    result = dtypes.PRED if opcode is Opcode.IS_FINITE else dtypes.from_numpy(dtype)
    got = run_op(opcode, [operand], result, flush_denormals=True)
    assert_same_bits(got, jax_run(fn, operand), f"{opcode.value} {np.dtype(dtype)}")


CONVERSIONS = [
    *[(f, i) for f in FLOATS for i in (np.int8, np.int32, np.int64, np.uint8, np.uint64)],
    *[(i, f) for i in (np.int8, np.int32, np.int64, np.uint64) for f in FLOATS],
    *[(a, b) for a in FLOATS for b in FLOATS if a != b],
    *[(a, b) for a in INTS for b in INTS if a != b],
    *[(a, np.bool_) for a in (np.int32, np.float32)],
]


@pytest.mark.parametrize(
    ("source", "target"),
    CONVERSIONS,
    ids=lambda d: np.dtype(d).name,
)
def test_convert_matches_xla(source, target):
    rng = np.random.default_rng(13)
    if np.dtype(source).kind in "iu":
        operand = random_ints(source, 300, rng)
        if np.dtype(target) == np.dtype(ml_dtypes.bfloat16) or np.dtype(target) == np.float16:
            # XLA rounds int -> bf16 through f32 (two roundings); integers of at most 24 bits
            # are exact in f32, so there both agree with the single rounding of the spec.
            operand = np.where(np.abs(operand.astype(np.float64)) < 2**24, operand, 0)
            operand = operand.astype(source)
    else:
        operand = random_floats(source, 300, rng, -3e9, 3e9)
        if np.dtype(source) == np.float64 and np.dtype(target) == np.dtype(ml_dtypes.bfloat16):
            # XLA rounds f64 -> bf16 through f32 (two roundings): compare on f32 values only.
            operand = operand.astype(np.float32).astype(np.float64)
    got = run_op(Opcode.CONVERT, [operand], dtypes.from_numpy(target), flush_denormals=True)
    expected = jax_run(lambda x: lax.convert_element_type(x, target), operand)
    assert_same_bits(got, expected, f"convert {np.dtype(source)} -> {np.dtype(target)}")


# ---- transcendental functions within ULP bounds ---------------------------------------------------

ULPS = {np.dtype(np.float32): 4, np.dtype(np.float64): 4}
"""Allowed distance to XLA, in ULPs of the type (f16/bf16: 1, since both round f32 results).
The interpreter rounds f64 values once, so the distance is XLA's own error."""

ULPS_BY_OP = {
    # XLA computes sinh/cosh from two f32 exponentials; logistic of f16/bf16 runs in the
    # narrow type itself, which loses all relative accuracy in the tails (x < -5).
    (Opcode.SINH, np.dtype(np.float32)): 16,
    (Opcode.COSH, np.dtype(np.float32)): 16,
    (Opcode.LOGISTIC, np.dtype(np.float16)): 2,
    (Opcode.LOGISTIC, np.dtype(ml_dtypes.bfloat16)): 2,
}

TRANSCENDENTAL = [
    (Opcode.EXP, lax.exp, (-80, 80)),
    (Opcode.EXPM1, lax.expm1, (-5, 5)),
    (Opcode.LOG, lax.log, (0, 1000)),
    (Opcode.LOG1P, lax.log1p, (-0.9, 100)),
    (Opcode.LOGISTIC, lax.logistic, (-5, 30)),
    (Opcode.SIN, lax.sin, (-10, 10)),
    (Opcode.COS, lax.cos, (-10, 10)),
    (Opcode.TAN, lax.tan, (-1.5, 1.5)),
    (Opcode.TANH, lax.tanh, (-10, 10)),
    (Opcode.CBRT, lax.cbrt, (-100, 100)),
    (Opcode.RSQRT, lax.rsqrt, (0, 100)),
    (Opcode.ERF, lax.erf, (-4, 4)),
    (Opcode.ATAN, lax.atan, (-10, 10)),
    (Opcode.ASINH, lax.asinh, (-10, 10)),
    (Opcode.SINH, lax.sinh, (-10, 10)),
    (Opcode.COSH, lax.cosh, (-10, 10)),
]


def ulp_distance(got, expected):
    """Distance in representable values (NaN vs NaN: 0; NaN vs number: huge)."""
    t = dtypes.from_numpy(got.dtype)
    from xlapy.interpreter.numerics import total_order_key

    a, b = total_order_key(got, t), total_order_key(expected, t)
    # -0 and +0 are adjacent keys; count them as equal.
    a = np.where(a < 0, a + 1, a)
    b = np.where(b < 0, b + 1, b)
    nan_g, nan_e = np.isnan(got.astype(np.float64)), np.isnan(expected.astype(np.float64))
    distance = np.abs(a - b)
    return np.where(nan_g & nan_e, 0, np.where(nan_g | nan_e, 2**62, distance))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    ("opcode", "fn", "domain"), TRANSCENDENTAL, ids=lambda x: getattr(x, "value", "")
)
def test_transcendental_close_to_xla(opcode, fn, domain, dtype):
    rng = np.random.default_rng(17)
    operand = np.concatenate(
        [rng.uniform(*domain, 400), [0.0, -0.0, np.inf, -np.inf, np.nan]]
    ).astype(dtype)
    got = run_op(opcode, [operand], dtypes.from_numpy(dtype), flush_denormals=True)
    expected = jax_run(fn, operand)
    allowed = ULPS_BY_OP.get((opcode, np.dtype(dtype)), ULPS.get(np.dtype(dtype), 1))
    distance = ulp_distance(got, expected)
    worst = int(np.argmax(distance))
    assert distance[worst] <= allowed, (
        f"{opcode.value} {np.dtype(dtype)}: {distance[worst]} ulps at x={operand[worst]!r}: "
        f"got {got[worst]!r}, XLA {expected[worst]!r}"
    )


# ---- fp8 types: bit for bit ----------------------------------------------------------------------

FP8 = [
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
    ml_dtypes.float8_e4m3b11fnuz,
    ml_dtypes.float8_e5m2fnuz,
    ml_dtypes.float8_e4m3fnuz,
    ml_dtypes.float8_e3m4,
    ml_dtypes.float8_e4m3,
]


@pytest.mark.parametrize("dtype", FP8, ids=lambda d: np.dtype(d).name)
def test_fp8_arithmetic_and_conversions_match_xla(dtype):
    rng = np.random.default_rng(19)
    lhs = rng.uniform(-20, 20, 300).astype(dtype)
    rhs = rng.uniform(-20, 20, 300).astype(dtype)
    t = dtypes.from_numpy(dtype)
    for opcode, fn in FLOAT_BINARY:
        if opcode is Opcode.REMAINDER:
            continue
        got = run_op(opcode, [lhs, rhs], t, flush_denormals=True)
        assert_same_bits(got, jax_run(fn, lhs, rhs), f"{opcode.value} {np.dtype(dtype)}")
    for source in (np.float32, ml_dtypes.bfloat16, np.float16):
        operand = rng.uniform(-500, 500, 300).astype(source)
        got = run_op(Opcode.CONVERT, [operand], t, flush_denormals=True)
        expected = jax_run(lambda x: lax.convert_element_type(x, dtype), operand)
        assert_same_bits(got, expected, f"convert {np.dtype(source)} -> {np.dtype(dtype)}")


# ---- complex functions: close to XLA relative to the magnitude --------------------------------------

COMPLEX_FUNCTIONS = [
    (Opcode.MULTIPLY, lax.mul, 2),
    (Opcode.DIVIDE, lax.div, 2),
    (Opcode.EXP, lax.exp, 1),
    (Opcode.LOG, lax.log, 1),
    (Opcode.SQRT, lax.sqrt, 1),
    (Opcode.RSQRT, lax.rsqrt, 1),
    (Opcode.TANH, lax.tanh, 1),
    (Opcode.SIN, lax.sin, 1),
    (Opcode.COS, lax.cos, 1),
    (Opcode.TAN, lax.tan, 1),
    (Opcode.EXPM1, lax.expm1, 1),
    (Opcode.LOG1P, lax.log1p, 1),
    (Opcode.LOGISTIC, lax.logistic, 1),
    (Opcode.SIGN, lax.sign, 1),
    (Opcode.ABS, lax.abs, 1),
    (Opcode.ASIN, lax.asin, 1),
    (Opcode.ACOS, lax.acos, 1),
    (Opcode.ATAN, lax.atan, 1),
    (Opcode.ASINH, lax.asinh, 1),
    (Opcode.ACOSH, lax.acosh, 1),
    (Opcode.ATANH, lax.atanh, 1),
    (Opcode.SINH, lax.sinh, 1),
    (Opcode.COSH, lax.cosh, 1),
    (Opcode.POWER, lax.pow, 2),
    (Opcode.ATAN2, lax.atan2, 2),
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    ("opcode", "fn", "arity"), COMPLEX_FUNCTIONS, ids=lambda x: getattr(x, "value", "")
)
def test_complex_close_to_xla(opcode, fn, arity, dtype):
    rng = np.random.default_rng(23)
    operands = [
        (rng.uniform(-3, 3, 300) + 1j * rng.uniform(-3, 3, 300)).astype(dtype) for _ in range(arity)
    ]
    expected = jax_run(fn, *operands)
    got = run_op(opcode, operands, dtypes.from_numpy(expected.dtype), flush_denormals=True)
    eps = np.finfo(expected.real.dtype).eps
    # XLA's f32 complex pow/atan2 lose ~20 ulps and its complex log1p ~8 (checked against
    # mpmath: the interpreter is the accurate side); everything else stays within a few.
    allowed = 32 if opcode in (Opcode.POWER, Opcode.ATAN2) else 8
    error = np.abs(got.astype(np.complex128) - expected) / np.abs(expected.astype(np.complex128))
    assert error.max() <= allowed * eps, (
        f"{opcode.value} {np.dtype(dtype)}: {error.max() / eps} eps"
    )
