// RUN: stablehlo-translate --interpret -split-input-file %s
// Module-level forms: calls, composites, custom calls, shardy/tensor/arith ops, generic
// builtin.module / func.func, CHLO scan and ragged_dot, removed ops (trace,
// compute_reshape_shape). Expected values by hand from the StableHLO spec.

module @calls {
  func.func @main() {
    %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %0:2 = call @twice(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %1 = func.call @"<lambda>"(%0#1) : (tensor<2xf32>) -> tensor<2xf32>
    check.expect_eq_const %0#0, dense<[2.0, 4.0]> : tensor<2xf32>
    check.expect_eq_const %1, dense<[5.0, 17.0]> : tensor<2xf32>
    func.return
  }
  func.func private @twice(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.add %a, %a : tensor<2xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @"<lambda>"(%a: tensor<2xf32>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<1.0> : tensor<2xf32>
    %0 = stablehlo.add %a, %c : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

"builtin.module"() <{sym_name = "generic_module"}> ({
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[3, 4]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %1 = "func.call"(%0) <{callee = @helper}> : (tensor<2xi32>) -> tensor<2xi32>
    "check.expect_eq_const"(%1) <{value = dense<[9, 16]> : tensor<2xi32>}> : (tensor<2xi32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xi32>) -> tensor<2xi32>, sym_name = "helper", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2xi32>):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    "func.return"(%0) : (tensor<2xi32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

module @composite_and_custom_call {
  func.func @main() {
    %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %0 = stablehlo.composite "my.add_n" %x {composite_attributes = {n = 3 : i64}, decomposition = @add_n, version = 1 : i32} : (tensor<2xi64>) -> tensor<2xi64>
    %1 = "stablehlo.composite"(%x) <{composite_attributes = {n = 3 : i64}, decomposition = @add_n, name = "my.add_n"}> : (tensor<2xi64>) -> tensor<2xi64>
    check.expect_eq_const %0, dense<[4, 5]> : tensor<2xi64>
    check.expect_eq_const %1, dense<[4, 5]> : tensor<2xi64>
    %f = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %2 = stablehlo.custom_call @Sharding(%f) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2xf32>) -> tensor<2xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    check.expect_eq_const %4, dense<[1.0, 2.0]> : tensor<2xf32>
    func.return
  }
  func.func private @add_n(%a: tensor<2xi64>) -> tensor<2xi64> {
    %c = stablehlo.constant dense<3> : tensor<2xi64>
    %0 = stablehlo.add %a, %c : tensor<2xi64>
    return %0 : tensor<2xi64>
  }
}

// -----

module @shardy attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]>
  func.func @main() {
    %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %0 = sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> : tensor<2x2xf32>
    %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<2x2xf32>) {
      %2 = stablehlo.multiply %arg1, %arg1 : tensor<2x2xf32>
      sdy.return %2 : tensor<2x2xf32>
    } : (tensor<2x2xf32>) -> tensor<2x2xf32>
    check.expect_eq_const %1, dense<[[1.0, 4.0], [9.0, 16.0]]> : tensor<2x2xf32>
    func.return
  }
}

// -----

func.func @tensor_cast_arith_constant() {
  %c = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = tensor.cast %c : tensor<3xi32> to tensor<?xi32>
  %1 = tensor.cast %0 : tensor<?xi32> to tensor<3xi32>
  check.expect_eq_const %1, dense<[1, 2, 3]> : tensor<3xi32>
  func.return
}

// -----

func.func @chlo_scan() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %init = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0:2 = chlo.scan(%x) inits(%init) dimension=0 {
  ^bb0(%input: tensor<3xf32>, %carry: tensor<3xf32>):
    %1 = stablehlo.add %input, %carry : tensor<3xf32>
    stablehlo.return %1, %1 : tensor<3xf32>, tensor<3xf32>
  } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  check.expect_eq_const %0#0, dense<[[11.0, 22.0, 33.0], [15.0, 27.0, 39.0]]> : tensor<2x3xf32>
  check.expect_eq_const %0#1, dense<[15.0, 27.0, 39.0]> : tensor<3xf32>
  func.return
}

// -----

func.func @chlo_ragged_dot() {
  %lhs = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %rhs = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]> : tensor<2x2x2xf32>
  %g = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<3x2xf32>, tensor<2x2x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  check.expect_eq_const %0, dense<[[1.0, 2.0], [6.0, 8.0], [10.0, 12.0]]> : tensor<3x2xf32>
  func.return
}

// -----

func.func @removed_trace_and_compute_reshape_shape() {
  %x = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  "stablehlo.trace"(%x) {tag = "x"} : (tensor<6xi32>) -> ()
  %n = arith.constant dense<6> : tensor<index>
  %s = stablehlo.constant dense<[-1, 2]> : tensor<2xindex>
  %0 = "stablehlo.compute_reshape_shape"(%n, %s) : (tensor<index>, tensor<2xindex>) -> tensor<2xindex>
  check.expect_eq_const %0, dense<[3, 2]> : tensor<2xi64>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "generic_while_if_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %1 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
  %2 = "stablehlo.while"(%0) ({
  ^bb0(%arg0: tensor<i32>):
    %3 = "stablehlo.compare"(%arg0, %1) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%3) : (tensor<i1>) -> ()
  }, {
  ^bb0(%arg0: tensor<i32>):
    %4 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %5 = "stablehlo.add"(%arg0, %4) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%5) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  "check.expect_eq_const"(%2) <{value = dense<3> : tensor<i32>}> : (tensor<i32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @rng_normal_zero_sigma_and_set_dimension_size() {
  %mu = stablehlo.constant dense<3.0> : tensor<f32>
  %sigma = stablehlo.constant dense<0.0> : tensor<f32>
  %shape = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %0 = stablehlo.rng %mu, %sigma, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  check.expect_eq_const %0, dense<3.0> : tensor<2x2xf32>
  %x = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %n = stablehlo.constant dense<4> : tensor<i32>
  %1 = stablehlo.set_dimension_size %x, %n, dim = 0 : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  check.expect_eq_const %1, dense<[1, 2, 3, 4]> : tensor<4xi32>
  func.return
}
