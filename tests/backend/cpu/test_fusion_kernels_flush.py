"""Generated code under ``flush_denormals`` vs the interpreter's flush_denormals mode:
XLA:CPU's DAZ/FTZ (subnormal operands read as zeros of their sign, subnormal results become
zeros) in every elementwise op family, reductions and whole compiled programs, bit for bit
(the inline f32 exp/log/tanh/logistic and libm functions within ``MAX_ULP``, as without
flushing)."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from tests.backend.cpu.fusion_kernels_util import assert_bitwise, assert_ulp
from tests.backend.cpu.test_fusion_kernels_elementwise import MAX_ULP, fusion_text, operands
from xlapy import dtypes
from xlapy.backend.cpu.kernel import CompileOptions, RunContext
from xlapy.backend.cpu.kernels.elementwise import single_op_kernel
from xlapy.backend.cpu.kernels.fusion import fusion_kernel
from xlapy.dtypes import ElementType
from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_parser import parse_hlo

TINY32 = float(np.finfo(np.float32).tiny)


def run_flushed(text: str, args: list[np.ndarray], flush: bool = True):
    """``(kernel value, interpreter value, kernel)`` of the entry root, both flushing."""
    module = parse_hlo(text)
    root = module.entry.root
    factory = fusion_kernel if root.opcode is Opcode.FUSION else single_op_kernel
    kernel = factory(root, CompileOptions(flush_denormals=flush))
    evaluator = Evaluator(module, EvalOptions(flush_denormals=flush), DeviceState())
    want = evaluator.evaluate(root, [np.copy(a) for a in args])
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    got = kernel.run([np.copy(a) for a in args], ctx)
    return got, want, kernel


@pytest.mark.parametrize(
    "t", [dtypes.F32, dtypes.F64, dtypes.BF16, dtypes.F16], ids=lambda t: t.name
)
def test_every_elementwise_op_flushes_as_the_interpreter(t: ElementType) -> None:
    args = operands(t)
    text, names = fusion_text(t, args[0].size)
    got, want, kernel = run_flushed(text, args)
    assert "flush_f" in (kernel.source or "") or t is dtypes.F16
    for name, g, w in zip(names, got, want, strict=True):
        what = f"{name} on {t.name} with flush_denormals"
        bound = MAX_ULP.get((name, t))
        if bound is None or not dtypes.from_numpy(w.dtype).is_float:
            assert_bitwise(g, w, what)
        else:
            assert_ulp(g, w, bound, what, args[0], args[1])


def test_flushing_changes_what_it_should() -> None:
    """Subnormal operands read as signed zeros, subnormal results become signed zeros; sign
    ops, select and f32 -> bf16 keep the bits."""
    sub = np.float32(3e-39)  # subnormal
    x = np.array([sub, -sub, 1e-20, -1e-20, 1.5, TINY32], np.float32)
    y = np.array([1.0, 1.0, 1e-19, 1e-19, -2.0, -0.5], np.float32)
    text = """HloModule m
fused (p0: f32[6], p1: f32[6]) -> (f32[6], f32[6], f32[6], pred[6], bf16[6], f32[6]) {
  p0 = f32[6] parameter(0)
  p1 = f32[6] parameter(1)
  add = f32[6] add(p0, p0)
  mul = f32[6] multiply(p0, p1)
  neg = f32[6] negate(p0)
  gt = pred[6] compare(p0, p1), direction=GT
  half = bf16[6] convert(p0)
  ROOT out = (f32[6], f32[6], f32[6], pred[6], bf16[6], f32[6]) tuple(add, mul, neg, gt, half, p0)
}
ENTRY e {
  a = f32[6] parameter(0)
  b = f32[6] parameter(1)
  ROOT f = (f32[6], f32[6], f32[6], pred[6], bf16[6], f32[6]) fusion(a, b), kind=kLoop, calls=fused
}"""
    got, want, _ = run_flushed(text, [x, y])
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_bitwise(g, w, f"output {k}")
    add, mul, neg, gt, half, same = got
    assert np.signbit(add[:2]).tolist() == [False, True]
    assert add[:2].tolist() == [0.0, 0.0]
    assert mul[2:4].tolist() == [0.0, 0.0]  # 1e-39 is flushed
    assert np.signbit(mul[3])
    assert neg[0] == -sub  # negate works on the bits
    assert not gt[0]  # the subnormal reads as 0 > 1.0: False (and -sub > 1.0 as well)
    assert half.view(np.uint16)[0] != 0  # f32 -> bf16 keeps the subnormal (no FPU convert)
    assert same.tobytes() == x.tobytes()  # a parameter passed through keeps its bits
    plain, _, _ = run_flushed(text, [x, y], flush=False)
    assert plain[0][0] == 2 * sub
    assert plain[1][2] != 0


def reduce_text(t: str, op: str, n: int, rows: int, column: bool = False) -> str:
    """``op``-reduce of each row of a ``rows x n`` input (with ``column``, of each column
    of its ``n x rows`` transpose: the column plan)."""
    init = {"maximum": "-inf", "minimum": "inf", "add": "0", "multiply": "1"}[op]
    text = f"""HloModule m
r (a: {t}[], b: {t}[]) -> {t}[] {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] {op}(a, b)
}}
fused (p0: {t}[{rows},{n}]) -> {t}[{rows}] {{
  p0 = {t}[{rows},{n}] parameter(0)
  i = {t}[] constant({init})
  ROOT s = {t}[{rows}] reduce(p0, i), dimensions={{1}}, to_apply=r
}}
ENTRY e {{
  a = {t}[{rows},{n}] parameter(0)
  ROOT f = {t}[{rows}] fusion(a), kind=kInput, calls=fused
}}"""
    if column:
        text = text.replace(f"[{rows},{n}]", f"[{n},{rows}]").replace(
            "dimensions={1}", "dimensions={0}"
        )
    return text


@pytest.mark.parametrize("t", ["f32", "f64", "bf16"])
@pytest.mark.parametrize("op", ["maximum", "minimum", "add", "multiply"])
def test_reductions_flush_every_step(t: str, op: str) -> None:
    """Rows whose result does not depend on the summation order: subnormals that read as
    zeros (of both signs), a pair whose sum is subnormal, a NaN, small integers."""
    dtype = dtypes.from_name(t).numpy
    tiny = float(np.finfo(np.float64 if t == "f64" else np.float32).tiny)
    rows = [
        [tiny / 4, tiny / 8, -tiny / 2, tiny / 16],
        [-tiny / 4, -tiny / 8, -0.0, -tiny / 2],
        [1.5 * tiny, -tiny, 0.0, 0.0] if op == "add" else [1.5 * tiny, 0.5, 1.0, 1.0],
        [2.0, 3.0, -1.0, 4.0],
        [1.0, np.nan, 2.0, tiny / 2],
        [tiny / 2, 0.5, 2.0, -tiny / 4],
    ]
    x = np.array(rows, dtype=np.float64).astype(dtype)
    for column in (False, True):
        text = reduce_text(t, op, 4, len(rows), column)
        data = np.ascontiguousarray(x.T) if column else x
        got, want, kernel = run_flushed(text, [data])
        assert ("column" in kernel.how) == column
        assert_bitwise(got, want, f"{op} reduction of {t} with flush_denormals")
        plain, _, _ = run_flushed(text, [data], flush=False)
        assert got.tobytes() != plain.tobytes()  # the rows of subnormals flushed


def test_split_reduction_flushes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long maximum cut into chunks reduced in parallel, then combined: subnormals read as
    zeros in both phases (a row of subnormals and zeros has the maximum +0)."""
    from xlapy.backend.cpu.codegen import fusion_emitter

    monkeypatch.setattr(fusion_emitter, "PARALLEL_WORK", 0)
    n = 1 << 16
    x = np.zeros((2, n), np.float32)
    x[0, ::7] = np.float32(3e-39)
    x[0, 5] = -np.float32(1e-39)
    x[1] = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    x[1, 1000] = np.float32(2e-39)
    got, want, kernel = run_flushed(reduce_text("f32", "maximum", n, 2), [x])
    assert "split" in kernel.how
    assert_bitwise(got, want, "split maximum with flush_denormals")
    assert got[0] == 0
    assert not np.signbit(got[0])


def test_argmax_reducer_body_flushes_its_compare() -> None:
    """A variadic (value, index) reducer generated inline: its compares read subnormals as
    zeros, so the first of several equal (flushed) values wins."""
    sub = 1e-39
    x = np.array([[sub, 2 * sub, 0.0, 3 * sub], [-1.0, sub, -sub, -2.0]], np.float32)
    idx = np.tile(np.arange(4, dtype=np.int32), (2, 1))
    text = """HloModule m
r (a: f32[], i: s32[], b: f32[], j: s32[]) -> (f32[], s32[]) {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, a, b)
  k = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
ENTRY e {
  x = f32[2,4] parameter(0)
  n = s32[2,4] parameter(1)
  lo = f32[] parameter(2)
  z = s32[] parameter(3)
  ROOT a = (f32[2], s32[2]) reduce(x, n, lo, z), dimensions={1}, to_apply=r
}"""
    inits = [np.array(-np.inf, np.float32), np.array(0, np.int32)]
    got, want, _ = run_flushed(text, [x, idx, *inits])
    for g, w in zip(got, want, strict=True):
        assert_bitwise(g, w, "argmax with flush_denormals")


def test_compiled_program_with_flush_runs_no_interpreter_evals() -> None:
    """A program of fusions, a reduction and a dot compiles whole under flush_denormals and
    equals the interpreter's flush_denormals run bit for bit (integer-valued floats, so the
    dot's summation order does not matter)."""
    text = """HloModule p
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[16,8] parameter(0)
  w = f32[8,4] parameter(1)
  s = f32[] constant(1e-30)
  sb = f32[16,8] broadcast(s), dimensions={}
  small = f32[16,8] multiply(x, sb)
  back = f32[16,8] divide(small, sb)
  d = f32[16,4] dot(back, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  m = f32[16] reduce(d, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[16,4], f32[16]) tuple(d, m)
}"""
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, (16, 8)).astype(np.float32)
    x[::3] *= np.float32(1e-9)  # times 1e-30 is subnormal: flushed, then 0 / 1e-30 = 0
    w = rng.integers(-2, 3, (8, 4)).astype(np.float32)
    module = xlapy.load(text)
    want = xlapy.run(module, x, w, flush_denormals=True, platform="interpreter")
    exe = xlapy.compile(module, platform="cpu", flush_denormals=True)
    got = exe(x, w)
    for k, (g, w_) in enumerate(zip(got, want, strict=True)):
        assert_bitwise(np.asarray(g), np.asarray(w_), f"output {k}")
    assert not np.any(got[0][::3])
    assert np.any(got[0])
    report = exe.report()
    assert " 0 interpreter evals" in report, report
    assert "flush" not in report.split("\n", 3)[-1], report


def windows_text(t: str) -> str:
    return f"""HloModule w
add {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] add(a, b)
}}
max {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] maximum(a, b)
}}
ge {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}}
ENTRY e {{
  x = {t}[6,8] parameter(0)
  s = {t}[3,4] parameter(1)
  zero = {t}[] constant(0)
  lo = {t}[] constant(-inf)
  sums = {t}[6,8] reduce-window(x, zero), window={{size=2x3 pad=0_1x1_1}}, to_apply=add
  maxs = {t}[3,4] reduce-window(x, lo), window={{size=2x2 stride=2x2}}, to_apply=max
  back = {t}[6,8] select-and-scatter(x, s, zero), window={{size=2x2 stride=2x2}}, select=ge, scatter=add
  ROOT t = ({t}[6,8], {t}[3,4], {t}[6,8]) tuple(sums, maxs, back)
}}"""


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_window_kernels_flush_as_the_interpreter(t: str) -> None:
    """reduce-window sums and maxima and select-and-scatter over windows of subnormals of
    both signs (which compare equal once read as zeros: the first cell is selected)."""
    dtype = np.dtype(np.float32 if t == "f32" else np.float64)
    tiny = float(np.finfo(dtype).tiny)
    rng = np.random.default_rng(4)
    x = (rng.integers(-3, 4, (6, 8)) * tiny / 8).astype(dtype)  # subnormals and zeros
    x[0, :4] = [1.0, tiny / 2, -2.0, 3 * tiny]
    s = (rng.integers(1, 4, (3, 4)) * tiny / 4).astype(dtype)
    s[0, 0] = 1.5 * tiny
    module = xlapy.load(windows_text(t))
    want = xlapy.run(module, x, s, flush_denormals=True, platform="interpreter")
    exe = xlapy.compile(module, platform="cpu", flush_denormals=True)
    got = exe(x, s)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_bitwise(np.asarray(g), np.asarray(w), f"output {k} on {t}")
    assert " 0 interpreter evals" in exe.report()
    plain = xlapy.run(module, x, s, platform="interpreter")
    assert any(a.tobytes() != b.tobytes() for a, b in zip(got, plain, strict=True))


def test_float_while_loop_compiles_whole_and_flushes() -> None:
    """A loop halving f32 values into the subnormal range, summing them as it goes: the whole
    loop is one kernel under flush_denormals and equals the interpreter's flush mode."""
    text = """HloModule w
cond {
  s = (s32[], f32[8], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(140)
  ROOT c = pred[] compare(i, n), direction=LT
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
body {
  s = (s32[], f32[8], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8] get-tuple-element(s), index=1
  t = f32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  half = f32[] constant(0.5)
  h = f32[8] broadcast(half), dimensions={}
  y = f32[8] multiply(x, h)
  zero = f32[] constant(0)
  r = f32[] reduce(y, zero), dimensions={0}, to_apply=add
  u = f32[] add(t, r)
  ROOT o = (s32[], f32[8], f32[]) tuple(j, y, u)
}
ENTRY e {
  x = f32[8] parameter(0)
  z = s32[] constant(0)
  t = f32[] constant(0)
  s = (s32[], f32[8], f32[]) tuple(z, x, t)
  ROOT w = (s32[], f32[8], f32[]) while(s), condition=cond, body=body
}"""
    x = np.array([1.0, -3.0, 2.0**-100, -(2.0**-110), 7.0, 0.0, -0.0, 2.0**-120], np.float32)
    module = xlapy.load(text)
    want = xlapy.run(module, x, flush_denormals=True, platform="interpreter")
    exe = xlapy.compile(module, platform="cpu", flush_denormals=True)
    got = exe(x)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_bitwise(np.asarray(g), np.asarray(w), f"output {k}")
    assert "whole loop" in exe.report()
    assert "flush" not in exe.report().split("\n", 1)[1]  # past the header
    assert np.signbit(got[1]).tolist() == np.signbit(x).tolist()
    assert not np.any(got[1])  # every value halved down to a flushed signed zero
