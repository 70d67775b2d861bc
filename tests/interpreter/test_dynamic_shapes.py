"""Dynamic shapes: get/set-dimension-size, dynamic-reshape, dynamic-broadcast-in-dim,
dynamic-iota, dynamic-pad, real-dynamic-slice, dynamic-gather (runtime sizes, unbounded
result dims).

Values from OPS.md and the conformance files (interpret/dynamic_*.mlir).
"""

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgument


def run(text, *args):
    results = xlapy.run(xlapy.load(text), *args, platform="interpreter")
    return results[0] if len(results) == 1 else results


def assert_same(got, want):
    __tracebackhide__ = True
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.tobytes() == want.tobytes(), f"got {got!r}, expected {want!r}"


# ---- get/set-dimension-size ----------------------------------------------------------------


def test_get_dimension_size_conformance():
    got = run(
        """HloModule m
ENTRY e {
  x = s64[2,3] parameter(0)
  ROOT d = s32[] get-dimension-size(x), dimensions={1}
}""",
        np.arange(6, dtype=np.int64).reshape(2, 3),
    )
    assert_same(got, np.int32(3))


SET_SIZE_THEN_REDUCE = """HloModule m
add {{ a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT r = f32[] {op}(a, b) }}
ENTRY e {{
  v = f32[10] parameter(0)
  n = s32[] parameter(1)
  padded = f32[<=10] set-dimension-size(v, n), dimensions={{0}}
  init = f32[] constant({init})
  total = f32[] reduce(padded, init), dimensions={{0}}, to_apply=add
  size = s32[] get-dimension-size(padded), dimensions={{0}}
  ROOT t = (f32[], s32[]) tuple(total, size)
}}"""


@pytest.mark.parametrize(
    ("op", "init", "size", "want"),
    [("add", 0, 5, 15.0), ("add", 0, 6, 21.0), ("multiply", 1, 5, 120.0)],
)
def test_set_dimension_size_ops_md_example(op, init, size, want):
    """Padded values (beyond the dynamic size) are ignored by the reduction."""
    v = np.arange(1, 11, dtype=np.float32)
    total, got_size = run(SET_SIZE_THEN_REDUCE.format(op=op, init=init), v, np.int32(size))
    assert_same(total, np.float32(want))
    assert_same(got_size, np.int32(size))


def test_set_dimension_size_beyond_the_bound_is_an_error():
    with pytest.raises(InvalidArgument, match=r"set-dimension-size .* \[C3\]: size must be in"):
        run(
            SET_SIZE_THEN_REDUCE.format(op="add", init=0),
            np.zeros(10, np.float32),
            np.int32(11),
        )


# ---- StableHLO dynamic ops -----------------------------------------------------------------


def test_dynamic_reshape_conformance_and_runtime_shape():
    text = """func.func @main(%operand: tensor<1x6xi64>, %shape: tensor<2xi64>) -> tensor<?x?xi64> {
  %result = stablehlo.dynamic_reshape %operand, %shape : (tensor<1x6xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  func.return %result : tensor<?x?xi64>
}"""
    x = np.array([[1, 2, 3, 4, 5, 6]], np.int64)
    assert_same(run(text, x, np.array([3, 2], np.int64)), x.reshape(3, 2))
    assert_same(run(text, x, np.array([1, 6], np.int64)), x)
    with pytest.raises(InvalidArgument, match=r"dynamic-reshape .* \[C4\]: output_shape must"):
        run(text, x, np.array([4, 2], np.int64))


def test_dynamic_broadcast_in_dim_conformance():
    text = """func.func @main(%operand: tensor<3x1xi64>, %dims: tensor<3xi64>) -> tensor<?x?x?xi64> {
  %result = "stablehlo.dynamic_broadcast_in_dim"(%operand, %dims) {
    broadcast_dimensions = array<i64: 0, 2>,
    known_expanding_dimensions = array<i64: 1>,
    known_nonexpanding_dimensions = array<i64: 0>
  } : (tensor<3x1xi64>, tensor<3xi64>) -> tensor<?x?x?xi64>
  func.return %result : tensor<?x?x?xi64>
}"""
    x = np.array([[1], [2], [3]], np.int64)
    got = run(text, x, np.array([3, 2, 2], np.int64))
    assert_same(got, np.broadcast_to(x[:, None, :], (3, 2, 2)))


def test_dynamic_iota_conformance():
    text = """func.func @main(%shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}"""
    got = run(text, np.array([3, 4], np.int64))
    assert_same(got, np.tile(np.arange(4, dtype=np.float32), (3, 1)))


def test_dynamic_pad_conformance():
    text = """func.func @main(%operand: tensor<5x4xi64>, %low: tensor<2xi64>, %high: tensor<2xi64>,
                 %interior: tensor<2xi64>) -> tensor<?x?xi64> {
  %padding_value = stablehlo.constant dense<-1> : tensor<i64>
  %result = stablehlo.dynamic_pad %operand, %padding_value, %low, %high, %interior
    : (tensor<5x4xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  func.return %result : tensor<?x?xi64>
}"""
    x = np.array([[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0], [0, 0, 0, 0]], np.int64)
    low = high = np.array([1, -1], np.int64)
    got = run(text, x, low, high, np.array([0, 1], np.int64))
    want = [
        [-1, -1, -1, -1, -1],
        [-1, 0, -1, 0, -1],
        [-1, 1, -1, 2, -1],
        [-1, 3, -1, 4, -1],
        [-1, 5, -1, 6, -1],
        [-1, 0, -1, 0, -1],
        [-1, -1, -1, -1, -1],
    ]
    assert_same(got, np.array(want, np.int64))


def test_real_dynamic_slice():
    text = """func.func @main(%operand: tensor<?x4xf32>, %start: tensor<2xi32>, %limit: tensor<2xi32>,
                 %strides: tensor<2xi32>) -> tensor<?x?xf32> {
  %0 = stablehlo.real_dynamic_slice %operand, %start, %limit, %strides
    : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}"""
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    i32 = np.int32
    got = run(text, x, np.array([1, 0], i32), np.array([6, 3], i32), np.array([2, 2], i32))
    assert_same(got, x[1:6:2, 0:3:2])
    with pytest.raises(InvalidArgument, match=r"real-dynamic-slice .*: dimension 1 needs"):
        run(text, x, np.array([0, 2], i32), np.array([6, 5], i32), np.array([1, 1], i32))


def test_dynamic_gather_conformance():
    text = """func.func @main(%operand: tensor<3x4x2xi64>, %start_indices: tensor<2x3x2xi64>,
                 %slice_sizes: tensor<3xi64>) -> tensor<2x3x2x2xi64> {
  %result = "stablehlo.dynamic_gather"(%operand, %start_indices, %slice_sizes) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [2, 3],
      collapsed_slice_dims = [0],
      start_index_map = [1, 0],
      index_vector_dim = 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi64>
  func.return %result : tensor<2x3x2x2xi64>
}"""
    operand = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
    indices = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], np.int64)
    got = run(text, operand, indices, np.array([1, 2, 2], np.int64))
    want = [
        [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
        [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]],
    ]
    assert_same(got, np.array(want, np.int64))


def test_unbounded_operands_flow_through_static_ops():
    """A ``?`` dimension takes its size from the runtime value through slice/concat/reshape."""
    text = """func.func @main(%x: tensor<?x2xf32>) -> tensor<?xf32> {
  %0 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %c = stablehlo.constant dense<2> : tensor<1xi32>
  %n = stablehlo.get_dimension_size %0, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %size = stablehlo.multiply %n1, %c : tensor<1xi32>
  %1 = stablehlo.dynamic_reshape %0, %size : (tensor<?x2xf32>, tensor<1xi32>) -> tensor<?xf32>
  func.return %1 : tensor<?xf32>
}"""
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert_same(run(text, x), np.concatenate([x, x]).reshape(-1))
