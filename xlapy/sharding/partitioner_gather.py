"""Partitioning ``gather`` and ``scatter`` (XLA's ``gather_scatter_handler.cc``: passthrough
and index masking).

A table tiled only on dims the gather slices whole keeps its tiling: each device gathers from
its piece, and those dims pass through to the result's offset dims.

A table tiled on one dim that the gather indexes with single rows (a collapsed dim of
``start_index_map``: an embedding lookup with the table split on the vocabulary) stays
where it is: every device looks the (replicated) indices up in its own rows, after the
global clamp of the start index to the table, shifted by its rows' offset; lookups of rows
it does not hold are set to zero and an all-reduce sums the pieces over the devices that
split the table. This is chosen when the all-reduce sends less than gathering the table
would; anything else runs on replicated operands.
"""

from __future__ import annotations

import numpy as np

from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.sharding.comm import shape_bytes
from xlapy.sharding.partitioner import ComputationPartitioner, PValue, replicated_fallback
from xlapy.sharding.partitioner_builder import PRED
from xlapy.sharding.partitioner_ops import derive, handles, rebuild, tiling_of
from xlapy.sharding.partitioner_tiling import Tiling


def _masked_dim(instr: HloInstruction, t: Tiling) -> int | None:
    """The table dim the masked lookup applies to, or None."""
    a = instr.attrs
    tiled = [d for d in range(t.rank) if t.tiles[d] > 1]
    if len(tiled) != 1 or a.operand_batching_dims:
        return None
    d = tiled[0]
    if d not in a.collapsed_slice_dims or d not in a.start_index_map:
        return None
    if instr.shape.element_type.numpy is None or instr.shape.element_type.name == "pred":
        return None
    return d


def _passthrough(p: ComputationPartitioner, instr: HloInstruction, t: Tiling) -> PValue | None:
    """The gather computed where the table lies when only dims it slices whole are tiled
    (they pass through to the result's offset dims); None otherwise."""
    a = instr.attrs
    table = instr.operands[0]
    whole = [d for d in range(t.rank) if a.slice_sizes[d] == table.shape.dims[d]
             and d not in a.collapsed_slice_dims and d not in a.operand_batching_dims]  # fmt: skip
    tiled = [d for d in range(t.rank) if t.tiles[d] > 1]
    if not tiled or any(d not in whole for d in tiled):
        return None
    local_dims = t.shard_dims(table.shape.dims)
    sizes = tuple(local_dims[d] if d in whole else n for d, n in enumerate(a.slice_sizes))
    idx = p.operand(instr, 1, p.replicated(instr.operands[1].shape))
    kept = [d for d in range(t.rank) if d not in a.collapsed_slice_dims
            and d not in a.operand_batching_dims]  # fmt: skip
    out_map: list[int | None] = [None] * instr.shape.rank
    for position, d in zip(a.offset_dims, kept, strict=True):
        out_map[position] = d
    new = rebuild(p, instr, [p.value(table).instr, idx], slice_sizes=sizes)
    return PValue(new, instr.shape, derive(t, out_map))


@handles(Opcode.GATHER)
def gather(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    table, indices = instr.operands
    t = tiling_of(p.value(table))
    passed = _passthrough(p, instr, t)
    if passed is not None:
        return passed
    d = _masked_dim(instr, t)
    if d is None:
        return replicated_fallback(p, instr)
    n = t.tiles[d]
    all_reduce = 2 * (n - 1) / n * shape_bytes(instr.shape)
    gather_table = (n - 1) * shape_bytes(table.shape) / n
    if gather_table <= all_reduce:
        return replicated_fallback(p, instr)
    a = instr.attrs
    b = p.b
    idx = p.operand(instr, 1, p.replicated(indices.shape))
    itype = indices.shape.element_type
    c = t.shard_dims(table.shape.dims)[d]
    rows = int(table.shape.dims[d])
    offsets = b.add(Opcode.CONVERT, [b.table([int(k) * c for k in t.index[:, d]])],
                    shape=Shape.scalar(itype))  # fmt: skip
    k = list(a.start_index_map).index(d)
    ivd = a.index_vector_dim
    vector = ivd < indices.shape.rank
    size = indices.shape.dims[ivd] if vector else 1
    info = np.iinfo(itype.numpy)

    def per_component(values: list[int | HloInstruction]) -> HloInstruction:
        """A vector over the index components (or a scalar), broadcast to the indices."""
        parts = [v if isinstance(v, HloInstruction) else b.constant(v, itype) for v in values]
        if not vector:
            return b.scalar_like(parts[0], indices.shape.dims)
        vec = b.add(Opcode.CONCATENATE, [b.reshape(x, (1,)) for x in parts], {"dimensions": (0,)})
        return b.add(Opcode.BROADCAST, [vec], {"dimensions": (ivd,)},
                     shape=indices.shape)  # fmt: skip

    other_lo, other_hi = int(info.min), int(info.max)
    lo = [0 if j == k else other_lo for j in range(size)]
    hi = [rows - 1 if j == k else other_hi for j in range(size)]
    clamped = b.add(Opcode.CLAMP, [per_component(lo), idx, per_component(hi)])
    zero = b.constant(0, itype)
    shift = per_component([offsets if j == k else zero for j in range(size)])
    shifted = b.add(Opcode.SUBTRACT, [clamped, shift])
    local_hi = [c - 1 if j == k else other_hi for j in range(size)]
    local = b.add(Opcode.CLAMP, [per_component(lo), shifted, per_component(local_hi)])
    component = shifted
    if vector:
        spec = [A.SliceDimension(0, n_, 1) for n_ in indices.shape.dims]
        spec[ivd] = A.SliceDimension(k, k + 1, 1)
        piece = b.add(Opcode.SLICE, [shifted], {"slice": A.SliceSpec(tuple(spec))})
        batch = [n_ for j, n_ in enumerate(indices.shape.dims) if j != ivd]
        component = b.reshape(piece, batch)
    dims = component.shape.dims
    inside = b.add(
        Opcode.AND,
        [
            b.add(Opcode.COMPARE, [component, b.scalar_like(zero, dims)],
                  {"direction": A.ComparisonDirection.GE}),
            b.add(Opcode.COMPARE, [component, b.scalar_like(b.constant(c, itype), dims)],
                  {"direction": A.ComparisonDirection.LT}),
        ],
    )  # fmt: skip
    local_table = p.value(table).instr
    looked_up = rebuild(p, instr, [local_table, local])
    batch_positions = tuple(j for j in range(instr.shape.rank) if j not in a.offset_dims)
    mask = b.add(Opcode.BROADCAST, [inside], {"dimensions": batch_positions},
                 shape=Shape.array(PRED, instr.shape.dims))  # fmt: skip
    masked = b.select(mask, looked_up, b.constant(0, instr.shape.element_type))
    add = p.state.reducer(Opcode.ADD, instr.shape.element_type)
    summed = b.all_reduce(masked, add, t.groups_along([d]))
    return PValue(summed, instr.shape, p.replicated(instr.shape))


@handles(Opcode.SCATTER)
def scatter(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Into a table tiled on one dim that the scatter indexes with single rows (an embedding
    gradient): every device applies the (replicated) updates to its own rows, the indices
    shifted by its rows' offset; an update aimed at another device's rows falls outside
    this device's piece and is dropped, as XLA drops out-of-bounds update windows (rows past
    the table land in padding). Anything else runs on replicated operands."""
    a = instr.attrs
    n = (len(instr.operands) - 1) // 2
    t = tiling_of(p.value(instr.operands[0]))
    tiled = [d for d in range(t.rank) if t.tiles[d] > 1]
    if (
        len(tiled) != 1
        or a.input_batching_dims
        or tiled[0] not in a.inserted_window_dims
        or tiled[0] not in a.scatter_dims_to_operand_dims
    ):
        return replicated_fallback(p, instr)
    d = tiled[0]
    b = p.b
    operands = [p.operand(instr, i, t) for i in range(n)]
    indices = instr.operands[n]
    idx = p.operand(instr, n, p.replicated(indices.shape))
    updates = [p.operand(instr, n + 1 + i, p.replicated(u.shape))
               for i, u in enumerate(instr.operands[n + 1 :])]  # fmt: skip
    itype = indices.shape.element_type
    c = t.shard_dims(instr.operands[0].shape.dims)[d]
    offset = b.add(Opcode.CONVERT, [b.table([int(k) * c for k in t.index[:, d]])],
                   shape=Shape.scalar(itype))  # fmt: skip
    k = list(a.scatter_dims_to_operand_dims).index(d)
    ivd = a.index_vector_dim
    if ivd < indices.shape.rank:
        zero = b.constant(0, itype)
        parts = [offset if j == k else zero for j in range(indices.shape.dims[ivd])]
        vec = b.add(Opcode.CONCATENATE, [b.reshape(x, (1,)) for x in parts], {"dimensions": (0,)})
        shift = b.add(Opcode.BROADCAST, [vec], {"dimensions": (ivd,)}, shape=indices.shape)
    else:
        shift = b.scalar_like(offset, indices.shape.dims)
    local = b.add(Opcode.SUBTRACT, [idx, shift])
    new = rebuild(p, instr, [*operands, local, *updates])
    return PValue(new, instr.shape, t if n == 1 else tuple(t for _ in range(n)))
