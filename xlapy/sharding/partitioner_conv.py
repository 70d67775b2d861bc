"""Partitioning ``convolution`` (XLA's ``convolution_handler.cc``: batch and spatial
partitioning with halo exchange).

The input keeps its tiling on the batch dim and on every spatial dim where a halo exchange
suffices (stride 1, no dilation, the output as long as the input: ``pad_low + pad_high ==
window - 1``, even pieces at least as long as the padding); its other dims are gathered and
the kernel is replicated. Along such a spatial dim each device receives the last
``pad_low`` rows of the previous device's piece and the first ``pad_high`` rows of the
next one's (``collective-permute``; the first and last devices receive zeros, which is the
convolution's own padding), joins them to its piece and convolves without padding there.
Grouped convolutions run on replicated operands.
"""

from __future__ import annotations

from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.sharding.partitioner import ComputationPartitioner, PValue, replicated_fallback
from xlapy.sharding.partitioner_builder import SpmdBuilder
from xlapy.sharding.partitioner_ops import derive, handles, rebuild, tiling_of
from xlapy.sharding.partitioner_tiling import Tiling


def _halo_ok(w: A.WindowDimension, size: int, tiles: int) -> bool:
    """True when a halo exchange gives each device what its outputs need along a dim."""
    plain = (w.stride, w.window_dilation, w.base_dilation, w.window_reversal) == (1, 1, 1, False)
    piece = size // tiles
    return (
        plain
        and size % tiles == 0
        and w.padding_low >= 0
        and w.padding_high >= 0
        and w.padding_low + w.padding_high == w.size - 1
        and max(w.padding_low, w.padding_high) <= piece
    )


def exchange_halo(
    b: SpmdBuilder, x: HloInstruction, dim: int, low: int, high: int, groups: list[list[int]]
) -> HloInstruction:
    """``x`` with ``low`` rows of the previous device's piece before it and ``high`` rows of
    the next one's after it along ``dim`` (zeros at the ends)."""
    parts = []
    length = x.shape.dims[dim]
    if low:
        tail = _rows(b, x, dim, length - low, length)
        pairs = [(g[j], g[j + 1]) for g in groups for j in range(len(g) - 1)]
        parts.append(b.collective_permute(tail, pairs))
    parts.append(x)
    if high:
        head = _rows(b, x, dim, 0, high)
        pairs = [(g[j], g[j - 1]) for g in groups for j in range(1, len(g))]
        parts.append(b.collective_permute(head, pairs))
    if len(parts) == 1:
        return x
    return b.add(Opcode.CONCATENATE, parts, {"dimensions": (dim,)})


def _rows(b: SpmdBuilder, x: HloInstruction, dim: int, start: int, limit: int) -> HloInstruction:
    spec = [A.SliceDimension(0, n, 1) for n in x.shape.dims]
    spec[dim] = A.SliceDimension(start, limit, 1)
    return b.add(Opcode.SLICE, [x], {"slice": A.SliceSpec(tuple(spec))})


@handles(Opcode.CONVOLUTION)
def convolution(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    if instr.attrs.feature_group_count != 1 or instr.attrs.batch_group_count != 1:
        return replicated_fallback(p, instr)
    dn = instr.attrs.dim_labels
    window = instr.attrs.window.dimensions
    lhs = tiling_of(p.value(instr.operands[0]))
    dims = instr.operands[0].shape.dims
    batch = dn.input_batch_dimension
    halo = [
        k
        for k, s in enumerate(dn.input_spatial_dimensions)
        if lhs.tiles[s] > 1 and _halo_ok(window[k], dims[s], lhs.tiles[s])
    ]
    kept = {batch, *(dn.input_spatial_dimensions[k] for k in halo)}
    lhs_t = derive(lhs, [d if d in kept else None for d in range(lhs.rank)])
    x = p.operand(instr, 0, lhs_t)
    for k in halo:
        s = dn.input_spatial_dimensions[k]
        groups = lhs_t.groups_along([s])
        x = exchange_halo(p.b, x, s, window[k].padding_low, window[k].padding_high, groups)
    kernel = p.operand(instr, 1, p.replicated(instr.operands[1].shape))
    local_window = A.Window(tuple(
        A.WindowDimension(w.size, w.stride, 0, 0, w.window_dilation, w.base_dilation,
                          w.window_reversal) if k in halo else w
        for k, w in enumerate(window)))  # fmt: skip
    out_map: list[int | None] = [None] * instr.shape.rank
    out_map[dn.output_batch_dimension] = batch
    for k in halo:
        out_map[dn.output_spatial_dimensions[k]] = dn.input_spatial_dimensions[k]
    out_t: Tiling = derive(lhs_t, out_map)
    return PValue(rebuild(p, instr, [x, kernel], window=local_window), instr.shape, out_t)
