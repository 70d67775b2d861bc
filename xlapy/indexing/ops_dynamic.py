"""Indexing maps of data-dependent ops: dynamic-slice, dynamic-update-slice, gather, scatter.

A data-dependent offset is a runtime variable ``rt_k`` bounded by the offsets the op can
use after clamping (``[0, operand_dim - slice_size]``). Each runtime variable comes with
an ``RtSpec``: which operand it reads and the map from the op's output index (and range
variables) to the element read. Plain dimension lists in (see ``ops_shape``).
Spec: INDEXING.md §1 (runtime variables), OPS.md DynamicSlice / Gather / Scatter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xlapy.indexing.affine import AffineExpr, constant, dim, symbol
from xlapy.indexing.indexing_map import IndexingMap, Variable, vars_from_sizes
from xlapy.indexing.interval import Interval

Dims = Sequence[int]


@dataclass(frozen=True, slots=True)
class RtSpec:
    """Runtime variable source: ``operand`` is read at ``map(output index, range vars)``."""

    operand: int
    map: IndexingMap


@dataclass(frozen=True, slots=True)
class RtMap:
    """A map with runtime variables and the source of each (in ``map.rt_vars`` order)."""

    map: IndexingMap
    rt_specs: tuple[RtSpec, ...] = ()


def dynamic_slice_output_to_input(
    input_dims: Dims, output_dims: Dims, first_index_operand: int = 1
) -> list[RtMap]:
    """Operand: ``(d...){rt...} -> (d_i + rt_i)`` with ``rt_i in [0, in_i - out_i]`` (the
    clamped start index read from operand ``first_index_operand + i``); the scalar start
    indices: ``(d...) -> ()``."""
    rank = len(output_dims)
    scalar = IndexingMap.scalar(output_dims)
    exprs = [dim(i) + symbol(i) for i in range(rank)]
    rt_vars = [Interval(0, n - s) for n, s in zip(input_dims, output_dims, strict=True)]
    specs = tuple(RtSpec(first_index_operand + i, scalar) for i in range(rank))
    operand = RtMap(IndexingMap(exprs, vars_from_sizes(output_dims), (), rt_vars), specs)
    return [operand] + [RtMap(scalar) for _ in range(rank)]


def dynamic_update_slice_output_to_input(output_dims: Dims, update_dims: Dims) -> list[RtMap]:
    """Operand: identity (an over-approximation: the updated window does not read it);
    update: ``(d...){rt...} -> (d_i - rt_i)`` (results outside the update denote no
    element); start indices: ``(d...) -> ()``."""
    rank = len(output_dims)
    scalar = IndexingMap.scalar(output_dims)
    exprs = [dim(i) - symbol(i) for i in range(rank)]
    rt_vars = [Interval(0, n - u) for n, u in zip(output_dims, update_dims, strict=True)]
    specs = tuple(RtSpec(2 + i, scalar) for i in range(rank))
    update = RtMap(IndexingMap(exprs, vars_from_sizes(output_dims), (), rt_vars), specs)
    return [RtMap(IndexingMap.identity(output_dims)), update] + [RtMap(scalar) for _ in range(rank)]


def dynamic_slice_input_to_output(input_dims: Dims, output_dims: Dims) -> RtMap:
    """Operand element ``d`` lands at ``d - rt`` when that is inside the output."""
    rank = len(input_dims)
    exprs = [dim(i) - symbol(i) for i in range(rank)]
    rt_vars = [Interval(0, n - s) for n, s in zip(input_dims, output_dims, strict=True)]
    constraints = [(e, Interval(0, n - 1)) for e, n in zip(exprs, output_dims, strict=True)]
    scalar = IndexingMap.scalar(input_dims)
    specs = tuple(RtSpec(1 + i, scalar) for i in range(rank))
    return RtMap(IndexingMap(exprs, vars_from_sizes(input_dims), (), rt_vars, constraints), specs)


def dynamic_update_slice_input_to_output(output_dims: Dims, update_dims: Dims) -> RtMap:
    """Update element ``d`` lands at ``d + rt``."""
    rank = len(update_dims)
    exprs = [dim(i) + symbol(i) for i in range(rank)]
    rt_vars = [Interval(0, n - u) for n, u in zip(output_dims, update_dims, strict=True)]
    scalar = IndexingMap.scalar(update_dims)
    specs = tuple(RtSpec(2 + i, scalar) for i in range(rank))
    return RtMap(IndexingMap(exprs, vars_from_sizes(update_dims), (), rt_vars), specs)


@dataclass(frozen=True, slots=True)
class GatherDims:
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    index_vector_dim: int
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


def _indices_index(
    batch: Sequence[AffineExpr], index_vector_dim: int, indices_rank: int, k: AffineExpr | None
) -> list[AffineExpr]:
    """The start_indices index for batch index ``batch`` and vector position ``k``."""
    result = list(batch)
    if index_vector_dim < indices_rank and k is not None:
        result.insert(index_vector_dim, k)
    return result


def gather_output_to_input(
    operand_dims: Dims,
    indices_dims: Dims,
    output_dims: Dims,
    gd: GatherDims,
    slice_sizes: Sequence[int],
) -> list[RtMap]:
    """Operand dim ``i`` reads ``offset + start + batching``: the offset dim of the output
    (unless collapsed), ``rt_k`` for ``i = start_index_map[k]`` (the clamped start read from
    the indices at the output's batch index), and the batch index for batching dims.
    Indices: ``(d...)[s0] -> (batch index with s0 at index_vector_dim)``."""
    rank = len(output_dims)
    batch_out = [d for d in range(rank) if d not in gd.offset_dims]
    batch = [dim(d) for d in batch_out]
    indices_rank = len(indices_dims)
    window_operand_dims = [
        i
        for i in range(len(operand_dims))
        if i not in gd.collapsed_slice_dims and i not in gd.operand_batching_dims
    ]
    batch_positions = [d for d in range(indices_rank) if d != gd.index_vector_dim]
    dim_vars = vars_from_sizes(output_dims)
    exprs: list[AffineExpr] = []
    rt_vars: list[Interval] = []
    specs: list[RtSpec] = []
    for i, n in enumerate(operand_dims):
        e: AffineExpr = constant(0)
        if i in window_operand_dims:
            e = dim(gd.offset_dims[window_operand_dims.index(i)])
        if i in gd.operand_batching_dims:
            indices_dim = gd.start_indices_batching_dims[gd.operand_batching_dims.index(i)]
            e = e + batch[batch_positions.index(indices_dim)]
        if i in gd.start_index_map:
            k = gd.start_index_map.index(i)
            rt_map = IndexingMap(
                _indices_index(batch, gd.index_vector_dim, indices_rank, constant(k)), dim_vars
            )
            e = e + symbol(len(rt_vars))
            rt_vars.append(Interval(0, n - slice_sizes[i]))
            specs.append(RtSpec(1, rt_map))
        exprs.append(e)
    operand = RtMap(IndexingMap(exprs, dim_vars, (), rt_vars), tuple(specs))
    if gd.index_vector_dim < indices_rank:
        vector = indices_dims[gd.index_vector_dim]
        indices = IndexingMap(
            _indices_index(batch, gd.index_vector_dim, indices_rank, symbol(0)),
            dim_vars,
            [Variable(Interval(0, vector - 1))],
        )
    else:
        indices = IndexingMap(batch, dim_vars)
    return [operand, RtMap(indices)]


@dataclass(frozen=True, slots=True)
class ScatterDims:
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    index_vector_dim: int
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def scatter_output_to_input(
    operand_dims: Dims,
    indices_dims: Dims,
    update_dims: Dims,
    sd: ScatterDims,
    num_inputs: int,
) -> list[RtMap]:
    """Operands: identity (the combiner reads the old value). Updates: every update element
    whose scattered position is the output index: the update's scatter (batch) dims are
    range variables (or the output's batching dims), its window dims read
    ``d_i - rt_i``; inserted dims require ``d_i - rt_i == 0``. Indices: the index vectors
    of those updates. ``rt_i`` is the start index read for operand dim ``i``."""
    rank = len(operand_dims)
    indices_rank = len(indices_dims)
    scatter_update_dims = [d for d in range(len(update_dims)) if d not in sd.update_window_dims]
    batch_positions = [d for d in range(indices_rank) if d != sd.index_vector_dim]
    window_operand_dims = [
        i
        for i in range(rank)
        if i not in sd.inserted_window_dims and i not in sd.input_batching_dims
    ]
    # Scatter (batch) index of the update: a range variable, or the output's batching dim.
    range_sizes: list[int] = []
    batch: list[AffineExpr] = []
    for position, update_dim in enumerate(scatter_update_dims):
        indices_dim = batch_positions[position]
        if indices_dim in sd.scatter_indices_batching_dims:
            operand_dim = sd.input_batching_dims[
                sd.scatter_indices_batching_dims.index(indices_dim)
            ]
            batch.append(dim(operand_dim))
        else:
            batch.append(symbol(len(range_sizes)))
            range_sizes.append(update_dims[update_dim])
    n_range = len(range_sizes)
    dim_vars = vars_from_sizes(operand_dims)
    range_vars = vars_from_sizes(range_sizes)
    rt_vars: list[Interval] = []
    specs: list[RtSpec] = []
    start: dict[int, AffineExpr] = {}
    for k, operand_dim in enumerate(sd.scatter_dims_to_operand_dims):
        size = 1
        if operand_dim in window_operand_dims:
            size = update_dims[sd.update_window_dims[window_operand_dims.index(operand_dim)]]
        rt_map = IndexingMap(
            _indices_index(batch, sd.index_vector_dim, indices_rank, constant(k)),
            dim_vars,
            range_vars,
        )
        start[operand_dim] = symbol(n_range + len(rt_vars))
        rt_vars.append(Interval(0, operand_dims[operand_dim] - size))
        specs.append(RtSpec(num_inputs, rt_map))
    update_index: list[AffineExpr] = [constant(0)] * len(update_dims)
    for position, update_dim in enumerate(scatter_update_dims):
        update_index[update_dim] = batch[position]
    constraints: list[tuple[AffineExpr, Interval]] = []
    for i in range(rank):
        offset = dim(i) - start[i] if i in start else dim(i)
        if i in window_operand_dims:
            update_dim = sd.update_window_dims[window_operand_dims.index(i)]
            update_index[update_dim] = offset
            constraints.append((offset, Interval(0, update_dims[update_dim] - 1)))
        elif i in sd.inserted_window_dims:
            constraints.append((offset, Interval(0, 0)))
    updates = RtMap(
        IndexingMap(update_index, dim_vars, range_vars, rt_vars, constraints), tuple(specs)
    )
    if sd.index_vector_dim < indices_rank:
        vector_vars = [*range_vars, Variable(Interval(0, indices_dims[sd.index_vector_dim] - 1))]
        shift = [symbol(j) for j in range(n_range)]
        shift += [symbol(n_range + 1 + j) for j in range(len(rt_vars))]
        shifted = [(e.replace(None, shift), b) for e, b in constraints]
        shifted_specs = tuple(
            RtSpec(s.operand, IndexingMap(s.map.results, dim_vars, vector_vars)) for s in specs
        )
        indices = RtMap(
            IndexingMap(
                _indices_index(batch, sd.index_vector_dim, indices_rank, symbol(n_range)),
                dim_vars,
                vector_vars,
                rt_vars,
                shifted,
            ),
            shifted_specs,
        )
    else:
        indices = RtMap(
            IndexingMap(batch, dim_vars, range_vars, rt_vars, constraints), tuple(specs)
        )
    identity = RtMap(IndexingMap.identity(operand_dims))
    return [identity] * num_inputs + [indices] + [updates] * num_inputs
