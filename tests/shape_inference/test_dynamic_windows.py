"""Windowed ops on dynamic dimensions (``?`` in StableHLO, ``<=N`` in HLO): a dynamic input
dimension gives a dynamic output dimension, as XLA's shape inference has it, never the size a
bound would give (``conv_general_dilated_1d_3_dynamic.mlir`` of the StableHLO testdata:
``f32[5,?,16]`` was inferred as ``f32[5,2097151,16]`` under lhs dilation)."""

from __future__ import annotations

import pytest

import xlapy
from xlapy.errors import XlaError
from xlapy.shape_inference import infer_shape

ADD = """({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  })"""

PROGRAMS = {
    "convolution": """func.func @main(%x: tensor<5x?x16xf32>, %w: tensor<3x16x16xf32>) -> tensor<5x?x16xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[1, 1]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<5x?x16xf32>, tensor<3x16x16xf32>) -> tensor<5x?x16xf32>
  return %0 : tensor<5x?x16xf32>
}""",
    "convolution_batch": """func.func @main(%x: tensor<?x7x16xf32>, %w: tensor<3x16x4xf32>) -> tensor<?x11x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x7x16xf32>, tensor<3x16x4xf32>) -> tensor<?x11x4xf32>
  return %0 : tensor<?x11x4xf32>
}""",
    "reduce_window": f"""func.func @main(%x: tensor<5x?xf32>) -> tensor<5x?xf32> {{
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %init) {ADD} {{window_dimensions = array<i64: 1, 2>, base_dilations = array<i64: 1, 3>}} : (tensor<5x?xf32>, tensor<f32>) -> tensor<5x?xf32>
  return %0 : tensor<5x?xf32>
}}""",
    "pad": """func.func @main(%x: tensor<5x?xf32>) -> tensor<7x?xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.pad %x, %init, low = [1, 1], high = [1, 2], interior = [0, 3] : (tensor<5x?xf32>, tensor<f32>) -> tensor<7x?xf32>
  return %0 : tensor<7x?xf32>
}""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_unbounded_dimension_stays_dynamic(name: str) -> None:
    module = xlapy.load(PROGRAMS[name])
    root = module.entry.root
    assert any(root.shape.dynamic)


def test_static_dimensions_are_still_checked_next_to_a_dynamic_one() -> None:
    wrong = PROGRAMS["convolution_batch"].replace("tensor<?x11x4xf32>", "tensor<?x12x4xf32>")
    with pytest.raises(XlaError, match=r"f32\[\?,11,4\]"):
        xlapy.load(wrong)


HLO = """HloModule m
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[5,<=4] parameter(0)
  z = f32[] constant(0)
  ROOT r = {result} {op}
}}
"""


@pytest.mark.parametrize(
    ("result", "op"),
    [
        ("f32[5,<=9]", "reduce-window(x, z), window={size=1x2 lhs_dilate=1x3}, to_apply=add"),
        ("f32[7,<=16]", "pad(x, z), padding=1_1x1_2_3"),
    ],
)
def test_bounded_dimension_gives_a_bounded_dynamic_result(result: str, op: str) -> None:
    root = xlapy.load(HLO.format(result=result, op=op)).entry.root
    inferred = infer_shape(root.opcode, [o.shape for o in root.operands], root.attrs)
    assert inferred == root.shape  # before: static f32[5,9] and f32[7,16]
    assert inferred.dynamic == (False, True)
