// RUN: stablehlo-translate --interpret -split-input-file %s
// Generated from value-returning snippets; expected values from the StableHLO reference
// interpreter (jaxlib 0.10) or, where it has no kernel, numpy / the StableHLO spec.

func.func @einsum_matmul() {
  %a = stablehlo.constant dense<[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>
  %b = stablehlo.constant dense<[[-5.000000000e+00, -4.000000000e+00, -3.000000000e+00, -2.000000000e+00], [-1.000000000e+00, 0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<3x4xf32>
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const %0, dense<[[5.000000000e+00, 8.000000000e+00, 1.100000000e+01, 1.400000000e+01], [-4.000000000e+00, 8.000000000e+00, 2.000000000e+01, 3.200000000e+01]]> : tensor<2x4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "einsum_matmul_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[-5.000000e+00, -4.000000e+00, -3.000000e+00, -2.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %2 = "stablehlo.einsum"(%0, %1) <{einsum_config = "ab,bc->ac"}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[5.000000000e+00, 8.000000000e+00, 1.100000000e+01, 1.400000000e+01], [-4.000000000e+00, 8.000000000e+00, 2.000000000e+01, 3.200000000e+01]]> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @einsum_batch_transposed_out() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %y = stablehlo.constant dense<[[[-3.000000000e+00, -2.000000000e+00, -1.000000000e+00, 0.000000000e+00, 1.000000000e+00], [2.000000000e+00, 3.000000000e+00, -3.000000000e+00, -2.000000000e+00, -1.000000000e+00], [0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00, -3.000000000e+00], [-2.000000000e+00, -1.000000000e+00, 0.000000000e+00, 1.000000000e+00, 2.000000000e+00]], [[3.000000000e+00, -3.000000000e+00, -2.000000000e+00, -1.000000000e+00, 0.000000000e+00], [1.000000000e+00, 2.000000000e+00, 3.000000000e+00, -3.000000000e+00, -2.000000000e+00], [-1.000000000e+00, 0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [-3.000000000e+00, -2.000000000e+00, -1.000000000e+00, 0.000000000e+00, 1.000000000e+00]]]> : tensor<2x4x5xf32>
  %0 = stablehlo.einsum %x, %y, config = "bij,bjk->kbi" : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<5x2x3xf32>
  check.expect_almost_eq_const %0, dense<[[[-4.000000000e+00, -1.600000000e+01, -2.800000000e+01], [-1.000000000e+01, -1.000000000e+01, -1.000000000e+01]], [[2.000000000e+00, 6.000000000e+00, 1.000000000e+01], [-4.000000000e+01, -5.200000000e+01, -6.400000000e+01]], [[1.000000000e+00, -7.000000000e+00, -1.500000000e+01], [1.400000000e+01, 1.800000000e+01, 2.200000000e+01]], [[7.000000000e+00, 1.500000000e+01, 2.300000000e+01], [-2.300000000e+01, -3.100000000e+01, -3.900000000e+01]], [[-1.000000000e+00, -5.000000000e+00, -9.000000000e+00], [3.100000000e+01, 3.900000000e+01, 4.700000000e+01]]]> : tensor<5x2x3xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "einsum_batch_transposed_out_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[[-3.000000e+00, -2.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00, -3.000000e+00, -2.000000e+00, -1.000000e+00], [0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, -3.000000e+00], [-2.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00]], [[3.000000e+00, -3.000000e+00, -2.000000e+00, -1.000000e+00, 0.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, -3.000000e+00, -2.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [-3.000000e+00, -2.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00]]]> : tensor<2x4x5xf32>}> : () -> tensor<2x4x5xf32>
  %2 = "stablehlo.einsum"(%0, %1) <{einsum_config = "bij,bjk->kbi"}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<5x2x3xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[[-4.000000000e+00, -1.600000000e+01, -2.800000000e+01], [-1.000000000e+01, -1.000000000e+01, -1.000000000e+01]], [[2.000000000e+00, 6.000000000e+00, 1.000000000e+01], [-4.000000000e+01, -5.200000000e+01, -6.400000000e+01]], [[1.000000000e+00, -7.000000000e+00, -1.500000000e+01], [1.400000000e+01, 1.800000000e+01, 2.200000000e+01]], [[7.000000000e+00, 1.500000000e+01, 2.300000000e+01], [-2.300000000e+01, -3.100000000e+01, -3.900000000e+01]], [[-1.000000000e+00, -5.000000000e+00, -9.000000000e+00], [3.100000000e+01, 3.900000000e+01, 4.700000000e+01]]]> : tensor<5x2x3xf32>}> : (tensor<5x2x3xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @einsum_outer_and_sum_out() {
  %a = stablehlo.constant dense<[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>
  %b = stablehlo.constant dense<[[-5.000000000e+00, -4.000000000e+00, -3.000000000e+00, -2.000000000e+00], [-1.000000000e+00, 0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<3x4xf32>
  %0 = stablehlo.einsum %a, %b, config = "ij,kl->ik" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const %0, dense<[[-4.200000000e+01, 6.000000000e+00, 5.400000000e+01], [-1.680000000e+02, 2.400000000e+01, 2.160000000e+02]]> : tensor<2x3xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "einsum_outer_and_sum_out_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[-5.000000e+00, -4.000000e+00, -3.000000e+00, -2.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %2 = "stablehlo.einsum"(%0, %1) <{einsum_config = "ij,kl->ik"}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[-4.200000000e+01, 6.000000000e+00, 5.400000000e+01], [-1.680000000e+02, 2.400000000e+01, 2.160000000e+02]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @einsum_ellipsis_int() {
  %x = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %y = stablehlo.constant dense<[[[-3, -2, -1, 0, 1], [2, 3, -3, -2, -1], [0, 1, 2, 3, -3], [-2, -1, 0, 1, 2]], [[3, -3, -2, -1, 0], [1, 2, 3, -3, -2], [-1, 0, 1, 2, 3], [-3, -2, -1, 0, 1]]]> : tensor<2x4x5xi32>
  %0 = stablehlo.einsum %x, %y, config = "...ij,...jk->...ik" : (tensor<2x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32>
  check.expect_eq_const %0, dense<[[[-4, 2, 1, 7, -1], [-16, 6, -7, 15, -5], [-28, 10, -15, 23, -9]], [[-10, -40, 14, -23, 31], [-10, -52, 18, -31, 39], [-10, -64, 22, -39, 47]]]> : tensor<2x3x5xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "einsum_ellipsis_int_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>}> : () -> tensor<2x3x4xi32>
  %1 = "stablehlo.constant"() <{value = dense<[[[-3, -2, -1, 0, 1], [2, 3, -3, -2, -1], [0, 1, 2, 3, -3], [-2, -1, 0, 1, 2]], [[3, -3, -2, -1, 0], [1, 2, 3, -3, -2], [-1, 0, 1, 2, 3], [-3, -2, -1, 0, 1]]]> : tensor<2x4x5xi32>}> : () -> tensor<2x4x5xi32>
  %2 = "stablehlo.einsum"(%0, %1) <{einsum_config = "...ij,...jk->...ik"}> : (tensor<2x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32>
  "check.expect_eq_const"(%2) <{value = dense<[[[-4, 2, 1, 7, -1], [-16, 6, -7, 15, -5], [-28, 10, -15, 23, -9]], [[-10, -40, 14, -23, 31], [-10, -52, 18, -31, 39], [-10, -64, 22, -39, 47]]]> : tensor<2x3x5xi32>}> : (tensor<2x3x5xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @einsum_implicit_output() {
  %a = stablehlo.constant dense<[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>
  %b = stablehlo.constant dense<[[-5.000000000e+00, -4.000000000e+00, -3.000000000e+00, -2.000000000e+00], [-1.000000000e+00, 0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<3x4xf32>
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ba,ac"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const %0, dense<[[5.000000000e+00, 8.000000000e+00, 1.100000000e+01, 1.400000000e+01], [-4.000000000e+00, 8.000000000e+00, 2.000000000e+01, 3.200000000e+01]]> : tensor<2x4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "einsum_implicit_output_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[-5.000000e+00, -4.000000e+00, -3.000000e+00, -2.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %2 = "stablehlo.einsum"(%0, %1) <{einsum_config = "ba,ac"}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[5.000000000e+00, 8.000000000e+00, 1.100000000e+01, 1.400000000e+01], [-4.000000000e+00, 8.000000000e+00, 2.000000000e+01, 3.200000000e+01]]> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @unary_einsum_trace() {
  %x = stablehlo.constant dense<[[0, 1, 2], [3, 4, 5], [6, 7, 8]]> : tensor<3x3xi32>
  %0 = stablehlo.unary_einsum %x, config = "ii->" : (tensor<3x3xi32>) -> tensor<i32>
  %1 = stablehlo.unary_einsum %x, config = "ii->i" : (tensor<3x3xi32>) -> tensor<3xi32>
  %2 = stablehlo.unary_einsum %x, config = "ij->ji" : (tensor<3x3xi32>) -> tensor<3x3xi32>
  %3 = stablehlo.unary_einsum %x, config = "ij->i" : (tensor<3x3xi32>) -> tensor<3xi32>
  check.expect_eq_const %0, dense<12> : tensor<i32>
  check.expect_eq_const %1, dense<[0, 4, 8]> : tensor<3xi32>
  check.expect_eq_const %2, dense<[[0, 3, 6], [1, 4, 7], [2, 5, 8]]> : tensor<3x3xi32>
  check.expect_eq_const %3, dense<[3, 12, 21]> : tensor<3xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "unary_einsum_trace_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[0, 1, 2], [3, 4, 5], [6, 7, 8]]> : tensor<3x3xi32>}> : () -> tensor<3x3xi32>
  %1 = "stablehlo.unary_einsum"(%0) <{einsum_config = "ii->"}> : (tensor<3x3xi32>) -> tensor<i32>
  %2 = "stablehlo.unary_einsum"(%0) <{einsum_config = "ii->i"}> : (tensor<3x3xi32>) -> tensor<3xi32>
  %3 = "stablehlo.unary_einsum"(%0) <{einsum_config = "ij->ji"}> : (tensor<3x3xi32>) -> tensor<3x3xi32>
  %4 = "stablehlo.unary_einsum"(%0) <{einsum_config = "ij->i"}> : (tensor<3x3xi32>) -> tensor<3xi32>
  "check.expect_eq_const"(%1) <{value = dense<12> : tensor<i32>}> : (tensor<i32>) -> ()
  "check.expect_eq_const"(%2) <{value = dense<[0, 4, 8]> : tensor<3xi32>}> : (tensor<3xi32>) -> ()
  "check.expect_eq_const"(%3) <{value = dense<[[0, 3, 6], [1, 4, 7], [2, 5, 8]]> : tensor<3x3xi32>}> : (tensor<3x3xi32>) -> ()
  "check.expect_eq_const"(%4) <{value = dense<[3, 12, 21]> : tensor<3xi32>}> : (tensor<3xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @unary_einsum_generic_f64() {
  %x = stablehlo.constant dense<[[[0.00000000000000000e+00, 1.00000000000000000e+00, 2.00000000000000000e+00, 3.00000000000000000e+00], [4.00000000000000000e+00, 5.00000000000000000e+00, 6.00000000000000000e+00, 7.00000000000000000e+00], [8.00000000000000000e+00, 9.00000000000000000e+00, 1.00000000000000000e+01, 1.10000000000000000e+01]], [[1.20000000000000000e+01, 1.30000000000000000e+01, 1.40000000000000000e+01, 1.50000000000000000e+01], [1.60000000000000000e+01, 1.70000000000000000e+01, 1.80000000000000000e+01, 1.90000000000000000e+01], [2.00000000000000000e+01, 2.10000000000000000e+01, 2.20000000000000000e+01, 2.30000000000000000e+01]]]> : tensor<2x3x4xf64>
  %0 = "stablehlo.unary_einsum"(%x) {einsum_config = "abc->cb"} : (tensor<2x3x4xf64>) -> tensor<4x3xf64>
  check.expect_almost_eq_const %0, dense<[[1.20000000000000000e+01, 2.00000000000000000e+01, 2.80000000000000000e+01], [1.40000000000000000e+01, 2.20000000000000000e+01, 3.00000000000000000e+01], [1.60000000000000000e+01, 2.40000000000000000e+01, 3.20000000000000000e+01], [1.80000000000000000e+01, 2.60000000000000000e+01, 3.40000000000000000e+01]]> : tensor<4x3xf64>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "unary_einsum_generic_f64_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf64>}> : () -> tensor<2x3x4xf64>
  %1 = "stablehlo.unary_einsum"(%0) <{einsum_config = "abc->cb"}> : (tensor<2x3x4xf64>) -> tensor<4x3xf64>
  "check.expect_almost_eq_const"(%1) <{value = dense<[[1.20000000000000000e+01, 2.00000000000000000e+01, 2.80000000000000000e+01], [1.40000000000000000e+01, 2.20000000000000000e+01, 3.00000000000000000e+01], [1.60000000000000000e+01, 2.40000000000000000e+01, 3.20000000000000000e+01], [1.80000000000000000e+01, 2.60000000000000000e+01, 3.40000000000000000e+01]]> : tensor<4x3xf64>}> : (tensor<4x3xf64>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @torch_index_select_dim0() {
  %x = stablehlo.constant dense<[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>
  %i = stablehlo.constant dense<[1, 0, 1]> : tensor<3xi64>
  %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<3x3xf32>
  check.expect_almost_eq_const %0, dense<[[3.000000000e+00, 4.000000000e+00, 5.000000000e+00], [0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<3x3xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "torch_index_select_dim0_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1, 0, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %2 = "stablehlo.torch_index_select"(%0, %1) <{batch_dims = 0 : i64, dim = 0 : i64}> : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<3x3xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[3.000000000e+00, 4.000000000e+00, 5.000000000e+00], [0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<3x3xf32>}> : (tensor<3x3xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @torch_index_select_dim1_2d_index() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %i = stablehlo.constant dense<[[3, 0], [1, 1]]> : tensor<2x2xi32>
  %0 = "stablehlo.torch_index_select"(%x, %i) <{batch_dims = 0 : i64, dim = 2 : i64}> : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x3x2x2xf32>
  check.expect_almost_eq_const %0, dense<[[[[3.000000000e+00, 0.000000000e+00], [1.000000000e+00, 1.000000000e+00]], [[7.000000000e+00, 4.000000000e+00], [5.000000000e+00, 5.000000000e+00]], [[1.100000000e+01, 8.000000000e+00], [9.000000000e+00, 9.000000000e+00]]], [[[1.500000000e+01, 1.200000000e+01], [1.300000000e+01, 1.300000000e+01]], [[1.900000000e+01, 1.600000000e+01], [1.700000000e+01, 1.700000000e+01]], [[2.300000000e+01, 2.000000000e+01], [2.100000000e+01, 2.100000000e+01]]]]> : tensor<2x3x2x2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "torch_index_select_dim1_2d_index_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[3, 0], [1, 1]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %2 = "stablehlo.torch_index_select"(%0, %1) <{batch_dims = 0 : i64, dim = 2 : i64}> : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x3x2x2xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[[[3.000000000e+00, 0.000000000e+00], [1.000000000e+00, 1.000000000e+00]], [[7.000000000e+00, 4.000000000e+00], [5.000000000e+00, 5.000000000e+00]], [[1.100000000e+01, 8.000000000e+00], [9.000000000e+00, 9.000000000e+00]]], [[[1.500000000e+01, 1.200000000e+01], [1.300000000e+01, 1.300000000e+01]], [[1.900000000e+01, 1.600000000e+01], [1.700000000e+01, 1.700000000e+01]], [[2.300000000e+01, 2.000000000e+01], [2.100000000e+01, 2.100000000e+01]]]]> : tensor<2x3x2x2xf32>}> : (tensor<2x3x2x2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @torch_index_select_batched() {
  %x = stablehlo.constant dense<[[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00, 7.000000000e+00], [8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01]], [[1.200000000e+01, 1.300000000e+01, 1.400000000e+01, 1.500000000e+01], [1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x3x4xf32>
  %i = stablehlo.constant dense<[[2, 0], [1, 2]]> : tensor<2x2xi32>
  %0 = "stablehlo.torch_index_select"(%x, %i) <{batch_dims = 1 : i64, dim = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x2x4xf32>
  check.expect_almost_eq_const %0, dense<[[[8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01], [0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00]], [[1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x2x4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "torch_index_select_batched_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], [[1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01], [2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]]> : tensor<2x3x4xf32>}> : () -> tensor<2x3x4xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[2, 0], [1, 2]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %2 = "stablehlo.torch_index_select"(%0, %1) <{batch_dims = 1 : i64, dim = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x2x4xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[[[8.000000000e+00, 9.000000000e+00, 1.000000000e+01, 1.100000000e+01], [0.000000000e+00, 1.000000000e+00, 2.000000000e+00, 3.000000000e+00]], [[1.600000000e+01, 1.700000000e+01, 1.800000000e+01, 1.900000000e+01], [2.000000000e+01, 2.100000000e+01, 2.200000000e+01, 2.300000000e+01]]]> : tensor<2x2x4xf32>}> : (tensor<2x2x4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @async_start_done_slice() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = "stablehlo.async_start"(%x) ({
  ^bb0(%arg: tensor<4xf32>):
    %s = stablehlo.slice %arg [1:3] : (tensor<4xf32>) -> tensor<2xf32>
    stablehlo.return %s : tensor<2xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<2xf32>>
  %1 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %1, dense<[2.000000000e+00, 3.000000000e+00]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "async_start_done_slice_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %1 = "stablehlo.async_start"(%0) ({
  ^bb0(%arg0: tensor<4xf32>):
    %3 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 3>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2xf32>
    "stablehlo.return"(%3) : (tensor<2xf32>) -> ()
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<2xf32>>
  %2 = "stablehlo.async_done"(%1) : (!stablehlo.future<tensor<2xf32>>) -> tensor<2xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[2.000000000e+00, 3.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @create_token_after_all() {
  %t = stablehlo.create_token : !stablehlo.token
  %t2 = stablehlo.after_all %t, %t : !stablehlo.token
  %t3 = stablehlo.after_all  : !stablehlo.token
  %x = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
  %0 = stablehlo.tuple %x, %t2, %t3 : tuple<tensor<2xi32>, !stablehlo.token, !stablehlo.token>
  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2xi32>, !stablehlo.token, !stablehlo.token>) -> tensor<2xi32>
  check.expect_eq_const %1, dense<[5, 6]> : tensor<2xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "create_token_after_all_generic"}> ({
  %0 = "stablehlo.create_token"() : () -> !stablehlo.token
  %1 = "stablehlo.after_all"(%0, %0) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %2 = "stablehlo.after_all"() : () -> !stablehlo.token
  %3 = "stablehlo.constant"() <{value = dense<[5, 6]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %4 = "stablehlo.tuple"(%3, %1, %2) : (tensor<2xi32>, !stablehlo.token, !stablehlo.token) -> tuple<tensor<2xi32>, !stablehlo.token, !stablehlo.token>
  %5 = "stablehlo.get_tuple_element"(%4) <{index = 0 : i32}> : (tuple<tensor<2xi32>, !stablehlo.token, !stablehlo.token>) -> tensor<2xi32>
  "check.expect_eq_const"(%5) <{value = dense<[5, 6]> : tensor<2xi32>}> : (tensor<2xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @cross_replica_sum_single_replica() {
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %0 = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.500000000e+00, -2.000000000e+00]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "cross_replica_sum_single_replica_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %1 = "stablehlo.cross-replica-sum"(%0) <{replica_groups = dense<0> : tensor<1x1xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[1.500000000e+00, -2.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @broadcast_legacy() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = stablehlo.broadcast %x, sizes = [2] : (tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %0, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "broadcast_legacy_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %1 = "stablehlo.broadcast"(%0) <{broadcast_sizes = array<i64: 2>}> : (tensor<3xi32>) -> tensor<2x3xi32>
  "check.expect_eq_const"(%1) <{value = dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @dot_legacy() {
  %a = stablehlo.constant dense<[[0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>
  %b = stablehlo.constant dense<[[-5.000000000e+00, -4.000000000e+00, -3.000000000e+00, -2.000000000e+00], [-1.000000000e+00, 0.000000000e+00, 1.000000000e+00, 2.000000000e+00], [3.000000000e+00, 4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<3x4xf32>
  %v = stablehlo.constant dense<[1.0, 2.0, -1.0]> : tensor<3xf32>
  %0 = stablehlo.dot %a, %b, precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.dot %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %2 = stablehlo.dot %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  check.expect_almost_eq_const %0, dense<[[5.000000000e+00, 8.000000000e+00, 1.100000000e+01, 1.400000000e+01], [-4.000000000e+00, 8.000000000e+00, 2.000000000e+01, 3.200000000e+01]]> : tensor<2x4xf32>
  check.expect_almost_eq_const %1, dense<[0.000000000e+00, 6.000000000e+00]> : tensor<2xf32>
  check.expect_almost_eq_const %2, dense<6.000000000e+00> : tensor<f32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "dot_legacy_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.constant"() <{value = dense<[[-5.000000e+00, -4.000000e+00, -3.000000e+00, -2.000000e+00], [-1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %2 = "stablehlo.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, -1.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %3 = "stablehlo.dot"(%0, %1) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %4 = "stablehlo.dot"(%0, %2) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %5 = "stablehlo.dot"(%2, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  "check.expect_almost_eq_const"(%3) <{value = dense<[[5.000000000e+00, 8.000000000e+00, 1.100000000e+01, 1.400000000e+01], [-4.000000000e+00, 8.000000000e+00, 2.000000000e+01, 3.200000000e+01]]> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[0.000000000e+00, 6.000000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "check.expect_almost_eq_const"(%5) <{value = dense<6.000000000e+00> : tensor<f32>}> : (tensor<f32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()
