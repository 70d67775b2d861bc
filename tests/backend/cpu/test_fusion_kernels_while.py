"""While loops compiled whole vs the interpreter: scalar fori-loops, array states updated
with dynamic-update-slice (scan-like), conditions with reductions, bodies with nested fusions
and calls, a non-tuple state, bodies with BLAS products and large states updated through a
window; and the loops that stay with the generic plan loop."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import assert_bitwise
from xlapy.backend.cpu.kernel import CompileOptions, NoKernel, RunContext
from xlapy.backend.cpu.kernels.while_loop import while_kernel
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_parser import parse_hlo


def run_while(text: str, state):  # type: ignore[no-untyped-def]
    """``(kernel value, interpreter value, kernel)`` of the entry's while on ``state``."""
    module = parse_hlo(text)
    (instr,) = [i for i in module.entry.instructions if i.opcode is Opcode.WHILE]
    kernel = while_kernel(instr, CompileOptions())
    evaluator = Evaluator(module, device=DeviceState())
    want = evaluator.evaluate(instr, [state])
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    return kernel.run([state], ctx), want, kernel


FORI = """HloModule fori

body {
  state = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  c = f32[] get-tuple-element(state), index=1
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  decay = f32[] constant(0.999)
  scaled = f32[] multiply(c, decay)
  one_f = f32[] constant(1)
  next_c = f32[] add(scaled, one_f)
  ROOT next = (s32[], f32[]) tuple(next_i, next_c)
}

condition {
  state = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(10000)
  ROOT lt = pred[] compare(i, limit), direction=LT
}

ENTRY main {
  c = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, c)
  ROOT loop = (s32[], f32[]) while(init), condition=condition, body=body
}
"""


def test_scalar_fori_loop_is_one_kernel_and_bit_exact() -> None:
    state = (np.array(0, np.int32), np.array(0.5, np.float32))
    got, want, kernel = run_while(FORI, state)
    assert_bitwise(got[0], want[0], "counter")
    assert_bitwise(got[1], want[1], "carry")
    assert kernel.exact
    assert "while True:" in kernel.source
    assert "numba whole loop" in kernel.how


SCAN = """HloModule scan

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

step {
  x = f32[8] parameter(0)
  h = f32[8] parameter(1)
  sum = f32[8] add(x, h)
  ROOT t = f32[8] tanh(sum)
}

body {
  state = (s32[], f32[8], f32[20,8], f32[20,8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  h = f32[8] get-tuple-element(state), index=1
  xs = f32[20,8] get-tuple-element(state), index=2
  ys = f32[20,8] get-tuple-element(state), index=3
  zero = s32[] constant(0)
  row = f32[1,8] dynamic-slice(xs, i, zero), dynamic_slice_sizes={1,8}
  x = f32[8] reshape(row)
  new_h = f32[8] fusion(x, h), kind=kLoop, calls=step
  new_row = f32[1,8] reshape(new_h)
  new_ys = f32[20,8] dynamic-update-slice(ys, new_row, i, zero)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[8], f32[20,8], f32[20,8]) tuple(next_i, new_h, xs, new_ys)
}

condition {
  state = (s32[], f32[8], f32[20,8], f32[20,8]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  h = f32[8] get-tuple-element(state), index=1
  limit = s32[] constant(20)
  more = pred[] compare(i, limit), direction=LT
  zero = f32[] constant(0)
  total = f32[] reduce(h, zero), dimensions={0}, to_apply=add
  cap = f32[] constant(100)
  small = pred[] compare(total, cap), direction=LT
  ROOT go = pred[] and(more, small)
}

ENTRY main {
  h = f32[8] parameter(0)
  xs = f32[20,8] parameter(1)
  ys = f32[20,8] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[8], f32[20,8], f32[20,8]) tuple(zero, h, xs, ys)
  ROOT loop = (s32[], f32[8], f32[20,8], f32[20,8]) while(init), condition=condition, body=body
}
"""


def test_scan_with_array_state_dynamic_update_slice_and_a_reducing_condition() -> None:
    rng = np.random.default_rng(0)
    state = (
        np.array(0, np.int32),
        rng.standard_normal(8).astype(np.float32),
        rng.standard_normal((20, 8)).astype(np.float32),
        np.zeros((20, 8), np.float32),
    )
    got, want, kernel = run_while(SCAN, state)
    assert_bitwise(got[0], want[0], "counter")
    assert_bitwise(got[2], want[2], "xs (unchanged)")
    np.testing.assert_allclose(got[1], want[1], rtol=3e-7, atol=1e-7)  # f32 tanh: 2 ulp
    np.testing.assert_allclose(got[3], want[3], rtol=3e-7, atol=1e-7)
    assert not kernel.exact


def test_a_non_tuple_state() -> None:
    text = """HloModule m
body {
  x = u32[4] parameter(0)
  one = u32[] constant(3)
  ones = u32[4] broadcast(one), dimensions={}
  ROOT y = u32[4] multiply(x, ones)
}
condition {
  x = u32[4] parameter(0)
  first = u32[1] slice(x), slice={[0:1]}
  v = u32[] reshape(first)
  limit = u32[] constant(1000000)
  ROOT lt = pred[] compare(v, limit), direction=LT
}
ENTRY main {
  x = u32[4] parameter(0)
  ROOT loop = u32[4] while(x), condition=condition, body=body
}"""
    got, want, _ = run_while(text, np.array([1, 7, 2**31, 5], np.uint32))
    assert_bitwise(got, want, "u32 state (wrapping multiply)")


def test_loops_with_an_op_without_generator_or_a_large_state_stay_plans() -> None:
    dot = FORI.replace(
        "  scaled = f32[] multiply(c, decay)",
        "  scaled = f32[] dot(c, decay)",
    )
    module = parse_hlo(dot)
    (instr,) = [i for i in module.entry.instructions if i.opcode is Opcode.WHILE]
    with pytest.raises(NoKernel, match=r"dot scaled: not an f32/f64 product of"):
        while_kernel(instr, CompileOptions())
    # a large state element rewritten whole each iteration (not passed through, no window)
    large = SCAN.replace("20,8", "20000,8").replace(
        "tuple(next_i, new_h, xs, new_ys)", "tuple(next_i, new_h, xs, xs)"
    )
    module = parse_hlo(large)
    (instr,) = [i for i in module.entry.instructions if i.opcode is Opcode.WHILE]
    with pytest.raises(NoKernel, match="is large"):
        while_kernel(instr, CompileOptions())


RNN = """HloModule rnn

step {
  a = f32[4,16] parameter(0)
  x = f32[4,16] parameter(1)
  s = f32[4,16] add(a, x)
  ROOT t = f32[4,16] tanh(s)
}

body {
  state = (s32[], f32[4,16], f32[STEPS,4,16], f32[STEPS,4,16], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  h = f32[4,16] get-tuple-element(state), index=1
  xs = f32[STEPS,4,16] get-tuple-element(state), index=2
  ys = f32[STEPS,4,16] get-tuple-element(state), index=3
  w = f32[16,16] get-tuple-element(state), index=4
  hw = f32[4,16] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  neg = f32[4,16] negate(h)
  nw = f32[4,16] dot(neg, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  both = f32[4,16] add(hw, nw)
  hh = f32[4,16] dot(both, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = s32[] constant(0)
  shift = s32[] constant(SHIFT)
  at = s32[] add(i, shift)
  row = f32[1,4,16] dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,4,16}
  x = f32[4,16] reshape(row)
  new_h = f32[4,16] fusion(hh, x), kind=kLoop, calls=step
  new_row = f32[1,4,16] reshape(new_h)
  new_ys = f32[STEPS,4,16] dynamic-update-slice(ys, new_row, at, zero, zero)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (s32[], f32[4,16], f32[STEPS,4,16], f32[STEPS,4,16], f32[16,16]) tuple(next_i, new_h, xs, new_ys, w)
}

condition {
  state = (s32[], f32[4,16], f32[STEPS,4,16], f32[STEPS,4,16], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(STEPS)
  ROOT more = pred[] compare(i, limit), direction=LT
}

ENTRY main {
  h = f32[4,16] parameter(0)
  xs = f32[STEPS,4,16] parameter(1)
  ys = f32[STEPS,4,16] parameter(2)
  w = f32[16,16] parameter(3)
  zero = s32[] constant(0)
  init = (s32[], f32[4,16], f32[STEPS,4,16], f32[STEPS,4,16], f32[16,16]) tuple(zero, h, xs, ys, w)
  ROOT loop = (s32[], f32[4,16], f32[STEPS,4,16], f32[STEPS,4,16], f32[16,16]) while(init), condition=condition, body=body
}
"""


@pytest.mark.parametrize(
    ("steps", "shift"),
    [
        pytest.param(12, 0, id="scan"),
        pytest.param(12, 5, id="windows clamped at the end"),
        pytest.param(5000, 0, id="large state"),
    ],
)
def test_a_body_with_dots_runs_whole_and_updates_windows_in_place(steps: int, shift: int) -> None:
    """Dots of state arrays and of computed values run as BLAS statements of the loop; the
    stacked outputs are written a window per iteration, clamped as dynamic-update-slice is."""
    text = RNN.replace("SHIFT", str(shift)).replace("STEPS", str(steps))
    rng = np.random.default_rng(steps + shift)
    state = (
        np.array(0, np.int32),
        rng.standard_normal((4, 16)).astype(np.float32),
        rng.standard_normal((steps, 4, 16)).astype(np.float32),
        rng.standard_normal((steps, 4, 16)).astype(np.float32),
        (rng.standard_normal((16, 16)) * 0.2).astype(np.float32),
    )
    before = [np.copy(x) for x in state]
    got, want, kernel = run_while(text, state)
    assert "3 BLAS products" in kernel.how
    assert not kernel.exact
    for k in (0, 2, 4):
        assert_bitwise(got[k], want[k], f"state element {k}")
    for k in (1, 3):  # BLAS sums in its own order, then tanh
        np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=2e-6)
    for x, y in zip(state, before, strict=True):
        assert_bitwise(x, y, "the operand is never written")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(
            "hw = f32[4,16] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            "hw = s32[4,16] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            id="integer result",
        ),
        pytest.param(
            "w = f32[16,16] get-tuple-element(state), index=4",
            "w = f32[16,16] get-tuple-element(state), index=4\n"
            "  w3 = f32[4,4,16] reshape(h)\n"
            "  odd = f32[4,4,4] dot(w3, w3), lhs_batch_dims={1}, rhs_batch_dims={1}, "
            "lhs_contracting_dims={2}, rhs_contracting_dims={2}",
            id="batch dimension not leading",
        ),
    ],
)
def test_a_dot_blas_cannot_take_keeps_the_loop_on_plans(old: str, new: str) -> None:
    text = RNN.replace("SHIFT", "0").replace("STEPS", "3")
    assert old in text
    module = parse_hlo(text.replace(old, new))
    (instr,) = [i for i in module.entry.instructions if i.opcode is Opcode.WHILE]
    with pytest.raises(NoKernel, match="not an f32/f64 product"):
        while_kernel(instr, CompileOptions())
