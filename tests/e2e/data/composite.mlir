module @jit_composite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.composite "xlapy.test.fma" %arg0, %arg1 {decomposition = @xlapy.test.fma} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    %1 = stablehlo.composite "xlapy.test.fma" %arg1, %arg0 {decomposition = @xlapy.test.fma_0} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<5xf32>
    return %0, %3 : tensor<5xf32>, tensor<5xf32>
  }
  func.func private @xlapy.test.fma(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.add %0, %1 : tensor<5xf32>
    return %2 : tensor<5xf32>
  }
  func.func private @xlapy.test.fma_0(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.add %0, %1 : tensor<5xf32>
    return %2 : tensor<5xf32>
  }
}
