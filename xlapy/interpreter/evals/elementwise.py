"""The elementwise op table machinery: a ``Row`` per op (its kernels per element-type
category) and the one generic eval that serves every row.

The rows themselves live in the family modules (``unary_math``, ``binary_arith``, ``bitwise``,
``compare_select``, ``special_functions``); ops with attributes or irregular typing
(compare, select, clamp, convert, bitcast-convert, reduce-precision) have their own evals that
reuse the helpers here. Numeric rules (compute dtypes, rounding, wrap-around, flushing) come
from ``xlapy.interpreter.numerics``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.interpreter import numerics
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.interpreter.numerics import Array
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

Kernel = Callable[..., Array]
"""pred kernels take bool arrays; integer kernels take ``(*values, t)`` with int64 (signed) or
uint64 (unsigned) value views and the element type; real/complex kernels take compute-dtype
arrays."""


@dataclass(frozen=True, slots=True)
class Row:
    """One elementwise op: a kernel per element-type category it accepts (None: rejected).

    Attributes:
        opcode: the op.
        pred, integer, real, complex: the kernels (see ``Kernel``).
        precise: real/complex kernels run in f64/c128 and round once to the result type
            (transcendental functions); otherwise they run in XLA's compute dtype (f32 for
            the narrow float types), where one more rounding to the storage type is exact.
        flush_operands: with ``flush_denormals``, the operands whose subnormals read as zeros
            (None: all; XLA:CPU's DAZ). Sign-bit operations (negate, abs) and data movement
            (real, imag, complex) flush nothing, as XLA:CPU does them on bits.
        flush_result: with ``flush_denormals``, subnormal results become zeros (FTZ).
    """

    opcode: Opcode
    pred: Kernel | None = None
    integer: Kernel | None = None
    real: Kernel | None = None
    complex: Kernel | None = None
    precise: bool = False
    flush_operands: tuple[int, ...] | None = None
    flush_result: bool = True

    def kernel(self, t: ElementType) -> Kernel | None:
        if t.is_pred:
            return self.pred
        if t.is_integer:
            return self.integer
        if t.is_float:
            return self.real
        if t.is_complex:
            return self.complex
        return None

    def accepted(self) -> str:
        names = ("pred", "integer", "float", "complex")
        kernels = (self.pred, self.integer, self.real, self.complex)
        return ", ".join(n for n, k in zip(names, kernels, strict=True) if k is not None)


def typeless(fn: Callable[..., Array]) -> Kernel:
    """An integer kernel that does not need the element type (``add``, ``multiply``)."""

    def kernel(*values_and_type: Array | ElementType) -> Array:
        return fn(*values_and_type[:-1])

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


def element_type(value: Value, instr: HloInstruction, position: int) -> ElementType:
    """The element type of operand ``position``; raises naming the op for non-arrays."""
    if not isinstance(value, np.ndarray):
        raise InvalidArgument(
            f"{instr.opcode.value} {instr.name}: operand {position} must be an array; "
            f"got {type(value).__name__}"
        )
    return dtypes.from_numpy(value.dtype)


def reject(instr: HloInstruction, t: ElementType, accepted: str) -> InvalidArgument:
    """The error for an element type the op does not accept."""
    return InvalidArgument(
        f"{instr.opcode.value} {instr.name}: element type {t} is not accepted "
        f"(accepts {accepted}); got {instr.shape.element_type}{list(instr.shape.dims)} result"
    )


def flush_enabled(ctx: Evaluator, t: ElementType) -> bool:
    return ctx.options.flush_denormals and (t.is_float or t.is_complex)


def prepare(
    operands: Sequence[Array],
    types: Sequence[ElementType],
    precise: bool,
    flush: bool | Sequence[int],
) -> list[Array]:
    """Operands as kernel inputs: bools, integer value views, or floats in the compute dtype
    (with subnormals flushed when ``flush`` is True or lists the operand's position)."""
    out = []
    for position, (x, t) in enumerate(zip(operands, types, strict=True)):
        if t.is_pred:
            out.append(np.asarray(x, np.bool_))
        elif t.is_integer:
            out.append(numerics.int_values(x, t))
        else:
            values = numerics.to_compute(x, t, precise)
            flushed = flush is True or (not isinstance(flush, bool) and position in flush)
            out.append(numerics.flush_subnormals(values, t) if flushed else values)
    return out


def finish(values: Array, result: ElementType, flush: bool, shape: Sequence[int]) -> Array:
    """Kernel output as a fresh array of ``result``'s storage dtype and ``shape``:
    bools for pred, wrapped integers, or floats rounded once (and optionally flushed)."""
    values = np.asarray(values)
    if result.is_pred:
        out = values.astype(np.bool_)
    elif result.is_integer:
        out = numerics.wrap(values, result)
    else:
        out = numerics.round_to(values, result)
        if flush:
            out = numerics.flush_storage(out, result)
    return np.array(np.broadcast_to(out, tuple(shape)), dtype=result.numpy)


def apply(
    ctx: Evaluator,
    instr: HloInstruction,
    kernel: Kernel,
    operands: Sequence[Array],
    types: Sequence[ElementType],
    *,
    precise: bool = False,
    flush_operands: Sequence[int] | None = None,
    flush_result: bool = True,
) -> Array:
    """Runs ``kernel`` on ``operands`` (all of category ``types[0]``) and finishes the result
    as ``instr.shape``'s element type."""
    t = types[0]
    flush = flush_enabled(ctx, t)
    which: bool | Sequence[int] = flush and (True if flush_operands is None else flush_operands)
    inputs = prepare(operands, types, precise, which)
    result = instr.shape.element_type
    with np.errstate(all="ignore"):
        values = call(kernel, t, *inputs)
        shape = np.broadcast_shapes(*(np.shape(x) for x in operands))
        return finish(values, result, flush and flush_result and not result.is_pred, shape)


def bind(
    row: Row, types: Sequence[ElementType], result: ElementType, flush: bool
) -> Callable[..., Array] | None:
    """``row``'s op on arrays of ``types`` (real or complex, all of category ``types[0]``)
    with its rules settled once, computing what ``apply`` computes: each operand in its
    compute dtype (f64/c128 for a precise row) and, with ``flush``, flushed where the row reads
    operands flushed; the kernel; the result rounded once to ``result`` and, with ``flush``,
    flushed where the row flushes results. Without ``apply``'s per-call dispatch, broadcast
    and final copy: the result has the operands' broadcast shape and may be one of them or a
    view of one. None where the row has no kernel for ``types[0]``."""
    t = types[0]
    kernel = row.kernel(t)
    if kernel is None:
        return None
    flushed = [flush and (row.flush_operands is None or i in row.flush_operands) for i in range(len(types))]  # fmt: skip
    compute = [numerics.precise_dtype(u) if row.precise else numerics.compute_dtype(u) for u in types]  # fmt: skip
    storage = np.dtype(result.numpy)
    flush_result = flush and row.flush_result and not result.is_pred

    def run(*arrays: Array) -> Array:
        inputs = []
        for a, u, dtype, flush_x in zip(arrays, types, compute, flushed, strict=True):
            a = a if a.dtype == dtype else a.astype(dtype)
            inputs.append(numerics.flush_subnormals(a, u) if flush_x else a)
        with np.errstate(all="ignore"):
            got = np.asarray(call(kernel, t, *inputs))
            out = got if got.dtype == storage else numerics.round_to(got, result)
            return numerics.flush_storage(out, result) if flush_result else out

    return run


def call(kernel: Kernel, t: ElementType, *inputs: Array) -> Array:
    """Calls ``kernel`` on prepared inputs of category ``t`` (integer kernels get ``t`` last)."""
    return kernel(*inputs, t) if t.is_integer else kernel(*inputs)


ROWS: dict[Opcode, Row] = {}
"""Every registered row by opcode (the ``cpu`` platform's whole-array kernels reuse them)."""


def register(*rows: Row) -> None:
    """Registers the generic eval of every row."""
    for row in rows:
        ROWS[row.opcode] = row
        evaluates(row.opcode)(_make_eval(row))


def _make_eval(row: Row) -> Callable[[Evaluator, HloInstruction, list[Value]], Value]:
    def evaluate(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
        types = [element_type(v, instr, i) for i, v in enumerate(operands)]
        kernel = row.kernel(types[0])
        if kernel is None:
            raise reject(instr, types[0], row.accepted())
        arrays: list[Array] = [np.asarray(v) for v in operands]
        return apply(
            ctx,
            instr,
            kernel,
            arrays,
            types,
            precise=row.precise,
            flush_operands=row.flush_operands,
            flush_result=row.flush_result,
        )

    evaluate.__name__ = f"eval_{row.opcode.name.lower()}"
    evaluate.__doc__ = f"Generic elementwise eval of {row.opcode.value} (see its Row)."
    return evaluate


def make_complex(real: Array, imag: Array) -> Array:
    """``real + i*imag`` without arithmetic (so infinities and NaNs stay in their part)."""
    real, imag = np.broadcast_arrays(np.asarray(real), np.asarray(imag))
    dtype = np.result_type(real.dtype, imag.dtype, np.complex64)
    out = np.empty(real.shape, dtype)
    out.real = real
    out.imag = imag
    return out


def where(condition: Array, x: Any, y: Any) -> Array:
    """``np.where`` that keeps 0-d results as arrays."""
    return np.asarray(np.where(condition, x, y))
