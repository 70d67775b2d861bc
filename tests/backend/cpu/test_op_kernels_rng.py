"""The compiled rng-bit-generator kernel against the interpreter, bit for bit: ThreeFry,
Philox (2- and 3-word states) and the default algorithm, every output width and type,
odd/even/scalar shapes, counters that wrap at 2**64."""

import time

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same, build, run_both

from xlapy.backend.cpu.kernel import RunContext
from xlapy.interpreter.evaluator import Evaluator
from xlapy.text.hlo_parser import parse_hlo


def context():
    evaluator = Evaluator(parse_hlo("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(0)\n}"))
    return RunContext(evaluator.device, evaluator, evaluator.call)


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


def rng_text(t, dims, distribution):
    shape = ",".join(map(str, dims))
    return f"""HloModule m
ENTRY e {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = {t}[{shape}] rng(a, b), distribution={distribution}
}}"""


@pytest.mark.parametrize("t", ["f32", "f64", "bf16", "f16", "s32", "u32", "s64", "u64"])
@pytest.mark.parametrize("distribution", ["rng_uniform", "rng_normal"])
def test_rng_matches_interpreter(t, distribution):
    if distribution == "rng_normal" and t[0] in "su":
        pytest.skip("normal is defined for floats only")
    params = {"f": [(0.0, 1.0), (-3.5, 7.25), (2.0, 2.0), (1e30, -1e30)], "s": [(-5, 9), (7, 7)]}
    params["u"] = [(3, 1000), (9, 2)]
    params["b"] = [(0.0, 1.0), (-3.5, 7.25)]
    if t == "f16":
        params["f"] = params["b"]
    for low, high in params[t[0]]:
        for dims in [(), (1,), (7,), (4, 5), (3, 1, 9), (1000,)]:
            args = [np.array(low, TYPES[t]), np.array(high, TYPES[t])]
            if dims == () and t[0] in "su":
                # The interpreter's eval returns a numpy scalar here (its result check fails).
                module = parse_hlo(rng_text(t, dims, distribution))
                got = build(module.entry.root).run(args, context())
                assert isinstance(got, np.ndarray)
                assert got.shape == ()
                assert got.dtype == TYPES[t]
                continue
            got, want, kernel = run_both(rng_text(t, dims, distribution), *args)
            assert kernel.exact
            assert_same(got, want)
