"""Compiled ``sort`` for recognised comparators: a stable LSD radix argsort (numba,
``radix``) on integer keys derived from the sort key, then the operands gathered in that
order; one operand whose key is one-to-one on its bits sorts its encoded keys in place in the
result buffer instead. On the quick tier (no numba) it takes numpy's stable argsort of the
same keys (``sort_keys``): the unique stable order, so the same bits. ``topk`` is in
``topk.py``.

Recognised comparators are lexicographic chains of one-key comparisons,
``compare(f(p[2k]), f(p[2k+1]))`` with direction LT/GT, where ``f`` is an element-wise
function of its parameter alone (identity, or jax's canonicalisation of NaN and -0), joined
as ``or(lt_0, and(eq_0, lt_1 ...))``. Any other comparator stays on the interpreter's eval.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    generating,
    kernel_for,
)
from xlapy.backend.cpu.kernels.sort_keys import SIGNED, TOTAL_ORDER, UNSIGNED, argsort_numpy
from xlapy.dtypes import ElementType
from xlapy.interpreter.evals.compare_select import default_comparison_type
from xlapy.interpreter.evals.elementwise import prepare
from xlapy.interpreter.evaluator import Evaluator, evaluator_for
from xlapy.interpreter.numerics import total_order_key
from xlapy.ir.attrs import ComparisonDirection, ComparisonType
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.literal import Array, Value

# ---- comparator recognition ----------------------------------------------------------------


@dataclass(frozen=True)
class SortKey:
    """One comparison of a lexicographic comparator: operand ``operand`` through the
    element-wise function rooted at ``expr`` (a parameter for the identity), compared with
    ``ctype`` (None: the default of its type), ascending or descending."""

    operand: int
    expr: HloInstruction
    parameter: int
    descending: bool
    ctype: ComparisonType | None


def _single_parameter(x: HloInstruction) -> int | None:
    """The one parameter an element-wise scalar expression reads, or None (several, none, or
    a non-element-wise op)."""
    used: set[int] = set()

    def walk(y: HloInstruction) -> bool:
        if y.opcode is Opcode.PARAMETER:
            used.add(y.parameter_number)
            return True
        if y.opcode is Opcode.CONSTANT:
            return y.shape.is_array and y.shape.rank == 0
        if Trait.ELEMENTWISE not in y.opdef.traits or not y.shape.is_array or y.shape.rank:
            return False
        return all(walk(o) for o in y.operands)

    return used.pop() if walk(x) and len(used) == 1 else None


def _same_function(x: HloInstruction, y: HloInstruction, px: int, py: int) -> bool:
    """``x`` computes from parameter ``px`` what ``y`` computes from ``py`` (same ops, attrs,
    types and constants)."""
    if x.opcode is Opcode.PARAMETER or y.opcode is Opcode.PARAMETER:
        return (
            x.opcode is y.opcode is Opcode.PARAMETER
            and x.parameter_number == px
            and y.parameter_number == py
        )
    if x is y and (px == py or x.opcode is Opcode.CONSTANT):
        return True  # one node reading the same parameter (or none)
    return (
        x.opcode is y.opcode
        and x.shape == y.shape
        and x.attrs == y.attrs
        and len(x.operands) == len(y.operands)
        and all(_same_function(a, b, px, py) for a, b in zip(x.operands, y.operands, strict=True))
    )


def _one_key(compare: HloInstruction, direction: ComparisonDirection) -> SortKey | None:
    """The key of ``compare(f(p[a]), f(p[b]))`` with this direction (``a``, ``b`` the two
    parameters of one operand), or None. ``compare(f(p[2k+1]), f(p[2k]))`` is descending."""
    if compare.opcode is not Opcode.COMPARE or compare.attrs.direction is not direction:
        return None
    lhs, rhs = compare.operands
    a, b = _single_parameter(lhs), _single_parameter(rhs)
    if a is None or b is None or a == b or a // 2 != b // 2:
        return None
    if not _same_function(lhs, rhs, a, b):
        return None
    return SortKey(a // 2, lhs, a, a % 2 == 1, compare.attrs.type)


def _same_key(first: SortKey, second: SortKey) -> bool:
    return (
        first.operand == second.operand
        and first.ctype == second.ctype
        and _same_function(first.expr, second.expr, first.parameter, second.parameter)
    )


def _strict(x: HloInstruction) -> SortKey | None:
    """``lt(k)`` (ascending) or ``gt(k)`` (descending) as a key."""
    for direction, gt in ((ComparisonDirection.LT, False), (ComparisonDirection.GT, True)):
        key = _one_key(x, direction)
        if key is not None:
            return SortKey(key.operand, key.expr, key.parameter, key.descending != gt, key.ctype)
    return None


def _chain(x: HloInstruction) -> list[SortKey] | None:
    """``strict(k)`` is ``[k]``; ``or(strict(k), and(eq(k), rest))`` is ``[k, *chain(rest)]``."""
    key = _strict(x)
    if key is not None:
        return [key]
    if x.opcode is not Opcode.OR or x.operands[1].opcode is not Opcode.AND:
        return None
    key = _strict(x.operands[0])
    equal = _one_key(x.operands[1].operands[0], ComparisonDirection.EQ)
    if key is None or equal is None or not _same_key(key, equal):
        return None
    tail = _chain(x.operands[1].operands[1])
    return None if tail is None else [key, *tail]


def recognise(comp: HloComputation) -> list[SortKey] | None:
    """The keys of a lexicographic comparator, most significant first, or None (jax's
    ``lax.sort(..., num_keys=n)`` gives such chains; ``jnp.sort`` a one-key comparator whose
    ``f`` maps every NaN to one NaN and -0 to +0)."""
    if any(not p.shape.is_array or p.shape.rank for p in comp.parameters):
        return None
    return _chain(comp.root)


# ---- sort keys at run time -----------------------------------------------------------------


def _key_bits(
    key: SortKey, t: ElementType, values: Array, flush: bool
) -> tuple[Array, int, int] | None:
    """``(raw bits, width, encoding)`` of the key values ``values`` (of type ``t``), or None
    when the comparison is not a strict weak order on them (FLOAT compare with a NaN)."""
    ctype = key.ctype or default_comparison_type(t)
    if t.is_float and ctype is ComparisonType.TOTALORDER:
        if t.bits == 8 * values.dtype.itemsize and t is not dtypes.F8E8M0FNU:
            return (
                np.ascontiguousarray(values).view(f"u{values.dtype.itemsize}"),
                t.bits,
                TOTAL_ORDER,
            )
        return total_order_key(values, t).view(np.uint64), 64, SIGNED
    if t.is_float:
        (compute,) = prepare([values], [t], False, flush)
        if np.isnan(compute).any():
            return None
        compute = compute + compute.dtype.type(0)  # -0 -> +0: FLOAT compares them equal
        return compute.view(f"u{compute.dtype.itemsize}"), 8 * compute.dtype.itemsize, TOTAL_ORDER
    if t.is_pred:
        return values.view(np.uint8), 8, UNSIGNED
    mode = SIGNED if t.is_signed else UNSIGNED
    if t.bits == 8 * values.dtype.itemsize:
        return values.view(f"u{values.dtype.itemsize}"), t.bits, mode
    wide = values.astype(np.int64 if t.is_signed else np.uint64)
    return wide.view(np.uint64), 64, mode


def _check_key(key: SortKey, flush: bool) -> ElementType:
    """The compared element type of a key; NoKernel for keys not handled here."""
    t = key.expr.shape.element_type
    ctype = key.ctype or default_comparison_type(t)
    if t.is_complex:
        raise NoKernel(f"complex sort key ({t})")
    if t.is_float and ctype not in (ComparisonType.TOTALORDER, ComparisonType.FLOAT):
        raise NoKernel(f"{t} key compared as {ctype.name}")
    if not t.is_float and ctype is not default_comparison_type(t):
        raise NoKernel(f"{t} key compared as {ctype.name}")
    if flush and t.is_float and key.expr.opcode is not Opcode.PARAMETER:
        raise NoKernel("key function under flush_denormals")
    return t


def _key_values(key: SortKey, line: Array, evaluator: Evaluator) -> Array:
    """``f(line)``: the key's element-wise function applied to a whole 2-D line array by the
    interpreter's element-wise evals (constants broadcast)."""
    if key.expr.opcode is Opcode.PARAMETER:
        return line
    return np.asarray(_evaluated(key.expr, line, evaluator, {}))


def _evaluated(
    x: HloInstruction, line: Array, evaluator: Evaluator, env: dict[int, Value]
) -> Value:
    """The value of the scalar expression ``x`` over ``line``, each node once (``env``). A
    plain recursive function: a self-referencing closure would form a cycle that keeps every
    intermediate array alive until the garbage collector runs."""
    if id(x) not in env:
        if x.opcode is Opcode.PARAMETER:
            env[id(x)] = line
        else:
            operands = [_evaluated(o, line, evaluator, env) for o in x.operands]
            env[id(x)] = evaluator_for(x.opcode)(evaluator, x, operands)
    return env[id(x)]


def _one_to_one(key: SortKey, t: ElementType, operand: ElementType) -> tuple[int, int] | None:
    """``(width, encoding)`` when the key's order, read on the operand's raw bits, is a total
    order in which equal keys have equal bits (floats in TOTALORDER, integers, pred stored in
    their full width) and the key function keeps the operand's type; else None."""
    if t is not operand or t.numpy is None:
        return None
    width = 8 * t.numpy.itemsize
    if t.is_pred:
        return width, UNSIGNED
    if t.bits != width or t is dtypes.F8E8M0FNU:
        return None
    if t.is_float:
        ctype = key.ctype or default_comparison_type(t)
        return (width, TOTAL_ORDER) if ctype is ComparisonType.TOTALORDER else None
    return width, SIGNED if t.is_signed else UNSIGNED


# Elements per call of a key function when checking it leaves a line unchanged.
_CHUNK = 1 << 16


def _keeps_bits(key: SortKey, line: Array, evaluator: Evaluator) -> bool:
    """The key function returns every element of ``line`` bit for bit (the identity, or jax's
    canonicalisation on a line with no NaN and no -0), evaluated a chunk at a time so its
    temporaries stay small."""
    if key.expr.opcode is Opcode.PARAMETER:
        return True
    flat = line.reshape(-1)
    raw = f"u{flat.dtype.itemsize}"
    for start in range(0, flat.size, _CHUNK):
        part = flat[start : start + _CHUNK].reshape(1, -1)
        values = _key_values(key, part, evaluator)
        if values.dtype != part.dtype or not np.array_equal(values.view(raw), part.view(raw)):
            return False
    return True


# ---- the kernel ----------------------------------------------------------------------------


@kernel_for(Opcode.SORT, priority=10)
def sort_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Sort with a recognised comparator: the stable order of the keys (the last key first,
    then each more significant key stably, LSD), every operand gathered in it.

    Spec: OPS.md Sort (stable for every comparator here). Bit-identical to the interpreter:
    both produce the unique stable order of a strict weak order; a FLOAT comparison that
    meets a NaN at run time (not a strict weak order) runs the interpreter's eval instead.
    """
    keys = recognise(instr.attrs.to_apply)
    if keys is None:
        raise NoKernel("comparator is not a chain of LT/GT comparisons of one operand's keys")
    if any(not o.shape.is_array or not o.shape.is_static for o in instr.operands):
        raise NoKernel("non-array or dynamic operands")
    if any(k.operand >= len(instr.operands) for k in keys):
        raise NoKernel("comparator parameters do not match the operands")
    flush = options.flush_denormals
    types = [_check_key(k, flush) for k in keys]
    dims = instr.operands[0].shape.dims
    rank = len(dims)
    (dimension,) = instr.attrs.dimensions
    if not -rank <= dimension < rank:
        raise NoKernel("dimension out of range (the interpreter reports it)")
    dimension %= max(rank, 1)
    counts = [_counts_along(o, dimension) for o in instr.operands]
    plain = (
        _one_to_one(keys[0], types[0], instr.operands[0].shape.element_type)
        if len(keys) == 1 and len(instr.operands) == 1
        else None
    )
    started = time.perf_counter()
    argsort = argsort_numpy
    if generating():
        from xlapy.backend.cpu.kernels import radix

        argsort, sort_bits = radix.stable_argsort, radix.sort_bits
        _type_sorts(keys, types, plain, dims, dimension, flush)
    else:  # the quick tier: numpy's stable argsort, the keys gathered as any payload
        plain = None
    compile_seconds = time.perf_counter() - started

    def run(operands: list[Value], ctx: RunContext) -> Value:
        inputs = [np.asarray(v) for v in operands]
        if rank == 0 or math.prod(dims) == 0 or dims[dimension] <= 1:
            copies = [np.array(x, copy=True) for x in inputs]
            return tuple(copies) if instr.shape.is_tuple else copies[0]
        n = dims[dimension]
        lines = [np.moveaxis(x, dimension, -1).reshape(-1, n) for x in inputs]
        if plain is not None and _keeps_bits(keys[0], lines[0], ctx.evaluator):
            line = np.ascontiguousarray(lines[0])
            width, mode = plain
            bits = sort_bits(line.view(f"u{width // 8}"), width, mode, keys[0].descending)
            return _laid_out(bits.view(line.dtype), dims, dimension)
        order: Array | None = None
        for key, t in reversed(list(zip(keys, types, strict=True))):
            values = _key_values(key, lines[key.operand], ctx.evaluator)
            if order is not None:
                values = np.take_along_axis(values, order, axis=1)
            encoded = _key_bits(key, t, np.ascontiguousarray(values), flush)
            if encoded is None:
                return ctx.evaluator.evaluate(instr, operands)
            bits, width, mode = encoded
            step = argsort(bits, width, mode, key.descending)
            order = step if order is None else np.take_along_axis(order, step, axis=1)
        assert order is not None
        results = [
            _laid_out(order.astype(x.dtype), dims, dimension)
            if count
            else _gathered(line, order, dims, dimension)
            for line, x, count in zip(lines, inputs, counts, strict=True)
        ]
        return tuple(results) if instr.shape.is_tuple else results[0]

    how = f"{'numba stable radix' if generating() else 'numpy stable'} argsort, {len(keys)} "
    how += f"key(s), {len(instr.operands)} operand(s)"
    if plain is not None:
        how = "numba radix sort of the keys in place (one-to-one keys, no payload)"
    return Kernel(run=run, how=how, compile_seconds=compile_seconds, exact=True, views=())


def _type_sorts(
    keys: Sequence[SortKey],
    types: Sequence[ElementType],
    plain: tuple[int, int] | None,
    dims: Sequence[int],
    dimension: int,
    flush: bool,
) -> None:
    """Types the radix kernels the calls will take now, while the kernel is built (in the
    tier worker, then on the tier-up thread, so no call of the program compiles or loads
    them): per key, those of its raw bits' dtype (``_key_bits`` of a zero), and with
    ``plain`` those of the operand's raw bits, for as many rows as the calls sort."""
    from xlapy.backend.cpu.kernels import radix

    rows = math.prod(dims) // dims[dimension] if dims and dims[dimension] > 1 else 0
    if rows == 0:
        return  # the calls sort nothing
    wanted = {np.dtype(f"u{plain[0] // 8}")} if plain is not None else set()
    for key, t in zip(keys, types, strict=True):
        if t.numpy is not None:
            probe = _key_bits(key, t, np.zeros((1, 1), t.numpy), flush)
            if probe is not None:
                wanted.add(probe[0].dtype)
    for dtype in sorted(wanted, key=str):
        radix.type_calls(dtype, rows)


def _counts_along(operand: HloInstruction, dimension: int) -> bool:
    """``operand`` is an integer iota along the sorted dimension that holds every index
    (jax's argsort sorts one as the payload): gathered in an order, it is that order."""
    t = operand.shape.element_type
    if operand.opcode is not Opcode.IOTA or not t.is_integer:
        return False
    n = operand.shape.dims[dimension]
    return operand.attrs.iota_dimension == dimension and n - 1 < 2 ** (t.bits - t.is_signed)


def _gathered(line: Array, order: Array, dims: Sequence[int], dimension: int) -> Array:
    """``line`` (rows, n) reordered by ``order`` and laid out as the operand again."""
    if line.shape[0] == 1:
        moved = np.take(line[0], order[0])
    else:
        moved = np.take_along_axis(line, order, axis=1)
    return _laid_out(moved, dims, dimension)


def _laid_out(moved: Array, dims: Sequence[int], dimension: int) -> Array:
    """Sorted lines (rows, n) laid out as the operand again (no copy when ``dimension`` is the
    last)."""
    shape = [*dims[:dimension], *dims[dimension + 1 :], dims[dimension]]
    return np.ascontiguousarray(np.moveaxis(moved.reshape(shape), -1, dimension))
