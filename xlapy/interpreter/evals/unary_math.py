"""Unary elementwise math ops (abs .. tanh, the CHLO trigonometric and hyperbolic functions,
is-finite, real, imag) as table rows.

Spec: stablehlo#abs and the following unary ops; XLA operation semantics A.17. Exact ops
(abs, negate, sign, ceil, floor, rounding, sqrt) are correctly rounded; transcendental ones
are evaluated in f64/c128 and rounded once to the result type.
"""

from __future__ import annotations

import numpy as np

from xlapy.dtypes import ElementType
from xlapy.interpreter import intmath, numerics
from xlapy.interpreter.evals.elementwise import Row, make_complex, register, typeless, where
from xlapy.interpreter.numerics import Array
from xlapy.ir.opcode import Opcode


def logistic_real(x: Array) -> Array:
    """``1 / (1 + exp(-x))`` as scipy's expit (imported here, on first use: scipy.special
    costs ~0.3 s to import)."""
    import scipy.special

    result: Array = scipy.special.expit(x)
    return result


def abs_integer(x: Array, t: ElementType) -> Array:
    """|x| wrapping: ``abs(INT_MIN) = INT_MIN``; unsigned values are their own magnitude."""
    return where(x < 0, intmath.negate(x), intmath.as_unsigned(x))


def sign_integer(x: Array, t: ElementType) -> Array:
    return np.sign(x)


def sign_real(x: Array) -> Array:
    """-1, -0, NaN, +0 or 1 (the operand itself for zeros and NaNs)."""
    return where(np.isnan(x) | (x == 0), x, np.copysign(np.ones_like(x), x))


def sign_complex(z: Array) -> Array:
    """``z / |z|``, and 0 for 0 (NaN parts give NaN in both parts)."""
    magnitude = np.abs(z)
    safe = np.where(magnitude == 0, 1, magnitude)
    return where(magnitude == 0, z, make_complex(z.real / safe, z.imag / safe))


def round_nearest_afz(x: Array) -> Array:
    """Nearest integer, ties away from zero; keeps the sign of zero, infinities and NaNs."""
    magnitude = np.abs(x)
    whole = np.trunc(magnitude)
    # magnitude - whole is exact, so no 0.49999997 + 0.5 = 1.0 rounding trap.
    rounded = whole + (magnitude - whole >= 0.5)
    return np.asarray(np.copysign(rounded, x))


def rsqrt(x: Array) -> Array:
    return 1 / np.sqrt(x)


def cbrt_complex(z: Array) -> Array:
    """Principal cube root."""
    return np.power(z, 1 / 3)


def logistic_complex(z: Array) -> Array:
    return 1 / (1 + np.exp(-z))


def log1p_complex(z: Array) -> Array:
    """``log(1 + z)`` without cancellation in the real part: ``0.5 * log1p(2x + x*x + y*y)``,
    the sum evaluated with error-free products and sums (numpy's ``log1p`` loses digits when
    ``|1 + z|`` is close to 1)."""
    x, y = z.real, z.imag
    xx, xx_error = numerics.two_product(x, x)
    yy, yy_error = numerics.two_product(y, y)
    head, error = numerics.two_sum(2 * x, xx)
    head, error2 = numerics.two_sum(head, yy)
    total = head + (error + error2 + xx_error + yy_error)
    real = 0.5 * np.log1p(total)
    # Huge or non-finite operands: the plain formula is exact enough and handles inf/NaN.
    plain = np.log1p(z)
    finite = np.isfinite(total) & (np.abs(x) < 1e150) & (np.abs(y) < 1e150)
    return where(finite, make_complex(real, np.arctan2(y, 1 + x)), plain)


def _rounded(fn: np.ufunc, x: Array) -> Array:
    """``fn`` of ``x`` evaluated in f64 and rounded once to ``x``'s dtype (f32 or f64)."""
    return np.asarray(fn(x.astype(np.float64))).astype(x.dtype)


def sinh_chlo(x: Array) -> Array:
    """sinh as CHLO's decomposition computes it, every step in ``x``'s dtype (f32 for f32 and
    narrower types, f64 for f64): ``0.5 * (expm1(x) + expm1(x) / (expm1(x) + 1))`` when
    ``|x| < 1``, else ``exp(x + log(1/2)) - exp(log(1/2) - x)``. XLA runs this decomposition,
    so the rounding of ``x + log(1/2)`` (up to a few ulp of the result at large ``|x|``) is
    part of the results users compare with."""
    with np.errstate(all="ignore"):
        half = x.dtype.type(0.5)
        log_half = np.log(np.float64(0.5)).astype(x.dtype)
        large = _rounded(np.exp, x + log_half) - _rounded(np.exp, log_half - x)
        e = _rounded(np.expm1, x)
        small = half * (e + e / (e + x.dtype.type(1)))
        return np.where(np.abs(x) < 1, small, large)


def cosh_chlo(x: Array) -> Array:
    """cosh as CHLO's decomposition computes it, in ``x``'s dtype (see ``sinh_chlo``):
    ``exp(x + log(1/2)) + exp(log(1/2) - x)``."""
    with np.errstate(all="ignore"):
        log_half = np.log(np.float64(0.5)).astype(x.dtype)
        return _rounded(np.exp, x + log_half) + _rounded(np.exp, log_half - x)


def sinh_complex(z: Array) -> Array:
    """Complex sinh in c128 (the result is rounded once to the result type)."""
    return np.asarray(np.sinh(z.astype(np.complex128)))


def cosh_complex(z: Array) -> Array:
    """Complex cosh in c128 (the result is rounded once to the result type)."""
    return np.asarray(np.cosh(z.astype(np.complex128)))


def real_part(x: Array) -> Array:
    return np.real(x)


def imag_part(x: Array) -> Array:
    """The imaginary part; 0 for a real operand."""
    return np.imag(x) if np.iscomplexobj(x) else np.zeros_like(x)


register(
    Row(
        Opcode.ABS,
        integer=abs_integer,
        real=np.abs,
        complex=np.abs,
        precise=True,
        flush_operands=(),
        flush_result=False,
    ),
    Row(
        Opcode.NEGATE,
        integer=typeless(intmath.negate),
        real=np.negative,
        complex=np.negative,
        flush_operands=(),
        flush_result=False,
    ),
    Row(Opcode.SIGN, integer=sign_integer, real=sign_real, complex=sign_complex, precise=True),
    Row(Opcode.CEIL, real=np.ceil),
    Row(Opcode.FLOOR, real=np.floor),
    Row(Opcode.ROUND_NEAREST_AFZ, real=round_nearest_afz),
    Row(Opcode.ROUND_NEAREST_EVEN, real=np.rint),
    Row(Opcode.SQRT, real=np.sqrt, complex=np.sqrt, precise=True),
    Row(Opcode.RSQRT, real=rsqrt, complex=rsqrt, precise=True),
    Row(Opcode.CBRT, real=np.cbrt, complex=cbrt_complex, precise=True),
    Row(Opcode.EXP, real=np.exp, complex=np.exp, precise=True),
    Row(Opcode.EXPM1, real=np.expm1, complex=np.expm1, precise=True),
    Row(Opcode.LOG, real=np.log, complex=np.log, precise=True),
    Row(Opcode.LOG1P, real=np.log1p, complex=log1p_complex, precise=True),
    Row(Opcode.LOGISTIC, real=logistic_real, complex=logistic_complex, precise=True),
    Row(Opcode.SIN, real=np.sin, complex=np.sin, precise=True),
    Row(Opcode.COS, real=np.cos, complex=np.cos, precise=True),
    Row(Opcode.TAN, real=np.tan, complex=np.tan, precise=True),
    Row(Opcode.TANH, real=np.tanh, complex=np.tanh, precise=True),
    Row(Opcode.ACOS, real=np.arccos, complex=np.arccos, precise=True),
    Row(Opcode.ACOSH, real=np.arccosh, complex=np.arccosh, precise=True),
    Row(Opcode.ASIN, real=np.arcsin, complex=np.arcsin, precise=True),
    Row(Opcode.ASINH, real=np.arcsinh, complex=np.arcsinh, precise=True),
    Row(Opcode.ATAN, real=np.arctan, complex=np.arctan, precise=True),
    Row(Opcode.ATANH, real=np.arctanh, complex=np.arctanh, precise=True),
    # Real sinh/cosh run CHLO's decomposition in XLA's compute type (not precise); complex
    # ones are evaluated in c128 and rounded once.
    Row(Opcode.COSH, real=cosh_chlo, complex=cosh_complex),
    Row(Opcode.SINH, real=sinh_chlo, complex=sinh_complex),
    Row(Opcode.IS_FINITE, real=np.isfinite),
    Row(Opcode.REAL, real=real_part, complex=real_part, flush_operands=(), flush_result=False),
    Row(Opcode.IMAG, real=imag_part, complex=imag_part, flush_operands=(), flush_result=False),
)
