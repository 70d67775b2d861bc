"""rng-bit-generator, rng and rng-get-and-update-state (OPS.md RngBitGenerator, RngUniform,
RngNormal, RngGetAndUpdateState).

The expected values were produced by XLA:CPU (jaxlib 0.10.2); the jax tests re-check the bits
live through ``jax.lax.rng_bit_generator`` and ``jax.lax.rng_uniform``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evals.rng import CPU_INITIAL_RNG_STATE, RNG_KEY, philox_bits
from xlapy.interpreter.evaluator import Evaluator
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir import attrs as A
from xlapy.shape import Shape

U64 = dtypes.U64
ALGORITHMS = ("THREE_FRY", "PHILOX", "DEFAULT")


def _module(params: list[Shape], make_root) -> HloModule:
    m = HloModule("m")
    entry = HloComputation("main")
    ps = [
        entry.add_instruction(HloInstruction(Opcode.PARAMETER, s, attrs={"parameter_number": i}))
        for i, s in enumerate(params)
    ]
    root = make_root(entry, ps)
    entry.root = root
    m.add_computation(entry, entry=True)
    return m


def _bit_generator(
    algorithm: str, state_size: int, t: dtypes.ElementType, dims: list[int]
) -> HloModule:
    state = Shape.array(U64, [state_size])
    shape = Shape.tuple_of([state, Shape.array(t, dims)])
    return _module(
        [state],
        lambda c, ps: c.add_instruction(
            HloInstruction(
                Opcode.RNG_BIT_GENERATOR, shape, ps, {"algorithm": A.RandomAlgorithm[algorithm]}
            )
        ),
    )


def _generate(algorithm: str, state: list[int], t: dtypes.ElementType, dims: list[int]):
    m = _bit_generator(algorithm, len(state), t, dims)
    new_state, data = xlapy.run(m, np.array(state, np.uint64), platform="interpreter")
    return new_state, data


# ---- rng-bit-generator ----------------------------------------------------------------------
def test_three_fry_spec_example_state():
    # OPS.md RngBitGenerator (StableHLO conformance data): state u32[4] = [1, 4, 0, 1] as
    # u64[2], output u64[100,100] ==> state u32[4] = [1, 4, 10000, 1].
    state = np.array([1, 4, 0, 1], np.uint32).view(np.uint64)
    m = _bit_generator("THREE_FRY", 2, U64, [100, 100])
    new_state, data = xlapy.run(m, state, platform="interpreter")
    assert new_state.view(np.uint32).tolist() == [1, 4, 10000, 1]
    assert data.shape == (100, 100)
    assert data.dtype == np.uint64
    assert len(np.unique(data)) == 10000


# (algorithm, state, element type, dims, new state, data) as XLA:CPU computes them.
XLA_BITS = [
    (
        "PHILOX",
        [3, 2**64 - 2, 7],
        dtypes.S32,
        [2, 3],
        [3, 0, 8],
        np.array(
            [[3950159794, 4207345060, 702627062], [3556160181, 3238653176, 88556361]], np.uint32
        ),
    ),
    (
        "PHILOX",
        [3, 2**64 - 1, 2**64 - 1],
        dtypes.S64,
        [3],
        [3, 1, 0],
        np.array([18193744686378273879, 940891076753252334, 2155051375293123959], np.uint64),
    ),
    ("PHILOX", [5, 6], dtypes.U8, [5], [5, 8], np.array([91, 8, 19, 164, 241], np.uint8)),
    (
        "THREE_FRY",
        [5, 6],
        dtypes.S16,
        [3, 3],
        [5, 12],
        np.array([[48804, 61811, 19781], [20424, 37592, 33362], [3953, 658, 47063]], np.uint16),
    ),
    (
        "THREE_FRY",
        [5, 2**64 - 1],
        U64,
        [2],
        [5, 1],
        np.array([5699853503226913561, 1356859863320810339], np.uint64),
    ),
    ("THREE_FRY", [1, 2], dtypes.U32, [], [1, 3], np.array(43444564, np.uint32)),
    (
        "PHILOX",
        [9, 8, 7],
        dtypes.F32,
        [2, 2],
        [9, 9, 7],
        np.array([[421749416, 1635141211], [3110024168, 4292666443]], np.uint32),
    ),
]


@pytest.mark.parametrize(("algorithm", "state", "t", "dims", "new_state", "bits"), XLA_BITS)
def test_bits_match_xla(algorithm, state, t, dims, new_state, bits):
    # Covers the 128-bit Philox counter (u64[3], carries into and out of the high word), the
    # u64[2] Philox state, odd shapes for ThreeFry's halving, narrow/signed/float outputs.
    got_state, data = _generate(algorithm, state, t, dims)
    assert got_state.tolist() == new_state
    assert data.dtype == t.numpy
    np.testing.assert_array_equal(data.view(bits.dtype), bits)


def test_default_is_philox():
    state = [0x1234, 0x5678]
    for dims in ([5], [2, 3, 7]):
        default = _generate("DEFAULT", state, dtypes.U32, dims)
        philox = _generate("PHILOX", state, dtypes.U32, dims)
        np.testing.assert_array_equal(default[0], philox[0])
        np.testing.assert_array_equal(default[1], philox[1])


def test_sub_byte_output_keeps_low_bits():
    u4 = _generate("PHILOX", [5, 6], dtypes.U4, [5])[1]
    u8 = _generate("PHILOX", [5, 6], dtypes.U8, [5])[1]
    assert u4.dtype == ml_dtypes.uint4
    np.testing.assert_array_equal(u4.astype(np.uint8), u8 & 15)
    s4 = _generate("PHILOX", [5, 6], dtypes.S4, [5])[1]
    np.testing.assert_array_equal(s4.astype(np.int8), ((u8 & 15).astype(np.int8) ^ 8) - 8)


def test_zero_elements():
    new_state, data = _generate("THREE_FRY", [5, 6], dtypes.U32, [0, 3])
    assert data.shape == (0, 3)
    assert new_state.tolist() == [5, 6]


@pytest.mark.parametrize(("algorithm", "size"), [("THREE_FRY", 3), ("PHILOX", 4), ("PHILOX", 1)])
def test_bad_state_size(algorithm, size):
    with pytest.raises(InvalidArgument, match=rf"rng-bit-generator .*{algorithm} state must be"):
        _generate(algorithm, list(range(size)), dtypes.U32, [4])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dims", [[], [1], [5], [4], [3, 5], [2, 3, 7], [7, 1, 3], [6, 4], [1, 1]])
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_bits_match_jax(algorithm, dims, dtype):
    jax = pytest.importorskip("jax")
    rs = np.random.RandomState(len(dims) * 7 + len(dtype))
    state = rs.randint(0, 2**63, size=2, dtype=np.int64).astype(np.uint64) * np.uint64(3)
    state[1] = np.uint64(2**64 - 2)  # the counter wraps (and carries into Philox's high word)
    algo = getattr(jax.lax.RandomAlgorithm, f"RNG_{algorithm}")
    with jax.enable_x64(True):  # scoped: other tests in this worker expect 32-bit defaults
        want_state, want = jax.lax.rng_bit_generator(
            jax.numpy.asarray(state), tuple(dims), np.dtype(dtype), algorithm=algo
        )
        want_state, want = np.asarray(want_state), np.asarray(want)
    t = dtypes.from_numpy(np.dtype(dtype))
    got_state, got = _generate(algorithm, state.tolist(), t, dims)
    np.testing.assert_array_equal(got_state, want_state)
    np.testing.assert_array_equal(got, want)


# ---- rng-get-and-update-state ---------------------------------------------------------------
def test_get_and_update_state_advances_by_delta():
    state = Shape.array(U64, [2])
    ctx = Evaluator(HloModule("m"))
    first, second = (
        ctx.evaluate(
            HloInstruction(Opcode.RNG_GET_AND_UPDATE_STATE, state, attrs={"delta": delta}), []
        )
        for delta in (5, 7)
    )
    assert first.tolist() == [CPU_INITIAL_RNG_STATE, 0]
    assert second.tolist() == [CPU_INITIAL_RNG_STATE + 5, 0]
    assert ctx.device.rng_state == 12


# ---- rng ------------------------------------------------------------------------------------
def _rng_instr(
    distribution: str, t: dtypes.ElementType, dims: list[int], operands=()
) -> HloInstruction:
    shape = Shape.array(t, dims)
    attrs = {"distribution": A.RandomDistribution[distribution]}
    return HloInstruction(Opcode.RNG, shape, operands, attrs)


def _rng(distribution: str, t: dtypes.ElementType, dims: list[int]) -> HloModule:
    s = Shape.scalar(t)
    return _module([s, s], lambda c, ps: c.add_instruction(_rng_instr(distribution, t, dims, ps)))


# (distribution, type, dims, a, b, values): XLA:CPU's first rng in a fresh process.
XLA_RNG = [
    (
        "UNIFORM",
        dtypes.F32,
        [3, 4],
        -2.0,
        3.5,
        [
            [-0.7894838452339172, 1.0786104202270508, 0.6528298854827881, -1.6772452592849731],
            [-0.3793177008628845, 0.6083564162254333, 1.5758594274520874, -0.9128478765487671],
            [2.2638204097747803, 1.3956983089447021, 3.1044468879699707, -1.673952579498291],
        ],
    ),
    (
        "UNIFORM",
        dtypes.F64,
        [4],
        -2.3,
        7.1,
        [2.961626070381347, -1.7483817376815893, 2.1579183749784456, -0.44195745002677056],
    ),
    ("UNIFORM", dtypes.S32, [6], -5, 100, [20, -5, 57, 40, 26, -5]),
    (
        "UNIFORM",
        dtypes.U64,
        [3],
        3,
        2**63,
        [1102145998451905388, 1082506479933204620, 8748306315395168164],
    ),
    ("UNIFORM", dtypes.S32, [4], 10, 3, [945296240, -1890870276, 2071603347, 252040690]),
    ("UNIFORM", dtypes.BF16, [4], 0.0, 1.0, [0.2197265625, 0.55859375, 0.482421875, 0.05859375]),
    (
        "NORMAL",
        dtypes.F64,
        [5],
        0.3,
        1.7,
        [
            0.9600609639777538,
            2.008296709234052,
            2.265281615128738,
            0.9706031991335664,
            0.9075815112379291,
        ],
    ),
]


@pytest.mark.parametrize(("distribution", "t", "dims", "a", "b", "values"), XLA_RNG)
def test_rng_matches_xla_cpu(distribution, t, dims, a, b, values):
    m = _rng(distribution, t, dims)
    (out,) = xlapy.run(
        m, np.asarray(a).astype(t.numpy), np.asarray(b).astype(t.numpy), platform="interpreter"
    )
    assert out.dtype == t.numpy
    np.testing.assert_array_equal(out, np.asarray(values).astype(t.numpy))


def test_rng_normal_f32_within_two_ulp_of_xla_cpu():
    # XLA:CPU's f32 log/sin/cos are its own approximations: the Box-Muller outputs agree to
    # within 2 ulp (f64 agrees exactly, above).
    want = np.array(
        [
            [0.6271039247512817, 1.035130262374878, 0.1945502609014511],
            [1.6230043172836304, -0.29840371012687683, -1.1918021440505981],
        ],
        np.float32,
    )
    (out,) = xlapy.run(
        _rng("NORMAL", dtypes.F32, [2, 3]), np.float32(0), np.float32(1), platform="interpreter"
    )
    ulp = np.abs(out.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert ulp.max() <= 2


def test_rng_state_advances_between_instructions():
    # The second rng continues from the device state the first one advanced (by 6 units).
    ctx = Evaluator(HloModule("m"))
    zero = np.array(0, np.uint32)
    first, second = (
        ctx.evaluate(_rng_instr("UNIFORM", dtypes.U32, [6]), [zero, zero]) for _ in "12"
    )
    want_first, _ = philox_bits(RNG_KEY, CPU_INITIAL_RNG_STATE, [6], 32)
    want_second, _ = philox_bits(RNG_KEY, CPU_INITIAL_RNG_STATE + 6, [6], 32)
    np.testing.assert_array_equal(first, want_first)
    np.testing.assert_array_equal(second, want_second)


def test_rng_uniform_int_range():
    (out,) = xlapy.run(
        _rng("UNIFORM", dtypes.S64, [1000]), np.int64(-3), np.int64(4), platform="interpreter"
    )
    assert out.min() >= -3
    assert out.max() < 4
    assert set(np.unique(out).tolist()) == set(range(-3, 4))


@pytest.mark.parametrize(
    ("distribution", "t"),
    [("UNIFORM", dtypes.S8), ("NORMAL", dtypes.S32), ("UNIFORM", dtypes.PRED)],
)
def test_rng_unsupported_types(distribution, t):
    with pytest.raises(InvalidArgument, match=rf"rng .*: rng_{distribution.lower()} supports"):
        xlapy.run(
            _rng(distribution, t, [3]),
            np.zeros((), t.numpy),
            np.ones((), t.numpy),
            platform="interpreter",
        )


_FRESH_JAX = """
import json, sys
import jax, numpy as np
out = jax.jit(lambda a, b: jax.lax.rng_uniform(a, b, (3, 4)))(np.float32(-2), np.float32(3.5))
print(json.dumps(np.asarray(out).tolist()))
"""


def test_rng_uniform_matches_fresh_jax_process():
    # The first rng instruction XLA:CPU compiles in a process uses the key RNG_KEY.
    pytest.importorskip("jax")
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_JAX], capture_output=True, text=True, check=True
    )
    want = np.array(json.loads(done.stdout.strip().splitlines()[-1]), np.float32)
    (out,) = xlapy.run(
        _rng("UNIFORM", dtypes.F32, [3, 4]), np.float32(-2), np.float32(3.5), platform="interpreter"
    )
    np.testing.assert_array_equal(out, want)


def test_rng_ignores_stablehlo_shape_operand():
    shape = Shape.array(dtypes.S64, [1])
    s = Shape.scalar(dtypes.U32)
    m = _module(
        [s, s, shape],
        lambda c, ps: c.add_instruction(_rng_instr("UNIFORM", dtypes.U32, [6], ps)),
    )
    (out,) = xlapy.run(
        m, np.uint32(0), np.uint32(0), np.array([6], np.int64), platform="interpreter"
    )
    want, _ = philox_bits(RNG_KEY, CPU_INITIAL_RNG_STATE, [6], 32)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64"])
def test_rng_uniform_of_a_scalar_integer(t: str) -> None:
    """A rank-0 integer result is a 0-d array of the type, in [a, b)."""
    module = xlapy.load(
        f"HloModule r\nENTRY e {{ a = {t}[] constant(3)  b = {t}[] constant(10)\n"
        f"  ROOT r = {t}[] rng(a, b), distribution=rng_uniform }}\n"
    )
    (got,) = xlapy.run(module, platform="interpreter")
    assert isinstance(got, np.ndarray)
    assert got.shape == ()
    assert got.dtype == dtypes.from_name(t).numpy
    assert 3 <= int(got) < 10
