module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x12xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}) -> (tensor<4x8x3xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[1,4,1,2]<=[8] last_tile_dim_replicate}"}, tensor<12x8xf32> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[2,4]<=[4,2]T(1,0)}"}, tensor<96xf32> {jax.result_info = "result[2]", mhlo.sharding = "{devices=[4,2]<=[8] last_tile_dim_replicate}"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<8x12xf32>) -> tensor<8x3x4xf32>
    %1 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<8x3x4xf32>) -> tensor<4x8x3xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8x3xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<4x8x3xf32>
    %4 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x12xf32>) -> tensor<12x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12x8xf32>
    %6 = stablehlo.add %4, %5 : tensor<12x8xf32>
    %7 = stablehlo.reshape %arg0 : (tensor<8x12xf32>) -> tensor<96xf32>
    return %3, %6, %7 : tensor<4x8x3xf32>, tensor<12x8xf32>, tensor<96xf32>
  }
}
