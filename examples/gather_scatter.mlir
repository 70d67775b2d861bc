module @jit_gather_scatter attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<5xi32>, %arg2: tensor<5x4xf32>) -> (tensor<5x4xf32> {jax.result_info = "result[0]"}, tensor<10x4xf32> {jax.result_info = "result[1]"}, tensor<5x1xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<5xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<5xi1>, tensor<5xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<5x1xi32>) -> tensor<5x4xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %8 = stablehlo.compare LT, %arg1, %7, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_2 = stablehlo.constant dense<10> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %10 = stablehlo.add %arg1, %9 : tensor<5xi32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<5xi1>, tensor<5xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %13 = "stablehlo.scatter"(%arg0, %12, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %18 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<5x1xi32>, tensor<5x4xf32>) -> tensor<10x4xf32>
    %14 = stablehlo.slice %arg0 [0:5, 0:4] : (tensor<10x4xf32>) -> tensor<5x4xf32>
    %15 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %c_3 = stablehlo.constant dense<4> : tensor<i32>
    %16 = call @remainder(%15, %c_3) : (tensor<5x1xi32>, tensor<i32>) -> tensor<5x1xi32>
    %17 = call @take_along_axis(%14, %16) : (tensor<5x4xf32>, tensor<5x1xi32>) -> tensor<5x1xf32>
    return %6, %13, %17 : tensor<5x4xf32>, tensor<10x4xf32>, tensor<5x1xf32>
  }
  func.func private @remainder(%arg0: tensor<5x1xi32>, %arg1: tensor<i32>) -> tensor<5x1xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<5x1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<5x1xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<5x1xi1>, tensor<5x1xi1>) -> tensor<5x1xi1>
    %12 = stablehlo.and %11, %6 : tensor<5x1xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %14 = stablehlo.add %4, %13 : tensor<5x1xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<5x1xi1>, tensor<5x1xi32>
    return %15 : tensor<5x1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @take_along_axis(%arg0: tensor<5x4xf32>, %arg1: tensor<5x1xi32>) -> tensor<5x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<5x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<5x1xi1>, tensor<5x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<5x1xi32>) -> tensor<5x1x1xi32>
    %c_1 = stablehlo.constant dense<3> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<5x1x1xi32>, tensor<5x1x1xi32>) -> tensor<5x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<5x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<5x1x1xi32>, tensor<5x1x1xi32>) -> tensor<5x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<5x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<5x1x1xi1>, tensor<i1>) -> tensor<5x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x4xf32>, tensor<5x1x1xi32>) -> tensor<5x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<5x1xi1>, tensor<5x1xf32>
    return %15 : tensor<5x1xf32>
  }
}
