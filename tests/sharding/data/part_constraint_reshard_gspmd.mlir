module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x16xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<16x16xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[1,8]<=[8]}"}, tensor<16xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.sine %arg0 : tensor<16x16xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<16x16xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    return %3, %4 : tensor<16x16xf32>, tensor<16xf32>
  }
}
