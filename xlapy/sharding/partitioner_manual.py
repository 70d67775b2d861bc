"""Manual regions: ``shard_map`` inside ``jax.jit`` (GSPMD form; Shardy's
``sdy.manual_computation`` is read into it).

``SPMDFullToShardShape`` takes a global value laid out by its operand's sharding and hands
each device its piece: the region's per-device program (its ops, its collectives, the body it
calls) is kept as written, and ``SPMDShardToFullShape`` turns each device's piece back into
a global value with the sharding it names. Partly manual shardings (manual subgroups) are
refused by ``Tiling``.
"""

from __future__ import annotations

from xlapy.errors import Unimplemented
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.sharding.partitioner import (
    HANDLERS,
    MANUAL,
    ComputationPartitioner,
    PValue,
)
from xlapy.sharding.partitioner_tiling import Tiling

FULL_TO_SHARD = "SPMDFullToShardShape"
SHARD_TO_FULL = "SPMDShardToFullShape"
MANUAL_CALLS = (FULL_TO_SHARD, SHARD_TO_FULL)


def is_manual(p: ComputationPartitioner, instr: HloInstruction) -> bool:
    """True for an instruction of a manual region: manually sharded, or reading a manual
    value."""
    if instr.sharding is not None and instr.sharding.is_manual:
        return True
    return any(p.value(o).tiling is MANUAL for o in instr.operands)


def copy_manual(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """The instruction as written (per-device already), over its operands' pieces."""
    if instr.opcode is Opcode.CUSTOM_CALL and instr.attrs.custom_call_target == "Sharding":
        return p.value(instr.operands[0])
    operands = [p.value(o).instr for o in instr.operands]
    new = p.b.copy(instr, operands)
    return PValue(new, instr.shape, _manual_tree(instr))


def _manual_tree(instr: HloInstruction) -> object:
    if instr.shape.is_tuple:
        return tuple(MANUAL for _ in instr.shape.tuple_shapes)
    return MANUAL


def _custom_call(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    target = instr.attrs.custom_call_target
    if target == FULL_TO_SHARD:
        return full_to_shard(p, instr)
    if target == SHARD_TO_FULL:
        return shard_to_full(p, instr)
    return _fallback_custom_call(p, instr)


def full_to_shard(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """Each device's piece of the operand, laid out by the operand's sharding."""
    source = instr.operands[0]
    v = p.value(source)
    layout = p.target(source) if source.sharding is not None else v.tiling
    assert isinstance(layout, Tiling)
    piece = p.resharded(v, layout).instr
    if tuple(piece.shape.dims) != tuple(instr.shape.dims):
        raise Unimplemented(
            f"spmd-partitioning: {FULL_TO_SHARD} {instr.name}: the per-device shape "
            f"{instr.shape.to_hlo(layout=False)} is not the piece of "
            f"{source.shape.to_hlo(layout=False)} under {layout.to_sharding()} "
            f"({piece.shape.to_hlo(layout=False)})"
        )
    return PValue(piece, instr.shape, MANUAL)


def shard_to_full(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    """The global value whose pieces the devices hold, laid out by this call's sharding."""
    v = p.value(instr.operands[0])
    layout = p.target(instr)
    if not isinstance(layout, Tiling):
        layout = p.replicated(instr.shape)
    assert isinstance(layout, Tiling)
    if layout.shard_dims(instr.shape.dims) != tuple(v.instr.shape.dims):
        raise Unimplemented(
            f"spmd-partitioning: {SHARD_TO_FULL} {instr.name}: the pieces "
            f"{v.instr.shape.to_hlo(layout=False)} do not tile "
            f"{instr.shape.to_hlo(layout=False)} under {layout.to_sharding()}"
        )
    return PValue(v.instr, instr.shape, layout)


_fallback_custom_call = HANDLERS[Opcode.CUSTOM_CALL]
HANDLERS[Opcode.CUSTOM_CALL] = _custom_call
