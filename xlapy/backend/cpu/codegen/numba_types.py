"""The element types compiled kernels handle and how they are spelled in generated source:
the numpy scalar constructor (``np.float32``), the numba array type of a signature
(``float32[::1]``) and exact scalar literals.

pred, s8-s64, u8-u64, f32 and f64 compile; f16 and bf16 compile as their bit patterns
(uint16 arrays) with f32 values in between (``narrow.py``); every other type (f8, sub-byte
integers, complex) raises NoKernel, and the instruction runs in the interpreter.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType
from xlapy.ir.instruction import HloInstruction

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
    dtypes.F16,
    dtypes.BF16,
)
NARROW: tuple[ElementType, ...] = (dtypes.F16, dtypes.BF16)
"""Float types stored as 16-bit patterns and computed in f32."""

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
    dtypes.F16: "float32",
    dtypes.BF16: "float32",
}


def check(t: ElementType, where: str) -> None:
    """Raises NoKernel unless arrays of ``t`` compile (``where`` names the instruction)."""
    if t not in _NUMBA_NAMES:
        raise NoKernel(f"{where}: element type {t} is computed by the interpreter")


def check_static(instructions: Iterable[HloInstruction], where: str) -> None:
    """Raises NoKernel when one of ``instructions`` has a dynamic dimension (``?``, ``<=N``):
    generated kernels loop over static dims; such ops run the interpreter's evals, which size
    them from the values."""
    for instr in instructions:
        if not instr.shape.is_static:
            raise NoKernel(
                f"{where}: {instr.opcode.value} {instr.name} has dynamic dimensions "
                f"({instr.shape.to_hlo(layout=False)})"
            )


def ctor(t: ElementType) -> str:
    """The numpy scalar constructor that converts to ``t``'s value type in kernels
    (``np.int32``; ``np.float32`` for f16 and bf16); integer conversions in numba truncate,
    so ``np.int32(a + b)`` wraps like two's complement."""
    return "np.bool_" if t is dtypes.PRED else f"np.{_NUMBA_NAMES[t]}"


def array_type(t: ElementType) -> str:
    """The numba type of a flat C-contiguous array of ``t`` (``float32[::1]``; f16 and bf16
    arrays are passed as their uint16 patterns)."""
    return "uint16[::1]" if t in NARROW else f"{_NUMBA_NAMES[t]}[::1]"


def storage_dtype(t: ElementType) -> np.dtype:
    """The numpy dtype kernels receive and return arrays of ``t`` in."""
    return np.dtype(np.uint16) if t in NARROW else np.dtype(t.numpy)


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
    if t in NARROW:  # the f32 value: exact, and NaN patterns compared in f32
        scalar = scalar.astype(np.float32)
        t = dtypes.F32
    number = float(scalar)
    if math.isnan(number):
        default = np.array(np.nan, dtype=t.numpy)
        if scalar.tobytes() != default.tobytes():
            return None
        return f"{ctor(t)}(np.nan)"
    if math.isinf(number):
        return f"{ctor(t)}({'-' if number < 0 else ''}np.inf)"
    return f"{ctor(t)}({number!r})"
