"""sort (variadic, any comparator) and topk.

Spec: OPS.md Sort, TopK; stablehlo#sort, chlo#top_k. Sort is always stable (a valid choice
when ``is_stable`` is false). Comparators that compare one key with LT/GT take a numpy
``argsort`` fast path; any other comparator runs a vectorised merge sort that calls it on
whole arrays of pairs. Both give the stable sorted order of a strict weak order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.interpreter.evals.compare_select import default_comparison_type
from xlapy.interpreter.evals.elementwise import flush_enabled, prepare
from xlapy.interpreter.evals.reduce import apply_computation
from xlapy.interpreter.evals.slicing import array_operand, error
from xlapy.interpreter.evaluator import Evaluator, custom_call_target, evaluates
from xlapy.interpreter.numerics import total_order_key
from xlapy.ir.attrs import ComparisonDirection, ComparisonType
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

# ---- sort keys -----------------------------------------------------------------------------


def _ascending_order(key: Array) -> Array:
    """The stable ascending argsort of ``key`` along the last axis."""
    return np.argsort(key, axis=-1, kind="stable")


def _descending_order(key: Array) -> Array:
    """The stable descending argsort of ``key`` (integers: ``~key`` reverses the order
    without overflow; floats here hold no NaN)."""
    return np.argsort(~key if key.dtype.kind in "iu" else -key, axis=-1, kind="stable")


def _comparator_key(comp: HloComputation, num_inputs: int) -> tuple[int, bool, object] | None:
    """``(k, descending, comparison type)`` when ``comp`` is ``compare(p[2k], p[2k+1])`` with
    direction LT or GT (either parameter order); None otherwise."""
    root = comp.root
    if root.opcode is not Opcode.COMPARE or comp.num_parameters != 2 * num_inputs:
        return None
    lhs, rhs = root.operands
    if lhs.opcode is not Opcode.PARAMETER or rhs.opcode is not Opcode.PARAMETER:
        return None
    a, b = lhs.parameter_number, rhs.parameter_number
    direction = root.attrs.direction
    if direction not in (ComparisonDirection.LT, ComparisonDirection.GT) or a // 2 != b // 2:
        return None
    if a == b:
        return None
    descending = (direction is ComparisonDirection.GT) == (a % 2 == 0)
    return a // 2, descending, root.attrs.type


def _fast_order(ctx: Evaluator, comp: HloComputation, lines: Sequence[Array]) -> Array | None:
    """The stable order for a single-key LT/GT comparator, or None when the comparator is
    not one or the key's order is not a strict weak order (floats with NaN under FLOAT)."""
    recognised = _comparator_key(comp, len(lines))
    if recognised is None:
        return None
    k, descending, ctype = recognised
    key = lines[k]
    t = dtypes.from_numpy(key.dtype)
    if t.is_complex:
        return None
    ctype = ctype or default_comparison_type(t)
    if ctype is ComparisonType.TOTALORDER:
        if not t.is_float:
            return None
        values = total_order_key(key, t)
    elif t.is_float:
        if ctype is not ComparisonType.FLOAT:
            return None
        (values,) = prepare([key], [t], False, flush_enabled(ctx, t))
        if np.isnan(values).any():
            return None
    elif ctype is not default_comparison_type(t):
        return None
    else:
        (values,) = prepare([key], [t], False, False)
        values = values.astype(np.int64) if values.dtype == np.bool_ else values
    return _descending_order(values) if descending else _ascending_order(values)


# ---- general comparator: vectorised merge sort ---------------------------------------------


def _merge_sort(ctx: Evaluator, comp: HloComputation, lines: Sequence[Array]) -> Array:
    """The stable order of every row of ``lines`` (each ``(rows, n)``) under ``comp``.

    Bottom-up merge sort over runs of width 1, 2, 4, ...: in each merge, a left-run element
    ``x`` at offset ``i`` goes to ``run_start + i + #{y in right run : comp(y, x)}``, found by
    a binary search that calls ``comp`` once per step on all elements at once; right-run
    elements fill the remaining slots in order. The running maximum of the counts keeps the
    result a permutation even for comparators that are not strict weak orders.
    """
    rows, n = lines[0].shape
    perm = np.tile(np.arange(n, dtype=np.int64), (rows, 1))
    row = np.arange(rows, dtype=np.int64)[:, None]
    position = np.broadcast_to(np.arange(n, dtype=np.int64), (rows, n))

    def less(first: Array, second: Array) -> Array:
        """``comp`` on the elements at positions ``first`` and ``second`` of ``perm``."""
        a, b = perm[row, first], perm[row, second]
        args = [x for line in lines for x in (line[row, a], line[row, b])]
        (result,) = apply_computation(ctx, comp, args)
        return np.asarray(result, np.bool_)

    width = 1
    while width < n:
        run_start = position // (2 * width) * (2 * width)
        mid = np.minimum(run_start + width, n)
        run_end = np.minimum(run_start + 2 * width, n)
        is_left = position < mid
        # Binary search in the right run for #{y : comp(y, x)} (a prefix of a sorted run).
        lo = np.where(is_left, mid, run_end).copy()
        hi = run_end.copy()
        while True:
            active = lo < hi
            if not active.any():
                break
            probe = np.where(active, (lo + hi) // 2, position)
            goes_right = less(probe, position) & active
            lo = np.where(goes_right, probe + 1, lo)
            hi = np.where(active & ~goes_right, probe, hi)
        count = np.where(is_left, lo - mid, 0)
        # Counts never decrease along a run (they would for inconsistent comparators).
        run_id = position // (2 * width)
        count = np.maximum.accumulate(count + run_id * (n + 1), axis=1) - run_id * (n + 1)
        target = run_start + (position - run_start) + count
        merged = np.empty_like(perm)
        taken = np.zeros((rows, n), np.bool_)
        left_rows = np.broadcast_to(row, (rows, n))[is_left]
        merged[left_rows, target[is_left]] = perm[is_left]
        taken[left_rows, target[is_left]] = True
        merged[~taken] = perm[~is_left]
        perm = merged
        width *= 2
    return perm


# ---- sort ----------------------------------------------------------------------------------


@evaluates(Opcode.SORT)
def sort(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Sort: sorts the inputs together along ``dimension`` by ``comparator``.

    Spec: OPS.md Sort; stablehlo#sort (the comparator gets ``2 * N`` scalars: parameter
    ``2k`` is input ``k`` at the first position, ``2k+1`` at the second). Always stable.
    """
    inputs = [array_operand(instr, v, f"input {i}") for i, v in enumerate(operands)]
    if not inputs:
        raise error(instr, "C1", "needs at least one input", "none")
    for i, x in enumerate(inputs):
        if x.shape != inputs[0].shape:
            raise error(
                instr,
                "C3",
                "inputs must have equal dimensions",
                f"{list(inputs[0].shape)} (input 0) and {list(x.shape)} (input {i})",
            )
    rank = inputs[0].ndim
    (dimension,) = instr.attrs.dimensions
    if not -rank <= dimension < rank:
        raise error(instr, "C4", f"dimension must be in [-{rank}, {rank})", str(dimension))
    dimension %= max(rank, 1)
    if rank == 0:
        result = [np.array(x, copy=True) for x in inputs]
        return tuple(result) if instr.shape.is_tuple else result[0]
    comp: HloComputation = instr.attrs.to_apply
    moved = [np.moveaxis(x, dimension, -1) for x in inputs]
    batch_shape, n = moved[0].shape[:-1], moved[0].shape[-1]
    lines = [np.asarray(m).reshape(math.prod(batch_shape), n) for m in moved]  # n may be 0
    if n <= 1 or lines[0].shape[0] == 0:
        order = np.broadcast_to(np.arange(n), lines[0].shape)
    else:
        fast = _fast_order(ctx, comp, lines)
        order = fast if fast is not None else _merge_sort(ctx, comp, lines)
    result = [
        np.asarray(
            np.moveaxis(
                np.take_along_axis(line, order, axis=1).reshape(*batch_shape, n), -1, dimension
            )
        )
        for line in lines
    ]
    return tuple(result) if instr.shape.is_tuple else result[0]


# ---- topk ----------------------------------------------------------------------------------


@evaluates(Opcode.TOPK)
def topk(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """TopK: the ``k`` largest (or smallest) entries of the last dimension and their s32
    indices; equal entries keep index order (the lower index first).

    Spec: OPS.md TopK; chlo#top_k. Floats are ordered by the total order (as XLA's
    ``sort``-based TopK: +NaN first and -NaN last for ``largest``, +0 before -0).
    """
    operand = array_operand(instr, operands[0], "operand")
    k = int(instr.attrs.k)
    largest = bool(instr.attrs.largest)
    if operand.ndim < 1 or not 0 <= k <= operand.shape[-1]:
        raise error(
            instr,
            "C2",
            "k must be in [0, size of the last dimension]",
            f"k={k} for operand {list(operand.shape)}",
        )
    t = dtypes.from_numpy(operand.dtype)
    if t.is_complex:
        raise error(instr, "C1", "operand must be integer, pred or float", str(t))
    if t.is_float:
        key = total_order_key(operand, t)
    else:
        (key,) = prepare([operand], [t], False, False)
        key = key.astype(np.int64) if key.dtype == np.bool_ else key
    order = (_descending_order(key) if largest else _ascending_order(key))[..., :k]
    values = np.take_along_axis(operand, order, axis=-1)
    index_type = instr.shape.tuple_shapes[1].element_type if instr.shape.is_tuple else dtypes.S32
    return (np.asarray(values), order.astype(index_type.numpy))


@custom_call_target("TopK")
def xla_cpu_topk(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """XLA:CPU's ``custom-call(operand), custom_call_target="TopK"`` (what XLA rewrites
    ``topk`` into): the first ``k`` entries of the last dimension in the order of the
    comparator in ``called_computations`` (stable, lower index first), and their s32 indices;
    ``k`` is the last dimension of the result."""
    operand = array_operand(instr, operands[0], "operand")
    if not instr.shape.is_tuple or len(instr.shape.tuple_shapes) != 2 or operand.ndim < 1:
        raise error(
            instr, "TopK", "needs one operand of rank >= 1 and a (values, indices) result",
            str(instr.shape),
        )  # fmt: skip
    comps = instr.attrs.called_computations
    if len(comps) != 1:
        raise error(instr, "TopK", "needs exactly one comparator computation", str(len(comps)))
    values_shape, indices_shape = instr.shape.tuple_shapes
    k = values_shape.dims[-1]
    n = operand.shape[-1]
    if not 0 <= k <= n:
        raise error(instr, "TopK", "k must be in [0, size of the last dimension]", f"k={k}")
    lines = [operand.reshape(-1, n)]
    if comps[0].num_parameters == 4:  # XLA's comparator of (values, iota indices) pairs
        lines.append(np.broadcast_to(np.arange(n, dtype=np.int32), lines[0].shape))
    if n <= 1 or lines[0].shape[0] == 0:
        order = np.broadcast_to(np.arange(n), lines[0].shape)
    else:
        fast = _fast_order(ctx, comps[0], lines)
        order = fast if fast is not None else _merge_sort(ctx, comps[0], lines)
    order = np.asarray(order)[:, :k]
    values = np.take_along_axis(lines[0], order, axis=1).reshape(*operand.shape[:-1], k)
    indices = order.reshape(*operand.shape[:-1], k).astype(indices_shape.element_type.numpy)
    return (np.asarray(values), indices)
