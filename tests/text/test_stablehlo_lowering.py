"""StableHLO -> HLO mapping: each op becomes the instructions XLA's conversion produces (compared
with the HLO text parser's IR for the equivalent HLO), regions become computations, multi-result
ops become a tuple and get-tuple-elements, implicit captures are passed or cloned."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xlapy
from xlapy.errors import EvaluationError, Unimplemented
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import print_hlo
from xlapy.text.stablehlo_parser import parse_stablehlo
from xlapy.text.stablehlo_printer import print_stablehlo


def _sig(comp: HloComputation) -> list[Any]:
    """The structure of a computation without names: (opcode, shape, attrs, operand positions)."""
    order = comp.post_order()
    index = {id(i): n for n, i in enumerate(order)}
    out: list[Any] = []
    for instr in order:
        attrs = {}
        for key in instr.attrs:
            value = instr.attrs[key]
            if isinstance(value, HloComputation):
                value = _sig(value)
            elif isinstance(value, tuple) and value and isinstance(value[0], HloComputation):
                value = [_sig(v) for v in value]
            attrs[key] = value
        out.append(
            (
                instr.opcode,
                instr.shape.to_hlo(),
                repr(sorted(attrs.items(), key=lambda kv: kv[0])),
                [index[id(o)] for o in instr.operands],
            )
        )
    out.append(index[id(comp.root)])
    return out


def _same(mlir: str, hlo: str) -> None:
    assert _sig(parse_stablehlo(mlir).entry) == _sig(parse_hlo(hlo).entry)


def test_broadcast_in_dim_and_add_match_hlo() -> None:
    _same(
        """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
          %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
          %1 = stablehlo.add %a, %0 : tensor<2x3xf32>
          return %1 : tensor<2x3xf32>
        }""",
        """HloModule m
        ENTRY main {
          a = f32[2,3] parameter(0)
          b = f32[3] parameter(1)
          bb = f32[2,3] broadcast(b), dimensions={1}
          ROOT r = f32[2,3] add(a, bb)
        }""",
    )


def test_dot_general_compare_slice_pad_match_hlo() -> None:
    _same(
        """func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xi1> {
          %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
          %1 = stablehlo.slice %0 [0:2, 0:3:2, 1:5] : (tensor<2x3x5xf32>) -> tensor<2x2x4xf32>
          %c = stablehlo.constant dense<0.0> : tensor<f32>
          %2 = stablehlo.pad %1, %c, low = [0, 1, 0], high = [0, 0, 1], interior = [0, 0, 0] : (tensor<2x2x4xf32>, tensor<f32>) -> tensor<2x3x5xf32>
          %3 = stablehlo.compare GT, %0, %2, TOTALORDER : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xi1>
          return %3 : tensor<2x3x5xi1>
        }""",
        """HloModule m
        ENTRY main {
          a = f32[2,3,4] parameter(0)
          b = f32[2,4,5] parameter(1)
          d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={default,highest}
          s = f32[2,2,4] slice(d), slice={[0:2], [0:3:2], [1:5]}
          c = f32[] constant(0)
          p = f32[2,3,5] pad(s, c), padding=0_0x1_0x0_1
          ROOT r = pred[2,3,5] compare(d, p), direction=GT, type=TOTALORDER
        }""",
    )


def test_multi_result_reduce_is_tuple_plus_get_tuple_element() -> None:
    _same(
        """func.func @main(%a: tensor<4x5xf32>, %i: tensor<4x5xi32>) -> tensor<4xi32> {
          %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
          %z = stablehlo.constant dense<0> : tensor<i32>
          %0:2 = stablehlo.reduce(%a init: %c), (%i init: %z) across dimensions = [1] : (tensor<4x5xf32>, tensor<4x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
           reducer(%x: tensor<f32>, %y: tensor<f32>) (%p: tensor<i32>, %q: tensor<i32>) {
            %1 = stablehlo.maximum %x, %y : tensor<f32>
            %2 = stablehlo.maximum %p, %q : tensor<i32>
            stablehlo.return %1, %2 : tensor<f32>, tensor<i32>
          }
          return %0#1 : tensor<4xi32>
        }""",
        """HloModule m
        body {
          x = f32[] parameter(0)
          p = s32[] parameter(1)
          y = f32[] parameter(2)
          q = s32[] parameter(3)
          mx = f32[] maximum(x, y)
          mi = s32[] maximum(p, q)
          ROOT t = (f32[], s32[]) tuple(mx, mi)
        }
        ENTRY main {
          a = f32[4,5] parameter(0)
          i = s32[4,5] parameter(1)
          c = f32[] constant(-inf)
          z = s32[] constant(0)
          r = (f32[4], s32[4]) reduce(a, i, c, z), dimensions={1}, to_apply=body
          g0 = f32[4] get-tuple-element(r), index=0
          ROOT g1 = s32[4] get-tuple-element(r), index=1
        }""",
    )


def _run(text: str, *args: Any) -> list[Any]:
    return xlapy.run(parse_stablehlo(text), *args, platform="interpreter")


def test_while_with_captured_value_and_constant() -> None:
    text = """func.func @main(%n: tensor<i64>, %step: tensor<i64>) -> tensor<i64> {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %0:2 = stablehlo.while(%i = %zero, %acc = %zero) : tensor<i64>, tensor<i64>
       cond {
        %1 = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %1 : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i64>
        %1 = stablehlo.add %i, %one : tensor<i64>
        %2 = stablehlo.add %acc, %step : tensor<i64>
        stablehlo.return %1, %2 : tensor<i64>, tensor<i64>
      }
      return %0#1 : tensor<i64>
    }"""
    module = parse_stablehlo(text)
    loop = next(i for i in module.entry.instructions if i.opcode is Opcode.WHILE)
    assert loop.shape.to_hlo() == "(s64[], s64[], s64[], s64[])"  # i, acc, captured n and step
    assert _run(text, np.int64(5), np.int64(3))[0] == 15


def test_if_and_case_become_conditional() -> None:
    text = """func.func @main(%p: tensor<i1>, %k: tensor<i32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = "stablehlo.if"(%p) ({
        %1 = stablehlo.negate %x : tensor<2xf32>
        stablehlo.return %1 : tensor<2xf32>
      }, {
        stablehlo.return %x : tensor<2xf32>
      }) : (tensor<i1>) -> tensor<2xf32>
      %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %2 = "stablehlo.case"(%k) ({
        stablehlo.return %c : tensor<2xf32>
      }, {
        %3 = stablehlo.add %x, %c : tensor<2xf32>
        stablehlo.return %3 : tensor<2xf32>
      }) : (tensor<i32>) -> tensor<2xf32>
      return %0, %2 : tensor<2xf32>, tensor<2xf32>
    }"""
    module = parse_stablehlo(text)
    conds = [i for i in module.entry.instructions if i.opcode is Opcode.CONDITIONAL]
    assert conds[0].attrs.true_computation is not None
    assert len(conds[1].attrs.branch_computations) == 2
    x = np.array([1.0, -2.0], np.float32)
    neg, picked = _run(text, np.bool_(True), np.int32(7), x)
    np.testing.assert_array_equal(neg, -x)
    np.testing.assert_array_equal(picked, x + np.array([1, 2], np.float32))  # out of range: last


def test_composite_is_a_composite_call() -> None:
    text = """func.func @main() -> tensor<i64> {
      %0 = stablehlo.constant dense<1> : tensor<i64>
      %1 = stablehlo.composite "my.add_n" %0 {
        composite_attributes = { n = 2 : i64 },
        decomposition = @add_n.impl, version = 3 : i32
      } : (tensor<i64>) -> tensor<i64>
      return %1 : tensor<i64>
    }
    func.func private @add_n.impl(%arg: tensor<i64>) -> tensor<i64> {
      %0 = stablehlo.add %arg, %arg : tensor<i64>
      return %0 : tensor<i64>
    }"""
    call = parse_stablehlo(text).entry.root
    assert call.opcode is Opcode.CALL
    assert call.attrs.is_composite
    assert call.frontend_attributes == {
        "composite.name": "my.add_n",
        "composite.attributes": "{ n = 2 : i64 }",
        "composite.version": "3",
    }
    assert _run(text)[0] == 2


def test_chlo_ops() -> None:
    text = """func.func @main(%x: tensor<5xf32>, %y: tensor<3x5xf32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<3x5xf32>, tensor<5xi1>) {
      %v, %i = chlo.top_k(%x, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi32>)
      %s = chlo.broadcast_add %x, %y : (tensor<5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
      %n = chlo.is_neg_inf %x : tensor<5xf32> -> tensor<5xi1>
      return %v, %i, %s, %n : tensor<2xf32>, tensor<2xi32>, tensor<3x5xf32>, tensor<5xi1>
    }"""
    module = parse_stablehlo(text)
    ops = {i.opcode for i in module.entry.instructions}
    assert {Opcode.TOPK, Opcode.BROADCAST, Opcode.ADD, Opcode.COMPARE} <= ops
    x = np.array([3, -np.inf, 5, 1, 4], np.float32)
    y = np.ones((3, 5), np.float32)
    v, i, s, n = _run(text, x, y)
    np.testing.assert_array_equal(v, [5, 4])
    np.testing.assert_array_equal(i, [2, 4])
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_array_equal(n, [False, True, False, False, False])


def test_check_ops_become_custom_calls_with_parameters() -> None:
    text = """func.func @main() {
      %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      check.expect_almost_eq_const %a, dense<[1.0, 2.00001]> : tensor<2xf32>, tolerance = 0.001
      check.expect_close %a, %a, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
      stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      return
    }"""
    module = parse_stablehlo(text)
    calls = [i for i in module.entry.instructions if i.opcode is Opcode.CUSTOM_CALL]
    assert [c.attrs.custom_call_target for c in calls] == [
        "check.expect_almost_eq",
        "check.expect_close",
        "check.expect_eq",
    ]
    assert calls[0].operands[1].opcode is Opcode.CONSTANT
    assert calls[0].backend_config.startswith("{tolerance = 1.0000000000000000")
    assert calls[1].backend_config == (
        "{max_ulp_difference = 3 : i64, min_ulp_difference = 0 : i64}"
    )
    xlapy.run(module, platform="interpreter")  # all pass: no error


def test_failing_check_raises_outside_the_driver() -> None:
    text = """func.func @main() {
      %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
      check.expect_eq_const %a, dense<[1, 3]> : tensor<2xi32>
      return
    }"""
    with pytest.raises(EvaluationError, match=r"index \[1\]: actual 2, expected 3"):
        xlapy.run(parse_stablehlo(text), platform="interpreter")


def test_convolution_window() -> None:
    text = """func.func @main(%l: tensor<1x8x8x3xf32>, %r: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
      %0 = stablehlo.convolution(%l, %r) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
      return %0 : tensor<1x4x4x4xf32>
    }"""
    conv = parse_stablehlo(text).entry.root
    assert str(conv.attrs.window) == "{size=3x3 stride=2x2 pad=1_1x1_1}"
    assert conv.attrs.dim_labels == A.ConvolutionDimensionNumbers.from_labels("b01f_01io->b01f")


def test_region_capturing_non_constant_is_rejected() -> None:
    text = """func.func @main(%a: tensor<4xf32>, %s: tensor<f32>) -> tensor<f32> {
      %c = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.reduce(%a init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
       reducer(%x: tensor<f32>, %y: tensor<f32>) {
        %1 = stablehlo.add %x, %s : tensor<f32>
        stablehlo.return %1 : tensor<f32>
      }
      return %0 : tensor<f32>
    }"""
    with pytest.raises(Unimplemented, match="%s is defined outside this region"):
        parse_stablehlo(text)


def test_sdy_ops_are_identity() -> None:
    text = """module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
      sdy.mesh @mesh = <["x"=1]>
      func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
        %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}]> : tensor<4xf32>
        %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32>) {
          %2 = stablehlo.add %arg1, %arg1 : tensor<4xf32>
          sdy.return %2 : tensor<4xf32>
        } : (tensor<4xf32>) -> tensor<4xf32>
        return %1 : tensor<4xf32>
      }
    }"""
    (out,) = _run(text, np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(out, [0, 2, 4, 6])


def test_donated_arguments_become_the_module_configs_aliasing() -> None:
    """JAX's ``donate_argnums`` marks arguments ``tf.aliasing_output`` (aliased to a result)
    or ``jax.buffer_donor``; the module config records them as XLA's HLO module does."""
    module = xlapy.load(
        """module @m {
  func.func public @main(%a: tensor<3xf32> {tf.aliasing_output = 1 : i32}, %b: tensor<3xf32>,
                         %c: tensor<2xf32> {jax.buffer_donor = true}) -> (tensor<3xf32>, tensor<3xf32>) {
    %0 = stablehlo.add %a, %b : tensor<3xf32>
    return %b, %0 : tensor<3xf32>, tensor<3xf32>
  }
}"""
    )
    assert str(module.config.input_output_alias) == "{ {1}: (0, {}, may-alias) }"
    assert str(module.config.buffer_donor) == "{ (2, {}) }"
    assert "input_output_alias={ {1}: (0, {}, may-alias) }" in print_hlo(module)
    again = xlapy.load(print_stablehlo(module))  # printed as JAX writes it, read back
    assert str(again.config.input_output_alias) == "{ {1}: (0, {}, may-alias) }"
    assert str(again.config.buffer_donor) == "{ (2, {}) }"
