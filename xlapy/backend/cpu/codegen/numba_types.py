"""The element types compiled kernels handle and how they are spelled in generated source:
the numpy scalar constructor (``np.float32``), the numba array type of a signature
(``float32[::1]``) and exact scalar literals.

pred, s8-s64, u8-u64, f32 and f64 compile; every other type (f16, bf16, f8, sub-byte
integers, complex) raises NoKernel, and the instruction runs in the interpreter.
"""

from __future__ import annotations

import math

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType

COMPILED: tuple[ElementType, ...] = (
    dtypes.PRED,
    dtypes.S8,
    dtypes.S16,
    dtypes.S32,
    dtypes.S64,
    dtypes.U8,
    dtypes.U16,
    dtypes.U32,
    dtypes.U64,
    dtypes.F32,
    dtypes.F64,
)

_NUMBA_NAMES = {
    dtypes.PRED: "boolean",
    dtypes.S8: "int8",
    dtypes.S16: "int16",
    dtypes.S32: "int32",
    dtypes.S64: "int64",
    dtypes.U8: "uint8",
    dtypes.U16: "uint16",
    dtypes.U32: "uint32",
    dtypes.U64: "uint64",
    dtypes.F32: "float32",
    dtypes.F64: "float64",
}


def check(t: ElementType, where: str) -> None:
    """Raises NoKernel unless arrays of ``t`` compile (``where`` names the instruction)."""
    if t not in _NUMBA_NAMES:
        raise NoKernel(f"{where}: element type {t} is computed by the interpreter")


def ctor(t: ElementType) -> str:
    """The numpy scalar constructor that converts to ``t`` (``np.int32``); integer
    conversions in numba truncate, so ``np.int32(a + b)`` wraps like two's complement."""
    return "np.bool_" if t is dtypes.PRED else f"np.{_NUMBA_NAMES[t]}"


def array_type(t: ElementType) -> str:
    """The numba type of a flat C-contiguous array of ``t`` (``float32[::1]``)."""
    return f"{_NUMBA_NAMES[t]}[::1]"


def unsigned_ctor(t: ElementType) -> str:
    """The constructor of the unsigned type of ``t``'s width (pred counts as 8 bits)."""
    return f"np.uint{t.bits}"


def signed_ctor(t: ElementType) -> str:
    """The constructor of the signed type of ``t``'s width."""
    return f"np.int{t.bits}"


def literal(value: object, t: ElementType) -> str | None:
    """Exact source for the scalar ``value`` of type ``t``, or None when no literal spells it
    (a NaN with a payload other than the default quiet NaN: pass it as an array instead)."""
    if t is dtypes.PRED:
        return "True" if bool(value) else "False"
    if t.is_integer:
        return f"{ctor(t)}({int(value)})"  # type: ignore[call-overload]
    scalar = np.array(value, dtype=t.numpy)
    number = float(scalar)
    if math.isnan(number):
        default = np.array(np.nan, dtype=t.numpy)
        if scalar.tobytes() != default.tobytes():
            return None
        return f"{ctor(t)}(np.nan)"
    if math.isinf(number):
        return f"{ctor(t)}({'-' if number < 0 else ''}np.inf)"
    return f"{ctor(t)}({number!r})"
