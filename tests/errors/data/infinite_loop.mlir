func.func @main() {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
    cond {
      %never = stablehlo.constant dense<-1> : tensor<i32>
      %p = stablehlo.compare NE, %i, %never : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n : tensor<i32>
    }
  check.expect_eq_const %r, dense<0> : tensor<i32>
  func.return
}
