// RUN: stablehlo-translate --interpret -split-input-file %s
// Generated from value-returning snippets; expected values from the StableHLO reference
// interpreter (jaxlib 0.10) or, where it has no kernel, numpy / the StableHLO spec.

func.func @chlo_acos() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.acos %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[2.418858290e+00, 1.823476553e+00, 1.570796371e+00, 1.047197580e+00, 4.510268569e-01]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_acos_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.acos"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[2.418858290e+00, 1.823476553e+00, 1.570796371e+00, 1.047197580e+00, 4.510268569e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_asin() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.asin %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-8.480620980e-01, -2.526802421e-01, 0.000000000e+00, 5.235987902e-01, 1.119769454e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_asin_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.asin"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-8.480620980e-01, -2.526802421e-01, 0.000000000e+00, 5.235987902e-01, 1.119769454e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_atan() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.atan %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-6.435011029e-01, -2.449786663e-01, 0.000000000e+00, 4.636476040e-01, 7.328150868e-01]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_atan_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.atan"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-6.435011029e-01, -2.449786663e-01, 0.000000000e+00, 4.636476040e-01, 7.328150868e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_atanh() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.atanh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-9.729550481e-01, -2.554128170e-01, 0.000000000e+00, 5.493061543e-01, 1.472219348e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_atanh_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.atanh"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-9.729550481e-01, -2.554128170e-01, 0.000000000e+00, 5.493061543e-01, 1.472219348e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_acosh() {
  %x = stablehlo.constant dense<[1.250000000e+00, 1.500000000e+00, 2.000000000e+00, 3.500000000e+00, 8.000000000e+00]> : tensor<5xf32>
  %0 = chlo.acosh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[6.931471825e-01, 9.624236226e-01, 1.316957951e+00, 1.924847245e+00, 2.768659353e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_acosh_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.250000e+00, 1.500000e+00, 2.000000e+00, 3.500000e+00, 8.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.acosh"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[6.931471825e-01, 9.624236226e-01, 1.316957951e+00, 1.924847245e+00, 2.768659353e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_asinh() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.asinh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-6.931471825e-01, -2.474664599e-01, 0.000000000e+00, 4.812118113e-01, 8.088669181e-01]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_asinh_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.asinh"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-6.931471825e-01, -2.474664599e-01, 0.000000000e+00, 4.812118113e-01, 8.088669181e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_cosh() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.cosh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[1.294683337e+00, 1.031413078e+00, 1.000000000e+00, 1.127625942e+00, 1.433086395e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_cosh_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.cosh"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[1.294683337e+00, 1.031413078e+00, 1.000000000e+00, 1.127625942e+00, 1.433086395e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_sinh() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.sinh %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-8.223167062e-01, -2.526123226e-01, 0.000000000e+00, 5.210952759e-01, 1.026516676e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_sinh_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.sinh"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-8.223167062e-01, -2.526123226e-01, 0.000000000e+00, 5.210952759e-01, 1.026516676e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_tan() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.tan %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-9.315964580e-01, -2.553419173e-01, 0.000000000e+00, 5.463024974e-01, 1.260158181e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_tan_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.tan"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-9.315964580e-01, -2.553419173e-01, 0.000000000e+00, 5.463024974e-01, 1.260158181e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_erf() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.erf %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-7.111556530e-01, -2.763263881e-01, 0.000000000e+00, 5.204998851e-01, 7.969081998e-01]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_erf_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.erf"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-7.111556530e-01, -2.763263881e-01, 0.000000000e+00, 5.204998851e-01, 7.969081998e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_erfc() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.erfc %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[1.711155653e+00, 1.276326418e+00, 1.000000000e+00, 4.795001149e-01, 2.030918002e-01]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_erfc_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.erfc"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[1.711155653e+00, 1.276326418e+00, 1.000000000e+00, 4.795001149e-01, 2.030918002e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_erf_inv() {
  %x = stablehlo.constant dense<[-7.500000000e-01, -2.500000000e-01, 0.000000000e+00, 5.000000000e-01, 8.999999762e-01]> : tensor<5xf32>
  %0 = chlo.erf_inv %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-8.134198189e-01, -2.253120542e-01, 0.000000000e+00, 4.769362807e-01, 1.163087130e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_erf_inv_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-7.500000e-01, -2.500000e-01, 0.000000e+00, 5.000000e-01, 0.899999976]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.erf_inv"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-8.134198189e-01, -2.253120542e-01, 0.000000000e+00, 4.769362807e-01, 1.163087130e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_lgamma() {
  %x = stablehlo.constant dense<[2.500000000e-01, 5.000000000e-01, 1.000000000e+00, 2.500000000e+00, 7.000000000e+00]> : tensor<5xf32>
  %0 = chlo.lgamma %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[1.288022518e+00, 5.723649263e-01, 0.000000000e+00, 2.846828699e-01, 6.579251289e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_lgamma_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.500000e+00, 7.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.lgamma"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[1.288022518e+00, 5.723649263e-01, 0.000000000e+00, 2.846828699e-01, 6.579251289e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_digamma() {
  %x = stablehlo.constant dense<[2.500000000e-01, 5.000000000e-01, 1.000000000e+00, 2.500000000e+00, 7.000000000e+00]> : tensor<5xf32>
  %0 = chlo.digamma %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-4.227453709e+00, -1.963510036e+00, -5.772156715e-01, 7.031566501e-01, 1.872784376e+00]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_digamma_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.500000e+00, 7.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.digamma"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-4.227453709e+00, -1.963510036e+00, -5.772156715e-01, 7.031566501e-01, 1.872784376e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_bessel_i1e() {
  %x = stablehlo.constant dense<[-3.000000000e+00, -1.000000000e+00, 0.000000000e+00, 2.000000000e+00, 3.599999905e+00]> : tensor<5xf32>
  %0 = chlo.bessel_i1e %x : tensor<5xf32> -> tensor<5xf32>
  check.expect_almost_eq_const %0, dense<[-1.968267113e-01, -2.079104185e-01, 0.000000000e+00, 2.152692825e-01, 1.856022477e-01]> : tensor<5xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_bessel_i1e_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[-3.000000e+00, -1.000000e+00, 0.000000e+00, 2.000000e+00, 3.600000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "chlo.bessel_i1e"(%0) : (tensor<5xf32>) -> tensor<5xf32>
  "check.expect_almost_eq_const"(%1) <{value = dense<[-1.968267113e-01, -2.079104185e-01, 0.000000000e+00, 2.152692825e-01, 1.856022477e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_generic_only_unary() {
  %x = stablehlo.constant dense<[0xFF800000, -1.0, 0x7F800000, 0x7FC00000]> : tensor<4xf32>
  %0 = "chlo.is_inf"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %1 = "chlo.is_neg_inf"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %2 = "chlo.is_pos_inf"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %3 = "chlo.square"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "chlo.constant_like"(%x) {value = 2.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %z = stablehlo.constant dense<[(1.0, 2.0), (-3.0, 0.5)]> : tensor<2xcomplex<f32>>
  %5 = "chlo.conj"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %c = chlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[true, false, true, false]> : tensor<4xi1>
  check.expect_eq_const %1, dense<[true, false, false, false]> : tensor<4xi1>
  check.expect_eq_const %2, dense<[false, false, true, false]> : tensor<4xi1>
  check.expect_almost_eq_const %3, dense<[0x7F800000, 1.000000000e+00, 0x7F800000, 0x7FC00000]> : tensor<4xf32>
  check.expect_almost_eq_const %4, dense<[2.500000000e+00, 2.500000000e+00, 2.500000000e+00, 2.500000000e+00]> : tensor<4xf32>
  check.expect_almost_eq_const %5, dense<[(1.000000000e+00, -2.000000000e+00), (-3.000000000e+00, -5.000000000e-01)]> : tensor<2xcomplex<f32>>
  check.expect_eq_const %c, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_generic_only_unary_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[0xFF800000, -1.000000e+00, 0x7F800000, 0x7FC00000]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %1 = "chlo.is_inf"(%0) : (tensor<4xf32>) -> tensor<4xi1>
  %2 = "chlo.is_neg_inf"(%0) : (tensor<4xf32>) -> tensor<4xi1>
  %3 = "chlo.is_pos_inf"(%0) : (tensor<4xf32>) -> tensor<4xi1>
  %4 = "chlo.square"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "chlo.constant_like"(%0) <{value = 2.500000e+00 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "stablehlo.constant"() <{value = dense<[(1.000000e+00,2.000000e+00), (-3.000000e+00,5.000000e-01)]> : tensor<2xcomplex<f32>>}> : () -> tensor<2xcomplex<f32>>
  %7 = "chlo.conj"(%6) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %8 = "chlo.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  "check.expect_eq_const"(%1) <{value = dense<[true, false, true, false]> : tensor<4xi1>}> : (tensor<4xi1>) -> ()
  "check.expect_eq_const"(%2) <{value = dense<[true, false, false, false]> : tensor<4xi1>}> : (tensor<4xi1>) -> ()
  "check.expect_eq_const"(%3) <{value = dense<[false, false, true, false]> : tensor<4xi1>}> : (tensor<4xi1>) -> ()
  "check.expect_almost_eq_const"(%4) <{value = dense<[0x7F800000, 1.000000000e+00, 0x7F800000, 0x7FC00000]> : tensor<4xf32>}> : (tensor<4xf32>) -> ()
  "check.expect_almost_eq_const"(%5) <{value = dense<[2.500000000e+00, 2.500000000e+00, 2.500000000e+00, 2.500000000e+00]> : tensor<4xf32>}> : (tensor<4xf32>) -> ()
  "check.expect_almost_eq_const"(%7) <{value = dense<[(1.000000000e+00, -2.000000000e+00), (-3.000000000e+00, -5.000000000e-01)]> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  "check.expect_eq_const"(%8) <{value = dense<[1, 2]> : tensor<2xi32>}> : (tensor<2xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_binary() {
  %a = stablehlo.constant dense<[1.500000000e+00, -2.000000000e+00, 5.000000000e-01, 4.000000000e+00, 3.000000000e+00]> : tensor<5xf32>
  %p = stablehlo.constant dense<[2.500000000e-01, 5.000000000e-01, 1.000000000e+00, 2.500000000e+00, 7.000000000e+00]> : tensor<5xf32>
  %n = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 1.0]> : tensor<5xf32>
  %q = stablehlo.constant dense<[2.0, 3.0, 4.5, 1.5, 2.0]> : tensor<5xf32>
  %0 = chlo.next_after %a, %p : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  %1 = chlo.polygamma %n, %p : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  %2 = chlo.zeta %q, %p : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  %i = stablehlo.constant dense<[-7, 65535, 2147483647, -2147483648]> : tensor<4xi32>
  %j = stablehlo.constant dense<[3, 65536, 2147483647, -2147483648]> : tensor<4xi32>
  %3 = chlo.mulhi %i, %j : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  check.expect_almost_eq_const %0, dense<[1.499999881e+00, -1.999999881e+00, 5.000000596e-01, 3.999999762e+00, 3.000000238e+00]> : tensor<5xf32>, tolerance = 1.000000e-03
  check.expect_almost_eq_const %1, dense<[-4.227453709e+00, 4.934802055e+00, -2.404113770e+00, 2.239058465e-01, 1.535451710e-01]> : tensor<5xf32>, tolerance = 1.000000e-03
  check.expect_almost_eq_const %2, dense<[1.719732857e+01, 8.414398193e+00, 1.054707527e+00, 1.403779745e+00, 1.535451710e-01]> : tensor<5xf32>, tolerance = 1.000000e-03
  check.expect_eq_const %3, dense<[-1, 0, 1073741823, 1073741824]> : tensor<4xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_binary_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[1.500000e+00, -2.000000e+00, 5.000000e-01, 4.000000e+00, 3.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %1 = "stablehlo.constant"() <{value = dense<[2.500000e-01, 5.000000e-01, 1.000000e+00, 2.500000e+00, 7.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %2 = "stablehlo.constant"() <{value = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 1.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %3 = "stablehlo.constant"() <{value = dense<[2.000000e+00, 3.000000e+00, 4.500000e+00, 1.500000e+00, 2.000000e+00]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %4 = "chlo.next_after"(%0, %1) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %5 = "chlo.polygamma"(%2, %1) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %6 = "chlo.zeta"(%3, %1) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %7 = "stablehlo.constant"() <{value = dense<[-7, 65535, 2147483647, -2147483648]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %8 = "stablehlo.constant"() <{value = dense<[3, 65536, 2147483647, -2147483648]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %9 = "chlo.mulhi"(%7, %8) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  "check.expect_almost_eq_const"(%4) <{value = dense<[1.499999881e+00, -1.999999881e+00, 5.000000596e-01, 3.999999762e+00, 3.000000238e+00]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "check.expect_almost_eq_const"(%5) <{value = dense<[-4.227453709e+00, 4.934802055e+00, -2.404113770e+00, 2.239058465e-01, 1.535451710e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<[1.719732857e+01, 8.414398193e+00, 1.054707527e+00, 1.403779745e+00, 1.535451710e-01]> : tensor<5xf32>}> : (tensor<5xf32>) -> ()
  "check.expect_eq_const"(%9) <{value = dense<[-1, 0, 1073741823, 1073741824]> : tensor<4xi32>}> : (tensor<4xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_broadcast_binary() {
  %m = stablehlo.constant dense<[[1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<2x3xf32>
  %v = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %c = stablehlo.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %s = stablehlo.constant dense<0.5> : tensor<f32>
  %0 = chlo.broadcast_add %m, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_multiply %m, %c {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  %2 = chlo.broadcast_subtract %s, %m : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = chlo.broadcast_divide %m, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = chlo.broadcast_maximum %m, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = chlo.broadcast_minimum %m, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = chlo.broadcast_power %m, %c {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  %7 = chlo.broadcast_remainder %v, %m : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = chlo.broadcast_atan2 %m, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %9 = chlo.broadcast_compare %m, %v {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %10 = chlo.broadcast_select %9, %m, %s : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %11 = chlo.broadcast_complex %m, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
  %12 = chlo.broadcast_next_after %m, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %13 = chlo.broadcast_polygamma %s, %m : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = chlo.broadcast_zeta %v, %m : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const %0, dense<[[1.100000000e+01, 2.200000000e+01, 3.300000000e+01], [1.400000000e+01, 2.500000000e+01, 3.600000000e+01]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %1, dense<[[2.000000000e+00, 4.000000000e+00, 6.000000000e+00], [-4.000000000e+00, -5.000000000e+00, -6.000000000e+00]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %2, dense<[[-5.000000000e-01, -1.500000000e+00, -2.500000000e+00], [-3.500000000e+00, -4.500000000e+00, -5.500000000e+00]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %3, dense<[[1.000000015e-01, 1.000000015e-01, 1.000000015e-01], [4.000000060e-01, 2.500000000e-01, 2.000000030e-01]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %4, dense<[[1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %5, dense<[[5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %6, dense<[[1.000000000e+00, 4.000000000e+00, 9.000000000e+00], [2.500000000e-01, 2.000000030e-01, 1.666666716e-01]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %7, dense<[[0.000000000e+00, 0.000000000e+00, 0.000000000e+00], [2.000000000e+00, 0.000000000e+00, 0.000000000e+00]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %8, dense<[[9.966865182e-02, 9.966865182e-02, 9.966865182e-02], [3.805063665e-01, 2.449786663e-01, 1.973955631e-01]]> : tensor<2x3xf32>
  check.expect_eq_const %9, dense<[[true, true, true], [true, true, true]]> : tensor<2x3xi1>
  check.expect_almost_eq_const %10, dense<[[1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %11, dense<[[(1.000000000e+00, 1.000000000e+01), (2.000000000e+00, 2.000000000e+01), (3.000000000e+00, 3.000000000e+01)], [(4.000000000e+00, 1.000000000e+01), (5.000000000e+00, 2.000000000e+01), (6.000000000e+00, 3.000000000e+01)]]> : tensor<2x3xcomplex<f32>>
  check.expect_almost_eq_const %12, dense<[[9.999999404e-01, 1.999999881e+00, 2.999999762e+00], [3.999999762e+00, 4.999999523e+00, 5.999999523e+00]]> : tensor<2x3xf32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_broadcast_binary_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %1 = "stablehlo.constant"() <{value = dense<[1.000000e+01, 2.000000e+01, 3.000000e+01]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %2 = "stablehlo.constant"() <{value = dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %3 = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %4 = "chlo.broadcast_add"(%0, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = "chlo.broadcast_multiply"(%0, %2) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  %6 = "chlo.broadcast_subtract"(%3, %0) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "chlo.broadcast_divide"(%0, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = "chlo.broadcast_maximum"(%0, %3) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %9 = "chlo.broadcast_minimum"(%0, %3) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %10 = "chlo.broadcast_power"(%0, %2) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  %11 = "chlo.broadcast_remainder"(%1, %0) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = "chlo.broadcast_atan2"(%0, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %13 = "chlo.broadcast_compare"(%0, %1) <{comparison_direction = #chlo<comparison_direction LT>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %14 = "chlo.broadcast_select"(%13, %0, %3) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %15 = "chlo.broadcast_complex"(%0, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
  %16 = "chlo.broadcast_next_after"(%0, %3) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %17 = "chlo.broadcast_polygamma"(%3, %0) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = "chlo.broadcast_zeta"(%1, %0) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "check.expect_almost_eq_const"(%4) <{value = dense<[[1.100000000e+01, 2.200000000e+01, 3.300000000e+01], [1.400000000e+01, 2.500000000e+01, 3.600000000e+01]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%5) <{value = dense<[[2.000000000e+00, 4.000000000e+00, 6.000000000e+00], [-4.000000000e+00, -5.000000000e+00, -6.000000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%6) <{value = dense<[[-5.000000000e-01, -1.500000000e+00, -2.500000000e+00], [-3.500000000e+00, -4.500000000e+00, -5.500000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%7) <{value = dense<[[1.000000015e-01, 1.000000015e-01, 1.000000015e-01], [4.000000060e-01, 2.500000000e-01, 2.000000030e-01]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%8) <{value = dense<[[1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%9) <{value = dense<[[5.000000000e-01, 5.000000000e-01, 5.000000000e-01], [5.000000000e-01, 5.000000000e-01, 5.000000000e-01]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%10) <{value = dense<[[1.000000000e+00, 4.000000000e+00, 9.000000000e+00], [2.500000000e-01, 2.000000030e-01, 1.666666716e-01]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%11) <{value = dense<[[0.000000000e+00, 0.000000000e+00, 0.000000000e+00], [2.000000000e+00, 0.000000000e+00, 0.000000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%12) <{value = dense<[[9.966865182e-02, 9.966865182e-02, 9.966865182e-02], [3.805063665e-01, 2.449786663e-01, 1.973955631e-01]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_eq_const"(%13) <{value = dense<[[true, true, true], [true, true, true]]> : tensor<2x3xi1>}> : (tensor<2x3xi1>) -> ()
  "check.expect_almost_eq_const"(%14) <{value = dense<[[1.000000000e+00, 2.000000000e+00, 3.000000000e+00], [4.000000000e+00, 5.000000000e+00, 6.000000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_almost_eq_const"(%15) <{value = dense<[[(1.000000000e+00, 1.000000000e+01), (2.000000000e+00, 2.000000000e+01), (3.000000000e+00, 3.000000000e+01)], [(4.000000000e+00, 1.000000000e+01), (5.000000000e+00, 2.000000000e+01), (6.000000000e+00, 3.000000000e+01)]]> : tensor<2x3xcomplex<f32>>}> : (tensor<2x3xcomplex<f32>>) -> ()
  "check.expect_almost_eq_const"(%16) <{value = dense<[[9.999999404e-01, 1.999999881e+00, 2.999999762e+00], [3.999999762e+00, 4.999999523e+00, 5.999999523e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_broadcast_integer() {
  %m = stablehlo.constant dense<[[1, 2, 3], [-4, 5, -6]]> : tensor<2x3xi32>
  %v = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = chlo.broadcast_and %m, %v : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = chlo.broadcast_or %m, %v : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %2 = chlo.broadcast_xor %m, %v : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = chlo.broadcast_shift_left %m, %v : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %4 = chlo.broadcast_shift_right_arithmetic %m, %v : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %5 = chlo.broadcast_shift_right_logical %m, %v : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %6 = chlo.broadcast_compare %m, %v {comparison_direction = #chlo<comparison_direction GE>, compare_type = #chlo<comparison_type SIGNED>} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  check.expect_eq_const %0, dense<[[1, 2, 3], [0, 0, 2]]> : tensor<2x3xi32>
  check.expect_eq_const %1, dense<[[1, 2, 3], [-3, 7, -5]]> : tensor<2x3xi32>
  check.expect_eq_const %2, dense<[[0, 0, 0], [-3, 7, -7]]> : tensor<2x3xi32>
  check.expect_eq_const %3, dense<[[2, 8, 24], [-8, 20, -48]]> : tensor<2x3xi32>
  check.expect_eq_const %4, dense<[[0, 0, 0], [-2, 1, -1]]> : tensor<2x3xi32>
  check.expect_eq_const %5, dense<[[0, 0, 0], [2147483646, 1, 536870911]]> : tensor<2x3xi32>
  check.expect_eq_const %6, dense<[[true, true, true], [false, true, false]]> : tensor<2x3xi1>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_broadcast_integer_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[1, 2, 3], [-4, 5, -6]]> : tensor<2x3xi32>}> : () -> tensor<2x3xi32>
  %1 = "stablehlo.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %2 = "chlo.broadcast_and"(%0, %1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = "chlo.broadcast_or"(%0, %1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %4 = "chlo.broadcast_xor"(%0, %1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %5 = "chlo.broadcast_shift_left"(%0, %1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %6 = "chlo.broadcast_shift_right_arithmetic"(%0, %1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %7 = "chlo.broadcast_shift_right_logical"(%0, %1) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %8 = "chlo.broadcast_compare"(%0, %1) <{compare_type = #chlo<comparison_type SIGNED>, comparison_direction = #chlo<comparison_direction GE>}> : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  "check.expect_eq_const"(%2) <{value = dense<[[1, 2, 3], [0, 0, 2]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_eq_const"(%3) <{value = dense<[[1, 2, 3], [-3, 7, -5]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_eq_const"(%4) <{value = dense<[[0, 0, 0], [-3, 7, -7]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_eq_const"(%5) <{value = dense<[[2, 8, 24], [-8, 20, -48]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_eq_const"(%6) <{value = dense<[[0, 0, 0], [-2, 1, -1]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_eq_const"(%7) <{value = dense<[[0, 0, 0], [2147483646, 1, 536870911]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "check.expect_eq_const"(%8) <{value = dense<[[true, true, true], [false, true, false]]> : tensor<2x3xi1>}> : (tensor<2x3xi1>) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @chlo_top_k() {
  %x = stablehlo.constant dense<[[3.000000000e+00, 1.000000000e+00, 4.000000000e+00, 1.000000000e+00, 5.000000000e+00], [9.000000000e+00, 2.000000000e+00, 6.000000000e+00, 5.000000000e+00, 3.000000000e+00]]> : tensor<2x5xf32>
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  check.expect_almost_eq_const %values, dense<[[5.000000000e+00, 4.000000000e+00, 3.000000000e+00], [9.000000000e+00, 6.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>
  check.expect_eq_const %indices, dense<[[4, 2, 0], [0, 2, 3]]> : tensor<2x3xi32>
  func.return
}

// -----

"func.func"() <{function_type = () -> (), sym_name = "chlo_top_k_generic"}> ({
  %0 = "stablehlo.constant"() <{value = dense<[[3.000000e+00, 1.000000e+00, 4.000000e+00, 1.000000e+00, 5.000000e+00], [9.000000e+00, 2.000000e+00, 6.000000e+00, 5.000000e+00, 3.000000e+00]]> : tensor<2x5xf32>}> : () -> tensor<2x5xf32>
  %1:2 = "chlo.top_k"(%0) <{k = 3 : i64}> : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  "check.expect_almost_eq_const"(%1#0) <{value = dense<[[5.000000000e+00, 4.000000000e+00, 3.000000000e+00], [9.000000000e+00, 6.000000000e+00, 5.000000000e+00]]> : tensor<2x3xf32>}> : (tensor<2x3xf32>) -> ()
  "check.expect_eq_const"(%1#1) <{value = dense<[[4, 2, 0], [0, 2, 3]]> : tensor<2x3xi32>}> : (tensor<2x3xi32>) -> ()
  "func.return"() : () -> ()
}) : () -> ()
