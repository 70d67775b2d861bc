"""stablehlo.dynamic_conv: 1-D windows as JAX writes them, and window attributes that StableHLO
verifies only once the padding is known (spec dynamic_conv C2)."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgument
from xlapy.text.stablehlo_parser import parse_stablehlo


def _program(strides: str, padding: str) -> str:
    """A 1-D NWC x WIO convolution with ``window_strides = array<i64: {strides}>``; the padding
    is computed from an argument (``dynamic``) or a constant."""
    if padding == "dynamic":
        pad = """%low = stablehlo.reshape %p : (tensor<2xi32>) -> tensor<1x2xi32>"""
    else:
        pad = f"""%low = stablehlo.constant dense<[[{padding}]]> : tensor<1x2xi32>"""
    return f"""func.func @main(%x: tensor<1x9x2xf32>, %w: tensor<3x2x4xf32>,
                          %p: tensor<2xi32>) -> tensor<1x?x4xf32> {{
      {pad}
      %0 = "stablehlo.dynamic_conv"(%x, %w, %low) <{{batch_group_count = 1 : i64,
        dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
        feature_group_count = 1 : i64, window_strides = array<i64: {strides}>}}>
        : (tensor<1x9x2xf32>, tensor<3x2x4xf32>, tensor<1x2xi32>) -> tensor<1x?x4xf32>
      return %0 : tensor<1x?x4xf32>
    }}"""


def _static(pad: tuple[int, int]) -> str:
    return f"""func.func @main(%x: tensor<1x9x2xf32>, %w: tensor<3x2x4xf32>) -> tensor<1x5x4xf32> {{
      %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f],
        window = {{stride = [2], pad = [[{pad[0]}, {pad[1]}]]}}
        {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}
        : (tensor<1x9x2xf32>, tensor<3x2x4xf32>) -> tensor<1x5x4xf32>
      return %0 : tensor<1x5x4xf32>
    }}"""


def test_one_dimensional_strides_run_like_the_static_convolution() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 9, 2)).astype(np.float32)
    w = rng.standard_normal((3, 2, 4)).astype(np.float32)
    (got,) = xlapy.run(
        parse_stablehlo(_program("2", "dynamic")),
        x,
        w,
        np.array([1, 1], np.int32),
        platform="interpreter",
    )
    (want,) = xlapy.run(parse_stablehlo(_static((1, 1))), x, w, platform="interpreter")
    assert got.shape == (1, 5, 4)
    assert got.tobytes() == want.tobytes()


def test_strides_of_the_wrong_length_load_and_fail_when_run() -> None:
    # JAX once wrote 1-D convolutions this way; StableHLO checks C2 only once the padding is
    # known, so the program loads (the conformance file only round-trips it).
    module = parse_stablehlo(_program("2, 2", "dynamic"))
    x, w = np.zeros((1, 9, 2), np.float32), np.zeros((3, 2, 4), np.float32)
    with pytest.raises(
        InvalidArgument, match=r"dynamic-conv \S+ \[C2\]: window_strides has 2 entries; the "
        r"convolution has 1 spatial dimensions",
    ):  # fmt: skip
        xlapy.run(module, x, w, np.array([1, 1], np.int32), platform="interpreter")


def test_strides_of_the_wrong_length_with_a_constant_padding_fail_at_load() -> None:
    with pytest.raises(InvalidArgument, match=r"<string>:4:7: .*window_strides has 2 entries"):
        parse_stablehlo(_program("2, 2", "1, 1"))
