"""The quick tier's scans of one-op reducers (``op(p0, p1)`` or ``op(p1, p0)`` with op one of
add, multiply, maximum, minimum, and, or, xor) as numpy accumulates over the whole array,
instead of one interpreter call of the reducer per step: the bits of the compiled scan
(``codegen/scan_emitter.py``, whose docstring gives the order: forward ``acc = f(acc, x[k])``
from ``init``; reversed ``R[k] = f(x[k], R[k+1])``, then ``f(f(init, R[k]), init)``).

* Integers of a native numpy width and pred: every step is exact (integers wrap), so any
  grouping gives the scan's bits: ``init op accumulate(x)``, reversed with ``init`` on both
  sides.
* Float add and multiply (f16, bf16, f32, f64): numpy's accumulate makes the scan's steps in
  its order, each computed in f32 or wider and rounded once to the element type (numpy's
  f16 loops and ml_dtypes' bf16 loops, as the interpreter's compute dtype); the step's operand
  order decides only which payload the NaN of two NaN operands keeps, so inputs holding a NaN
  are left to the stepwise scan.
* Float maximum and minimum: a running integer max/min of keys ordering the bits as
  ``maximum_real``/``minimum_real`` do (-0 below +0), then the NaN the scan keeps: the first
  in its processing order when the accumulator is the reducer's first operand (its NaN wins),
  else the last; f16 and bf16 NaNs pass through f32 as the step does (bf16's become
  canonical: sign and quiet bit).

Floats under ``flush_denormals`` (each step flushes) and other types take the stepwise scan.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.codegen.scan_rules import reducer_op
from xlapy.interpreter.evals.reduce import REDUCER_UFUNCS
from xlapy.interpreter.numerics import order_keys
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array

Accumulate = Callable[[Array, Array], Array | None]
"""``(x, init) -> scan`` (a fresh C-contiguous array), or None: the stepwise scan's case."""

PRED_UFUNCS = {
    Opcode.ADD: np.logical_or,
    Opcode.MULTIPLY: np.logical_and,
    Opcode.MAXIMUM: np.logical_or,
    Opcode.MINIMUM: np.logical_and,
    Opcode.AND: np.logical_and,
    Opcode.OR: np.logical_or,
    Opcode.XOR: np.logical_xor,
}
FLOATS = (dtypes.F16, dtypes.BF16, dtypes.F32, dtypes.F64)


def accumulate(
    instr: HloInstruction, axis: int, reverse: bool, flush_denormals: bool
) -> Accumulate | None:
    """The numpy form of the scan ``instr`` along ``axis``, None where it has none."""
    op = reducer_op(instr)
    if op is None or op not in REDUCER_UFUNCS:
        return None
    t = instr.shape.element_type
    dtype = t.numpy
    if t.is_pred:
        return _exact(PRED_UFUNCS[op], axis, reverse)
    if t.is_integer and dtype is not None and dtype.itemsize * 8 == t.bits:
        return _exact(REDUCER_UFUNCS[op], axis, reverse)
    if t not in FLOATS or flush_denormals:
        return None
    if op in (Opcode.ADD, Opcode.MULTIPLY):
        return _rounded(REDUCER_UFUNCS[op], axis, reverse)
    if op in (Opcode.MAXIMUM, Opcode.MINIMUM):
        root = instr.attrs.to_apply.root
        acc_first = root.operands[0].parameter_number == 0  # f(acc, x), not f(x, acc)
        return _ordered(REDUCER_UFUNCS[op], axis, reverse, acc_first)
    return None


def _at(axis: int, k: int | slice) -> tuple[slice | int, ...]:
    """The index of position(s) ``k`` along ``axis``."""
    return (*(slice(None),) * axis, k)


def _finish(ufunc: np.ufunc, scanned: Array, init: Array, axis: int, reverse: bool) -> Array:
    """``f(init, R)``, then ``f(., init)`` at every reversed output but the first."""
    out: Array = ufunc(init, scanned)
    if reverse:
        tail = out[_at(axis, slice(1, None))]
        ufunc(tail, init, out=tail)
    return out


def _exact(ufunc: np.ufunc, axis: int, reverse: bool) -> Accumulate:
    """Integer and pred scans, exact in any grouping."""

    def run(x: Array, init: Array) -> Array:
        if reverse:
            scanned = np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
        else:
            scanned = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
        return np.ascontiguousarray(_finish(ufunc, scanned, init, axis, reverse))

    return run


def _rounded(ufunc: np.ufunc, axis: int, reverse: bool) -> Accumulate:
    """Float sums and products: the scan's steps in its order, without NaN operands."""

    def run(x: Array, init: Array) -> Array | None:
        if np.isnan(init) or np.isnan(x).any():
            return None
        with np.errstate(all="ignore"):  # overflow and inf - inf as the steps make them
            return scan(x, init)

    def scan(x: Array, init: Array) -> Array:
        if reverse:
            scanned = np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
            return np.ascontiguousarray(_finish(ufunc, scanned, init, axis, reverse))
        out = np.array(x)
        first = out[_at(axis, 0)]
        ufunc(init, first, out=first)
        return ufunc.accumulate(out, axis=axis, out=out)

    return run


def _ordered(ufunc: np.ufunc, axis: int, reverse: bool, acc_first: bool) -> Accumulate:
    """Float maxima and minima: running extremes of the keys, then the NaN the scan keeps
    (from the first NaN in processing order on, when the accumulator's NaN wins; else the
    latest NaN so far)."""
    first_wins = acc_first != reverse  # reversed, the element is the left operand

    def run(x: Array, init: Array) -> Array | None:
        if np.isnan(init):
            return None
        steps = np.flip(x, axis) if reverse else x  # in processing order
        keys = order_keys(steps)
        start = order_keys(np.asarray(init))
        nans = np.isnan(steps)
        any_nan = bool(nans.any())
        if any_nan:
            keys[nans] = start  # neutral: every output combines init
        scanned = ufunc.accumulate(keys, axis=axis, out=keys)
        ufunc(scanned, start, out=scanned)
        out = order_keys(scanned).view(x.dtype)
        if any_nan:
            n = steps.shape[axis]
            where = np.arange(n).reshape((n, *(1,) * (steps.ndim - axis - 1)))
            if first_wins:
                taken = np.minimum.accumulate(np.where(nans, where, n), axis=axis)
                found = taken < n
            else:
                taken = np.maximum.accumulate(np.where(nans, where, -1), axis=axis)
                found = taken >= 0
            picked = np.take_along_axis(steps, np.clip(taken, 0, n - 1), axis=axis)
            if x.dtype.itemsize == 2:  # as the interpreter's f32 step: bf16 NaNs canonical
                with np.errstate(invalid="ignore"):
                    picked = picked.astype(np.float32).astype(x.dtype)
            out = np.where(found, picked, out)
        return np.ascontiguousarray(np.flip(out, axis) if reverse else out)

    return run
