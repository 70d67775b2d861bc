module @jit_scan_with_cond attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<6x4xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg1, %iterArg_2 = %0) : tensor<6x4xf32>, tensor<i64>, tensor<4xf32>, tensor<6x4xf32>
    cond {
      %c_3 = stablehlo.constant dense<6> : tensor<i64>
      %2 = stablehlo.compare LT, %iterArg_0, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_0) : (tensor<6x4xf32>, tensor<i64>) -> tensor<4xf32>
      %3:2 = func.call @closed_call(%iterArg_1, %2) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_2, %3#1, %iterArg_0) : (tensor<6x4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<6x4xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i64>
      %5 = stablehlo.add %iterArg_0, %c_3 : tensor<i64>
      stablehlo.return %iterArg, %5, %3#0, %4 : tensor<6x4xf32>, tensor<i64>, tensor<4xf32>, tensor<6x4xf32>
    }
    return %1#2, %1#3 : tensor<4xf32>, tensor<6x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x4xf32>, %arg1: tensor<i64>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<6x4xf32>, tensor<i64>, tensor<i64>) -> tensor<1x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.compare GT, %0, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %7 = stablehlo.multiply %arg0, %6 : tensor<4xf32>
      %8 = stablehlo.subtract %7, %arg1 : tensor<4xf32>
      stablehlo.return %8 : tensor<4xf32>
    }, {
      %6 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
      stablehlo.return %6 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %4:3 = stablehlo.while(%iterArg = %c_1, %iterArg_2 = %c, %iterArg_3 = %3) : tensor<i64>, tensor<i64>, tensor<4xf32>
    cond {
      %c_4 = stablehlo.constant dense<3> : tensor<i64>
      %6 = stablehlo.compare LT, %iterArg, %c_4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %6 : tensor<i1>
    } do {
      %6:2 = func.call @closed_call_0(%iterArg_2, %iterArg_3) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>)
      %c_4 = stablehlo.constant dense<1> : tensor<i64>
      %7 = stablehlo.add %iterArg, %c_4 : tensor<i64>
      stablehlo.return %7, %6#0, %6#1 : tensor<i64>, tensor<i64>, tensor<4xf32>
    }
    %5 = stablehlo.tanh %4#2 : tensor<4xf32>
    return %4#2, %5 : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<i64>, %arg1: tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<4xf32>
    %3 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<1.000000e-01> : tensor<f64>
    %4 = stablehlo.multiply %cst_0, %3 : tensor<f64>
    %5 = stablehlo.convert %4 : (tensor<f64>) -> tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.add %2, %6 : tensor<4xf32>
    return %0, %7 : tensor<i64>, tensor<4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i64>) -> tensor<6x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i64>, tensor<i64>) -> tensor<6x4xf32>
    return %1 : tensor<6x4xf32>
  }
}
