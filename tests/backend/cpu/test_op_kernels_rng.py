"""The compiled rng-bit-generator kernel against the interpreter, bit for bit: ThreeFry,
Philox (2- and 3-word states) and the default algorithm, every output width and type,
odd/even/scalar shapes, counters that wrap at 2**64."""

import time

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same, run_both

TYPES = {
    "u32": np.uint32, "s32": np.int32, "u64": np.uint64, "s64": np.int64, "f32": np.float32,
    "f64": np.float64, "u8": np.uint8, "s16": np.int16, "bf16": ml_dtypes.bfloat16,
    "f16": np.float16, "s4": ml_dtypes.int4, "u4": ml_dtypes.uint4,
}  # fmt: skip
SHAPES = [(), (1,), (7,), (8,), (3, 5), (4, 3), (5, 3, 7), (2, 0, 3), (1000,)]


def rbg_text(algorithm, state_size, t, dims):
    shape = ",".join(map(str, dims))
    return f"""HloModule m
ENTRY e {{
  s = u64[{state_size}] parameter(0)
  ROOT r = (u64[{state_size}], {t}[{shape}]) rng-bit-generator(s), algorithm={algorithm}
}}"""


STATES = [
    [0, 0, 0],
    [42, 7, 1],
    [0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFE, 0xFFFFFFFFFFFFFFFF],
    [0x123456789ABCDEF, 2**63 + 5, 3],
]


@pytest.mark.parametrize(
    ("algorithm", "size"),
    [("rng_three_fry", 2), ("rng_philox", 2), ("rng_philox", 3), ("rng_default", 2)],
)
@pytest.mark.parametrize("t", list(TYPES))
def test_rng_bit_generator_matches_interpreter(algorithm, size, t):
    for words in STATES:
        state = np.array(words[:size], np.uint64)
        for dims in SHAPES:
            got, want, kernel = run_both(rbg_text(algorithm, size, t, dims), state)
            assert kernel.exact
            assert_same(got, want)


def test_rng_bit_generator_is_fast():
    state = np.array([1, 2], np.uint64)
    for algorithm in ("rng_three_fry", "rng_philox"):
        got, want, kernel = run_both(rbg_text(algorithm, 2, "u32", (1 << 20,)), state)
        assert_same(got, want)
        kernel.run([state], None)
        started = time.perf_counter()
        kernel.run([state], None)
        assert time.perf_counter() - started < 1.0
