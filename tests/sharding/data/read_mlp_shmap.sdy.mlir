module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %1 = stablehlo.tanh %0 : tensor<8x32xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"data"}, {"model"}]> : tensor<8x32xf32>
    %3 = sdy.manual_computation(%2) in_shardings=[<@mesh, [{}, {"model"}]>] out_shardings=[<@mesh, [{}, {"model"}]>] manual_axes={"data", "model"} (%arg3: tensor<8x8xf32>) {
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %8 = stablehlo.multiply %arg3, %7 : tensor<8x8xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.reduce(%arg3 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
      %10 = "stablehlo.all_reduce"(%9) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %13 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
      %12 = stablehlo.add %8, %11 : tensor<8x8xf32>
      sdy.return %12 : tensor<8x8xf32>
    } : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %4 = stablehlo.dot_general %3, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {?}]> : tensor<8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<f32>
    return %5, %6 : tensor<8x16xf32>, tensor<f32>
  }
}
