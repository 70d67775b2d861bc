"""Random numbers: rng-bit-generator (ThreeFry and Philox, bit-exact with XLA), rng (uniform and
normal distributions, as XLA's RngExpander defines them) and rng-get-and-update-state.

Spec: OPS.md RngBitGenerator, RngUniform, RngNormal, RngGetAndUpdateState. The spec only says
the output is a deterministic function of the state; the bits are XLA's
(``xla/hlo/builder/lib/prng.cc`` and ``xla/service/rng_bit_generator_expander.cc``), so that a
program gives the same numbers here as on XLA:CPU:

* ThreeFry-2x32 (20 rounds): state ``u64[2] = [key, counter]``. 32-bit outputs: the shape is
  split in halves along its first even dimension (else its largest); element ``j`` of the half
  shape uses the counter ``counter + j`` and its two output words become elements ``2j`` and
  ``2j + 1`` along the split dimension. 64-bit outputs use ``counter + i`` per element ``i``
  (row-major) and form ``word0 | word1 << 32``. Narrower outputs keep the low bits of the
  32-bit output. New state: ``[key, counter + number of counters used]``.
* Philox-4x32 (10 rounds): state ``u64[3] = [key, counter_low, counter_high]`` (a 128-bit
  counter), or ``u64[2] = [key, counter_low]`` where the counter's high word is the key. Each
  128-bit counter gives four 32-bit words, laid out round-robin (``4j + i``); 64-bit outputs
  pair words (0, 1) and (2, 3). New state: the key, then the counter advanced by the number of
  counters used (128-bit add; only the low word for a ``u64[2]`` state).
* ``rng_default`` is Philox, as XLA:CPU resolves it.

Floating-point outputs of rng-bit-generator are the bit patterns of the same-width unsigned
output. Signed outputs are the two's-complement reading of the unsigned bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.attrs import RandomAlgorithm, RandomDistribution
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

Array = npt.NDArray[Any]

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1

# ---- ThreeFry-2x32 --------------------------------------------------------------------------

_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_THREEFRY_PARITY = 0x1BD11BDA


def _rotate_left(v: Array, distance: int) -> Array:
    return (v << np.uint32(distance)) | (v >> np.uint32(32 - distance))


def threefry2x32(x0: Array, x1: Array, key0: int, key1: int) -> tuple[Array, Array]:
    """Threefry-2x32 with 20 rounds (Salmon et al. 2011) on uint32 arrays ``x0, x1`` and the
    key words ``key0, key1``; returns the two output words."""
    ks = (key0, key1, _THREEFRY_PARITY ^ key0 ^ key1)
    with np.errstate(over="ignore"):
        x0 = (x0 + np.uint32(ks[0])).astype(_U32)
        x1 = (x1 + np.uint32(ks[1])).astype(_U32)
        for block in range(5):
            for rotation in _THREEFRY_ROTATIONS[block % 2]:
                x0 = x0 + x1
                x1 = _rotate_left(x1, rotation)
                x1 = x0 ^ x1
            x0 = x0 + np.uint32(ks[(block + 1) % 3])
            x1 = x1 + np.uint32((ks[(block + 2) % 3] + block + 1) & _MASK32)
    return x0, x1


def _split_halves(dims: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """XLA's ``SplitShapeIntoHalves``: the dimension to split (the first even one, else the
    largest) and the half shape (that dimension rounded up to half). Scalars split as [1]."""
    if not dims:
        return 0, (1,)
    split = next((i for i, d in enumerate(dims) if d % 2 == 0), None)
    if split is None:
        split = max(range(len(dims)), key=lambda i: (dims[i], -i))
    half = tuple((d + 1) // 2 if i == split else d for i, d in enumerate(dims))
    return split, half


def _combine_halves(first: Array, second: Array, split: int, dims: Sequence[int]) -> Array:
    """XLA's ``CombineShapePair``: interleaves two half-shape arrays along ``split`` (first at
    even, second at odd positions) and drops the padding element of an odd dimension."""
    if not dims:
        return first.reshape(())
    both = np.stack([first, second], axis=split + 1)
    merged = list(first.shape)
    merged[split] *= 2
    both = both.reshape(merged)
    return both[tuple(slice(0, d) for d in dims)]


def _words(values: Array) -> tuple[Array, Array]:
    """The low and high 32-bit words of uint64 values."""
    return values.astype(_U32), (values >> np.uint64(32)).astype(_U32)


def _join(low: Array, high: Array) -> Array:
    return low.astype(_U64) | (high.astype(_U64) << np.uint64(32))


def _counters(start: int, count: int) -> Array:
    """``start + [0, count)`` as uint64, wrapping at 2**64."""
    with np.errstate(over="ignore"):
        return np.arange(count, dtype=_U64) + np.uint64(start & _MASK64)


def threefry_bits(key: int, counter: int, dims: Sequence[int], bits: int) -> tuple[Array, int]:
    """ThreeFry random bits of shape ``dims`` and width ``bits`` (<= 32 as uint32 before
    narrowing, 64 as uint64) from ``key`` and ``counter``; returns (bits, new counter)."""
    key0, key1 = key & _MASK32, key >> 32
    if bits == 64:
        count = math.prod(dims)
        x0, x1 = threefry2x32(*_words(_counters(counter, count)), key0, key1)
        return _join(x0, x1).reshape(dims), (counter + count) & _MASK64
    split, half = _split_halves(dims)
    count = math.prod(half)
    x0, x1 = threefry2x32(*_words(_counters(counter, count)), key0, key1)
    out = _combine_halves(x0.reshape(half), x1.reshape(half), split, dims)
    return out, (counter + count) & _MASK64


# ---- Philox-4x32 ----------------------------------------------------------------------------

_PHILOX_W32 = (0x9E3779B9, 0xBB67AE85)
_PHILOX_M4X32 = (0xD2511F53, 0xCD9E8D57)


def _mul_hi_lo(x: Array, k: int) -> tuple[Array, Array]:
    product = x.astype(_U64) * np.uint64(k)
    return (product >> np.uint64(32)).astype(_U32), product.astype(_U32)


def philox4x32(
    words: tuple[Array, Array, Array, Array], key0: int, key1: int
) -> tuple[Array, Array, Array, Array]:
    """Philox-4x32 with 10 rounds on four uint32 arrays (the 128-bit counter, least
    significant word first) and the key words; returns the four output words."""
    x = words
    for _ in range(10):
        high0, low0 = _mul_hi_lo(x[0], _PHILOX_M4X32[0])
        high1, low1 = _mul_hi_lo(x[2], _PHILOX_M4X32[1])
        x = (
            high1 ^ x[1] ^ np.uint32(key0),
            low1,
            high0 ^ x[3] ^ np.uint32(key1),
            low0,
        )
        key0 = (key0 + _PHILOX_W32[0]) & _MASK32
        key1 = (key1 + _PHILOX_W32[1]) & _MASK32
    return x


def philox_bits(key: int, counter: int, dims: Sequence[int], bits: int) -> tuple[Array, int]:
    """Philox random bits of shape ``dims`` and width ``bits`` (<= 32 as uint32 before
    narrowing, 64 as uint64) from ``key`` and the 128-bit ``counter``; returns (bits, new
    counter)."""
    n = math.prod(dims)
    per_counter = 2 if bits == 64 else 4
    count = -(-n // per_counter)
    low = _counters(counter, count)
    carry = (low < np.uint64(counter & _MASK64)).astype(_U64)
    with np.errstate(over="ignore"):
        high = np.full(count, (counter >> 64) & _MASK64, dtype=_U64) + carry
    out = philox4x32((*_words(low), *_words(high)), key & _MASK32, (key >> 32) & _MASK32)
    lanes = (_join(out[0], out[1]), _join(out[2], out[3])) if bits == 64 else out
    flat = np.stack(lanes, axis=1).reshape(-1)[:n]
    return flat.reshape(dims), (counter + count) & ((1 << 128) - 1)


# ---- rng-bit-generator ----------------------------------------------------------------------


def _from_unsigned_bits(bits: Array, t: ElementType) -> Array:
    """Elements of type ``t`` whose bit patterns are the low ``t.bits`` bits of ``bits``."""
    storage = np.dtype(t.numpy)
    width = storage.itemsize * 8
    low: Array = bits.astype(np.dtype(f"u{width // 8}"))
    if t.bits < width:
        low = low & np.array((1 << t.bits) - 1, low.dtype)
        if t.is_signed:
            values: Array = low.astype(np.int16)
            values = np.where(values >= 1 << (t.bits - 1), values - (1 << t.bits), values)
            return values.astype(storage)
        if t.is_unsigned:
            return low.astype(storage)
    return low.view(storage)


def _state_words(instr: HloInstruction, state: Array, algorithm: RandomAlgorithm) -> list[int]:
    sizes = (2,) if algorithm is RandomAlgorithm.THREE_FRY else (2, 3)
    t = dtypes.from_numpy(state.dtype)
    if state.ndim != 1 or state.shape[0] not in sizes or not (t.is_integer and t.bits == 64):
        want = " or ".join(f"u64[{s}]" for s in sizes)
        raise InvalidArgument(
            f"rng-bit-generator {instr.name}: the {algorithm.name} state must be {want}; "
            f"got {t}{list(state.shape)}"
        )
    return [int(w) for w in state.view(_U64)]


@evaluates(Opcode.RNG_BIT_GENERATOR)
def rng_bit_generator(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``(new_state, data)``: ``data`` filled with XLA's ThreeFry or Philox bits for the state
    (see the module docstring); ``rng_default`` is Philox."""
    (state,) = operands
    assert isinstance(state, np.ndarray)
    algorithm = instr.attrs.algorithm
    if algorithm is RandomAlgorithm.DEFAULT:
        algorithm = RandomAlgorithm.PHILOX
    words = _state_words(instr, state, algorithm)
    data_shape = instr.shape.tuple_shapes[1]
    t = data_shape.element_type
    if not (t.is_integer or t.is_float) or t.bits > 64:
        raise InvalidArgument(
            f"rng-bit-generator {instr.name}: the output must have an integer or "
            f"floating-point element type of at most 64 bits; got {t}"
        )
    bits = 64 if t.bits == 64 else 32
    dims = data_shape.dims
    if algorithm is RandomAlgorithm.THREE_FRY:
        raw, counter = threefry_bits(words[0], words[1], dims, bits)
        new_words = [words[0], counter]
    else:
        counter = words[1] | (words[2 if len(words) == 3 else 0] << 64)
        raw, new_counter = philox_bits(words[0], counter, dims, bits)
        new_words = [words[0], new_counter & _MASK64, new_counter >> 64][: len(words)]
    new_state = np.array(new_words, dtype=_U64).view(state.dtype)
    return (new_state, _from_unsigned_bits(raw, t))


# ---- rng-get-and-update-state and rng -------------------------------------------------------

# XLA:CPU's initial RNG state (``kRngStateInitialValue``); ``DeviceState.rng_state`` counts the
# 32-bit units handed out since, so the device's 128-bit state is their sum.
CPU_INITIAL_RNG_STATE = 0x7012395
# The Philox key of ``rng``: the key XLA:CPU (jaxlib 0.10) gives the first rng instruction it
# expands in a process. XLA derives later keys from process-global random values, which an
# interpreter cannot reproduce; every rng instruction here uses this key, mixed with the device
# ids as XLA's RngExpander does (``key ^ replica_id ^ partition_id << 32``).
RNG_KEY = 13448155576104175439
_U128 = (1 << 128) - 1


def get_and_update_state(ctx: Evaluator, delta: int) -> int:
    """The device's 128-bit RNG state before advancing it by ``delta`` 32-bit units."""
    state = (CPU_INITIAL_RNG_STATE + ctx.device.rng_state) & _U128
    ctx.device.rng_state = (ctx.device.rng_state + delta) & _U128
    return state


@evaluates(Opcode.RNG_GET_AND_UPDATE_STATE)
def rng_get_and_update_state(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Returns the device's RNG state as ``u64[2]`` (low word first) and advances it by
    ``delta``."""
    shape = instr.shape
    if not (shape.is_array and shape.element_type is dtypes.U64 and shape.dims == (2,)):
        raise InvalidArgument(
            f"rng-get-and-update-state {instr.name}: the result must be u64[2]; got {shape}"
        )
    state = get_and_update_state(ctx, instr.attrs.delta)
    return np.array([state & _MASK64, state >> 64], dtype=_U64)


_RNG_TYPES = (
    dtypes.F16,
    dtypes.BF16,
    dtypes.F32,
    dtypes.F64,
    dtypes.S32,
    dtypes.U32,
    dtypes.S64,
    dtypes.U64,
)
_F32 = np.dtype(np.float32)


def _uniform_unit(bits: Array, dtype: np.dtype[Any]) -> Array:
    """XLA's ``ConvertRandomBitsToUniformFloatingPoint`` up to the scaling: the top mantissa
    bits as an integer-valued float times 2**-mantissa, in [0, 1)."""
    mantissa = 23 if dtype == _F32 else 52
    width = bits.dtype.itemsize * 8
    values: Array = (bits >> bits.dtype.type(width - mantissa)).astype(dtype)
    scaled: Array = values * dtype.type(2.0**-mantissa)
    return scaled


def _two_sum(x: Array, y: Array) -> tuple[Array, Array]:
    """Knuth's TwoSum: ``s = fl(x + y)`` and the exact error ``x + y - s``."""
    s = x + y
    virtual = s - x
    return s, (x - (s - virtual)) + (y - virtual)


def _round_to_odd(s: Array, error: Array) -> Array:
    """``s + error`` (``s = fl(s + error)``, ``error`` exact) rounded to odd: ``s`` moved one
    ulp towards the exact sum when it is inexact and its last significand bit is even."""
    bits = s.view(np.uint64)
    move = (error != 0) & ((bits & np.uint64(1)) == 0) & np.isfinite(s)
    return np.where(move, np.nextafter(s, np.where(error > 0, np.inf, -np.inf)), s)


def _split(x: Array) -> tuple[Array, Array]:
    """Veltkamp's split of f64 values into 26- and 27-bit halves."""
    c = x * 134217729.0  # 2**27 + 1
    high = c - (c - x)
    return high, x - high


def fused_multiply_add(x: Array, y: Array, z: Array) -> Array:
    """``x * y + z`` rounded once to the dtype of ``x`` (f32 or f64), as XLA:CPU contracts a
    multiply feeding an add. f32: exact f64 product, sum rounded to odd, then to f32. f64:
    Dekker's exact product and Boldo-Melquiond's emulation with rounding to odd."""
    if x.dtype == _F32:
        product = x.astype(np.float64) * y.astype(np.float64)
        s, error = _two_sum(product, np.asarray(z, np.float64))
        return _round_to_odd(s, error).astype(_F32)
    product = x * y
    x_high, x_low = _split(x)
    y_high, y_low = _split(y)
    product_error = ((x_high * y_high - product) + x_high * y_low + x_low * y_high) + x_low * y_low
    s, error = _two_sum(np.asarray(z, np.float64), product)
    tail, tail_error = _two_sum(error, product_error)
    exact = np.where(np.isfinite(product), s + _round_to_odd(tail, tail_error), product + z)
    return np.asarray(exact, np.float64)


def _uniform_float(bits: Array, a: Array, b: Array) -> Array:
    """``unit * (b - a) + a`` in the compute type, the multiply-add fused as on XLA:CPU."""
    values = _uniform_unit(bits, a.dtype)
    return fused_multiply_add(values, np.broadcast_to(b - a, values.shape), a)


def _uniform_int(bits: Array, a: Array, b: Array, t: ElementType) -> Array:
    """XLA's ``ConvertRandomBitsToUniformInt``: ``a + (dist >> 1) + (dist - (dist >> 1))`` with
    ``dist = bits mod (b - a)`` on the unsigned view (``bits`` itself when ``b == a``)."""
    unsigned = np.dtype(f"u{t.bits // 8}")
    with np.errstate(over="ignore"):
        span = b.view(unsigned) - a.view(unsigned)
        dist = bits % span if span != 0 else bits
        half = dist >> unsigned.type(1)
        total: Array = a.view(unsigned) + half + (dist - half)
    return np.asarray(total.astype(unsigned)).view(np.dtype(t.numpy))  # rank 0 too


def _box_muller(x0: Array, x1: Array) -> tuple[Array, Array]:
    """XLA's ``BoxMullerTransform``: ``u1 = max(x0, 1e-7f)``, ``u2 = sqrt(-2 log u1)``,
    ``(sin(2 pi x1) u2, cos(2 pi x1) u2)``. The transcendental functions are evaluated in f64
    and rounded once (XLA:CPU's own approximations may differ by an ulp or two)."""
    dtype = x0.dtype.type
    u1 = np.maximum(x0, dtype(np.float32(1.0e-7)))
    v1 = dtype(2.0 * math.pi) * x1
    u2 = np.sqrt(dtype(-2.0) * np.log(u1.astype(np.float64)).astype(x0.dtype))
    sin = np.sin(v1.astype(np.float64)).astype(x0.dtype)
    cos = np.cos(v1.astype(np.float64)).astype(x0.dtype)
    return sin * u2, cos * u2


def _normal(key: int, state: int, dims: Sequence[int], dtype: np.dtype[Any]) -> Array:
    """XLA's ``NormalFloatingPointDistribution``: uniforms for the halves of the shape, paired
    by the Box-Muller transform and interleaved back."""
    split, half = _split_halves(dims)
    pair_dims = (*half[: split + 1], 2, *half[split + 1 :])
    bits, _ = philox_bits(key, state, pair_dims, 64 if dtype.itemsize == 8 else 32)
    values = _uniform_unit(bits, dtype)
    first = np.take(values, 0, axis=split + 1)
    second = np.take(values, 1, axis=split + 1)
    z0, z1 = _box_muller(first, second)
    return _combine_halves(z0, z1, split, dims)


@evaluates(Opcode.RNG)
def rng(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``rng_uniform(a, b)``: numbers in ``[a, b)``; ``rng_normal(mu, sigma)``: N(mu, sigma).

    Implementation-defined (OPS.md RngUniform/RngNormal); this is XLA's RngExpander: Philox
    bits from the key ``RNG_KEY ^ replica_id ^ partition_id << 32`` and the device state
    (advanced by the number of 32-bit units of the result); f16/bf16 are generated in f32 and
    rounded. Uniform ints: ``a + bits mod (b - a)``; ``b <= a`` gives what XLA gives.
    A third operand (StableHLO's result shape) is ignored: the result shape is the
    instruction's.
    """
    t = instr.shape.element_type
    distribution = instr.attrs.distribution
    if t not in _RNG_TYPES or (distribution is RandomDistribution.NORMAL and not t.is_float):
        allowed = "f16, bf16, f32, f64" + (
            ", s32, u32, s64, u64" if distribution is RandomDistribution.UNIFORM else ""
        )
        raise InvalidArgument(
            f"rng {instr.name}: {distribution.value} supports the element types {allowed}; got {t}"
        )
    if len(operands) not in (2, 3):
        raise InvalidArgument(
            f"rng {instr.name}: takes the two distribution parameters (and optionally "
            f"StableHLO's shape operand); got {len(operands)} operands"
        )
    a, b = (np.asarray(x) for x in operands[:2])
    if a.ndim or b.ndim:
        raise InvalidArgument(
            f"rng {instr.name}: the parameters must be scalars; got shapes {list(a.shape)} and "
            f"{list(b.shape)}"
        )
    dims = instr.shape.dims
    units = math.prod(dims) * (2 if t.bits == 64 else 1)
    state = get_and_update_state(ctx, units)
    key = RNG_KEY ^ ctx.device.replica_id ^ (ctx.device.partition_id << 32)
    if t.is_float:
        dtype = np.dtype(np.float64) if t is dtypes.F64 else _F32
        a, b = a.astype(dtype), b.astype(dtype)
        with np.errstate(all="ignore"):
            if distribution is RandomDistribution.NORMAL:
                values = a + b * _normal(key, state, dims, dtype)
            else:
                bits, _ = philox_bits(key, state, dims, dtype.itemsize * 8)
                values = _uniform_float(bits, a, b)
        return np.asarray(values).astype(t.numpy)
    bits, _ = philox_bits(key, state, dims, t.bits)
    return _uniform_int(bits, a, b, t)
