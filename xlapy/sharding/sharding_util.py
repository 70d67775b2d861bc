"""Operations on shardings that propagation and the partitioner share (XLA's
``hlo_sharding_util``): how a sharding maps through a transpose, reshape, reverse or
broadcast, partial replication of tiled dims, merging two partially replicated shardings,
and which of two shardings is more specific.

Every function takes and returns ``HloSharding`` values; non-tiled shardings (replicated,
maximal, manual) pass through the dim mappings unchanged. The tile assignment keeps XLA's iota
form where XLA's functions keep it (transposes and reshapes of the device array).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import wraps
from math import prod
from typing import Any, TypeVar

import numpy as np

from xlapy.shape import Shape
from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.tile_assignment import TileAssignment

F = TypeVar("F", bound=Callable[..., Any])


def cache_key(arg: Any) -> Any:
    """A hashable key for a pure function's argument: lists as tuples; a sharding with its
    spelling (iota or explicit devices) and metadata, which equality ignores."""
    if isinstance(arg, list):
        return tuple(arg)
    if isinstance(arg, HloSharding):
        ta = arg.assignment
        return (arg, arg.metadata, None if ta is None else ta.iota)
    return arg


def memo(fn: F) -> F:
    """Caches a pure function of shardings, shapes and int sequences."""
    cache: dict[tuple, Any] = {}

    @wraps(fn)
    def call(*args: Any) -> Any:
        key = tuple(cache_key(a) for a in args)
        found = cache.get(key)
        if found is None:
            if len(cache) > 50_000:
                cache.clear()
            found = cache[key] = fn(*args)
        return found

    return call  # type: ignore[return-value]


def _types(s: HloSharding) -> tuple[str, ...]:
    """The subgroup types of the trailing tile dims (``last_tile_dim_replicate`` included)."""
    return ("replicated",) if s.replicate_on_last_tile_dim else s.subgroup_types


def _rebuild(ta: TileAssignment, types: Sequence[str], like: HloSharding) -> HloSharding:
    s = HloSharding.subgroup(ta, types)
    return s.with_metadata(like.metadata) if like.metadata and not s.is_tuple else s


def data_tiles(s: HloSharding, rank: int) -> tuple[int, ...]:
    """Tiles per data dim (all 1 for a non-tiled sharding)."""
    if s.kind != "tiled":
        return (1,) * rank
    assert s.assignment is not None
    return s.assignment.dims[: s.tiled_data_rank]


def is_spatially_partitioned(s: HloSharding | None) -> bool:
    """Some data dim has more than one tile (XLA's ``IsSpatiallyPartitioned``)."""
    if s is None:
        return False
    if s.is_tuple:
        return any(is_spatially_partitioned(e) for e in s.tuple_elements)
    return s.kind == "tiled" and s.num_tiles() > 1


def is_more_specific(lhs: HloSharding, rhs: HloSharding) -> bool:
    """Whether ``lhs`` says more than ``rhs`` (XLA's ``IsShardingMoreSpecific``): more data
    tiles; a tiled sharding beats a maximal one, which beats replication. Manual never."""
    if lhs.is_tuple or rhs.is_tuple:
        if not (lhs.is_tuple and rhs.is_tuple):
            return False
        if len(lhs.tuple_elements) != len(rhs.tuple_elements):
            return False
        better = False
        for a, b in zip(lhs.tuple_elements, rhs.tuple_elements, strict=True):
            if is_more_specific(b, a):
                return False
            better |= is_more_specific(a, b)
        return better
    if lhs.kind in ("manual", "unknown") or rhs.kind == "manual":
        return False
    if rhs.kind == "unknown":
        return True
    if rhs.kind == "tiled":
        return lhs.kind == "tiled" and lhs.num_tiles() > rhs.num_tiles()
    if rhs.kind == "maximal":
        return lhs.kind == "tiled"
    return lhs.kind != "replicated"


@memo
def partially_replicate_tiled_dims(s: HloSharding, dims: Sequence[int]) -> HloSharding:
    """``s`` with data dims ``dims`` no longer split: their devices become copies (XLA's
    ``PartiallyReplicateTiledShardingOnDims``)."""
    if s.kind != "tiled":
        return s
    assert s.assignment is not None
    ta = s.assignment
    r = s.tiled_data_rank
    drop = sorted({d for d in dims if ta.dims[d] > 1})
    if not drop:
        return s
    keep = [i for i in range(r) if i not in drop]
    subs = list(range(r, ta.ndim))
    ta = ta.transpose(keep + subs + drop)
    shape = [1 if i in drop else ta_dim for i, ta_dim in enumerate(s.assignment.dims[:r])]
    shape += [s.assignment.dims[i] for i in subs] + [prod(s.assignment.dims[d] for d in drop)]
    return _rebuild(ta.reshape(shape), (*_types(s), "replicated"), s)


def partially_replicate_all_except(s: HloSharding, keep: Sequence[int]) -> HloSharding:
    """Replicate every data dim but ``keep``."""
    if s.kind != "tiled":
        return s
    return partially_replicate_tiled_dims(
        s, [d for d in range(s.tiled_data_rank) if d not in set(keep)]
    )


def replicate_all_data_dims(s: HloSharding) -> HloSharding:
    """No data dim split; manual subgroups kept (XLA's ``ReplicateAllDataDims``)."""
    if s.is_manual_subgroup:
        return partially_replicate_all_except(s, [])
    return s if s.kind in ("manual", "maximal") else HloSharding.replicate(s.metadata)


@memo
def remove_dims(s: HloSharding, dims: Sequence[int]) -> HloSharding:
    """Drop data dims ``dims`` (each must have 1 tile; replicate them first)."""
    if s.kind != "tiled":
        return s
    assert s.assignment is not None
    ta = s.assignment
    if any(ta.dims[d] != 1 for d in dims):
        raise ValueError(f"remove_dims: dims {list(dims)} of {s} are split")
    new = [d for i, d in enumerate(ta.dims) if i not in set(dims)]
    return _rebuild(ta.reshape(new), _types(s), s)


@memo
def insert_dims(s: HloSharding, positions: Sequence[int], rank: int) -> HloSharding:
    """Add unsplit data dims at ``positions`` of the ``rank``-d result."""
    if s.kind != "tiled":
        return s
    assert s.assignment is not None
    ta = s.assignment
    r = s.tiled_data_rank
    data = iter(ta.dims[:r])
    shape = [1 if i in set(positions) else next(data) for i in range(rank)]
    return _rebuild(ta.reshape(shape + list(ta.dims[r:])), _types(s), s)


@memo
def transpose_sharding(s: HloSharding, perm: Sequence[int]) -> HloSharding:
    """Result dim ``i`` is operand dim ``perm[i]`` (XLA's ``TransposeSharding``)."""
    if s.kind != "tiled":
        return s
    assert s.assignment is not None
    r = s.tiled_data_rank
    full = list(perm) + list(range(r, s.assignment.ndim))
    return _rebuild(s.assignment.transpose(full), _types(s), s)


@memo
def reverse_sharding(s: HloSharding, dims: Sequence[int]) -> HloSharding:
    """The sharding of ``reverse(x, dims)`` when ``x`` has ``s``: tiles in reverse order."""
    if s.kind != "tiled" or not any(data_tiles(s, s.tiled_data_rank)[d] > 1 for d in dims):
        return s
    assert s.assignment is not None
    array = np.flip(s.assignment.array, axis=tuple(dims))
    return _rebuild(TileAssignment.from_array(array), _types(s), s)


def _reshape_groups(src: Sequence[int], tgt: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """Minimal groups of source and target dims with equal products (size-1 dims alone)."""
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(src) or j < len(tgt):
        if i < len(src) and src[i] == 1:
            groups.append(([i], []))
            i += 1
            continue
        if j < len(tgt) and tgt[j] == 1:
            groups.append(([], [j]))
            j += 1
            continue
        gs, gt = [i], [j]
        ps, pt = src[i], tgt[j]
        i += 1
        j += 1
        while ps != pt:
            if ps < pt:
                gs.append(i)
                ps *= src[i]
                i += 1
            else:
                gt.append(j)
                pt *= tgt[j]
                j += 1
        groups.append((gs, gt))
    return groups


def _split_tiles(n: int, sizes: Sequence[int]) -> list[int] | None:
    """Tiles of a dim split into ``sizes`` (major first), or None when not contiguous."""
    out = []
    for size in sizes:
        if n % size == 0:
            out.append(size)
            n //= size
        elif size % n == 0:
            out.append(n)
            n = 1
        else:
            return None
    return out if n == 1 else None


def _merge_ok(tiles: Sequence[int], sizes: Sequence[int]) -> bool:
    """Dims merged into one keep contiguous tiles: every dim major to the last split one is
    split into single elements."""
    split = [i for i, t in enumerate(tiles) if t > 1]
    return not split or all(tiles[i] == sizes[i] for i in range(split[-1]))


def _refine(
    src: Sequence[int], tgt: Sequence[int]
) -> tuple[list[int], list[int], list[int]] | None:
    """The common refinement of a reshape group: piece sizes (major first), the source dim
    and the target dim of each piece; None when the dims do not nest."""

    def cuts(sizes: Sequence[int]) -> list[int]:
        out, acc = [1], 1
        for size in sizes:
            acc *= size
            out.append(acc)
        return out

    points = sorted(set(cuts(src)) | set(cuts(tgt)))
    if any(hi % lo for lo, hi in itertools.pairwise(points)):
        return None
    src_cuts, tgt_cuts = cuts(src), cuts(tgt)
    pieces, owner_src, owner_tgt = [], [], []
    for lo, hi in itertools.pairwise(points):
        pieces.append(hi // lo)
        owner_src.append(max(k for k, c in enumerate(src_cuts[:-1]) if c <= lo))
        owner_tgt.append(max(k for k, c in enumerate(tgt_cuts[:-1]) if c <= lo))
    return pieces, owner_src, owner_tgt


def _group_tiles(src: list[int], tgt: list[int], tiles: list[int]) -> tuple[list[int], set[int]]:
    """Target tiles of one reshape group and the source dims whose tiles cannot follow."""
    refined = _refine(src, tgt)
    if refined is None:
        return [1] * len(tgt), {i for i, t in enumerate(tiles) if t > 1}
    pieces, owner_src, owner_tgt = refined
    failed: set[int] = set()
    while True:
        piece_tiles: list[int] = []
        for i, t in enumerate(tiles):
            mine = [p for k, p in enumerate(pieces) if owner_src[k] == i]
            split = _split_tiles(1 if i in failed else t, mine)
            if split is None or src[i] % t:
                failed.add(i)
                split = [1] * len(mine)
            piece_tiles += split
        new_fail = set()
        result = []
        for j in range(len(tgt)):
            ks = [k for k in range(len(pieces)) if owner_tgt[k] == j]
            kt = [piece_tiles[k] for k in ks]
            if not _merge_ok(kt, [pieces[k] for k in ks]):
                last = max(i for i, t in enumerate(kt) if t > 1)
                new_fail.add(owner_src[ks[last]])
            result.append(prod(kt))
        if not new_fail - failed:
            return result, failed
        failed |= new_fail


@memo
def reshape_sharding(source: Shape, target: Shape, s: HloSharding) -> HloSharding:
    """The sharding of ``reshape(x)`` to ``target`` when ``x`` (``source``) has ``s`` (XLA's
    ``ReshapeSharding``): within each group of dims with equal products, the dims are cut
    into their common pieces; a source dim's tiles follow when they split over its pieces
    and stay contiguous in the target dims. Source dims whose tiles cannot follow are
    replicated (a partial result, never a wrong one)."""
    if s.kind != "tiled":
        return s
    src, tgt = list(source.dims), list(target.dims)
    tiles = list(data_tiles(s, len(src)))
    new_tiles = [1] * len(tgt)
    failed: list[int] = []
    for gs, gt in _reshape_groups(src, tgt):
        group_tiles = [tiles[i] for i in gs]
        if prod(group_tiles) == 1:
            continue
        if not gt:
            failed += [i for i in gs if tiles[i] > 1]
            continue
        result, bad = _group_tiles([src[i] for i in gs], [tgt[j] for j in gt], group_tiles)
        failed += [gs[i] for i in bad]
        for j, t in zip(gt, result, strict=True):
            new_tiles[j] = t
    if failed:
        s = partially_replicate_tiled_dims(s, failed)
        if s.kind != "tiled":
            return s
    assert s.assignment is not None
    ta = s.assignment.reshape(new_tiles + list(s.assignment.dims[s.tiled_data_rank :]))
    return _rebuild(ta, _types(s), s)


def merge_sharding(old: HloSharding, new: HloSharding) -> HloSharding | None:
    """One sharding splitting every dim either splits (XLA's ``MergeShardingIfCompatible``):
    each device keeps the intersection of its pieces under both. None when the two are not
    compatible (a dim split differently, device groups that do not line up) or when the
    merge splits no more than either."""
    if old.kind != "tiled" or new.kind != "tiled" or old.subgroup_types or new.subgroup_types:
        return None
    assert old.assignment is not None
    assert new.assignment is not None
    if old.num_devices != new.num_devices or old.tiled_data_rank != new.tiled_data_rank:
        return None
    r = old.tiled_data_rank
    a, b = data_tiles(old, r), data_tiles(new, r)
    merged: list[int] = []
    for x, y in zip(a, b, strict=True):
        if x != y and x != 1 and y != 1:
            return None
        merged.append(max(x, y))
    if prod(merged) <= max(prod(a), prod(b)):
        return None
    groups: dict[tuple[int, ...], list[int]] = {}
    for device in range(old.assignment.num_elements):
        try:
            ia, ib = old.assignment.position_of(device), new.assignment.position_of(device)
        except KeyError:
            return None
        index = []
        for d in range(r):
            if a[d] > 1 and b[d] > 1 and ia[d] != ib[d]:
                return None
            index.append(ia[d] if a[d] > 1 else ib[d])
        groups.setdefault(tuple(index), []).append(device)
    if len(groups) != prod(merged):
        return None
    size = old.assignment.num_elements // prod(merged)
    if any(len(g) != size for g in groups.values()):
        return None
    array = np.empty((*merged, size), dtype=np.int64)
    for index, devices in groups.items():
        array[index] = sorted(devices)
    ta = TileAssignment.from_array(array)
    if ta.is_iota_array():
        ta = TileAssignment.from_iota(ta.dims)
    return HloSharding.tile(ta, replicate_on_last_tile_dim=True, metadata=new.metadata)
