"""Property tests: integer elementwise ops at every width (s1..s64, u1..u64) against a
reference written with Python's unbounded integers, and float ops against numpy in f64."""

from __future__ import annotations

import math

import numpy as np
import pytest
from elementwise_util import bits, run_op
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy import dtypes
from xlapy.ir import Opcode

INT_TYPES = [t for t in dtypes.INTEGER_TYPES]


def wrap(value: int, t: dtypes.ElementType) -> int:
    """Two's-complement reduction of ``value`` into ``t``."""
    value %= 1 << t.bits
    if t.is_signed and value >= 1 << (t.bits - 1):
        value -= 1 << t.bits
    return value


def truncated_quotient(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def divide(a: int, b: int, t: dtypes.ElementType) -> int:
    if b == 0:
        return wrap(-1, t)
    if t.is_signed and a == -(1 << (t.bits - 1)) and b == -1:
        return a
    return wrap(truncated_quotient(a, b), t)


def remainder(a: int, b: int, t: dtypes.ElementType) -> int:
    if b == 0:
        return a
    if t.is_signed and a == -(1 << (t.bits - 1)) and b == -1:
        return 0
    return wrap(a - b * truncated_quotient(a, b), t)


def shift_amount(b: int, t: dtypes.ElementType) -> int:
    return b % (1 << t.bits)


def shift_left(a: int, b: int, t: dtypes.ElementType) -> int:
    amount = shift_amount(b, t)
    return 0 if amount >= t.bits else wrap(a << amount, t)


def shift_right_logical(a: int, b: int, t: dtypes.ElementType) -> int:
    amount = shift_amount(b, t)
    return 0 if amount >= t.bits else wrap((a % (1 << t.bits)) >> amount, t)


def shift_right_arithmetic(a: int, b: int, t: dtypes.ElementType) -> int:
    signed = wrap(a, dtypes.signed_of_width(t.bits))
    amount = shift_amount(b, t)
    return wrap(signed >> min(amount, t.bits), t)


def power(a: int, b: int, t: dtypes.ElementType) -> int:
    if b < 0:
        return 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
    return wrap(pow(a, b, 1 << t.bits), t)


BINARY = {
    Opcode.ADD: lambda a, b, t: wrap(a + b, t),
    Opcode.SUBTRACT: lambda a, b, t: wrap(a - b, t),
    Opcode.MULTIPLY: lambda a, b, t: wrap(a * b, t),
    Opcode.DIVIDE: divide,
    Opcode.REMAINDER: remainder,
    Opcode.MAXIMUM: lambda a, b, t: max(a, b),
    Opcode.MINIMUM: lambda a, b, t: min(a, b),
    Opcode.AND: lambda a, b, t: wrap(a & b, t),
    Opcode.OR: lambda a, b, t: wrap(a | b, t),
    Opcode.XOR: lambda a, b, t: wrap(a ^ b, t),
    Opcode.SHIFT_LEFT: shift_left,
    Opcode.SHIFT_RIGHT_LOGICAL: shift_right_logical,
    Opcode.SHIFT_RIGHT_ARITHMETIC: shift_right_arithmetic,
    Opcode.POWER: power,
    Opcode.MULHI: lambda a, b, t: wrap((a * b) >> t.bits, t),
}
UNARY = {
    Opcode.NEGATE: lambda a, t: wrap(-a, t),
    Opcode.ABS: lambda a, t: wrap(abs(a), t),
    Opcode.NOT: lambda a, t: wrap(~a, t),
    Opcode.SIGN: lambda a, t: (a > 0) - (a < 0),
    Opcode.CLZ: lambda a, t: t.bits - (a % (1 << t.bits)).bit_length(),
    Opcode.POPCNT: lambda a, t: bin(a % (1 << t.bits)).count("1"),
}


@st.composite
def int_operands(draw, count: int):
    t = draw(st.sampled_from(INT_TYPES))
    lo, hi = (
        -(1 << (t.bits - 1)) if t.is_signed else 0,
        (1 << (t.bits - 1 if t.is_signed else t.bits)) - 1,
    )
    n = draw(st.integers(1, 8))
    values = st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, min(1, hi), max(-1, lo)]))
    columns = [draw(st.lists(values, min_size=n, max_size=n)) for _ in range(count)]
    return t, columns


def as_array(values: list[int], t: dtypes.ElementType) -> np.ndarray:
    return np.array(values, dtype=np.int64 if t.is_signed else np.uint64).astype(t.numpy)


def as_ints(array: np.ndarray) -> list[int]:
    return [int(v) for v in array.astype(np.int64 if array.dtype.kind != "u" else np.uint64)]


@pytest.mark.parametrize("opcode", list(BINARY), ids=lambda o: o.value)
@settings(max_examples=60, deadline=None)
@given(data=int_operands(2))
def test_integer_binary_matches_python_integers(opcode, data):
    t, (lhs, rhs) = data
    got = run_op(opcode, [as_array(lhs, t), as_array(rhs, t)], t)
    expected = [BINARY[opcode](a, b, t) for a, b in zip(lhs, rhs, strict=True)]
    assert got.dtype == t.numpy
    assert as_ints(got) == expected, f"{opcode.value} {t}: {lhs} {rhs}"


@pytest.mark.parametrize("opcode", list(UNARY), ids=lambda o: o.value)
@settings(max_examples=60, deadline=None)
@given(data=int_operands(1))
def test_integer_unary_matches_python_integers(opcode, data):
    t, (operand,) = data
    got = run_op(opcode, [as_array(operand, t)], t)
    expected = [wrap(UNARY[opcode](a, t), t) for a in operand]
    assert as_ints(got) == expected, f"{opcode.value} {t}: {operand}"


@settings(max_examples=100, deadline=None)
@given(data=int_operands(1), target=st.sampled_from(INT_TYPES))
def test_integer_convert_wraps(data, target):
    t, (operand,) = data
    got = run_op(Opcode.CONVERT, [as_array(operand, t)], target)
    assert as_ints(got) == [wrap(a, target) for a in operand]


@settings(max_examples=100, deadline=None)
@given(data=int_operands(1), target=st.sampled_from([dtypes.F16, dtypes.BF16, dtypes.F32]))
def test_integer_to_float_is_correctly_rounded(data, target):
    t, (operand,) = data
    got = run_op(Opcode.CONVERT, [as_array(operand, t)], target).astype(np.float64)
    for value, result in zip(operand, got, strict=True):
        # result is a nearest representable value, ties to even (checked with exact integers).
        if math.isinf(result):
            continue
        below = np.array([result], target.numpy)
        up = np.nextafter(below, np.array([np.inf], target.numpy)).astype(np.float64)[0]
        down = np.nextafter(below, np.array([-np.inf], target.numpy)).astype(np.float64)[0]
        exact = int(result)
        for neighbour in (up, down):
            if math.isfinite(neighbour):
                assert abs(value - exact) <= abs(value - int(neighbour)), (value, result, neighbour)


FLOAT_BINARY = {
    Opcode.ADD: np.add,
    Opcode.SUBTRACT: np.subtract,
    Opcode.MULTIPLY: np.multiply,
    Opcode.DIVIDE: np.divide,
}


@pytest.mark.parametrize("opcode", list(FLOAT_BINARY), ids=lambda o: o.value)
@pytest.mark.parametrize("t", [dtypes.F16, dtypes.BF16, dtypes.F8E4M3FN, dtypes.F8E5M2])
@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(-1e4, 1e4, width=32), min_size=2, max_size=16))
def test_narrow_float_arithmetic_is_the_rounded_exact_result(opcode, t, values):
    lhs = np.array(values, np.float32).astype(t.numpy)
    rhs = np.roll(lhs, 1)
    got = run_op(opcode, [lhs, rhs], t)
    # Exact in f64 for +, -, *; correctly rounded / in f64 has far more bits than needed.
    with np.errstate(all="ignore"):
        exact = FLOAT_BINARY[opcode](lhs.astype(np.float64), rhs.astype(np.float64))
        expected = exact.astype(np.float32).astype(t.numpy)
    nan = np.isnan(got.astype(np.float32)) & np.isnan(expected.astype(np.float32))
    np.testing.assert_array_equal(np.where(nan, 0, bits(got)), np.where(nan, 0, bits(expected)))
