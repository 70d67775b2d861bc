"""Gather and scatter with the full dimension numbers (batching dims included).

Spec: OPS.md Gather, Scatter; stablehlo#gather, #scatter. Both compute whole index arrays
(``full_start_index + full_batching_index + full_offset_index``) with numpy. Gather clamps
start indices (StableHLO); scatter skips an update window that does not fit entirely (XLA)
and applies repeated indices in index order. dynamic-gather lives in ``dynamic_shapes.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.interpreter.evals.reduce import (
    REDUCER_UFUNCS,
    apply_computation,
    simple_binary_reducer,
)
from xlapy.interpreter.evals.slicing import array_operand, error, index_values
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value, shape_of

# ---- shared index machinery ----------------------------------------------------------------


def _check_dims(
    instr: HloInstruction, label: str, name: str, dims: Sequence[int], bound: int
) -> None:
    if len(set(dims)) != len(dims) or any(not 0 <= d < bound for d in dims):
        raise error(instr, label, f"{name} must be unique and in [0, {bound})", str(list(dims)))


def _index_vectors(
    instr: HloInstruction,
    indices: Array,
    index_vector_dim: int,
    size: int,
    name: str,
    labels: tuple[str, str],
) -> Array:
    """``indices`` (int64) with the index vector dimension last; a trailing dimension of size
    1 is implied when ``index_vector_dim == rank``. ``labels``: the constraints on
    ``index_vector_dim`` and on the index vector size."""
    if not 0 <= index_vector_dim <= indices.ndim:
        raise error(
            instr,
            labels[0],
            f"index_vector_dim must be in [0, {indices.ndim}]",
            str(index_vector_dim),
        )
    values = index_values(indices)
    if index_vector_dim == indices.ndim:
        values = values[..., None]
    else:
        values = np.moveaxis(values, index_vector_dim, -1)
    if values.shape[-1] != size:
        raise error(
            instr,
            labels[1],
            f"the index vectors of {name} must have {size} elements",
            f"{shape_of(indices).to_hlo(layout=False)} with index_vector_dim={index_vector_dim}",
        )
    return values


def _batch_axis(indices_batching_dim: int, index_vector_dim: int) -> int:
    """The position of an indices dimension among the indices dims other than
    ``index_vector_dim``."""
    return (
        indices_batching_dim
        if indices_batching_dim < index_vector_dim
        else indices_batching_dim - 1
    )


def _full_start_index(
    start_index: Array,
    start_index_map: Sequence[int],
    operand_batching_dims: Sequence[int],
    indices_batching_dims: Sequence[int],
    index_vector_dim: int,
    rank: int,
    clamp_bounds: Sequence[int] | None,
) -> Array:
    """``full_start_index + full_batching_index`` for every batch position: shape
    ``batch_shape + (rank,)``.

    ``full_start_index[start_index_map[k]] = start_index[k]`` (clamped to
    ``[0, clamp_bounds[d]]`` when given), ``full_batching_index[operand_batching_dims[k]] =
    batch_index[indices_batching_dims[k]]``, zero elsewhere.
    """
    batch_shape = start_index.shape[:-1]
    full = np.zeros((*batch_shape, rank), np.int64)
    for k, d in enumerate(start_index_map):
        values = start_index[..., k]
        if clamp_bounds is not None:
            values = np.clip(values, 0, clamp_bounds[d])
        full[..., d] = values
    for operand_dim, indices_dim in zip(operand_batching_dims, indices_batching_dims, strict=True):
        axis = _batch_axis(indices_dim, index_vector_dim)
        shape = [1] * len(batch_shape)
        shape[axis] = batch_shape[axis]
        full[..., operand_dim] += np.arange(batch_shape[axis], dtype=np.int64).reshape(shape)
    return full


def _full_window_index(
    window_shape: Sequence[int], window_operand_dims: Sequence[int], rank: int
) -> Array:
    """``full_offset_index`` / ``full_window_index``: shape ``window_shape + (rank,)`` with the
    k-th window index at operand dimension ``window_operand_dims[k]``, zero elsewhere."""
    full = np.zeros((*window_shape, rank), np.int64)
    for k, d in enumerate(window_operand_dims):
        shape = [1] * len(window_shape)
        shape[k] = window_shape[k]
        full[..., d] = np.arange(window_shape[k], dtype=np.int64).reshape(shape)
    return full


# ---- gather --------------------------------------------------------------------------------


def gather_array(
    instr: HloInstruction, operand: Array, start_indices: Array, slice_sizes: Sequence[int]
) -> Array:
    """Gather of ``operand`` at ``start_indices`` with the dimension numbers of ``instr``.

    Spec: stablehlo#gather. For ``result_index``: ``batch_index`` are its ``batch_dims``,
    ``offset_index`` its ``offset_dims``; ``start_index = start_indices[batch_index with
    index_vector_dim inserted]``; ``operand_index = full_start_index + full_batching_index +
    full_offset_index`` where each start is clamped to ``[0, dim(operand, d) - slice_sizes[d]]``.
    """
    attrs = instr.attrs
    offset_dims = tuple(attrs.offset_dims)
    collapsed_slice_dims = tuple(attrs.collapsed_slice_dims)
    start_index_map = tuple(attrs.start_index_map)
    operand_batching_dims = tuple(attrs.operand_batching_dims)
    start_indices_batching_dims = tuple(attrs.start_indices_batching_dims)
    index_vector_dim = int(attrs.index_vector_dim)
    rank = operand.ndim
    if len(slice_sizes) != rank:
        raise error(instr, "C20", f"slice_sizes must have {rank} entries", str(list(slice_sizes)))
    for d, (size, n) in enumerate(zip(slice_sizes, operand.shape, strict=True)):
        if not 0 <= size <= n:
            raise error(
                instr,
                "C21",
                f"slice_sizes[{d}] must be in [0, {n}]",
                f"slice_sizes {list(slice_sizes)} for operand {list(operand.shape)}",
            )
    _check_dims(instr, "C8", "collapsed_slice_dims", collapsed_slice_dims, rank)
    _check_dims(instr, "C11", "operand_batching_dims", operand_batching_dims, rank)
    _check_dims(instr, "C19", "start_index_map", start_index_map, rank)
    for d in (*collapsed_slice_dims, *operand_batching_dims):
        if slice_sizes[d] > 1:
            raise error(
                instr,
                "C9/C12",
                f"collapsed and batching dimensions must have slice size <= 1; dimension {d}",
                f"slice_sizes {list(slice_sizes)}",
            )
    start_index = _index_vectors(
        instr, start_indices, index_vector_dim, len(start_index_map), "start_indices", ("C2", "C3")
    )
    batch_shape = start_index.shape[:-1]
    offset_operand_dims = [
        d for d in range(rank) if d not in collapsed_slice_dims and d not in operand_batching_dims
    ]
    result_rank = len(batch_shape) + len(offset_operand_dims)
    if len(offset_dims) != len(offset_operand_dims):
        raise error(
            instr,
            "C1",
            f"offset_dims must have {len(offset_operand_dims)} entries (operand rank minus "
            "collapsed and batching dims)",
            str(list(offset_dims)),
        )
    _check_dims(instr, "C5", "offset_dims", offset_dims, result_rank)
    # full_start_index[d] = clamp(start_index[k], 0, dim(operand, d) - slice_sizes[d])
    bounds = [n - size for n, size in zip(operand.shape, slice_sizes, strict=True)]
    start = _full_start_index(
        start_index,
        start_index_map,
        operand_batching_dims,
        start_indices_batching_dims,
        index_vector_dim,
        rank,
        bounds,
    )
    offset_shape = [slice_sizes[d] for d in offset_operand_dims]
    full_offset_index = _full_window_index(offset_shape, offset_operand_dims, rank)
    # operand_index = full_start_index + full_batching_index + full_offset_index
    operand_index = (
        start.reshape((*batch_shape, *([1] * len(offset_shape)), rank)) + full_offset_index
    )
    if rank:
        values = operand[tuple(operand_index[..., d] for d in range(rank))]
    else:
        values = np.broadcast_to(operand, operand_index.shape[:-1])
    # values has dims (batch..., offset...); put them at batch_dims and offset_dims.
    batch_dims = [d for d in range(result_rank) if d not in offset_dims]
    source_axis = {d: i for i, d in enumerate(batch_dims)}
    source_axis.update({d: len(batch_dims) + k for k, d in enumerate(offset_dims)})
    return np.array(np.transpose(values, [source_axis[d] for d in range(result_rank)]), order="C")


@evaluates(Opcode.GATHER)
def gather(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Gather: slices of ``slice_sizes`` from ``operand`` at the start indices held in
    ``start_indices``, with collapsed and batching dimensions removed.

    Spec: OPS.md Gather; stablehlo#gather C1-C23 (start indices clamped so every slice is in
    bounds).
    """
    operand = array_operand(instr, operands[0], "operand")
    start_indices = array_operand(instr, operands[1], "start_indices")
    return gather_array(instr, operand, start_indices, tuple(instr.attrs.slice_sizes))


# ---- scatter -------------------------------------------------------------------------------


def replaces(comp: HloComputation, n: int) -> bool:
    """True for an update computation that returns its update arguments unchanged."""
    root = comp.root
    if n == 1:
        return root.opcode is Opcode.PARAMETER and root.parameter_number == 1
    return root.opcode is Opcode.TUPLE and all(
        o.opcode is Opcode.PARAMETER and o.parameter_number == n + j
        for j, o in enumerate(root.operands)
    )


def _fast_ufunc(comp: HloComputation, element_type: dtypes.ElementType) -> np.ufunc | None:
    """A numpy ufunc whose ``.at`` equals applying ``comp`` in order, for exact types only:
    integers of a native numpy width (wrap-around) and pred (no add/multiply)."""
    op = simple_binary_reducer(comp)
    if op is None or op not in REDUCER_UFUNCS:
        return None
    if element_type.is_pred:
        return None if op in (Opcode.ADD, Opcode.MULTIPLY) else REDUCER_UFUNCS[op]
    native = (
        element_type.is_integer and element_type.bits == 8 * np.dtype(element_type.numpy).itemsize
    )
    return REDUCER_UFUNCS[op] if native else None


def _occurrences(targets: Array) -> Array:
    """For each entry, how many earlier entries have the same target (0 for the first)."""
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    first = np.ones(len(ordered), np.bool_)
    first[1:] = ordered[1:] != ordered[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(ordered)), 0))
    occurrence = np.empty(len(ordered), np.int64)
    occurrence[order] = np.arange(len(ordered)) - group_start
    return occurrence


def _apply_updates(
    ctx: Evaluator,
    comp: HloComputation,
    results: list[Array],
    targets: Array,
    updates: list[Array],
) -> None:
    """``(results...)[t] = comp(results...[t], updates...)`` for every target ``t`` in order.

    Fast paths: replacement (the last update of a target wins) and exact ufuncs; otherwise the
    updates are applied in rounds, round ``r`` holding the ``r``-th update of every target, so
    each round is one call of ``comp`` on whole arrays and the per-target order is kept.
    """
    if targets.size == 0:
        return
    n = len(results)
    if replaces(comp, n):
        # The last update of each target wins: keep the last occurrence of each target.
        reversed_targets = targets[::-1]
        unique, first = np.unique(reversed_targets, return_index=True)
        for result, update in zip(results, updates, strict=True):
            result[unique] = update[::-1][first]
        return
    if n == 1:
        ufunc = _fast_ufunc(comp, dtypes.from_numpy(results[0].dtype))
        if ufunc is not None:
            ufunc.at(results[0], targets, updates[0].astype(results[0].dtype))
            return
    occurrence = _occurrences(targets)
    for r in range(int(occurrence.max()) + 1):  # sequential by spec: repeated targets in order
        chosen = occurrence == r
        t = targets[chosen]
        current = [result[t] for result in results]
        combined = apply_computation(ctx, comp, [*current, *(u[chosen] for u in updates)])
        for result, value in zip(results, combined, strict=True):
            result[t] = value


@evaluates(Opcode.SCATTER)
def scatter(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Scatter: ``results`` = ``inputs`` with every update element combined into the element
    its ``result_index`` names by ``update_computation(current..., update...)``.

    Spec: OPS.md Scatter; stablehlo#scatter. ``result_index = full_start_index +
    full_batching_index + full_window_index``. Out of bounds (implementation-defined in
    StableHLO): as XLA, an update window whose start index does not leave room for the whole
    window is skipped. Repeated indices are applied in index order: scatter positions in
    row-major order, each window in row-major order.
    """
    if len(operands) % 2 != 1 or len(operands) < 3:
        raise error(
            instr,
            "C5",
            "expects N inputs, scatter_indices and N updates",
            f"{len(operands)} operands",
        )
    n = (len(operands) - 1) // 2
    inputs = [array_operand(instr, v, f"input {i}") for i, v in enumerate(operands[:n])]
    scatter_indices = array_operand(instr, operands[n], "scatter_indices")
    updates = [array_operand(instr, v, f"update {i}") for i, v in enumerate(operands[n + 1 :])]
    attrs = instr.attrs
    update_window_dims = tuple(attrs.update_window_dims)
    inserted_window_dims = tuple(attrs.inserted_window_dims)
    scatter_dims_to_operand_dims = tuple(attrs.scatter_dims_to_operand_dims)
    input_batching_dims = tuple(attrs.input_batching_dims)
    scatter_indices_batching_dims = tuple(attrs.scatter_indices_batching_dims)
    index_vector_dim = int(attrs.index_vector_dim)
    comp: HloComputation = attrs.to_apply
    rank = inputs[0].ndim
    for i, x in enumerate(inputs):
        if x.shape != inputs[0].shape:
            raise error(
                instr,
                "C1",
                "inputs must have equal dimensions",
                f"{list(inputs[0].shape)} (input 0) and {list(x.shape)} (input {i})",
            )
    for i, u in enumerate(updates):
        if u.shape != updates[0].shape:
            raise error(
                instr,
                "C3",
                "updates must have equal dimensions",
                f"{list(updates[0].shape)} (update 0) and {list(u.shape)} (update {i})",
            )
    update_rank = updates[0].ndim
    _check_dims(instr, "C8", "update_window_dims", update_window_dims, update_rank)
    _check_dims(instr, "C11", "inserted_window_dims", inserted_window_dims, rank)
    _check_dims(instr, "C13", "input_batching_dims", input_batching_dims, rank)
    _check_dims(instr, "C21", "scatter_dims_to_operand_dims", scatter_dims_to_operand_dims, rank)
    start_index = _index_vectors(
        instr,
        scatter_indices,
        index_vector_dim,
        len(scatter_dims_to_operand_dims),
        "scatter_indices",
        ("C22", "C19"),
    )
    scatter_shape = start_index.shape[:-1]
    update_scatter_dims = [d for d in range(update_rank) if d not in update_window_dims]
    window_shape = [updates[0].shape[d] for d in update_window_dims]
    window_operand_dims = [
        d for d in range(rank) if d not in inserted_window_dims and d not in input_batching_dims
    ]
    if tuple(updates[0].shape[d] for d in update_scatter_dims) != scatter_shape or len(
        window_operand_dims
    ) != len(update_window_dims):
        raise error(
            instr,
            "C4",
            "updates must have the scatter dims of scatter_indices and one window dim per "
            "operand dim that is not inserted or batching",
            f"updates {list(updates[0].shape)}, scatter_indices "
            f"{list(scatter_indices.shape)}, input {list(inputs[0].shape)}",
        )
    start = _full_start_index(
        start_index,
        scatter_dims_to_operand_dims,
        input_batching_dims,
        scatter_indices_batching_dims,
        index_vector_dim,
        rank,
        None,
    )
    # XLA: skip a window unless 0 <= start[d] <= dim(input, d) - window_size[d] for every d.
    window_sizes = np.ones(rank, np.int64)
    window_sizes[window_operand_dims] = window_shape
    limits = np.asarray(inputs[0].shape, np.int64) - window_sizes
    in_bounds = np.all((start >= 0) & (start <= limits), axis=-1)
    full_window_index = _full_window_index(window_shape, window_operand_dims, rank)
    # result_index = full_start_index + full_batching_index + full_window_index
    window_ones = (1,) * len(window_shape)
    result_index = start.reshape((*scatter_shape, *window_ones, rank)) + full_window_index
    valid = np.broadcast_to(
        in_bounds.reshape((*scatter_shape, *window_ones)), result_index.shape[:-1]
    )
    selected = result_index[valid]
    if rank and len(selected):
        targets = np.ravel_multi_index(tuple(selected.T), inputs[0].shape)
    else:
        targets = np.zeros(len(selected), np.int64)
    order = [*update_scatter_dims, *update_window_dims]
    update_values = [np.transpose(u, order)[valid] for u in updates]
    results = [np.array(x, copy=True).reshape(-1) for x in inputs]
    _apply_updates(ctx, comp, results, np.asarray(targets, np.int64), update_values)
    shaped = [r.reshape(inputs[0].shape) for r in results]
    return tuple(shaped) if instr.shape.is_tuple else shaped[0]
