module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x12xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}, %arg1: tensor<4x16xf32> {mhlo.sharding = "{devices=[1,4,2]<=[8] last_tile_dim_replicate}"}, %arg2: tensor<i32> {mhlo.sharding = "{replicated}"}) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<16xi32> {jax.result_info = "result[1]"}, tensor<8x4xf32> {jax.result_info = "result[2]"}) {
    %0 = call @_flip(%arg0) : (tensor<16x12xf32>) -> tensor<16x12xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = call @_pad(%0, %c) : (tensor<16x12xf32>, tensor<i32>) -> tensor<16x16xf32>
    %2 = stablehlo.slice %1 [0:16, 0:4] : (tensor<16x16xf32>) -> tensor<16x4xf32>
    %3 = stablehlo.concatenate %1, %2, dim = 1 : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x20xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %arg2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_1 = stablehlo.constant dense<20> : tensor<i32>
    %5 = stablehlo.add %arg2, %c_1 : tensor<i32>
    %6 = stablehlo.select %4, %5, %arg2 : tensor<i1>, tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.dynamic_slice %3, %c_2, %6, sizes = [16, 8] : (tensor<16x20xf32>, tensor<i32>, tensor<i32>) -> tensor<16x8xf32>
    %8 = call @sort(%7) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %9 = call @cumsum(%7) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %10 = stablehlo.add %8, %9 : tensor<16x8xf32>
    %c_3 = stablehlo.constant dense<2> : tensor<i32>
    %11 = stablehlo.compare GT, %arg2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %12 = stablehlo.convert %11 : (tensor<i1>) -> tensor<i32>
    %13 = "stablehlo.case"(%12) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %22 = stablehlo.subtract %10, %21 : tensor<16x8xf32>
      stablehlo.return %22 : tensor<16x8xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
      %22 = stablehlo.multiply %10, %21 : tensor<16x8xf32>
      stablehlo.return %22 : tensor<16x8xf32>
    }) : (tensor<i32>) -> tensor<16x8xf32>
    %14 = call @argmax(%13) : (tensor<16x8xf32>) -> tensor<16xi32>
    %15 = stablehlo.iota dim = 0 : tensor<8xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %18 = stablehlo.add %13, %17 : tensor<16x8xf32>
    %19 = stablehlo.dot_general %arg1, %18, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %20 = stablehlo.slice %arg0 [0:16:2, 1:5] : (tensor<16x12xf32>) -> tensor<8x4xf32>
    return %19, %14, %20 : tensor<4x8xf32>, tensor<16xi32>, tensor<8x4xf32>
  }
  func.func private @_flip(%arg0: tensor<16x12xf32>) -> tensor<16x12xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<16x12xf32>
    return %0 : tensor<16x12xf32>
  }
  func.func private @_pad(%arg0: tensor<16x12xf32>, %arg1: tensor<i32>) -> tensor<16x16xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0, 2], high = [0, 2], interior = [0, 0] : (tensor<16x12xf32>, tensor<f32>) -> tensor<16x16xf32>
    return %1 : tensor<16x16xf32>
  }
  func.func private @sort(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
  func.func private @cumsum(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 8>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
  func.func private @argmax(%arg0: tensor<16x8xf32>) -> tensor<16xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<16x8xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<16x8xf32>, tensor<16x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<16xi32>
  }
}
