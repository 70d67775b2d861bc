// RUN: stablehlo-translate --interpret -split-input-file %s
// Generated from value-returning snippets; expected values from the StableHLO reference
// interpreter (jaxlib 0.10) or, where it has no kernel, numpy / the StableHLO spec.

func.func @abs_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.abs %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[2.500000e+00, 5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "abs_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.abs"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[2.500000e+00, 5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @ceil_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.ceil %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "ceil_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.ceil"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @floor_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.floor %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-3.000000e+00, -1.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "floor_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.floor"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-3.000000e+00, -1.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @negate_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.negate %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[2.500000e+00, 5.000000e-01, -0.000000e+00, -7.500000e-01, -1.500000e+00, -3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "negate_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.negate"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[2.500000e+00, 5.000000e-01, -0.000000e+00, -7.500000e-01, -1.500000e+00, -3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sign_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.sign %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sign_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.sign"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-1.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @round_nearest_afz_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.round_nearest_afz %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-3.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "round_nearest_afz_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.round_nearest_afz"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-3.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @round_nearest_even_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.round_nearest_even %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "round_nearest_even_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.round_nearest_even"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sine_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.sine %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-0.598472118, -0.47942555, 0.000000e+00, 0.681638777, 0.997494995, 1.411200e-01]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sine_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.sine"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-0.598472118, -0.47942555, 0.000000e+00, 0.681638777, 0.997494995, 1.411200e-01]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @cosine_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.cosine %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-0.801143586, 0.87758255, 1.000000e+00, 0.731688857, 7.073720e-02, -0.989992499]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "cosine_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.cosine"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-0.801143586, 0.87758255, 1.000000e+00, 0.731688857, 7.073720e-02, -0.989992499]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @tanh_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.tanh %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-0.986614286, -0.462117165, 0.000000e+00, 0.635148942, 0.905148268, 0.995054781]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "tanh_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.tanh"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-0.986614286, -0.462117165, 0.000000e+00, 0.635148942, 0.905148268, 0.995054781]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @exponential_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.exponential %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[8.208500e-02, 0.606530666, 1.000000e+00, 2.117000e+00, 4.48168898, 20.085537]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "exponential_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.exponential"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[8.208500e-02, 0.606530666, 1.000000e+00, 2.117000e+00, 4.48168898, 20.085537]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @exponential_minus_one_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.exponential_minus_one %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-0.917914986, -0.393469334, 0.000000e+00, 1.117000e+00, 3.48168898, 19.085537]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "exponential_minus_one_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.exponential_minus_one"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-0.917914986, -0.393469334, 0.000000e+00, 1.117000e+00, 3.48168898, 19.085537]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @logistic_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.logistic %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[0.0758581757, 0.377540678, 5.000000e-01, 0.679178714, 0.817574441, 0.952574133]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "logistic_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.logistic"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[0.0758581757, 0.377540678, 5.000000e-01, 0.679178714, 0.817574441, 0.952574133]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @cbrt_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.cbrt %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.35720885, -0.793700516, 0.000000e+00, 0.908560276, 1.14471424, 1.44224954]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "cbrt_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.cbrt"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-1.35720885, -0.793700516, 0.000000e+00, 0.908560276, 1.14471424, 1.44224954]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @tan_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.tan %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[0.747022271, -0.546302497, 0.000000e+00, 0.931596457, 14.1014204, -0.142546549]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "tan_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.tan"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[0.747022271, -0.546302497, 0.000000e+00, 0.931596457, 14.1014204, -0.142546549]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @log_f32() {
  %x = stablehlo.constant dense<[0.25, 0.5, 1.0, 2.0, 3.5, 10.0]> : tensor<6xf32>
  %0 = stablehlo.log %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.38629436, -0.693147182, 0.000000e+00, 0.693147182, 1.25276291, 2.30258512]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "log_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00, 3.500000e+00, 1.000000e+01]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.log"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-1.38629436, -0.693147182, 0.000000e+00, 0.693147182, 1.25276291, 2.30258512]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @log_plus_one_f32() {
  %x = stablehlo.constant dense<[0.25, 0.5, 1.0, 2.0, 3.5, 10.0]> : tensor<6xf32>
  %0 = stablehlo.log_plus_one %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[0.223143548, 0.405465096, 0.693147182, 1.09861231, 1.50407743, 2.39789534]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "log_plus_one_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00, 3.500000e+00, 1.000000e+01]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.log_plus_one"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[0.223143548, 0.405465096, 0.693147182, 1.09861231, 1.50407743, 2.39789534]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sqrt_f32() {
  %x = stablehlo.constant dense<[0.25, 0.5, 1.0, 2.0, 3.5, 10.0]> : tensor<6xf32>
  %0 = stablehlo.sqrt %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[5.000000e-01, 0.707106769, 1.000000e+00, 1.41421354, 1.87082875, 3.1622777]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sqrt_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00, 3.500000e+00, 1.000000e+01]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.sqrt"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[5.000000e-01, 0.707106769, 1.000000e+00, 1.41421354, 1.87082875, 3.1622777]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @rsqrt_f32() {
  %x = stablehlo.constant dense<[0.25, 0.5, 1.0, 2.0, 3.5, 10.0]> : tensor<6xf32>
  %0 = stablehlo.rsqrt %x : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[2.000000e+00, 1.41421354, 1.000000e+00, 0.707106769, 0.534522474, 0.316227764]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "rsqrt_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00, 3.500000e+00, 1.000000e+01]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.rsqrt"(%0) : (tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[2.000000e+00, 1.41421354, 1.000000e+00, 0.707106769, 0.534522474, 0.316227764]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @is_finite_f32() {
  %x = stablehlo.constant dense<[0x7F800000, 0x7FC00000, 1.0, -0.0]> : tensor<4xf32>
  %0 = stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %0, dense<[false, false, true, true]> : tensor<4xi1>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "is_finite_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0x7F800000, 0x7FC00000, 1.000000e+00, -0.000000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %1 = "stablehlo.is_finite"(%0) : (tensor<4xf32>) -> tensor<4xi1>
  "check.expect_eq_const"(%1) <{value = dense<[false, false, true, true]> : tensor<4xi1>}> : (tensor<4xi1>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @abs_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.abs %x : tensor<6xi32>
  check.expect_eq_const %0, dense<[7, 1, 0, 1, 5, 100]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "abs_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.abs"(%0) : (tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[7, 1, 0, 1, 5, 100]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @negate_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.negate %x : tensor<6xi32>
  check.expect_eq_const %0, dense<[7, 1, 0, -1, -5, -100]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "negate_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.negate"(%0) : (tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[7, 1, 0, -1, -5, -100]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sign_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.sign %x : tensor<6xi32>
  check.expect_eq_const %0, dense<[-1, -1, 0, 1, 1, 1]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sign_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.sign"(%0) : (tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[-1, -1, 0, 1, 1, 1]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @not_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.not %x : tensor<6xi32>
  check.expect_eq_const %0, dense<[6, 0, -1, -2, -6, -101]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "not_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.not"(%0) : (tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[6, 0, -1, -2, -6, -101]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @popcnt_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.popcnt %x : tensor<6xi32>
  check.expect_eq_const %0, dense<[30, 32, 0, 1, 2, 3]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "popcnt_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.popcnt"(%0) : (tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[30, 32, 0, 1, 2, 3]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @count_leading_zeros_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.count_leading_zeros %x : tensor<6xi32>
  check.expect_eq_const %0, dense<[0, 0, 32, 31, 29, 25]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "count_leading_zeros_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.count_leading_zeros"(%0) : (tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[0, 0, 32, 31, 29, 25]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @not_ui8() {
  %x = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %0 = stablehlo.not %x : tensor<6xui8>
  check.expect_eq_const %0, dense<[255, 254, 248, 127, 55, 0]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "not_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.not"(%0) : (tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%1) <{value = dense<[255, 254, 248, 127, 55, 0]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @popcnt_ui8() {
  %x = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %0 = stablehlo.popcnt %x : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 1, 3, 1, 3, 8]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "popcnt_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.popcnt"(%0) : (tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%1) <{value = dense<[0, 1, 3, 1, 3, 8]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @count_leading_zeros_ui8() {
  %x = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %0 = stablehlo.count_leading_zeros %x : tensor<6xui8>
  check.expect_eq_const %0, dense<[8, 7, 5, 0, 0, 0]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "count_leading_zeros_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.count_leading_zeros"(%0) : (tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%1) <{value = dense<[8, 7, 5, 0, 0, 0]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @abs__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.abs %x : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[2.23606801, 5.590170e-01]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "abs__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.abs"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[2.23606801, 5.590170e-01]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @real__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.real %x : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.000000e+00, -5.000000e-01]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "real__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.real"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[1.000000e+00, -5.000000e-01]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @imag__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.imag %x : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[2.000000e+00, 2.500000e-01]> : tensor<2xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "imag__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.imag"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[2.000000e+00, 2.500000e-01]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @exponential__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.exponential %x : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[(-1.131204367e+00, 2.471726656e+00), (5.876750946e-01, 1.500580907e-01)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "exponential__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.exponential"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%1) <{value = dense<[(-1.131204367e+00, 2.471726656e+00), (5.876750946e-01, 1.500580907e-01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @log__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.log %x : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[(8.047189713e-01, 1.107148767e+00), (-5.815753937e-01, 2.677945137e+00)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "log__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.log"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%1) <{value = dense<[(8.047189713e-01, 1.107148767e+00), (-5.815753937e-01, 2.677945137e+00)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sqrt__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.sqrt %x : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[(1.272019625e+00, 7.861514091e-01), (1.717803776e-01, 7.276733518e-01)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sqrt__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.sqrt"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%1) <{value = dense<[(1.272019625e+00, 7.861514091e-01), (1.717803776e-01, 7.276733518e-01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @negate__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.negate %x : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[(-1.000000000e+00, -2.000000000e+00), (5.000000000e-01, -2.500000000e-01)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "negate__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.negate"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%1) <{value = dense<[(-1.000000000e+00, -2.000000000e+00), (5.000000000e-01, -2.500000000e-01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @sign__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.sign %x : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[(4.472135901e-01, 8.944271803e-01), (-8.944271803e-01, 4.472135901e-01)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "sign__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.sign"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%1) <{value = dense<[(4.472135901e-01, 8.944271803e-01), (-8.944271803e-01, 4.472135901e-01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @tanh__f32() {
  %x = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.tanh %x : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[(1.166736245e+00, -2.434582114e-01), (-4.854872525e-01, 1.980554610e-01)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "tanh__f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-5.000000e-01,2.500000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.tanh"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%1) <{value = dense<[(1.166736245e+00, -2.434582114e-01), (-4.854872525e-01, 1.980554610e-01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @convert_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.convert %x : (tensor<6xf32>) -> tensor<6xi32>
  check.expect_eq_const %0, dense<[-2, 0, 0, 0, 1, 3]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "convert_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.convert"(%0) : (tensor<6xf32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[-2, 0, 0, 0, 1, 3]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @convert_i32() {
  %x = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %0 = stablehlo.convert %x : (tensor<6xi32>) -> tensor<6xbf16>
  check.expect_almost_eq_const %0, dense<[-7.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 5.000000e+00, 1.000000e+02]> : tensor<6xbf16>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "convert_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.convert"(%0) : (tensor<6xi32>) -> tensor<6xbf16>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-7.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 5.000000e+00, 1.000000e+02]> : tensor<6xbf16>}> : (tensor<6xbf16>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @convert_ui8() {
  %x = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %0 = stablehlo.convert %x : (tensor<6xui8>) -> tensor<6xi1>
  check.expect_eq_const %0, dense<[false, true, true, true, true, true]> : tensor<6xi1>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "convert_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.convert"(%0) : (tensor<6xui8>) -> tensor<6xi1>
  "check.expect_eq_const"(%1) <{value = dense<[false, true, true, true, true, true]> : tensor<6xi1>}> : (tensor<6xi1>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @bitcast_convert_f32() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %0 = stablehlo.bitcast_convert %x : (tensor<6xf32>) -> tensor<6xi32>
  check.expect_eq_const %0, dense<[-1071644672, -1090519040, 0, 1061158912, 1069547520, 1077936128]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "bitcast_convert_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.bitcast_convert"(%0) : (tensor<6xf32>) -> tensor<6xi32>
  "check.expect_eq_const"(%1) <{value = dense<[-1071644672, -1090519040, 0, 1061158912, 1069547520, 1077936128]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @bitcast_convert_narrow() {
  %x = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2x4xui8>
  %1 = stablehlo.bitcast_convert %0 : (tensor<2x4xui8>) -> tensor<2xi32>
  check.expect_eq_const %0, dense<[[0, 0, 128, 63], [0, 0, 0, 192]]> : tensor<2x4xui8>
  check.expect_eq_const %1, dense<[1065353216, -1073741824]> : tensor<2xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "bitcast_convert_narrow_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %1 = "stablehlo.bitcast_convert"(%0) : (tensor<2xf32>) -> tensor<2x4xui8>
  %2 = "stablehlo.bitcast_convert"(%1) : (tensor<2x4xui8>) -> tensor<2xi32>
  "check.expect_eq_const"(%1) <{value = dense<[[0, 0, 128, 63], [0, 0, 0, 192]]> : tensor<2x4xui8>}> : (tensor<2x4xui8>) -> ()
  "check.expect_eq_const"(%2) <{value = dense<[1065353216, -1073741824]> : tensor<2xi32>}> : (tensor<2xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @reduce_precision_f32() {
  %x = stablehlo.constant dense<[1.0e5, 3.14159, -7.0e-6, 65519.0]> : tensor<4xf32>
  %0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<4xf32>
  check.expect_almost_eq_const %0, dense<[0x7F800000, 3.140625, -0.000000e+00, 6.550400e+04]> : tensor<4xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "reduce_precision_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.000000e+05, 3.141590e+00, -7.000000e-06, 6.551900e+04]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %1 = "stablehlo.reduce_precision"(%0) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[0x7F800000, 3.140625, -0.000000e+00, 6.550400e+04]> : tensor<4xf32>}> : (tensor<4xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @add_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.add %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.000000e+00, -2.500000e+00, 5.000000e-01, 4.750000e+00, -1.500000e+00, 5.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "add_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.add"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-1.000000e+00, -2.500000e+00, 5.000000e-01, 4.750000e+00, -1.500000e+00, 5.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @subtract_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.subtract %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-4.000000e+00, 1.500000e+00, -5.000000e-01, -3.250000e+00, 4.500000e+00, 1.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "subtract_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.subtract"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-4.000000e+00, 1.500000e+00, -5.000000e-01, -3.250000e+00, 4.500000e+00, 1.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @multiply_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.multiply %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-3.750000e+00, 1.000000e+00, 0.000000e+00, 3.000000e+00, -4.500000e+00, 6.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "multiply_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.multiply"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-3.750000e+00, 1.000000e+00, 0.000000e+00, 3.000000e+00, -4.500000e+00, 6.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @divide_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.divide %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.66666663, 2.500000e-01, 0.000000e+00, 1.875000e-01, -5.000000e-01, 1.500000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "divide_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.divide"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-1.66666663, 2.500000e-01, 0.000000e+00, 1.875000e-01, -5.000000e-01, 1.500000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @maximum_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.maximum %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[1.500000e+00, -5.000000e-01, 5.000000e-01, 4.000000e+00, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "maximum_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.maximum"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[1.500000e+00, -5.000000e-01, 5.000000e-01, 4.000000e+00, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @minimum_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.minimum %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-2.500000e+00, -2.000000e+00, 0.000000e+00, 7.500000e-01, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "minimum_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.minimum"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-2.500000e+00, -2.000000e+00, 0.000000e+00, 7.500000e-01, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @remainder_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.remainder %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.000000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 1.000000e+00]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "remainder_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.remainder"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-1.000000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 1.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @atan2_f32() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.atan2 %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[-1.03037679, -2.89661407, 0.000000e+00, 0.185347944, 2.67794514, 0.982793748]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "atan2_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.atan2"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[-1.03037679, -2.89661407, 0.000000e+00, 0.185347944, 2.67794514, 0.982793748]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @power_f32() {
  %a = stablehlo.constant dense<[0.25, 0.5, 1.0, 2.0, 3.5, 10.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %0 = stablehlo.power %a, %b : tensor<6xf32>
  check.expect_almost_eq_const %0, dense<[1.250000e-01, 4.000000e+00, 1.000000e+00, 1.600000e+01, 0.023323616, 1.000000e+02]> : tensor<6xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "power_f32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00, 3.500000e+00, 1.000000e+01]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.power"(%0, %1) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  "check.expect_almost_eq_const"(%2) <{value = dense<[1.250000e-01, 4.000000e+00, 1.000000e+00, 1.600000e+01, 0.023323616, 1.000000e+02]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @add_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.add %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-4, 1, -4, 8, 3, 109]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "add_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.add"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-4, 1, -4, 8, 3, 109]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @subtract_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.subtract %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-10, -3, 4, -6, 7, 91]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "subtract_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.subtract"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-10, -3, 4, -6, 7, 91]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @multiply_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.multiply %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-21, -2, 0, 7, -10, 900]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "multiply_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.multiply"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-21, -2, 0, 7, -10, 900]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @divide_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.divide %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-2, 0, 0, 0, -2, 11]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "divide_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.divide"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-2, 0, 0, 0, -2, 11]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @remainder_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.remainder %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-1, -1, 0, 1, 1, 1]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "remainder_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.remainder"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-1, -1, 0, 1, 1, 1]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @maximum_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.maximum %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[3, 2, 0, 7, 5, 100]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "maximum_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.maximum"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[3, 2, 0, 7, 5, 100]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @minimum_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.minimum %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-7, -1, -4, 1, -2, 9]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "minimum_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.minimum"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-7, -1, -4, 1, -2, 9]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @and_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.and %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[1, 2, 0, 1, 4, 0]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "and_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.and"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[1, 2, 0, 1, 4, 0]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @or_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.or %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-5, -1, -4, 7, -1, 109]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "or_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.or"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-5, -1, -4, 7, -1, 109]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @xor_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.xor %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-6, -3, -4, 6, -5, 109]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "xor_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.xor"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-6, -3, -4, 6, -5, 109]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @shift_left_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.shift_left %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-56, -4, 0, 128, 0, 51200]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "shift_left_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.shift_left"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-56, -4, 0, 128, 0, 51200]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @shift_right_arithmetic_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.shift_right_arithmetic %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[-1, -1, 0, 0, 0, 0]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "shift_right_arithmetic_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.shift_right_arithmetic"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[-1, -1, 0, 0, 0, 0]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @shift_right_logical_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.shift_right_logical %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[536870911, 1073741823, 0, 0, 0, 0]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "shift_right_logical_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.shift_right_logical"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[536870911, 1073741823, 0, 0, 0, 0]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @power_i32() {
  %a = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %b = stablehlo.constant dense<[2, 3, 0, 5, 1, 2]> : tensor<6xi32>
  %0 = stablehlo.power %a, %b : tensor<6xi32>
  check.expect_eq_const %0, dense<[49, -1, 1, 1, 5, 10000]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "power_i32_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %1 = "stablehlo.constant"() <{value = dense<[2, 3, 0, 5, 1, 2]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %2 = "stablehlo.power"(%0, %1) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%2) <{value = dense<[49, -1, 1, 1, 5, 10000]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @add_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.add %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[1, 4, 9, 137, 204, 6]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "add_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.add"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[1, 4, 9, 137, 204, 6]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @multiply_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.multiply %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 3, 14, 128, 32, 249]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "multiply_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.multiply"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[0, 3, 14, 128, 32, 249]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @divide_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.divide %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 0, 3, 14, 50, 36]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "divide_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.divide"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[0, 0, 3, 14, 50, 36]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @remainder_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.remainder %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 1, 1, 2, 0, 3]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "remainder_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.remainder"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[0, 1, 1, 2, 0, 3]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @shift_left_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.shift_left %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 8, 28, 0, 128, 128]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "shift_left_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.shift_left"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[0, 8, 28, 0, 128, 128]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @shift_right_logical_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.shift_right_logical %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 0, 1, 0, 12, 1]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "shift_right_logical_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.shift_right_logical"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[0, 0, 1, 0, 12, 1]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @and_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.and %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[0, 1, 2, 0, 0, 7]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "and_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.and"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[0, 1, 2, 0, 0, 7]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @xor_ui8() {
  %a = stablehlo.constant dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>
  %b = stablehlo.constant dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>
  %0 = stablehlo.xor %a, %b : tensor<6xui8>
  check.expect_eq_const %0, dense<[1, 2, 5, 137, 204, 248]> : tensor<6xui8>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "xor_ui8_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0, 1, 7, 128, 200, 255]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %1 = "stablehlo.constant"() <{value = dense<[1, 3, 2, 9, 4, 7]> : tensor<6xui8>}> : () -> tensor<6xui8>
  %2 = "stablehlo.xor"(%0, %1) : (tensor<6xui8>, tensor<6xui8>) -> tensor<6xui8>
  "check.expect_eq_const"(%2) <{value = dense<[1, 2, 5, 137, 204, 248]> : tensor<6xui8>}> : (tensor<6xui8>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @complex_and_ops() {
  %a = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %0 = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>
  %1 = stablehlo.multiply %0, %0 : tensor<2xcomplex<f32>>
  %2 = stablehlo.divide %1, %0 : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %1, dense<[(7.500000000e-01, 1.000000000e+00), (-5.000000000e+00, -1.200000000e+01)]> : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %2, dense<[(1.000000000e+00, 5.000000000e-01), (-2.000000000e+00, 3.000000000e+00)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "complex_and_ops_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %1 = "stablehlo.constant"() <{value = dense<[5.000000e-01, 3.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %2 = "stablehlo.complex"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>
  %3 = "stablehlo.multiply"(%2, %2) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %4 = "stablehlo.divide"(%3, %2) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%3) <{value = dense<[(7.500000000e-01, 1.000000000e+00), (-5.000000000e+00, -1.200000000e+01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[(1.000000000e+00, 5.000000000e-01), (-2.000000000e+00, 3.000000000e+00)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @compare_select_clamp() {
  %a = stablehlo.constant dense<[-2.5, -0.5, 0.0, 0.75, 1.5, 3.0]> : tensor<6xf32>
  %b = stablehlo.constant dense<[1.5, -2.0, 0.5, 4.0, -3.0, 2.0]> : tensor<6xf32>
  %i = stablehlo.constant dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>
  %j = stablehlo.constant dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %1 = stablehlo.compare GE, %i, %j, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %2 = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %3 = stablehlo.compare NE, %a, %b, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %4 = stablehlo.select %0, %a, %b : tensor<6xi1>, tensor<6xf32>
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %5 = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  %6 = stablehlo.clamp %j, %i, %j : tensor<6xi32>
  check.expect_eq_const %0, dense<[true, false, true, true, false, false]> : tensor<6xi1>
  check.expect_eq_const %1, dense<[false, false, true, false, true, true]> : tensor<6xi1>
  check.expect_eq_const %2, dense<false> : tensor<6xi1>
  check.expect_eq_const %3, dense<true> : tensor<6xi1>
  check.expect_almost_eq_const %4, dense<[-2.500000e+00, -2.000000e+00, 0.000000e+00, 7.500000e-01, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>
  check.expect_almost_eq_const %5, dense<[-1.000000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.000000e+00, 1.000000e+00]> : tensor<6xf32>
  check.expect_eq_const %6, dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "compare_select_clamp_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-2.500000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.500000e+00, 3.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %2 = "stablehlo.constant"() <{value = dense<[-7, -1, 0, 1, 5, 100]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %3 = "stablehlo.constant"() <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %4 = "stablehlo.compare"(%0, %1) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %5 = "stablehlo.compare"(%2, %3) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %6 = "stablehlo.compare"(%2, %3) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %7 = "stablehlo.compare"(%0, %1) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction NE>}> : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %8 = "stablehlo.select"(%4, %0, %1) : (tensor<6xi1>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %9 = "stablehlo.constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %10 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %11 = "stablehlo.clamp"(%9, %0, %10) : (tensor<f32>, tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  %12 = "stablehlo.clamp"(%3, %2, %3) : (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  "check.expect_eq_const"(%4) <{value = dense<[true, false, true, true, false, false]> : tensor<6xi1>}> : (tensor<6xi1>) -> ()
  "check.expect_eq_const"(%5) <{value = dense<[false, false, true, false, true, true]> : tensor<6xi1>}> : (tensor<6xi1>) -> ()
  "check.expect_eq_const"(%6) <{value = dense<false> : tensor<6xi1>}> : (tensor<6xi1>) -> ()
  "check.expect_eq_const"(%7) <{value = dense<true> : tensor<6xi1>}> : (tensor<6xi1>) -> ()
  "check.expect_almost_eq_const"(%8) <{value = dense<[-2.500000e+00, -2.000000e+00, 0.000000e+00, 7.500000e-01, -3.000000e+00, 2.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "check.expect_almost_eq_const"(%11) <{value = dense<[-1.000000e+00, -5.000000e-01, 0.000000e+00, 7.500000e-01, 1.000000e+00, 1.000000e+00]> : tensor<6xf32>}> : (tensor<6xf32>) -> ()
  "check.expect_eq_const"(%12) <{value = dense<[3, 2, -4, 7, -2, 9]> : tensor<6xi32>}> : (tensor<6xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()
