"""The elementwise lax ops the property tests exercise: which element types each accepts, how
closely xlapy must agree with each oracle, and which inputs are left out because the spec
leaves their result implementation-defined (each exclusion names its reason).

Exact ops (integer arithmetic, IEEE +,-,*,/,rem,sqrt, rounding, comparisons, min/max, bit
ops) are compared bit for bit: OPS.md requires correctly rounded results for them.
Transcendental functions have implementation-defined accuracy (INTERPRETER.md G6), so they are
compared within a number of ulp of the element type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from oracle import EXACT, Ignore, Tolerance, Ulp
from strategies import COMPLEX, FLOATS, IEEE_FLOATS, INTEGERS, NARROW_FLOATS, PRED, SIGNED

from xlapy import dtypes
from xlapy.dtypes import ElementType

jax = pytest.importorskip("jax")
lax = jax.lax

# XLA:CPU's transcendental approximations (its own polynomials; OPS.md leaves their accuracy
# implementation-defined) against an interpreter that rounds a correctly rounded f64 result.
TRANSCENDENTAL = Ulp(4, relative=1e-6)
# The reference interpreter calls the C library: within an ulp or two of exact.
LIBM = Ulp(2)
# CHLO ops: the reference interpreter and the HLO text both run CHLO's decomposition into
# polynomials, xlapy the function itself.
DECOMPOSED = Ulp(8, relative=1e-5)
COMPLEX_MATH = Ulp(64, relative=1e-5)

E8M0 = dtypes.F8E8M0FNU
F4 = dtypes.F4E2M1FN
F8E3M4 = dtypes.F8E3M4


@dataclass(frozen=True)
class ElementwiseOp:
    """One elementwise op: ``fn`` takes ``arity`` arrays of one element type from ``types``.

    ``xla``/``reference`` are the tolerances against each oracle for real types,
    ``complex_tolerance`` for complex types (OPS.md gives no rounding rule for complex
    formulas). ``chlo``: the op reaches StableHLO as a CHLO op (decomposed in the HLO text).
    ``exact_complex``: complex results are computed part by part, exactly (add, neg...).
    """

    name: str
    fn: Callable[..., Any]
    arity: int
    types: tuple[ElementType, ...]
    xla: Tolerance = EXACT
    reference: Tolerance = EXACT
    complex_tolerance: Tolerance = EXACT
    chlo: bool = False
    exact_complex: bool = False

    def tolerances(self, t: ElementType) -> dict[str, Tolerance]:
        """Tolerance per oracle for element type ``t`` (``Ignore`` where not comparable)."""
        if t.is_complex:
            return {
                "xla": self.complex_tolerance,
                "reference": self.complex_tolerance,
                "stablehlo": self.complex_tolerance if self.chlo else EXACT,
            }
        xla = self.xla
        reference = self.reference
        if self.name == "sqrt" and t in NARROW_FLOATS:
            # XLA:CPU takes the square root of an 8-bit float in f16 and rounds again (a
            # double rounding: sqrt(15.5) in f8e3m4 is 4.0, not the correctly rounded 3.875).
            xla = Ulp(1)
        if self.name == "popcnt" and t.bits < 8:
            # XLA:CPU counts the bits of the sign-extended byte (popcnt(s4 -1) = 8 -> -8).
            xla = Ignore("XLA:CPU counts the bits of the sign-extended byte")
        if t is E8M0 or (t is F8E3M4 and self.name.startswith(("floor", "ceil", "round"))):
            # The reference interpreter drops the sign of e8m0 results (1 - 4 = 3) and returns
            # NaN for every f8e3m4 floor/ceil/round.
            reference = Ignore("the reference interpreter is wrong for this type")
        if t is F4 and xla != EXACT:
            reference = Ignore("the reference interpreter maps inf/NaN to 0 in f4e2m1fn")
        stablehlo = DECOMPOSED if self.chlo else EXACT
        return {"xla": xla, "reference": reference, "stablehlo": stablehlo}


SIGNED_NUMBERS = SIGNED + FLOATS
REALS = INTEGERS + FLOATS
ALL_NUMBERS = REALS + COMPLEX
BITS = PRED + INTEGERS
# e8m0 has no zero and no negative values, and f4e2m1fn no inf/NaN: transcendental results
# mostly fall outside them, where XLA:CPU returns values no spec defines (acos in f4e2m1fn
# returns -3; exp2(2^-126) in e8m0 returns NaN).
MATH_FLOATS = tuple(t for t in FLOATS if t not in (E8M0, F4))
MATH_TYPES = MATH_FLOATS + COMPLEX


def _round_even(x: Any) -> Any:
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def _round_away(x: Any) -> Any:
    return lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)


def _math(
    name: str,
    fn: Callable[..., Any],
    arity: int = 1,
    *,
    complex_ok: bool = True,
    chlo: bool = False,
) -> ElementwiseOp:
    return ElementwiseOp(
        name,
        fn,
        arity,
        MATH_TYPES if complex_ok else MATH_FLOATS,
        xla=TRANSCENDENTAL,
        reference=DECOMPOSED if chlo else LIBM,
        complex_tolerance=COMPLEX_MATH,
        chlo=chlo,
    )


def _exact(
    name: str, fn: Callable[..., Any], arity: int, types: tuple[ElementType, ...], **kwargs: Any
) -> ElementwiseOp:
    return ElementwiseOp(name, fn, arity, types, **kwargs)


UNARY: tuple[ElementwiseOp, ...] = (
    _exact("neg", lax.neg, 1, SIGNED_NUMBERS + COMPLEX, exact_complex=True),
    _exact("abs", lax.abs, 1, SIGNED_NUMBERS + COMPLEX, complex_tolerance=Ulp(2)),
    _exact("sign", lax.sign, 1, REALS + COMPLEX, complex_tolerance=Ulp(2)),
    _exact("floor", lax.floor, 1, FLOATS),
    _exact("ceil", lax.ceil, 1, FLOATS),
    _exact("round_even", _round_even, 1, FLOATS),
    _exact("round_away", _round_away, 1, FLOATS),
    _exact("is_finite", lax.is_finite, 1, FLOATS),
    _exact("sqrt", lax.sqrt, 1, FLOATS + COMPLEX, complex_tolerance=COMPLEX_MATH),
    _math("rsqrt", lax.rsqrt),
    _math("cbrt", lax.cbrt, complex_ok=False),
    _math("exp", lax.exp),
    _math("exp2", lax.exp2),
    _math("expm1", lax.expm1),
    _math("log", lax.log),
    _math("log1p", lax.log1p),
    _math("tanh", lax.tanh),
    _math("logistic", lax.logistic),
    _math("sin", lax.sin),
    _math("cos", lax.cos),
    _math("tan", lax.tan),
    _math("atan", lax.atan),
    _math("asin", lax.asin, chlo=True),
    _math("acos", lax.acos, chlo=True),
    _math("sinh", lax.sinh, chlo=True),
    _math("cosh", lax.cosh, chlo=True),
    _math("asinh", lax.asinh, chlo=True),
    _math("acosh", lax.acosh, chlo=True),
    _math("atanh", lax.atanh, chlo=True),
    _math("erf", lax.erf, complex_ok=False),
    # XLA cannot legalize chlo.erfc on 8-bit floats.
    ElementwiseOp(
        "erfc", lax.erfc, 1, IEEE_FLOATS, xla=TRANSCENDENTAL, reference=DECOMPOSED, chlo=True
    ),
    _math("erf_inv", lax.erf_inv, complex_ok=False, chlo=True),
    _math("lgamma", lax.lgamma, complex_ok=False, chlo=True),
    _math("digamma", lax.digamma, complex_ok=False, chlo=True),
    _exact("not", lax.bitwise_not, 1, BITS),
    _exact("popcnt", lax.population_count, 1, INTEGERS),
    _exact("clz", lax.clz, 1, INTEGERS),
    _exact("real", lax.real, 1, COMPLEX, exact_complex=True),
    _exact("imag", lax.imag, 1, COMPLEX, exact_complex=True),
    _exact("conj", lax.conj, 1, COMPLEX, exact_complex=True),
)

BINARY: tuple[ElementwiseOp, ...] = (
    _exact("add", lax.add, 2, ALL_NUMBERS, exact_complex=True),
    _exact("sub", lax.sub, 2, ALL_NUMBERS, exact_complex=True),
    _exact("mul", lax.mul, 2, ALL_NUMBERS, complex_tolerance=COMPLEX_MATH),
    _exact("div", lax.div, 2, ALL_NUMBERS, complex_tolerance=COMPLEX_MATH),
    _exact("rem", lax.rem, 2, REALS),
    _math("pow", lax.pow, 2),
    _exact("max", lax.max, 2, REALS + COMPLEX, exact_complex=True),
    _exact("min", lax.min, 2, REALS + COMPLEX, exact_complex=True),
    _math("atan2", lax.atan2, 2, complex_ok=False),
    _exact("and", lax.bitwise_and, 2, BITS),
    _exact("or", lax.bitwise_or, 2, BITS),
    _exact("xor", lax.bitwise_xor, 2, BITS),
    _exact("shift_left", lax.shift_left, 2, INTEGERS),
    _exact("shift_right_arithmetic", lax.shift_right_arithmetic, 2, INTEGERS),
    _exact("shift_right_logical", lax.shift_right_logical, 2, INTEGERS),
    _exact("nextafter", lax.nextafter, 2, IEEE_FLOATS),
    _exact("complex", lax.complex, 2, (dtypes.F32, dtypes.F64)),
    _exact("eq", lax.eq, 2, PRED + ALL_NUMBERS, exact_complex=True),
    _exact("ne", lax.ne, 2, PRED + ALL_NUMBERS, exact_complex=True),
    _exact("lt", lax.lt, 2, PRED + REALS),
    _exact("le", lax.le, 2, PRED + REALS),
    _exact("gt", lax.gt, 2, PRED + REALS),
    _exact("ge", lax.ge, 2, PRED + REALS),
)

TERNARY: tuple[ElementwiseOp, ...] = (_exact("clamp", lax.clamp, 3, REALS),)

ALL_OPS: tuple[ElementwiseOp, ...] = UNARY + BINARY + TERNARY
BY_NAME: dict[str, ElementwiseOp] = {op.name: op for op in ALL_OPS}


# ---- inputs whose results no spec defines ---------------------------------------------------


def _moderate(t: ElementType, part: np.ndarray) -> np.ndarray:
    """Finite parts with magnitudes in [1e-3, 1e3] (or zero); others replaced."""
    with np.errstate(all="ignore"):
        wide = part.astype(np.float64)
        ok = np.isfinite(wide) & ((wide == 0) | ((np.abs(wide) >= 1e-3) & (np.abs(wide) <= 1e3)))
        replacement = np.linspace(-2.75, 2.75, part.size).reshape(part.shape)
        return np.where(ok, wide, replacement).astype(t.component.numpy)


def _is_subnormal(values: np.ndarray) -> np.ndarray:
    wide = np.abs(values.astype(np.float64))
    tiny = float(ml_dtypes.finfo(values.dtype).smallest_normal)
    return (wide > 0) & (wide < tiny)


def constrain(op: ElementwiseOp, t: ElementType, args: list[np.ndarray]) -> list[np.ndarray]:
    """Replaces the inputs whose results the specs leave implementation-defined:

    * complex operands of inexact complex ops get finite, moderate parts: OPS.md defines no
      special values (C99 Annex G) nor overflow behaviour for complex formulas, and XLA:CPU
      differs from textbook formulas there (|nan+inf j| = NaN; (-inf+..j)*(..) uses FMA);
    * f4e2m1fn cannot encode NaN, so operations producing NaN (0/0, x rem 0, sqrt(-1)) have
      no defined result (XLA:CPU writes -0, ml_dtypes ±0 by the NaN's sign);
    * e8m0fnu's smallest value 2^-127 is a subnormal in f32, which XLA:CPU does not flush
      (oracle_findings.md F1 tracks xlapy flushing it);
    * pow/atan2 subnormal operands: XLA:CPU's pow does not flush them (oracle_findings.md F2);
    * zero parts of complex operands of the inverse trigonometric/hyperbolic functions: on
      their branch cuts XLA ignores the sign of a zero imaginary part and C99 (xlapy) does
      not; StableHLO does not say which side a signed zero selects.
    """
    args = [a.copy() for a in args]
    if t.is_complex and not op.exact_complex:
        for a in args:
            a.real = _moderate(t, a.real)
            a.imag = _moderate(t, a.imag)
    if t.is_complex and op.name in ("asin", "acos", "atan", "asinh", "acosh", "atanh"):
        for a in args:
            a.real = np.where(a.real == 0, 0.25, a.real)
            a.imag = np.where(a.imag == 0, 0.25, a.imag)
    if t is F4:
        if op.name in ("div", "rem"):
            args[1] = np.where(args[1].astype(np.float32) == 0, np.ones_like(args[1]), args[1])
        if op.name == "sqrt":
            args[0] = np.abs(args[0].astype(np.float32)).astype(t.numpy)
    if t is E8M0:
        for i, a in enumerate(args):
            args[i] = np.where(a.view(np.uint8) == 0, np.ones_like(a), a)
    if op.name == "lgamma" and t.is_float:
        # oracle_findings.md F3 (lgamma(-inf)) and F4 (lgamma of subnormals).
        for i, a in enumerate(args):
            bad = _is_subnormal(a) | (a.astype(np.float64) == -np.inf)
            args[i] = np.where(bad, np.ones_like(a), a)
    if op.name == "digamma" and t.is_float:
        # oracle_findings.md F6: the poles 0, -1, -2, ...
        for i, a in enumerate(args):
            wide = a.astype(np.float64)
            pole = (wide <= 0) & (np.floor(wide) == wide)
            args[i] = np.where(pole, np.ones_like(a), a)
    if op.name in ("pow", "atan2") and t.is_float:
        for i, a in enumerate(args):
            args[i] = np.where(_is_subnormal(a), np.zeros_like(a), a)
    return args


@functools.cache
def accepted_types(name: str) -> tuple[ElementType, ...]:
    """The types of ``BY_NAME[name].types`` that jax accepts for the op (jax refuses, e.g.,
    abs of int2 and most math on sub-byte integers)."""
    op = BY_NAME[name]
    accepted = []
    with jax.enable_x64(True):
        for t in op.types:
            spec = jax.ShapeDtypeStruct((2,), t.numpy)
            try:
                jax.eval_shape(op.fn, *([spec] * op.arity))
            except TypeError:
                continue
            accepted.append(t)
    return tuple(accepted)
