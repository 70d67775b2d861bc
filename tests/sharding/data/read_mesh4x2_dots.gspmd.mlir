module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4x16xf32> {mhlo.sharding = "{devices=[4,1,1,2]<=[8] last_tile_dim_replicate}"}, %arg1: tensor<16x16xf32> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}, %arg2: tensor<16xf32> {mhlo.sharding = "{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<8x16xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"}, tensor<16x32xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4x16xf32>, tensor<16x16xf32>) -> tensor<8x4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<8x4x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x4x16xf32>
    %4 = call @relu(%3) : (tensor<8x4x16xf32>) -> tensor<8x4x16xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{devices=[4,1,2]<=[8]}"} : (tensor<8x4x16xf32>) -> tensor<8x4x16xf32>
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
