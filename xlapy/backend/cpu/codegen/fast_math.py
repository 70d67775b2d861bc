"""Inline float32 transcendentals for generated kernels (exp, log, tanh, logistic, erf,
erfc), written in plain arithmetic so that LLVM vectorizes the loops that call them, as
XLA:CPU's elemental emitter and Eigen's ``pexp``/``ptanh`` do; cosh and sinh as CHLO's
decomposition (the interpreter's rule); and the reassociating add of float sum reductions.

Scheme (the classic one; coefficients are our own relative-error minimax fits, rounded to
f32, on the reduced intervals below):
* ``exp``: ``x = n*ln2 + r`` (Cody-Waite, ``|r| <= ln2/2``, ``n`` rounded to nearest with
  the 1.5*2^23 trick), ``e^r = 1 + r + r^2 P5(r)``, scaled by ``2^n`` built from integer
  bits in two steps (so subnormal results are right).
* ``log``: ``x = 2^e * m`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` read from the bits,
  ``log(1+f) = f - f^2/2 + f^3 P7(f)``, plus ``e*ln2`` in two parts.
* ``tanh``: ``x + x^3 P5(x^2)`` for ``|x| < 0.625``, else ``1 - 2/(e^{2|x|} + 1)``.
* ``logistic``: ``1/(1+e)`` (x >= 0) or ``e/(1+e)`` (x < 0) with ``e = exp(-|x|)``.
* ``erfc`` and ``erf``, in f64 arithmetic: ``erfc(z) = t e^{-z^2 + P}`` for ``z >= 0`` with
  ``t = 2/(2+z)`` (the form of Numerical Recipes' ``erfccheb``; our ``P`` is the degree-18
  Chebyshev interpolant of ``log(erfcx(z)/t)`` for ``z`` in [0, 10.1], within 6e-14, in
  powers of a linear map of ``t``), ``2 - erfc(-z)`` below zero; ``erf`` is ``x Q(x^2)``
  (its Taylor series to x^21) for ``|x| < 1/2``, else ``+-(1 - erfc(|x|))``. The f64 ``e^y``
  is reduced as ``exp`` is. Within ~1e-13 of the exact value before the one rounding to
  f32, so they differ from the correctly rounded value only next to a rounding tie (1 ulp).

Measured against the correctly rounded result (the interpreter rounds f64 values once):
at most 1 ulp for exp, log, erf and erfc, 2 ulp for tanh and logistic (see the kernel tests).
f64 kernels call libm instead (``math.exp``...), which the interpreter's numpy matches.

Kernels call these through ``always_inlined`` wrappers: the call carries LLVM's
``alwaysinline`` attribute. Left to its cost model, LLVM's inliner kept an ``exp_f32`` call
in one of the four unrolled copies of a row reduction's outer loop (4x64 rows of 64), whose
reduction then ran scalar: 35 us instead of 8.5 us for the softmax sum of exp.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

from xlapy.backend.cpu.codegen.scalar_ops import f32_bits, f32_from_bits, f64_bits, f64_from_bits

_F32 = np.float32
_I32 = np.int32
_UNARY_F32 = types.float32(types.float32)
_UNARY_F64 = types.float64(types.float64)


def always_inlined(function: Dispatcher, signature: types.Signature) -> Callable[..., object]:
    """An intrinsic calling the one-argument ``function`` at ``signature`` with LLVM's
    ``alwaysinline`` call-site attribute, so that the inliner never leaves a call in a loop
    (a call stops the loop vectorizer). A numeric argument is first converted to the
    signature's argument type. ``function`` is compiled when a kernel first uses the
    intrinsic, and its code is linked into that kernel."""
    (arg_type,) = signature.args

    @intrinsic
    def call(typingctx: object, x: types.Type) -> object:
        if not isinstance(x, types.Number):
            return None

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: list) -> object:
            function.compile(signature)
            compiled = function.overloads[signature.args]
            context.active_code_library.add_linking_library(compiled.library)
            callee = context.declare_function(builder.module, compiled.fndesc)
            value = context.cast(builder, args[0], sig.args[0], arg_type)
            status, result = context.call_conv.call_function(
                builder,
                callee,
                signature.return_type,
                signature.args,
                [value],
                attrs=("alwaysinline",),
            )
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return result

        return signature.return_type(x), codegen

    return call


_ROUND = _F32(12582912.0)  # 1.5 * 2^23: adding it rounds |t| < 2^22 to an integer
_LOG2E = _F32(1.44269504)
_LN2_HI = _F32(0.693359375)  # 9 significant bits: n * _LN2_HI is exact for |n| <= 2^15
_LN2_LO = _F32(-2.12194440e-4)
_EXP_P = (
    _F32(0.5),
    _F32(0.16666659712791443),
    _F32(0.041666436940431595),
    _F32(0.008334938436746597),
    _F32(0.0013935400638729334),
    _F32(0.00019001244800165296),
)


_EXP_ZERO = _F32(-104.0)  # e^-104 is below half the smallest subnormal


@numba.njit(cache=True, error_model="numpy")
def _exp_f32(x: float) -> float:
    """e^x in float32 (at most 1 ulp from the correctly rounded value); NaN, +-inf,
    overflow to inf and gradual underflow to subnormals and zero as IEEE."""
    clamped = min(max(x, _EXP_ZERO), _F32(89.0)) if x == x else _F32(0.0)
    shifted = clamped * _LOG2E + _ROUND
    n = f32_bits(shifted) - f32_bits(_ROUND)
    whole = shifted - _ROUND
    r = clamped - whole * _LN2_HI
    r = r - whole * _LN2_LO
    p = _EXP_P[5]
    p = p * r + _EXP_P[4]
    p = p * r + _EXP_P[3]
    p = p * r + _EXP_P[2]
    p = p * r + _EXP_P[1]
    p = p * r + _EXP_P[0]
    y = _F32(1.0) + (r + r * r * p)
    half = n >> 1
    y = y * f32_from_bits(_I32((half + 127) << 23))
    # e^x rounds to +0 for x <= -104: times 0 rather than 2^-75, whose underflow to zero
    # takes a microcode assist (the masked half of a causal softmax: 2x its time)
    y = y * (f32_from_bits(_I32((n - half + 127) << 23)) if x > _EXP_ZERO else _F32(0.0))
    return y if x == x else x


exp_f32 = always_inlined(_exp_f32, _UNARY_F32)


_SQRT_HALF = _F32(0.707106781)
_LOG_P = (
    _F32(0.3333333134651184),
    _F32(-0.2500081956386566),
    _F32(0.20001229643821716),
    _F32(-0.16623376309871674),
    _F32(0.1420169323682785),
    _F32(-0.13159915804862976),
    _F32(0.12761946022510529),
    _F32(-0.07635714113712311),
)


@numba.njit(cache=True, error_model="numpy")
def _log_f32(x: float) -> float:
    """Natural log in float32 (at most 1 ulp); log(0) = -inf, log(x < 0) = NaN,
    log(inf) = inf, subnormal operands handled."""
    subnormal = x < _F32(1.17549435e-38)
    scaled = x * _F32(8388608.0) if subnormal else x  # 2^23
    bits = f32_bits(scaled)
    exponent = ((bits >> 23) & 0xFF) - 126 - (23 if subnormal else 0)
    mantissa = f32_from_bits(_I32((bits & 0x007FFFFF) | 0x3F000000))  # in [0.5, 1)
    low = mantissa < _SQRT_HALF
    e = _F32(exponent - 1) if low else _F32(exponent)
    f = (mantissa + mantissa - _F32(1.0)) if low else (mantissa - _F32(1.0))
    z = f * f
    p = _LOG_P[7]
    p = p * f + _LOG_P[6]
    p = p * f + _LOG_P[5]
    p = p * f + _LOG_P[4]
    p = p * f + _LOG_P[3]
    p = p * f + _LOG_P[2]
    p = p * f + _LOG_P[1]
    p = p * f + _LOG_P[0]
    y = f * z * p + e * _LN2_LO
    y = y - _F32(0.5) * z
    result = (f + y) + e * _LN2_HI
    if x == _F32(0.0):
        return _F32(-np.inf)
    if x < _F32(0.0) or x != x:
        return _F32(np.nan) if x == x else x
    return x if x == _F32(np.inf) else result


log_f32 = always_inlined(_log_f32, _UNARY_F32)


_TANH_P = (
    _F32(-0.33333319425582886),
    _F32(0.13332849740982056),
    _F32(-0.05391034856438637),
    _F32(0.021537721157073975),
    _F32(-0.007840736769139767),
    _F32(0.0018798846285790205),
)


@numba.njit(cache=True, error_model="numpy")
def _tanh_f32(x: float) -> float:
    """Hyperbolic tangent in float32 (at most 2 ulp); odd, +-1 at +-inf, NaN kept."""
    a = abs(x)
    z = x * x
    p = _TANH_P[5]
    p = p * z + _TANH_P[4]
    p = p * z + _TANH_P[3]
    p = p * z + _TANH_P[2]
    p = p * z + _TANH_P[1]
    p = p * z + _TANH_P[0]
    small = x + x * z * p
    large = _F32(1.0) - _F32(2.0) / (exp_f32(min(a, _F32(10.0)) * _F32(2.0)) + _F32(1.0))
    large = -large if x < _F32(0.0) else large
    small = x if a < _F32(2.0**-12) else small  # tanh(x) rounds to x; keeps the sign of -0
    return small if a < _F32(0.625) or x != x else large


tanh_f32 = always_inlined(_tanh_f32, _UNARY_F32)


@numba.njit(cache=True, error_model="numpy")
def _logistic_f32(x: float) -> float:
    """1 / (1 + e^-x) in float32 (at most 2 ulp), without overflow for large |x|."""
    e = exp_f32(-abs(x))
    denominator = _F32(1.0) + e
    return _F32(1.0) / denominator if x >= _F32(0.0) else e / denominator


logistic_f32 = always_inlined(_logistic_f32, _UNARY_F32)


_ROUND64 = 6755399441055744.0  # 1.5 * 2^52: adding it rounds |t| < 2^51 to an integer
_LOG2E64 = 1.4426950408889634
_LN2_HI64 = 6.93147180369123816490e-01  # 32 significant bits: n * _LN2_HI64 is exact
_LN2_LO64 = 1.90821492927058770002e-10
_EXP64_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(13))


@numba.njit(cache=True, error_model="numpy")
def _exp_f64_moderate(y: float) -> float:
    """e^y in f64 for finite ``-1000 < y < 700`` (no subnormal results), within 2e-16
    relative: ``y = n ln2 + r`` with ``|r| <= ln2/2``, Taylor to r^12, times 2^n. (Written
    out step by step, as every form here: loops over the coefficients kept LLVM from
    vectorizing the kernels, 10x slower.)"""
    shifted = y * _LOG2E64 + _ROUND64
    n = f64_bits(shifted) - f64_bits(_ROUND64)
    whole = shifted - _ROUND64
    r = (y - whole * _LN2_HI64) - whole * _LN2_LO64
    p = _EXP64_TAYLOR[12]
    p = p * r + _EXP64_TAYLOR[11]
    p = p * r + _EXP64_TAYLOR[10]
    p = p * r + _EXP64_TAYLOR[9]
    p = p * r + _EXP64_TAYLOR[8]
    p = p * r + _EXP64_TAYLOR[7]
    p = p * r + _EXP64_TAYLOR[6]
    p = p * r + _EXP64_TAYLOR[5]
    p = p * r + _EXP64_TAYLOR[4]
    p = p * r + _EXP64_TAYLOR[3]
    p = p * r + _EXP64_TAYLOR[2]
    p = p * r + _EXP64_TAYLOR[1]
    p = p * r + _EXP64_TAYLOR[0]
    return p * f64_from_bits(np.int64((n + 1023) << 52))


exp_f64_moderate = always_inlined(_exp_f64_moderate, _UNARY_F64)


_ERFC_Z_MAX = 10.1  # erfc(10.1) is below half the smallest f32 subnormal
_ERFC_T_MIN = 2.0 / (2.0 + _ERFC_Z_MAX)
_ERFC_P = (
    -0.5595379644346536, 0.5711974314038296, 0.015943581710138592, -0.029610651036237078,
    -0.0010811111108421062, 0.003746366746221626, -0.00028232649931130515,
    -0.0005540969510885393, 0.00015092895913796544, 6.642465718367942e-05,
    -4.3069554110661716e-05, -1.5338854352289903e-06, 8.49470720273129e-06,
    -2.0060823110749256e-06, -1.0249079743492696e-06, 5.95092100602893e-07,
    2.2224927115051892e-08, -7.130543771812594e-08, 1.0266639468394906e-08,
)  # fmt: skip
"""``P``: the degree-18 Chebyshev interpolant (``numpy.polynomial.chebyshev.chebinterpolate``
of scipy's ``erfcx``) of ``log(erfcx(z) / t)``, ``t = 2/(2+z)``, in powers of ``s`` (``t``
mapped from [``_ERFC_T_MIN``, 1] onto [-1, 1]; ``cheb2poly``: the coefficients stay below
0.6, so Horner's rule loses nothing against Clenshaw's)."""
_ERFC_S_SCALE = 2.0 / (1.0 - _ERFC_T_MIN)
_ERFC_S_SHIFT = (1.0 + _ERFC_T_MIN) / (1.0 - _ERFC_T_MIN)
_ERF_TAYLOR = tuple(
    (-1.0) ** n / (math.factorial(n) * (2 * n + 1)) * 2.0 / math.sqrt(math.pi) for n in range(11)
)


@numba.njit(cache=True, error_model="numpy")
def _erfc_positive_f64(z: float) -> float:
    """erfc(z) in f64 for ``0 <= z <= _ERFC_Z_MAX``, within ~1e-13 relative."""
    t = 2.0 / (2.0 + z)
    s = t * _ERFC_S_SCALE - _ERFC_S_SHIFT
    p = _ERFC_P[18]
    p = p * s + _ERFC_P[17]
    p = p * s + _ERFC_P[16]
    p = p * s + _ERFC_P[15]
    p = p * s + _ERFC_P[14]
    p = p * s + _ERFC_P[13]
    p = p * s + _ERFC_P[12]
    p = p * s + _ERFC_P[11]
    p = p * s + _ERFC_P[10]
    p = p * s + _ERFC_P[9]
    p = p * s + _ERFC_P[8]
    p = p * s + _ERFC_P[7]
    p = p * s + _ERFC_P[6]
    p = p * s + _ERFC_P[5]
    p = p * s + _ERFC_P[4]
    p = p * s + _ERFC_P[3]
    p = p * s + _ERFC_P[2]
    p = p * s + _ERFC_P[1]
    p = p * s + _ERFC_P[0]
    return t * exp_f64_moderate(p - z * z)


erfc_positive_f64 = always_inlined(_erfc_positive_f64, _UNARY_F64)


@numba.njit(cache=True, error_model="numpy")
def _erfc_f32(x: float) -> float:
    """Complementary error function in float32 (at most 1 ulp): 2 at -inf, +0 at +inf,
    NaN kept."""
    wide = np.float64(x)
    e = erfc_positive_f64(min(abs(wide), _ERFC_Z_MAX))
    result = _F32(2.0 - e if wide < 0.0 else e)
    return result if x == x else x


erfc_f32 = always_inlined(_erfc_f32, _UNARY_F32)


@numba.njit(cache=True, error_model="numpy")
def _erf_f32(x: float) -> float:
    """Error function in float32 (at most 1 ulp); odd (keeps -0), +-1 at +-inf, NaN kept."""
    wide = np.float64(x)
    z = abs(wide)
    w = wide * wide
    q = _ERF_TAYLOR[10]
    q = q * w + _ERF_TAYLOR[9]
    q = q * w + _ERF_TAYLOR[8]
    q = q * w + _ERF_TAYLOR[7]
    q = q * w + _ERF_TAYLOR[6]
    q = q * w + _ERF_TAYLOR[5]
    q = q * w + _ERF_TAYLOR[4]
    q = q * w + _ERF_TAYLOR[3]
    q = q * w + _ERF_TAYLOR[2]
    q = q * w + _ERF_TAYLOR[1]
    q = q * w + _ERF_TAYLOR[0]
    tail = 1.0 - erfc_positive_f64(min(z, _ERFC_Z_MAX))
    result = _F32(wide * q if z < 0.5 else (-tail if wide < 0.0 else tail))
    return result if x == x else x


erf_f32 = always_inlined(_erf_f32, _UNARY_F32)


@numba.njit(cache=True, error_model="numpy")
def logistic_f64(x: float) -> float:
    """1 / (1 + e^-x) in float64 with libm's exp, as the interpreter (scipy's expit)."""
    return 1.0 / (1.0 + np.exp(-x))


@numba.njit(cache=True, fastmath={"reassoc"})
def add_reassoc(a: float, b: float) -> float:
    """``a + b`` that LLVM may reassociate: the combiner of float sum reductions, so that
    their loops vectorize (as XLA's vectorized reductions reassociate). Used on the
    accumulation only, never on the values being summed."""
    return a + b


_LOG_HALF_F32 = _F32(-0.6931471805599453)
_LOG_HALF_F64 = -0.6931471805599453


@numba.njit(cache=True, error_model="numpy")
def cosh_f32(x: float) -> float:
    """cosh as XLA runs CHLO's decomposition (the interpreter's rule), each step in f32:
    ``exp(x + log(1/2)) + exp(log(1/2) - x)``, the exponentials rounded once from f64."""
    a = _F32(np.exp(np.float64(x + _LOG_HALF_F32)))
    return a + _F32(np.exp(np.float64(_LOG_HALF_F32 - x)))


@numba.njit(cache=True, error_model="numpy")
def sinh_f32(x: float) -> float:
    """sinh as CHLO's decomposition, each step in f32: ``exp(x + log(1/2)) -
    exp(log(1/2) - x)``, or ``0.5 * (e + e / (e + 1))`` with ``e = expm1(x)`` for
    ``|x| < 1``."""
    if abs(x) < _F32(1.0):
        e = _F32(np.expm1(np.float64(x)))
        return _F32(0.5) * (e + e / (e + _F32(1.0)))
    a = _F32(np.exp(np.float64(x + _LOG_HALF_F32)))
    return a - _F32(np.exp(np.float64(_LOG_HALF_F32 - x)))


@numba.njit(cache=True, error_model="numpy")
def cosh_f64(x: float) -> float:
    """``cosh_f32``'s decomposition in f64."""
    return np.exp(x + _LOG_HALF_F64) + np.exp(_LOG_HALF_F64 - x)


@numba.njit(cache=True, error_model="numpy")
def sinh_f64(x: float) -> float:
    """``sinh_f32``'s decomposition in f64."""
    if abs(x) < 1.0:
        e = np.expm1(x)
        return 0.5 * (e + e / (e + 1.0))
    return np.exp(x + _LOG_HALF_F64) - np.exp(_LOG_HALF_F64 - x)
