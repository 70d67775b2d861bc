"""Integer arithmetic with XLA's rules for every width (s2..s64, u2..u64), on whole arrays.

Inputs are value views from ``numerics.int_values`` (int64 for signed types, uint64 for
unsigned); results are integer arrays that the caller wraps into the element type with
``numerics.wrap``. Every rule the spec leaves implementation-defined is decided here, as XLA
decides it:

* ``x / 0 = -1`` (all ones for unsigned types), ``x % 0 = x``;
* ``INT_MIN / -1 = INT_MIN``, ``INT_MIN % -1 = 0``;
* shifts by an amount that, read as unsigned, is ``>=`` the bit width give 0, or the sign fill
  for ``shift-right-arithmetic`` (which treats unsigned operands as signed, as XLA does);
* ``pow`` with a negative exponent: 1 for base 1, +-1 for base -1, 0 otherwise.
"""

from __future__ import annotations

import numpy as np

from xlapy.dtypes import ElementType
from xlapy.interpreter.numerics import I64, U64, Array, int_min, unsigned_bits

_M32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


def as_unsigned(values: Array) -> Array:
    """Integer values as uint64 (two's complement for negative int64 values)."""
    return values.view(U64) if values.dtype == I64 else values.astype(U64)


def add(lhs: Array, rhs: Array) -> Array:
    """``lhs + rhs`` modulo 2**64 (the caller truncates to the type's width)."""
    return as_unsigned(lhs) + as_unsigned(rhs)


def subtract(lhs: Array, rhs: Array) -> Array:
    return as_unsigned(lhs) - as_unsigned(rhs)


def multiply(lhs: Array, rhs: Array) -> Array:
    """The low 64 bits of the product are the same for signed and unsigned operands."""
    return as_unsigned(lhs) * as_unsigned(rhs)


def negate(operand: Array) -> Array:
    """``0 - x``: wraps, so ``-INT_MIN = INT_MIN`` and unsigned negation is ``2**bits - x``."""
    return np.uint64(0) - as_unsigned(operand)


def _is_overflow(lhs: Array, rhs: Array, t: ElementType) -> Array:
    if not t.is_signed:
        return np.zeros(np.broadcast(lhs, rhs).shape, np.bool_)
    return np.asarray((lhs == int_min(t)) & (rhs == -1))


def _truncated_quotient(lhs: Array, rhs: Array) -> Array:
    """``lhs / rhs`` rounded toward zero; ``rhs`` has no zeros and no INT_MIN/-1 pairs."""
    floor = lhs // rhs
    inexact = (lhs - floor * rhs) != 0
    if lhs.dtype == U64:
        return floor
    return np.where(inexact & ((lhs < 0) != (rhs < 0)), floor + 1, floor)


def divide(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """Integer division rounding toward zero (``-5 / 3 = -1``); by zero: -1 (all ones);
    ``INT_MIN / -1``: INT_MIN."""
    zero = rhs == 0
    overflow = _is_overflow(lhs, rhs, t)
    safe = np.where(zero | overflow, 1, rhs).astype(rhs.dtype)
    quotient = _truncated_quotient(lhs, safe)
    all_ones = -1 if t.is_signed else np.iinfo(np.uint64).max
    return np.where(zero, np.array(all_ones, lhs.dtype), np.where(overflow, lhs, quotient))


def remainder(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """``lhs - rhs * trunc(lhs / rhs)``: the sign follows the dividend; ``x % 0 = x``;
    ``INT_MIN % -1 = 0``."""
    zero = rhs == 0
    overflow = _is_overflow(lhs, rhs, t)
    safe = np.where(zero | overflow, 1, rhs).astype(rhs.dtype)
    rem = lhs - _truncated_quotient(lhs, safe) * safe
    return np.where(zero, lhs, np.where(overflow, np.array(0, lhs.dtype), rem))


def _shift_amount(rhs: Array, t: ElementType) -> tuple[Array, Array]:
    """The shift amount read as unsigned in the type's width, and where it is < the width."""
    amount = unsigned_bits(rhs, t)
    in_range = amount < np.uint64(t.bits)
    return np.where(in_range, amount, np.uint64(0)).astype(U64), in_range


def shift_left(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """``lhs << rhs``; bits shifted out are lost; amounts >= the bit width give 0."""
    amount, in_range = _shift_amount(rhs, t)
    return np.where(in_range, unsigned_bits(lhs, t) << amount, np.uint64(0))


def shift_right_logical(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """Zero-filling right shift of the bit pattern; amounts >= the bit width give 0."""
    amount, in_range = _shift_amount(rhs, t)
    return np.where(in_range, unsigned_bits(lhs, t) >> amount, np.uint64(0))


def shift_right_arithmetic(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """Sign-filling right shift of the bit pattern read as signed (also for unsigned types);
    amounts >= the bit width give all sign bits (-1 or 0)."""
    amount, in_range = _shift_amount(rhs, t)
    pattern = unsigned_bits(lhs, t)
    if t.bits < 64:
        half = np.uint64(1 << (t.bits - 1))
        signed = pattern.astype(I64) - np.where(pattern >= half, 1 << t.bits, 0).astype(I64)
    else:
        signed = pattern.view(I64)
    shifted = signed >> amount.astype(I64)
    return np.where(in_range, shifted, np.where(signed < 0, -1, 0)).astype(I64)


def _bit_length(pattern: Array) -> Array:
    """Number of significant bits of each uint64 (0 for 0), by binary search on the width."""
    length = np.zeros(pattern.shape, I64)
    rest = pattern.copy()
    for step in (32, 16, 8, 4, 2, 1):
        high = rest >= (np.uint64(1) << np.uint64(step))
        rest = np.where(high, rest >> np.uint64(step), rest)
        length += np.where(high, step, 0)
    return np.asarray(length + (rest != 0))


def count_leading_zeros(operand: Array, t: ElementType) -> Array:
    """Leading zero bits in the type's width: ``clz(0) = bits``, ``clz(-1) = 0``."""
    return t.bits - _bit_length(unsigned_bits(operand, t))


def popcnt(operand: Array, t: ElementType) -> Array:
    """Set bits in the type's width (``popcnt(s4 -1) = 4``)."""
    return np.bitwise_count(unsigned_bits(operand, t)).astype(I64)


def power(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """``lhs ** rhs`` by repeated squaring, wrapping; negative exponents follow XLA
    (1 for base 1, -1 or 1 for base -1 by the exponent's parity, 0 otherwise)."""
    base = as_unsigned(lhs)
    exponent = as_unsigned(rhs)
    result = np.ones(np.broadcast(base, exponent).shape, U64)
    while np.any(exponent):  # at most 64 rounds, one per exponent bit
        result = np.where(exponent & np.uint64(1), result * base, result)
        base = base * base
        exponent = exponent >> np.uint64(1)
    if not t.is_signed:
        return result
    negative = rhs < 0
    odd = (rhs & 1) != 0
    special = np.where(lhs == 1, 1, np.where(lhs == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, special, result.view(I64)).astype(I64)


def mulhi(lhs: Array, rhs: Array, t: ElementType) -> Array:
    """The high ``bits`` of the ``2 * bits``-wide product (signed or unsigned by type)."""
    if t.bits <= 32:
        product = lhs.astype(I64) * rhs.astype(I64) if t.is_signed else lhs * rhs
        return product >> (I64.type(t.bits) if t.is_signed else np.uint64(t.bits))
    a, b = as_unsigned(lhs), as_unsigned(rhs)
    a_lo, a_hi, b_lo, b_hi = a & _M32, a >> _32, b & _M32, b >> _32
    low_low, low_high, high_low = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo
    middle = (low_low >> _32) + (low_high & _M32) + (high_low & _M32)
    high = a_hi * b_hi + (low_high >> _32) + (high_low >> _32) + (middle >> _32)
    if t.is_signed:
        # Signed high half = unsigned high half - (a < 0 ? b : 0) - (b < 0 ? a : 0), mod 2**64.
        high = high - np.where(lhs < 0, b, np.uint64(0)) - np.where(rhs < 0, a, np.uint64(0))
    return np.asarray(high)
