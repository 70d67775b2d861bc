"""How closely the ``cpu`` platform must reproduce the ``interpreter``'s value of each output of
a fuzzed program: the per-op bounds of ``docs/fuzzing.md``, and their check.

A ``Bound`` is attached to every value the generator (``programs.py``) draws, derived from the
op that made it and the bounds of its operands (the ops of its cone):

* ``bits``: the same bits (any NaN matching any NaN: OPS.md leaves the sign and payload of a
  NaN an op makes implementation-defined). Integers, pred, data movement, comparisons, RNG
  bits, and every float op the cpu rounds once in the element's type as the interpreter does
  (IEEE ``+ - * /``, sqrt, rounding, conversions, min/max, remainder, f32 libm functions
  evaluated in f64, every op of bf16/f16/f8 computed wider and rounded once).
* ``ulps``: ``|cpu - interpreter| <= k ulp(max(|cpu|, |interpreter|))``, ulps of a reference
  type (``ULPS``; a finite value within ``k`` ulps of the largest may be infinite on the other): the cpu's own f32 exp/log/tanh/logistic (``codegen/fast_math.py``) and the
  f64 functions it takes from LLVM's libm where the interpreter calls numpy's
  (``codegen/elemental.LIBM_F64``). The bound survives the ops that move or select values or
  are monotone and 1-Lipschitz in ulps (data movement, negate, abs, maximum, minimum, clamp,
  select on exact predicates, sort, max/min reductions, float-to-float conversions).
* ``sum``/``dot``: a reassociated float sum (reductions and reduce-windows with ``add``, dots,
  scatters whose duplicate rows add): both platforms' results are within
  ``gamma(n-1) * sum|x|`` of the exact sum of the ``n`` terms (Higham's bound for any order of
  summation, ``gamma(m) = m*u / (1 - m*u)``, ``u`` the unit roundoff of the element type), so
  ``|cpu - interpreter| <= (2 gamma(n-1) + 2u + k eps) * S`` with ``S`` the interpreter's sum of
  the terms' magnitudes (a companion output of the program: ``reduce(abs(convert f64(x)))``,
  ``dot(|a|, |b|)``), ``k eps`` the terms' own relative error (``ulps`` inputs) and ``2u`` a
  final rounding of a wider accumulator (a dot or f32 sum accumulated in f64). Checked where
  ``S`` is finite and the bound is below the type's overflow threshold (else partial sums may
  overflow in one order and not another); where ``S`` is NaN (a NaN term, or ``0 * inf``) both
  must be NaN.
* ``product``: a float multiply reduction in another order: relative ``2 gamma(n-1) + k eps``
  where no partial product can overflow or underflow in any order (companions: the products of
  ``max(|x|, 1)`` and of ``min(|x|, 1)`` over the nonzero terms bound every partial product).
* ``unordered``: float scatters combining duplicate rows with maximum/minimum: equal values
  (the sign of a zero may depend on the order).
* ``loose`` (floats) and ``unchecked`` (integers and pred): values computed from an
  approximate value by an op that does not keep its bound (``exp(x) - y`` cancels, ``exp(x) <
  y`` or ``convert<s32>(exp(x))`` may flip). Loose floats must agree where both are finite to
  ``LOOSE`` of the output's largest magnitude (a blunder check, not a bound); unchecked values
  only in type and shape. ``Stats`` counts them: they are a small share of the outputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType

LOOSE = 1e-2
"""Agreement of ``loose`` floats where both are finite, relative to the largest magnitude."""

ULPS: dict[str, dict[str, int]] = {
    "f32": {
        "exponential": 1, "log": 1, "tanh": 2, "logistic": 2, "cosh": 2, "sinh": 3, "erf": 1,
        "erfc": 1,
    },
    "f64": {
        "exponential": 2, "log": 2, "tanh": 2, "logistic": 2, "exponential-minus-one": 2,
        "log-plus-one": 2, "sine": 2, "cosine": 2, "tan": 2, "power": 2, "atan2": 2,
        "cbrt": 4, "cosh": 4, "sinh": 4, "erf": 4, "erfc": 2,
    },
}  # fmt: skip
"""Ulps of the interpreter's value within which the cpu's result of an op on exact operands
lies, per element type (ops not listed are bit-exact). f32 exp/log/erf/erfc 1 and
tanh/logistic 2: ``fast_math``'s measured bounds (1 ulp of the correctly rounded value, which
the interpreter gives by rounding its f64 value once). f32 cosh/sinh: CHLO's decomposition with two f64 libm
exponentials each rounded once (numpy's may differ in the last f64 bit and round the other
way: 1 ulp per term, a subtraction's 1.16x amplification for sinh and one more rounding). f64:
LLVM's libm against numpy's routines, each within 1 ulp of the exact value, so 2; cosh and sinh
add two such exponentials (4); cbrt is numba's ``np.cbrt`` against numpy's (3 measured, 4).
Measured on 20,000 random arguments per op: f32 exp/log/tanh 1, logistic 2, cosh/sinh 0; f64
exp/log/expm1/log1p/tan/power/atan2 1, tanh/cosh 2, sinh/cbrt 3 (``tests/backend/cpu/
test_differential_fuzz.py`` keeps these); on 10^7 f32 arguments, erf 0 and erfc 1 (twice);
f64 erf, libm's against scipy's, 3 on 3*10^6 (f64 erfc stays on the interpreter's eval)."""

PRESERVING = frozenset(("bits", "ulps"))
"""Bounds that data movement, monotone and selecting ops keep."""


@dataclass(frozen=True)
class Bound:
    """How close the cpu's value must be to the interpreter's (see the module docstring).

    ``ulps``: ``(k, reference type name)`` pairs: within ``k`` ulps of that type (``ulps``), or
    the terms' relative error (``sum``/``dot``/``product``). ``terms``: the number of values
    accumulated. ``companions``: names of the program values giving the magnitude scale."""

    kind: str = "bits"
    ulps: tuple[tuple[int, str], ...] = ()
    terms: int = 0
    companions: tuple[str, ...] = field(default=())

    @property
    def exact(self) -> bool:
        return self.kind == "bits"


BITS = Bound()


def degraded(t: ElementType) -> Bound:
    """The bound of a value computed from an approximate one by an op that does not keep it."""
    return Bound("loose") if t.is_float else Bound("unchecked")


def join(t: ElementType, *bounds: Bound) -> Bound:
    """The bound of a value each element of which is one of the operands' elements (or a
    monotone 1-Lipschitz function of them): the loosest of theirs, if they all keep."""
    if all(b.kind == "bits" for b in bounds):
        return BITS
    if not all(b.kind in PRESERVING for b in bounds):
        return degraded(t)
    worst: dict[str, int] = {}
    for b in bounds:
        for k, ref in b.ulps:
            worst[ref] = max(worst.get(ref, 0), k)
    return Bound("ulps", tuple(sorted((k, ref) for ref, k in worst.items())))


def after_op(op: str, t: ElementType, operands: list[Bound]) -> Bound:
    """The bound of elementwise ``op`` on type ``t`` (a float type) over ``operands``."""
    k = ULPS.get(t.name, {}).get(op)
    if all(b.exact for b in operands):
        return BITS if k is None else Bound("ulps", ((k, t.name),))
    if op in ("negate", "abs", "copy", "maximum", "minimum", "clamp"):
        return join(t, *operands)
    return degraded(t)


def converted(src: ElementType, dst: ElementType, bound: Bound) -> Bound:
    """The bound of ``convert`` from ``src`` to ``dst``: rounding to a float type is monotone,
    so values ``k`` ulps of a type apart round to values ``ceil(k * 2^(p_dst - p_ref))`` ulps
    of ``dst`` apart, or keep their distance in the reference type when ``dst`` holds it."""
    if bound.exact:
        return BITS
    if bound.kind != "ulps" or not (src.is_float and dst.is_float):
        return degraded(dst)
    pairs = []
    for k, ref in bound.ulps:
        rt = dtypes.from_name(ref)
        if _precision(dst) >= _precision(rt):
            pairs.append((k, ref))
        else:
            pairs.append(
                (max(1, math.ceil(k * 2.0 ** (_precision(dst) - _precision(rt)))), dst.name)
            )
    return join(dst, Bound("ulps", tuple(pairs)))


def accumulated(
    kind: str, t: ElementType, terms: int, operand: Bound, companions: tuple[str, ...]
) -> Bound:
    """The bound of a float ``add``/``multiply`` accumulation of ``terms`` values of ``t`` in
    an unspecified order (``kind``: sum, dot or product)."""
    if operand.kind not in PRESERVING:
        return degraded(t)
    return Bound(kind, operand.ulps, terms, companions)


def _precision(t: ElementType) -> int:
    """Significand bits, the implicit one included."""
    return int(ml_dtypes.finfo(t.numpy).nmant) + 1


def _smallest(t: ElementType) -> float:
    return float(ml_dtypes.finfo(t.numpy).smallest_subnormal)


def _gamma(m: int, u: float) -> float:
    return math.inf if m * u >= 1 else m * u / (1 - m * u)


def _inputs_error(bound: Bound) -> float:
    """The relative error of the accumulated terms (``ulps`` inputs), in units of value."""
    return sum(k * 2.0 ** (1 - _precision(dtypes.from_name(ref))) for k, ref in bound.ulps)


def _ulp(x: np.ndarray, t: ElementType) -> np.ndarray:
    """One ulp of ``t`` at each |x| (float64): 2^(e - p + 1), subnormal spacing below."""
    info = ml_dtypes.finfo(t.numpy)
    e = np.floor(np.log2(np.maximum(np.abs(x), float(info.smallest_normal))))
    return np.exp2(e - _precision(t) + 1)


def _nan_agree(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.isnan(g) == np.isnan(w)


def within(
    bound: Bound, t: ElementType, got: np.ndarray, want: np.ndarray, scales: list[np.ndarray]
) -> np.ndarray:
    """Per element: whether ``got`` (cpu, as float64) is within ``bound`` of ``want``
    (interpreter); ``scales`` are the companion outputs (float64) the bound names."""
    with np.errstate(all="ignore"):  # infinities and NaNs are compared, not warned about
        return _within(bound, t, got, want, scales)


def _within(
    bound: Bound, t: ElementType, got: np.ndarray, want: np.ndarray, scales: list[np.ndarray]
) -> np.ndarray:
    g, w = got.astype(np.float64), want.astype(np.float64)
    big = float(ml_dtypes.finfo(t.numpy).max)
    if bound.kind == "ulps":
        ok = np.zeros(w.shape, bool)
        same_inf = np.isinf(g) & np.isinf(w) & (np.sign(g) == np.sign(w))
        for k, ref in bound.ulps:
            rt = dtypes.from_name(ref)
            both = np.isfinite(g) & np.isfinite(w)
            larger = np.where(both, np.maximum(np.abs(g), np.abs(w)), 0.0)
            near = both & (np.abs(g - w) <= k * _ulp(larger, rt))
            finite = np.where(np.isfinite(w), w, g)  # an overflow on one side only:
            finite = np.where(np.isfinite(finite), finite, 0.0)  # within k ulps of the top
            top = float(ml_dtypes.finfo(rt.numpy).max)
            overflow = (np.isinf(g) ^ np.isinf(w)) & (
                np.abs(finite) + k * _ulp(finite, rt) >= min(top, big)
            )
            ok |= near | overflow
        return _nan_agree(g, w) & (np.isnan(w) | same_inf | ok)
    if bound.kind == "unordered":
        return (g == w) | (np.isnan(g) & np.isnan(w))
    if bound.kind in ("sum", "dot"):
        u = 2.0 ** -_precision(t)
        c = 2 * _gamma(max(bound.terms - 1, 0), u) + 2 * u + _inputs_error(bound)
        s = scales[0] * (1 + 1e-12)
        tiny = _smallest(t) + sum(k * _smallest(dtypes.from_name(ref)) for k, ref in bound.ulps)
        limit = c * s + bound.terms * tiny  # subnormal terms' absolute errors
        checked = np.isfinite(s) & (s * (1 + c) < big)
        return np.where(np.isnan(s), np.isnan(g), ~checked | (np.abs(g - w) <= limit))
    if bound.kind == "product":
        u = 2.0 ** -_precision(t)
        c = 2 * _gamma(max(bound.terms - 1, 0), u) + _inputs_error(bound)
        high, low = scales
        info = ml_dtypes.finfo(t.numpy)
        checked = (high * (1 + c) < big) & (low >= float(info.smallest_normal) * (1 + c))
        return np.where(np.isnan(high), np.isnan(g), ~checked | (np.abs(g - w) <= c * np.abs(w)))
    if bound.kind == "loose":
        finite = np.isfinite(g) & np.isfinite(w)
        scale = np.max(np.abs(w[finite]), initial=0.0)
        return ~finite | (np.abs(g - w) <= LOOSE * scale)
    if bound.kind == "unchecked":
        return np.ones(w.shape, bool)
    raise ValueError(f"no check for bound {bound.kind}")
