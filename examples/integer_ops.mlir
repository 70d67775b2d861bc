module @jit_integer_ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>, %arg1: tensor<12xi32>) -> (tensor<12xi32> {jax.result_info = "result[0]"}, tensor<12xi32> {jax.result_info = "result[1]"}, tensor<12xi32> {jax.result_info = "result[2]"}, tensor<12xi32> {jax.result_info = "result[3]"}, tensor<12xf32> {jax.result_info = "result[4]"}, tensor<12xi1> {jax.result_info = "result[5]"}, tensor<12xui8> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<12xi32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %2 = stablehlo.shift_left %arg0, %1 : tensor<12xi32>
    %3 = stablehlo.add %0, %2 : tensor<12xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %5 = stablehlo.shift_right_arithmetic %arg1, %4 : tensor<12xi32>
    %6 = stablehlo.subtract %3, %5 : tensor<12xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %8 = stablehlo.compare EQ, %arg1, %7, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %9 = call @_where(%8, %c_2, %arg1) : (tensor<12xi1>, tensor<i32>, tensor<12xi32>) -> tensor<12xi32>
    %10 = stablehlo.divide %arg0, %9 : tensor<12xi32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %12 = stablehlo.compare EQ, %arg1, %11, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %13 = call @_where(%12, %c_4, %arg1) : (tensor<12xi1>, tensor<i32>, tensor<12xi32>) -> tensor<12xi32>
    %14 = stablehlo.remainder %arg0, %13 : tensor<12xi32>
    %15 = stablehlo.popcnt %arg0 : tensor<12xi32>
    %16 = stablehlo.count_leading_zeros %arg1 : tensor<12xi32>
    %17 = stablehlo.add %15, %16 : tensor<12xi32>
    %18 = stablehlo.xor %arg0, %arg1 : tensor<12xi32>
    %19 = stablehlo.add %17, %18 : tensor<12xi32>
    %20 = stablehlo.not %arg1 : tensor<12xi32>
    %21 = stablehlo.and %arg0, %20 : tensor<12xi32>
    %22 = stablehlo.add %19, %21 : tensor<12xi32>
    %23 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %25 = stablehlo.divide %23, %24 : tensor<12xf32>
    %26 = stablehlo.compare GT, %arg0, %arg1, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %27 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xui8>
    return %6, %10, %14, %22, %25, %26, %27 : tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xf32>, tensor<12xi1>, tensor<12xui8>
  }
  func.func private @_where(%arg0: tensor<12xi1>, %arg1: tensor<i32>, %arg2: tensor<12xi32>) -> tensor<12xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<12xi1>, tensor<12xi32>
    return %2 : tensor<12xi32>
  }
}
