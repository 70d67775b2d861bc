"""f16 and bf16 in generated kernels, as the interpreter computes them: arrays hold the 16-bit
patterns (uint16), values are widened to f32 when read, every op computes in f32 (f64 for the
functions the interpreter evaluates precisely) and its result is rounded to the narrow type
right away, as ``numerics.round_to`` does: f64 values round to odd at f32 first, so that the
second rounding to nearest-even is the only one; NaNs convert as numpy and ml_dtypes do.
"""

from __future__ import annotations

import numba
import numpy as np

from xlapy.backend.cpu.codegen.scalar_ops import f32_bits, f32_from_bits

_U16 = np.uint16
_U32 = np.uint32


@numba.njit(cache=True)
def bf16_to_f32(bits: int) -> float:
    """The f32 value of a bf16 bit pattern (exact)."""
    return f32_from_bits(np.int32(_U32(bits) << _U32(16)))


@numba.njit(cache=True)
def f32_to_bf16(x: float) -> int:
    """The bf16 pattern nearest to f32 ``x`` (ties to even); NaN -> the quiet NaN of its
    sign (ml_dtypes' rule)."""
    bits = _U32(f32_bits(x))
    if x != x:
        return _U16(((bits >> _U32(16)) & _U32(0x8000)) | _U32(0x7FC0))
    bias = _U32(0x7FFF) + ((bits >> _U32(16)) & _U32(1))
    return _U16((bits + bias) >> _U32(16))


@numba.njit(cache=True)
def bf16_bits(x: float) -> int:
    """The bf16 pattern of an f32 value that is a bf16 value (its high half: exact, NaN
    payloads kept); the store of kernels, whose bf16 results are already rounded."""
    return _U16(_U32(f32_bits(x)) >> _U32(16))


@numba.njit(cache=True)
def f16_to_f32(bits: int) -> float:
    """The f32 value of an f16 bit pattern (exact; subnormals, infinities, NaN payloads)."""
    h = _U32(bits)
    sign = (h & _U32(0x8000)) << _U32(16)
    exponent = (h >> _U32(10)) & _U32(0x1F)
    mantissa = h & _U32(0x3FF)
    if exponent == 0:
        value = np.float32(mantissa) * np.float32(2.0**-24)
        return -value if sign else value
    if exponent == 31:
        return f32_from_bits(np.int32(sign | _U32(0x7F800000) | (mantissa << _U32(13))))
    pattern = sign | ((exponent + _U32(112)) << _U32(23)) | (mantissa << _U32(13))
    return f32_from_bits(np.int32(pattern))


@numba.njit(cache=True)
def f32_to_f16(x: float) -> int:
    """The f16 pattern nearest to f32 ``x`` (ties to even, gradual underflow, overflow to
    inf); a NaN keeps its sign and top payload bits, staying a NaN (numpy's rule)."""
    f = _U32(f32_bits(x))
    sign = (f >> _U32(16)) & _U32(0x8000)
    exponent = f & _U32(0x7F800000)
    if exponent >= _U32(0x47800000):  # overflow, inf or NaN
        significand = f & _U32(0x7FFFFF)
        if exponent == _U32(0x7F800000) and significand != 0:
            nan = _U32(0x7C00) + (significand >> _U32(13))
            return _U16(sign + (nan + _U32(1) if nan == _U32(0x7C00) else nan))
        return _U16(sign + _U32(0x7C00))
    if exponent <= _U32(0x38000000):  # a subnormal f16 or zero
        if exponent < _U32(0x33000000):
            return _U16(sign)
        shift = _U32(113) - (exponent >> _U32(23))
        significand = (_U32(0x800000) + (f & _U32(0x7FFFFF))) >> shift
        lost = (f & _U32(0x7FF)) != 0  # bits the shift dropped decide ties
        if (significand & _U32(0x3FFF)) != _U32(0x1000) or lost:
            significand += _U32(0x1000)
        return _U16(sign + (significand >> _U32(13)))
    significand = f & _U32(0x7FFFFF)
    if (significand & _U32(0x3FFF)) != _U32(0x1000):
        significand += _U32(0x1000)
    return _U16(sign + ((exponent - _U32(0x38000000)) >> _U32(13)) + (significand >> _U32(13)))


@numba.njit(cache=True)
def f64_to_f32_odd(x: float) -> float:
    """f64 -> f32 rounding to odd (truncate, set the last bit when inexact), so that one more
    rounding to a narrower type is a single correct rounding; an f32 is returned as it is."""
    nearest = np.float32(x)
    back = np.float64(nearest)
    if back == x or x != x:
        return nearest
    bits = f32_bits(nearest)
    if bits & 1:
        return nearest
    return f32_from_bits(bits - np.int32(1) if abs(back) > abs(x) else bits + np.int32(1))


@numba.njit(cache=True)
def round_bf16(x: float) -> float:
    """``x`` (f32, f64 or an integer up to 53 bits) rounded once to bf16, as an f32 value."""
    return bf16_to_f32(f32_to_bf16(f64_to_f32_odd(x)))


@numba.njit(cache=True)
def round_f16(x: float) -> float:
    """``x`` (f32, f64 or an integer up to 53 bits) rounded once to f16, as an f32 value."""
    return f16_to_f32(f32_to_f16(f64_to_f32_odd(x)))


@numba.njit(cache=True)
def total_order_key16(bits: int) -> int:
    """TOTALORDER key of a 16-bit float pattern (see ``scalar_ops.total_order_key_f32``)."""
    k = np.int16(bits)
    return k ^ np.int16(0x7FFF) if k < 0 else k


@numba.njit(cache=True)
def int64_to_f64_odd(value: int, signed: bool) -> float:
    """A 64-bit integer as f64, rounded to odd at 53 bits (then one rounding to a narrow
    type is correct, as ``numerics.int_to_float`` rounds)."""
    negative = signed and np.int64(value) < 0
    magnitude = np.uint64(0) - np.uint64(value) if negative else np.uint64(value)
    length = 0
    rest = magnitude
    while rest != 0:
        rest = rest >> np.uint64(1)
        length += 1
    if length > 53:
        shift = np.uint64(length - 53)
        sticky = (magnitude & ((np.uint64(1) << shift) - np.uint64(1))) != 0
        magnitude = ((magnitude >> shift) << shift) | (np.uint64(sticky) << shift)
    result = np.float64(magnitude)
    return -result if negative else result
