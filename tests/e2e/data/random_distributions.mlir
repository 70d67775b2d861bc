module @jit_random_distributions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<10xi1> {jax.result_info = "result[1]"}, tensor<8xi32> {jax.result_info = "result[2]"}, tensor<6xi64> {jax.result_info = "result[3]"}, tensor<5xf32> {jax.result_info = "result[4]"}, tensor<5xf32> {jax.result_info = "result[5]"}, tensor<3xf64> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01]> : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<[5.000000e-01, 1.000000e+00, 3.000000e+00]> : tensor<3xf32>
    %0 = call @_threefry_split(%arg0) : (tensor<2xui32>) -> tensor<8x2xui32>
    %1 = stablehlo.log %cst : tensor<4xf32>
    %2 = stablehlo.slice %0 [0:1, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %3 = stablehlo.reshape %2 : (tensor<1x2xui32>) -> tensor<2xui32>
    %4 = call @_normal(%3) : (tensor<2xui32>) -> tensor<4x3xf32>
    %5 = stablehlo.slice %0 [1:2, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %6 = stablehlo.reshape %5 : (tensor<1x2xui32>) -> tensor<2xui32>
    %cst_1 = stablehlo.constant dense<3.000000e-01> : tensor<f64>
    %7 = call @_bernoulli(%6, %cst_1) : (tensor<2xui32>, tensor<f64>) -> tensor<10xi1>
    %8 = stablehlo.slice %0 [2:3, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %9 = stablehlo.reshape %8 : (tensor<1x2xui32>) -> tensor<2xui32>
    %c = stablehlo.constant dense<-5> : tensor<i64>
    %c_2 = stablehlo.constant dense<17> : tensor<i64>
    %10 = call @_randint(%9, %c, %c_2) : (tensor<2xui32>, tensor<i64>, tensor<i64>) -> tensor<8xi32>
    %11 = stablehlo.slice %0 [3:4, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %12 = stablehlo.reshape %11 : (tensor<1x2xui32>) -> tensor<2xui32>
    %13 = call @_gumbel(%12) : (tensor<2xui32>) -> tensor<6x4xf32>
    %14 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<6x4xf32>
    %16 = stablehlo.add %13, %15 : tensor<6x4xf32>
    %17 = call @argmax(%16) : (tensor<6x4xf32>) -> tensor<6xi64>
    %18 = stablehlo.slice %0 [4:5, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %19 = stablehlo.reshape %18 : (tensor<1x2xui32>) -> tensor<2xui32>
    %cst_3 = stablehlo.constant dense<-1.000000e+00> : tensor<f64>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %20 = call @_truncated_normal(%19, %cst_3, %cst_4) : (tensor<2xui32>, tensor<f64>, tensor<f64>) -> tensor<5xf32>
    %21 = stablehlo.slice %0 [5:6, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %22 = stablehlo.reshape %21 : (tensor<1x2xui32>) -> tensor<2xui32>
    %23 = call @_exponential(%22) : (tensor<2xui32>) -> tensor<5xf32>
    %24 = stablehlo.slice %0 [7:8, 0:2] : (tensor<8x2xui32>) -> tensor<1x2xui32>
    %25 = stablehlo.reshape %24 : (tensor<1x2xui32>) -> tensor<2xui32>
    %26 = call @_gamma(%25, %cst_0) : (tensor<2xui32>, tensor<3xf32>) -> tensor<3xf64>
    return %4, %7, %10, %17, %20, %23, %26 : tensor<4x3xf32>, tensor<10xi1>, tensor<8xi32>, tensor<6xi64>, tensor<5xf32>, tensor<5xf32>, tensor<3xf64>
  }
  func.func private @_threefry_split(%arg0: tensor<2xui32>) -> tensor<8x2xui32> {
    %0 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %1 = stablehlo.reshape %0 : (tensor<1xui32>) -> tensor<ui32>
    %2 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.iota dim = 0 : tensor<8xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<8xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<8xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<8xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<8xui64>
    %9 = stablehlo.convert %6 : (tensor<8xui64>) -> tensor<8xui32>
    %10 = stablehlo.convert %8 : (tensor<8xui64>) -> tensor<8xui32>
    %11:2 = call @threefry2x32(%1, %3, %10, %9) : (tensor<ui32>, tensor<ui32>, tensor<8xui32>, tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>)
    %12 = stablehlo.broadcast_in_dim %11#0, dims = [0] : (tensor<8xui32>) -> tensor<8x1xui32>
    %13 = stablehlo.broadcast_in_dim %11#1, dims = [0] : (tensor<8xui32>) -> tensor<8x1xui32>
    %14 = stablehlo.concatenate %12, %13, dim = 1 : (tensor<8x1xui32>, tensor<8x1xui32>) -> tensor<8x2xui32>
    return %14 : tensor<8x2xui32>
  }
  func.func private @threefry2x32(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<8xui32>, %arg3: tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<8xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<8xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<8xui32>, tensor<8xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<8xui32>, tensor<8xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<8xui32>, tensor<8xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i64>, tensor<i64>, tensor<8xui32>, tensor<8xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<8xui32>, tensor<8xui32>
  }
  func.func private @closed_call(%arg0: tensor<i64>, %arg1: tensor<8xui32>, %arg2: tensor<8xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<8xui32>, tensor<8xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<8xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<8xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<8xui32>
    %9 = stablehlo.or %5, %8 : tensor<8xui32>
    %10 = stablehlo.xor %3, %9 : tensor<8xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<8xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<8xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<8xui32>
    %19 = stablehlo.or %15, %18 : tensor<8xui32>
    %20 = stablehlo.xor %13, %19 : tensor<8xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<8xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<8xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<8xui32>
    %29 = stablehlo.or %25, %28 : tensor<8xui32>
    %30 = stablehlo.xor %23, %29 : tensor<8xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<8xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<8xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<8xui32>
    %39 = stablehlo.or %35, %38 : tensor<8xui32>
    %40 = stablehlo.xor %33, %39 : tensor<8xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %42 = stablehlo.add %33, %41 : tensor<8xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %44 = stablehlo.add %40, %43 : tensor<8xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %48 = stablehlo.add %44, %47 : tensor<8xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<8xui32>, tensor<8xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_normal(%arg0: tensor<2xui32>) -> tensor<4x3xf32> {
    %0 = call @_normal_real(%arg0) : (tensor<2xui32>) -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
  func.func private @_normal_real(%arg0: tensor<2xui32>) -> tensor<4x3xf32> {
    %cst = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform(%arg0, %cst, %cst_0) : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>
    %1 = chlo.erf_inv %0 : tensor<4x3xf32> -> tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<4x3xf32>
    return %3 : tensor<4x3xf32>
  }
  func.func private @_uniform(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.iota dim = 0 : tensor<4x3xui64>
    %7 = stablehlo.iota dim = 1 : tensor<4x3xui64>
    %c = stablehlo.constant dense<3> : tensor<ui64>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<4x3xui64>
    %9 = stablehlo.multiply %8, %6 : tensor<4x3xui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<4x3xui64>
    %11 = stablehlo.multiply %10, %7 : tensor<4x3xui64>
    %12 = stablehlo.add %9, %11 : tensor<4x3xui64>
    %c_1 = stablehlo.constant dense<32> : tensor<ui64>
    %13 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<4x3xui64>
    %14 = stablehlo.shift_right_logical %12, %13 : tensor<4x3xui64>
    %15 = stablehlo.convert %12 : (tensor<4x3xui64>) -> tensor<4x3xui32>
    %16 = stablehlo.convert %14 : (tensor<4x3xui64>) -> tensor<4x3xui32>
    %17:2 = call @threefry2x32_0(%3, %5, %16, %15) : (tensor<ui32>, tensor<ui32>, tensor<4x3xui32>, tensor<4x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>)
    %18 = stablehlo.xor %17#0, %17#1 : tensor<4x3xui32>
    %c_2 = stablehlo.constant dense<9> : tensor<ui32>
    %19 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %20 = stablehlo.shift_right_logical %18, %19 : tensor<4x3xui32>
    %c_3 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %21 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %22 = stablehlo.or %20, %21 : tensor<4x3xui32>
    %23 = stablehlo.bitcast_convert %22 : (tensor<4x3xui32>) -> tensor<4x3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %25 = stablehlo.subtract %23, %24 : tensor<4x3xf32>
    %26 = stablehlo.subtract %1, %0 : tensor<1x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %28 = stablehlo.multiply %25, %27 : tensor<4x3xf32>
    %29 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %30 = stablehlo.add %28, %29 : tensor<4x3xf32>
    %31 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x3xf32>
    %32 = stablehlo.maximum %31, %30 : tensor<4x3xf32>
    return %32 : tensor<4x3xf32>
  }
  func.func private @threefry2x32_0(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<4x3xui32>, %arg3: tensor<4x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<4x3xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<4x3xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call_1(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i64>, tensor<i64>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<4x3xui32>, tensor<4x3xui32>
  }
  func.func private @closed_call_1(%arg0: tensor<i64>, %arg1: tensor<4x3xui32>, %arg2: tensor<4x3xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<4x3xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<4x3xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<4x3xui32>
    %9 = stablehlo.or %5, %8 : tensor<4x3xui32>
    %10 = stablehlo.xor %3, %9 : tensor<4x3xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<4x3xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<4x3xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<4x3xui32>
    %19 = stablehlo.or %15, %18 : tensor<4x3xui32>
    %20 = stablehlo.xor %13, %19 : tensor<4x3xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<4x3xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<4x3xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<4x3xui32>
    %29 = stablehlo.or %25, %28 : tensor<4x3xui32>
    %30 = stablehlo.xor %23, %29 : tensor<4x3xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<4x3xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<4x3xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<4x3xui32>
    %39 = stablehlo.or %35, %38 : tensor<4x3xui32>
    %40 = stablehlo.xor %33, %39 : tensor<4x3xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %42 = stablehlo.add %33, %41 : tensor<4x3xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %44 = stablehlo.add %40, %43 : tensor<4x3xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %48 = stablehlo.add %44, %47 : tensor<4x3xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_bernoulli(%arg0: tensor<2xui32>, %arg1: tensor<f64>) -> tensor<10xi1> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %0 = call @_uniform_2(%arg0, %cst, %cst_0) : (tensor<2xui32>, tensor<f64>, tensor<f64>) -> tensor<10xf64>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f64>) -> tensor<10xf64>
    %2 = stablehlo.compare LT, %0, %1, FLOAT : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
    return %2 : tensor<10xi1>
  }
  func.func private @_uniform_2(%arg0: tensor<2xui32>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<10xf64> {
    %0 = stablehlo.convert %arg1 : tensor<f64>
    %1 = stablehlo.convert %arg2 : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %4 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %7 = stablehlo.reshape %6 : (tensor<1xui32>) -> tensor<ui32>
    %8 = stablehlo.iota dim = 0 : tensor<10xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<10xui64>
    %10 = stablehlo.multiply %9, %8 : tensor<10xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<10xui64>
    %12 = stablehlo.shift_right_logical %10, %11 : tensor<10xui64>
    %13 = stablehlo.convert %10 : (tensor<10xui64>) -> tensor<10xui32>
    %14 = stablehlo.convert %12 : (tensor<10xui64>) -> tensor<10xui32>
    %15:2 = call @threefry2x32_3(%5, %7, %14, %13) : (tensor<ui32>, tensor<ui32>, tensor<10xui32>, tensor<10xui32>) -> (tensor<10xui32>, tensor<10xui32>)
    %16 = stablehlo.convert %15#0 : (tensor<10xui32>) -> tensor<10xui64>
    %17 = stablehlo.convert %15#1 : (tensor<10xui32>) -> tensor<10xui64>
    %c_1 = stablehlo.constant dense<32> : tensor<ui64>
    %18 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<10xui64>
    %19 = stablehlo.shift_left %16, %18 : tensor<10xui64>
    %20 = stablehlo.or %19, %17 : tensor<10xui64>
    %c_2 = stablehlo.constant dense<12> : tensor<ui64>
    %21 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui64>) -> tensor<10xui64>
    %22 = stablehlo.shift_right_logical %20, %21 : tensor<10xui64>
    %c_3 = stablehlo.constant dense<4607182418800017408> : tensor<ui64>
    %23 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui64>) -> tensor<10xui64>
    %24 = stablehlo.or %22, %23 : tensor<10xui64>
    %25 = stablehlo.bitcast_convert %24 : (tensor<10xui64>) -> tensor<10xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %26 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<10xf64>
    %27 = stablehlo.subtract %25, %26 : tensor<10xf64>
    %28 = stablehlo.subtract %3, %2 : tensor<1xf64>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<1xf64>) -> tensor<10xf64>
    %30 = stablehlo.multiply %27, %29 : tensor<10xf64>
    %31 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf64>) -> tensor<10xf64>
    %32 = stablehlo.add %30, %31 : tensor<10xf64>
    %33 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf64>) -> tensor<10xf64>
    %34 = stablehlo.maximum %33, %32 : tensor<10xf64>
    return %34 : tensor<10xf64>
  }
  func.func private @threefry2x32_3(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<10xui32>, %arg3: tensor<10xui32>) -> (tensor<10xui32>, tensor<10xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<10xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<10xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<10xui32>, tensor<10xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call_4(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<10xui32>, tensor<10xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<10xui32>, tensor<10xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i64>, tensor<i64>, tensor<10xui32>, tensor<10xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<10xui32>, tensor<10xui32>
  }
  func.func private @closed_call_4(%arg0: tensor<i64>, %arg1: tensor<10xui32>, %arg2: tensor<10xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<10xui32>, tensor<10xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<10xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<10xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<10xui32>
    %9 = stablehlo.or %5, %8 : tensor<10xui32>
    %10 = stablehlo.xor %3, %9 : tensor<10xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<10xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<10xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<10xui32>
    %19 = stablehlo.or %15, %18 : tensor<10xui32>
    %20 = stablehlo.xor %13, %19 : tensor<10xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<10xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<10xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<10xui32>
    %29 = stablehlo.or %25, %28 : tensor<10xui32>
    %30 = stablehlo.xor %23, %29 : tensor<10xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<10xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<10xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<10xui32>
    %39 = stablehlo.or %35, %38 : tensor<10xui32>
    %40 = stablehlo.xor %33, %39 : tensor<10xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %42 = stablehlo.add %33, %41 : tensor<10xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %44 = stablehlo.add %40, %43 : tensor<10xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %48 = stablehlo.add %44, %47 : tensor<10xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<10xui32>, tensor<10xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_randint(%arg0: tensor<2xui32>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<8xi32> {
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %c_0 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_1 = stablehlo.constant dense<2147483647> : tensor<i32>
    %0 = call @clip(%c, %c_0, %c_1) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = stablehlo.compare GT, %arg2, %1, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<-2147483648> : tensor<i64>
    %c_3 = stablehlo.constant dense<2147483647> : tensor<i64>
    %3 = call @clip_5(%arg1, %c_2, %c_3) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %4 = stablehlo.convert %3 : (tensor<i64>) -> tensor<i32>
    %c_4 = stablehlo.constant dense<-2147483648> : tensor<i64>
    %c_5 = stablehlo.constant dense<2147483647> : tensor<i64>
    %5 = call @clip_5(%arg2, %c_4, %c_5) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %6 = stablehlo.convert %5 : (tensor<i64>) -> tensor<i32>
    %7 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %9 = call @_threefry_split_6(%arg0) : (tensor<2xui32>) -> tensor<2x2xui32>
    %10 = stablehlo.slice %9 [0:1, 0:2] : (tensor<2x2xui32>) -> tensor<1x2xui32>
    %11 = stablehlo.reshape %10 : (tensor<1x2xui32>) -> tensor<2xui32>
    %12 = stablehlo.slice %9 [1:2, 0:2] : (tensor<2x2xui32>) -> tensor<1x2xui32>
    %13 = stablehlo.reshape %12 : (tensor<1x2xui32>) -> tensor<2xui32>
    %14 = stablehlo.slice %11 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %15 = stablehlo.reshape %14 : (tensor<1xui32>) -> tensor<ui32>
    %16 = stablehlo.slice %11 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %17 = stablehlo.reshape %16 : (tensor<1xui32>) -> tensor<ui32>
    %18 = stablehlo.iota dim = 0 : tensor<8xui64>
    %c_6 = stablehlo.constant dense<1> : tensor<ui64>
    %19 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui64>) -> tensor<8xui64>
    %20 = stablehlo.multiply %19, %18 : tensor<8xui64>
    %c_7 = stablehlo.constant dense<32> : tensor<ui64>
    %21 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui64>) -> tensor<8xui64>
    %22 = stablehlo.shift_right_logical %20, %21 : tensor<8xui64>
    %23 = stablehlo.convert %20 : (tensor<8xui64>) -> tensor<8xui32>
    %24 = stablehlo.convert %22 : (tensor<8xui64>) -> tensor<8xui32>
    %25:2 = call @threefry2x32(%15, %17, %24, %23) : (tensor<ui32>, tensor<ui32>, tensor<8xui32>, tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>)
    %26 = stablehlo.xor %25#0, %25#1 : tensor<8xui32>
    %27 = stablehlo.slice %13 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %28 = stablehlo.reshape %27 : (tensor<1xui32>) -> tensor<ui32>
    %29 = stablehlo.slice %13 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %30 = stablehlo.reshape %29 : (tensor<1xui32>) -> tensor<ui32>
    %31 = stablehlo.iota dim = 0 : tensor<8xui64>
    %c_8 = stablehlo.constant dense<1> : tensor<ui64>
    %32 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<ui64>) -> tensor<8xui64>
    %33 = stablehlo.multiply %32, %31 : tensor<8xui64>
    %c_9 = stablehlo.constant dense<32> : tensor<ui64>
    %34 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<ui64>) -> tensor<8xui64>
    %35 = stablehlo.shift_right_logical %33, %34 : tensor<8xui64>
    %36 = stablehlo.convert %33 : (tensor<8xui64>) -> tensor<8xui32>
    %37 = stablehlo.convert %35 : (tensor<8xui64>) -> tensor<8xui32>
    %38:2 = call @threefry2x32(%28, %30, %37, %36) : (tensor<ui32>, tensor<ui32>, tensor<8xui32>, tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>)
    %39 = stablehlo.xor %38#0, %38#1 : tensor<8xui32>
    %40 = stablehlo.subtract %8, %7 : tensor<1xi32>
    %41 = stablehlo.convert %40 : (tensor<1xi32>) -> tensor<1xui32>
    %42 = stablehlo.compare LE, %8, %7, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %c_10 = stablehlo.constant dense<1> : tensor<ui32>
    %43 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %44 = stablehlo.select %42, %43, %41 : tensor<1xi1>, tensor<1xui32>
    %45 = stablehlo.compare GT, %8, %7, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
    %46 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %47 = stablehlo.and %46, %45 : tensor<1xi1>
    %c_11 = stablehlo.constant dense<1> : tensor<ui32>
    %48 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %49 = stablehlo.add %44, %48 : tensor<1xui32>
    %50 = stablehlo.select %47, %49, %44 : tensor<1xi1>, tensor<1xui32>
    %c_12 = stablehlo.constant dense<65536> : tensor<ui32>
    %51 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %52 = stablehlo.remainder %51, %50 : tensor<1xui32>
    %53 = stablehlo.multiply %52, %52 : tensor<1xui32>
    %54 = stablehlo.remainder %53, %50 : tensor<1xui32>
    %55 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<1xui32>) -> tensor<8xui32>
    %56 = stablehlo.remainder %26, %55 : tensor<8xui32>
    %57 = stablehlo.broadcast_in_dim %54, dims = [0] : (tensor<1xui32>) -> tensor<8xui32>
    %58 = stablehlo.multiply %56, %57 : tensor<8xui32>
    %59 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<1xui32>) -> tensor<8xui32>
    %60 = stablehlo.remainder %39, %59 : tensor<8xui32>
    %61 = stablehlo.add %58, %60 : tensor<8xui32>
    %62 = stablehlo.broadcast_in_dim %50, dims = [0] : (tensor<1xui32>) -> tensor<8xui32>
    %63 = stablehlo.remainder %61, %62 : tensor<8xui32>
    %64 = stablehlo.convert %63 : (tensor<8xui32>) -> tensor<8xi32>
    %65 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<1xi32>) -> tensor<8xi32>
    %66 = stablehlo.add %65, %64 : tensor<8xi32>
    return %66 : tensor<8xi32>
  }
  func.func private @clip(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<i32>
    %1 = stablehlo.minimum %arg2, %0 : tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @clip_5(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<i64>
    %1 = stablehlo.minimum %arg2, %0 : tensor<i64>
    return %1 : tensor<i64>
  }
  func.func private @_threefry_split_6(%arg0: tensor<2xui32>) -> tensor<2x2xui32> {
    %0 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %1 = stablehlo.reshape %0 : (tensor<1xui32>) -> tensor<ui32>
    %2 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.iota dim = 0 : tensor<2xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<2xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<2xui64>
    %9 = stablehlo.convert %6 : (tensor<2xui64>) -> tensor<2xui32>
    %10 = stablehlo.convert %8 : (tensor<2xui64>) -> tensor<2xui32>
    %11:2 = call @threefry2x32_7(%1, %3, %10, %9) : (tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>)
    %12 = stablehlo.broadcast_in_dim %11#0, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %13 = stablehlo.broadcast_in_dim %11#1, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %14 = stablehlo.concatenate %12, %13, dim = 1 : (tensor<2x1xui32>, tensor<2x1xui32>) -> tensor<2x2xui32>
    return %14 : tensor<2x2xui32>
  }
  func.func private @threefry2x32_7(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<2xui32>, %arg3: tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<2xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<2xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call_8(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i64>, tensor<i64>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<2xui32>, tensor<2xui32>
  }
  func.func private @closed_call_8(%arg0: tensor<i64>, %arg1: tensor<2xui32>, %arg2: tensor<2xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<2xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<2xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<2xui32>
    %9 = stablehlo.or %5, %8 : tensor<2xui32>
    %10 = stablehlo.xor %3, %9 : tensor<2xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<2xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<2xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<2xui32>
    %19 = stablehlo.or %15, %18 : tensor<2xui32>
    %20 = stablehlo.xor %13, %19 : tensor<2xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<2xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<2xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<2xui32>
    %29 = stablehlo.or %25, %28 : tensor<2xui32>
    %30 = stablehlo.xor %23, %29 : tensor<2xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<2xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<2xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<2xui32>
    %39 = stablehlo.or %35, %38 : tensor<2xui32>
    %40 = stablehlo.xor %33, %39 : tensor<2xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %42 = stablehlo.add %33, %41 : tensor<2xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %44 = stablehlo.add %40, %43 : tensor<2xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %48 = stablehlo.add %44, %47 : tensor<2xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_gumbel(%arg0: tensor<2xui32>) -> tensor<6x4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.17549435E-38> : tensor<f32>
    %0 = call @_uniform_9(%arg0, %cst, %cst_0) : (tensor<2xui32>, tensor<f64>, tensor<f32>) -> tensor<6x4xf32>
    %1 = stablehlo.log %0 : tensor<6x4xf32>
    %2 = stablehlo.negate %1 : tensor<6x4xf32>
    %3 = stablehlo.log %2 : tensor<6x4xf32>
    %4 = stablehlo.negate %3 : tensor<6x4xf32>
    return %4 : tensor<6x4xf32>
  }
  func.func private @_uniform_9(%arg0: tensor<2xui32>, %arg1: tensor<f64>, %arg2: tensor<f32>) -> tensor<6x4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %3 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %4 = stablehlo.reshape %3 : (tensor<1xui32>) -> tensor<ui32>
    %5 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %6 = stablehlo.reshape %5 : (tensor<1xui32>) -> tensor<ui32>
    %7 = stablehlo.iota dim = 0 : tensor<6x4xui64>
    %8 = stablehlo.iota dim = 1 : tensor<6x4xui64>
    %c = stablehlo.constant dense<4> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<6x4xui64>
    %10 = stablehlo.multiply %9, %7 : tensor<6x4xui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<6x4xui64>
    %12 = stablehlo.multiply %11, %8 : tensor<6x4xui64>
    %13 = stablehlo.add %10, %12 : tensor<6x4xui64>
    %c_1 = stablehlo.constant dense<32> : tensor<ui64>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<6x4xui64>
    %15 = stablehlo.shift_right_logical %13, %14 : tensor<6x4xui64>
    %16 = stablehlo.convert %13 : (tensor<6x4xui64>) -> tensor<6x4xui32>
    %17 = stablehlo.convert %15 : (tensor<6x4xui64>) -> tensor<6x4xui32>
    %18:2 = call @threefry2x32_10(%4, %6, %17, %16) : (tensor<ui32>, tensor<ui32>, tensor<6x4xui32>, tensor<6x4xui32>) -> (tensor<6x4xui32>, tensor<6x4xui32>)
    %19 = stablehlo.xor %18#0, %18#1 : tensor<6x4xui32>
    %c_2 = stablehlo.constant dense<9> : tensor<ui32>
    %20 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %21 = stablehlo.shift_right_logical %19, %20 : tensor<6x4xui32>
    %c_3 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %22 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %23 = stablehlo.or %21, %22 : tensor<6x4xui32>
    %24 = stablehlo.bitcast_convert %23 : (tensor<6x4xui32>) -> tensor<6x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
    %26 = stablehlo.subtract %24, %25 : tensor<6x4xf32>
    %27 = stablehlo.subtract %2, %1 : tensor<1x1xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<6x4xf32>
    %29 = stablehlo.multiply %26, %28 : tensor<6x4xf32>
    %30 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<6x4xf32>
    %31 = stablehlo.add %29, %30 : tensor<6x4xf32>
    %32 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<6x4xf32>
    %33 = stablehlo.maximum %32, %31 : tensor<6x4xf32>
    return %33 : tensor<6x4xf32>
  }
  func.func private @threefry2x32_10(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<6x4xui32>, %arg3: tensor<6x4xui32>) -> (tensor<6x4xui32>, tensor<6x4xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<6x4xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<6x4xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<6x4xui32>, tensor<6x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call_11(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<6x4xui32>, tensor<6x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<6x4xui32>, tensor<6x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i64>, tensor<i64>, tensor<6x4xui32>, tensor<6x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<6x4xui32>, tensor<6x4xui32>
  }
  func.func private @closed_call_11(%arg0: tensor<i64>, %arg1: tensor<6x4xui32>, %arg2: tensor<6x4xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<6x4xui32>, tensor<6x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<6x4xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<6x4xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<6x4xui32>
    %9 = stablehlo.or %5, %8 : tensor<6x4xui32>
    %10 = stablehlo.xor %3, %9 : tensor<6x4xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<6x4xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<6x4xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<6x4xui32>
    %19 = stablehlo.or %15, %18 : tensor<6x4xui32>
    %20 = stablehlo.xor %13, %19 : tensor<6x4xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<6x4xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<6x4xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<6x4xui32>
    %29 = stablehlo.or %25, %28 : tensor<6x4xui32>
    %30 = stablehlo.xor %23, %29 : tensor<6x4xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<6x4xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<6x4xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<6x4xui32>
    %39 = stablehlo.or %35, %38 : tensor<6x4xui32>
    %40 = stablehlo.xor %33, %39 : tensor<6x4xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %42 = stablehlo.add %33, %41 : tensor<6x4xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %44 = stablehlo.add %40, %43 : tensor<6x4xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<6x4xui32>
    %48 = stablehlo.add %44, %47 : tensor<6x4xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<6x4xui32>, tensor<6x4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @argmax(%arg0: tensor<6x4xf32>) -> tensor<6xi64> {
    %0 = stablehlo.iota dim = 1 : tensor<6x4xi64>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<6x4xf32>, tensor<6x4xi64>, tensor<f32>, tensor<i64>) -> (tensor<6xf32>, tensor<6xi64>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i64>
    }
    return %1#1 : tensor<6xi64>
  }
  func.func private @_truncated_normal(%arg0: tensor<2xui32>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %cst = stablehlo.constant dense<1.41421354> : tensor<f32>
    %2 = stablehlo.divide %0, %cst : tensor<f32>
    %3 = chlo.erf %2 : tensor<f32> -> tensor<f32>
    %cst_0 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %4 = stablehlo.divide %1, %cst_0 : tensor<f32>
    %5 = chlo.erf %4 : tensor<f32> -> tensor<f32>
    %6 = call @_uniform_12(%arg0, %3, %5) : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
    %7 = chlo.erf_inv %6 : tensor<5xf32> -> tensor<5xf32>
    %cst_1 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<5xf32>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %10 = chlo.next_after %0, %cst_2 : tensor<f32>, tensor<f32> -> tensor<f32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %11 = chlo.next_after %1, %cst_3 : tensor<f32>, tensor<f32> -> tensor<f32>
    %12 = call @clip_15(%9, %10, %11) : (tensor<5xf32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
    return %12 : tensor<5xf32>
  }
  func.func private @_uniform_12(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %2 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.iota dim = 0 : tensor<5xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<5xui64>
    %8 = stablehlo.multiply %7, %6 : tensor<5xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<5xui64>
    %10 = stablehlo.shift_right_logical %8, %9 : tensor<5xui64>
    %11 = stablehlo.convert %8 : (tensor<5xui64>) -> tensor<5xui32>
    %12 = stablehlo.convert %10 : (tensor<5xui64>) -> tensor<5xui32>
    %13:2 = call @threefry2x32_13(%3, %5, %12, %11) : (tensor<ui32>, tensor<ui32>, tensor<5xui32>, tensor<5xui32>) -> (tensor<5xui32>, tensor<5xui32>)
    %14 = stablehlo.xor %13#0, %13#1 : tensor<5xui32>
    %c_1 = stablehlo.constant dense<9> : tensor<ui32>
    %15 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %16 = stablehlo.shift_right_logical %14, %15 : tensor<5xui32>
    %c_2 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %18 = stablehlo.or %16, %17 : tensor<5xui32>
    %19 = stablehlo.bitcast_convert %18 : (tensor<5xui32>) -> tensor<5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %21 = stablehlo.subtract %19, %20 : tensor<5xf32>
    %22 = stablehlo.subtract %1, %0 : tensor<1xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<1xf32>) -> tensor<5xf32>
    %24 = stablehlo.multiply %21, %23 : tensor<5xf32>
    %25 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<1xf32>) -> tensor<5xf32>
    %26 = stablehlo.add %24, %25 : tensor<5xf32>
    %27 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<1xf32>) -> tensor<5xf32>
    %28 = stablehlo.maximum %27, %26 : tensor<5xf32>
    return %28 : tensor<5xf32>
  }
  func.func private @threefry2x32_13(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<5xui32>, %arg3: tensor<5xui32>) -> (tensor<5xui32>, tensor<5xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<5xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<5xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<5xui32>, tensor<5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call_14(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<5xui32>, tensor<5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<5xui32>, tensor<5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i64>, tensor<i64>, tensor<5xui32>, tensor<5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<5xui32>, tensor<5xui32>
  }
  func.func private @closed_call_14(%arg0: tensor<i64>, %arg1: tensor<5xui32>, %arg2: tensor<5xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<5xui32>, tensor<5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<5xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<5xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<5xui32>
    %9 = stablehlo.or %5, %8 : tensor<5xui32>
    %10 = stablehlo.xor %3, %9 : tensor<5xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<5xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<5xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<5xui32>
    %19 = stablehlo.or %15, %18 : tensor<5xui32>
    %20 = stablehlo.xor %13, %19 : tensor<5xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<5xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<5xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<5xui32>
    %29 = stablehlo.or %25, %28 : tensor<5xui32>
    %30 = stablehlo.xor %23, %29 : tensor<5xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<5xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<5xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<5xui32>
    %39 = stablehlo.or %35, %38 : tensor<5xui32>
    %40 = stablehlo.xor %33, %39 : tensor<5xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %42 = stablehlo.add %33, %41 : tensor<5xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %44 = stablehlo.add %40, %43 : tensor<5xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %48 = stablehlo.add %44, %47 : tensor<5xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<5xui32>, tensor<5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @clip_15(%arg0: tensor<5xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<5xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<5xf32>
    return %3 : tensor<5xf32>
  }
  func.func private @_exponential(%arg0: tensor<2xui32>) -> tensor<5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %0 = call @_uniform_16(%arg0, %cst, %cst_0) : (tensor<2xui32>, tensor<f64>, tensor<f64>) -> tensor<5xf32>
    %1 = stablehlo.negate %0 : tensor<5xf32>
    %2 = stablehlo.log_plus_one %1 : tensor<5xf32>
    %3 = stablehlo.negate %2 : tensor<5xf32>
    return %3 : tensor<5xf32>
  }
  func.func private @_uniform_16(%arg0: tensor<2xui32>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %4 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %7 = stablehlo.reshape %6 : (tensor<1xui32>) -> tensor<ui32>
    %8 = stablehlo.iota dim = 0 : tensor<5xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<5xui64>
    %10 = stablehlo.multiply %9, %8 : tensor<5xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<5xui64>
    %12 = stablehlo.shift_right_logical %10, %11 : tensor<5xui64>
    %13 = stablehlo.convert %10 : (tensor<5xui64>) -> tensor<5xui32>
    %14 = stablehlo.convert %12 : (tensor<5xui64>) -> tensor<5xui32>
    %15:2 = call @threefry2x32_13(%5, %7, %14, %13) : (tensor<ui32>, tensor<ui32>, tensor<5xui32>, tensor<5xui32>) -> (tensor<5xui32>, tensor<5xui32>)
    %16 = stablehlo.xor %15#0, %15#1 : tensor<5xui32>
    %c_1 = stablehlo.constant dense<9> : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %18 = stablehlo.shift_right_logical %16, %17 : tensor<5xui32>
    %c_2 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %19 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<5xui32>
    %20 = stablehlo.or %18, %19 : tensor<5xui32>
    %21 = stablehlo.bitcast_convert %20 : (tensor<5xui32>) -> tensor<5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %23 = stablehlo.subtract %21, %22 : tensor<5xf32>
    %24 = stablehlo.subtract %3, %2 : tensor<1xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<1xf32>) -> tensor<5xf32>
    %26 = stablehlo.multiply %23, %25 : tensor<5xf32>
    %27 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<5xf32>
    %28 = stablehlo.add %26, %27 : tensor<5xf32>
    %29 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<5xf32>
    %30 = stablehlo.maximum %29, %28 : tensor<5xf32>
    return %30 : tensor<5xf32>
  }
  func.func private @_gamma(%arg0: tensor<2xui32>, %arg1: tensor<3xf32>) -> tensor<3xf64> {
    %0 = stablehlo.convert %arg1 : (tensor<3xf32>) -> tensor<3xf64>
    %1 = stablehlo.reshape %arg0 : (tensor<2xui32>) -> tensor<1x2xui32>
    %2 = call @_threefry_split_17(%1) : (tensor<1x2xui32>) -> tensor<1x3x2xui32>
    %3 = stablehlo.reshape %2 : (tensor<1x3x2xui32>) -> tensor<3x2xui32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.compare GE, %0, %4, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %7 = stablehlo.add %0, %6 : tensor<3xf64>
    %8 = stablehlo.select %5, %0, %7 : tensor<3xi1>, tensor<3xf64>
    %cst_1 = stablehlo.constant dense<0.33333333333333331> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %10 = stablehlo.subtract %8, %9 : tensor<3xf64>
    %11 = stablehlo.sqrt %10 : tensor<3xf64>
    %cst_2 = stablehlo.constant dense<0.33333333333333331> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %13 = stablehlo.divide %12, %11 : tensor<3xf64>
    %14 = call @_threefry_split_20(%3) : (tensor<3x2xui32>) -> tensor<3x2x2xui32>
    %15 = stablehlo.slice %14 [0:3, 0:1, 0:2] : (tensor<3x2x2xui32>) -> tensor<3x1x2xui32>
    %16 = stablehlo.reshape %15 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
    %17 = stablehlo.slice %14 [0:3, 1:2, 0:2] : (tensor<3x2x2xui32>) -> tensor<3x1x2xui32>
    %18 = stablehlo.reshape %17 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %20 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %22:6 = stablehlo.while(%iterArg = %10, %iterArg_11 = %13, %iterArg_12 = %16, %iterArg_13 = %19, %iterArg_14 = %20, %iterArg_15 = %21) : tensor<3xf64>, tensor<3xf64>, tensor<3x2xui32>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    cond {
      %33 = stablehlo.multiply %iterArg_13, %iterArg_13 : tensor<3xf64>
      %cst_16 = stablehlo.constant dense<3.310000e-02> : tensor<f64>
      %34 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %35 = stablehlo.multiply %34, %33 : tensor<3xf64>
      %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %36 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %37 = stablehlo.subtract %36, %35 : tensor<3xf64>
      %38 = stablehlo.compare GE, %iterArg_15, %37, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
      %39 = stablehlo.log %iterArg_15 : tensor<3xf64>
      %cst_18 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
      %40 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %41 = stablehlo.multiply %iterArg_13, %40 : tensor<3xf64>
      %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %42 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %43 = stablehlo.subtract %42, %iterArg_14 : tensor<3xf64>
      %44 = stablehlo.log %iterArg_14 : tensor<3xf64>
      %45 = stablehlo.add %43, %44 : tensor<3xf64>
      %46 = stablehlo.multiply %iterArg, %45 : tensor<3xf64>
      %47 = stablehlo.add %41, %46 : tensor<3xf64>
      %48 = stablehlo.compare GE, %39, %47, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
      %49 = stablehlo.and %38, %48 : tensor<3xi1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %50 = stablehlo.reduce(%49 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<3xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %50 : tensor<i1>
    } do {
      %33 = func.call @_threefry_split_23(%iterArg_12) : (tensor<3x2xui32>) -> tensor<3x3x2xui32>
      %34 = stablehlo.slice %33 [0:3, 0:1, 0:2] : (tensor<3x3x2xui32>) -> tensor<3x1x2xui32>
      %35 = stablehlo.reshape %34 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
      %36 = stablehlo.slice %33 [0:3, 1:2, 0:2] : (tensor<3x3x2xui32>) -> tensor<3x1x2xui32>
      %37 = stablehlo.reshape %36 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
      %38 = stablehlo.slice %33 [0:3, 2:3, 0:2] : (tensor<3x3x2xui32>) -> tensor<3x1x2xui32>
      %39 = stablehlo.reshape %38 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
      %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %40 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %cst_17 = stablehlo.constant dense<-1.000000e+00> : tensor<f64>
      %41 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %42:4 = stablehlo.while(%iterArg_24 = %iterArg_11, %iterArg_25 = %37, %iterArg_26 = %40, %iterArg_27 = %41) : tensor<3xf64>, tensor<3x2xui32>, tensor<3xf64>, tensor<3xf64>
      cond {
        %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
        %72 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f64>) -> tensor<3xf64>
        %73 = stablehlo.compare LE, %iterArg_27, %72, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
        %c = stablehlo.constant dense<false> : tensor<i1>
        %74 = stablehlo.reduce(%73 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<3xi1>, tensor<i1>) -> tensor<i1>
        stablehlo.return %74 : tensor<i1>
      } do {
        %72 = func.call @_threefry_split_20(%iterArg_25) : (tensor<3x2xui32>) -> tensor<3x2x2xui32>
        %73 = stablehlo.slice %72 [0:3, 0:1, 0:2] : (tensor<3x2x2xui32>) -> tensor<3x1x2xui32>
        %74 = stablehlo.reshape %73 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
        %75 = stablehlo.slice %72 [0:3, 1:2, 0:2] : (tensor<3x2x2xui32>) -> tensor<3x1x2xui32>
        %76 = stablehlo.reshape %75 : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
        %77 = func.call @_normal_26(%76) : (tensor<3x2xui32>) -> tensor<3xf64>
        %78 = stablehlo.multiply %77, %iterArg_24 : tensor<3xf64>
        %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
        %79 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f64>) -> tensor<3xf64>
        %80 = stablehlo.add %79, %78 : tensor<3xf64>
        %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
        %81 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f64>) -> tensor<3xf64>
        %82 = stablehlo.compare LE, %iterArg_27, %81, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
        %83 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<3xi1>) -> tensor<3x2xi1>
        %84 = stablehlo.select %83, %74, %iterArg_25 : tensor<3x2xi1>, tensor<3x2xui32>
        %85 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<3xi1>) -> tensor<3xi1>
        %86 = stablehlo.select %85, %77, %iterArg_26 : tensor<3xi1>, tensor<3xf64>
        %87 = stablehlo.broadcast_in_dim %82, dims = [0] : (tensor<3xi1>) -> tensor<3xi1>
        %88 = stablehlo.select %87, %80, %iterArg_27 : tensor<3xi1>, tensor<3xf64>
        stablehlo.return %iterArg_24, %84, %86, %88 : tensor<3xf64>, tensor<3x2xui32>, tensor<3xf64>, tensor<3xf64>
      }
      %43 = stablehlo.multiply %42#2, %42#2 : tensor<3xf64>
      %44 = stablehlo.multiply %42#3, %42#3 : tensor<3xf64>
      %45 = stablehlo.multiply %44, %42#3 : tensor<3xf64>
      %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %46 = func.call @_uniform_31(%39, %cst_18, %cst_19) : (tensor<3x2xui32>, tensor<f64>, tensor<f64>) -> tensor<3xf64>
      %47 = stablehlo.multiply %iterArg_13, %iterArg_13 : tensor<3xf64>
      %cst_20 = stablehlo.constant dense<3.310000e-02> : tensor<f64>
      %48 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %49 = stablehlo.multiply %48, %47 : tensor<3xf64>
      %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %50 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %51 = stablehlo.subtract %50, %49 : tensor<3xf64>
      %52 = stablehlo.compare GE, %iterArg_15, %51, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
      %53 = stablehlo.log %iterArg_15 : tensor<3xf64>
      %cst_22 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
      %54 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %55 = stablehlo.multiply %iterArg_13, %54 : tensor<3xf64>
      %cst_23 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %56 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f64>) -> tensor<3xf64>
      %57 = stablehlo.subtract %56, %iterArg_14 : tensor<3xf64>
      %58 = stablehlo.log %iterArg_14 : tensor<3xf64>
      %59 = stablehlo.add %57, %58 : tensor<3xf64>
      %60 = stablehlo.multiply %iterArg, %59 : tensor<3xf64>
      %61 = stablehlo.add %55, %60 : tensor<3xf64>
      %62 = stablehlo.compare GE, %53, %61, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
      %63 = stablehlo.and %52, %62 : tensor<3xi1>
      %64 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<3xi1>) -> tensor<3x2xi1>
      %65 = stablehlo.select %64, %35, %iterArg_12 : tensor<3x2xi1>, tensor<3x2xui32>
      %66 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<3xi1>) -> tensor<3xi1>
      %67 = stablehlo.select %66, %43, %iterArg_13 : tensor<3xi1>, tensor<3xf64>
      %68 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<3xi1>) -> tensor<3xi1>
      %69 = stablehlo.select %68, %45, %iterArg_14 : tensor<3xi1>, tensor<3xf64>
      %70 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<3xi1>) -> tensor<3xi1>
      %71 = stablehlo.select %70, %46, %iterArg_15 : tensor<3xi1>, tensor<3xf64>
      stablehlo.return %iterArg, %iterArg_11, %65, %67, %69, %71 : tensor<3xf64>, tensor<3xf64>, tensor<3x2xui32>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    }
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %23 = call @_uniform_31(%18, %cst_6, %cst_7) : (tensor<3x2xui32>, tensor<f64>, tensor<f64>) -> tensor<3xf64>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %24 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %25 = stablehlo.subtract %24, %23 : tensor<3xf64>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %26 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %27 = stablehlo.divide %26, %0 : tensor<3xf64>
    %28 = stablehlo.power %25, %27 : tensor<3xf64>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %29 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %30 = stablehlo.select %5, %29, %28 : tensor<3xi1>, tensor<3xf64>
    %31 = stablehlo.multiply %10, %22#4 : tensor<3xf64>
    %32 = stablehlo.multiply %31, %30 : tensor<3xf64>
    return %32 : tensor<3xf64>
  }
  func.func private @_threefry_split_17(%arg0: tensor<1x2xui32>) -> tensor<1x3x2xui32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<1x2xui32>) -> tensor<1x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<1x1xui32>) -> tensor<1xui32>
    %2 = stablehlo.slice %arg0 [0:1, 1:2] : (tensor<1x2xui32>) -> tensor<1x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1x1xui32>) -> tensor<1xui32>
    %4 = stablehlo.iota dim = 0 : tensor<3xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<3xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<3xui64>
    %9 = stablehlo.convert %6 : (tensor<3xui64>) -> tensor<3xui32>
    %10 = stablehlo.convert %8 : (tensor<3xui64>) -> tensor<3xui32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<1xui32>) -> tensor<1x1xui32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xui32>) -> tensor<1x1xui32>
    %15:2 = call @threefry2x32_18(%13, %14, %11, %12) : (tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x3xui32>, tensor<1x3xui32>) -> (tensor<1x3xui32>, tensor<1x3xui32>)
    %16 = stablehlo.broadcast_in_dim %15#0, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<1x3x1xui32>
    %17 = stablehlo.broadcast_in_dim %15#1, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<1x3x1xui32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<1x3x1xui32>, tensor<1x3x1xui32>) -> tensor<1x3x2xui32>
    return %18 : tensor<1x3x2xui32>
  }
  func.func private @threefry2x32_18(%arg0: tensor<1x1xui32>, %arg1: tensor<1x1xui32>, %arg2: tensor<1x3xui32>, %arg3: tensor<1x3xui32>) -> (tensor<1x3xui32>, tensor<1x3xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<1x1xui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<1x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<1x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x3xui32>
    %4 = stablehlo.add %arg2, %3 : tensor<1x3xui32>
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x3xui32>
    %6 = stablehlo.add %arg3, %5 : tensor<1x3xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %7:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %4, %iterArg_6 = %6, %iterArg_7 = %arg1, %iterArg_8 = %2, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<1x3xui32>, tensor<1x3xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %8 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    } do {
      %8:8 = func.call @closed_call_19(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<1x3xui32>, tensor<1x3xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<1x3xui32>, tensor<1x3xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %9 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %9, %8#0, %8#1, %8#2, %8#3, %8#4, %8#5, %8#6, %8#7 : tensor<i64>, tensor<i64>, tensor<1x3xui32>, tensor<1x3xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %7#2, %7#3 : tensor<1x3xui32>, tensor<1x3xui32>
  }
  func.func private @closed_call_19(%arg0: tensor<i64>, %arg1: tensor<1x3xui32>, %arg2: tensor<1x3xui32>, %arg3: tensor<1x1xui32>, %arg4: tensor<1x1xui32>, %arg5: tensor<1x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<1x3xui32>, tensor<1x3xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<1x3xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<1x3xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<1x3xui32>
    %9 = stablehlo.or %5, %8 : tensor<1x3xui32>
    %10 = stablehlo.xor %3, %9 : tensor<1x3xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<1x3xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<1x3xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<1x3xui32>
    %19 = stablehlo.or %15, %18 : tensor<1x3xui32>
    %20 = stablehlo.xor %13, %19 : tensor<1x3xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<1x3xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<1x3xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<1x3xui32>
    %29 = stablehlo.or %25, %28 : tensor<1x3xui32>
    %30 = stablehlo.xor %23, %29 : tensor<1x3xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<1x3xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<1x3xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<1x3xui32>
    %39 = stablehlo.or %35, %38 : tensor<1x3xui32>
    %40 = stablehlo.xor %33, %39 : tensor<1x3xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x3xui32>
    %42 = stablehlo.add %33, %41 : tensor<1x3xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x3xui32>
    %44 = stablehlo.add %40, %43 : tensor<1x3xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<1x3xui32>
    %48 = stablehlo.add %44, %47 : tensor<1x3xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<1x3xui32>, tensor<1x3xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_threefry_split_20(%arg0: tensor<3x2xui32>) -> tensor<3x2x2xui32> {
    %0 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<3x1xui32>) -> tensor<3xui32>
    %2 = stablehlo.slice %arg0 [0:3, 1:2] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<3x1xui32>) -> tensor<3xui32>
    %4 = stablehlo.iota dim = 0 : tensor<2xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<2xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<2xui64>
    %9 = stablehlo.convert %6 : (tensor<2xui64>) -> tensor<2xui32>
    %10 = stablehlo.convert %8 : (tensor<2xui64>) -> tensor<2xui32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<3xui32>) -> tensor<3x1xui32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<3xui32>) -> tensor<3x1xui32>
    %15:2 = call @threefry2x32_21(%13, %14, %11, %12) : (tensor<3x1xui32>, tensor<3x1xui32>, tensor<1x2xui32>, tensor<1x2xui32>) -> (tensor<3x2xui32>, tensor<3x2xui32>)
    %16 = stablehlo.broadcast_in_dim %15#0, dims = [0, 1] : (tensor<3x2xui32>) -> tensor<3x2x1xui32>
    %17 = stablehlo.broadcast_in_dim %15#1, dims = [0, 1] : (tensor<3x2xui32>) -> tensor<3x2x1xui32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<3x2x1xui32>, tensor<3x2x1xui32>) -> tensor<3x2x2xui32>
    return %18 : tensor<3x2x2xui32>
  }
  func.func private @threefry2x32_21(%arg0: tensor<3x1xui32>, %arg1: tensor<3x1xui32>, %arg2: tensor<1x2xui32>, %arg3: tensor<1x2xui32>) -> (tensor<3x2xui32>, tensor<3x2xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<3x1xui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<3x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<3x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<3x2xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x2xui32>
    %5 = stablehlo.add %3, %4 : tensor<3x2xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<3x2xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x2xui32>
    %8 = stablehlo.add %6, %7 : tensor<3x2xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %5, %iterArg_6 = %8, %iterArg_7 = %arg1, %iterArg_8 = %2, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %10 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call_22(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %11 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i64>, tensor<i64>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<3x2xui32>, tensor<3x2xui32>
  }
  func.func private @closed_call_22(%arg0: tensor<i64>, %arg1: tensor<3x2xui32>, %arg2: tensor<3x2xui32>, %arg3: tensor<3x1xui32>, %arg4: tensor<3x1xui32>, %arg5: tensor<3x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<3x2xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<3x2xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<3x2xui32>
    %9 = stablehlo.or %5, %8 : tensor<3x2xui32>
    %10 = stablehlo.xor %3, %9 : tensor<3x2xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<3x2xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<3x2xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<3x2xui32>
    %19 = stablehlo.or %15, %18 : tensor<3x2xui32>
    %20 = stablehlo.xor %13, %19 : tensor<3x2xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<3x2xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<3x2xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<3x2xui32>
    %29 = stablehlo.or %25, %28 : tensor<3x2xui32>
    %30 = stablehlo.xor %23, %29 : tensor<3x2xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<3x2xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<3x2xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<3x2xui32>
    %39 = stablehlo.or %35, %38 : tensor<3x2xui32>
    %40 = stablehlo.xor %33, %39 : tensor<3x2xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x2xui32>
    %42 = stablehlo.add %33, %41 : tensor<3x2xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x2xui32>
    %44 = stablehlo.add %40, %43 : tensor<3x2xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<3x2xui32>
    %48 = stablehlo.add %44, %47 : tensor<3x2xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<3x2xui32>, tensor<3x2xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_threefry_split_23(%arg0: tensor<3x2xui32>) -> tensor<3x3x2xui32> {
    %0 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<3x1xui32>) -> tensor<3xui32>
    %2 = stablehlo.slice %arg0 [0:3, 1:2] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<3x1xui32>) -> tensor<3xui32>
    %4 = stablehlo.iota dim = 0 : tensor<3xui64>
    %c = stablehlo.constant dense<1> : tensor<ui64>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<3xui64>
    %c_0 = stablehlo.constant dense<32> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<3xui64>
    %9 = stablehlo.convert %6 : (tensor<3xui64>) -> tensor<3xui32>
    %10 = stablehlo.convert %8 : (tensor<3xui64>) -> tensor<3xui32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<3xui32>) -> tensor<3x1xui32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<3xui32>) -> tensor<3x1xui32>
    %15:2 = call @threefry2x32_24(%13, %14, %11, %12) : (tensor<3x1xui32>, tensor<3x1xui32>, tensor<1x3xui32>, tensor<1x3xui32>) -> (tensor<3x3xui32>, tensor<3x3xui32>)
    %16 = stablehlo.broadcast_in_dim %15#0, dims = [0, 1] : (tensor<3x3xui32>) -> tensor<3x3x1xui32>
    %17 = stablehlo.broadcast_in_dim %15#1, dims = [0, 1] : (tensor<3x3xui32>) -> tensor<3x3x1xui32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<3x3x1xui32>, tensor<3x3x1xui32>) -> tensor<3x3x2xui32>
    return %18 : tensor<3x3x2xui32>
  }
  func.func private @threefry2x32_24(%arg0: tensor<3x1xui32>, %arg1: tensor<3x1xui32>, %arg2: tensor<1x3xui32>, %arg3: tensor<1x3xui32>) -> (tensor<3x3xui32>, tensor<3x3xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<3x1xui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<3x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<3x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<3x3xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x3xui32>
    %5 = stablehlo.add %3, %4 : tensor<3x3xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<3x3xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x3xui32>
    %8 = stablehlo.add %6, %7 : tensor<3x3xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %5, %iterArg_6 = %8, %iterArg_7 = %arg1, %iterArg_8 = %2, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<3x3xui32>, tensor<3x3xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %10 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call_25(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<3x3xui32>, tensor<3x3xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<3x3xui32>, tensor<3x3xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %11 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i64>, tensor<i64>, tensor<3x3xui32>, tensor<3x3xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<3x3xui32>, tensor<3x3xui32>
  }
  func.func private @closed_call_25(%arg0: tensor<i64>, %arg1: tensor<3x3xui32>, %arg2: tensor<3x3xui32>, %arg3: tensor<3x1xui32>, %arg4: tensor<3x1xui32>, %arg5: tensor<3x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<3x3xui32>, tensor<3x3xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<3x3xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<3x3xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<3x3xui32>
    %9 = stablehlo.or %5, %8 : tensor<3x3xui32>
    %10 = stablehlo.xor %3, %9 : tensor<3x3xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<3x3xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<3x3xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<3x3xui32>
    %19 = stablehlo.or %15, %18 : tensor<3x3xui32>
    %20 = stablehlo.xor %13, %19 : tensor<3x3xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<3x3xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<3x3xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<3x3xui32>
    %29 = stablehlo.or %25, %28 : tensor<3x3xui32>
    %30 = stablehlo.xor %23, %29 : tensor<3x3xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<3x3xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<3x3xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<3x3xui32>
    %39 = stablehlo.or %35, %38 : tensor<3x3xui32>
    %40 = stablehlo.xor %33, %39 : tensor<3x3xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x3xui32>
    %42 = stablehlo.add %33, %41 : tensor<3x3xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<3x1xui32>) -> tensor<3x3xui32>
    %44 = stablehlo.add %40, %43 : tensor<3x3xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %46 = stablehlo.convert %45 : (tensor<i64>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<3x3xui32>
    %48 = stablehlo.add %44, %47 : tensor<3x3xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<3x3xui32>, tensor<3x3xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<3x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_normal_26(%arg0: tensor<3x2xui32>) -> tensor<3xf64> {
    %0 = call @_normal_real_27(%arg0) : (tensor<3x2xui32>) -> tensor<3xf64>
    return %0 : tensor<3xf64>
  }
  func.func private @_normal_real_27(%arg0: tensor<3x2xui32>) -> tensor<3xf64> {
    %cst = stablehlo.constant dense<-0.99999999999999988> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %0 = call @_uniform_28(%arg0, %cst, %cst_0) : (tensor<3x2xui32>, tensor<f64>, tensor<f64>) -> tensor<3xf64>
    %1 = chlo.erf_inv %0 : tensor<3xf64> -> tensor<3xf64>
    %cst_1 = stablehlo.constant dense<1.4142135623730951> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %3 = stablehlo.multiply %2, %1 : tensor<3xf64>
    return %3 : tensor<3xf64>
  }
  func.func private @_uniform_28(%arg0: tensor<3x2xui32>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<3xf64> {
    %0 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<3x1xui32>) -> tensor<3xui32>
    %2 = stablehlo.slice %arg0 [0:3, 1:2] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<3x1xui32>) -> tensor<3xui32>
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %c_0 = stablehlo.constant dense<0> : tensor<ui32>
    %4:2 = call @threefry2x32_29(%1, %3, %c, %c_0) : (tensor<3xui32>, tensor<3xui32>, tensor<ui32>, tensor<ui32>) -> (tensor<3xui32>, tensor<3xui32>)
    %5 = stablehlo.convert %4#0 : (tensor<3xui32>) -> tensor<3xui64>
    %6 = stablehlo.convert %4#1 : (tensor<3xui32>) -> tensor<3xui64>
    %c_1 = stablehlo.constant dense<32> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %8 = stablehlo.shift_left %5, %7 : tensor<3xui64>
    %9 = stablehlo.or %8, %6 : tensor<3xui64>
    %c_2 = stablehlo.constant dense<12> : tensor<ui64>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %11 = stablehlo.shift_right_logical %9, %10 : tensor<3xui64>
    %c_3 = stablehlo.constant dense<4607182418800017408> : tensor<ui64>
    %12 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %13 = stablehlo.or %11, %12 : tensor<3xui64>
    %14 = stablehlo.bitcast_convert %13 : (tensor<3xui64>) -> tensor<3xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %16 = stablehlo.subtract %14, %15 : tensor<3xf64>
    %17 = stablehlo.subtract %arg2, %arg1 : tensor<f64>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %19 = stablehlo.multiply %16, %18 : tensor<3xf64>
    %20 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %21 = stablehlo.add %19, %20 : tensor<3xf64>
    %22 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %23 = stablehlo.maximum %22, %21 : tensor<3xf64>
    return %23 : tensor<3xf64>
  }
  func.func private @threefry2x32_29(%arg0: tensor<3xui32>, %arg1: tensor<3xui32>, %arg2: tensor<ui32>, %arg3: tensor<ui32>) -> (tensor<3xui32>, tensor<3xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<3xui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %2 = stablehlo.xor %0, %1 : tensor<3xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %4 = stablehlo.add %3, %arg0 : tensor<3xui32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %6 = stablehlo.add %5, %arg1 : tensor<3xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %7:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %4, %iterArg_6 = %6, %iterArg_7 = %arg1, %iterArg_8 = %2, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i64>, tensor<i64>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i64>
      %8 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    } do {
      %8:8 = func.call @closed_call_30(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i64>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i64>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i64>
      %9 = stablehlo.add %iterArg, %c_12 : tensor<i64>
      stablehlo.return %9, %8#0, %8#1, %8#2, %8#3, %8#4, %8#5, %8#6, %8#7 : tensor<i64>, tensor<i64>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %7#2, %7#3 : tensor<3xui32>, tensor<3xui32>
  }
  func.func private @closed_call_30(%arg0: tensor<i64>, %arg1: tensor<3xui32>, %arg2: tensor<3xui32>, %arg3: tensor<3xui32>, %arg4: tensor<3xui32>, %arg5: tensor<3xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i64>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<3xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<3xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<3xui32>
    %9 = stablehlo.or %5, %8 : tensor<3xui32>
    %10 = stablehlo.xor %3, %9 : tensor<3xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<3xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<3xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<3xui32>
    %19 = stablehlo.or %15, %18 : tensor<3xui32>
    %20 = stablehlo.xor %13, %19 : tensor<3xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<3xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<3xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<3xui32>
    %29 = stablehlo.or %25, %28 : tensor<3xui32>
    %30 = stablehlo.xor %23, %29 : tensor<3xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<3xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<3xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<3xui32>
    %39 = stablehlo.or %35, %38 : tensor<3xui32>
    %40 = stablehlo.xor %33, %39 : tensor<3xui32>
    %41 = stablehlo.add %33, %arg3 : tensor<3xui32>
    %42 = stablehlo.add %40, %arg4 : tensor<3xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i64>
    %43 = stablehlo.add %arg0, %c_4 : tensor<i64>
    %44 = stablehlo.convert %43 : (tensor<i64>) -> tensor<ui32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %46 = stablehlo.add %42, %45 : tensor<3xui32>
    return %0, %41, %46, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i64>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_uniform_31(%arg0: tensor<3x2xui32>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<3xf64> {
    %0 = stablehlo.convert %arg1 : tensor<f64>
    %1 = stablehlo.convert %arg2 : tensor<f64>
    %2 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<3x1xui32>) -> tensor<3xui32>
    %4 = stablehlo.slice %arg0 [0:3, 1:2] : (tensor<3x2xui32>) -> tensor<3x1xui32>
    %5 = stablehlo.reshape %4 : (tensor<3x1xui32>) -> tensor<3xui32>
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %c_0 = stablehlo.constant dense<0> : tensor<ui32>
    %6:2 = call @threefry2x32_29(%3, %5, %c, %c_0) : (tensor<3xui32>, tensor<3xui32>, tensor<ui32>, tensor<ui32>) -> (tensor<3xui32>, tensor<3xui32>)
    %7 = stablehlo.convert %6#0 : (tensor<3xui32>) -> tensor<3xui64>
    %8 = stablehlo.convert %6#1 : (tensor<3xui32>) -> tensor<3xui64>
    %c_1 = stablehlo.constant dense<32> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %10 = stablehlo.shift_left %7, %9 : tensor<3xui64>
    %11 = stablehlo.or %10, %8 : tensor<3xui64>
    %c_2 = stablehlo.constant dense<12> : tensor<ui64>
    %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %13 = stablehlo.shift_right_logical %11, %12 : tensor<3xui64>
    %c_3 = stablehlo.constant dense<4607182418800017408> : tensor<ui64>
    %14 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %15 = stablehlo.or %13, %14 : tensor<3xui64>
    %16 = stablehlo.bitcast_convert %15 : (tensor<3xui64>) -> tensor<3xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %17 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %18 = stablehlo.subtract %16, %17 : tensor<3xf64>
    %19 = stablehlo.subtract %1, %0 : tensor<f64>
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %21 = stablehlo.multiply %18, %20 : tensor<3xf64>
    %22 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %23 = stablehlo.add %21, %22 : tensor<3xf64>
    %24 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %25 = stablehlo.maximum %24, %23 : tensor<3xf64>
    return %25 : tensor<3xf64>
  }
}
