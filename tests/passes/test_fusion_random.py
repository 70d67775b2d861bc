"""fusion on random programs (HLO text drawn by hypothesis): DAGs of cheap and expensive
elementwise ops, data movement, reduces and reduce-windows whose values have several users,
so that duplication, reuse refusals and both kinds of multi-output fusion meet in one
computation. Each fuses into clean fusions, verifies, is idempotent and keeps its values
bit for bit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pass_util import assert_same_results
from test_fusion_pass import assert_clean_fusions

import xlapy
from xlapy.ir.clone import clone_module
from xlapy.passes.fusion import Fusion
from xlapy.passes.pass_manager import Pipeline

REGIONS = """
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
"""
UNARY = ["negate", "exponential", "tanh", "abs", "log", "floor", "sqrt", "cosine"]
BINARY = ["add", "multiply", "divide", "maximum", "subtract", "power"]
# shape -> ops turning a value of that shape into another: (result shape, HLO after "= <shape> ")
MOVES = {
    "3,4": [
        ("4,3", "transpose({x}), dimensions={{1,0}}"),
        ("12", "reshape({x})"),
        ("3,2", "slice({x}), slice={{[0:3], [1:4:2]}}"),
        ("3", "reduce({x}, f32[] constant(0)), dimensions={{1}}, to_apply=add"),
        ("4", "reduce({x}, f32[] constant(-inf)), dimensions={{0}}, to_apply=max"),
        ("", "reduce({x}, f32[] constant(0)), dimensions={{0,1}}, to_apply=add"),
        (
            "3,3",
            "reduce-window({x}, f32[] constant(0)), window={{size=1x2}}, to_apply=add",
        ),
        (
            "3,2",
            "reduce-window({x}, f32[] constant(0)), window={{size=1x2 stride=1x2}}, to_apply=add",
        ),
    ],
    "4,3": [("3,4", "transpose({x}), dimensions={{1,0}}"), ("12", "reshape({x})")],
    "12": [
        ("3,4", "reshape({x})"),
        ("4,3", "reshape({x})"),
        ("12", "reverse({x}), dimensions={{0}}"),
    ],
    "3": [
        ("3,4", "broadcast({x}), dimensions={{0}}"),
        ("", "reduce({x}, f32[] constant(0)), dimensions={{0}}, to_apply=add"),
    ],
    "4": [("3,4", "broadcast({x}), dimensions={{1}}"), ("4,3", "broadcast({x}), dimensions={{0}}")],
    "": [("3,4", "broadcast({x}), dimensions={{}}"), ("3", "broadcast({x}), dimensions={{}}")],
    "3,2": [
        ("3,4", "concatenate({x}, {x}), dimensions={{1}}"),
        ("3", "reduce({x}, f32[] constant(0)), dimensions={{1}}, to_apply=add"),
    ],
    "3,3": [("3", "reduce({x}, f32[] constant(-inf)), dimensions={{1}}, to_apply=max")],
}


@st.composite
def programs(draw: st.DrawFn) -> str:
    values: list[tuple[str, str]] = [("p0", "3,4"), ("p1", "3,4")]
    lines = ["p0 = f32[3,4] parameter(0)", "p1 = f32[3,4] parameter(1)"]
    for k in range(draw(st.integers(3, 14))):
        name = f"v{k}"
        kind = draw(st.sampled_from(["unary", "binary", "binary", "move", "move", "select"]))
        x, shape = values[draw(st.integers(0, len(values) - 1))]
        if kind == "unary":
            text = f"{draw(st.sampled_from(UNARY))}({x})"
        elif kind == "move":
            shape, pattern = draw(st.sampled_from(MOVES[shape]))
            text = pattern.format(x=x)
        else:
            same = [v for v, s in values if s == shape]
            y = draw(st.sampled_from(same))
            if kind == "binary":
                text = f"{draw(st.sampled_from(BINARY))}({x}, {y})"
            else:
                lines.append(f"c{k} = pred[{shape}] compare({x}, {y}), direction=LT")
                text = f"select(c{k}, {x}, {y})"
        lines.append(f"{name} = f32[{shape}] {text}")
        values.append((name, shape))
    outputs = draw(st.lists(st.sampled_from(values[2:]), min_size=1, max_size=3, unique=True))
    root_shape = ", ".join(f"f32[{s}]" for _, s in outputs)
    lines.append(f"ROOT t = ({root_shape}) tuple({', '.join(v for v, _ in outputs)})")
    body = "\n  ".join(lines)
    return f"HloModule random\n{REGIONS}\nENTRY e {{\n  {body}\n}}"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(programs(), st.booleans())
def test_random_programs_fuse_with_bit_identical_results(text: str, multi_output: bool):
    original = xlapy.load(text)
    module = clone_module(original)
    fusion = Fusion(multi_output=multi_output)
    Pipeline([fusion], verify=True).run(module)
    assert not fusion.run(module), "a second run changed the module"
    assert_clean_fusions(module)
    assert_same_results(original, module, seeds=2)
