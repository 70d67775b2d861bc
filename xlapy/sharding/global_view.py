"""Whether a program is global-view (values tiled over devices, to be partitioned) or already
one device's: what the front doors (``xlapy.compile``, ``xlapy run``, ``xlapy mpirun``) ask
before they partition. Imports nothing of the partitioner: a program without shardings pays
one walk over its instructions, not the SPMD pipeline's import."""

from __future__ import annotations

from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait

_DEVICE_OPS = {Opcode.PARTITION_ID, Opcode.REPLICA_ID}
_ENTER_MANUAL = ("SPMDFullToShardShape", "xla.sdy.GlobalToLocalShape")


def is_global_program(module: HloModule) -> bool:
    """True for a global-view program to partition: it enters a manual region
    (``SPMDFullToShardShape``: shard_map inside jit), or nothing says it is already per device
    (an entry named ``*_spmd`` or a scheduled module, as XLA's partitioned modules are;
    collectives; ``partition-id``; manual shardings) and some value is tiled over devices, or
    it has shardings and several partitions (``jax.jit`` over a mesh with every value
    replicated: one global result, not one per device)."""
    if module.entry.name.endswith("_spmd") or module.config.is_scheduled:
        return False
    instrs = module.instructions()
    if any(
        i.opcode is Opcode.CUSTOM_CALL and i.attrs.custom_call_target in _ENTER_MANUAL
        for i in instrs
    ):
        return True  # shard_map inside jit: manual regions (with their collectives) in a global program
    for instr in instrs:
        if Trait.COLLECTIVE in instr.opdef.traits or instr.opcode in _DEVICE_OPS:
            return False
        if instr.sharding is not None and instr.sharding.is_manual:
            return False
    if module.config.num_partitions > 1 and any(i.sharding is not None for i in instrs):
        return True
    return _has_tiled_sharding(module)


def _has_tiled_sharding(module: HloModule) -> bool:
    for instr in module.instructions():
        s = instr.sharding
        if s is None:
            continue
        for leaf in s.tuple_elements or (s,):
            if leaf.kind == "tiled" and not leaf.is_manual_subgroup:
                return True
    return False
