"""Uniform quantized tensors: uniform_quantize/dequantize (spec examples, rounding, clamping,
storage types), the integer forms of add/dot_general/convolution, dequantize_op_quantize,
data movement on storage values, and the errors for HLO text and the builder.

Expected values are worked out by hand or by an independent loop, never by the evaluator
under test; the conformance corpus (tests/conformance) runs the StableHLO and JAX files."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.builder import XlaBuilder, ops
from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.shape import Shape
from xlapy.text.hlo_printer import print_hlo
from xlapy.text.stablehlo_parser import parse_stablehlo


def run(text: str, *args: np.ndarray) -> np.ndarray:
    (result,) = xlapy.run(parse_stablehlo(text), *args, platform="interpreter")
    return result


def unary(op: str, operand: str, result: str, x: np.ndarray) -> np.ndarray:
    """``op`` from tensor type ``operand`` to ``result`` applied to ``x``."""
    return run(
        f"""func.func @main(%x: {operand}) -> {result} {{
          %0 = "stablehlo.{op}"(%x) : ({operand}) -> {result}
          return %0 : {result}
        }}""",
        x,
    )


PER_AXIS = "tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>"


# ---- uniform_quantize / uniform_dequantize ---------------------------------------------------


def test_spec_example_quantize() -> None:
    got = unary("uniform_quantize", "tensor<2xf32>", PER_AXIS, np.array([4.0, 15.0], np.float32))
    assert got.dtype == np.int8
    assert got.tolist() == [10, 10]


def test_spec_example_requantize() -> None:
    target = "tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>"
    got = unary("uniform_quantize", PER_AXIS, target, np.array([10, 10], np.int8))
    assert got.tolist() == [20, 45]


def test_spec_example_dequantize() -> None:
    got = unary("uniform_dequantize", PER_AXIS, "tensor<2xf32>", np.array([10, 10], np.int8))
    assert got.dtype == np.float32
    assert got.tolist() == [4.0, 15.0]


def test_quantize_rounds_half_to_even_clamps_and_maps_nan_to_zero() -> None:
    x = np.array([0.25, 0.75, -0.25, 100, -100, np.nan, np.inf, -np.inf], np.float32)
    q = "tensor<8x!quant.uniform<i8:f32, 0.5>>"
    assert unary("uniform_quantize", "tensor<8xf32>", q, x).tolist() == [
        0, 2, 0, 127, -128, 0, 127, -128,
    ]  # fmt: skip
    narrow = "tensor<8x!quant.uniform<i8<-127:127>:f32, 0.5>>"
    assert unary("uniform_quantize", "tensor<8xf32>", narrow, x).tolist()[4] == -127


@pytest.mark.parametrize(
    ("storage", "x", "expected", "dtype"),
    [
        ("u4:f32, 1.0:8", [-9.0, 0.0, 7.5, 100.0], [0, 8, 15, 15], ml_dtypes.uint4),
        ("i4:f32, 2.0:-1", [-100.0, 3.0, 5.0, 13.0], [-8, 0, 2, 6], ml_dtypes.int4),
        ("i2:f32, 1.0", [-3.0, -1.5, 0.5, 1.4], [-2, -2, 0, 1], ml_dtypes.int2),
        ("u8:f32, 0.25:128", [-40.0, -0.125, 0.125, 40.0], [0, 128, 128, 255], np.uint8),
        ("i16:f32, 0.001", [1.0, -32.769, 0.0005, 0.0015], [1000, -32768, 0, 2], np.int16),
    ],
)
def test_quantize_storage_types(
    storage: str, x: list[float], expected: list[int], dtype: type
) -> None:
    q = f"tensor<4x!quant.uniform<{storage}>>"
    got = unary("uniform_quantize", "tensor<4xf32>", q, np.array(x, np.float32))
    assert got.dtype == np.dtype(dtype)
    assert got.astype(np.int64).tolist() == expected
    back = unary("uniform_dequantize", q, "tensor<4xf32>", got)
    assert back.dtype == np.float32


def test_narrow_expressed_types_compute_in_their_own_type() -> None:
    # bf16: 1 / bf16(0.3) = 1 / 0.30078125 = 3.3246... -> bf16 3.328125 -> round -> 3.
    x = np.array([1.0, 2.0], ml_dtypes.bfloat16)
    q = "tensor<2x!quant.uniform<i8:bf16, 0.3>>"
    assert unary("uniform_quantize", "tensor<2xbf16>", q, x).tolist() == [3, 7]
    back = unary("uniform_dequantize", q, "tensor<2xbf16>", np.array([3, 7], np.int8))
    assert back.dtype == ml_dtypes.bfloat16
    # 3 * 0.30078125 = 0.90234375 and 7 * 0.30078125 = 2.10546875, rounded to bf16.
    assert back.astype(np.float32).tolist() == [0.90234375, 2.109375]


def test_requantize_per_tensor_uses_the_merged_scale_and_zero_point() -> None:
    # merged scale 0.1 / 0.5 = 0.2, merged zero point -20 - (-30 * 0.2) = -14.
    source = "tensor<3x!quant.uniform<i8:f32, 0.1:-30>>"
    target = "tensor<3x!quant.uniform<i8:f32, 0.5:-20>>"
    got = unary("uniform_quantize", source, target, np.array([-20, -10, 127], np.int8))
    assert got.tolist() == [-18, -16, 11]  # 127 * 0.2 - 14 = 11.4


def test_requantize_cannot_move_the_quantization_dimension() -> None:
    source = "tensor<2x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>"
    target = "tensor<2x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>"
    with pytest.raises(InvalidArgument, match="changing the quantization dimension"):
        unary("uniform_quantize", source, target, np.zeros((2, 2), np.int8))


# ---- elementwise ------------------------------------------------------------------------------

Q1 = "tensor<2x!quant.uniform<i8:f32, 0.1:-30>>"
Q2 = "tensor<2x!quant.uniform<i8:f32, 0.5:-20>>"


def binary(op: str, lhs_type: str, rhs_type: str, result: str, lhs: object, rhs: object) -> list:
    text = f"""func.func @main(%a: {lhs_type}, %b: {rhs_type}) -> {result} {{
      %0 = "stablehlo.{op}"(%a, %b) : ({lhs_type}, {rhs_type}) -> {result}
      return %0 : {result}
    }}"""
    return run(text, np.array(lhs, np.int8), np.array(rhs, np.int8)).tolist()


def test_add_requantizes_to_the_result_and_clamps() -> None:
    # interpret/quantized_ops.mlir: [1, 2] in (0.1, -30) and [3, 4] in (0.5, -20).
    assert binary("add", Q1, Q2, Q2, [-20, -10], [-14, -12]) == [-12, -8]
    q = "tensor<2x!quant.uniform<i8:f32, 1.0>>"
    assert binary("add", q, q, q, [100, -100], [100, -100]) == [127, -128]


def test_add_per_axis_i32_subtracts_the_zero_points() -> None:
    q = "tensor<2x!quant.uniform<i32:f32:0, {0.5:3,0.25:-4}>>"
    text = f"""func.func @main(%a: {q}, %b: {q}) -> {q} {{
      %0 = stablehlo.add %a, %b : {q}
      return %0 : {q}
    }}"""
    got = run(text, np.array([10, 10], np.int32), np.array([5, 5], np.int32))
    assert got.tolist() == [12, 19]


def test_subtract_is_dequantize_op_quantize() -> None:
    # (-20 + 30) * 0.1 - (-14 + 20) * 0.5 = 1 - 3 = -2 -> -2 / 0.5 - 20 = -24.
    assert binary("subtract", Q1, Q2, Q2, [-20, 0], [-14, -20]) == [-24, -14]


def test_maximum_and_select_of_one_type_pick_storage_values() -> None:
    assert binary("maximum", Q1, Q1, Q1, [5, -7], [-3, 2]) == [5, 2]
    # Different parameters: max(1.0, 3.0) = 3.0 -> 3 / 0.5 - 20 = -14.
    assert binary("maximum", Q1, Q2, Q2, [-20, 0], [-14, -20]) == [-14, -14]


def test_compare_compares_expressed_values() -> None:
    text = f"""func.func @main(%a: {Q1}, %b: {Q2}) -> tensor<2xi1> {{
      %0 = stablehlo.compare EQ, %a, %b : ({Q1}, {Q2}) -> tensor<2xi1>
      return %0 : tensor<2xi1>
    }}"""
    got = run(text, np.array([-20, -20], np.int8), np.array([-18, -20], np.int8))
    assert got.tolist() == [True, False]  # 1.0 == 1.0; 1.0 != 0.0


def test_unary_transcendental_and_iota() -> None:
    q = "tensor<2x!quant.uniform<i8:f32, 0.01>>"
    x = np.array([50, -100], np.int8)  # 0.5, -1.0
    tanh = unary("tanh", q, q, x).tolist()
    assert tanh == [round(np.tanh(0.5) / 0.01), round(np.tanh(-1.0) / 0.01)]
    text = """func.func @main() -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
      %0 = stablehlo.iota dim = 0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
      return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
    }"""
    assert run(text).tolist() == [1, 3, 5, 7]


# ---- data movement and regions ---------------------------------------------------------------


def test_transpose_moves_storage_and_the_quantization_dimension() -> None:
    operand = "tensor<2x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>"
    result = "tensor<3x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>"
    text = f"""func.func @main(%x: {operand}) -> {result} {{
      %0 = stablehlo.transpose %x, dims = [1, 0] : ({operand}) -> {result}
      return %0 : {result}
    }}"""
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    assert run(text, x).tolist() == x.T.tolist()


def test_reduce_runs_its_quantized_body() -> None:
    q = "!quant.uniform<i8:f32, 0.5:2>"
    text = f"""func.func @main(%x: tensor<3x{q}>, %init: tensor<{q}>) -> tensor<{q}> {{
      %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0]
        : (tensor<3x{q}>, tensor<{q}>) -> tensor<{q}>
      return %0 : tensor<{q}>
    }}"""
    # Values 1.0, 2.0, 3.0 and init 0.0: storage 4, 6, 8 and 2; each add is s1 + s2 - 2.
    got = run(text, np.array([4, 6, 8], np.int8), np.array(2, np.int8))
    assert got.tolist() == 14


# ---- dot_general and convolution -------------------------------------------------------------


def _dot_text(lhs: str, rhs: str, result: str) -> str:
    return f"""func.func @main(%a: {lhs}, %b: {rhs}) -> {result} {{
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0],
        contracting_dims = [2, 1] x [1, 2] : ({lhs}, {rhs}) -> {result}
      return %0 : {result}
    }}"""


@pytest.mark.parametrize(("result_scale", "combined"), [(0.125, 1.0), (0.25, 0.5)])
def test_dot_general_integer_form(result_scale: float, combined: float) -> None:
    rng = np.random.default_rng(0)
    lhs = rng.integers(-128, 128, (2, 3, 4)).astype(np.int8)
    rhs = rng.integers(-128, 128, (2, 4, 3, 5)).astype(np.int8)
    lhs_type = "tensor<2x3x4x!quant.uniform<i8:f32, 0.5:3>>"
    rhs_type = "tensor<2x4x3x5x!quant.uniform<i8:f32, 0.25:-5>>"
    result_type = f"tensor<2x5x!quant.uniform<i32:f32, {result_scale}:7>>"
    got = run(_dot_text(lhs_type, rhs_type, result_type), lhs, rhs)
    l64, r64 = lhs.astype(np.int64), rhs.astype(np.int64)
    raw = np.einsum("bij,bjik->bk", l64, r64)
    offset = -5 * l64.sum(axis=(1, 2))[:, None] + 3 * r64.sum(axis=(1, 2)) - 3 * -5 * 12
    if combined == 1.0:
        expected = raw - offset + 7
    else:  # both terms scaled through f32 and truncated separately
        expected = (
            np.trunc(raw.astype(np.float32) * np.float32(combined))
            - np.trunc(offset.astype(np.float32) * np.float32(combined))
            + 7
        )
    assert got.dtype == np.int32
    assert got.tolist() == expected.astype(np.int64).tolist()


def test_dot_general_hybrid_accumulates_in_order() -> None:
    rng = np.random.default_rng(1)
    lhs = rng.standard_normal((2, 3, 4)).astype(np.float32)
    rhs = rng.integers(-128, 128, (2, 4, 3, 5)).astype(np.int8)
    rhs_type = "tensor<2x4x3x5x!quant.uniform<i8:f32, 0.0123:-5>>"
    got = run(_dot_text("tensor<2x3x4xf32>", rhs_type, "tensor<2x5xf32>"), lhs, rhs)
    weights = (rhs.astype(np.int32) + 5).astype(np.float32) * np.float32(0.0123)
    expected = np.zeros((2, 5), np.float32)
    for b, k in itertools.product(range(2), range(5)):
        total = np.float32(0)
        for j, i in itertools.product(range(4), range(3)):  # contracting dims [2, 1]
            total = np.float32(total + lhs[b, i, j] * weights[b, j, i, k])
        expected[b, k] = total
    assert got.tobytes() == expected.tobytes()


def _conv_text(lhs: str, rhs: str, result: str, window: str) -> str:
    return f"""func.func @main(%a: {lhs}, %b: {rhs}) -> {result} {{
      %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
        window = {{{window}}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}
        : ({lhs}, {rhs}) -> {result}
      return %0 : {result}
    }}"""


def _naive_conv(lhs: np.ndarray, rhs: np.ndarray, pad: tuple, stride: tuple) -> np.ndarray:
    """NHWC x HWIO, summed in (kh, kw, i) order in lhs's dtype, zero padding."""
    padded = np.pad(lhs, [(0, 0), pad[0], pad[1], (0, 0)])
    kh, kw, ci, co = rhs.shape
    oh = (padded.shape[1] - kh) // stride[0] + 1
    ow = (padded.shape[2] - kw) // stride[1] + 1
    out = np.zeros((lhs.shape[0], oh, ow, co), lhs.dtype)
    for b, y, x, o in itertools.product(range(lhs.shape[0]), range(oh), range(ow), range(co)):
        total = lhs.dtype.type(0)
        for dy, dx, i in itertools.product(range(kh), range(kw), range(ci)):
            a = padded[b, y * stride[0] + dy, x * stride[1] + dx, i]
            total = lhs.dtype.type(total + a * rhs[dy, dx, i, o])
        out[b, y, x, o] = total
    return out


def test_convolution_integer_form_pads_with_the_zero_point() -> None:
    rng = np.random.default_rng(2)
    lhs = rng.integers(-128, 128, (1, 4, 5, 2)).astype(np.int8)
    rhs = rng.integers(-128, 128, (2, 3, 2, 3)).astype(np.int8)
    text = _conv_text(
        "tensor<1x4x5x2x!quant.uniform<i8:f32, 0.5:3>>",
        "tensor<2x3x2x3x!quant.uniform<i8:f32, 0.25>>",
        "tensor<1x3x2x3x!quant.uniform<i32:f32, 0.125:7>>",
        "stride = [2, 2], pad = [[1, 1], [0, 1]]",
    )
    got = run(text, lhs, rhs)
    expected = _naive_conv(lhs.astype(np.int64) - 3, rhs.astype(np.int64), ((1, 1), (0, 1)),
                           (2, 2)) + 7  # fmt: skip
    assert got.tolist() == expected.tolist()


def test_convolution_with_a_rhs_zero_point_runs_in_f32_in_order() -> None:
    rng = np.random.default_rng(3)
    lhs = rng.integers(-128, 128, (1, 4, 5, 2)).astype(np.int8)
    rhs = rng.integers(-128, 128, (2, 3, 2, 3)).astype(np.int8)
    text = _conv_text(
        "tensor<1x4x5x2x!quant.uniform<i8:f32, 0.0039:-128>>",
        "tensor<2x3x2x3x!quant.uniform<i8:f32, 0.0041:-128>>",
        "tensor<1x4x5x3x!quant.uniform<i32:f32, 1.5e-05>>",
        "pad = [[1, 0], [1, 1]]",
    )
    got = run(text, lhs, rhs)
    lf = (lhs.astype(np.int32) + 128).astype(np.float32) * np.float32(0.0039)
    rf = (rhs.astype(np.int32) + 128).astype(np.float32) * np.float32(0.0041)
    conv = _naive_conv(lf, rf, ((1, 0), (1, 1)), (1, 1))
    expected = np.rint(conv / np.float32(1.5e-05)).astype(np.int64)
    assert got.tolist() == expected.tolist()


# ---- loading and printing ---------------------------------------------------------------------


def test_convert_of_quantized_is_rejected_at_load() -> None:
    text = f"""func.func @main(%x: {Q1}) -> tensor<2xf32> {{
      %0 = stablehlo.convert %x : ({Q1}) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }}"""
    with pytest.raises(InvalidArgument, match=r"convert.*not defined on quantized tensors"):
        parse_stablehlo(text)


def test_hlo_text_and_builder_name_the_op() -> None:
    module = parse_stablehlo(f"""func.func @main(%x: tensor<2xf32>) -> {Q1} {{
      %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> {Q1}
      return %0 : {Q1}
    }}""")
    with pytest.raises(Unimplemented, match=r"uniform-quantize %\S+: HLO text has no quantized"):
        print_hlo(module)
    q = dtypes.uniform_quantized(dtypes.S8, dtypes.F32, [0.5], [0])
    with pytest.raises(Unimplemented, match="parameter: XlaBuilder builds HLO, which has no"):
        ops.Parameter(XlaBuilder("q"), 0, Shape.array(q, [2]), "x")
