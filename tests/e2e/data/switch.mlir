module @jit_switch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<6xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}) {
    %c = stablehlo.constant dense<7> : tensor<i32>
    %0 = stablehlo.subtract %arg0, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<9> : tensor<i32>
    %1 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %2 = stablehlo.clamp %c_1, %arg0, %c_2 : tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %12 = stablehlo.multiply %arg1, %11 : tensor<6xf32>
      stablehlo.return %12 : tensor<6xf32>
    }, {
      %11 = stablehlo.sine %arg1 : tensor<6xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.subtract %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }, {
      %11 = stablehlo.reverse %arg1, dims = [0] : tensor<6xf32>
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.add %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<2> : tensor<i32>
    %4 = stablehlo.clamp %c_3, %0, %c_4 : tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %12 = stablehlo.multiply %arg1, %11 : tensor<6xf32>
      stablehlo.return %12 : tensor<6xf32>
    }, {
      %11 = stablehlo.sine %arg1 : tensor<6xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.subtract %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }, {
      %11 = stablehlo.reverse %arg1, dims = [0] : tensor<6xf32>
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.add %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %c_6 = stablehlo.constant dense<2> : tensor<i32>
    %6 = stablehlo.clamp %c_5, %1, %c_6 : tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %12 = stablehlo.multiply %arg1, %11 : tensor<6xf32>
      stablehlo.return %12 : tensor<6xf32>
    }, {
      %11 = stablehlo.sine %arg1 : tensor<6xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.subtract %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }, {
      %11 = stablehlo.reverse %arg1, dims = [0] : tensor<6xf32>
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.add %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.compare GT, %arg0, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %9 = stablehlo.convert %8 : (tensor<i1>) -> tensor<i32>
    %10:2 = "stablehlo.case"(%9) ({
      %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
      %11 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.minimum across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %12 = stablehlo.reduce(%arg1 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
      %cst_9 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
      %13 = stablehlo.divide %12, %cst_9 : tensor<f32>
      stablehlo.return %11, %13 : tensor<f32>, tensor<f32>
    }, {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %11 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
      %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %12 = stablehlo.reduce(%arg1 init: %cst_8) applies stablehlo.maximum across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %11, %12 : tensor<f32>, tensor<f32>
    }) : (tensor<i32>) -> (tensor<f32>, tensor<f32>)
    return %3, %5, %7, %10#0, %10#1 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<f32>, tensor<f32>
  }
}
