"""Compiled ``rng-bit-generator``: ThreeFry-2x32 and Philox-4x32 as parallel numba loops over
counters, laid out exactly as the interpreter's eval (``xlapy/interpreter/evals/rng.py``,
which follows XLA's ``rng_bit_generator_expander`` and ``prng.cc``), bit for bit.

ThreeFry: one counter per element of the half shape (32-bit outputs; the two words go to the
two halves of the first even dimension, else the largest) or per element (64-bit outputs).
Philox: one 128-bit counter per four 32-bit (two 64-bit) outputs, round-robin. ``rng_default``
is Philox.

``rng`` (uniform/normal, XLA's RngExpander as the interpreter implements it): Philox bits
from the device state here, uniform floats as one hardware fused multiply-add per element
(equal to the interpreter's exact FMA emulation), the Box-Muller transform with the
interpreter's numpy formulas.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numba
import numpy as np
from numba.extending import intrinsic

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.launch_lock import guarded
from xlapy.dtypes import ElementType
from xlapy.interpreter.evals.rng import RNG_KEY, get_and_update_state
from xlapy.ir.attrs import RandomAlgorithm, RandomDistribution
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

_M32 = np.uint64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1
_PARITY = np.uint64(0x1BD11BDA)


@numba.njit(inline="always")
def _rotl(v: int, d: int) -> int:
    return ((v << np.uint64(d)) | (v >> np.uint64(32 - d))) & _M32


@guarded
@numba.njit(cache=True, parallel=True)
def threefry_words(start: int, key0: int, key1: int, out0: Array, out1: Array) -> None:
    """Threefry-2x32, 20 rounds, of the counters ``start + j`` (mod 2**64; low word first)
    into ``out0[j], out1[j]`` (uint32)."""
    k0 = np.uint64(key0)
    k1 = np.uint64(key1)
    k2 = _PARITY ^ k0 ^ k1
    first = np.uint64(start)
    for j in numba.prange(out0.size):
        c = first + np.uint64(j)
        x0 = ((c & _M32) + k0) & _M32
        x1 = ((c >> np.uint64(32)) + k1) & _M32
        # five blocks of four rounds; rotations (13, 15, 26, 6), (17, 29, 16, 24); key
        # injection after each block with the block number added to the second word
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 13)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 15)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 26)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 6)
        x0 = (x0 + k1) & _M32
        x1 = (x1 + k2 + np.uint64(1)) & _M32
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 17)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 29)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 16)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 24)
        x0 = (x0 + k2) & _M32
        x1 = (x1 + k0 + np.uint64(2)) & _M32
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 13)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 15)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 26)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 6)
        x0 = (x0 + k0) & _M32
        x1 = (x1 + k1 + np.uint64(3)) & _M32
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 17)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 29)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 16)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 24)
        x0 = (x0 + k1) & _M32
        x1 = (x1 + k2 + np.uint64(4)) & _M32
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 13)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 15)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 26)
        x0 = (x0 + x1) & _M32
        x1 = x0 ^ _rotl(x1, 6)
        x0 = (x0 + k2) & _M32
        x1 = (x1 + k0 + np.uint64(5)) & _M32
        out0[j] = x0
        out1[j] = x1


@guarded
@numba.njit(cache=True, parallel=True)
def philox_words(low: int, high: int, key0: int, key1: int, out: Array) -> None:
    """Philox-4x32, 10 rounds, of the 128-bit counters ``(high:low) + j`` into ``out[j, 0:4]``
    (uint32; counter words least significant first)."""
    first = np.uint64(low)
    for j in numba.prange(out.shape[0]):
        c_low = first + np.uint64(j)
        c_high = np.uint64(high) + (np.uint64(1) if c_low < first else np.uint64(0))
        x0 = c_low & _M32
        x1 = c_low >> np.uint64(32)
        x2 = c_high & _M32
        x3 = c_high >> np.uint64(32)
        k0 = np.uint64(key0)
        k1 = np.uint64(key1)
        for _ in range(10):
            p0 = x0 * np.uint64(0xD2511F53)
            p1 = x2 * np.uint64(0xCD9E8D57)
            y0 = (p1 >> np.uint64(32)) ^ x1 ^ k0
            y2 = (p0 >> np.uint64(32)) ^ x3 ^ k1
            x0, x1, x2, x3 = y0, p1 & _M32, y2, p0 & _M32
            k0 = (k0 + np.uint64(0x9E3779B9)) & _M32
            k1 = (k1 + np.uint64(0xBB67AE85)) & _M32
        out[j, 0] = x0
        out[j, 1] = x1
        out[j, 2] = x2
        out[j, 3] = x3


def _split_halves(dims: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """XLA's SplitShapeIntoHalves: the first even dimension, else the largest (first of
    equals); the half shape rounds it up. Scalars split as [1]."""
    if not dims:
        return 0, (1,)
    split = next((i for i, d in enumerate(dims) if d % 2 == 0), None)
    if split is None:
        split = max(range(len(dims)), key=lambda i: (dims[i], -i))
    return split, tuple((d + 1) // 2 if i == split else d for i, d in enumerate(dims))


def threefry_bits(key: int, counter: int, dims: Sequence[int], bits: int) -> tuple[Array, int]:
    """ThreeFry bits of shape ``dims`` (uint32, or uint64 for 64-bit outputs) and the new
    counter."""
    key0, key1 = key & 0xFFFFFFFF, key >> 32
    if bits == 64:
        count = math.prod(dims)
        x0, x1 = np.empty(count, np.uint32), np.empty(count, np.uint32)
        threefry_words(np.uint64(counter), np.uint64(key0), np.uint64(key1), x0, x1)
        joined = x0.astype(np.uint64) | (x1.astype(np.uint64) << np.uint64(32))
        return joined.reshape(dims), (counter + count) & _MASK64
    split, half = _split_halves(dims)
    count = math.prod(half)
    x0, x1 = np.empty(count, np.uint32), np.empty(count, np.uint32)
    threefry_words(np.uint64(counter), np.uint64(key0), np.uint64(key1), x0, x1)
    out = _combine_halves(x0.reshape(half), x1.reshape(half), split, dims)
    return out, (counter + count) & _MASK64


def _combine_halves(first: Array, second: Array, split: int, dims: Sequence[int]) -> Array:
    """XLA's CombineShapePair: two half-shape arrays interleaved along ``split`` (first at
    even positions), the padding element of an odd dimension dropped."""
    if not dims:
        return first.reshape(())
    both = np.stack([first, second], axis=split + 1)
    merged = list(first.shape)
    merged[split] *= 2
    return np.ascontiguousarray(both.reshape(merged)[tuple(slice(0, d) for d in dims)])


def philox_bits(key: int, counter: int, dims: Sequence[int], bits: int) -> tuple[Array, int]:
    """Philox bits of shape ``dims`` (uint32, or uint64 for 64-bit outputs) from the 128-bit
    ``counter`` and the new counter."""
    n = math.prod(dims)
    per_counter = 2 if bits == 64 else 4
    count = -(-n // per_counter)
    words = np.empty((count, 4), np.uint32)
    low, high = np.uint64(counter & _MASK64), np.uint64((counter >> 64) & _MASK64)
    philox_words(low, high, np.uint64(key & 0xFFFFFFFF), np.uint64((key >> 32) & 0xFFFFFFFF), words)
    if bits == 64:
        wide = words.astype(np.uint64)
        lanes = np.stack(
            [
                wide[:, 0] | (wide[:, 1] << np.uint64(32)),
                wide[:, 2] | (wide[:, 3] << np.uint64(32)),
            ],
            axis=1,
        )
        flat = lanes.reshape(-1)[:n]
    else:
        flat = words.reshape(-1)[:n]
    return flat.reshape(dims), (counter + count) & ((1 << 128) - 1)


def from_unsigned_bits(bits: Array, t: ElementType) -> Array:
    """Elements of type ``t`` whose bit patterns are the low ``t.bits`` bits of ``bits``
    (signed sub-byte types sign-extended)."""
    storage = np.dtype(t.numpy)
    width = storage.itemsize * 8
    low: Array = bits.astype(np.dtype(f"u{width // 8}"))
    if t.bits < width:
        low = low & np.array((1 << t.bits) - 1, low.dtype)
        if t.is_signed:
            values = low.astype(np.int16)
            values = np.where(values >= 1 << (t.bits - 1), values - (1 << t.bits), values)
            return values.astype(storage)
        if t.is_unsigned:
            return low.astype(storage)
    return low.view(storage)


@kernel_for(Opcode.RNG_BIT_GENERATOR, priority=10)
def rng_bit_generator_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """RngBitGenerator: ``(new_state, bits)`` for ThreeFry (state ``[key, counter]``) or Philox
    (``[key, counter_low(, counter_high)]``, the key standing in for a missing high word),
    bit-identical to the interpreter."""
    algorithm = instr.attrs.algorithm
    if algorithm is RandomAlgorithm.DEFAULT:
        algorithm = RandomAlgorithm.PHILOX
    state_shape = instr.operands[0].shape
    sizes = (2,) if algorithm is RandomAlgorithm.THREE_FRY else (2, 3)
    if not (
        state_shape.is_array
        and state_shape.rank == 1
        and state_shape.dims[0] in sizes
        and state_shape.element_type.is_integer
        and state_shape.element_type.bits == 64
    ):
        raise NoKernel("state shape (the interpreter reports it)")
    if not instr.shape.is_tuple or len(instr.shape.tuple_shapes) != 2:
        raise NoKernel("result shape")
    data = instr.shape.tuple_shapes[1]
    t = data.element_type
    if not data.is_static or not (t.is_integer or t.is_float) or t.bits > 64:
        raise NoKernel(f"output type {t} (the interpreter reports it)")
    bits = 64 if t.bits == 64 else 32
    dims = data.dims
    three_fry = algorithm is RandomAlgorithm.THREE_FRY
    started = time.perf_counter()
    threefry_bits(0, 0, (2,), 32) if three_fry else philox_bits(0, 0, (2,), 32)
    compile_seconds = time.perf_counter() - started

    def run(operands: list[Value], ctx: RunContext) -> Value:
        state = np.asarray(operands[0])
        words = [int(w) for w in state.view(np.uint64)]
        if three_fry:
            raw, counter = threefry_bits(words[0], words[1], dims, bits)
            new_words = [words[0], counter]
        else:
            counter = words[1] | (words[2 if len(words) == 3 else 0] << 64)
            raw, new_counter = philox_bits(words[0], counter, dims, bits)
            new_words = [words[0], new_counter & _MASK64, new_counter >> 64][: len(words)]
        new_state = np.array(new_words, dtype=np.uint64).view(state.dtype)
        return (new_state, np.asarray(from_unsigned_bits(np.asarray(raw), t)).reshape(dims))

    name = "ThreeFry-2x32" if three_fry else "Philox-4x32"
    return Kernel(run=run, how=f"numba {name}, parallel over counters",
                  compile_seconds=compile_seconds, exact=True, views=())  # fmt: skip


# ---- rng (uniform and normal distributions) ------------------------------------------------


@intrinsic
def _fma(typingctx: object, x: object, y: object, z: object) -> object:
    """``x * y + z`` rounded once (LLVM's fma: the FMA instruction, or libm's fma)."""

    def codegen(context: object, builder: object, signature: object, args: object) -> object:
        return builder.fma(*args)  # type: ignore[attr-defined]

    return x(x, y, z), codegen  # type: ignore[operator]


@guarded
@numba.njit(cache=True, parallel=True)
def _uniform_f32(bits: Array, span: float, low: float, out: Array) -> None:
    """``fma(top 23 bits * 2**-23, span, low)`` in f32 (XLA's uniform floats)."""
    for i in numba.prange(bits.size):
        unit = np.float32(bits[i] >> np.uint32(9)) * np.float32(2.0**-23)
        out[i] = _fma(unit, np.float32(span), np.float32(low))


@guarded
@numba.njit(cache=True, parallel=True)
def _uniform_f64(bits: Array, span: float, low: float, out: Array) -> None:
    """``fma(top 52 bits * 2**-52, span, low)`` in f64."""
    for i in numba.prange(bits.size):
        unit = np.float64(bits[i] >> np.uint64(12)) * 2.0**-52
        out[i] = _fma(unit, span, low)


def _unit(bits: Array, dtype: np.dtype) -> Array:
    """The top mantissa bits as a float in [0, 1) (before the affine map)."""
    mantissa = 23 if dtype == np.float32 else 52
    shifted = bits >> bits.dtype.type(bits.dtype.itemsize * 8 - mantissa)
    return shifted.astype(dtype) * dtype.type(2.0**-mantissa)


def _box_muller(x0: Array, x1: Array) -> tuple[Array, Array]:
    """XLA's BoxMullerTransform with the interpreter's arithmetic: ``u1 = max(x0, 1e-7f)``,
    ``u2 = sqrt(-2 log u1)``, ``(sin(2 pi x1) u2, cos(2 pi x1) u2)``, the transcendental
    functions in f64 rounded once."""
    dtype = x0.dtype.type
    u1 = np.maximum(x0, dtype(np.float32(1.0e-7)))
    v1 = dtype(2.0 * math.pi) * x1
    u2 = np.sqrt(dtype(-2.0) * np.log(u1.astype(np.float64)).astype(x0.dtype))
    sin = np.sin(v1.astype(np.float64)).astype(x0.dtype)
    cos = np.cos(v1.astype(np.float64)).astype(x0.dtype)
    return sin * u2, cos * u2


def _uniform_int(bits: Array, a: Array, b: Array, t: ElementType) -> Array:
    """``a + (dist >> 1) + (dist - (dist >> 1))``, ``dist = bits mod (b - a)`` on the unsigned
    view (``bits`` itself when ``b == a``): XLA's ConvertRandomBitsToUniformInt."""
    unsigned = np.dtype(f"u{t.bits // 8}")
    with np.errstate(over="ignore"):
        span = b.view(unsigned) - a.view(unsigned)
        dist = bits % span if span != 0 else bits
        half = dist >> unsigned.type(1)
        total: Array = a.view(unsigned) + half + (dist - half)
    return total.astype(unsigned).view(np.dtype(t.numpy))


_RNG_TYPES = ("f16", "bf16", "f32", "f64", "s32", "u32", "s64", "u64")


@kernel_for(Opcode.RNG, priority=10)
def rng_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Rng (uniform/normal), bit-identical to the interpreter's eval: the same device state,
    key and Philox counters, uniform floats by hardware FMA, normals by Box-Muller."""
    t = instr.shape.element_type
    distribution = instr.attrs.distribution
    normal = distribution is RandomDistribution.NORMAL
    if not instr.shape.is_array or t.name not in _RNG_TYPES or (normal and not t.is_float):
        raise NoKernel(f"{distribution.value} of {t} (the interpreter reports it)")
    if len(instr.operands) not in (2, 3) or any(o.shape.rank for o in instr.operands[:2]):
        raise NoKernel("operands (the interpreter reports it)")
    dims = instr.shape.dims
    units = math.prod(dims) * (2 if t.bits == 64 else 1)
    dtype = np.dtype(np.float64 if t.bits == 64 else np.float32)
    width = 64 if t.bits == 64 else 32
    started = time.perf_counter()
    philox_bits(0, 0, (2,), width)
    if t.is_float and not normal:
        uniform = _uniform_f64 if width == 64 else _uniform_f32
        uniform(np.zeros(1, f"u{width // 8}"), dtype.type(1), dtype.type(0), np.zeros(1, dtype))
    compile_seconds = time.perf_counter() - started

    def run(operands: list[Value], ctx: RunContext) -> Value:
        a, b = (np.asarray(x) for x in operands[:2])
        state = get_and_update_state(ctx.evaluator, units)
        device = ctx.evaluator.device
        key = RNG_KEY ^ device.replica_id ^ (device.partition_id << 32)
        if not t.is_float:
            bits, _ = philox_bits(key, state, dims, t.bits)
            return np.asarray(_uniform_int(bits, a, b, t)).reshape(dims)
        low, high = a.astype(dtype), b.astype(dtype)
        with np.errstate(all="ignore"):
            if normal:
                split, half = _split_halves(dims)
                pair_dims = (*half[: split + 1], 2, *half[split + 1 :])
                bits, _ = philox_bits(key, state, pair_dims, width)
                values = _unit(bits, dtype)
                z0, z1 = _box_muller(
                    np.take(values, 0, axis=split + 1), np.take(values, 1, axis=split + 1)
                )
                out = low + high * _combine_halves(z0, z1, split, dims)
            else:
                bits, _ = philox_bits(key, state, dims, width)
                out = np.empty(dims, dtype)
                uniform(bits.reshape(-1), dtype.type(high - low), low[()], out.reshape(-1))
        return np.asarray(out).astype(t.numpy)

    how = f"numba Philox-4x32 + {'Box-Muller' if normal else 'FMA'} ({distribution.value})"
    return Kernel(run=run, how=how, compile_seconds=compile_seconds, exact=True, views=())
