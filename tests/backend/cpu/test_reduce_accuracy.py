"""Accuracy of generated float32 sums: they accumulate in float64 and round once, so a sum of
16384+ well-conditioned values (N(3, 1)) is within 2e-7 (relative) of the float64 sum and no
further from it than twice the interpreter's pairwise tree, in the row, column and split plans
and in a reduce inside a whole-loop while kernel (sequential f32 accumulation was 4e-6 off)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import run_root
from xlapy.backend.cpu.codegen import fusion_emitter
from xlapy.backend.cpu.kernel import CompileOptions, RunContext
from xlapy.backend.cpu.kernels.while_loop import while_kernel
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_parser import parse_hlo


@pytest.fixture(autouse=True)
def parallel_from_small_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parallel plans (split) at test sizes."""
    monkeypatch.setattr(fusion_emitter, "PARALLEL_WORK", 1 << 16)


ADD = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
"""


def sum_module(in_dims: tuple[int, ...], dims: tuple[int, ...], flush: bool = False) -> str:
    shape = f"f32[{','.join(map(str, in_dims))}]"
    out = f"f32[{','.join(str(n) for d, n in enumerate(in_dims) if d not in dims)}]"
    return f"""HloModule sum
{ADD}
fused (p0: {shape}) -> {out} {{
  p0 = {shape} parameter(0)
  zero = f32[] constant(0)
  ROOT r = {out} reduce(p0, zero), dimensions={{{",".join(map(str, dims))}}}, to_apply=add
}}

ENTRY main {{
  a = {shape} parameter(0)
  ROOT f = {out} fusion(a), kind=kInput, calls=fused
}}
"""


def relative_error(got: np.ndarray, exact: np.ndarray) -> float:
    return float(np.max(np.abs(got.astype(np.float64) - exact) / np.abs(exact)))


def assert_accurate(got: np.ndarray, interpreted: np.ndarray, exact: np.ndarray, what: str):
    __tracebackhide__ = True
    assert got.dtype == np.float32
    ours, theirs = relative_error(got, exact), relative_error(interpreted, exact)
    assert ours <= 2e-7, f"{what}: {ours:.2e} from the float64 sum"
    assert ours <= 2 * theirs, f"{what}: {ours:.2e}, interpreter {theirs:.2e}"


@pytest.mark.parametrize(
    ("in_dims", "dims", "plan"),
    [
        ((4, 16384), (1,), "row reduction"),
        ((16384, 8), (0,), "column reduction"),
        ((16, 32, 32, 32), (0, 1, 2), "column reduction"),
        ((2, 1 << 16), (1,), "split reduction"),
        ((128, 16, 32), (0, 1, 2), "split reduction"),
    ],
    ids=str,
)
def test_float32_sums_are_as_accurate_as_the_pairwise_tree(in_dims, dims, plan) -> None:
    x = np.random.default_rng(len(in_dims)).normal(3, 1, in_dims).astype(np.float32)
    got, want, kernel = run_root(sum_module(in_dims, dims), [x])
    assert plan in kernel.how
    assert_accurate(got, want, x.astype(np.float64).sum(axis=dims), f"{plan} {in_dims}")


def test_float32_sums_under_flush_denormals_are_accurate_and_flush_their_result() -> None:
    x = np.random.default_rng(5).normal(3, 1, (16384, 4)).astype(np.float32)
    x[:, 3] = np.float32(1e-39)  # subnormal elements read as zeros
    options = CompileOptions(flush_denormals=True)
    got, want, _ = run_root(sum_module(x.shape, (0,)), [x], options)
    exact = x[:, :3].astype(np.float64).sum(axis=0)
    assert_accurate(got[:3], want[:3], exact, "flushed column sums")
    assert got[3] == 0  # (the interpreter here runs without flushing)


WHILE = f"""HloModule loop
{ADD}
body {{
  state = (s32[], f32[16384], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  x = f32[16384] get-tuple-element(state), index=1
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  zero = f32[] constant(0)
  total = f32[] reduce(x, zero), dimensions={{0}}, to_apply=add
  ROOT next = (s32[], f32[16384], f32[]) tuple(next_i, x, total)
}}

condition {{
  state = (s32[], f32[16384], f32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  limit = s32[] constant(2)
  ROOT lt = pred[] compare(i, limit), direction=LT
}}

ENTRY main {{
  x = f32[16384] parameter(0)
  zero = s32[] constant(0)
  start = f32[] constant(0)
  init = (s32[], f32[16384], f32[]) tuple(zero, x, start)
  ROOT loop = (s32[], f32[16384], f32[]) while(init), condition=condition, body=body
}}
"""


def test_a_sum_inside_a_whole_loop_while_kernel_is_accurate() -> None:
    x = np.random.default_rng(9).normal(3, 1, 16384).astype(np.float32)
    module = parse_hlo(WHILE)
    (instr,) = [i for i in module.entry.instructions if i.opcode is Opcode.WHILE]
    kernel = while_kernel(instr, CompileOptions())
    evaluator = Evaluator(module, device=DeviceState())
    state = (np.array(0, np.int32), x, np.array(0, np.float32))
    want = evaluator.evaluate(instr, [state])
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    got = kernel.run([state], ctx)
    assert "numba whole loop" in kernel.how
    assert_accurate(got[2], want[2], np.array(x.astype(np.float64).sum()), "sum in a while body")
