"""Uses of indexing maps (INDEXING.md §2): operand utilization, memory coalescing and tile
propagation.

* ``operand_utilization``: the fraction of an operand's elements that some output element
  reads, assuming the whole output is used (exact, by enumerating small domains).
* ``is_coalesced``: whether consecutive values of the innermost output index read
  consecutive (or the same) elements of the operand's linear physical memory.
* ``propagate_tile``: the operand tile (per-dimension offset, size, stride bounding box)
  read by an output tile, through any output->input map.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.indexing.affine import dim
from xlapy.indexing.indexing_map import IndexingMap, compose
from xlapy.indexing.ops_shape import logical_to_physical, physical_dims, strides_of
from xlapy.indexing.per_op import OperandIndexing
from xlapy.indexing.simplify import RangeEvaluator


def _read_elements(
    maps: Sequence[OperandIndexing], operand_dims: Sequence[int], limit: int
) -> np.ndarray:
    """Flat indices of the operand elements read (runtime variables range freely)."""
    read = np.zeros(int(np.prod(operand_dims)) if operand_dims else 1, dtype=bool)
    for oi in maps:
        m = oi.map
        if m.is_undefined:
            read[:] = True  # unknown: assume everything is read
            continue
        points = m.domain_points(limit)
        n = m.num_dims
        dims = [points[:, i] for i in range(n)]
        syms = [points[:, n + j] for j in range(m.num_symbols)]
        results = [np.broadcast_to(np.asarray(v), (len(points),)) for v in m.evaluate(dims, syms)]
        if not operand_dims:
            read[0] |= len(points) > 0
            continue
        inside = np.ones(len(points), dtype=bool)
        for r, size in zip(results, operand_dims, strict=True):
            inside &= (r >= 0) & (r < size)
        flat = np.ravel_multi_index([r[inside] for r in results], tuple(operand_dims))
        read[flat] = True
    return read


def operand_utilization(
    maps: Sequence[OperandIndexing], operand_dims: Sequence[int], limit: int = 1 << 22
) -> float:
    """Fraction of the operand's elements read by the whole output (1.0 for an empty one).

    >>> from xlapy.indexing.text import parse_indexing_map
    >>> m = parse_indexing_map("(d0) -> (d0 * 2), domain: d0 in [0, 4]")
    >>> operand_utilization([OperandIndexing(m)], [10])
    0.5
    """
    read = _read_elements(maps, operand_dims, limit)
    return float(read.mean()) if read.size else 1.0


def linearized_physical_map(
    m: IndexingMap, dims: Sequence[int], minor_to_major: Sequence[int]
) -> IndexingMap:
    """``m`` followed by the operand's logical -> linear physical offset map."""
    physical = physical_dims(dims, minor_to_major)
    to_physical = logical_to_physical(dims, minor_to_major)
    offset = sum((dim(i) * s for i, s in enumerate(strides_of(physical))), start=dim(0) * 0)
    linear = IndexingMap.from_tensor_sizes([offset], physical)
    return compose(compose(m, to_physical), linear).simplify().remove_unused_symbols()


def is_coalesced(
    m: IndexingMap, operand_dims: Sequence[int], minor_to_major: Sequence[int] | None = None
) -> bool:
    """True when stepping the innermost (last) dimension of ``m`` moves the operand's linear
    physical offset by 0 or 1 element at every point of the domain (so adjacent threads
    read adjacent or identical memory). Undefined maps are not coalesced."""
    if m.is_undefined or m.num_dims == 0:
        return not m.is_undefined
    layout = minor_to_major if minor_to_major is not None else list(range(len(operand_dims)))[::-1]
    linear = linearized_physical_map(m, operand_dims, layout) if operand_dims else m
    if not linear.results:
        return True
    (offset,) = linear.results
    last = linear.num_dims - 1
    shifted = offset.replace([dim(i) + 1 if i == last else dim(i) for i in range(linear.num_dims)])
    step = linear.with_results([shifted - offset])
    step = step.add_constraint(
        dim(last), (step.dim_bound(last).lower, step.dim_bound(last).upper - 1)
    )
    if step.is_known_empty:
        return True
    bounds = RangeEvaluator(step.simplify()).range(step.simplify().results[0])
    return bounds.lower >= 0 and bounds.upper <= 1


@dataclass(frozen=True, slots=True)
class Tile:
    """A hyper-rectangular, strided subset: ``offsets[i] + k * strides[i]`` for
    ``k < sizes[i]`` in every dimension."""

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]


def propagate_tile(m: IndexingMap, tile: Tile) -> Tile:
    """The smallest strided box of operand indices containing everything the output tile
    reads through ``m`` (strides are recovered when a result is ``stride * d + c``)."""
    if m.is_undefined:
        raise InvalidArgument("propagate_tile: the indexing map is undefined")
    if len(tile.offsets) != m.num_dims:
        raise InvalidArgument(
            f"propagate_tile: the tile has rank {len(tile.offsets)} but the map has "
            f"{m.num_dims} dimensions"
        )
    tile_map = IndexingMap(
        [dim(i) * s + o for i, (o, s) in enumerate(zip(tile.offsets, tile.strides, strict=True))],
        [(0, n - 1) for n in tile.sizes],
    )
    composed = compose(tile_map, m).simplify()
    evaluator = RangeEvaluator(composed)
    offsets, sizes, strides = [], [], []
    for e in composed.results:
        r = evaluator.range(e)
        stride = 1
        used = e.used_dims() | e.used_symbols()
        if len(used) == 1 and not e.used_symbols():
            (d,) = used
            values = {
                int(e.evaluate([k if i == d else 0 for i in range(composed.num_dims)]))
                for k in range(composed.dim_bound(d).lower, composed.dim_bound(d).upper + 1)
            }
            diffs = {b - a for a, b in zip(sorted(values), sorted(values)[1:], strict=False)}
            if len(diffs) == 1:
                stride = diffs.pop()
        offsets.append(r.lower)
        strides.append(stride)
        sizes.append((r.upper - r.lower) // stride + 1)
    return Tile(tuple(offsets), tuple(sizes), tuple(strides))
