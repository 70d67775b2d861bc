module @jit_transformer_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x8xf32>, %arg5: tensor<8x16xf32>, %arg6: tensor<16x8xf32>, %arg7: tensor<8xf32>, %arg8: tensor<8xf32>) -> (tensor<2x6x8xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_var(%arg0, %c) : (tensor<2x6x8xf32>, tensor<i32>) -> tensor<2x6x1xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %6 = stablehlo.subtract %arg0, %5 : tensor<2x6x8xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %8 = stablehlo.add %4, %7 : tensor<2x6x1xf32>
    %9 = stablehlo.rsqrt %8 : tensor<2x6x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %11 = stablehlo.multiply %6, %10 : tensor<2x6x8xf32>
    %12 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %14 = stablehlo.multiply %11, %13 : tensor<2x6x8xf32>
    %15 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %17 = stablehlo.add %14, %16 : tensor<2x6x8xf32>
    %18 = stablehlo.dot_general %17, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %19 = stablehlo.dot_general %17, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %20 = stablehlo.dot_general %17, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %21 = stablehlo.dot_general %18, %19, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %22 = stablehlo.sqrt %cst_2 : tensor<f32>
    %23 = stablehlo.convert %22 : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %25 = stablehlo.divide %21, %24 : tensor<2x6x6xf32>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %26 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %27 = call @tril(%26) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %cst_4 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %28 = call @_where_0(%27, %25, %cst_4) : (tensor<6x6xi1>, tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_5) applies stablehlo.maximum across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %31 = stablehlo.maximum %30, %29 : tensor<2x6xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %34 = stablehlo.subtract %28, %33 : tensor<2x6x6xf32>
    %35 = stablehlo.exponential %34 : tensor<2x6x6xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_7) applies stablehlo.add across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %39 = stablehlo.divide %35, %38 : tensor<2x6x6xf32>
    %40 = stablehlo.dot_general %39, %20, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
    %41 = stablehlo.dot_general %40, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %42 = stablehlo.add %arg0, %41 : tensor<2x6x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%42 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_9 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %46 = stablehlo.divide %44, %45 : tensor<2x6x1xf32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %47 = call @_var(%42, %c_10) : (tensor<2x6x8xf32>, tensor<i32>) -> tensor<2x6x1xf32>
    %48 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %49 = stablehlo.subtract %42, %48 : tensor<2x6x8xf32>
    %cst_11 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %51 = stablehlo.add %47, %50 : tensor<2x6x1xf32>
    %52 = stablehlo.rsqrt %51 : tensor<2x6x1xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %54 = stablehlo.multiply %49, %53 : tensor<2x6x8xf32>
    %55 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %57 = stablehlo.multiply %54, %56 : tensor<2x6x8xf32>
    %58 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %60 = stablehlo.add %57, %59 : tensor<2x6x8xf32>
    %61 = stablehlo.dot_general %60, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x16xf32>) -> tensor<2x6x16xf32>
    %62 = stablehlo.multiply %61, %61 : tensor<2x6x16xf32>
    %63 = stablehlo.multiply %62, %61 : tensor<2x6x16xf32>
    %cst_12 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x6x16xf32>
    %65 = stablehlo.multiply %64, %63 : tensor<2x6x16xf32>
    %66 = stablehlo.add %61, %65 : tensor<2x6x16xf32>
    %cst_13 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x6x16xf32>
    %68 = stablehlo.multiply %67, %66 : tensor<2x6x16xf32>
    %69 = stablehlo.tanh %68 : tensor<2x6x16xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x6x16xf32>
    %71 = stablehlo.add %70, %69 : tensor<2x6x16xf32>
    %cst_15 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x6x16xf32>
    %73 = stablehlo.multiply %72, %71 : tensor<2x6x16xf32>
    %74 = stablehlo.multiply %61, %73 : tensor<2x6x16xf32>
    %75 = stablehlo.dot_general %74, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x8xf32>) -> tensor<2x6x8xf32>
    %76 = stablehlo.add %42, %75 : tensor<2x6x8xf32>
    return %76 : tensor<2x6x8xf32>
  }
  func.func private @_var(%arg0: tensor<2x6x8xf32>, %arg1: tensor<i32>) -> tensor<2x6x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x6x8xf32>
    %6 = chlo.square %5 : tensor<2x6x8xf32> -> tensor<2x6x8xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<2x6x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = call @_where(%13, %12, %cst_4) : (tensor<i1>, tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6x1xf32>
    return %14 : tensor<2x6x1xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<2x6x1xf32>, %arg2: tensor<f32>) -> tensor<2x6x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<2x6x1xf32>
    return %2 : tensor<2x6x1xf32>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where_0(%arg0: tensor<6x6xi1>, %arg1: tensor<2x6x6xf32>, %arg2: tensor<f32>) -> tensor<2x6x6xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<6x6xi1>) -> tensor<2x6x6xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x6x6xi1>, tensor<2x6x6xf32>
    return %3 : tensor<2x6x6xf32>
  }
}
