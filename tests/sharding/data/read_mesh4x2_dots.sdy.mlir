module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]>}, %arg1: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg2: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}]>}) -> (tensor<8x16xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<16x32xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16xf32>, tensor<16x16xf32>) -> tensor<8x4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<8x4x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x4x16xf32>
    %4 = call @relu(%3) : (tensor<8x4x16xf32>) -> tensor<8x4x16xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"x"}, {}, {"y"}]> : tensor<8x4x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x4x16xf32>, tensor<f32>) -> tensor<8x16xf32>
    %7 = stablehlo.transpose %5, dims = [2, 0, 1] : (tensor<8x4x16xf32>) -> tensor<16x8x4xf32>
    %8 = stablehlo.reshape %7 : (tensor<16x8x4xf32>) -> tensor<16x32xf32>
    return %6, %8 : tensor<8x16xf32>, tensor<16x32xf32>
  }
  func.func private @relu(%arg0: tensor<8x4x16xf32>) -> tensor<8x4x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x4x16xf32>
    return %1 : tensor<8x4x16xf32>
  }
}
