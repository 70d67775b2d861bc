module @jit_fft_example attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf32>, %arg1: tensor<4x4xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x4xf32> {jax.result_info = "result[2]"}) {
    %0 = call @fft(%arg0) : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
    %1 = call @fft_0(%arg1) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %2 = call @fft_1(%arg1) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %3 = stablehlo.real %2 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    return %0, %1, %3 : tensor<3x5xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xf32>
  }
  func.func private @fft(%arg0: tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
    return %0 : tensor<3x5xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [4] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %0 : tensor<4x4xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4, 4] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %0 : tensor<4x4xcomplex<f32>>
  }
}
