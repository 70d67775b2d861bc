"""Resharding: moving a per-device value from one tiling to another, as XLA's
``PartitionedHlo::ReshardNoCache`` does, with the cheapest of:

- nothing, when the tilings are equal;
- a local ``dynamic-slice`` when every device's new piece lies inside its old one (from
  replicated, or splitting tiles further): offsets from tables indexed by ``partition-id``;
- ``all-gather`` of the fewest tiled dims that makes the local slice possible (XLA's
  replicate-then-slice fallback, gathering only what it must);
- an ``all-to-all`` moving one tiled dim's tile axis to an untiled dim (XLA's
  ``ReshardWithAllToAll``), then the fewest all-gathers, when that sends less.

Shards that do not divide evenly (``Tiling``: pieces of ``ceil(N / t)``) are padded at the
high end; a gather removes the padding (the valid data is a prefix of the gathered dim) and a
slice from a full dim pads it first. ``plan_cost`` estimates the bytes a reshard sends per
device without emitting anything, which the dot and reduce handlers use to choose.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.sharding.partitioner_builder import SpmdBuilder
from xlapy.sharding.partitioner_tiling import Tiling


@dataclass(frozen=True)
class Plan:
    """How to go from one tiling to another: an all-to-all from dim ``a2a[0]`` to
    ``a2a[1]`` (if any), all-gathers of ``gather`` (in order), then a local slice."""

    a2a: tuple[int, int] | None = None
    gather: tuple[int, ...] = ()


def refines(src: Tiling, dst: Tiling, dims: Sequence[int]) -> bool:
    """True when every device's ``dst`` piece lies inside its ``src`` piece at a position a
    local slice can reach (see the module doc)."""
    for i, n in enumerate(dims):
        a, b = src.tiles[i], dst.tiles[i]
        if a == 1:
            continue
        if a == b:
            if not np.array_equal(src.index[:, i], dst.index[:, i]):
                return False
        elif b % a == 0 and n % b == 0:
            if not np.array_equal(dst.index[:, i] // (b // a), src.index[:, i]):
                return False
        else:
            return False
    return True


def plan(src: Tiling, dst: Tiling, dims: Sequence[int]) -> Plan | None:
    """The reshard plan (None when the tilings are equal): the cheapest of the fewest
    all-gathers, and an all-to-all moving one tile axis followed by the fewest all-gathers."""
    if src == dst:
        return None
    if refines(src, dst, dims):
        return Plan()
    options: list[tuple[float, int, Plan]] = []
    gathered = _fewest_gathers(src, dst, dims)
    options.append((_gather_cost(src, gathered, dims, 1), 1, Plan(gather=gathered)))
    for i, j in itertools.permutations(range(src.rank), 2):
        if src.tiles[i] > 1 and src.tiles[j] == 1 and dst.tiles[i] == 1:
            moved = src.moved(i, j)
            then = () if refines(moved, dst, dims) else _fewest_gathers(moved, dst, dims)
            n = src.tiles[i]
            cost = (n - 1) / n * math.prod(src.shard_dims(dims))
            cost += _gather_cost(moved, then, dims, 1)
            options.append((cost, 0, Plan(a2a=(i, j), gather=then)))
    return min(options, key=lambda o: (o[0], o[1]))[2]


def _fewest_gathers(src: Tiling, dst: Tiling, dims: Sequence[int]) -> tuple[int, ...]:
    """The cheapest smallest set of tiled dims whose gathering makes ``dst`` a local slice."""
    tiled = [i for i in range(src.rank) if src.tiles[i] > 1]
    for count in range(len(tiled) + 1):
        best: tuple[float, tuple[int, ...]] | None = None
        for subset in itertools.combinations(tiled, count):
            if refines(src.gathered(subset) if subset else src, dst, dims):
                cost = _gather_cost(src, subset, dims, 1)
                if best is None or cost < best[0]:
                    best = (cost, subset)
        if best is not None:
            return best[1]
    raise AssertionError("gathering every tiled dim always refines")


def _gather_cost(src: Tiling, gathered: Sequence[int], dims: Sequence[int], nbytes: int) -> float:
    shard = list(src.shard_dims(dims))
    cost = 0.0
    for i in gathered:
        t = src.tiles[i]
        cost += (t - 1) * math.prod(shard) * nbytes
        shard[i] = int(dims[i])
    return cost


def plan_cost(src: Tiling, dst: Tiling, dims: Sequence[int], nbytes: int) -> float:
    """Bytes one device sends to reshard a value of ``dims`` (``nbytes`` per element)."""
    p = plan(src, dst, dims)
    if p is None:
        return 0.0
    cost = 0.0
    if p.a2a is not None:
        n = src.tiles[p.a2a[0]]
        cost = (n - 1) / n * math.prod(src.shard_dims(dims)) * nbytes
        src = src.moved(*p.a2a)
    return cost + _gather_cost(src, p.gather, dims, nbytes)


def reshard(
    b: SpmdBuilder, x: HloInstruction, dims: Sequence[int], src: Tiling, dst: Tiling
) -> HloInstruction:
    """``x`` (the per-device piece of a value of global ``dims`` tiled as ``src``) as the
    piece ``dst`` gives this device."""
    p = plan(src, dst, dims)
    if p is None:
        return x
    if p.a2a is not None:
        i, j = p.a2a
        x = all_to_all(b, x, dims, src, i, j)
        src = src.moved(i, j)
    for i in p.gather:
        x = all_gather(b, x, dims, src, i)
        src = src.gathered([i])
    return local_slice(b, x, dims, src, dst)


def all_gather(
    b: SpmdBuilder, x: HloInstruction, dims: Sequence[int], src: Tiling, dim: int
) -> HloInstruction:
    """Gathers data dim ``dim`` whole on every device (padding removed)."""
    gathered = b.all_gather(x, dim, src.groups_along([dim]))
    limits = list(gathered.shape.dims)
    limits[dim] = int(dims[dim])
    return b.slice(gathered, limits)


def all_to_all(
    b: SpmdBuilder, x: HloInstruction, dims: Sequence[int], src: Tiling, i: int, j: int
) -> HloInstruction:
    """Moves the tile axis of dim ``i`` to (untiled) dim ``j``: dim ``j`` is cut into n
    chunks, chunk k goes to the k-th device along ``i``, and the received pieces are joined
    along ``i`` in device order."""
    n = src.tiles[i]
    local = list(x.shape.dims)
    chunk = -(-int(dims[j]) // n)
    padded = list(local)
    padded[j] = n * chunk
    x = b.pad_to(x, padded)
    split = [*local[:j], n, chunk, *local[j + 1 :]]
    x = b.reshape(x, split)
    x = b.all_to_all(x, j, src.groups_along([i]))
    axes = [a for a in range(len(split)) if a != j]
    at = axes.index(i if i < j else i + 1)
    axes.insert(at, j)
    x = b.transpose(x, axes)
    merged = list(local)
    merged[i] = n * local[i]
    merged[j] = chunk
    x = b.reshape(x, merged)
    merged[i] = int(dims[i])
    return b.slice(x, merged)


def local_slice(
    b: SpmdBuilder, x: HloInstruction, dims: Sequence[int], src: Tiling, dst: Tiling
) -> HloInstruction:
    """The ``dst`` piece cut from the ``src`` piece this device holds (``refines``)."""
    if src == dst:
        return x
    sizes = dst.shard_dims(dims)
    padded = list(x.shape.dims)
    starts: list[list[int]] = []
    for i, _n in enumerate(dims):
        a, t = src.tiles[i], dst.tiles[i]
        if a == t:
            starts.append([0] * dst.num_devices)
        elif a == 1:
            padded[i] = t * sizes[i]
            starts.append([int(k) * sizes[i] for k in dst.index[:, i]])
        else:
            starts.append([int(k) % (t // a) * sizes[i] for k in dst.index[:, i]])
    if tuple(sizes) == tuple(x.shape.dims):
        return x
    x = b.pad_to(x, padded)
    return b.dynamic_slice(x, [b.table(s) for s in starts], sizes)


def mask_padding(
    b: SpmdBuilder,
    x: HloInstruction,
    dims: Sequence[int],
    tiling: Tiling,
    which: Sequence[int],
    fill: HloInstruction,
) -> HloInstruction:
    """``x`` with the padding of data dims ``which`` set to the scalar ``fill`` (a reducer's
    identity, so that padding never reaches a result)."""
    mask = None
    local = list(x.shape.dims)
    for i in which:
        if not tiling.is_padded(dims, i):
            continue
        c = local[i]
        limits = [min(max(int(dims[i]) - int(k) * c, 0), c) for k in tiling.index[:, i]]
        part = b.valid_mask(local, i, limits)
        mask = part if mask is None else b.add(Opcode.AND, [mask, part])
    return x if mask is None else b.select(mask, x, fill)
