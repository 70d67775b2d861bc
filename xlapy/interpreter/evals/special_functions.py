"""Special functions: erf and the CHLO extension ops (erf-inv, erfc, lgamma, digamma,
bessel-i1e, polygamma, zeta, igamma, igammac, next-after).

Spec: XLA operation semantics Erf; CHLO ``chlo.erf_inv`` .. ``chlo.next_after`` (decomposed by
XLA, evaluated here directly with scipy.special in f64 and rounded once to the result type).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xlapy.interpreter.evals.elementwise import Row, element_type, register, reject, where
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.interpreter.numerics import Array
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value


def _special(name: str) -> Callable[..., Array]:
    """``scipy.special.<name>``, imported on first use (scipy.special costs ~0.3 s to import,
    which every ``xlapy.run`` and compile would pay at start-up)."""
    import scipy.special

    function: Callable[..., Array] = getattr(scipy.special, name)
    return function


def erf_inv(x: Array) -> Array:
    """Inverse error function; odd, so ``erf_inv(-0.0) = -0.0`` (scipy gives +0.0)."""
    return where(x == 0, x, _special("erfinv")(x))


def lgamma(x: Array) -> Array:
    """``log|Gamma(x)|`` with C99's ``lgamma(+-inf) = +inf`` (scipy gives -inf at -inf) and
    ``-log|x|`` for |x| below the smallest normal f64 (scipy overflows there; the next term,
    Euler's gamma times x, is below half an ulp)."""
    tiny = np.finfo(np.float64).tiny
    magnitude = np.abs(x)
    with np.errstate(divide="ignore"):
        small = -np.log(where(magnitude == 0, 1.0, magnitude))
    values = where((magnitude < tiny) & (magnitude != 0), small, _special("gammaln")(x))
    return where(np.isinf(x), np.inf, values)


def digamma(x: Array) -> Array:
    """``psi(x)``; NaN at every pole 0, -0, -1, -2, ... as CHLO's decomposition (the definition
    of chlo.digamma, run by XLA and the reference interpreter) gives (scipy gives -+inf at +-0)."""
    return where(x == 0, np.nan, _special("psi")(x))


def polygamma(n: Array, x: Array) -> Array:
    """The n-th derivative of digamma at x; NaN unless n is a non-negative integer."""
    integral = (n == np.floor(n)) & (n >= 0)
    order = where(integral, n, 0).astype(np.int64)
    values = where(order == 0, digamma(x), _special("polygamma")(order, x))
    return where(integral, values, np.nan)


def zeta(x: Array, q: Array) -> Array:
    """Hurwitz zeta ``sum_k (k + q) ** -x``; NaN for x < 1 as in XLA's CHLO expansion."""
    return where(x < 1, np.nan, _special("zeta")(x, q))


def igamma(a: Array, x: Array) -> Array:
    """Regularized lower incomplete gamma P(a, x); NaN outside a > 0, x >= 0."""
    return where((a > 0) & (x >= 0), _special("gammainc")(a, x), np.nan)


def igammac(a: Array, x: Array) -> Array:
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x); NaN outside a > 0, x >= 0."""
    return where((a > 0) & (x >= 0), _special("gammaincc")(a, x), np.nan)


def _erf(x: Array) -> Array:
    return _special("erf")(x)


def _erfc(x: Array) -> Array:
    return _special("erfc")(x)


def _i1e(x: Array) -> Array:
    return _special("i1e")(x)


register(
    Row(Opcode.ERF, real=_erf, precise=True),
    Row(Opcode.ERF_INV, real=erf_inv, precise=True),
    Row(Opcode.ERFC, real=_erfc, precise=True),
    Row(Opcode.LGAMMA, real=lgamma, precise=True),
    Row(Opcode.DIGAMMA, real=digamma, precise=True),
    Row(Opcode.BESSEL_I1E, real=_i1e, precise=True),
    Row(Opcode.POLYGAMMA, real=polygamma, precise=True),
    Row(Opcode.ZETA, real=zeta, precise=True),
    Row(Opcode.IGAMMA, real=igamma, precise=True),
    Row(Opcode.IGAMMAC, real=igammac, precise=True),
)


@evaluates(Opcode.NEXT_AFTER)
def next_after(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The representable value of the element type next to ``x`` in the direction of ``y``
    (``y`` if equal, NaN if either is NaN); computed on the storage type itself."""
    t = element_type(operands[0], instr, 0)
    if not t.is_float:
        raise reject(instr, t, "float")
    x, y = np.asarray(operands[0]), np.asarray(operands[1])
    with np.errstate(all="ignore"):
        return np.array(np.nextafter(x, y), dtype=t.numpy)
