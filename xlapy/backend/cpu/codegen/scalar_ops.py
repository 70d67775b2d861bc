"""Exact scalar helpers that generated kernels call: XLA's integer rules (division and
remainder by zero and INT_MIN/-1, shifts past the bit width, clz, popcnt, mulhi, integer
power), IEEE maximum/minimum with NaN propagation and signed zeros, rounding, saturating
float -> integer conversion, the TOTALORDER key and XLA:CPU's flush of subnormals.

Each rule is the one of ``xlapy.interpreter.intmath`` / ``numerics`` (the oracle), restated
per element. Integer helpers take the value widened to int64 (signed types) or uint64
(unsigned types and bit patterns); the caller truncates the result to its type, which wraps
in two's complement.

The float helpers of elementwise ops (maximum, minimum, flush) are inlined into the caller's
numba IR (``inline="always"``): left as calls, LLVM kept them out of line and a loop calling
one ran scalar (a fused bias + relu + 2x2 average pool, 200K outputs: 0.56 -> 0.09 ms).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_U64 = np.uint64
_I64 = np.int64
_ALL_ONES = _U64(0xFFFFFFFFFFFFFFFF)


@intrinsic
def f32_from_bits(typingctx: object, bits: types.Type) -> object:
    """The float32 whose bit pattern is the int32 ``bits``."""
    sig = types.float32(types.int32)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list) -> object:
        return builder.bitcast(args[0], ir.FloatType())

    return sig, codegen


@intrinsic
def f32_bits(typingctx: object, value: types.Type) -> object:
    """The bit pattern of the float32 ``value`` as an int32."""
    sig = types.int32(types.float32)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list) -> object:
        return builder.bitcast(args[0], ir.IntType(32))

    return sig, codegen


@intrinsic
def f64_from_bits(typingctx: object, bits: types.Type) -> object:
    """The float64 whose bit pattern is the int64 ``bits``."""
    sig = types.float64(types.int64)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list) -> object:
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@intrinsic
def f64_bits(typingctx: object, value: types.Type) -> object:
    """The bit pattern of the float64 ``value`` as an int64."""
    sig = types.int64(types.float64)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list) -> object:
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@numba.njit(cache=True)
def total_order_key_f32(x: float) -> int:
    """XLA's TOTALORDER key of a float32: its sign-magnitude bits as a two's-complement
    int32 (``-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN``)."""
    bits = f32_bits(x)
    return bits ^ np.int32(0x7FFFFFFF) if bits < 0 else bits


@numba.njit(cache=True)
def total_order_key_f64(x: float) -> int:
    """XLA's TOTALORDER key of a float64 (see ``total_order_key_f32``)."""
    bits = f64_bits(x)
    return bits ^ np.int64(0x7FFFFFFFFFFFFFFF) if bits < 0 else bits


@numba.njit(cache=True)
def f32_from_total_order_key(key: int) -> float:
    """The float32 of a TOTALORDER key (the key map is its own inverse on the bits)."""
    return f32_from_bits(key ^ np.int32(0x7FFFFFFF) if key < 0 else key)


@numba.njit(cache=True)
def f64_from_total_order_key(key: int) -> float:
    """The float64 of a TOTALORDER key."""
    return f64_from_bits(key ^ np.int64(0x7FFFFFFFFFFFFFFF) if key < 0 else key)


@numba.njit(cache=True, error_model="numpy")
def divide_signed(a: int, b: int) -> int:
    """``a / b`` rounded toward zero; ``x / 0 = -1``; ``INT_MIN / -1 = INT_MIN`` (the
    negation wraps: in uint64, as numba's int64 ``~a + 1`` is LLVM's ``add nsw``, and LLVM
    then took the quotient for never INT_MIN: ``divide(INT_MIN, -1) == INT_MIN`` was false)."""
    if b == 0:
        return _I64(-1)
    if b == -1:
        return _I64(_U64(0) - _U64(a))
    quotient = a // b
    if (a - quotient * b) != 0 and ((a < 0) != (b < 0)):
        quotient += 1
    return quotient


@numba.njit(cache=True, error_model="numpy")
def remainder_signed(a: int, b: int) -> int:
    """``a - b * trunc(a / b)`` (the sign follows ``a``); ``x % 0 = x``; ``x % -1 = 0``."""
    if b == 0:
        return a
    if b == -1:
        return _I64(0)
    return a - divide_signed(a, b) * b


@numba.njit(cache=True, error_model="numpy")
def divide_unsigned(a: int, b: int) -> int:
    """``a / b``; ``x / 0`` is all ones (truncated to the type)."""
    return a // b if b != 0 else _ALL_ONES


@numba.njit(cache=True, error_model="numpy")
def remainder_unsigned(a: int, b: int) -> int:
    """``a % b``; ``x % 0 = x``."""
    return a % b if b != 0 else a


@numba.njit(cache=True)
def shift_left(pattern: int, amount: int, bits: int) -> int:
    """``pattern << amount`` (uint64); amounts ``>= bits`` give 0."""
    return pattern << amount if amount < bits else _U64(0)


@numba.njit(cache=True)
def shift_right_logical(pattern: int, amount: int, bits: int) -> int:
    """Zero-filling shift of a ``bits``-wide pattern (uint64, high bits clear); amounts
    ``>= bits`` give 0."""
    return pattern >> amount if amount < bits else _U64(0)


@numba.njit(cache=True)
def shift_right_arithmetic(value: int, amount: int, bits: int) -> int:
    """Sign-filling shift of the pattern read as signed (int64 ``value``); amounts
    ``>= bits`` give all sign bits."""
    if amount < bits:
        return value >> _I64(amount)
    return _I64(-1) if value < 0 else _I64(0)


@numba.njit(cache=True)
def count_leading_zeros(pattern: int, bits: int) -> int:
    """Leading zero bits of a ``bits``-wide pattern (uint64): ``clz(0) = bits``."""
    length = 0
    rest = pattern
    for step in (32, 16, 8, 4, 2, 1):
        if rest >= (_U64(1) << _U64(step)):
            rest = rest >> _U64(step)
            length += step
    if rest != 0:
        length += 1
    return bits - length


@numba.njit(cache=True)
def popcount(pattern: int) -> int:
    """Set bits of a uint64 pattern."""
    x = pattern - ((pattern >> _U64(1)) & _U64(0x5555555555555555))
    x = (x & _U64(0x3333333333333333)) + ((x >> _U64(2)) & _U64(0x3333333333333333))
    x = (x + (x >> _U64(4))) & _U64(0x0F0F0F0F0F0F0F0F)
    return _I64((x * _U64(0x0101010101010101)) >> _U64(56))


@numba.njit(cache=True)
def mulhi_unsigned64(a: int, b: int) -> int:
    """The high 64 bits of the 128-bit product of two uint64 values."""
    mask = _U64(0xFFFFFFFF)
    a_lo, a_hi, b_lo, b_hi = a & mask, a >> _U64(32), b & mask, b >> _U64(32)
    low_low, low_high, high_low = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo
    middle = (low_low >> _U64(32)) + (low_high & mask) + (high_low & mask)
    return a_hi * b_hi + (low_high >> _U64(32)) + (high_low >> _U64(32)) + (middle >> _U64(32))


@numba.njit(cache=True)
def mulhi_signed64(a: int, b: int) -> int:
    """The high 64 bits of the 128-bit product of two int64 values (as uint64 bits)."""
    ua, ub = _U64(a), _U64(b)
    high = mulhi_unsigned64(ua, ub)
    if a < 0:
        high = high - ub
    if b < 0:
        high = high - ua
    return high


@numba.njit(cache=True)
def power_integer(base: int, exponent: int, signed: bool) -> int:
    """``base ** exponent`` by repeated squaring modulo 2^64 (uint64 result bits); for a
    negative signed exponent: 1 for base 1, +-1 for base -1 by parity, 0 otherwise."""
    if signed and _I64(exponent) < 0:
        b = _I64(base)
        if b == 1:
            return _U64(1)
        if b == -1:
            return _ALL_ONES if (_I64(exponent) & 1) != 0 else _U64(1)
        return _U64(0)
    result = _U64(1)
    square = _U64(base)
    rest = _U64(exponent)
    while rest != 0:  # at most 64 rounds, one per exponent bit
        if rest & _U64(1):
            result = result * square
        square = square * square
        rest = rest >> _U64(1)
    return result


@numba.njit(cache=True, inline="always")
def maximum_float(x: float, y: float) -> float:
    """IEEE maximum: NaN if either is NaN (the first NaN); ``max(-0, +0) = +0``."""
    if x != x:
        return x
    if y != y:
        return y
    if x > y or (x == y and not np.signbit(x)):
        return x
    return y


@numba.njit(cache=True, inline="always")
def minimum_float(x: float, y: float) -> float:
    """IEEE minimum: NaN if either is NaN (the first NaN); ``min(-0, +0) = -0``."""
    if x != x:
        return x
    if y != y:
        return y
    if x < y or (x == y and np.signbit(x)):
        return x
    return y


_TINY_F32 = np.float32(np.finfo(np.float32).tiny)
_TINY_F64 = np.float64(np.finfo(np.float64).tiny)


@numba.njit(cache=True, inline="always")
def flush_f32(x: float) -> float:
    """XLA:CPU's flush to zero of an f32 value (bf16 values too, held as f32): a subnormal
    becomes the zero of its sign (``x * 0``); zeros, normal numbers, infinities and NaN are
    kept, as ``numerics.flush_subnormals`` does."""
    return x * np.float32(0.0) if abs(x) < _TINY_F32 else x


@numba.njit(cache=True, inline="always")
def flush_f64(x: float) -> float:
    """``flush_f32`` for f64 values (the f64 threshold)."""
    return x * 0.0 if abs(x) < _TINY_F64 else x


@numba.njit(cache=True)
def round_nearest_afz(x: float) -> float:
    """Nearest integer, ties away from zero (as float64, exact for f32 and f64 operands);
    keeps the sign of zero, infinities and NaN."""
    magnitude = np.float64(abs(x))
    whole = np.trunc(magnitude)
    rounded = whole + 1.0 if magnitude - whole >= 0.5 else whole
    return np.copysign(rounded, np.float64(x))


@numba.njit(cache=True)
def float_to_signed(x: float, low: int, high: int) -> int:
    """XLA's float -> signed conversion (int64 result): truncation toward zero,
    saturation at ``[low, high]``, NaN -> 0."""
    if x != x:
        return _I64(0)
    truncated = np.trunc(np.float64(x))
    if truncated <= np.float64(low):
        return _I64(low)
    if truncated >= np.float64(high):
        return _I64(high)
    return _I64(truncated)


@numba.njit(cache=True)
def float_to_unsigned(x: float, high: int) -> int:
    """XLA's float -> unsigned conversion (uint64 result): truncation toward zero,
    saturation at ``[0, high]``, NaN -> 0."""
    if x != x:
        return _U64(0)
    truncated = np.trunc(np.float64(x))
    if truncated <= 0.0:
        return _U64(0)
    if truncated >= np.float64(high):
        return _U64(high)
    return _U64(truncated)


@numba.njit(cache=True)
def _reduce_precision_bits(
    u: int, nbits: int, src_exponent: int, src_mantissa: int, exponent_bits: int, mantissa_bits: int
) -> int:
    """XLA's ReducePrecision on a bit pattern (uint64) of a float with ``src_exponent`` and
    ``src_mantissa`` bits: the mantissa rounded to ``mantissa_bits`` (ties to even), then
    the exponent clamped to the range of ``exponent_bits`` (overflow -> infinity, below the
    smallest normal -> zero, signs kept)."""
    one = _U64(1)
    if mantissa_bits < src_mantissa:
        shift = _U64(src_mantissa - mantissa_bits)
        last = (u >> shift) & one
        u = (u + last + ((one << (shift - one)) - one)) & ~((one << shift) - one)
    if exponent_bits < src_exponent:
        sign = u & (one << _U64(nbits - 1))
        exponent_mask = ((one << _U64(src_exponent)) - one) << _U64(src_mantissa)
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = u & exponent_mask
        if exponent > _U64(bias + reduced_bias) << _U64(src_mantissa):
            u = sign | exponent_mask
        elif exponent <= _U64(bias - reduced_bias) << _U64(src_mantissa):
            u = sign
    if nbits < 64:
        u = u & ((one << _U64(nbits)) - one)
    return u


@numba.njit(cache=True)
def reduce_precision_f32(x: float, exponent_bits: int, mantissa_bits: int) -> float:
    """``reduce-precision`` of an f32 on its own bits (the interpreter's rule); NaN stays
    NaN (the operand itself; a quiet NaN of its sign when no mantissa bit is left)."""
    if x != x:
        return x if mantissa_bits > 0 else np.float32(np.copysign(np.nan, x))
    u = _U64(np.uint32(f32_bits(x)))
    u = _reduce_precision_bits(u, 32, 8, 23, exponent_bits, mantissa_bits)
    return f32_from_bits(np.int32(np.uint32(u)))


@numba.njit(cache=True)
def reduce_precision_f64(x: float, exponent_bits: int, mantissa_bits: int) -> float:
    """``reduce_precision_f32`` for f64."""
    if x != x:
        return x if mantissa_bits > 0 else np.copysign(np.nan, x)
    u = _reduce_precision_bits(_U64(f64_bits(x)), 64, 11, 52, exponent_bits, mantissa_bits)
    return f64_from_bits(np.int64(u))
