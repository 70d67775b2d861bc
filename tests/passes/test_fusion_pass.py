"""fusion: loop and input fusion, duplication and reuse refusals, multi-output fusion, what is
never fused, XLA's printed form; text in, fusion structure out, values checked bit for bit.

``data/softmax.hlo`` and ``data/layernorm.hlo`` are what JAX prints
(``jax.jit(f).lower(x).as_text(dialect="hlo")`` for f32[4,8] inputs) for::

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def layernorm(x, scale, bias):  # statistics as flax's LayerNorm computes them
        mean = jnp.mean(x, axis=-1, keepdims=True)
        mean2 = jnp.mean(x * x, axis=-1, keepdims=True)
        var = jnp.maximum(mean2 - mean * mean, 0.0)
        return (x - mean) * jax.lax.rsqrt(var + 1e-6) * scale + bias
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pass_util import assert_same_results

import xlapy
from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import FusionKind
from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.passes.fusion import Fusion, FusionReport
from xlapy.passes.fusion_policy import FusionLimits, is_loop_op
from xlapy.passes.pass_manager import Pipeline, make_pass
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import print_hlo

DATA = Path(__file__).resolve().parent / "data"
LOOP_AND_INPUT = (FusionKind.LOOP, FusionKind.INPUT)
ANY_CONSTANT = FusionLimits(1 << 30, 1 << 30, 1 << 62)
ADD = "add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }"


def fuse(text: str, **options: object) -> tuple[HloModule, FusionReport]:
    """Runs the pass (verifying) on ``text``; checks that a second run changes nothing, that
    the fusions are clean and that the interpreter's results are bit-identical."""
    __tracebackhide__ = True
    original = xlapy.load(text)
    module = clone_module(original)
    fusion = Fusion(**options)  # type: ignore[arg-type]
    report = fusion.fuse(module)
    Pipeline([], verify=True).run(module)
    assert not Pipeline([fusion], verify=True).run(module), "a second run changed the module"
    assert_clean_fusions(module)
    assert_same_results(original, module)
    return module, report


def assert_clean_fusions(module: HloModule, ignore: frozenset[str] = frozenset()) -> None:
    """Every loop or input fusion (but those calling ``ignore``): parameter N is operand N
    and named param_N; the root is the output or a tuple of outputs; inside, loop ops and
    reduces only (reduces as outputs)."""
    __tracebackhide__ = True
    for instr in module.instructions():
        if instr.opcode is not Opcode.FUSION or instr.attrs.kind not in LOOP_AND_INPUT:
            continue
        if instr.attrs.calls.name in ignore:
            continue
        comp = instr.attrs.calls
        params = comp.parameters
        assert [p.parameter_number for p in params] == list(range(len(instr.operands)))
        for p, operand in zip(params, instr.operands, strict=True):
            assert re.fullmatch(rf"param_{p.parameter_number}(\.\d+)?", p.name), p.name
            assert p.shape == operand.shape
        root = comp.root
        outputs = root.operands if root.opcode is Opcode.TUPLE else [root]
        for i in comp.instructions:
            if i.opcode is Opcode.REDUCE:
                assert any(i is o for o in outputs), f"{i.name} is not an output"
            elif i.opcode is not Opcode.PARAMETER and i is not root:
                assert is_loop_op(i, ANY_CONSTANT), f"{i.name} is not a loop op"


def summary(module: HloModule, computation: str | None = None) -> list[str]:
    """The computation's instructions; a fusion as ``<kind>: <fused ops in order>``."""
    comp = module.entry if computation is None else module.computation(computation)
    result = []
    for instr in comp.instructions:
        if instr.opcode is Opcode.FUSION:
            fused = instr.attrs.calls.instructions
            ops = " ".join(i.opcode.value for i in fused if i.opcode is not Opcode.PARAMETER)
            result.append(f"{instr.attrs.kind.value}: {ops}")
        else:
            result.append(instr.opcode.value)
    return result


def fusion_instructions(module: HloModule) -> list[str]:
    return [i.opcode.value for i in module.instructions() if i.opcode is not Opcode.PARAMETER]


# ---- loop and input fusion ----------------------------------------------------------------


def test_elementwise_chain_with_broadcasts_is_one_loop_fusion():
    module, _ = fuse("""
HloModule m
ENTRY e {
  p = f32[4,8] parameter(0)
  q = f32[8] parameter(1)
  b = f32[4,8] broadcast(q), dimensions={1}
  a = f32[4,8] add(p, b)
  n = f32[4,8] negate(a)
  c = f32[] constant(2)
  cb = f32[4,8] broadcast(c), dimensions={}
  ROOT r = f32[4,8] multiply(n, cb)
}""")
    assert summary(module) == [
        "parameter",
        "parameter",
        "kLoop: broadcast add negate constant broadcast multiply",
    ]
    root = module.entry.root
    assert [o.name for o in root.operands] == ["p", "q"]  # parameters in operand order


def test_broadcast_and_elementwise_fuse_into_a_reduce_as_input_fusion():
    module, _ = fuse(f"""
HloModule m
{ADD}
ENTRY e {{
  p = f32[4,8] parameter(0)
  q = f32[8] parameter(1)
  b = f32[4,8] broadcast(q), dimensions={{1}}
  m = f32[4,8] multiply(p, b)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(m, z), dimensions={{1}}, to_apply=add
}}""")
    assert summary(module) == [
        "parameter",
        "parameter",
        "kInput: broadcast multiply constant reduce",
    ]
    assert module.entry.root.attrs.calls.root.opcode is Opcode.REDUCE
    assert summary(module, "add") == ["parameter", "parameter", "add"]  # the reducer is left alone


def test_variadic_reduce_takes_its_producers():
    module, _ = fuse("""
HloModule m
argmax {
  a = f32[] parameter(0)  i = s32[] parameter(1)  b = f32[] parameter(2)  j = s32[] parameter(3)
  g = pred[] compare(a, b), direction=GE
  v = f32[] select(g, a, b)
  k = s32[] select(g, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
ENTRY e {
  p = f32[4,8] parameter(0)
  n = f32[4,8] negate(p)
  io = s32[4,8] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[4], s32[4]) reduce(n, io, lo, zero), dimensions={1}, to_apply=argmax
  ROOT k = s32[4] get-tuple-element(r), index=1
}""")
    assert summary(module) == [
        "parameter",
        "kInput: negate iota constant constant reduce",
        "get-tuple-element",
    ]


def test_chain_longer_than_the_limit_is_split():
    ops = "\n".join(f"  n{k} = f32[8] negate(n{k - 1})" for k in range(1, 7))
    module, _ = fuse(
        f"HloModule m\nENTRY e {{\n  n0 = f32[8] parameter(0)\n{ops}\n}}",
        max_fused_instructions=4,
    )
    assert summary(module) == [
        "parameter",
        "kLoop: negate negate",
        "kLoop: negate negate negate negate",
    ]


# ---- duplication and reuse ----------------------------------------------------------------


def test_cheap_producer_with_two_users_is_duplicated():
    module, _ = fuse(
        """
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  n = f32[8] negate(p)
  one = f32[8] broadcast(f32[] constant(1)), dimensions={}
  a = f32[8] add(n, one)
  b = f32[8] multiply(n, n)
  ROOT t = (f32[8], f32[8]) tuple(a, b)
}""",
        multi_output=False,
    )
    assert summary(module) == [
        "parameter",
        "kLoop: negate constant broadcast add",
        "kLoop: negate multiply",
        "tuple",
    ]


def test_expensive_producer_used_twice_is_not_duplicated():
    text = """
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  e = f32[8] exponential(p)
  one = f32[8] broadcast(f32[] constant(1)), dimensions={}
  a = f32[8] add(e, one)
  b = f32[8] multiply(e, e)
  ROOT t = (f32[8], f32[8]) tuple(a, b)
}"""
    module, report = fuse(text, multi_output=False)
    assert summary(module) == [
        "parameter",
        "kLoop: exponential",
        "kLoop: constant broadcast add",
        "kLoop: multiply",
        "tuple",
    ]
    assert report.reasons("e", "a") == [
        "the producer is expensive and has other users: it would be computed twice"
    ]
    # With multi-output fusion the exponential joins one user as a second output instead.
    module, _ = fuse(text)
    assert fusion_instructions(module).count("exponential") == 1
    assert summary(module) == [
        "parameter",
        "kLoop: exponential constant broadcast add tuple",
        "get-tuple-element",
        "get-tuple-element",
        "kLoop: multiply",
        "tuple",
    ]


BROADCAST_OF_EXP = """
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  q = f32[4,8] parameter(1)
  e = f32[8] exponential(p)
  b = f32[4,8] broadcast(e), dimensions={1}
  ROOT r = f32[4,8] add(b, q)
}"""


def test_consumer_reading_an_expensive_producer_repeatedly_is_refused():
    module, report = fuse(BROADCAST_OF_EXP)
    assert summary(module) == [
        "parameter",
        "parameter",
        "kLoop: exponential",
        "kLoop: broadcast add",
    ]
    assert report.reasons("e", "fusion") == [
        "the consumer reads elements of the expensive producer more than once"
    ]
    # A cheap producer is fused even when its elements are read several times.
    module, _ = fuse(BROADCAST_OF_EXP.replace("exponential", "negate"))
    assert summary(module) == ["parameter", "parameter", "kLoop: negate broadcast add"]


@pytest.mark.parametrize(
    ("window", "fused"),
    [("size=3", False), ("size=2 stride=2", True), ("size=1 stride=2", True)],
)
def test_reduce_window_fuses_an_expensive_producer_only_without_overlap(window, fused):
    out = {"size=3": 6, "size=2 stride=2": 4, "size=1 stride=2": 4}[window]
    module, _ = fuse(f"""
HloModule m
{ADD}
ENTRY e {{
  p = f32[8] parameter(0)
  e = f32[8] exponential(p)
  z = f32[] constant(0)
  w = f32[{out}] reduce-window(e, z), window={{{window}}}, to_apply=add
  ROOT r = f32[{out}] negate(w)
}}""")
    expected = (
        ["kLoop: exponential constant reduce-window negate"]
        if fused
        else ["kLoop: exponential", "kLoop: constant reduce-window negate"]
    )
    assert summary(module) == ["parameter", *expected]


def test_reduce_over_a_broadcast_of_an_expensive_producer_is_refused():
    module, _ = fuse(f"""
HloModule m
{ADD}
ENTRY e {{
  p = f32[8] parameter(0)
  e = f32[8] exponential(p)
  b = f32[8,16] broadcast(e), dimensions={{0}}
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(b, z), dimensions={{1}}, to_apply=add
}}""")
    assert summary(module) == [
        "parameter",
        "kLoop: exponential",
        "kInput: broadcast constant reduce",
    ]


def test_expensive_producer_read_through_a_permutation_is_fused():
    module, _ = fuse("""
HloModule m
ENTRY e {
  p = f32[4,6] parameter(0)
  e = f32[4,6] exponential(p)
  t = f32[6,4] transpose(e), dimensions={1,0}
  r = f32[3,8] reshape(t)
  s = f32[3,4] slice(r), slice={[0:3], [0:8:2]}
  ROOT v = f32[3,4] reverse(s), dimensions={0}
}""")
    assert summary(module) == ["parameter", "kLoop: exponential transpose reshape slice reverse"]


def test_two_access_paths_to_an_expensive_producer_are_refused():
    module, _ = fuse("""
HloModule m
ENTRY e {
  p = f32[4,4] parameter(0)
  e = f32[4,4] exponential(p)
  t = f32[4,4] transpose(e), dimensions={1,0}
  ROOT r = f32[4,4] add(e, t)
}""")
    assert summary(module) == ["parameter", "kLoop: exponential", "kLoop: transpose add"]


def test_op_without_an_indexing_rule_is_never_fused():
    # A bitcast that reinterprets f32 as pairs of s16 has no indexing map.
    module, report = fuse("""
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  b = s16[8] bitcast(n)
  ROOT r = s16[8] add(b, b)
}""")
    assert summary(module) == ["parameter", "kLoop: negate", "bitcast", "kLoop: add"]
    assert "an indexing map is undefined (no indexing rule)" in report.reasons("b", "r")


# ---- multi-output -------------------------------------------------------------------------

MEAN_AND_SQUARES = """
HloModule m
ADD
ENTRY e {
  x = f32[4,8] parameter(0)
  z = f32[] constant(0)
  s = f32[4] reduce(x, z), dimensions={1}, to_apply=add
  xx = f32[4,8] multiply(x, x)
  sq = f32[_N_] reduce(xx, z), dimensions={_D_}, to_apply=add
  ROOT t = (f32[4], f32[_N_]) tuple(s, sq)
}""".replace("ADD", ADD)


def test_sibling_reduces_of_one_operand_share_a_multi_output_fusion():
    module, _ = fuse(MEAN_AND_SQUARES.replace("_N_", "4").replace("_D_", "1"))
    assert summary(module) == [
        "parameter",
        "kInput: constant reduce multiply reduce tuple",
        "get-tuple-element",
        "get-tuple-element",
        "tuple",
    ]
    fusion = module.entry.instructions[1]
    assert str(fusion.shape) == "(f32[4]{0}, f32[4]{0})"
    # Reducing other dimensions is another loop: no merge.
    module, _ = fuse(MEAN_AND_SQUARES.replace("_N_", "8").replace("_D_", "0"))
    assert summary(module) == [
        "parameter",
        "kInput: constant reduce",
        "kInput: multiply constant reduce",
        "tuple",
    ]


def test_producer_merges_as_an_output_only_without_another_path():
    # e feeds s (a reduce) and, through s, r: merging e into r would need s inside r.
    module, report = fuse(f"""
HloModule m
{ADD}
ENTRY e {{
  p = f32[4,8] parameter(0)
  e = f32[4,8] exponential(p)
  z = f32[] constant(0)
  s = f32[4] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[4,8] broadcast(s), dimensions={{0}}
  ROOT r = f32[4,8] divide(e, sb)
}}""")
    assert summary(module) == [
        "parameter",
        "kInput: exponential constant reduce tuple",
        "get-tuple-element",
        "get-tuple-element",
        "kLoop: broadcast divide",
    ]
    assert report.refusals  # the exponential was not duplicated into the divide's fusion


def test_softmax_from_jax_is_one_fusion_per_reduction_plus_the_epilogue():
    module, _ = fuse((DATA / "softmax.hlo").read_text())
    assert summary(module) == [
        "parameter",
        "kInput: constant reduce",
        "kInput: constant broadcast maximum reshape broadcast reshape broadcast subtract "
        "exponential constant reduce tuple",
        "get-tuple-element",
        "get-tuple-element",
        "kLoop: reshape broadcast reshape broadcast divide",
    ]
    assert fusion_instructions(module).count("exponential") == 1


def test_layernorm_from_jax_computes_mean_and_variance_in_one_fusion():
    module, _ = fuse((DATA / "layernorm.hlo").read_text())
    kinds = [s.split(":")[0] for s in summary(module) if s.startswith("k")]
    assert kinds == ["kInput", "kLoop", "kLoop"]
    statistics, small, epilogue = [
        i for i in module.entry.instructions if i.opcode is Opcode.FUSION
    ]
    assert [o.opcode for o in statistics.attrs.calls.root.operands] == [Opcode.REDUCE] * 2
    assert [o.name for o in statistics.operands] == ["x.1"]  # x is read once for both
    assert str(small.shape) == "(f32[4,1]{1,0}, f32[4,1]{1,0})"  # rsqrt(var + eps) and mean
    assert epilogue is module.entry.root
    assert fusion_instructions(module).count("rsqrt") == 1
    assert fusion_instructions(module).count("divide") == 2


# ---- never fused --------------------------------------------------------------------------


def test_dot_gather_and_sort_are_left_as_they_are():
    module, _ = fuse("""
HloModule m
less { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT l = pred[] compare(a, b), direction=LT }
ENTRY e {
  p = f32[4,8] parameter(0)
  q = f32[8,2] parameter(1)
  i = s32[3,1] parameter(2)
  n = f32[4,8] negate(p)
  d = f32[4,2] dot(n, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[3,8] gather(n, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
  s = f32[3,8] sort(g), dimensions={1}, to_apply=less
  ex = f32[4,2] exponential(d)
  ROOT t = (f32[4,2], f32[3,8]) tuple(ex, s)
}""")
    assert summary(module) == [
        "parameter",
        "parameter",
        "parameter",
        "kLoop: negate",
        "dot",
        "gather",
        "sort",
        "kLoop: exponential",
        "tuple",
    ]


def test_while_body_is_fused_and_its_condition_kept_whole():
    module, _ = fuse("""
HloModule m
cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT c = pred[] compare(i, s32[] constant(3)), direction=LT
}
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8] get-tuple-element(s), index=1
  n = f32[8] negate(v)
  m = f32[8] multiply(n, n)
  j = s32[] add(i, s32[] constant(1))
  ROOT t = (s32[], f32[8]) tuple(j, m)
}
ENTRY e {
  p = f32[8] parameter(0)
  w = (s32[], f32[8]) while((s32[], f32[8]) tuple(s32[] constant(0), p)), condition=cond, body=body
  ROOT r = f32[8] get-tuple-element(w), index=1
}""")
    body = summary(module, "body")
    assert "kLoop: negate multiply" in body
    assert "kLoop: constant add" in body
    assert summary(module, "cond") == [
        "parameter",
        "get-tuple-element",
        "kLoop: constant compare",
    ]


def test_instructions_with_control_dependencies_are_not_fused():
    module, _ = fuse("""
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  n = f32[8] negate(p)
  a = f32[8] abs(p), control-predecessors={n}
  ROOT r = f32[8] add(n, a)
}""")
    assert summary(module) == ["parameter", "negate", "abs", "kLoop: add"]


def test_existing_fusions_of_other_kinds_are_left_alone():
    module, _ = fuse("""
HloModule m
fc {
  a = f32[4,8] parameter(0)
  b = f32[8,2] parameter(1)
  ROOT d = f32[4,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  p = f32[4,8] parameter(0)
  q = f32[8,2] parameter(1)
  n = f32[4,8] negate(p)
  f = f32[4,2] fusion(n, q), kind=kOutput, calls=fc
  ROOT r = f32[4,2] abs(f)
}""")
    assert summary(module) == [
        "parameter",
        "parameter",
        "kLoop: negate",
        "kOutput: dot",
        "kLoop: abs",
    ]


# ---- text ---------------------------------------------------------------------------------


def test_result_prints_as_xla_does_and_parses_back():
    module, _ = fuse((DATA / "softmax.hlo").read_text())
    text = print_hlo(module)
    assert re.search(
        r"\n  ROOT %fusion = f32\[4,8\]\{1,0\} fusion\(%get-tuple-element(\.\d+)?, "
        r"%get-tuple-element(\.\d+)?\), kind=kLoop, calls=%fused_computation(\.\d+)?\n",
        text,
    )
    assert re.search(r"\n%fused_computation(\.\d+)? \(param_0(\.\d+)?: f32\[4,8\]", text)
    again = parse_hlo(text)
    assert print_hlo(again) == text
    assert [i.attrs.kind for i in again.entry.instructions if i.opcode is Opcode.FUSION] == [
        FusionKind.INPUT,
        FusionKind.INPUT,
        FusionKind.LOOP,
    ]


def test_options_are_checked():
    with pytest.raises(InvalidArgument, match=r"max_fused_instructions must be at least 1; got 0"):
        Fusion(max_fused_instructions=0)
    with pytest.raises(InvalidArgument, match=r"max_fused_constant_elements must not be negative"):
        Fusion(max_fused_constant_elements=-1)


def test_fusion_is_registered_and_names_stay_unique():
    assert isinstance(make_pass("fusion"), Fusion)
    module, _ = fuse((DATA / "layernorm.hlo").read_text())
    names = [i.name for i in module.instructions()]
    assert len(names) == len(set(names))
    computations = [c.name for c in module.computations]
    assert len(computations) == len(set(computations))
