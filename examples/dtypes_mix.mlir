module @jit_dtypes_mix attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<6xf32> {jax.result_info = "result[3]"}, tensor<6xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xf16>
    %2 = stablehlo.negate %arg0 : tensor<6xf32>
    %3 = stablehlo.complex %arg0, %2 : tensor<6xcomplex<f32>>
    %4 = stablehlo.multiply %0, %0 : tensor<6xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<6xbf16>
    %6 = stablehlo.add %4, %5 : tensor<6xbf16>
    %7 = stablehlo.convert %6 : (tensor<6xbf16>) -> tensor<6xf32>
    %8 = stablehlo.exponential %1 : tensor<6xf16>
    %9 = stablehlo.convert %8 : (tensor<6xf16>) -> tensor<6xf32>
    %10 = stablehlo.multiply %3, %3 : tensor<6xcomplex<f32>>
    %11 = stablehlo.abs %10 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %12 = call @angle(%3) : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %14 = stablehlo.multiply %13, %arg0 : tensor<6xf32>
    return %7, %9, %11, %12, %14 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
  func.func private @angle(%arg0: tensor<6xcomplex<f32>>) -> tensor<6xf32> {
    %0 = stablehlo.real %arg0 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %1 = stablehlo.imag %arg0 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<6xf32>
    return %2 : tensor<6xf32>
  }
}
