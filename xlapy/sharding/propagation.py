"""Sharding propagation (XLA's ``ShardingPropagation`` pass, ``sharding-propagation``): gives
every instruction of a global-view module a sharding, from the ones the user wrote.

Order, as XLA's pass: ``import_sdy_hlo`` first (Shardy HLO into GSPMD form); the shardings
present are *provided* and never replaced (entry parameters and root included, unless the
module allows propagation to them; ``Sharding`` custom calls with ``unspecified_dims`` may only
refine those dims). Then, for aggressiveness 0, 1, 2, 3, to a fixed point: each computation
(callees first) in post order infers from operands, then in reverse post order from users.
Level 0 passes only through pass-through ops (elementwise, ``Sharding``, reshape, transpose,
tuple, get-tuple-element, while, call, copy, concatenate, dynamic-(update-)slice,
optimization-barrier); broadcasts need level 2; everything else level 1. A candidate replaces
the current sharding only when more specific (``is_more_specific``: more data tiles); from
level 1, partially replicated candidates merge with the current one when compatible
(``merge_sharding``). Manual shardings pass through as they are.

Rules per op (forward: from operands; backward: an operand's from its user):
elementwise, copy, collectives, sort, slice, pad, concatenate, reduce-window, select-and-
scatter, optimization-barrier: the same sharding (the most specific operand's);
broadcast: operand dims keep their tiles, new dims unsplit (backward: the new dims dropped);
reshape/bitcast: ``reshape_sharding``; transpose: ``transpose_sharding``; reverse: tiles
reversed; dynamic-slice / dynamic-update-slice: the sliced dims replicated; reduce: the
reduced dims dropped (after replicating them); dot: batch and non-contracting dims follow
their operand, contracting dims and the other operand's dims replicated (backward: from the
output and the other operand's contracting/batch dims); convolution: batch and spatial from
the input, output feature from the kernel; gather: the operand's passthrough (offset) dims and
the indices' batch dims; scatter: the operand's sharding; while: operand, body parameter and
root, condition parameter and the while share one sharding; call / conditional: operands and
the callee parameters, roots and the result; tuple / get-tuple-element: by element; other
custom calls, rng, infeed and the like: nothing (replicated at the end).

Output: every instruction has a sharding afterwards; those propagation left undecided get
``{replicated}`` (a tuple of them for tuple shapes), so the partitioner never guesses.
``Sharding`` custom calls become ``copy`` instructions carrying their sharding, as in XLA; a
fully specified constraint also gives its sharding to an operand that has none.
``shard_alike`` groups (``{unknown shard_as N}`` constraints, ``xla.sdy.ShardingGroup`` calls)
are removed; their members take candidates from each other at every step, and at the end each
``shard_as`` group is aligned on its most specific sharding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.passes.pass_manager import Pass, record, register_pass
from xlapy.shape import Shape
from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.read import SHARDING, SHARDING_GROUP, import_sdy_hlo, unspecified_dims
from xlapy.sharding.sharding_util import (
    insert_dims,
    is_more_specific,
    is_spatially_partitioned,
    memo,
    merge_sharding,
    partially_replicate_all_except,
    partially_replicate_tiled_dims,
    remove_dims,
    reshape_sharding,
    reverse_sharding,
    transpose_sharding,
)

_PASS_THROUGH = frozenset(
    {
        Opcode.CALL,
        Opcode.CONCATENATE,
        Opcode.COPY,
        Opcode.DYNAMIC_SLICE,
        Opcode.DYNAMIC_UPDATE_SLICE,
        Opcode.GET_TUPLE_ELEMENT,
        Opcode.OPTIMIZATION_BARRIER,
        Opcode.RESHAPE,
        Opcode.TUPLE,
        Opcode.TRANSPOSE,
        Opcode.WHILE,
    }
)
_SAME_SHAPE = frozenset(
    {
        Opcode.COPY,
        Opcode.SLICE,
        Opcode.PAD,
        Opcode.CONCATENATE,
        Opcode.ALL_REDUCE,
        Opcode.COLLECTIVE_PERMUTE,
        Opcode.REDUCE_PRECISION,
        Opcode.SELECT_AND_SCATTER,
        Opcode.CHOLESKY,
        Opcode.TRIANGULAR_SOLVE,
        Opcode.FFT,
        Opcode.CLAMP,
        Opcode.SELECT,
        Opcode.MAP,
        Opcode.BITCAST_CONVERT,
    }
)
"""Ops whose result has the shape of their (first) operand, tile for tile."""


_ELEMENTWISE: dict[Opcode, bool] = {}


def _is_elementwise(instr: HloInstruction) -> bool:
    known = _ELEMENTWISE.get(instr.opcode)
    if known is None:
        known = Trait.ELEMENTWISE in instr.opdef.traits or instr.opcode in _SAME_SHAPE
        _ELEMENTWISE[instr.opcode] = known
    return known


def _target(instr: HloInstruction) -> str:
    return str(instr.attrs.custom_call_target) if instr.opcode is Opcode.CUSTOM_CALL else ""


def can_propagate_through(instr: HloInstruction, level: int) -> bool:
    """XLA's ``CanPropagateThroughAtAggressiveLevel``."""
    if _is_elementwise(instr) or _target(instr) == SHARDING or instr.opcode in _PASS_THROUGH:
        return True
    if instr.opcode is Opcode.PARAMETER:
        return True  # a callee's parameter follows its caller at every level
    if instr.opcode is Opcode.BROADCAST:
        return level >= 2
    return level >= 1


def _leaves(instr: HloInstruction) -> list[HloSharding | None]:
    """The instruction's sharding per leaf (None where unknown)."""
    if instr.sharding is None:
        count = len(list(instr.shape.leaves())) if instr.shape.is_tuple else 1
        return [None] * count
    return list(instr.sharding.leaf_shardings(instr.shape))


def _tuple_of(shape: Shape, leaves: Sequence[HloSharding | None]) -> HloSharding | None:
    if not shape.is_tuple:
        return leaves[0]
    if all(s is None for s in leaves):
        return None
    return HloSharding.tuple(s if s is not None else HloSharding.replicate() for s in leaves)


def _most_specific(candidates: Iterable[HloSharding | None]) -> list[HloSharding]:
    """The candidates present, most specific first (stable)."""
    present = [c for c in candidates if c is not None]
    ordered: list[HloSharding] = []
    for c in present:
        at = len(ordered)
        for i, o in enumerate(ordered):
            if is_more_specific(c, o):
                at = i
                break
        ordered.insert(at, c)
    return ordered


# ---- forward rules ------------------------------------------------------------------------


def _broadcast_forward(s: HloSharding, instr: HloInstruction) -> HloSharding:
    dims = list(instr.attrs.dimensions)
    if s.kind != "tiled":
        return s
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    s = transpose_sharding(s, order)
    added = [d for d in range(instr.shape.rank) if d not in set(dims)]
    return insert_dims(s, added, instr.shape.rank)


def _broadcast_backward(us: HloSharding, user: HloInstruction) -> HloSharding:
    """The operand's sharding: the result's on the operand's dims; new dims and dims the
    broadcast expands (operand size 1) are not split."""
    dims = list(user.attrs.dimensions)
    if us.kind != "tiled":
        return us
    operand = user.operands[0].shape
    added = [d for d in range(user.shape.rank) if d not in set(dims)]
    expanded = [o for i, o in enumerate(dims) if operand.dims[i] != user.shape.dims[o]]
    s = partially_replicate_tiled_dims(us, added + expanded)
    s = remove_dims(s, added)
    if s.kind != "tiled":
        return s
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    inverse = [order.index(i) for i in range(len(dims))]
    return transpose_sharding(s, inverse)


def _reduce_forward(s: HloSharding, dims: Sequence[int]) -> HloSharding:
    return remove_dims(partially_replicate_tiled_dims(s, dims), dims)


def _map_dims(s: HloSharding, mapping: dict[int, int], out_rank: int) -> HloSharding:
    return _map_dims_cached(s, tuple(sorted(mapping.items())), out_rank)


@memo
def _map_dims_cached(
    s: HloSharding, pairs: tuple[tuple[int, int], ...], out_rank: int
) -> HloSharding:
    """A sharding of a rank-``out_rank`` value whose dim ``mapping[d]`` carries the tiles of
    ``s``'s dim ``d``; dims of ``s`` not mapped are replicated, unmapped output dims unsplit."""
    mapping = dict(pairs)
    if s.kind != "tiled":
        return s
    r = s.tiled_data_rank
    s = partially_replicate_all_except(s, list(mapping))
    if s.kind != "tiled":
        return s
    unmapped = [d for d in range(r) if d not in mapping]
    s = remove_dims(s, unmapped)
    kept = [d for d in range(r) if d in mapping]
    # Now dim i of s is kept[i]; order them by output position, then insert the rest.
    order = sorted(range(len(kept)), key=lambda i: mapping[kept[i]])
    s = transpose_sharding(s, order)
    targets = {mapping[d] for d in kept}
    return insert_dims(s, [d for d in range(out_rank) if d not in targets], out_rank)


def _dot_dims(instr: HloInstruction) -> tuple[dict[int, int], dict[int, int]]:
    """Operand dim -> output dim, for lhs and rhs of a dot."""
    a = instr.attrs
    lhs, rhs = instr.operands
    lb, lc, rb, rc = (list(a.lhs_batch_dims), list(a.lhs_contracting_dims),
                      list(a.rhs_batch_dims), list(a.rhs_contracting_dims))  # fmt: skip
    lhs_free = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
    rhs_free = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
    lmap = {d: i for i, d in enumerate(lb)}
    rmap = {d: i for i, d in enumerate(rb)}
    for i, d in enumerate(lhs_free):
        lmap[d] = len(lb) + i
    for i, d in enumerate(rhs_free):
        rmap[d] = len(lb) + len(lhs_free) + i
    return lmap, rmap


def _conv_dims(instr: HloInstruction) -> tuple[dict[int, int], dict[int, int]]:
    dn = instr.attrs.dim_labels
    lmap = {dn.input_batch_dimension: dn.output_batch_dimension}
    for i, o in zip(dn.input_spatial_dimensions, dn.output_spatial_dimensions, strict=True):
        lmap[i] = o
    rmap = {dn.kernel_output_feature_dimension: dn.output_feature_dimension}
    if instr.attrs.feature_group_count > 1 or instr.attrs.batch_group_count > 1:
        lmap = {dn.input_batch_dimension: dn.output_batch_dimension}
    return lmap, rmap


def _gather_passthrough(instr: HloInstruction) -> dict[int, int]:
    """Operand dim -> result dim for the gather's passthrough dims: window dims taken whole
    and not indexed, so each device's rows of the operand give its rows of the result."""
    operand = instr.operands[0].shape
    a = instr.attrs
    skip = set(a.collapsed_slice_dims) | set(a.operand_batching_dims)
    window = [d for d in range(operand.rank) if d not in skip]
    return {
        d: o for d, o in zip(window, a.offset_dims, strict=True)
        if a.slice_sizes[d] == operand.dims[d] and d not in set(a.start_index_map)
    }  # fmt: skip


def _scatter_passthrough(instr: HloInstruction) -> dict[int, int]:
    """Operand dim -> updates dim for the scatter's passthrough (whole, unindexed) dims."""
    operand = instr.operands[0].shape
    updates = instr.operands[-1].shape
    a = instr.attrs
    skip = set(a.inserted_window_dims) | set(a.input_batching_dims)
    window = [d for d in range(operand.rank) if d not in skip]
    return {
        d: u for d, u in zip(window, a.update_window_dims, strict=True)
        if updates.dims[u] == operand.dims[d] and d not in set(a.scatter_dims_to_operand_dims)
    }  # fmt: skip


def _gather_forward(instr: HloInstruction) -> list[HloSharding | None]:
    """Candidates for a gather's result: the operand's passthrough dims and the indices'
    batch dims."""
    operand, indices = instr.operands
    a = instr.attrs
    out: list[HloSharding | None] = []
    offset = list(a.offset_dims)
    if operand.sharding is not None:
        out.append(_map_dims(operand.sharding, _gather_passthrough(instr), instr.shape.rank))
    if indices.sharding is not None:
        batch_out = [d for d in range(instr.shape.rank) if d not in set(offset)]
        batch_in = [d for d in range(indices.shape.rank) if d != a.index_vector_dim]
        mapping = dict(zip(batch_in, batch_out, strict=False))
        out.append(_map_dims(indices.sharding, mapping, instr.shape.rank))
    return out


def _forward(instr: HloInstruction, ctx: _Context) -> list[HloSharding | None]:
    """Candidate shardings for ``instr`` from its operands, best first."""
    op = instr.opcode
    ops = instr.operands
    if op is Opcode.PARAMETER:
        return ctx.from_caller(instr)
    if not ops and op not in (Opcode.WHILE, Opcode.CALL, Opcode.CONDITIONAL):
        return []
    if op is Opcode.CUSTOM_CALL:
        target = _target(instr)
        return [ops[0].sharding] if target == SHARDING else []
    if instr.shape.is_array and any(
        o.sharding is not None and o.sharding.is_manual and not o.sharding.is_tuple for o in ops
    ):
        return [HloSharding.manual()]  # inside a manual region
    if _is_elementwise(instr):
        same = [o.sharding for o in ops if o.shape.is_array and o.shape.rank == instr.shape.rank]
        if op is Opcode.SELECT_AND_SCATTER:
            same = [ops[0].sharding]
        return list(_most_specific(same))
    s0 = ops[0].sharding if ops else None
    if op is Opcode.BROADCAST:
        return [None if s0 is None else _broadcast_forward(s0, instr)]
    if op in (Opcode.RESHAPE, Opcode.BITCAST):
        if s0 is None or not instr.shape.is_array:
            return []
        return [reshape_sharding(ops[0].shape, instr.shape, s0)]
    if op is Opcode.TRANSPOSE:
        return [None if s0 is None else transpose_sharding(s0, instr.attrs.dimensions)]
    if op is Opcode.REVERSE:
        return [None if s0 is None else reverse_sharding(s0, instr.attrs.dimensions)]
    if op is Opcode.DYNAMIC_SLICE:
        if s0 is None:
            return []
        sizes = instr.attrs.dynamic_slice_sizes
        sliced = [d for d in range(instr.shape.rank) if sizes[d] != ops[0].shape.dims[d]]
        return [partially_replicate_tiled_dims(s0, sliced)]
    if op is Opcode.DYNAMIC_UPDATE_SLICE:
        return [s0]
    if op in (Opcode.REDUCE, Opcode.REDUCE_WINDOW, Opcode.SORT, Opcode.SCATTER):
        n = len(ops) // 2 if op in (Opcode.REDUCE, Opcode.REDUCE_WINDOW) else len(ops)
        if op is Opcode.SCATTER:
            n = (len(ops) - 1) // 2
        inputs = [o.sharding for o in ops[:n]]
        if op is Opcode.SCATTER:
            inverse = {u: d for d, u in _scatter_passthrough(instr).items()}
            rank = ops[0].shape.rank
            inputs += [
                _map_dims(u.sharding, inverse, rank) for u in ops[n + 1 :] if u.sharding is not None
            ]
        best = _most_specific(inputs)
        if not best:
            return []
        s = best[0]
        if op is Opcode.REDUCE:
            s = _reduce_forward(s, instr.attrs.dimensions)
        leaves = [s] * n
        return [_tuple_of(instr.shape, leaves) if instr.shape.is_tuple else s]
    if op is Opcode.DOT or op is Opcode.CONVOLUTION:
        lmap, rmap = _dot_dims(instr) if op is Opcode.DOT else _conv_dims(instr)
        rank = instr.shape.rank
        cands = []
        for operand, mapping in sorted(
            ((ops[0], lmap), (ops[1], rmap)), key=lambda t: -t[0].shape.num_elements
        ):
            if operand.sharding is not None:
                cands.append(_map_dims(operand.sharding, mapping, rank))
        return cands
    if op is Opcode.GATHER:
        return _gather_forward(instr)
    if op is Opcode.TUPLE:
        leaves: list[HloSharding | None] = []
        for o in ops:
            leaves.extend(_leaves(o))
        return [_tuple_of(instr.shape, leaves)]
    if op is Opcode.GET_TUPLE_ELEMENT:
        if s0 is None:
            return []
        return [s0.get_sub_sharding(ops[0].shape, (instr.attrs.index,))]
    if op is Opcode.WHILE:
        body = instr.attrs.body
        return [s0, body.root.sharding, body.parameters[0].sharding]
    if op is Opcode.CALL:
        return [instr.attrs.to_apply.root.sharding]
    if op is Opcode.CONDITIONAL:
        return list(_most_specific(c.root.sharding for c in instr.called_computations()))
    if op in (Opcode.OPTIMIZATION_BARRIER, Opcode.DOMAIN):
        return [s0]
    return []


# ---- backward rules -----------------------------------------------------------------------


def _dot_operand_from_output(
    instr: HloInstruction, user: HloInstruction, index: int
) -> list[HloSharding | None]:
    us = user.sharding
    assert us is not None
    if user.opcode is Opcode.DOT:
        lmap, rmap = _dot_dims(user)
    else:
        lmap, rmap = _conv_dims(user)
    mine = lmap if index == 0 else rmap
    inverse = {o: d for d, o in mine.items()}
    cands: list[HloSharding | None] = [_map_dims(us, inverse, instr.shape.rank)]
    other = user.operands[1 - index]
    if user.opcode is Opcode.DOT and other.sharding is not None:
        a = user.attrs
        mine_c = list(a.lhs_contracting_dims if index == 0 else a.rhs_contracting_dims)
        other_c = list(a.rhs_contracting_dims if index == 0 else a.lhs_contracting_dims)
        mine_b = list(a.lhs_batch_dims if index == 0 else a.rhs_batch_dims)
        other_b = list(a.rhs_batch_dims if index == 0 else a.lhs_batch_dims)
        mapping = dict(zip(other_c + other_b, mine_c + mine_b, strict=True))
        cands.append(_map_dims(other.sharding, mapping, instr.shape.rank))
    return cands


def _backward(instr: HloInstruction, user: HloInstruction, level: int) -> list[HloSharding | None]:
    """Candidate shardings for ``instr`` from one of its users."""
    us = user.sharding
    if us is None or not can_propagate_through(user, level):
        return []
    if us.is_manual and not us.is_tuple:
        return [HloSharding.single(instr.shape, us)]  # inside a manual region
    if not is_spatially_partitioned(us):
        return []  # only split users say something (XLA's GetShardingFromUser)
    op = user.opcode
    indices = [i for i, o in enumerate(user.operands) if o is instr]
    index = indices[0]
    if op is Opcode.CUSTOM_CALL:
        return [us] if _target(user) == SHARDING else []
    if op is Opcode.SELECT_AND_SCATTER:
        return [us] if index == 0 else []
    if _is_elementwise(user):
        if instr.shape.is_array and instr.shape.rank == user.shape.rank:
            return [us]
        return []
    if op is Opcode.BROADCAST:
        return [_broadcast_backward(us, user)]
    if op in (Opcode.RESHAPE, Opcode.BITCAST):
        if not instr.shape.is_array:
            return []
        return [reshape_sharding(user.shape, instr.shape, us)]
    if op is Opcode.TRANSPOSE:
        perm = list(user.attrs.dimensions)
        return [transpose_sharding(us, [perm.index(i) for i in range(len(perm))])]
    if op is Opcode.REVERSE:
        return [reverse_sharding(us, user.attrs.dimensions)]
    if op in (Opcode.DYNAMIC_SLICE, Opcode.DYNAMIC_UPDATE_SLICE, Opcode.CONCATENATE) and not level:
        return []
    if op is Opcode.DYNAMIC_SLICE:
        if index != 0:
            return []
        sizes = user.attrs.dynamic_slice_sizes
        sliced = [d for d in range(user.shape.rank) if sizes[d] != instr.shape.dims[d]]
        return [partially_replicate_tiled_dims(us, sliced)]
    if op is Opcode.DYNAMIC_UPDATE_SLICE:
        if index == 0:
            return [us]
        if index == 1:
            update = user.operands[1].shape
            differs = [d for d in range(update.rank) if update.dims[d] != user.shape.dims[d]]
            return [partially_replicate_tiled_dims(us, differs)]
        return []
    if op in (Opcode.REDUCE, Opcode.REDUCE_WINDOW):
        n = len(user.operands) // 2
        if index >= n:
            return []
        leaf = us.get_sub_sharding(user.shape, (index,)) if user.shape.is_tuple else us
        if op is Opcode.REDUCE_WINDOW:
            return [leaf]
        return [insert_dims(leaf, list(user.attrs.dimensions), instr.shape.rank)]
    if op in (Opcode.SORT, Opcode.SCATTER):
        n = len(user.operands) if op is Opcode.SORT else (len(user.operands) - 1) // 2
        if op is Opcode.SCATTER and index > n:  # updates: the passthrough dims
            leaf = us.get_sub_sharding(user.shape, (index - n - 1,)) if user.shape.is_tuple else us
            return [_map_dims(leaf, _scatter_passthrough(user), instr.shape.rank)]
        if op is Opcode.SCATTER and index == n:
            return []
        return [us.get_sub_sharding(user.shape, (index,)) if user.shape.is_tuple else us]
    if op in (Opcode.DOT, Opcode.CONVOLUTION):
        return _dot_operand_from_output(instr, user, index)
    if op is Opcode.GATHER:
        if index == 0:
            inverse = {o: d for d, o in _gather_passthrough(user).items()}
            return [_map_dims(us, inverse, instr.shape.rank)]
        a = user.attrs
        batch_out = [d for d in range(user.shape.rank) if d not in set(a.offset_dims)]
        batch_in = [d for d in range(instr.shape.rank) if d != a.index_vector_dim]
        mapping = dict(zip(batch_out, batch_in, strict=False))
        return [_map_dims(us, mapping, instr.shape.rank)]
    if op is Opcode.TUPLE:
        return [us.get_sub_sharding(user.shape, (index,))]
    if op is Opcode.GET_TUPLE_ELEMENT:
        leaves = _leaves(instr)
        shapes = list(instr.shape.tuple_shapes)
        start = sum(len(list(s.leaves())) if s.is_tuple else 1 for s in shapes[: user.attrs.index])
        sub = us.leaf_shardings(user.shape)
        leaves[start : start + len(sub)] = sub
        return [_tuple_of(instr.shape, leaves)]
    if op is Opcode.WHILE:
        return [us]
    if op is Opcode.CALL:
        return [user.attrs.to_apply.parameters[index].sharding]
    if op is Opcode.CONDITIONAL:
        if index == 0:
            return []
        return [user.called_computations()[index - 1].parameters[0].sharding]
    if op in (Opcode.CONCATENATE, Opcode.SLICE, Opcode.PAD, Opcode.COPY):
        return [us] if index == 0 or op is Opcode.CONCATENATE else []
    if op in (Opcode.OPTIMIZATION_BARRIER, Opcode.DOMAIN):
        return [us]
    return []


# ---- the pass -----------------------------------------------------------------------------


class _Context:
    """Module-wide facts the rules need: who calls each computation."""

    def __init__(self, module: HloModule) -> None:
        self.callers: dict[int, HloInstruction] = {}
        for comp in module.computations:
            for instr in comp.instructions:
                if instr.opcode in (Opcode.WHILE, Opcode.CALL, Opcode.CONDITIONAL):
                    for c in instr.called_computations():
                        self.callers[id(c)] = instr

    def from_caller(self, param: HloInstruction) -> list[HloSharding | None]:
        comp = param.parent
        caller = self.callers.get(id(comp)) if comp is not None else None
        if caller is None:
            return []
        if caller.opcode is Opcode.WHILE:
            return [caller.sharding, caller.operands[0].sharding, caller.attrs.body.root.sharding]
        if caller.opcode is Opcode.CALL:
            return [caller.operands[param.parameter_number].sharding]
        branches = caller.called_computations()
        index = next(i for i, c in enumerate(branches) if c is comp)
        return [caller.operands[index + 1].sharding]


def _improve(
    current: HloSharding | None, candidate: HloSharding, may_combine: bool
) -> HloSharding | None:
    """The better of ``current`` and ``candidate`` when it is the candidate (or a merge of
    both); None to keep ``current``."""
    if current is None:
        return candidate
    if current == candidate:
        return None
    if current.is_manual or candidate.is_manual:
        return None
    if may_combine and (current.has_partial_replication or candidate.has_partial_replication):
        merged = merge_sharding(current, candidate)
        if merged is not None and is_more_specific(merged, current):
            return merged
    if is_more_specific(candidate, current):
        return candidate
    return None


def _fits(s: HloSharding, shape: Shape) -> bool:
    """``s`` can describe a value of ``shape`` (tuple leaves, tiled data rank)."""
    if shape.is_tuple:
        if not s.is_tuple:
            return False
        leaves = [lf for lf in shape.leaves()]
        return len(s.tuple_elements) == len(leaves) and all(
            _fits(e, lf) for e, lf in zip(s.tuple_elements, leaves, strict=True)
        )
    if s.is_tuple or not shape.is_array:
        return False
    return s.kind != "tiled" or s.tiled_data_rank == shape.rank


@register_pass
@dataclass(frozen=True)
class ShardingPropagation(Pass):
    """Gives every instruction a sharding (see the module docstring).

    Attributes:
        propagate_to_parameters: replace the entry parameters' shardings too (default: the
            module's ``allow_spmd_sharding_propagation_to_parameters``).
        propagate_to_output: the same for the entry root
            (``allow_spmd_sharding_propagation_to_output``).
    """

    name: ClassVar[str] = "sharding-propagation"
    propagate_to_parameters: bool | None = None
    propagate_to_output: bool | None = None

    def run(self, module: HloModule) -> bool:
        changed = import_sdy_hlo(module)
        config = module.config
        to_params = self.propagate_to_parameters
        if to_params is None:
            to_params = any(config.allow_spmd_sharding_propagation_to_parameters)
        to_output = self.propagate_to_output
        if to_output is None:
            to_output = any(config.allow_spmd_sharding_propagation_to_output)
        entry = module.entry
        groups: Groups = {}
        open_dims = _constraints_to_copies(module, groups)
        changed |= bool(open_dims) or bool(groups)
        provided: set[int] = set()
        for comp in module.computations:
            for instr in comp.instructions:
                if instr.sharding is not None and instr.sharding.is_unknown:
                    instr.sharding = None
                if instr.sharding is None:
                    continue
                if instr.opcode is Opcode.PARAMETER:
                    if comp is entry and not to_params:
                        provided.add(id(instr))
                elif instr is not entry.root:
                    provided.add(id(instr))
        if not to_output and entry.root.sharding is not None:
            provided.add(id(entry.root))  # (without one, the caller left the result open)
        ctx = _Context(module)
        state = _Run(module, ctx, provided, open_dims, groups)
        for level in range(4):
            changed |= state.to_fixed_point(level)
        if groups:
            changed |= _align_shard_as(groups, provided)
            changed |= state.to_fixed_point(3)
        changed |= _complete(module)
        return changed


class _Run:
    def __init__(
        self,
        module: HloModule,
        ctx: _Context,
        provided: set[int],
        open_dims: dict[int, tuple[int, ...]],
        groups: Groups,
    ) -> None:
        self.module = module
        self.ctx = ctx
        self.provided = provided
        self.open_dims = open_dims
        self.group_of: dict[int, list[HloInstruction]] = {}
        for members in groups.values():
            for m in members:
                self.group_of[id(m)] = members
        self.orders = {id(c): c.post_order() for c in module.computations}
        self.users: dict[int, list[HloInstruction]] = {}
        for comp in module.computations:
            for instr, users in comp.user_map().items():
                self.users[id(instr)] = users

    def to_fixed_point(self, level: int) -> bool:
        may_combine = level > 0
        done_fwd: set[int] = set()
        done_bwd: set[int] = set()
        any_change = False
        changed = True
        while changed:
            changed = False
            for comp in self.module.computations:
                order = self.orders[id(comp)]
                for instr in order:
                    if id(instr) in done_fwd:
                        continue
                    done_fwd.add(id(instr))
                    if not can_propagate_through(instr, level):
                        continue
                    cands = _forward(instr, self.ctx)
                    cands += [
                        m.sharding for m in self.group_of.get(id(instr), ()) if m is not instr
                    ]
                    if self._infer(instr, cands, may_combine):
                        self._touched(instr, done_fwd, done_bwd)
                        changed = True
                for instr in reversed(order):
                    if id(instr) in done_bwd:
                        continue
                    done_bwd.add(id(instr))
                    cands = []
                    for user in self.users.get(id(instr), []):
                        cands += _backward(instr, user, level)
                    cands += self._related_backward(instr)
                    if self._infer(instr, cands, may_combine):
                        self._touched(instr, done_fwd, done_bwd)
                        changed = True
            any_change |= changed
        return any_change

    def _related_backward(self, instr: HloInstruction) -> list[HloSharding | None]:
        """A computation's root and parameters share the caller's sharding (while bodies,
        calls, conditional branches)."""
        comp = instr.parent
        caller = self.ctx.callers.get(id(comp)) if comp is not None else None
        if caller is None or instr is not comp.root:  # type: ignore[union-attr]
            return []
        if caller.opcode is Opcode.WHILE:
            return [caller.sharding] if comp is caller.attrs.body else []
        return [caller.sharding]

    def _touched(self, instr: HloInstruction, done_fwd: set[int], done_bwd: set[int]) -> None:
        for m in self.group_of.get(id(instr), ()):
            done_fwd.discard(id(m))
        for o in instr.operands:
            done_bwd.discard(id(o))
        for u in self.users.get(id(instr), []):
            done_fwd.discard(id(u))
            for c in u.called_computations():
                for p in c.parameters:
                    done_fwd.discard(id(p))
                done_bwd.discard(id(c.root))
        for c in instr.called_computations():
            for p in c.parameters:
                done_fwd.discard(id(p))
            done_bwd.discard(id(c.root))
        comp = instr.parent
        caller = self.ctx.callers.get(id(comp)) if comp is not None else None
        if caller is not None:
            done_fwd.discard(id(caller))
            done_bwd.discard(id(caller))
            for o in caller.operands:
                done_bwd.discard(id(o))
            for c in caller.called_computations():
                for p in c.parameters:
                    done_fwd.discard(id(p))

    def _infer(
        self,
        instr: HloInstruction,
        candidates: Sequence[HloSharding | None],
        may_combine: bool,
    ) -> bool:
        if id(instr) in self.provided:
            return may_combine and self._refine_open(instr, candidates)
        changed = False
        for cand in candidates:
            if cand is None or not _fits(cand, instr.shape):
                continue
            if instr.shape.is_tuple:
                cur = _leaves(instr)
                new = list(cur)
                for i, (c, n) in enumerate(zip(cur, cand.tuple_elements, strict=True)):
                    better = _improve(c, n, may_combine)
                    if better is not None:
                        new[i] = better
                if new != cur:
                    instr.sharding = _tuple_of(instr.shape, new)
                    changed = True
                continue
            better = _improve(instr.sharding, cand, may_combine)
            if better is not None:
                instr.sharding = better
                changed = True
        if changed:
            record("sharding-propagation/inferred")
        return changed

    def _refine_open(self, instr: HloInstruction, candidates: Sequence[HloSharding | None]) -> bool:
        """A constraint's unspecified dims take the candidates' tiling on those dims."""
        dims = self.open_dims.get(id(instr))
        if not dims or instr.sharding is None:
            return False
        for cand in candidates:
            if cand is None or not is_spatially_partitioned(cand) or not _fits(cand, instr.shape):
                continue
            partial = partially_replicate_all_except(cand, dims)
            if instr.sharding.is_replicated and is_spatially_partitioned(partial):
                instr.sharding = partial
                return True
            merged = merge_sharding(instr.sharding, partial)
            if merged is not None and is_more_specific(merged, instr.sharding):
                instr.sharding = merged
                return True
        return False


Groups = dict[tuple[str, int], list[HloInstruction]]
"""``shard_alike`` groups: (``shard_as``/``shard_like``, id) -> members."""


def _constraints_to_copies(module: HloModule, groups: Groups) -> dict[int, tuple[int, ...]]:
    """XLA's ``ProcessShardingInstruction``: each ``Sharding`` custom call becomes a ``copy``
    with its sharding; a fully specified one also gives its sharding to an operand that has
    none. A ``{unknown shard_as N}`` constraint or an ``xla.sdy.ShardingGroup`` call puts its
    operand in group N (into ``groups``) and goes. Returns the open dims of the copies (by
    id; empty when none is open)."""
    open_dims: dict[int, tuple[int, ...]] = {}
    for comp in reversed(module.computations):  # callers first: XLA's names for the copies
        for instr in reversed(comp.post_order()):
            if _target(instr) == SHARDING_GROUP:
                group = instr.frontend_attributes.get("xla.sdy.sharding_group_id", "0")
                groups.setdefault(("shard_as", int(group.split(":")[0])), []).append(
                    instr.operands[0]
                )
                comp.remove_instruction(instr)
                continue
            if _target(instr) != SHARDING or instr.sharding is None:
                continue
            kind, _, number = instr.sharding.shard_group.partition(" ")
            if instr.sharding.is_unknown:
                if kind:
                    groups.setdefault((kind, int(number)), []).append(instr.operands[0])
                comp.replace_all_uses(instr, instr.operands[0])
                comp.remove_instruction(instr)
                continue
            dims = unspecified_dims(instr)
            sharding = instr.sharding.with_shard_group("") if kind else instr.sharding
            copy = HloInstruction(
                Opcode.COPY, instr.shape, [instr.operands[0]], name="copy",
                sharding=sharding, metadata=instr.metadata,
            )  # fmt: skip
            comp.add_instruction(copy, before=instr)
            comp.replace_all_uses(instr, copy)
            comp.remove_instruction(instr)
            open_dims[id(copy)] = dims
            if kind:
                groups.setdefault((kind, int(number)), []).append(copy)
            operand = copy.operands[0]
            if not dims and operand.sharding is None:
                operand.sharding = copy.sharding
    return open_dims


def _align_shard_as(groups: Groups, provided: set[int]) -> bool:
    """Every member of a ``shard_as`` group takes the group's most specific sharding (XLA's
    final alignment; ``shard_like`` members only propagate to each other)."""
    changed = False
    for (kind, _), members in groups.items():
        if kind != "shard_as":
            continue
        shapes = {tuple(m.shape.dims) for m in members if m.shape.is_array}
        best = _most_specific(m.sharding for m in members)
        if not best or len(shapes) != 1:
            continue
        for m in members:
            if id(m) not in provided and m.sharding != best[0]:
                m.sharding = best[0]
                changed = True
    return changed


def _complete(module: HloModule) -> bool:
    """Every instruction propagation left without a sharding becomes replicated."""
    changed = False
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.sharding is None:
                instr.sharding = HloSharding.single(instr.shape, HloSharding.replicate())
                changed = True
    return changed
