// RUN: stablehlo-translate --interpret -split-input-file %s
// Generated from value-returning snippets; expected values from the StableHLO reference
// interpreter (jaxlib 0.10) or, where it has no kernel, numpy / the StableHLO spec.

func.func @iota_broadcast_reshape_transpose() {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 2] : (tensor<2x3xi32>) -> tensor<2x4x3xi32>
  %2 = stablehlo.reshape %1 : (tensor<2x4x3xi32>) -> tensor<8x3xi32>
  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<8x3xi32>) -> tensor<3x8xi32>
  check.expect_eq_const %3, dense<[[0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2]]> : tensor<3x8xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "iota_broadcast_reshape_transpose_generic"}> ({
  %0 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>
  %1 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64: 0, 2>}> : (tensor<2x3xi32>) -> tensor<2x4x3xi32>
  %2 = "stablehlo.reshape"(%1) : (tensor<2x4x3xi32>) -> tensor<8x3xi32>
  %3 = "stablehlo.transpose"(%2) <{permutation = array<i64: 1, 0>}> : (tensor<8x3xi32>) -> tensor<3x8xi32>
  "check.expect_eq_const"(%3) <{value = dense<[[0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2]]> : tensor<3x8xi32>}> : (tensor<3x8xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @reverse_slice_concatenate_pad() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %0 = stablehlo.reverse %x, dims = [0, 2] : tensor<2x3x4xf32>
  %1 = stablehlo.slice %0 [0:2, 1:3, 0:4:2] : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %2 = stablehlo.concatenate %1, %1, dim = 2 : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x4xf32>
  %p = stablehlo.constant dense<-1.0> : tensor<f32>
  %3 = stablehlo.pad %2, %p, low = [0, 1, -1], high = [1, 0, 1], interior = [0, 1, 0] : (tensor<2x2x4xf32>, tensor<f32>) -> tensor<3x4x4xf32>
  check.expect_almost_eq_const %3, dense<[[[-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [1.700000e+01, 1.900000e+01, 1.700000e+01, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [2.100000e+01, 2.300000e+01, 2.100000e+01, -1.000000e+00]], [[-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [5.000000e+00, 7.000000e+00, 5.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [9.000000e+00, 1.100000e+01, 9.000000e+00, -1.000000e+00]], [[-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00]]]> : tensor<3x4x4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "reverse_slice_concatenate_pad_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.reverse"(%0) <{dimensions = array<i64: 0, 2>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = "stablehlo.slice"(%1) <{limit_indices = array<i64: 2, 3, 4>, start_indices = array<i64: 0, 1, 0>, strides = array<i64: 1, 1, 2>}> : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %3 = "stablehlo.concatenate"(%2, %2) <{dimension = 2 : i64}> : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x4xf32>
  %4 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %5 = "stablehlo.pad"(%3, %4) <{edge_padding_high = array<i64: 1, 0, 1>, edge_padding_low = array<i64: 0, 1, -1>, interior_padding = array<i64: 0, 1, 0>}> : (tensor<2x2x4xf32>, tensor<f32>) -> tensor<3x4x4xf32>
  "check.expect_almost_eq_const"(%5) <{value = dense<[[[-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [1.700000e+01, 1.900000e+01, 1.700000e+01, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [2.100000e+01, 2.300000e+01, 2.100000e+01, -1.000000e+00]], [[-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [5.000000e+00, 7.000000e+00, 5.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [9.000000e+00, 1.100000e+01, 9.000000e+00, -1.000000e+00]], [[-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00], [-1.000000e+00, -1.000000e+00, -1.000000e+00, -1.000000e+00]]]> : tensor<3x4x4xf32>}> : (tensor<3x4x4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @dynamic_slice_update_slice() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %i = stablehlo.constant dense<1> : tensor<i64>
  %j = stablehlo.constant dense<5> : tensor<i64>
  %k = stablehlo.constant dense<-1> : tensor<i64>
  %0 = stablehlo.dynamic_slice %x, %i, %j, %k, sizes = [1, 2, 2] : (tensor<2x3x4xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<1x2x2xf32>
  %1 = stablehlo.dynamic_update_slice %x, %0, %k, %i, %j : (tensor<2x3x4xf32>, tensor<1x2x2xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2x3x4xf32>
  check.expect_almost_eq_const %0, dense<[[[1.600000e+01, 1.700000e+01], [2.000000e+01, 2.100000e+01]]]> : tensor<1x2x2xf32>
  check.expect_almost_eq_const %1, dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 1.600000e+01, 1.700000e+01], [8.000000e+00, 9.000000e+00, 2.000000e+01, 2.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "dynamic_slice_update_slice_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %2 = "stablehlo.constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
  %3 = "stablehlo.constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
  %4 = "stablehlo.dynamic_slice"(%0, %1, %2, %3) <{slice_sizes = array<i64: 1, 2, 2>}> : (tensor<2x3x4xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<1x2x2xf32>
  %5 = "stablehlo.dynamic_update_slice"(%0, %4, %3, %1, %2) : (tensor<2x3x4xf32>, tensor<1x2x2xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2x3x4xf32>
  "check.expect_almost_eq_const"(%4) <{value = dense<[[[1.600000e+01, 1.700000e+01], [2.000000e+01, 2.100000e+01]]]> : tensor<1x2x2xf32>}> : (tensor<1x2x2xf32>) -> ()
  "check.expect_almost_eq_const"(%5) <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 1.600000e+01, 1.700000e+01], [8.000000e+00, 9.000000e+00, 2.000000e+01, 2.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : (tensor<2x3x4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @dynamic_shape_ops() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %s = stablehlo.constant dense<[2, 2, 3, 4]> : tensor<4xi64>
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1, 2, 3] : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x2x3x4xf32>
  %r = stablehlo.constant dense<[4, 6]> : tensor<2xi32>
  %1 = stablehlo.dynamic_reshape %x, %r : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<4x6xf32>
  %n = stablehlo.constant dense<[3]> : tensor<1xi64>
  %2 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<3xui32>
  %5 = stablehlo.get_dimension_size %x, dim = 2 : (tensor<2x3x4xf32>) -> tensor<i32>
  check.expect_almost_eq_const %0, dense<[[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]], [[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]]> : tensor<2x2x3x4xf32>
  check.expect_almost_eq_const %1, dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01], [1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01, 1.700000e+01], [1.800000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]> : tensor<4x6xf32>
  check.expect_eq_const %2, dense<[0, 1, 2]> : tensor<3xui32>
  check.expect_eq_const %5, dense<4> : tensor<i32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "dynamic_shape_ops_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[2, 2, 3, 4]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %2 = "stablehlo.dynamic_broadcast_in_dim"(%0, %1) <{broadcast_dimensions = array<i64: 1, 2, 3>}> : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x2x3x4xf32>
  %3 = "stablehlo.constant"() <{value = dense<[4, 6]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %4 = "stablehlo.dynamic_reshape"(%0, %3) : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<4x6xf32>
  %5 = "stablehlo.constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %6 = "stablehlo.dynamic_iota"(%5) <{iota_dimension = 0 : i64}> : (tensor<1xi64>) -> tensor<3xui32>
  %7 = "stablehlo.get_dimension_size"(%0) <{dimension = 2 : i64}> : (tensor<2x3x4xf32>) -> tensor<i32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]], [[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]]> : tensor<2x2x3x4xf32>}> : (tensor<2x2x3x4xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01], [1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01, 1.700000e+01], [1.800000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]> : tensor<4x6xf32>}> : (tensor<4x6xf32>) -> ()
  "check.expect_eq_const"(%6) <{value = dense<[0, 1, 2]> : tensor<3xui32>}> : (tensor<3xui32>) -> ()
  "check.expect_eq_const"(%7) <{value = dense<4> : tensor<i32>}> : (tensor<i32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @real_dynamic_slice_dynamic_pad() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %lo = stablehlo.constant dense<[0, 1, 0]> : tensor<3xi64>
  %hi = stablehlo.constant dense<[2, 3, 4]> : tensor<3xi64>
  %st = stablehlo.constant dense<[1, 1, 2]> : tensor<3xi64>
  %3 = stablehlo.real_dynamic_slice %x, %lo, %hi, %st : (tensor<2x3x4xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x2x2xf32>
  %pv = stablehlo.constant dense<0.5> : tensor<f32>
  %pl = stablehlo.constant dense<[1, 0, 0]> : tensor<3xi64>
  %ph = stablehlo.constant dense<[0, 0, 1]> : tensor<3xi64>
  %pi = stablehlo.constant dense<[0, 1, 0]> : tensor<3xi64>
  %4 = stablehlo.dynamic_pad %x, %pv, %pl, %ph, %pi : (tensor<2x3x4xf32>, tensor<f32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x5x5xf32>
  check.expect_almost_eq_const %3, dense<[[[4.000000000e+00, 6.000000000e+00], [8.000000000e+00, 1.000000000e+01]], [[1.600000000e+01, 1.800000000e+01], [2.000000000e+01, 2.200000000e+01]]]> : tensor<2x2x2xf32>
  check.expect_almost_eq_const %4, dense<[[[5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01]], [[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01, 5.000000000e-01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01, 5.000000000e-01]]]> : tensor<3x5x5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "real_dynamic_slice_dynamic_pad_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[0, 1, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %2 = "stablehlo.constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %3 = "stablehlo.constant"() <{value = dense<[1, 1, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %4 = "stablehlo.real_dynamic_slice"(%0, %1, %2, %3) : (tensor<2x3x4xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x2x2xf32>
  %5 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %6 = "stablehlo.constant"() <{value = dense<[1, 0, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %7 = "stablehlo.constant"() <{value = dense<[0, 0, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %8 = "stablehlo.constant"() <{value = dense<[0, 1, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %9 = "stablehlo.dynamic_pad"(%0, %5, %6, %7, %8) : (tensor<2x3x4xf32>, tensor<f32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x5x5xf32>
  "check.expect_almost_eq_const"(%4) <{value = dense<[[[4.000000000e+00, 6.000000000e+00], [8.000000000e+00, 1.000000000e+01]], [[1.600000000e+01, 1.800000000e+01], [2.000000000e+01, 2.200000000e+01]]]> : tensor<2x2x2xf32>}> : (tensor<2x2x2xf32>) -> ()
  "check.expect_almost_eq_const"(%9) <{value = dense<[[[5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01]], [[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01, 5.000000000e-01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01, 5.000000000e-01]]]> : tensor<3x5x5xf32>}> : (tensor<3x5x5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @gather_scatter() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %idx = stablehlo.constant dense<[[0, 1], [1, 2]]> : tensor<2x2xi32>
  %0 = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 4>}> : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x4xf32>
  %u = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %1 = "stablehlo.scatter"(%x, %idx, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x3x4xf32>, tensor<2x2xi32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %sz = stablehlo.constant dense<[1, 1, 2]> : tensor<3xi32>
  %2 = "stablehlo.dynamic_gather"(%x, %idx, %sz) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>}> : (tensor<2x3x4xf32>, tensor<2x2xi32>, tensor<3xi32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %0, dense<[[4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]> : tensor<2x4xf32>
  check.expect_almost_eq_const %1, dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [5.000000000e+00, 6.000000000e+00, 7.000000000e+00, 8.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.100000000e+01, 2.200000000e+01, 2.300000000e+01, 2.400000000e+01]]]> : tensor<2x3x4xf32>
  check.expect_almost_eq_const %2, dense<[[4.000000000e+00, 5.000000000e+00], [2.000000000e+01, 2.100000000e+01]]> : tensor<2x2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "gather_scatter_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[0, 1], [1, 2]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %2 = "stablehlo.gather"(%0, %1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 4>}> : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x4xf32>
  %3 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %4 = "stablehlo.scatter"(%0, %1, %3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>}> ({
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
    %7 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%7) : (tensor<f32>) -> ()
  }) : (tensor<2x3x4xf32>, tensor<2x2xi32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %5 = "stablehlo.constant"() <{value = dense<[1, 1, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %6 = "stablehlo.dynamic_gather"(%0, %1, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>}> : (tensor<2x3x4xf32>, tensor<2x2xi32>, tensor<3xi32>) -> tensor<2x2xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [5.000000000e+00, 6.000000000e+00, 7.000000000e+00, 8.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.100000000e+01, 2.200000000e+01, 2.300000000e+01, 2.400000000e+01]]]> : tensor<2x3x4xf32>}> : (tensor<2x3x4xf32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<[[4.000000000e+00, 5.000000000e+00], [2.000000000e+01, 2.100000000e+01]]> : tensor<2x2xf32>}> : (tensor<2x2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @reduce_reduce_window_select_and_scatter() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %1 = "stablehlo.reduce_window"(%x, %m) <{window_dimensions = array<i64: 1, 2, 2>, window_strides = array<i64: 1, 1, 2>, padding = dense<[[0, 0], [1, 0], [0, 0]]> : tensor<3x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x2xf32>
  %src = stablehlo.constant dense<1.0> : tensor<2x1x2xf32>
  %2 = "stablehlo.select_and_scatter"(%x, %src, %z) <{window_dimensions = array<i64: 1, 3, 2>, window_strides = array<i64: 1, 3, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x3x4xf32>, tensor<2x1x2xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  check.expect_almost_eq_const %0, dense<[[1.200000e+01, 1.500000e+01, 1.800000e+01, 2.100000e+01], [4.800000e+01, 5.100000e+01, 5.400000e+01, 5.700000e+01]]> : tensor<2x4xf32>
  check.expect_almost_eq_const %1, dense<[[[1.000000e+00, 3.000000e+00], [5.000000e+00, 7.000000e+00], [9.000000e+00, 1.100000e+01]], [[1.300000e+01, 1.500000e+01], [1.700000e+01, 1.900000e+01], [2.100000e+01, 2.300000e+01]]]> : tensor<2x3x2xf32>
  check.expect_almost_eq_const %2, dense<[[[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00]], [[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00]]]> : tensor<2x3x4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "reduce_reduce_window_select_and_scatter_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %2 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %3 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 1>}> ({
  ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
    %10 = "stablehlo.add"(%arg6, %arg7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%10) : (tensor<f32>) -> ()
  }) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %4 = "stablehlo.reduce_window"(%0, %2) <{padding = dense<[[0, 0], [1, 0], [0, 0]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 2, 2>, window_strides = array<i64: 1, 1, 2>}> ({
  ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
    %9 = "stablehlo.maximum"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%9) : (tensor<f32>) -> ()
  }) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x2xf32>
  %5 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<2x1x2xf32>}> : () -> tensor<2x1x2xf32>
  %6 = "stablehlo.select_and_scatter"(%0, %5, %1) <{window_dimensions = array<i64: 1, 3, 2>, window_strides = array<i64: 1, 3, 2>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %8 = "stablehlo.compare"(%arg2, %arg3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%8) : (tensor<i1>) -> ()
  }, {
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
    %7 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%7) : (tensor<f32>) -> ()
  }) : (tensor<2x3x4xf32>, tensor<2x1x2xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  "check.expect_almost_eq_const"(%3) <{value = dense<[[1.200000e+01, 1.500000e+01, 1.800000e+01, 2.100000e+01], [4.800000e+01, 5.100000e+01, 5.400000e+01, 5.700000e+01]]> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[[[1.000000e+00, 3.000000e+00], [5.000000e+00, 7.000000e+00], [9.000000e+00, 1.100000e+01]], [[1.300000e+01, 1.500000e+01], [1.700000e+01, 1.900000e+01], [2.100000e+01, 2.300000e+01]]]> : tensor<2x3x2xf32>}> : (tensor<2x3x2xf32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<[[[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00]], [[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00]]]> : tensor<2x3x4xf32>}> : (tensor<2x3x4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @reduce_variadic_argmax() {
  %x = stablehlo.constant dense<[[3.0, 9.0, 1.0], [4.0, 4.0, 8.0]]> : tensor<2x3xf32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%x init: %m), (%i init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
    %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %k = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %k : tensor<f32>, tensor<i32>
  }
  check.expect_almost_eq_const %0#0, dense<[9.000000e+00, 8.000000e+00]> : tensor<2xf32>
  check.expect_eq_const %0#1, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "reduce_variadic_argmax_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[3.000000e+00, 9.000000e+00, 1.000000e+00], [4.000000e+00, 4.000000e+00, 8.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>
  %2 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
  %3 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %4:2 = "stablehlo.reduce"(%0, %1, %2, %3) <{dimensions = array<i64: 1>}> ({
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<i32>, %arg2: tensor<f32>, %arg3: tensor<i32>):
    %5 = "stablehlo.compare"(%arg0, %arg2) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = "stablehlo.select"(%5, %arg0, %arg2) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %7 = "stablehlo.select"(%5, %arg1, %arg3) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%6, %7) : (tensor<f32>, tensor<i32>) -> ()
  }) : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
  "check.expect_almost_eq_const"(%4#0) <{value = dense<[9.000000e+00, 8.000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_eq_const"(%4#1) <{value = dense<[1, 2]> : tensor<2xi32>}> : (tensor<2xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sort_map() {
  %x = stablehlo.constant dense<[[3.0, 9.0, 1.0], [4.0, -4.0, 8.0]]> : tensor<2x3xf32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %0:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %1 = "stablehlo.map"(%x, %0#0) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const %0#0, dense<[[9.000000e+00, 3.000000e+00, 1.000000e+00], [8.000000e+00, 4.000000e+00, -4.000000e+00]]> : tensor<2x3xf32>
  check.expect_eq_const %0#1, dense<[[1, 0, 2], [2, 0, 1]]> : tensor<2x3xi32>
  check.expect_almost_eq_const %1, dense<[[-6.000000e+00, 6.000000e+00, 0.000000e+00], [-4.000000e+00, -8.000000e+00, 1.200000e+01]]> : tensor<2x3xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sort_map_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[3.000000e+00, 9.000000e+00, 1.000000e+00], [4.000000e+00, -4.000000e+00, 8.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>
  %2:2 = "stablehlo.sort"(%0, %1) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
    %5 = "stablehlo.compare"(%arg2, %arg3) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%5) : (tensor<i1>) -> ()
  }) : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %3 = "stablehlo.map"(%0, %2#0) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
    %4 = "stablehlo.subtract"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%4) : (tensor<f32>) -> ()
  }) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "check.expect_almost_eq_const"(%2#0) <{value = dense<[[9.000000e+00, 3.000000e+00, 1.000000e+00], [8.000000e+00, 4.000000e+00, -4.000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_eq_const"(%2#1) <{value = dense<[[1, 0, 2], [2, 0, 1]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_almost_eq_const"(%3) <{value = dense<[[-6.000000e+00, 6.000000e+00, 0.000000e+00], [-4.000000e+00, -8.000000e+00, 1.200000e+01]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @while_if_case() {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %acc = stablehlo.constant dense<1.0> : tensor<f32>
  %0:2 = stablehlo.while(%it = %c0, %v = %acc) : tensor<i32>, tensor<f32>
   cond {
    %p = stablehlo.compare LT, %it, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.add %it, %c1 : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<f32>
    stablehlo.return %n, %w : tensor<i32>, tensor<f32>
  }
  %t = stablehlo.constant dense<true> : tensor<i1>
  %1 = "stablehlo.if"(%t) ({
    stablehlo.return %0#1 : tensor<f32>
  }, {
    stablehlo.return %acc : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %2 = "stablehlo.case"(%c5) ({
    stablehlo.return %c0 : tensor<i32>
  }, {
    stablehlo.return %c1 : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  check.expect_eq_const %0#0, dense<5> : tensor<i32>
  check.expect_almost_eq_const %0#1, dense<3.200000e+01> : tensor<f32>
  check.expect_almost_eq_const %1, dense<3.200000e+01> : tensor<f32>
  check.expect_eq_const %2, dense<1> : tensor<i32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "while_if_case_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %1 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %2 = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %3 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %4:2 = "stablehlo.while"(%0, %3) ({
  ^bb0(%arg2: tensor<i32>, %arg3: tensor<f32>):
    %10 = "stablehlo.compare"(%arg2, %2) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%10) : (tensor<i1>) -> ()
  }, {
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<f32>):
    %8 = "stablehlo.add"(%arg0, %1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %9 = "stablehlo.add"(%arg1, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%8, %9) : (tensor<i32>, tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  %5 = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %6 = "stablehlo.if"(%5) ({
    "stablehlo.return"(%4#1) : (tensor<f32>) -> ()
  }, {
    "stablehlo.return"(%3) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  %7 = "stablehlo.case"(%2) ({
    "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%1) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  "check.expect_eq_const"(%4#0) <{value = dense<5> : tensor<i32>}> : (tensor<i32>) -> ()
  "check.expect_almost_eq_const"(%4#1) <{value = dense<3.200000e+01> : tensor<f32>}> : (tensor<f32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<3.200000e+01> : tensor<f32>}> : (tensor<f32>) -> ()
  "check.expect_eq_const"(%7) <{value = dense<1> : tensor<i32>}> : (tensor<i32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @dot_general_convolution() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %y = stablehlo.constant dense<[[[0.000000000e+00, 1.000000015e-01, 2.000000030e-01, 3.000000119e-01, 4.000000060e-01], [5.000000000e-01, 6.000000238e-01, 6.999999881e-01, 8.000000119e-01, 8.999999762e-01], [1.000000000e+00, 1.100000024e+00, 1.200000048e+00, 1.299999952e+00, 1.399999976e+00], [1.500000000e+00, 1.600000024e+00, 1.700000048e+00, 1.799999952e+00, 1.899999976e+00]], [[2.000000000e+00, 2.099999905e+00, 2.200000048e+00, 2.299999952e+00, 2.400000095e+00], [2.500000000e+00, 2.599999905e+00, 2.700000048e+00, 2.799999952e+00, 2.900000095e+00], [3.000000000e+00, 3.099999905e+00, 3.200000048e+00, 3.299999952e+00, 3.400000095e+00], [3.500000000e+00, 3.599999905e+00, 3.700000048e+00, 3.799999952e+00, 3.900000095e+00]]]> : tensor<2x4x5xf32>
  %0 = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %k = stablehlo.constant dense<[[[1.0, 0.0], [0.0, -1.0], [1.0, 1.0]], [[0.5, 0.5], [2.0, 1.0], [0.0, 3.0]]]> : tensor<2x3x2xf32>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[1, 0]], lhs_dilate = [1], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  check.expect_almost_eq_const %0, dense<[[[7.000000e+00, 7.60000038, 8.20000076, 8.79999924, 9.39999961], [1.900000e+01, 2.120000e+01, 23.4000015, 25.5999985, 2.780000e+01], [3.100000e+01, 34.8000031, 3.860000e+01, 4.240000e+01, 46.1999969]], [[1.510000e+02, 1.564000e+02, 1.618000e+02, 1.672000e+02, 1.726000e+02], [1.950000e+02, 2.020000e+02, 209.000015, 215.999985, 2.230000e+02], [2.390000e+02, 247.599976, 2.562000e+02, 2.648000e+02, 273.400024]]]> : tensor<2x3x5xf32>
  check.expect_almost_eq_const %1, dense<[[[4.000000e+00, 1.400000e+01], [2.800000e+01, 4.750000e+01]], [[4.000000e+00, 3.800000e+01], [8.200000e+01, 1.315000e+02]]]> : tensor<2x2x2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "dot_general_convolution_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01], [5.000000e-01, 6.000000e-01, 0.699999988, 8.000000e-01, 0.899999976], [1.000000e+00, 1.100000e+00, 1.200000e+00, 1.300000e+00, 1.400000e+00], [1.500000e+00, 1.600000e+00, 1.700000e+00, 1.800000e+00, 1.900000e+00]], [[2.000000e+00, 2.100000e+00, 2.200000e+00, 2.300000e+00, 2.400000e+00], [2.500000e+00, 2.600000e+00, 2.700000e+00, 2.800000e+00, 2.900000e+00], [3.000000e+00, 3.100000e+00, 3.200000e+00, 3.300000e+00, 3.400000e+00], [3.500000e+00, 3.600000e+00, 3.700000e+00, 3.800000e+00, 3.900000e+00]]]> : tensor<2x4x5xf32>}> : () -> tensor<2x4x5xf32>
  %2 = "stablehlo.dot_general"(%0, %1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %3 = "stablehlo.constant"() <{value = dense<[[[1.000000e+00, 0.000000e+00], [0.000000e+00, -1.000000e+00], [1.000000e+00, 1.000000e+00]], [[5.000000e-01, 5.000000e-01], [2.000000e+00, 1.000000e+00], [0.000000e+00, 3.000000e+00]]]> : tensor<2x3x2xf32>}> : () -> tensor<2x3x2xf32>
  %4 = "stablehlo.convolution"(%0, %3) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1>, padding = dense<[[1, 0]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_strides = array<i64: 2>}> : (tensor<2x3x4xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[[7.000000e+00, 7.60000038, 8.20000076, 8.79999924, 9.39999961], [1.900000e+01, 2.120000e+01, 23.4000015, 25.5999985, 2.780000e+01], [3.100000e+01, 34.8000031, 3.860000e+01, 4.240000e+01, 46.1999969]], [[1.510000e+02, 1.564000e+02, 1.618000e+02, 1.672000e+02, 1.726000e+02], [1.950000e+02, 2.020000e+02, 209.000015, 215.999985, 2.230000e+02], [2.390000e+02, 247.599976, 2.562000e+02, 2.648000e+02, 273.400024]]]> : tensor<2x3x5xf32>}> : (tensor<2x3x5xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[[[4.000000e+00, 1.400000e+01], [2.800000e+01, 4.750000e+01]], [[4.000000e+00, 3.800000e+01], [8.200000e+01, 1.315000e+02]]]> : tensor<2x2x2xf32>}> : (tensor<2x2x2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @fft_cholesky_triangular_solve() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 0.0, -1.0], [0.5, 0.5, 0.5, 0.5]]> : tensor<2x4xf32>
  %0 = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>>
  %1 = stablehlo.fft %0, type = IRFFT, length = [4] : (tensor<2x3xcomplex<f32>>) -> tensor<2x4xf32>
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %2 = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %3 = "stablehlo.triangular_solve"(%2, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %0, dense<[[(2.000000000e+00, 0.000000000e+00), (1.000000000e+00, -3.000000000e+00), (0.000000000e+00, 0.000000000e+00)], [(2.000000000e+00, 0.000000000e+00), (0.000000000e+00, 0.000000000e+00), (0.000000000e+00, 0.000000000e+00)]]> : tensor<2x3xcomplex<f32>>
  check.expect_almost_eq_const %1, dense<[[1.000000000e+00, 2.000000000e+00, 0.000000000e+00, -1.000000000e+00], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01]]> : tensor<2x4xf32>
  check.expect_almost_eq_const %2, dense<[[2.000000000e+00, 0.000000000e+00], [1.000000000e+00, 1.414213538e+00]]> : tensor<2x2xf32>
  check.expect_almost_eq_const %3, dense<[[5.000000000e-01], [1.060660124e+00]]> : tensor<2x1xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "fft_cholesky_triangular_solve_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[1.000000e+00, 2.000000e+00, 0.000000e+00, -1.000000e+00], [5.000000e-01, 5.000000e-01, 5.000000e-01, 5.000000e-01]]> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %1 = "stablehlo.fft"(%0) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type RFFT>}> : (tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>>
  %2 = "stablehlo.fft"(%1) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type IRFFT>}> : (tensor<2x3xcomplex<f32>>) -> tensor<2x4xf32>
  %3 = "stablehlo.constant"() <{value = dense<[[4.000000e+00, 2.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %4 = "stablehlo.cholesky"(%3) <{lower = true}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %5 = "stablehlo.constant"() <{value = dense<[[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
  %6 = "stablehlo.triangular_solve"(%4, %5) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[[(2.000000000e+00, 0.000000000e+00), (1.000000000e+00, -3.000000000e+00), (0.000000000e+00, 0.000000000e+00)], [(2.000000000e+00, 0.000000000e+00), (0.000000000e+00, 0.000000000e+00), (0.000000000e+00, 0.000000000e+00)]]> : tensor<2x3xcomplex<f32>>}> : (tensor<2x3xcomplex<f32>>) -> ()
  "check.expect_almost_eq_const"(%2) <{value = dense<[[1.000000000e+00, 2.000000000e+00, 0.000000000e+00, -1.000000000e+00], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01, 5.000000000e-01]]> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[[2.000000000e+00, 0.000000000e+00], [1.000000000e+00, 1.414213538e+00]]> : tensor<2x2xf32>}> : (tensor<2x2xf32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<[[5.000000000e-01], [1.060660124e+00]]> : tensor<2x1xf32>}> : (tensor<2x1xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @batch_norm() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf32>
  %s = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %o = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) <{epsilon = 1.0e-3 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %1 = "stablehlo.batch_norm_inference"(%x, %s, %o, %0#1, %0#2) <{epsilon = 1.0e-3 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %2:3 = "stablehlo.batch_norm_grad"(%x, %s, %0#1, %0#2, %x) <{epsilon = 1.0e-3 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %0#0, dense<[[-9.995003939e-01, -9.997500181e-01], [9.995003939e-01, 2.999750137e+00]]> : tensor<2x2xf32>
  check.expect_almost_eq_const %0#1, dense<[2.000000000e+00, 4.000000000e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %0#2, dense<[1.000000000e+00, 4.000000000e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %1, dense<[[-9.995003939e-01, -9.997500181e-01], [9.995003939e-01, 2.999750137e+00]]> : tensor<2x2xf32>
  check.expect_almost_eq_const %2#0, dense<[[-9.985018987e-04, -4.998125369e-04], [9.985018987e-04, 4.998125369e-04]]> : tensor<2x2xf32>
  check.expect_almost_eq_const %2#1, dense<[1.999000788e+00, 3.999500036e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %2#2, dense<[4.000000000e+00, 8.000000000e+00]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "batch_norm_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %2 = "stablehlo.constant"() <{value = dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %3:3 = "stablehlo.batch_norm_training"(%0, %1, %2) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %4 = "stablehlo.batch_norm_inference"(%0, %1, %2, %3#1, %3#2) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %5:3 = "stablehlo.batch_norm_grad"(%0, %1, %3#1, %3#2, %0) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  "check.expect_almost_eq_const"(%3#0) <{value = dense<[[-9.995003939e-01, -9.997500181e-01], [9.995003939e-01, 2.999750137e+00]]> : tensor<2x2xf32>}> : (tensor<2x2xf32>) -> ()
  "check.expect_almost_eq_const"(%3#1) <{value = dense<[2.000000000e+00, 4.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%3#2) <{value = dense<[1.000000000e+00, 4.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[[-9.995003939e-01, -9.997500181e-01], [9.995003939e-01, 2.999750137e+00]]> : tensor<2x2xf32>}> : (tensor<2x2xf32>) -> ()
  "check.expect_almost_eq_const"(%5#0) <{value = dense<[[-9.985018987e-04, -4.998125369e-04], [9.985018987e-04, 4.998125369e-04]]> : tensor<2x2xf32>}> : (tensor<2x2xf32>) -> ()
  "check.expect_almost_eq_const"(%5#1) <{value = dense<[1.999000788e+00, 3.999500036e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%5#2) <{value = dense<[4.000000000e+00, 8.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @rng_bit_generator_barrier_tuple() {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %1:2 = stablehlo.optimization_barrier %0#0, %0#1 : tensor<2xui64>, tensor<2x2xui32>
  %t = stablehlo.tuple %1#0, %1#1 : tuple<tensor<2xui64>, tensor<2x2xui32>>
  %2 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xui64>, tensor<2x2xui32>>) -> tensor<2x2xui32>
  check.expect_eq_const %1#0, dense<[1, 4]> : tensor<2xui64>
  check.expect_eq_const %2, dense<[[43444564, 3979645651], [2150618427, 3745730563]]> : tensor<2x2xui32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "rng_bit_generator_barrier_tuple_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xui64>}> : () -> tensor<2xui64>
  %1:2 = "stablehlo.rng_bit_generator"(%0) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %2:2 = "stablehlo.optimization_barrier"(%1#0, %1#1) : (tensor<2xui64>, tensor<2x2xui32>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %3 = "stablehlo.tuple"(%2#0, %2#1) : (tensor<2xui64>, tensor<2x2xui32>) -> tuple<tensor<2xui64>, tensor<2x2xui32>>
  %4 = "stablehlo.get_tuple_element"(%3) <{index = 1 : i32}> : (tuple<tensor<2xui64>, tensor<2x2xui32>>) -> tensor<2x2xui32>
  "check.expect_eq_const"(%2#0) <{value = dense<[1, 4]> : tensor<2xui64>}> : (tensor<2xui64>) -> ()
  "check.expect_eq_const"(%4) <{value = dense<[[43444564, 3979645651], [2150618427, 3745730563]]> : tensor<2x2xui32>}> : (tensor<2x2xui32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @replica_partition_id_single_device() {
  %0 = stablehlo.replica_id : tensor<ui32>
  %1 = stablehlo.partition_id : tensor<ui32>
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0]]> : tensor<1x1xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  %4 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  %5 = "stablehlo.all_to_all"(%x) <{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 1 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<0> : tensor<ui32>
  check.expect_eq_const %1, dense<0> : tensor<ui32>
  check.expect_almost_eq_const %2, dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %3, dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %4, dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %5, dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "replica_partition_id_single_device_generic"}> ({
  %0 = "stablehlo.replica_id"() : () -> tensor<ui32>
  %1 = "stablehlo.partition_id"() : () -> tensor<ui32>
  %2 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %3 = "stablehlo.all_reduce"(%2) <{replica_groups = dense<0> : tensor<1x1xi64>}> ({
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
    %7 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%7) : (tensor<f32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  %4 = "stablehlo.all_gather"(%2) <{all_gather_dim = 0 : i64, replica_groups = dense<0> : tensor<1x1xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  %5 = "stablehlo.collective_permute"(%2) <{source_target_pairs = dense<0> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  %6 = "stablehlo.all_to_all"(%2) <{concat_dimension = 0 : i64, replica_groups = dense<0> : tensor<1x1xi64>, split_count = 1 : i64, split_dimension = 0 : i64}> : (tensor<2xf32>) -> tensor<2xf32>
  "check.expect_eq_const"(%0) <{value = dense<0> : tensor<ui32>}> : (tensor<ui32>) -> ()
  "check.expect_eq_const"(%1) <{value = dense<0> : tensor<ui32>}> : (tensor<ui32>) -> ()
  "check.expect_almost_eq_const"(%3) <{value = dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%5) <{value = dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<[1.000000000e+00, 2.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()
