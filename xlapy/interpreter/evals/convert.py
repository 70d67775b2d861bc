"""Conversions and bit-level ops: convert, bitcast-convert, reduce-precision,
stochastic-convert, copy.

Spec: stablehlo#convert, #bitcast_convert, #reduce_precision; XLA operation semantics
ConvertElementType, BitcastConvertType, ReducePrecision. Rules decided here, following XLA:
float -> int truncates toward zero and saturates (NaN -> 0); int -> float and float -> float
round once to nearest-even in the target type; complex -> real keeps the real part; x -> pred
is ``x != 0``; bitcast-convert is little-endian (least significant part at index 0).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.interpreter import numerics
from xlapy.interpreter.evals.elementwise import element_type, reject
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.interpreter.numerics import F64, U64, Array
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

# XLA:CPU converts between these with FPU instructions (so flush-to-zero applies); conversions
# from or to the narrower float types use integer bit operations and keep subnormals, except
# bf16 <-> f64, which goes through an FPU f32 <-> f64 conversion.
_FPU_TYPES = (dtypes.F32, dtypes.F64, dtypes.C64, dtypes.C128)


def _fpu_conversion(source: ElementType, target: ElementType) -> bool:
    """True when XLA:CPU converts ``source`` to ``target`` with an FPU instruction."""
    if target.is_complex and not source.is_complex:
        # A real widened to complex keeps its subnormals on XLA:CPU (oracle finding F8).
        return False
    wide = (dtypes.F64, dtypes.C128)
    if dtypes.BF16 in (source, target):
        return source in wide or target in wide
    return source in _FPU_TYPES and (target in _FPU_TYPES or target.is_pred)


def convert_values(x: Array, source: ElementType, target: ElementType, flush: bool) -> Array:
    """Converts array ``x`` of type ``source`` to ``target`` (a fresh array)."""
    if source is target:
        return np.array(x, copy=True)
    if source.is_complex and not target.is_complex:
        # complex -> real type: the real part, then a real conversion.
        part = source.component
        return convert_values(np.real(x).astype(part.numpy), part, target, flush)
    if source.is_pred or source.is_integer:
        if target.is_pred:
            return np.asarray(np.asarray(x) != 0)
        if target.is_integer:
            return numerics.wrap(numerics.int_values(x, source), target)
        return numerics.int_to_float(x, source, target)
    values = numerics.to_compute(x, source)
    flush = flush and _fpu_conversion(source, target)
    if flush:
        values = numerics.flush_subnormals(values, source)
    if target.is_pred:
        return np.asarray(values != 0)
    if target.is_integer:
        return numerics.saturate_float_to_int(values, target)
    out = numerics.round_to(values, target)
    if flush and not target.is_pred:
        out = numerics.flush_storage(out, target)
    return out


@evaluates(Opcode.CONVERT)
def convert(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Elementwise conversion to the result element type (``static_cast`` semantics with the
    rules in the module docstring)."""
    source = element_type(operands[0], instr, 0)
    target = instr.shape.element_type
    operand = np.asarray(operands[0])
    with np.errstate(all="ignore"):
        out = convert_values(operand, source, target, ctx.options.flush_denormals)
    return np.array(out, dtype=target.numpy).reshape(operand.shape)


# ---- bitcast-convert ------------------------------------------------------------------------


def _widths(instr: HloInstruction, source: ElementType, x: Array) -> tuple[int, int]:
    """Bit widths of the source and result elements. pred is 8 bits, except when the shapes
    say it is one bit (StableHLO's ``i1``: 64 x i1 <-> i64)."""
    target = instr.shape.element_type
    rank_in, rank_out = x.ndim, instr.shape.rank
    if rank_out == rank_in + 1:  # a new minor dimension: each element splits
        ratio = instr.shape.dims[-1]
        width_in = source.bits if not source.is_pred else target.bits * ratio
        width_out = target.bits if not target.is_pred else width_in // ratio
    elif rank_in == rank_out + 1:  # the minor dimension is consumed: elements combine
        ratio = x.shape[-1]
        width_out = target.bits if not target.is_pred else source.bits * ratio
        width_in = source.bits if not source.is_pred else width_out // ratio
    elif rank_in == rank_out:
        ratio = 1
        width_in = source.bits if not source.is_pred else target.bits
        width_out = target.bits if not target.is_pred else width_in
    else:
        raise InvalidArgument(
            f"bitcast-convert {instr.name}: operand rank {rank_in} and result rank {rank_out} "
            "must differ by at most one"
        )
    per_element = (
        width_out * ratio
        if rank_out > rank_in
        else width_out // ratio
        if rank_in > rank_out
        else width_out
    )
    if width_in != per_element or width_in == 0 or width_out == 0:
        raise InvalidArgument(
            f"bitcast-convert {instr.name}: element widths must match the change of the minor "
            f"dimension; got {source} ({width_in} bits) -> {target} ({width_out} bits) "
            f"with ratio {ratio}"
        )
    return width_in, width_out


def to_bits(x: Array, width: int) -> Array:
    """The low ``width`` bits of every element, least significant first: shape + (width,)."""
    x = np.ascontiguousarray(x)
    raw = x.view(np.uint8).reshape((*x.shape, x.dtype.itemsize))
    return np.unpackbits(raw, axis=-1, bitorder="little")[..., :width]


def from_bits(bits: Array, t: ElementType) -> Array:
    """Elements of type ``t`` from their bits (least significant first) in the last axis."""
    itemsize = np.dtype(t.numpy).itemsize
    pad = itemsize * 8 - bits.shape[-1]
    if pad:
        bits = np.concatenate([bits, np.zeros((*bits.shape[:-1], pad), np.uint8)], axis=-1)
    raw = np.packbits(bits, axis=-1, bitorder="little")
    if t.is_pred:
        return np.asarray((raw != 0).any(axis=-1))
    return raw.view(np.dtype(t.numpy)).reshape(bits.shape[:-1])


@evaluates(Opcode.BITCAST_CONVERT)
def bitcast_convert(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Reinterprets the bits. Same width: elementwise. Wider source: each element splits into
    a new minor dimension, least significant part first. Narrower source: the minor
    dimension is combined. Bits are kept exactly (no flushing, NaN payloads survive)."""
    source = element_type(operands[0], instr, 0)
    target = instr.shape.element_type
    x = np.asarray(operands[0])
    width_in, width_out = _widths(instr, source, x)
    bits = to_bits(x, width_in)
    if x.ndim == instr.shape.rank + 1:
        bits = bits.reshape((*x.shape[:-1], x.shape[-1] * width_in))
    bits = bits.reshape((*instr_dims(x, instr), width_out))
    return from_bits(bits, target)


def instr_dims(x: Array, instr: HloInstruction) -> tuple[int, ...]:
    """The result dims of a bitcast-convert of ``x`` (the actual sizes for dynamic dims)."""
    if instr.shape.rank == x.ndim + 1:
        return (*x.shape, instr.shape.dims[-1])
    if x.ndim == instr.shape.rank + 1:
        return tuple(x.shape[:-1])
    return tuple(x.shape)


# ---- reduce-precision -------------------------------------------------------------------------


def reduce_precision_values(x: Array, exponent_bits: int, mantissa_bits: int) -> Array:
    """XLA's ReducePrecision on IEEE values (f16, bf16, f32, f64), on their bits: round the mantissa to
    ``mantissa_bits`` (ties to even), then clamp the exponent to the range of
    ``exponent_bits`` (overflow -> signed infinity, below the smallest normal -> signed zero).
    NaN stays NaN (the input itself; a quiet NaN of its sign when no mantissa bit is left)."""
    info = ml_dtypes.finfo(x.dtype)
    nbits = x.dtype.itemsize * 8
    src_mantissa, src_exponent = int(info.nmant), nbits - 1 - int(info.nmant)
    word = np.uint64
    u = x.view(f"u{nbits // 8}").astype(U64)
    if mantissa_bits < src_mantissa:
        shift = src_mantissa - mantissa_bits
        last_bit = word(1 << shift)
        last = (u & last_bit) >> word(shift)
        u = (u + last + word((1 << (shift - 1)) - 1)) & ~word((1 << shift) - 1)
    if exponent_bits < src_exponent:
        sign = u & word(1 << (nbits - 1))
        exponent_mask = word(((1 << src_exponent) - 1) << src_mantissa)
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = u & exponent_mask
        overflow = exponent > word((bias + reduced_bias) << src_mantissa)
        underflow = exponent <= word((bias - reduced_bias) << src_mantissa)
        u = np.where(overflow, sign | exponent_mask, np.where(underflow, sign, u))
    if nbits < 64:
        u &= word((1 << nbits) - 1)  # a carry out of a negative NaN's rounding
    result = u.astype(f"u{nbits // 8}").view(x.dtype)
    if mantissa_bits > 0:
        return np.where(np.isnan(x), x, result)
    quiet = np.copysign(np.full_like(x, np.nan), x)
    return np.where(np.isnan(x), quiet, result)


_OWN_BITS = (dtypes.F16, dtypes.BF16, dtypes.F32, dtypes.F64)


@evaluates(Opcode.REDUCE_PRECISION)
def reduce_precision(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Rounds to the precision of a float format with ``exponent_bits`` and ``mantissa_bits``
    and back (narrow types are processed in f32, which holds them exactly)."""
    t = element_type(operands[0], instr, 0)
    if not t.is_float:
        raise reject(instr, t, "float")
    exponent_bits, mantissa_bits = instr.attrs.exponent_bits, instr.attrs.mantissa_bits
    if exponent_bits < 1 or mantissa_bits < 0:
        raise InvalidArgument(
            f"reduce-precision {instr.name}: needs exponent_bits >= 1 and mantissa_bits >= 0; "
            f"got exponent_bits={exponent_bits}, mantissa_bits={mantissa_bits}"
        )
    if t in _OWN_BITS:
        # On the type's own bits, as XLA and the reference do: a subnormal's raw mantissa
        # field is rounded (f16 2^-24 with 0 mantissa bits is 0; oracle finding F10).
        values = np.array(operands[0], dtype=t.numpy)
    else:
        values = numerics.to_compute(np.asarray(operands[0]), t)
    with np.errstate(all="ignore"):
        reduced = reduce_precision_values(values, exponent_bits, mantissa_bits)
        return np.array(numerics.round_to(reduced, t), dtype=t.numpy)


# ---- stochastic-convert, copy -------------------------------------------------------------------


@evaluates(Opcode.STOCHASTIC_CONVERT)
def stochastic_convert(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Float -> integer rounding up with probability equal to the fraction (XLA's evaluator):
    ``|x|`` rounds up when ``random < fraction * 2**bits(random)``; infinities and
    out-of-range values saturate, NaN gives 0."""
    t = element_type(operands[0], instr, 0)
    random_type = element_type(operands[1], instr, 1)
    target = instr.shape.element_type
    if not t.is_float or not random_type.is_unsigned or not target.is_integer:
        raise Unimplemented(
            f"stochastic-convert {instr.name}: supports float operands with unsigned random "
            f"bits to integer results; got {t}, {random_type} -> {target}"
        )
    x = numerics.to_compute(np.asarray(operands[0]), t).astype(F64)
    random = numerics.int_values(np.asarray(operands[1]), random_type)
    lo, hi = numerics.int_min(target), numerics.int_max(target)
    with np.errstate(all="ignore"):
        magnitude = np.abs(x)
        whole = np.floor(magnitude)
        fixed = np.ldexp(magnitude - whole, random_type.bits)
        fixed = np.where(np.isfinite(fixed), fixed, 0).astype(U64)
        rounded = whole + (random < fixed)
        signed = np.where(np.signbit(x), -rounded, rounded)
        saturated = np.clip(np.where(np.isnan(x), 0.0, signed), float(lo), float(hi))
    out = numerics.saturate_float_to_int(saturated, target)
    return np.array(out, dtype=target.numpy)


@evaluates(Opcode.COPY)
def copy(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The operand, unchanged (bits, tuples and tokens included)."""
    value = operands[0]
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value
