"""Element-type numerics of the interpreter, decided once: the dtype each storage type computes
in, rounding once to a storage type, two's-complement wrap-around on the unsigned view, and
XLA:CPU's flushing of subnormals.

Integer division, shifts, clz, popcnt and integer pow live in ``intmath.py``; op kernels live in
``evals/``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from xlapy import dtypes
from xlapy.dtypes import ElementType

Array = npt.NDArray[Any]

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
C64 = np.dtype(np.complex64)
C128 = np.dtype(np.complex128)
U64 = np.dtype(np.uint64)
I64 = np.dtype(np.int64)


# ---- compute dtypes ------------------------------------------------------------------------


def compute_dtype(t: ElementType) -> np.dtype[Any]:
    """The dtype XLA computes ``t`` in (its ``ElementwiseT``): f64 and the complex types in
    themselves, every other float type (f32, f16, bf16, f8, f6, f4) in f32.

    Rounding a correctly rounded f32 result of +, -, *, /, sqrt once more to f16/bf16/f8 gives
    the correctly rounded narrow result (f32 has more than twice their precision plus two bits).
    """
    if t.is_complex:
        return np.dtype(t.numpy)
    if t.is_float:
        return F64 if t is dtypes.F64 else F32
    raise TypeError(f"{t} is not a floating-point or complex type")


def precise_dtype(t: ElementType) -> np.dtype[Any]:
    """The dtype transcendental functions of ``t`` are evaluated in before rounding once to
    ``t``: f64 for every real float type, c128 for complex types."""
    if t.is_complex:
        return C128
    if t.is_float:
        return F64
    raise TypeError(f"{t} is not a floating-point or complex type")


# ---- rounding once to a storage type -------------------------------------------------------


def _round_to_odd_f32(x: Array) -> Array:
    """f64 -> f32 rounding to odd: truncate, and set the last bit when the result is inexact.

    Rounding to odd first and then to nearest-even with at least two fewer bits gives the same
    result as rounding the f64 value to nearest-even directly (no double-rounding error).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = x.astype(F32)
        back = nearest.astype(F64)
    bits = nearest.view(np.uint32)
    inexact = (back != x) & ~np.isnan(x)
    fix = inexact & ((bits & 1) == 0)
    # The other neighbour of x in f32 is one step from `nearest` towards x (sign-magnitude).
    step = np.where(np.abs(back) > np.abs(x), np.uint32(0xFFFFFFFF), np.uint32(1))
    fixed = np.where(fix, bits + step, bits).astype(np.uint32)
    return fixed.view(F32)


def round_to(x: Array, t: ElementType) -> Array:
    """Rounds real/complex values (any float dtype) once, to nearest-even, to storage type ``t``.

    Overflow gives infinity (or NaN for the types without infinities, as ml_dtypes does).
    """
    x = np.asarray(x)
    target = np.dtype(t.numpy)
    if t.is_complex:
        with np.errstate(over="ignore", invalid="ignore"):
            return x.astype(target)
    if x.dtype.kind == "c":
        x = x.real
    if x.dtype == F64 and target not in (F64, F32):
        x = _round_to_odd_f32(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(target)


def to_compute(x: Array, t: ElementType, precise: bool = False) -> Array:
    """The values of storage array ``x`` (type ``t``) in its compute dtype (exact)."""
    dtype = precise_dtype(t) if precise else compute_dtype(t)
    return np.asarray(x).astype(dtype)


# ---- subnormals (XLA:CPU flush-to-zero / denormals-are-zero) -------------------------------


def _tiny(t: ElementType) -> float:
    """Smallest normal number of the dtype XLA:CPU computes ``t`` in (f32 or f64).

    0 for f8e8m0fnu: its smallest value 2^-127 is a normal e8m0 number (the format has no
    subnormals and no zero, OCP MX), though it is subnormal once widened to f32; XLA:CPU keeps
    it (``ceil(2^-127) = 1``), so nothing of that type is ever flushed.
    """
    if t is dtypes.F8E8M0FNU:
        return 0.0
    compute = compute_dtype(t.component if t.is_complex else t)
    return float(np.finfo(compute).tiny)


def _flush_real(x: Array, tiny: float) -> Array:
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros_like(x), x), x)


def flush_subnormals(x: Array, t: ElementType) -> Array:
    """Replaces values that are subnormal in ``t``'s compute dtype by zeros of the same sign.

    ``x`` holds compute-domain values (f32/f64/complex). f16 and f8 values are never subnormal
    in f32, so they survive, as on XLA:CPU; bf16 and f32 subnormals are flushed.
    """
    tiny = _tiny(t)
    if x.dtype.kind == "c":
        out = np.empty_like(x)
        out.real = _flush_real(x.real, tiny)
        out.imag = _flush_real(x.imag, tiny)
        return out
    return _flush_real(x, tiny)


def flush_storage(x: Array, t: ElementType) -> Array:
    """``flush_subnormals`` for an array already rounded to storage type ``t``."""
    if t.is_complex:
        return flush_subnormals(x, t).astype(t.numpy)
    wide = x.astype(compute_dtype(t))
    return np.where(np.abs(wide) < _tiny(t), np.copysign(np.zeros_like(wide), wide), wide).astype(
        t.numpy
    )


# ---- integers: value views and wrap-around -------------------------------------------------


def int_values(x: Array, t: ElementType) -> Array:
    """The values of an integer (or pred) array: int64 for signed types, uint64 otherwise."""
    return np.asarray(x).astype(I64 if t.is_signed else U64)


def int_min(t: ElementType) -> int:
    return -(1 << (t.bits - 1)) if t.is_signed else 0


def int_max(t: ElementType) -> int:
    return (1 << (t.bits - 1)) - 1 if t.is_signed else (1 << t.bits) - 1


def unsigned_bits(values: Array, t: ElementType) -> Array:
    """The ``t.bits``-bit two's-complement pattern of ``values`` (a numpy native integer or
    bool array, e.g. from ``int_values``), as uint64."""
    values = np.asarray(values)
    u = values.astype(I64).view(U64) if values.dtype.kind == "i" else values.astype(U64)
    if t.bits < 64:
        u = u & np.uint64((1 << t.bits) - 1)
    return u


def wrap(x: Array, t: ElementType) -> Array:
    """Integer values (any integer or bool dtype) reduced modulo 2**bits into type ``t``.

    Two's complement: the low ``t.bits`` bits are kept and read as signed for signed types.
    """
    if t.is_pred:
        return np.asarray(x).astype(np.bool_)
    u = unsigned_bits(x, t)
    if t.is_signed:
        if t.bits == 64:
            values = u.view(I64)
        else:
            half = 1 << (t.bits - 1)
            values = u.astype(I64)
            values = np.where(values >= half, values - (1 << t.bits), values)
        return values.astype(t.numpy)
    return u.astype(t.numpy)


def saturate_float_to_int(x: Array, t: ElementType) -> Array:
    """Float values converted to integer type ``t`` as XLA does: truncation toward zero,
    saturation at the type's bounds, NaN -> 0."""
    x = np.asarray(x).astype(F64) if x.dtype != F64 else x
    lo, hi = int_min(t), int_max(t)
    nan = np.isnan(x)
    truncated = np.trunc(np.where(nan, 0.0, x))
    below = truncated <= float(lo)
    above = truncated >= float(hi)
    inside = np.where(below | above, 0.0, truncated)
    wide = I64 if t.is_signed else U64
    values = np.where(below, lo, np.where(above, hi, inside.astype(wide))).astype(wide)
    return values.astype(t.numpy)


def int_to_float(x: Array, source: ElementType, t: ElementType) -> Array:
    """Integer values converted to float type ``t`` with one rounding to nearest-even.

    Integers wider than f64's 53-bit significand are first rounded to odd at 53 bits, so
    that the final rounding to ``t`` is a single correct rounding (XLA rounds int -> bf16
    through f32 and can differ from this by one ulp on rare ties).
    """
    if t.is_complex:
        return int_to_float(x, source, t.component).astype(t.numpy)
    values = int_values(x, source)
    if t is dtypes.F64 or t is dtypes.F32:
        return values.astype(t.numpy)  # the hardware conversion rounds once
    if source.is_signed:
        negative = values < 0
        # Two's-complement negation on the unsigned view: |INT64_MIN| = 2**63 exactly.
        magnitude = np.where(negative, ~values.view(U64) + np.uint64(1), values.view(U64))
    else:
        negative = np.zeros(values.shape, np.bool_)
        magnitude = values
    odd = _round_to_odd_53(magnitude)
    as_f64 = odd.astype(F64)
    return round_to(np.where(negative, -as_f64, as_f64), t)


def _round_to_odd_53(magnitude: Array) -> Array:
    """uint64 magnitudes rounded to odd at 53 significant bits (exactly representable in f64)."""
    out = magnitude.copy()
    for shift in range(1, 12):  # bit lengths 54..64 need shifts 1..11
        wide = magnitude >= (np.uint64(1) << np.uint64(52 + shift))
        mask = np.uint64((1 << shift) - 1)
        sticky = (magnitude & mask) != 0
        kept = (magnitude >> np.uint64(shift)) << np.uint64(shift)
        kept = kept | (sticky.astype(U64) << np.uint64(shift))
        out = np.where(wide, kept, out)
    return out


def float_bits_type(t: ElementType) -> np.dtype[Any]:
    """The unsigned dtype holding the bit pattern of one element of ``t`` (sub-byte: u8)."""
    return np.dtype(f"u{np.dtype(t.numpy).itemsize}")


def signed_type(t: ElementType) -> ElementType:
    """The signed integer type of ``t``'s width (pred counts as 8 bits)."""
    return dtypes.signed_of_width(t.bits)


# ---- total order of floats ------------------------------------------------------------------


def total_order_key(x: Array, t: ElementType) -> Array:
    """Integers ordered like ``-NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN``:
    the sign-magnitude bit pattern mapped to two's complement (XLA's TOTALORDER).
    f8e8m0fnu has no sign bit: its key is the bit pattern itself."""
    width = t.bits
    # (ascontiguousarray makes 0-d arrays 1-d: keep the operand's shape)
    contiguous = np.ascontiguousarray(x).reshape(np.shape(x))
    pattern = contiguous.view(float_bits_type(t)).astype(np.uint64)
    if t is dtypes.F8E8M0FNU:
        # Unsigned format (no sign bit): 0x00 < ... < 0xFE, NaN 0xFF last (oracle finding F7).
        return (pattern & np.uint64(0xFF)).astype(I64)
    if width < 64:
        pattern &= np.uint64((1 << width) - 1)
        negative = (pattern >> np.uint64(width - 1)) != 0
        signed = pattern.astype(I64) - np.where(negative, 1 << width, 0)
    else:
        signed = pattern.view(I64)
    return np.where(signed < 0, signed ^ ((1 << (width - 1)) - 1), signed)


def order_keys(values: Array) -> Array:
    """The bits of floats of a native width (f16, bf16, f32, f64) as signed integers of that
    width, ordered like ``total_order_key`` (-NaN < -Inf < ... < -0 < +0 < ... < +NaN). The
    map is its own inverse: ``order_keys(keys)`` gives the bits back (integers of that width
    are taken as bits)."""
    ints = values.view(f"i{values.dtype.itemsize}")
    keys: Array = ints ^ ((ints >> (8 * ints.itemsize - 1)) & np.iinfo(ints.dtype).max)
    return keys


# ---- error-free transformations (for functions that cancel in f64) -----------------------


def two_sum(a: Array, b: Array) -> tuple[Array, Array]:
    """``a + b`` as ``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: Array) -> tuple[Array, Array]:
    """Veltkamp split of f64 values into two halves of 26 significant bits."""
    c = a * 134217729.0  # 2**27 + 1
    high = c - (c - a)
    return high, a - high


def two_product(a: Array, b: Array) -> tuple[Array, Array]:
    """``a * b`` as ``(p, e)`` with ``p = fl(a * b)`` and ``a * b = p + e`` exactly (Dekker)."""
    p = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    e = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low
    return p, e
