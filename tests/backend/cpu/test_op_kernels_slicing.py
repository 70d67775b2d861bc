"""The compiled dynamic-slice and dynamic-update-slice kernels against the interpreter, bit
for bit: random shapes and types, out-of-range (clamped) and negative starts, scalar and
vector start forms, empty slices, in-place update of a donated operand."""

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same, build, random_array, run_both, shape_text

from xlapy.backend.cpu.kernel import RunContext
from xlapy.errors import InvalidArgument
from xlapy.text.hlo_parser import parse_hlo

DTYPES = [np.float32, np.int8, np.bool_, np.complex128, ml_dtypes.bfloat16, np.uint64]


def scalar_params(starts, first):
    lines = [f"  start{i} = s32[] parameter({first + i})" for i in range(len(starts))]
    return "\n".join(lines), ", ".join(f"start{i}" for i in range(len(starts)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_slice_random(dtype):
    rng = np.random.default_rng(abs(hash(np.dtype(dtype).name)) % 2**32)
    for _ in range(40):
        rank = int(rng.integers(0, 4))
        dims = [int(rng.integers(0, 6)) for _ in range(rank)]
        sizes = [int(rng.integers(0, n + 1)) for n in dims]
        starts = [np.int32(rng.integers(-3, 9)) for _ in dims]
        x = random_array(rng, dtype, dims)
        params, names = scalar_params(starts, 1)
        text = f"""HloModule m
ENTRY e {{
  p = {shape_text(x)} parameter(0)
{params}
  ROOT d = {shape_text(x).split("[")[0]}[{",".join(map(str, sizes))}] dynamic-slice(p{", " if names else ""}{names}), dynamic_slice_sizes={{{",".join(map(str, sizes))}}}
}}"""
        args = [np.array(s, np.int32) for s in starts]
        got, want, kernel = run_both(text, x, *args)
        assert kernel.exact
        assert_same(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_update_slice_random(dtype):
    rng = np.random.default_rng(abs(hash(np.dtype(dtype).name)) % 2**32 + 1)
    for trial in range(40):
        rank = int(rng.integers(0, 4))
        dims = [int(rng.integers(0, 6)) for _ in range(rank)]
        sizes = [int(rng.integers(0, n + 1)) for n in dims]
        starts = [np.int32(rng.integers(-3, 9)) for _ in dims]
        x = random_array(rng, dtype, dims)
        u = random_array(rng, dtype, sizes)
        params, names = scalar_params(starts, 2)
        text = f"""HloModule m
ENTRY e {{
  p = {shape_text(x)} parameter(0)
  u = {shape_text(u)} parameter(1)
{params}
  ROOT d = {shape_text(x)} dynamic-update-slice(p, u{", " if names else ""}{names})
}}"""
        args = [np.array(s, np.int32) for s in starts]
        got, want, kernel = run_both(text, x, u, *args, donate=trial % 2 == 0)
        assert kernel.exact
        assert_same(got, want)


def test_dynamic_update_slice_in_place_only_when_donated():
    text = """HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  u = f32[2] parameter(1)
  s = s32[] parameter(2)
  ROOT d = f32[6] dynamic-update-slice(p, u, s)
}"""
    kernel = build(parse_hlo(text).entry.root)
    x = np.zeros(6, np.float32)
    u = np.ones(2, np.float32)
    out = kernel.run([x, u, np.array(9, np.int32)], RunContext(None, None, None, frozenset({0})))
    assert out is x
    assert_same(x, np.array([0, 0, 0, 0, 1, 1], np.float32))
    y = np.zeros(6, np.float32)
    out = kernel.run([y, u, np.array(-2, np.int32)], RunContext(None, None, None, frozenset()))
    assert out is not y
    assert not y.any()
    assert_same(out, np.array([1, 1, 0, 0, 0, 0], np.float32))


def test_dynamic_slice_float_start_is_the_interpreters_error():
    text = """HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  s = s32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(p, s), dynamic_slice_sizes={2}
}"""
    kernel = build(parse_hlo(text).entry.root)
    with pytest.raises(InvalidArgument, match="C3"):
        kernel.run([np.zeros(6, np.float32), np.array(1.0, np.float32)], None)
