"""Whole-loop while kernels with the dots of real RNN cells (a vmapped GRU's loop body, as
JAX writes it): products with transposed operands (``x @ w.T``, ``w.T @ x``), batched
products, and a multi-output fusion whose results feed two state elements (computed once per
element); all vs the interpreter."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import assert_bitwise
from tests.backend.cpu.test_fusion_kernels_while import run_while

CELL = """HloModule cell

cell {
  wx = f32[64,16] parameter(0)
  uh = f32[16,64] parameter(1)
  ut = f32[64,16] parameter(2)
  h = f32[16,64] parameter(3)
  wx_t = f32[16,64] transpose(wx), dimensions={1,0}
  ut_t = f32[16,64] transpose(ut), dimensions={1,0}
  sum0 = f32[16,64] add(wx_t, uh)
  sum1 = f32[16,64] add(sum0, ut_t)
  n = f32[16,64] tanh(sum1)
  d = f32[16,64] subtract(h, n)
  half = f32[] constant(0.5)
  halves = f32[16,64] broadcast(half), dimensions={}
  g = f32[16,64] multiply(d, halves)
  new_h = f32[16,64] add(n, g)
  ROOT out = (f32[16,64], f32[16,64]) tuple(new_h, n)
}

body {
  state = (s32[], f32[16,64], f32[STEPS,16,32], f32[STEPS,16,64], f32[64,32], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  h = f32[16,64] get-tuple-element(state), index=1
  xs = f32[STEPS,16,32] get-tuple-element(state), index=2
  ys = f32[STEPS,16,64] get-tuple-element(state), index=3
  w = f32[64,32] get-tuple-element(state), index=4
  u = f32[64,64] get-tuple-element(state), index=5
  zero = s32[] constant(0)
  row = f32[1,16,32] dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,16,32}
  x = f32[16,32] reshape(row)
  wx = f32[64,16] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  uh = f32[16,64] dot(h, u), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ut = f32[64,16] dot(u, h), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  f = (f32[16,64], f32[16,64]) fusion(wx, uh, ut, h), kind=kLoop, calls=cell
  new_h = f32[16,64] get-tuple-element(f), index=0
  n = f32[16,64] get-tuple-element(f), index=1
  y = f32[1,16,64] reshape(n)
  new_ys = f32[STEPS,16,64] dynamic-update-slice(ys, y, i, zero, zero)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[16,64], f32[STEPS,16,32], f32[STEPS,16,64], f32[64,32], f32[64,64]) tuple(next_i, new_h, xs, new_ys, w, u)
}

condition {
  state = (s32[], f32[16,64], f32[STEPS,16,32], f32[STEPS,16,64], f32[64,32], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(STEPS)
  ROOT more = pred[] compare(i, limit), direction=LT
}

ENTRY main {
  h = f32[16,64] parameter(0)
  xs = f32[STEPS,16,32] parameter(1)
  ys = f32[STEPS,16,64] parameter(2)
  w = f32[64,32] parameter(3)
  u = f32[64,64] parameter(4)
  zero = s32[] constant(0)
  init = (s32[], f32[16,64], f32[STEPS,16,32], f32[STEPS,16,64], f32[64,32], f32[64,64]) tuple(zero, h, xs, ys, w, u)
  ROOT loop = (s32[], f32[16,64], f32[STEPS,16,32], f32[STEPS,16,64], f32[64,32], f32[64,64]) while(init), condition=condition, body=body
}
"""


def test_transposed_products_and_a_shared_multi_output_fusion() -> None:
    """``w @ x.T``, ``h @ u.T`` and ``u.T @ h.T`` read transposed copies: of the weights
    ``u`` once before the loop (one copy for both products), of ``x`` and ``h`` each
    iteration; the fusion's two results (the new state and the scan output) come from one
    inlined cell per element."""
    steps = 9
    rng = np.random.default_rng(7)
    state = (
        np.array(0, np.int32),
        rng.standard_normal((16, 64)).astype(np.float32),
        rng.standard_normal((steps, 16, 32)).astype(np.float32),
        np.zeros((steps, 16, 64), np.float32),
        (rng.standard_normal((64, 32)) * 0.2).astype(np.float32),
        (rng.standard_normal((64, 64)) * 0.1).astype(np.float32),
    )
    got, want, kernel = run_while(CELL.replace("STEPS", str(steps)), state)
    assert "3 BLAS products" in kernel.how
    source = kernel.source
    for product in (
        r"np\.dot\(out4\.reshape\(\(64, 32\)\), x_array_t\.reshape\(\(32, 16\)\), wx\w*\.reshape",
        r"np\.dot\(out1\.reshape\(\(16, 64\)\), out5_t\.reshape\(\(64, 64\)\), uh\w*\.reshape",
        r"np\.dot\(out5_t\.reshape\(\(64, 64\)\), out1_t\.reshape\(\(64, 16\)\), ut\w*\.reshape",
    ):
        assert re.search(product, source), product
    assert source.count("= np.float32(tanh_f32(") == 1, "one cell for both results"
    loop = source.index("while True:")
    assert source.index("out5_t[") < loop, "the weights are transposed once"
    assert source.count("out5_t = np.empty") == 1
    for k in (0, 2, 4, 5):
        assert_bitwise(got[k], want[k], f"state element {k}")
    for k in (1, 3):  # BLAS sums in its own order, then tanh within a few ulp
        np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=2e-6)


BATCHED = """HloModule batched

body {
  state = (s32[], f32[3,8,16], f32[3,16,16]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  h = f32[3,8,16] get-tuple-element(state), index=1
  w = f32[3,16,16] get-tuple-element(state), index=2
  hw = f32[3,8,16] dot(h, w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  wh = f32[3,16,8] dot(w, h), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={2}
  wh_t = f32[3,8,16] transpose(wh), dimensions={0,2,1}
  s = f32[3,8,16] add(hw, wh_t)
  new_h = f32[3,8,16] tanh(s)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[3,8,16], f32[3,16,16]) tuple(next_i, new_h, w)
}

condition {
  state = (s32[], f32[3,8,16], f32[3,16,16]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(6)
  ROOT more = pred[] compare(i, limit), direction=LT
}

ENTRY main {
  h = f32[3,8,16] parameter(0)
  w = f32[3,16,16] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[3,8,16], f32[3,16,16]) tuple(zero, h, w)
  ROOT loop = (s32[], f32[3,8,16], f32[3,16,16]) while(init), condition=condition, body=body
}
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batched_products_run_one_blas_call_per_batch(dtype: type) -> None:
    text = BATCHED if dtype is np.float32 else BATCHED.replace("f32[", "f64[")
    rng = np.random.default_rng(3)
    state = (
        np.array(0, np.int32),
        rng.standard_normal((3, 8, 16)).astype(dtype),
        (rng.standard_normal((3, 16, 16)) * 0.2).astype(dtype),
    )
    got, want, kernel = run_while(text, state)
    assert "2 BLAS products" in kernel.how
    assert "for hw_batch in range(3):" in kernel.source
    source = kernel.source
    assert "np.dot(out2_t.reshape((3, 16, 16))[wh_batch], " in source
    assert source.index("for tb in range(3):") < source.index("while True:"), "w.T hoisted"
    assert_bitwise(got[0], want[0], "counter")
    assert_bitwise(got[2], want[2], "weights")
    rtol = 2e-5 if dtype is np.float32 else 1e-12
    np.testing.assert_allclose(got[1], want[1], rtol=rtol, atol=rtol / 10)


PROJECTION = """HloModule projection

row_of {
  xs = f32[STEPS,8,12] parameter(0)
  i = s32[] parameter(1)
  zero = s32[] constant(0)
  ds = f32[1,8,12] dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,8,12}
  ROOT x = f32[8,12] reshape(ds)
}

body {
  state = (s32[], f32[8,16], f32[STEPS,8,12], f32[12,16], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  h = f32[8,16] get-tuple-element(state), index=1
  xs = f32[STEPS,8,12] get-tuple-element(state), index=2
  wx = f32[12,16] get-tuple-element(state), index=3
  wh = f32[16,16] get-tuple-element(state), index=4
  shift = s32[] constant(SHIFT)
  at = s32[] add(i, shift)
  x = f32[8,12] fusion(xs, at), kind=kLoop, calls=row_of
  xw = f32[8,16] dot(x, wx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  hw = f32[8,16] dot(h, wh), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  s = f32[8,16] add(xw, hw)
  new_h = f32[8,16] tanh(s)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[8,16], f32[STEPS,8,12], f32[12,16], f32[16,16]) tuple(next_i, new_h, xs, wx, wh)
}

condition {
  state = (s32[], f32[8,16], f32[STEPS,8,12], f32[12,16], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(STEPS)
  ROOT more = pred[] compare(i, limit), direction=LT
}

ENTRY main {
  h = f32[8,16] parameter(0)
  xs = f32[STEPS,8,12] parameter(1)
  wx = f32[12,16] parameter(2)
  wh = f32[16,16] parameter(3)
  zero = s32[] constant(0)
  init = (s32[], f32[8,16], f32[STEPS,8,12], f32[12,16], f32[16,16]) tuple(zero, h, xs, wx, wh)
  ROOT loop = (s32[], f32[8,16], f32[STEPS,8,12], f32[12,16], f32[16,16]) while(init), condition=condition, body=body
}
"""


@pytest.mark.parametrize("shift", [0, 3], ids=["scan", "rows clamped at the end"])
def test_a_projection_of_the_scanned_input_is_one_gemm_before_the_loop(shift: int) -> None:
    """``x_t @ wx`` with ``x_t`` a row of the unchanged input and ``wx`` unchanged runs for
    every row at once before the loop; the loop reads the row its (clamped) index selects."""
    steps = 7
    rng = np.random.default_rng(shift)
    state = (
        np.array(0, np.int32),
        rng.standard_normal((8, 16)).astype(np.float32),
        rng.standard_normal((steps, 8, 12)).astype(np.float32),
        (rng.standard_normal((12, 16)) * 0.3).astype(np.float32),
        (rng.standard_normal((16, 16)) * 0.2).astype(np.float32),
    )
    text = PROJECTION.replace("STEPS", str(steps)).replace("SHIFT", str(shift))
    got, want, kernel = run_while(text, state)
    source = kernel.source
    loop = source.index("while True:")
    hoisted = source.index("np.dot(out2.reshape((56, 12)), out3.reshape((12, 16)), xw")
    assert hoisted < loop
    assert source.count("np.dot(") == 2
    assert f"min(max(np.int64(at), 0), {steps - 1}) * 128" in source
    for k in (0, 2, 3, 4):
        assert_bitwise(got[k], want[k], f"state element {k}")
    np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=2e-6)
