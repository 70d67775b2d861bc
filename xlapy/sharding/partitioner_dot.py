"""Partitioning ``dot`` (XLA's ``dot_handler.cc``, its main strategies).

Three layouts of the local computation are costed, in bytes each device sends, and the
cheapest is emitted:

- **by the result**: each operand resharded so that its batch and free dims are tiled as the
  result's and its contracting dims are whole; the local dot is the result's piece.
- **by the lhs** (and symmetrically **by the rhs**): the lhs stays as it is, the rhs is
  resharded to match it (batch and contracting dims tiled as the lhs's, its free dims whole);
  each device's local dot is a partial sum over its slice of the contracting dims, and an
  all-reduce over the devices that split them completes it (padding of uneven contracting
  dims is masked to zero first). Then the result is resharded to the instruction's sharding.

Megatron's column-parallel dot is the first (no communication), its row-parallel dot the
second (one all-reduce), a data-parallel weight gradient the second with the batch as the
contracting dim.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.sharding.partitioner import ComputationPartitioner, PValue
from xlapy.sharding.partitioner_builder import SpmdBuilder
from xlapy.sharding.partitioner_ops import derive, handles, rebuild, tiling_of
from xlapy.sharding.partitioner_tiling import Tiling
from xlapy.sharding.reshard import mask_padding, plan_cost

F32 = dtypes.BY_NAME["f32"]
NARROW_FLOATS = ("bf16", "f16")


class _Dims:
    """The dims of one operand: batch, contracting, free (in order)."""

    def __init__(self, rank: int, batch: Sequence[int], contracting: Sequence[int]) -> None:
        self.batch = list(batch)
        self.contracting = list(contracting)
        self.free = [d for d in range(rank) if d not in self.batch and d not in self.contracting]
        self.rank = rank


def _bytes(shape: Shape) -> int:
    return max(1, shape.element_type.bits // 8)


@handles(Opcode.DOT)
def dot(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    a = instr.attrs
    lv, rv = p.value(instr.operands[0]), p.value(instr.operands[1])
    ld = _Dims(lv.shape.rank, a.lhs_batch_dims, a.lhs_contracting_dims)
    rd = _Dims(rv.shape.rank, a.rhs_batch_dims, a.rhs_contracting_dims)
    nb, nlf = len(ld.batch), len(ld.free)
    out_dims = instr.shape.dims
    target = p.target(instr)
    nbytes = _bytes(instr.shape)
    candidates: list[tuple[float, int, str]] = []

    def reshard_cost(v: PValue, t: Tiling) -> float:
        return plan_cost(tiling_of(v), t, v.shape.dims, _bytes(v.shape))

    by_result = None
    if isinstance(target, Tiling):
        lt = derive(target, _operand_map(ld, range(nb), range(nb, nb + nlf)))
        rt = derive(target, _operand_map(rd, range(nb), range(nb + nlf, target.rank)))
        by_result = (lt, rt)
        candidates.append((reshard_cost(lv, lt) + reshard_cost(rv, rt), 0, "result"))
    as_is = _as_is(tiling_of(lv), ld, tiling_of(rv), rd)
    if as_is is not None:
        cost = plan_cost(as_is, target, out_dims, nbytes) if isinstance(target, Tiling) else 0.0
        candidates.append((cost, 3, "as-is"))
    plans = {}
    for order, (name, own, own_d, other, other_d) in enumerate(
        (("lhs", lv, ld, rv, rd), ("rhs", rv, rd, lv, ld)), start=1
    ):
        t = tiling_of(own)
        other_t = derive(t, _follow(other_d, own_d))
        if name == "lhs":
            partial = derive(t, own_d.batch + own_d.free + [None] * len(other_d.free))
        else:
            partial = derive(t, own_d.batch + [None] * len(other_d.free) + own_d.free)
        split = [d for d in own_d.contracting if t.tiles[d] > 1]
        local = math.prod(partial.shard_dims(out_dims)) * nbytes
        n = math.prod(t.tiles[d] for d in split)
        cost = reshard_cost(other, other_t) + 2 * (n - 1) / n * local
        if isinstance(target, Tiling):
            cost += plan_cost(partial, target, out_dims, nbytes)
        plans[name] = (t, other_t, partial, split)
        candidates.append((cost, order, name))
    _, _, best = min(candidates)
    if best == "as-is":
        assert as_is is not None
        return PValue(rebuild(p, instr, [lv.instr, rv.instr]), instr.shape, as_is)
    if best == "result":
        assert by_result is not None
        assert isinstance(target, Tiling)
        lhs = p.resharded(lv, by_result[0]).instr
        rhs = p.resharded(rv, by_result[1]).instr
        return PValue(rebuild(p, instr, [lhs, rhs]), instr.shape, target)
    t, other_t, partial, split = plans[best]
    own_v, other_v, own_d = (lv, rv, ld) if best == "lhs" else (rv, lv, rd)
    own = own_v.instr
    other = p.resharded(other_v, other_t).instr
    if split:
        own, other = _mask(p.b, own, own_v, t, own_d, split, other, other_v, other_t,
                           rd if best == "lhs" else ld)  # fmt: skip
    lhs, rhs = (own, other) if best == "lhs" else (other, own)
    if not split:
        return PValue(rebuild(p, instr, [lhs, rhs]), instr.shape, partial)
    # Partial sums of a 16-bit float dot are kept and summed in f32, rounded once (XLA
    # computes such dots in f32 on CPU and promotes 16-bit all-reduces).
    element = instr.shape.element_type
    wide = F32 if element.name in NARROW_FLOATS else element
    local = rebuild(p, instr, [lhs, rhs], shape=Shape(wide, partial.shard_dims(out_dims)))
    result = p.b.all_reduce(local, p.state.reducer(Opcode.ADD, wide), t.groups_along(split))
    if wide is not element:
        result = p.b.add(Opcode.CONVERT, [result], shape=Shape(element, result.shape.dims))
    return PValue(result, instr.shape, partial)


def _as_is(lt: Tiling, ld: _Dims, rt: Tiling, rd: _Dims) -> Tiling | None:
    """The result's tiling when both operands are used as they are: neither contracting dim
    tiled, batch dims tiled alike; device d computes the piece at (its batch tile, its lhs
    free tile, its rhs free tile). None when some device pair breaks that."""
    if any(lt.tiles[d] > 1 for d in ld.contracting) or any(rt.tiles[d] > 1 for d in rd.contracting):
        return None
    if [lt.tiles[d] for d in ld.batch] != [rt.tiles[d] for d in rd.batch]:
        return None
    if not np.array_equal(lt.index[:, ld.batch], rt.index[:, rd.batch]):
        return None
    tiles = [lt.tiles[d] for d in ld.batch + ld.free] + [rt.tiles[d] for d in rd.free]
    keys = np.concatenate([lt.index[:, ld.batch + ld.free], rt.index[:, rd.free]], axis=1)
    order = np.lexsort(keys.T[::-1]) if keys.shape[1] else np.arange(len(keys))
    groups = math.prod(tiles)
    if len(order) % groups:
        return None
    ranked = keys[order].reshape(groups, len(order) // groups, -1)
    expected = np.array(list(np.ndindex(*tiles)), np.int64).reshape(groups, 1, -1)
    if ranked.shape[2] and not np.array_equal(ranked, np.broadcast_to(expected, ranked.shape)):
        return None
    return Tiling(order.reshape([*tiles, -1]))


def _operand_map(d: _Dims, batch_axes: Sequence[int], free_axes: Sequence[int]) -> list[int | None]:
    """For each operand dim, the result axis it takes its tiling from (None: whole)."""
    mapping: list[int | None] = [None] * d.rank
    for dim, axis in zip(d.batch, batch_axes, strict=True):
        mapping[dim] = axis
    for dim, axis in zip(d.free, free_axes, strict=True):
        mapping[dim] = axis
    return mapping


def _follow(other: _Dims, own: _Dims) -> list[int | None]:
    """The other operand's dims tiled as ``own``'s matching batch/contracting dims."""
    mapping: list[int | None] = [None] * other.rank
    for o, s in zip(other.batch, own.batch, strict=True):
        mapping[o] = s
    for o, s in zip(other.contracting, own.contracting, strict=True):
        mapping[o] = s
    return mapping


def _mask(b: SpmdBuilder, own: HloInstruction, own_v: PValue, t: Tiling, own_d: _Dims,
          split: list[int], other: HloInstruction, other_v: PValue, other_t: Tiling,
          other_d: _Dims) -> tuple[HloInstruction, HloInstruction]:  # fmt: skip
    """Both operands with the padding of their split contracting dims set to zero."""
    zero_own = b.constant(0, own.shape.element_type)
    own = mask_padding(b, own, own_v.shape.dims, t, split, zero_own)
    matching = [other_d.contracting[own_d.contracting.index(d)] for d in split]
    zero_other = b.constant(0, other.shape.element_type)
    other = mask_padding(b, other, other_v.shape.dims, other_t, matching, zero_other)
    return own, other
