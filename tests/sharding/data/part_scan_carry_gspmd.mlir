module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x8xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg1: tensor<5x16x8xf32> {mhlo.sharding = "{devices=[1,8,1]<=[8]}"}, %arg2: tensor<8x8xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<16x8xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<5x16xf32> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[1,8]<=[8]}"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %arg2, %iterArg_1 = %c, %iterArg_2 = %arg0, %iterArg_3 = %0) : tensor<5x16x8xf32>, tensor<8x8xf32>, tensor<i32>, tensor<16x8xf32>, tensor<5x16xf32>
    cond {
      %c_4 = stablehlo.constant dense<5> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<5x16x8xf32>, tensor<i32>) -> tensor<16x8xf32>
      %3:2 = func.call @closed_call(%iterArg_0, %iterArg_2, %2) : (tensor<8x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_3, %3#1, %iterArg_1) : (tensor<5x16xf32>, tensor<16xf32>, tensor<i32>) -> tensor<5x16xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %5, %3#0, %4 : tensor<5x16x8xf32>, tensor<8x8xf32>, tensor<i32>, tensor<16x8xf32>, tensor<5x16xf32>
    }
    return %1#3, %1#4 : tensor<16x8xf32>, tensor<5x16xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5x16x8xf32>, %arg1: tensor<i32>) -> tensor<16x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 16, 8] : (tensor<5x16x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x16x8xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x16x8xf32>) -> tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x8xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<16x8xf32>
    %2 = stablehlo.tanh %1 : tensor<16x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<16xf32>
    return %2, %3 : tensor<16x8xf32>, tensor<16xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<i32>) -> tensor<5x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<5x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<5x16xf32>
    return %1 : tensor<5x16xf32>
  }
}
