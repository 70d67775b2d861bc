"""Reduction kernels writing an output shaped like their input into a donated operand's
buffer (softmax's max and exp-sum fusions): the results equal the interpreter's, NaN rows
included (the second pass of a float max reads the stored output back), and a call keeps
one score-sized buffer alive instead of two."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import xlapy
from tests.backend.cpu.fusion_kernels_util import assert_bitwise

# softmax(q k^T / 8) v as JAX lowers it once fused: a max fusion and an exp-sum fusion with
# the scores as a second output each, then the division.
ATTENTION = """HloModule attention
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
scaled_max (p: f32[B,S,S]) -> (f32[B,S], f32[B,S,S]) {
  p = f32[B,S,S] parameter(0)
  eight = f32[] constant(8)
  e = f32[B,S,S] broadcast(eight), dimensions={}
  d = f32[B,S,S] divide(p, e)
  lo = f32[] constant(-inf)
  m = f32[B,S] reduce(d, lo), dimensions={2}, to_apply=max_f32
  ROOT t = (f32[B,S], f32[B,S,S]) tuple(m, d)
}
exp_sum (p: f32[B,S,S], m: f32[B,S]) -> (f32[B,S], f32[B,S,S]) {
  p = f32[B,S,S] parameter(0)
  m = f32[B,S] parameter(1)
  mb = f32[B,S,S] broadcast(m), dimensions={0,1}
  s = f32[B,S,S] subtract(p, mb)
  x = f32[B,S,S] exponential(s)
  zero = f32[] constant(0)
  r = f32[B,S] reduce(x, zero), dimensions={2}, to_apply=add_f32
  ROOT t = (f32[B,S], f32[B,S,S]) tuple(r, x)
}
normalize (p: f32[B,S,S], r: f32[B,S]) -> f32[B,S,S] {
  p = f32[B,S,S] parameter(0)
  r = f32[B,S] parameter(1)
  rb = f32[B,S,S] broadcast(r), dimensions={0,1}
  ROOT q = f32[B,S,S] divide(p, rb)
}
ENTRY main {
  q = f32[B,S,D] parameter(0)
  k = f32[B,S,D] parameter(1)
  v = f32[B,S,D] parameter(2)
  scores = f32[B,S,S] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  f1 = (f32[B,S], f32[B,S,S]) fusion(scores), kind=kInput, calls=scaled_max
  m = f32[B,S] get-tuple-element(f1), index=0
  d = f32[B,S,S] get-tuple-element(f1), index=1
  f2 = (f32[B,S], f32[B,S,S]) fusion(d, m), kind=kInput, calls=exp_sum
  r = f32[B,S] get-tuple-element(f2), index=0
  x = f32[B,S,S] get-tuple-element(f2), index=1
  w = f32[B,S,S] fusion(x, r), kind=kLoop, calls=normalize
  ROOT o = f32[B,S,D] dot(w, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
"""


def attention(batch: int, seq: int, depth: int) -> xlapy.HloModule:
    text = ATTENTION.replace("B,", f"{batch},").replace("S,", f"{seq},").replace("S]", f"{seq}]")
    return xlapy.load(text.replace("D]", f"{depth}]"))


@pytest.mark.parametrize("nan_rows", [False, True])
def test_softmax_fusions_in_place_equal_the_interpreter(nan_rows: bool) -> None:
    rng = np.random.default_rng(5)
    q, k, v = (rng.integers(-2, 3, (2, 24, 8)).astype(np.float32) for _ in range(3))
    if nan_rows:
        q[0, 3, 1] = np.nan  # a NaN row of scores: the max's second pass reads it back
        q[1, 7, :] = np.inf
    module = attention(2, 24, 8)
    exe = xlapy.compile(module, platform="cpu")
    got = exe(q, k, v)[0]
    want = xlapy.run(module, q, k, v, platform="interpreter")[0]
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    if nan_rows:
        assert np.isnan(got[0, 3]).all()


def test_max_fusion_in_place_is_bit_exact_with_nans() -> None:
    """The max fusion alone on a donated operand (made by a kernel of the plan): its outputs
    bit for bit, rows with NaNs taking the second pass."""
    text = """HloModule m
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
scaled_max (p: f32[64,512]) -> (f32[64], f32[64,512]) {
  p = f32[64,512] parameter(0)
  two = f32[] constant(2)
  e = f32[64,512] broadcast(two), dimensions={}
  d = f32[64,512] divide(p, e)
  lo = f32[] constant(-inf)
  m = f32[64] reduce(d, lo), dimensions={1}, to_apply=max_f32
  ROOT t = (f32[64], f32[64,512]) tuple(m, d)
}
ENTRY main {
  x = f32[64,512] parameter(0)
  y = f32[64,512] negate(x)
  ROOT f = (f32[64], f32[64,512]) fusion(y), kind=kInput, calls=scaled_max
}
"""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 512)).astype(np.float32)
    x[5, 100] = np.float32("nan")
    x[5, 300] = -np.float32("nan")
    x[9, :] = np.nan
    module = xlapy.load(text)
    exe = xlapy.compile(module, platform="cpu")
    source = exe.report(sources=True)
    assert "out1 = in0" in source  # the in-place variant
    assert "d_stored = out1[" in source  # the NaN pass reads the stored output back
    got = exe(x)
    want = xlapy.run(module, x, platform="interpreter")
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert np.array_equal(np.isnan(g), np.isnan(w))
        # NaN signs aside (a pre-existing difference of negate/divide on NaNs), bit for bit
        keep = ~np.isnan(w)
        assert_bitwise(g[keep], w[keep], f"output {k}")
    assert np.isnan(got[0][[5, 9]]).all()


def test_attention_keeps_one_score_buffer() -> None:
    batch, seq, depth = 4, 256, 16
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((batch, seq, depth)).astype(np.float32) for _ in range(3))
    exe = xlapy.compile(attention(batch, seq, depth), platform="cpu")
    exe(q, k, v)
    scores = batch * seq * seq * 4
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        exe(q, k, v)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * scores, f"peak {peak} bytes for scores of {scores} bytes"
