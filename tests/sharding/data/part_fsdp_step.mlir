module @jit__sgd attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}, %arg2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg3: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg4: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result[0][0]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, tensor<16xf32> {jax.result_info = "result[0][1]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}, tensor<16x8xf32> {jax.result_info = "result[0][2]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg3, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<32x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<32x16xf32>
    %4 = stablehlo.tanh %3 : tensor<32x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<32x16xf32>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<16x8xf32>) -> tensor<32x8xf32>
    %8 = stablehlo.subtract %7, %arg4 : tensor<32x8xf32>
    %9 = stablehlo.multiply %8, %8 : tensor<32x8xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x8xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<32x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %13 = stablehlo.divide %12, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %14 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<32x8xf32>
    %16 = stablehlo.multiply %15, %11 : tensor<32x8xf32>
    %17 = stablehlo.dot_general %16, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x8xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %18 = stablehlo.transpose %17, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %19 = stablehlo.dot_general %16, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x8xf32>, tensor<16x8xf32>) -> tensor<32x16xf32>
    %20 = stablehlo.multiply %19, %6 : tensor<32x16xf32>
    %21 = stablehlo.multiply %20, %4 : tensor<32x16xf32>
    %22 = stablehlo.add %20, %21 : tensor<32x16xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<32x16xf32>, tensor<f32>) -> tensor<16xf32>
    %24 = stablehlo.reshape %23 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %26 = stablehlo.dot_general %22, %arg3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x16xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
    %27 = stablehlo.transpose %26, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %cst_7 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %29 = stablehlo.multiply %28, %27 : tensor<8x16xf32>
    %30 = stablehlo.subtract %arg0, %29 : tensor<8x16xf32>
    %cst_8 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %32 = stablehlo.multiply %31, %25 : tensor<16xf32>
    %33 = stablehlo.subtract %arg1, %32 : tensor<16xf32>
    %cst_9 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %35 = stablehlo.multiply %34, %18 : tensor<16x8xf32>
    %36 = stablehlo.subtract %arg2, %35 : tensor<16x8xf32>
    return %30, %33, %36, %13 : tensor<8x16xf32>, tensor<16xf32>, tensor<16x8xf32>, tensor<f32>
  }
}
