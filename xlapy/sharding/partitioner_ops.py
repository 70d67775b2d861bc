"""Partitioning handlers for elementwise, shape, reduction and sort ops
(dot: ``partitioner_dot.py``; gather: ``partitioner_gather.py``; convolution, reduce-window:
``partitioner_windows.py``; control flow: ``partitioner_control.py``).

Each handler takes the instruction of the global program, reshards its operands to what a
local computation needs and returns the per-device result with its tiling; the visitor then
reshards that to the instruction's own sharding. The rules are XLA's where XLA has a cheap
one (elementwise ops follow their result, reductions over a tiled dim all-reduce partial
results with padding masked to the reducer's identity, reshapes keep tiles of dims that stay
major in their group); a dim an op must see whole (sorted, sliced, padded, windowed, reversed,
concatenated) is all-gathered first, as XLA does when it has nothing better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY, Trait
from xlapy.shape import Shape
from xlapy.sharding.partitioner import (
    HANDLERS,
    ComputationPartitioner,
    PValue,
    replicated_fallback,
)
from xlapy.sharding.partitioner_tiling import Tiling
from xlapy.sharding.reshard import mask_padding


def handles(*opcodes: Opcode):
    def register(fn):
        for opcode in opcodes:
            HANDLERS[opcode] = fn
        return fn

    return register


def derive(t: Tiling, mapping: Sequence[int | None]) -> Tiling:
    """A tiling of rank ``len(mapping)``: new dim k takes ``t``'s tile axis ``mapping[k]``
    (one tile when None); ``t``'s other axes join the replication dim."""
    used = [m for m in mapping if m is not None]
    rest = [a for a in range(t.rank + 1) if a not in used]
    moved = np.transpose(t.devices, used + rest)
    tiles = [1 if m is None else t.tiles[m] for m in mapping]
    return Tiling(moved.reshape([*tiles, -1]))


def rebuild(p: ComputationPartitioner, instr: HloInstruction, operands: Sequence[HloInstruction],
            shape: Shape | None = None, **changes: object) -> HloInstruction:  # fmt: skip
    """``instr``'s op over per-device ``operands`` (attributes changed by ``changes``)."""
    attrs = {spec.name: instr.attrs[spec.name] for spec in instr.opdef.attrs}
    attrs.update(changes)
    new = p.b.comp.make_instruction(instr.opcode, operands, attrs, shape=shape, name=instr.name)
    new.metadata = instr.metadata
    return p.b.comp.add_instruction(new)


def tiling_of(v: PValue) -> Tiling:
    assert isinstance(v.tiling, Tiling), v
    return v.tiling


def gather_dims(t: Tiling, dims: Sequence[int]) -> Tiling:
    """``t`` with ``dims`` whole on every device."""
    tiled = [d for d in dims if t.tiles[d] > 1]
    return t.gathered(tiled) if tiled else t


def local_dims(shape: Shape, t: Tiling) -> tuple[int, ...]:
    return t.shard_dims(shape.dims)


# ---- elementwise ---------------------------------------------------------------------------
def cheapest(p: ComputationPartitioner, values: Sequence[PValue]) -> Tiling:
    """Of the values' own tilings, the one the others reach sending the fewest bytes (then
    the most tiled, then the first)."""
    arrays = [v for v in values if v.shape.rank == values[0].shape.rank]
    candidates = list(dict.fromkeys(tiling_of(v) for v in arrays))
    scored = [
        (sum(p.cost(v, t) for v in arrays), -math.prod(t.tiles), k)
        for k, t in enumerate(candidates)
    ]
    return candidates[min(scored)[2]]


def elementwise(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Operands resharded to the result's tiling (without one: the operand tiling the
    others reach most cheaply)."""
    values = [p.value(o) for o in instr.operands]
    target = p.target(instr)
    same_rank = [v for v in values if v.shape.rank == instr.shape.rank]
    tiling = target if isinstance(target, Tiling) else cheapest(p, same_rank)
    operands = [
        v.instr if v.shape.rank != instr.shape.rank else p.resharded(v, tiling).instr
        for v in values
    ]
    shape = Shape(instr.shape.element_type, tiling.shard_dims(instr.shape.dims))
    return PValue(rebuild(p, instr, operands, shape=shape), instr.shape, tiling)


for _op, _def in REGISTRY.items():
    if Trait.ELEMENTWISE in _def.traits and Trait.COLLECTIVE not in _def.traits:
        HANDLERS[_op] = elementwise


@handles(Opcode.BITCAST_CONVERT)
def bitcast_convert(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    if instr.shape.rank == instr.operands[0].shape.rank:
        return elementwise(p, instr)
    return replicated_fallback(p, instr)


# ---- structure -----------------------------------------------------------------------------
@handles(Opcode.TUPLE)
def tuple_(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    return p.tuple_of(instr.shape, [p.value(o) for o in instr.operands])


@handles(Opcode.GET_TUPLE_ELEMENT)
def get_tuple_element(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    v = p.value(instr.operands[0])
    k = instr.attrs.index
    if v.elements is not None:
        return v.elements[k]
    if v.instr.opcode is Opcode.TUPLE:
        element = v.instr.operands[k]
    else:
        element = p.b.add(Opcode.GET_TUPLE_ELEMENT, [v.instr], {"index": k})
    assert isinstance(v.tiling, tuple)
    return PValue(element, instr.shape, v.tiling[k])


@handles(Opcode.OPTIMIZATION_BARRIER)
def optimization_barrier(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    v = p.value(instr.operands[0])
    new = p.b.comp.add_instruction(HloInstruction(Opcode.OPTIMIZATION_BARRIER, v.instr.shape,
                                                  [v.instr], name=instr.name))  # fmt: skip
    return PValue(new, instr.shape, v.tiling)


SHARDING_CALLS = ("Sharding", "xla.sdy.FuncResultSharding", "xla.sdy.ShardingConstraint",
                  "SdyShardingConstraint", "xla.sdy.GlobalToLocalShape")  # fmt: skip


@handles(Opcode.CUSTOM_CALL)
def custom_call(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """``Sharding`` (and Shardy's sharding custom calls) reshard their operand to their own
    sharding (the visitor does it); other custom calls run on replicated operands (manual
    regions: ``partitioner_manual.py``)."""
    target = instr.attrs.custom_call_target
    if target in SHARDING_CALLS and len(instr.operands) == 1:
        return p.value(instr.operands[0])
    return replicated_fallback(p, instr)


# ---- creation --------------------------------------------------------------------------------
@handles(Opcode.CONSTANT)
def constant(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    new = p.b.add(Opcode.CONSTANT, [], {"literal": instr.attrs.literal})
    return PValue(new, instr.shape, p.replicated(instr.shape))


@handles(Opcode.IOTA)
def iota(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Built in the tiling its user asks for (deferred): a local iota plus this device's
    offset along the iota dimension."""
    dim = instr.attrs.iota_dimension

    def make(t: Tiling) -> HloInstruction:
        dims = t.shard_dims(instr.shape.dims)
        local = p.b.add(Opcode.IOTA, [], {"iota_dimension": dim},
                        shape=Shape(instr.shape.element_type, dims))  # fmt: skip
        if t.tiles[dim] > 1:
            offsets = [int(k) * dims[dim] for k in t.index[:, dim]]
            offset = p.b.add(Opcode.CONVERT, [p.b.table(offsets)],
                             shape=Shape.scalar(instr.shape.element_type))  # fmt: skip
            local = p.b.add(Opcode.ADD, [local, p.b.scalar_like(offset, dims)])
        return local

    replicated = p.replicated(instr.shape)
    assert isinstance(replicated, Tiling)
    return PValue(None, instr.shape, replicated, make, lambda t: 0.0)


# ---- shape ops -------------------------------------------------------------------------------
@handles(Opcode.BROADCAST)
def broadcast(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Built in the tiling its user asks for (deferred), from its operand resharded to the
    matching dims: a broadcast of a scalar or a bias never moves the broadcast result. An
    operand dim of size 1 expanded to a longer result dim is kept whole."""
    v = p.value(instr.operands[0])
    out_dims = instr.shape.dims
    dims = [d if v.shape.dims[k] == out_dims[d] else None
            for k, d in enumerate(instr.attrs.dimensions)]  # fmt: skip

    def make(t: Tiling) -> HloInstruction:
        operand = p.resharded(v, derive(t, dims)).instr
        shape = Shape(instr.shape.element_type, t.shard_dims(out_dims))
        return rebuild(p, instr, [operand], shape=shape)

    def make_cost(t: Tiling) -> float:
        return p.cost(v, derive(t, dims))

    inverse = {d: k for k, d in enumerate(dims) if d is not None}
    natural = derive(tiling_of(v), [inverse.get(r) for r in range(instr.shape.rank)])
    return PValue(None, instr.shape, natural, make, make_cost)


@handles(Opcode.TRANSPOSE)
def transpose(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    v = p.value(instr.operands[0])
    perm = list(instr.attrs.dimensions)
    inverse = [perm.index(j) for j in range(len(perm))]
    target = p.target(instr)
    t = target if isinstance(target, Tiling) else derive(tiling_of(v), perm)
    operand = p.resharded(v, derive(t, inverse)).instr
    return PValue(rebuild(p, instr, [operand]), instr.shape, t)


def reshape_blocks(a: Sequence[int], b: Sequence[int]) -> list[tuple[list[int], list[int]]] | None:
    """Groups of operand and result dims with equal products (None with zero-size dims)."""
    if 0 in a or 0 in b:
        return None
    blocks: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        bi, bj, pa, pb = [i], [j], a[i], b[j]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                bi.append(i)
                pa *= a[i]
                i += 1
            else:
                bj.append(j)
                pb *= b[j]
                j += 1
        blocks.append((bi, bj))
    if blocks:
        blocks[-1][0].extend(range(i, len(a)))
        blocks[-1][1].extend(range(j, len(b)))
    return blocks


def _major(block: list[int], dims: Sequence[int]) -> int:
    return next((d for d in block if dims[d] > 1), block[0])


def _divides(k: int, sizes: Sequence[int]) -> bool:
    return all(n % k == 0 for n in sizes)


def _keepable(t: Tiling, src_dims: Sequence[int], dst_dims: Sequence[int],
              blocks: list[tuple[list[int], list[int]]]) -> Tiling:  # fmt: skip
    """``t`` changed so that a local reshape can keep it: in each group of merged/split
    dims, a tile axis on a minor dim moves to the group's untiled major dim (an all-to-all)
    when the sizes allow; tiles it still cannot keep are gathered."""
    for src_block, dst_block in blocks:
        src_major, dst_major = _major(src_block, src_dims), _major(dst_block, dst_dims)
        tiled = [d for d in src_block if t.tiles[d] > 1]
        sizes = (src_dims[src_major], dst_dims[dst_major])
        if all(d == src_major and _divides(t.tiles[d], sizes) for d in tiled):
            continue
        if len(tiled) == 1 and t.tiles[src_major] == 1 and _divides(t.tiles[tiled[0]], sizes):
            t = t.moved(tiled[0], src_major)
        else:
            t = gather_dims(t, tiled)
    return t


def _carry_tiling(t: Tiling, src_dims: Sequence[int], dst_dims: Sequence[int],
                  blocks: list[tuple[list[int], list[int]]]) -> Tiling:  # fmt: skip
    """The tiling of the reshaped value (``t`` is ``_keepable``)."""
    tiles = [1] * len(dst_dims)
    for src_block, dst_block in blocks:
        tiles[_major(dst_block, dst_dims)] = t.tiles[_major(src_block, src_dims)]
    return Tiling(t.devices.reshape([*tiles, t.rep]))


@handles(Opcode.RESHAPE)
def reshape(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Local when only the major dim of each group of merged/split dims is tiled (evenly);
    other tile axes move to the major dim or are gathered first (``_keepable``; on the
    result's side when it has a sharding, which is then reached by a reshard)."""
    v = p.value(instr.operands[0])
    src, dst = list(v.shape.dims), list(instr.shape.dims)
    blocks = reshape_blocks(src, dst)
    if blocks is None:
        return replicated_fallback(p, instr)
    target = p.target(instr)
    if isinstance(target, Tiling):
        back = [(bj, bi) for bi, bj in blocks]
        t = _keepable(target, dst, src, back)
        operand_t = _carry_tiling(t, dst, src, back)
    else:
        operand_t = _keepable(tiling_of(v), src, dst, blocks)
        t = _carry_tiling(operand_t, src, dst, blocks)
    operand = p.resharded(v, operand_t).instr
    return PValue(p.b.reshape(operand, t.shard_dims(dst)), instr.shape, t)


def whole_dims_op(p: ComputationPartitioner, instr: HloInstruction, whole: Sequence[int],
                   local_attrs: dict[str, object] | None = None,
                   n_data: int = 1) -> PValue:  # fmt: skip
    """An op that must see data dims ``whole`` entirely: its first ``n_data`` operands take
    the tiling (one of theirs, gathered there) they reach most cheaply, the others are
    replicated (scalars), and it runs locally; ``local_attrs`` is a function of the local
    operand dims."""
    data = [p.value(o) for o in instr.operands[:n_data]]
    candidates = list(dict.fromkeys(gather_dims(tiling_of(v), whole) for v in data))
    costs = [sum(p.cost(v, c) for v in data) for c in candidates]
    t = candidates[costs.index(min(costs))]
    operands = []
    for i, o in enumerate(instr.operands):
        operands.append(p.operand(instr, i, t if i < n_data else p.replicated(o.shape)))
    changes = local_attrs(operands[0].shape.dims, t) if callable(local_attrs) else {}
    result_t = t if instr.shape.is_array else tuple(t for _ in instr.shape.tuple_shapes)
    return PValue(rebuild(p, instr, operands, **changes), instr.shape, result_t)


@handles(Opcode.SLICE)
def slice_(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Sliced dims gathered, except a prefix ``[0:limit]`` of a tiled dim whose pieces keep
    their size (``ceil(limit / t) == ceil(N / t)``): each device keeps its piece, the part
    past ``limit`` becoming padding; and one tiled dim cut elsewhere is shifted between
    neighbours (``shifted_slice``) when that is cheaper than gathering it."""
    spec = instr.attrs.slice
    dims = instr.operands[0].shape.dims
    tiles = tiling_of(p.value(instr.operands[0])).tiles
    cut = [i for i, d in enumerate(spec.dimensions)
           if (d.start, d.limit, d.stride) != (0, dims[i], 1)]  # fmt: skip
    kept = [i for i in cut if tiles[i] > 1 and spec.dimensions[i].start == 0
            and spec.dimensions[i].stride == 1
            and -(-spec.dimensions[i].limit // tiles[i]) == -(-dims[i] // tiles[i])]  # fmt: skip

    def local(local_dims: Sequence[int], t: Tiling) -> dict[str, object]:
        parts = tuple(A.SliceDimension(0, local_dims[i], 1) if i not in cut or i in kept else d
                      for i, d in enumerate(spec.dimensions))  # fmt: skip
        return {"slice": A.SliceSpec(parts)}

    moved = [i for i in cut if i not in kept]
    if len(moved) == 1 and tiles[moved[0]] > 1 and spec.dimensions[moved[0]].stride == 1:
        v = p.value(instr.operands[0])
        d = spec.dimensions[moved[0]]
        shifted = shifted_slice(p, v, moved[0], d.start, d.limit - d.start)
        if shifted is not None:
            return PValue(shifted, instr.shape, tiling_of(v))
    return whole_dims_op(p, instr, moved, local)


def shift_rows(t: Tiling, dims: Sequence[int], dim: int, start: int,
               size: int) -> tuple[dict[int, tuple[int, int]], list[int]]:  # fmt: skip
    """For ``shifted_slice``: per device offset r, the local rows ``[lo, hi)`` of the piece
    some device needs from its r-th neighbour; and each device's first offset."""
    n = t.tiles[dim]
    c = t.shard_dims(dims)[dim]
    c_out = -(-size // n)
    rows: dict[int, tuple[int, int]] = {}
    first_offset = []
    for i in range(n):
        a = start + i * c_out
        first_offset.append(a // c - i)
        for k in range(a // c, (a + c_out - 1) // c + 1):
            lo, hi = max(a, k * c) - k * c, min(a + c_out, (k + 1) * c) - k * c
            old = rows.get(k - i, (lo, hi))
            rows[k - i] = (min(lo, old[0]), max(hi, old[1]))
    for r in range(min(rows), max(rows) + 1):
        rows.setdefault(r, (0, c))
    return rows, first_offset


def shift_cost(t: Tiling, shape: Shape, dim: int, start: int, size: int) -> float:
    """Bytes each device sends for ``shifted_slice``."""
    rows, _ = shift_rows(t, shape.dims, dim, start, size)
    piece = t.shard_dims(shape.dims)
    per_row = math.prod(piece) // max(piece[dim], 1) * max(1, shape.element_type.bits // 8)
    return sum(hi - lo for r, (lo, hi) in rows.items() if r != 0) * per_row


def gather_cost(t: Tiling, shape: Shape, dim: int) -> float:
    """Bytes each device sends to gather ``dim`` whole."""
    return (t.tiles[dim] - 1) * math.prod(t.shard_dims(shape.dims)) * max(
        1, shape.element_type.bits // 8)  # fmt: skip


def shifted_slice(p: ComputationPartitioner, v: PValue, dim: int, start: int,
                  size: int) -> HloInstruction | None:  # fmt: skip
    """``v[start:start+size]`` along tiled ``dim``, tiled the same way (pieces of ``c'``):
    device i needs rows ``[start + i*c', ...+c')``, found in its own piece and in those of
    devices ``i + r``; for each offset ``r`` one ``collective-permute`` brings the rows of
    the piece any device needs at that offset, the received rows are joined in order and
    each device cuts its piece from them. None when that sends more than gathering."""
    t = tiling_of(v)
    n = t.tiles[dim]
    c = t.shard_dims(v.shape.dims)[dim]
    c_out = -(-size // n)
    if shift_cost(t, v.shape, dim, start, size) >= gather_cost(t, v.shape, dim):
        return None
    rows, first_offset = shift_rows(t, v.shape.dims, dim, start, size)
    offsets = range(min(rows), max(rows) + 1)
    groups = t.groups_along([dim])
    pieces = []
    for r in offsets:
        lo, hi = rows[r]
        spec = [A.SliceDimension(0, m, 1) for m in v.instr.shape.dims]
        spec[dim] = A.SliceDimension(lo, hi, 1)
        part = v.instr if (lo, hi) == (0, c) else p.b.add(
            Opcode.SLICE, [v.instr], {"slice": A.SliceSpec(tuple(spec))})  # fmt: skip
        if r != 0:
            pairs = [(g[j + r], g[j]) for g in groups for j in range(len(g)) if 0 <= j + r < len(g)]
            part = p.b.collective_permute(part, pairs)
        pieces.append(part)
    buffer = pieces[0] if len(pieces) == 1 else p.b.add(
        Opcode.CONCATENATE, pieces, {"dimensions": (dim,)})  # fmt: skip
    where = []
    for i in t.index[:, dim]:
        i = int(i)
        r = first_offset[i]
        before = sum(rows[q][1] - rows[q][0] for q in offsets if q < r)
        where.append(before + start + i * c_out - (i + r) * c - rows[r][0])
    zero = p.b.constant(0)
    starts = [zero] * v.shape.rank
    starts[dim] = p.b.table(where)
    sizes = list(v.instr.shape.dims)
    sizes[dim] = c_out
    return p.b.dynamic_slice(buffer, starts, sizes)


def _global_rows(p: ComputationPartitioner, t: Tiling, dim: int,
                 local: Sequence[int]) -> HloInstruction:  # fmt: skip
    """s32[local]: each element's global index along tiled ``dim``."""
    c = local[dim]
    first = p.b.scalar_like(p.b.table([int(i) * c for i in t.index[:, dim]]), local)
    iota = p.b.add(Opcode.IOTA, [], {"iota_dimension": dim},
                   shape=Shape.array(dtypes.BY_NAME["s32"], local))  # fmt: skip
    return p.b.add(Opcode.ADD, [iota, first])


def _compare(p: ComputationPartitioner, x: HloInstruction, value: int,
             direction: A.ComparisonDirection) -> HloInstruction:  # fmt: skip
    bound = p.b.scalar_like(p.b.constant(value), x.shape.dims)
    return p.b.add(Opcode.COMPARE, [x, bound], {"direction": direction})


@handles(Opcode.PAD)
def pad(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Padded dims gathered, except one tiled dim without interior padding: its rows shift
    between neighbours (``shifted_slice`` from ``-low``) and rows outside the operand take
    the padding value."""
    config = instr.attrs.padding
    padded = [
        i for i, d in enumerate(config.dimensions) if (d.low, d.high, d.interior) != (0, 0, 0)
    ]
    v = p.value(instr.operands[0])
    t = tiling_of(v)
    if len(padded) == 1 and t.tiles[padded[0]] > 1 and not config.dimensions[padded[0]].interior:
        dim = padded[0]
        low = config.dimensions[dim].low
        n = int(v.shape.dims[dim])
        shifted = shifted_slice(p, v, dim, -low, int(instr.shape.dims[dim]))
        if shifted is not None:
            row = _global_rows(p, t, dim, shifted.shape.dims)
            inside = p.b.add(Opcode.AND, [
                _compare(p, row, low, A.ComparisonDirection.GE),
                _compare(p, row, low + n, A.ComparisonDirection.LT)])  # fmt: skip
            fill = p.operand(instr, 1, p.replicated(instr.operands[1].shape))
            return PValue(p.b.select(inside, shifted, fill), instr.shape, t)
    return whole_dims_op(p, instr, padded)


@handles(Opcode.REVERSE)
def reverse(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    return whole_dims_op(p, instr, list(instr.attrs.dimensions))


def _shifting_is_cheaper(p: ComputationPartitioner, instr: HloInstruction, t: Tiling,
                         dim: int) -> bool:  # fmt: skip
    """Shifting every operand into place sends less than the cheapest gathered layout."""
    values = [p.value(o) for o in instr.operands]
    size = int(instr.shape.dims[dim])
    shift, offset = 0.0, 0
    for v in values:
        shift += p.cost(v, t) + shift_cost(t, v.shape, dim, -offset, size)
        offset += int(v.shape.dims[dim])
    layouts = dict.fromkeys(gather_dims(tiling_of(v), [dim]) for v in values)
    return shift < min(sum(p.cost(v, c) for v in values) for c in layouts)


@handles(Opcode.CONCATENATE)
def concatenate(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Along a dim the first operand tiles: every operand (in that tiling) is shifted to its
    place in the result (``shifted_slice``) and each row taken from the operand it comes
    from, when that sends less than gathering; otherwise the dim is gathered."""
    (dim,) = instr.attrs.dimensions
    t = tiling_of(p.value(instr.operands[0]))
    if t.tiles[dim] > 1 and _shifting_is_cheaper(p, instr, t, dim):
        size = int(instr.shape.dims[dim])
        result = None
        offset = 0
        for o in instr.operands:
            v = p.resharded(p.value(o), t)
            shifted = shifted_slice(p, v, dim, -offset, size)
            if shifted is None:
                result = None
                break
            if result is None:
                result = shifted
            else:
                row = _global_rows(p, t, dim, shifted.shape.dims)
                later = _compare(p, row, offset, A.ComparisonDirection.GE)
                result = p.b.add(Opcode.SELECT, [later, shifted, result])
            offset += int(o.shape.dims[dim])
        if result is not None and len(instr.operands) > 1:
            return PValue(result, instr.shape, t)
    return whole_dims_op(p, instr, list(instr.attrs.dimensions), n_data=len(instr.operands))


@handles(Opcode.DYNAMIC_SLICE)
def dynamic_slice(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    sizes = instr.attrs.dynamic_slice_sizes
    dims = instr.operands[0].shape.dims
    cut = [i for i, n in enumerate(sizes) if n != dims[i]]

    def local(local_dims: Sequence[int], t: Tiling) -> dict[str, object]:
        return {"dynamic_slice_sizes": tuple(
            sizes[i] if i in cut else local_dims[i] for i in range(len(sizes)))}  # fmt: skip

    return whole_dims_op(p, instr, cut, local)


@handles(Opcode.DYNAMIC_UPDATE_SLICE)
def dynamic_update_slice(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    dims = instr.operands[0].shape.dims
    update = instr.operands[1].shape.dims
    cut = [i for i in range(len(dims)) if update[i] != dims[i]]
    return whole_dims_op(p, instr, cut, n_data=2)


@handles(Opcode.SORT)
def sort(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Sorted along a gathered dim (XLA does the same when the dim is tiled)."""
    return whole_dims_op(p, instr, list(instr.attrs.dimensions), n_data=len(instr.operands))


# ---- reductions ------------------------------------------------------------------------------
_IDENTITY = {
    Opcode.ADD: lambda dt: 0,
    Opcode.OR: lambda dt: 0,
    Opcode.MULTIPLY: lambda dt: 1,
    Opcode.AND: lambda dt: -1 if np.issubdtype(dt, np.signedinteger) else (
        np.iinfo(dt).max if np.issubdtype(dt, np.integer) else True),
    Opcode.MAXIMUM: lambda dt: -np.inf if np.issubdtype(dt, np.floating) else (
        False if dt == np.bool_ else np.iinfo(dt).min),
    Opcode.MINIMUM: lambda dt: np.inf if np.issubdtype(dt, np.floating) else (
        True if dt == np.bool_ else np.iinfo(dt).max),
}  # fmt: skip


def reducer_with_identity(instr: HloInstruction) -> bool:
    """True when ``instr`` (a one-input reduce) applies a single associative op to its two
    parameters and its init value is that op's identity, so that partial results may be
    combined by an all-reduce with the same computation."""
    comp = instr.attrs.to_apply
    root = comp.root
    init = instr.operands[1]
    if root.opcode not in _IDENTITY or init.opcode is not Opcode.CONSTANT:
        return False
    if {o.opcode for o in root.operands} != {Opcode.PARAMETER} or len(comp.instructions) != 3:
        return False
    value = np.asarray(init.attrs.literal.value)
    dt = value.dtype
    try:
        identity = np.asarray(_IDENTITY[root.opcode](dt)).astype(dt)
    except (TypeError, ValueError):
        return False
    return bool(np.array_equal(value, identity, equal_nan=False))


@handles(Opcode.REDUCE)
def reduce(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Local reduce of each device's piece (padding masked to the init values, which HLO
    requires to be the reducer's identity), then the partial results are combined over the
    devices that split the reduced dims: by an all-reduce with the same computation for one
    input, by an all-gather and a second reduce for several (argmax). A one-input reducer
    whose identity is not evident sees the reduced dims whole."""
    n = len(instr.operands) // 2
    reduced = list(instr.attrs.dimensions)
    t = tiling_of(p.value(instr.operands[0]))
    tiled = [d for d in reduced if t.tiles[d] > 1]
    inits_known = all(o.opcode is Opcode.CONSTANT for o in instr.operands[n:])
    if tiled and not (reducer_with_identity(instr) if n == 1 else inits_known):
        t = t.gathered(tiled)
        tiled = []
    inputs = [p.operand(instr, i, t) for i in range(n)]
    inits = [p.operand(instr, n + i, p.replicated(instr.operands[n + i].shape)) for i in range(n)]
    if tiled:
        dims = instr.operands[0].shape.dims
        inputs = [mask_padding(p.b, x, dims, t, tiled, init) for x, init in zip(inputs, inits,
                                                                               strict=True)]  # fmt: skip
    new = rebuild(p, instr, inputs + inits)
    kept = [d for d in range(t.rank) if d not in reduced]
    result_t = derive(t, kept)
    if tiled and n == 1:
        new = p.b.all_reduce(new, instr.attrs.to_apply, t.groups_along(tiled))
    elif tiled:
        new = _combine_partials(p, instr, new, inits, t.groups_along(tiled))
    if n > 1:
        return PValue(new, instr.shape, tuple(result_t for _ in range(n)))
    return PValue(new, instr.shape, result_t)


def _combine_partials(p: ComputationPartitioner, instr: HloInstruction, partial: HloInstruction,
                      inits: list[HloInstruction], groups: list[list[int]]) -> HloInstruction:  # fmt: skip
    """A variadic reduce's per-device results gathered along a new leading dim and reduced
    over it with the same computation."""
    gathered = []
    for k, shape in enumerate(partial.shape.tuple_shapes):
        element = p.b.add(Opcode.GET_TUPLE_ELEMENT, [partial], {"index": k})
        lifted = p.b.reshape(element, [1, *shape.dims])
        gathered.append(p.b.all_gather(lifted, 0, groups))
    return p.b.add(Opcode.REDUCE, [*gathered, *inits],
                   {"dimensions": (0,), "to_apply": instr.attrs.to_apply})  # fmt: skip
