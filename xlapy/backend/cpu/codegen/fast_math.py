"""Inline float32 transcendentals for generated kernels (exp, log, tanh, logistic), written
in plain arithmetic so that LLVM vectorizes the loops that call them, as XLA:CPU's elemental
emitter and Eigen's ``pexp``/``ptanh`` do; cosh and sinh as CHLO's decomposition (the
interpreter's rule); and the reassociating add of float sum reductions.

Scheme (the classic one; coefficients are our own relative-error minimax fits, rounded to
f32, on the reduced intervals below):
* ``exp``: ``x = n*ln2 + r`` (Cody-Waite, ``|r| <= ln2/2``, ``n`` rounded to nearest with
  the 1.5*2^23 trick), ``e^r = 1 + r + r^2 P5(r)``, scaled by ``2^n`` built from integer
  bits in two steps (so subnormal results are right).
* ``log``: ``x = 2^e * m`` with ``m`` in ``[sqrt(1/2), sqrt(2))`` read from the bits,
  ``log(1+f) = f - f^2/2 + f^3 P7(f)``, plus ``e*ln2`` in two parts.
* ``tanh``: ``x + x^3 P5(x^2)`` for ``|x| < 0.625``, else ``1 - 2/(e^{2|x|} + 1)``.
* ``logistic``: ``1/(1+e)`` (x >= 0) or ``e/(1+e)`` (x < 0) with ``e = exp(-|x|)``.

Measured against the correctly rounded result (the interpreter rounds f64 values once):
at most 1 ulp for exp and log, 2 ulp for tanh and logistic (see the kernel tests).
f64 kernels call libm instead (``math.exp``...), which the interpreter's numpy matches.

Kernels call these four through ``always_inlined`` wrappers: the call carries LLVM's
``alwaysinline`` attribute. Left to its cost model, LLVM's inliner kept an ``exp_f32`` call
in one of the four unrolled copies of a row reduction's outer loop (4x64 rows of 64), whose
reduction then ran scalar: 35 us instead of 8.5 us for the softmax sum of exp.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

from xlapy.backend.cpu.codegen.scalar_ops import f32_bits, f32_from_bits

_F32 = np.float32
_I32 = np.int32
_UNARY_F32 = types.float32(types.float32)


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
