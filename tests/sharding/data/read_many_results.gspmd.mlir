module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg1: tensor<8x8xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<8x8xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8x8xf32> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8x8xf32> {jax.result_info = "result[2]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8x8xf32> {jax.result_info = "result[3]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8x8xf32> {jax.result_info = "result[4]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8x8xf32> {jax.result_info = "result[5]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<8x8xf32> {jax.result_info = "result[6]", mhlo.sharding = "{devices=[1,8]<=[8]}"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x8xf32>
    %2 = stablehlo.add %1, %arg1 : tensor<8x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %4 = stablehlo.multiply %arg0, %3 : tensor<8x8xf32>
    %5 = stablehlo.add %4, %arg1 : tensor<8x8xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %7 = stablehlo.multiply %arg0, %6 : tensor<8x8xf32>
    %8 = stablehlo.add %7, %arg1 : tensor<8x8xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %10 = stablehlo.multiply %arg0, %9 : tensor<8x8xf32>
    %11 = stablehlo.add %10, %arg1 : tensor<8x8xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %13 = stablehlo.multiply %arg0, %12 : tensor<8x8xf32>
    %14 = stablehlo.add %13, %arg1 : tensor<8x8xf32>
    %cst_4 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %16 = stablehlo.multiply %arg0, %15 : tensor<8x8xf32>
    %17 = stablehlo.add %16, %arg1 : tensor<8x8xf32>
    %cst_5 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %19 = stablehlo.multiply %arg0, %18 : tensor<8x8xf32>
    %20 = stablehlo.add %19, %arg1 : tensor<8x8xf32>
    return %2, %5, %8, %11, %14, %17, %20 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  }
}
