module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=4, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}, {name = "b", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<4x8x3xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"a"}, {}]>}, tensor<12x8xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {"a"}]>}, tensor<96xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}) {
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
