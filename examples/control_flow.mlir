module @jit_control_flow attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<i32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c_0, %iterArg_5 = %c, %iterArg_6 = %arg0) : tensor<i32>, tensor<i32>, tensor<8xf32>
    cond {
      %c_7 = stablehlo.constant dense<5> : tensor<i32>
      %12 = stablehlo.compare LT, %iterArg, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %12 : tensor<i1>
    } do {
      %12:2 = func.call @closed_call(%iterArg_5, %iterArg_6) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>)
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %13 = stablehlo.add %iterArg, %c_7 : tensor<i32>
      stablehlo.return %13, %12#0, %12#1 : tensor<i32>, tensor<i32>, tensor<8xf32>
    }
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %1 = stablehlo.compare GT, %arg1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %13 = stablehlo.multiply %0#2, %12 : tensor<8xf32>
      stablehlo.return %13 : tensor<8xf32>
    }, {
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %13 = stablehlo.add %0#2, %12 : tensor<8xf32>
      stablehlo.return %13 : tensor<8xf32>
    }) : (tensor<i32>) -> tensor<8xf32>
    %4 = call @cumsum(%3) : (tensor<8xf32>) -> tensor<8xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<8> : tensor<i32>
    %6 = stablehlo.add %arg1, %c_3 : tensor<i32>
    %7 = stablehlo.select %5, %6, %arg1 : tensor<i1>, tensor<i32>
    %8 = stablehlo.dynamic_slice %3, %7, sizes = [3] : (tensor<8xf32>, tensor<i32>) -> tensor<3xf32>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %10 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %11 = stablehlo.clamp %9, %3, %10 : tensor<8xf32>
    return %4, %8, %11 : tensor<8xf32>, tensor<3xf32>, tensor<8xf32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<8xf32>
    %3 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.add %arg1, %4 : tensor<8xf32>
    %6 = stablehlo.sine %5 : tensor<8xf32>
    %7 = stablehlo.add %2, %6 : tensor<8xf32>
    return %0, %7 : tensor<i32>, tensor<8xf32>
  }
  func.func private @cumsum(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[7, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 8>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
