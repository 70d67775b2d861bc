"""Generated fusion kernels vs the interpreter: data movement (broadcast, reshape, bitcast,
transpose, slice, reverse, concatenate, pad, iota, dynamic-slice, dynamic-update-slice,
constants, get-tuple-element of tuples) bit for bit on several element types, multi-output
loop fusions, and the fusions of XLA's own optimized programs in ``examples/``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import assert_bitwise, build, run_root
from xlapy import dtypes
from xlapy.backend.cpu.kernel import CompileOptions, NoKernel, RunContext
from xlapy.backend.cpu.kernels.fusion import fusion_kernel
from xlapy.dtypes import ElementType
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.opcode import Opcode
from xlapy.loader import load

ROOT = Path(__file__).resolve().parents[3]

MOVEMENT = """HloModule movement_{t}

fused (p0: {t}[4,6], p1: {t}[6,4], p2: {t}[24], p3: {t}[2,6], p4: s32[], p5: {t}[8,12], p6: {t}[6], p7: u8[]) -> ({t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6]) {{
  p0 = {t}[4,6] parameter(0)
  p1 = {t}[6,4] parameter(1)
  p2 = {t}[24] parameter(2)
  p3 = {t}[2,6] parameter(3)
  p4 = s32[] parameter(4)
  p5 = {t}[8,12] parameter(5)
  p6 = {t}[6] parameter(6)
  p7 = u8[] parameter(7)
  transpose = {t}[4,6] transpose(p1), dimensions={{1,0}}
  reshape = {t}[4,6] reshape(p2)
  reverse = {t}[4,6] reverse(p0), dimensions={{0,1}}
  slice = {t}[4,6] slice(p5), slice={{[1:8:2], [0:12:2]}}
  concatenate = {t}[4,6] concatenate(p3, p3), dimensions={{0}}
  zero = {t}[] constant({zero})
  pad = {t}[4,6] pad(p3, zero), padding=1_0_1x-1_1
  broadcast = {t}[4,6] broadcast(p6), dimensions={{1}}
  dynamic-slice = {t}[4,6] dynamic-slice(p5, p4, p7), dynamic_slice_sizes={{4,6}}
  zero32 = s32[] constant(0)
  dynamic-update-slice = {t}[4,6] dynamic-update-slice(p0, p3, p4, zero32)
  table = {t}[4,6] constant({table})
  chain.1 = {t}[6,4] transpose(reverse), dimensions={{1,0}}
  chain.2 = {t}[24] reshape(chain.1)
  chain = {t}[4,6] reshape(chain.2)
  pair = ({t}[4,6], {t}[4,6]) tuple(p0, slice)
  picked = {t}[4,6] get-tuple-element(pair), index=1
  bitcast = {t}[4,6]{{1,0}} bitcast(p2)
  ROOT out = ({t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6]) tuple(transpose, reshape, reverse, slice, concatenate, pad, broadcast, dynamic-slice, dynamic-update-slice, table, chain, picked, bitcast)
}}

ENTRY main {{
  a = {t}[4,6] parameter(0)
  b = {t}[6,4] parameter(1)
  c = {t}[24] parameter(2)
  d = {t}[2,6] parameter(3)
  e = s32[] parameter(4)
  f = {t}[8,12] parameter(5)
  g = {t}[6] parameter(6)
  h = u8[] parameter(7)
  ROOT fusion = ({t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6], {t}[4,6]) fusion(a, b, c, d, e, f, g, h), kind=kLoop, calls=fused
}}
"""
NAMES = (
    "transpose", "reshape", "reverse", "slice", "concatenate", "pad", "broadcast",
    "dynamic-slice", "dynamic-update-slice", "constant", "transpose-reshape chain",
    "get-tuple-element", "bitcast",
)  # fmt: skip


def values(t: ElementType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if t.is_pred:
        return rng.random(shape) < 0.5
    if t.is_float:
        return rng.standard_normal(shape).astype(t.numpy)
    info = np.iinfo(t.numpy)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=t.numpy)


def literal(array: np.ndarray) -> str:
    rows = ["{" + ", ".join(str(v).lower() for v in row) + "}" for row in array.tolist()]
    return "{" + ", ".join(rows) + "}"


@pytest.mark.parametrize(
    "t",
    [
        dtypes.F32,
        dtypes.F64,
        dtypes.BF16,
        dtypes.F16,
        dtypes.S8,
        dtypes.U16,
        dtypes.S64,
        dtypes.PRED,
    ],
    ids=str,
)
@pytest.mark.parametrize("offsets", [(1, 3), (-5, 200), (7, 0)], ids=str)
def test_data_movement_is_bit_exact(t: ElementType, offsets: tuple[int, int]) -> None:
    rng = np.random.default_rng(len(t.name) + abs(offsets[0]))
    table = values(t, (4, 6), rng)
    zero = "false" if t.is_pred else "0"
    text = MOVEMENT.format(t=t.name, zero=zero, table=literal(table))
    args = [values(t, shape, rng) for shape in ((4, 6), (6, 4), (24,), (2, 6))] + [
        np.int32(offsets[0]).reshape(()),
        values(t, (8, 12), rng),
        values(t, (6,), rng),
    ]
    args.append(np.uint8(offsets[1]).reshape(()))
    got, want, kernel = run_root(text, args)
    for name, g, w in zip(NAMES, got, want, strict=True):
        assert_bitwise(g, w, f"{name} on {t.name}, offsets {offsets}")
    assert kernel.exact
    assert "numba loop fusion" in kernel.how


def test_scalar_constants_are_inline_and_array_constants_are_arguments() -> None:
    text = """HloModule m
fused (p0: f32[3]) -> f32[3] {
  p0 = f32[3] parameter(0)
  c = f32[3] constant({1.5, -0, inf})
  s = f32[] constant(-0.25)
  b = f32[3] broadcast(s), dimensions={}
  m = f32[3] multiply(p0, c)
  ROOT r = f32[3] add(m, b)
}
ENTRY e {
  a = f32[3] parameter(0)
  ROOT f = f32[3] fusion(a), kind=kLoop, calls=fused
}"""
    got, want, kernel = run_root(text, [np.array([2.0, 3.0, -1.0], np.float32)])
    assert_bitwise(got, want, "constants")
    assert "np.float32(-0.25)" in kernel.source
    assert "c0[U(i0)]" in kernel.source  # the array constant is an argument


def test_loop_invariant_elements_are_hoisted_out_of_inner_loops() -> None:
    """A row broadcast is read once per row, not once per element (the loop emitter places
    each statement in the innermost loop its inputs depend on)."""
    text = """HloModule m
fused (p0: f32[64,128], p1: f32[64]) -> f32[64,128] {
  p0 = f32[64,128] parameter(0)
  p1 = f32[64] parameter(1)
  e = f32[64] exponential(p1)
  b = f32[64,128] broadcast(e), dimensions={0}
  ROOT r = f32[64,128] multiply(p0, b)
}
ENTRY e {
  a = f32[64,128] parameter(0)
  c = f32[64] parameter(1)
  ROOT f = f32[64,128] fusion(a, c), kind=kLoop, calls=fused
}"""
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal((64, 128)).astype(np.float32),
        rng.standard_normal(64).astype(np.float32),
    ]
    got, want, kernel = run_root(text, args)
    np.testing.assert_allclose(got, want, rtol=5e-7)
    lines = kernel.source.splitlines()
    inner = next(i for i, line in enumerate(lines) if "for i1 in range(128)" in line)
    exp_line = next(i for i, line in enumerate(lines) if "exp_f32" in line and "=" in line)
    assert exp_line < inner, kernel.source


def test_tuple_outputs_of_different_shapes_fall_back() -> None:
    text = """HloModule m
fused (p0: f32[4]) -> (f32[4], f32[2]) {
  p0 = f32[4] parameter(0)
  s = f32[2] slice(p0), slice={[0:2]}
  ROOT t = (f32[4], f32[2]) tuple(p0, s)
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT f = (f32[4], f32[2]) fusion(a), kind=kLoop, calls=fused
}"""
    with pytest.raises(NoKernel, match="outputs of different shapes"):
        build(text)


def test_an_op_without_a_generator_names_itself() -> None:
    text = """HloModule m
fused (p0: f32[4,4], p1: f32[4,4]) -> f32[4,4] {
  p0 = f32[4,4] parameter(0)
  p1 = f32[4,4] parameter(1)
  ROOT d = f32[4,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[4,4] parameter(0)
  b = f32[4,4] parameter(1)
  ROOT f = f32[4,4] fusion(a, b), kind=kLoop, calls=fused
}"""
    with pytest.raises(NoKernel, match="dot d: no element generator"):
        build(text)


EXAMPLES = ("transformer", "mlp", "cnn", "integer_ops", "random_threefry", "control_flow")


def _random_operand(shape, rng: np.random.Generator) -> np.ndarray:
    t = shape.element_type
    if t.is_pred:
        return rng.random(shape.dims) < 0.5
    if t.is_integer:
        info = np.iinfo(t.numpy)
        return rng.integers(info.min, info.max, shape.dims, endpoint=True, dtype=t.numpy)
    return rng.standard_normal(shape.dims).astype(t.numpy)


@pytest.mark.parametrize("name", EXAMPLES)
def test_fusions_of_xla_optimized_programs(name: str) -> None:
    """Every fusion of XLA's optimized program that compiles agrees with the interpreter:
    bit for bit for integers and pred, within float reassociation/fast-math bounds."""
    module = load(ROOT / "examples" / f"{name}.opt.hlo")
    evaluator = Evaluator(module, device=DeviceState())
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    rng = np.random.default_rng(1)
    compiled = 0
    reasons: list[str] = []
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.opcode is not Opcode.FUSION:
                continue
            try:
                kernel = fusion_kernel(instr, CompileOptions())
            except NoKernel as exc:
                reasons.append(str(exc))
                continue
            args = [_random_operand(o.shape, rng) for o in instr.operands]
            want = evaluator.evaluate(instr, args)
            got = kernel.run(args, ctx)
            wants = want if isinstance(want, tuple) else (want,)
            gots = got if isinstance(got, tuple) else (got,)
            for g, w in zip(gots, wants, strict=True):
                if w.dtype.kind == "f" and not kernel.exact:
                    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=instr.name)
                else:
                    assert_bitwise(g, w, f"{name} {instr.name}")
            compiled += 1
    assert compiled > 0
    # Only ops other kernels own (dot, gather...), narrow types, or a cumulative window whose
    # init is not a constant (the scan kernel checks such inits at run time, outside fusions).
    allowed = ("no element generator", "interpreter", "init values that are not constants")
    for reason in reasons:
        assert any(why in reason for why in allowed), reason


def test_degenerate_broadcast_reads_size_one_dimensions_at_zero() -> None:
    """StableHLO's broadcast_in_dim stretches size-1 operand dimensions (``f32[2,1] ->
    f32[2,5]`` with dimensions={0,1})."""
    text = """HloModule m
fused (p0: f32[2,1], p1: f32[2,5]) -> f32[2,5] {
  p0 = f32[2,1] parameter(0)
  p1 = f32[2,5] parameter(1)
  b = f32[2,5] broadcast(p0), dimensions={0,1}
  ROOT r = f32[2,5] subtract(p1, b)
}
ENTRY e {
  a = f32[2,1] parameter(0)
  c = f32[2,5] parameter(1)
  ROOT f = f32[2,5] fusion(a, c), kind=kLoop, calls=fused
}"""
    rng = np.random.default_rng(3)
    args = [
        rng.standard_normal((2, 1)).astype(np.float32),
        rng.standard_normal((2, 5)).astype(np.float32),
    ]
    got, want, _ = run_root(text, args)
    assert_bitwise(got, want, "degenerate broadcast")


GATHERS = [
    # table[ids]: rows of a [7,5] table, ids s32[4] (index_vector_dim past the end)
    (
        "f32[7,5]", "s32[4]", "f32[4,5]",
        "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
        "slice_sizes={1,5}",
    ),
    # 2-d starts, windows of 2x3, one index vector per row of s64[3,2]
    (
        "s8[6,8]", "s64[3,2]", "s8[3,2,3]",
        "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, "
        "index_vector_dim=1, slice_sizes={2,3}",
    ),
    # a batching dimension (take along axis 1 per batch), u32 indices
    (
        "u16[3,9]", "u32[3,4,1]", "u16[3,4]",
        "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=2, "
        "operand_batching_dims={0}, start_indices_batching_dims={0}, slice_sizes={1,1}",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("operand", "indices", "result", "attrs"), GATHERS)
def test_gather_reads_clamped_starts_from_its_indices(operand, indices, result, attrs) -> None:
    text = f"""HloModule m
fused (p0: {operand}, p1: {indices}) -> {result} {{
  p0 = {operand} parameter(0)
  p1 = {indices} parameter(1)
  ROOT g = {result} gather(p0, p1), {attrs}
}}
ENTRY e {{
  a = {operand} parameter(0)
  b = {indices} parameter(1)
  ROOT f = {result} fusion(a, b), kind=kLoop, calls=fused
}}"""
    module = load(text)
    shapes = [o.shape for o in module.entry.root.operands]
    rng = np.random.default_rng(11)
    table = values(shapes[0].element_type, shapes[0].dims, rng)
    t = shapes[1].element_type
    ids = rng.integers(0, 12, shapes[1].dims).astype(t.numpy)
    if t.is_signed:
        ids[..., 0] -= 3  # negative starts clamp to 0, large ones to the last window
    got, want, _ = run_root(text, [table, ids])
    assert_bitwise(got, want, f"gather {operand} by {indices}")


def test_a_donated_operand_read_only_at_the_stored_element_becomes_the_output() -> None:
    text = """HloModule m
fused (p0: f32[64,32], p1: f32[32]) -> (f32[64,32], f32[64,32]) {
  p0 = f32[64,32] parameter(0)
  p1 = f32[32] parameter(1)
  b = f32[64,32] broadcast(p1), dimensions={1}
  e = f32[64,32] exponential(p0)
  s = f32[64,32] add(e, b)
  n = f32[64,32] negate(p0)
  ROOT t = (f32[64,32], f32[64,32]) tuple(s, n)
}
ENTRY e {
  a = f32[64,32] parameter(0)
  c = f32[32] parameter(1)
  ROOT f = (f32[64,32], f32[64,32]) fusion(a, c), kind=kLoop, calls=fused
}"""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    row = rng.standard_normal(32).astype(np.float32)
    module = load(text)
    kernel = build(text)
    evaluator = Evaluator(module, device=DeviceState())
    want = evaluator.evaluate(module.entry.root, [x, row])
    donated = x.copy()
    ctx = RunContext(evaluator.device, evaluator, evaluator.call, donatable=frozenset({0}))
    got = kernel.run([donated, row], ctx)
    assert np.shares_memory(got[0], donated)  # the first output took the donated buffer
    # ... through the variant whose output is its operand's array (vectorizable by LLVM)
    assert "_in_place(in0, in1, out1):\n    out0 = in0" in kernel.source
    assert_bitwise(got[1], want[1], "negate, read from the donated operand")
    np.testing.assert_allclose(got[0], want[0], rtol=3e-7, atol=2e-6)  # exp(x) + b cancels
    ctx.donatable = frozenset()
    fresh = kernel.run([x, row], ctx)
    assert not np.shares_memory(fresh[0], x)
