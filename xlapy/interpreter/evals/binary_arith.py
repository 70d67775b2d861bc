"""Binary arithmetic ops (add .. remainder, maximum, minimum, power, atan2, complex, mulhi) as
table rows.

Spec: stablehlo#add and the following binary ops; XLA operation semantics A.16. Integers wrap;
integer division follows XLA (``intmath``); float +, -, *, /, fmod are computed in XLA's
compute dtype and rounded once; power and atan2 in f64/c128.
"""

from __future__ import annotations

import numpy as np

from xlapy.interpreter import intmath
from xlapy.interpreter.evals.elementwise import Row, make_complex, register, typeless, where
from xlapy.interpreter.numerics import Array
from xlapy.ir.opcode import Opcode


def maximum_real(x: Array, y: Array) -> Array:
    """IEEE-754 maximum: NaN if either operand is NaN, and ``max(-0, +0) = +0``."""
    pick_x = (x > y) | ((x == y) & ~np.signbit(x))
    return where(np.isnan(x), x, where(np.isnan(y), y, where(pick_x, x, y)))


def power_real(x: Array, y: Array) -> Array:
    """``x ** y`` as C's ``pow`` (XLA:CPU's): ``pow(-inf, 0.5) = +inf``. numpy's 0-d path
    gives NaN there (its array path does not), so 0-d operands run as 1-element arrays."""
    if np.ndim(x) == 0 and np.ndim(y) == 0:
        return np.power(np.reshape(x, 1), np.reshape(y, 1)).reshape(())
    return np.power(x, y)


def minimum_real(x: Array, y: Array) -> Array:
    """IEEE-754 minimum: NaN if either operand is NaN, and ``min(-0, +0) = -0``."""
    pick_x = (x < y) | ((x == y) & np.signbit(x))
    return where(np.isnan(x), x, where(np.isnan(y), y, where(pick_x, x, y)))


def maximum_complex(x: Array, y: Array) -> Array:
    """Lexicographic on (real, imag); ``y`` unless ``x`` is greater (as XLA)."""
    greater = (x.real > y.real) | ((x.real == y.real) & (x.imag > y.imag))
    return where(greater, x, y)


def minimum_complex(x: Array, y: Array) -> Array:
    """Lexicographic on (real, imag); ``y`` unless ``x`` is less (as XLA)."""
    less = (x.real < y.real) | ((x.real == y.real) & (x.imag < y.imag))
    return where(less, x, y)


def atan2_complex(y: Array, x: Array) -> Array:
    """``-i * log((x + i*y) / sqrt(x*x + y*y))`` (stablehlo#atan2 for complex operands)."""
    return np.asarray(-1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y)))


MAXIMUM = Row(
    Opcode.MAXIMUM,
    pred=np.logical_or,
    integer=typeless(np.maximum),
    real=maximum_real,
    complex=maximum_complex,
)
MINIMUM = Row(
    Opcode.MINIMUM,
    pred=np.logical_and,
    integer=typeless(np.minimum),
    real=minimum_real,
    complex=minimum_complex,
)

register(
    Row(Opcode.ADD, pred=np.logical_or, integer=typeless(intmath.add), real=np.add, complex=np.add),
    Row(Opcode.SUBTRACT, integer=typeless(intmath.subtract), real=np.subtract, complex=np.subtract),
    Row(
        Opcode.MULTIPLY,
        pred=np.logical_and,
        integer=typeless(intmath.multiply),
        real=np.multiply,
        complex=np.multiply,
    ),
    Row(Opcode.DIVIDE, integer=intmath.divide, real=np.divide, complex=np.divide),
    # XLA:CPU's fmod works on the bits of the dividend; only a subnormal divisor reads as 0.
    Row(
        Opcode.REMAINDER,
        integer=intmath.remainder,
        real=np.fmod,
        flush_operands=(1,),
        flush_result=False,
    ),
    MAXIMUM,
    MINIMUM,
    # XLA:CPU's pow works on the bits of its operands (DAZ does not reach them); the result
    # is flushed (oracle_findings.md F2).
    Row(
        Opcode.POWER,
        integer=intmath.power,
        real=power_real,
        complex=np.power,
        precise=True,
        flush_operands=(),
    ),
    Row(Opcode.ATAN2, real=np.arctan2, complex=atan2_complex, precise=True),
    Row(Opcode.COMPLEX, real=make_complex, flush_operands=(), flush_result=False),
    Row(Opcode.MULHI, integer=intmath.mulhi),
)
