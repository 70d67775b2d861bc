module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"}) -> (tensor<8x16xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = call @shmap_body(%1) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}"} : (tensor<4x16xf32>) -> tensor<8x16xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[4,2]T(1,0)}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %5 : tensor<8x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "[('b',), None]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.multiply %arg0, %1 : tensor<4x16xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "unspecified_dims=[0,1]", mhlo.sharding = "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %3 : tensor<4x16xf32>
  }
}
