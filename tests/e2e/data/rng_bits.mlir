module @jit_rng_bits attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui64>) -> (tensor<3x5xui8> {jax.result_info = "result[0]"}, tensor<2x3x3xui16> {jax.result_info = "result[1]"}, tensor<7xui32> {jax.result_info = "result[2]"}, tensor<4x6xui32> {jax.result_info = "result[3]"}, tensor<3x3xui64> {jax.result_info = "result[4]"}, tensor<ui64> {jax.result_info = "result[5]"}, tensor<3x5xui8> {jax.result_info = "result[6]"}, tensor<2x3x3xui16> {jax.result_info = "result[7]"}, tensor<7xui32> {jax.result_info = "result[8]"}, tensor<4x6xui32> {jax.result_info = "result[9]"}, tensor<3x3xui64> {jax.result_info = "result[10]"}, tensor<ui64> {jax.result_info = "result[11]"}, tensor<3x5xui8> {jax.result_info = "result[12]"}, tensor<2x3x3xui16> {jax.result_info = "result[13]"}, tensor<7xui32> {jax.result_info = "result[14]"}, tensor<4x6xui32> {jax.result_info = "result[15]"}, tensor<3x3xui64> {jax.result_info = "result[16]"}, tensor<ui64> {jax.result_info = "result[17]"}, tensor<2xui64> {jax.result_info = "result[18]"}) {
    %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui8>)
    %output_state_0, %output_1 = stablehlo.rng_bit_generator %output_state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3x3xui16>)
    %output_state_2, %output_3 = stablehlo.rng_bit_generator %output_state_0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xui32>)
    %output_state_4, %output_5 = stablehlo.rng_bit_generator %output_state_2, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
    %output_state_6, %output_7 = stablehlo.rng_bit_generator %output_state_4, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x3xui64>)
    %output_state_8, %output_9 = stablehlo.rng_bit_generator %output_state_6, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)
    %output_state_10, %output_11 = stablehlo.rng_bit_generator %output_state_8, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui8>)
    %output_state_12, %output_13 = stablehlo.rng_bit_generator %output_state_10, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3x3xui16>)
    %output_state_14, %output_15 = stablehlo.rng_bit_generator %output_state_12, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xui32>)
    %output_state_16, %output_17 = stablehlo.rng_bit_generator %output_state_14, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
    %output_state_18, %output_19 = stablehlo.rng_bit_generator %output_state_16, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x3xui64>)
    %output_state_20, %output_21 = stablehlo.rng_bit_generator %output_state_18, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)
    %output_state_22, %output_23 = stablehlo.rng_bit_generator %output_state_20, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui8>)
    %output_state_24, %output_25 = stablehlo.rng_bit_generator %output_state_22, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3x3xui16>)
    %output_state_26, %output_27 = stablehlo.rng_bit_generator %output_state_24, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xui32>)
    %output_state_28, %output_29 = stablehlo.rng_bit_generator %output_state_26, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
    %output_state_30, %output_31 = stablehlo.rng_bit_generator %output_state_28, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x3xui64>)
    %output_state_32, %output_33 = stablehlo.rng_bit_generator %output_state_30, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)
    return %output, %output_1, %output_3, %output_5, %output_7, %output_9, %output_11, %output_13, %output_15, %output_17, %output_19, %output_21, %output_23, %output_25, %output_27, %output_29, %output_31, %output_33, %output_state_32 : tensor<3x5xui8>, tensor<2x3x3xui16>, tensor<7xui32>, tensor<4x6xui32>, tensor<3x3xui64>, tensor<ui64>, tensor<3x5xui8>, tensor<2x3x3xui16>, tensor<7xui32>, tensor<4x6xui32>, tensor<3x3xui64>, tensor<ui64>, tensor<3x5xui8>, tensor<2x3x3xui16>, tensor<7xui32>, tensor<4x6xui32>, tensor<3x3xui64>, tensor<ui64>, tensor<2xui64>
  }
}
