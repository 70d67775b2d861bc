module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"}, %arg1: tensor<8x8xf32>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.sine %arg0 : tensor<8x8xf32>
    %1 = stablehlo.cosine %arg1 : tensor<8x8xf32>
    %2 = stablehlo.custom_call @Sharding(%0) {backend_config = "", has_side_effect = true, mhlo.sharding = "{unknown shard_as 1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %3 = stablehlo.custom_call @Sharding(%1) {backend_config = "", has_side_effect = true, mhlo.sharding = "{unknown shard_as 1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %5 = stablehlo.add %2, %4 : tensor<8x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %7 = stablehlo.multiply %3, %6 : tensor<8x8xf32>
    return %5, %7 : tensor<8x8xf32>, tensor<8x8xf32>
  }
}
