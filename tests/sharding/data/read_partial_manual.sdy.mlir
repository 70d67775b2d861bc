module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=4, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 4 : i64}, {name = "b", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {"b"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"b", ?}, {?}]>] out_shardings=[<@mesh, [{"b", ?}, {?}]>] manual_axes={"b"} (%arg1: tensor<4x16xf32>) {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
      %3 = sdy.sharding_constraint %2 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
      %4 = stablehlo.multiply %arg1, %3 : tensor<4x16xf32>
      %5 = sdy.sharding_constraint %4 <@mesh, [{?}, {?}]> : tensor<4x16xf32>
      sdy.return %5 : tensor<4x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"b", "a"}, {}]> : tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
