"""Partitioning windowed ops: ``convolution`` and ``reduce-window`` (XLA's
``convolution_handler.cc`` and its halo exchange, ``spmd_partitioner_util.cc``).

A tiled spatial dim stays tiled when each device can compute its own outputs from its piece
plus a halo: no dilation or reversal, even pieces of ``c`` rows with ``c`` a multiple of
the stride ``s``, and the output ``N / s`` long. Output row ``o`` reads input rows
``o*s - low .. o*s - low + size``, so a device needs the last ``low`` rows of the previous
device's piece and the first ``size - s - low`` rows of the next one's; they come by
``collective-permute`` (the first and last devices get the op's padding value instead: zero
for a convolution, the init value for a reduce-window) and the local op runs without
padding there. Non-overlapping aligned windows (max pooling) need no halo at all. Other
windowed dims are gathered; a convolution's kernel is replicated, and grouped convolutions
run on replicated operands.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.sharding.partitioner import ComputationPartitioner, PValue, replicated_fallback
from xlapy.sharding.partitioner_builder import SpmdBuilder
from xlapy.sharding.partitioner_ops import (
    derive,
    gather_dims,
    handles,
    rebuild,
    tiling_of,
    whole_dims_op,
)
from xlapy.sharding.partitioner_tiling import Tiling


def halo(w: A.WindowDimension, size: int, tiles: int) -> tuple[int, int] | None:
    """(rows from the previous device, rows from the next one) a tiled dim needs, or None
    when a halo exchange cannot give each device its outputs."""
    plain = (w.window_dilation, w.base_dilation, w.window_reversal) == (1, 1, False)
    if not plain or size % tiles or (size // tiles) % w.stride:
        return None
    piece = size // tiles
    low, high = w.padding_low, w.size - w.stride - w.padding_low
    out = (size + w.padding_low + w.padding_high - w.size) // w.stride + 1
    if out * w.stride != size or low < 0 or high < 0 or max(low, high) > piece:
        return None
    return low, high


def exchange_halo(
    b: SpmdBuilder,
    x: HloInstruction,
    dim: int,
    rows: tuple[int, int],
    groups: list[list[int]],
    fill: HloInstruction | None = None,
) -> HloInstruction:
    """``x`` with ``rows[0]`` rows of the previous device's piece before it and ``rows[1]``
    rows of the next one's after it along ``dim``; the ends get zeros, or ``fill``."""
    low, high = rows
    length = x.shape.dims[dim]
    parts = []
    if low:
        pairs = [(g[j], g[j + 1]) for g in groups for j in range(len(g) - 1)]
        left = b.collective_permute(_rows(b, x, dim, length - low, length), pairs)
        parts.append(_fill_ends(b, left, groups, 0, fill))
    parts.append(x)
    if high:
        pairs = [(g[j], g[j - 1]) for g in groups for j in range(1, len(g))]
        right = b.collective_permute(_rows(b, x, dim, 0, high), pairs)
        parts.append(_fill_ends(b, right, groups, -1, fill))
    if len(parts) == 1:
        return x
    return b.add(Opcode.CONCATENATE, parts, {"dimensions": (dim,)})


def _fill_ends(b: SpmdBuilder, x: HloInstruction, groups: list[list[int]], end: int,
               fill: HloInstruction | None) -> HloInstruction:  # fmt: skip
    """``x`` replaced by ``fill`` on the devices at ``end`` of their group (no neighbour)."""
    if fill is None:
        return x
    devices = sum(len(g) for g in groups)
    at_end = [0] * devices
    for g in groups:
        at_end[g[end]] = 1
    flag = b.add(Opcode.COMPARE, [b.table(at_end), b.constant(0)],
                 {"direction": A.ComparisonDirection.EQ})  # fmt: skip
    return b.select(b.scalar_like(flag, x.shape.dims), x, fill)


def _rows(b: SpmdBuilder, x: HloInstruction, dim: int, start: int, limit: int) -> HloInstruction:
    spec = [A.SliceDimension(0, n, 1) for n in x.shape.dims]
    spec[dim] = A.SliceDimension(start, limit, 1)
    return b.add(Opcode.SLICE, [x], {"slice": A.SliceSpec(tuple(spec))})


def _unpadded(window: Sequence[A.WindowDimension], dims: Sequence[int]) -> A.Window:
    """``window`` with no padding on ``dims`` (the halo brought the rows instead)."""
    return A.Window(tuple(
        A.WindowDimension(w.size, w.stride, 0, 0, w.window_dilation, w.base_dilation,
                          w.window_reversal) if k in dims else w
        for k, w in enumerate(window)))  # fmt: skip


@handles(Opcode.CONVOLUTION)
def convolution(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """The input keeps its batch tiling and its halo-able spatial tiling, other dims are
    gathered, the kernel replicated."""
    if instr.attrs.feature_group_count != 1 or instr.attrs.batch_group_count != 1:
        return replicated_fallback(p, instr)
    dn = instr.attrs.dim_labels
    window = instr.attrs.window.dimensions
    lhs = tiling_of(p.value(instr.operands[0]))
    dims = instr.operands[0].shape.dims
    batch = dn.input_batch_dimension
    halos = {}
    for k, s in enumerate(dn.input_spatial_dimensions):
        rows = halo(window[k], dims[s], lhs.tiles[s]) if lhs.tiles[s] > 1 else None
        if rows is not None:
            halos[k] = rows
    kept = {batch, *(dn.input_spatial_dimensions[k] for k in halos)}
    lhs_t = derive(lhs, [d if d in kept else None for d in range(lhs.rank)])
    x = p.operand(instr, 0, lhs_t)
    for k, rows in halos.items():
        s = dn.input_spatial_dimensions[k]
        x = exchange_halo(p.b, x, s, rows, lhs_t.groups_along([s]))
    kernel = p.operand(instr, 1, p.replicated(instr.operands[1].shape))
    out_map: list[int | None] = [None] * instr.shape.rank
    out_map[dn.output_batch_dimension] = batch
    for k in halos:
        out_map[dn.output_spatial_dimensions[k]] = dn.input_spatial_dimensions[k]
    out_t: Tiling = derive(lhs_t, out_map)
    new = rebuild(p, instr, [x, kernel], window=_unpadded(window, list(halos)))
    return PValue(new, instr.shape, out_t)


@handles(Opcode.REDUCE_WINDOW)
def reduce_window(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Unwindowed dims stay tiled; a windowed tiled dim keeps its tiling with a halo (ends
    filled with the init value) when ``halo`` allows, else it is gathered."""
    n = len(instr.operands) // 2
    window = instr.attrs.window.dimensions
    windowed = [k for k, w in enumerate(window) if w != A.WindowDimension(1)]
    t = tiling_of(p.value(instr.operands[0]))
    dims = instr.operands[0].shape.dims
    halos = {}
    for k in windowed:
        rows = halo(window[k], dims[k], t.tiles[k]) if t.tiles[k] > 1 else None
        if rows is not None:
            halos[k] = rows
    if not halos:
        return whole_dims_op(p, instr, windowed, n_data=n)
    t = gather_dims(t, [k for k in windowed if k not in halos])
    inits = [p.operand(instr, n + i, p.replicated(instr.operands[n + i].shape)) for i in range(n)]
    inputs = []
    for i in range(n):
        x = p.operand(instr, i, t)
        for k, rows in halos.items():
            x = exchange_halo(p.b, x, k, rows, t.groups_along([k]), fill=inits[i])
        inputs.append(x)
    new = rebuild(p, instr, inputs + inits, window=_unpadded(window, list(halos)))
    result_t = t if n == 1 else tuple(t for _ in range(n))
    return PValue(new, instr.shape, result_t)
