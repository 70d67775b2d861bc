"""The ``spmd`` pipeline and the entry points that take global programs.

``spmd_pipeline()`` = ``sharding-propagation`` (every instruction gets a sharding), then
``spmd-partitioning`` (the per-device module), then dead-code elimination. ``xlapy opt FILE
--pipeline=spmd`` prints its result; ``partition(module)`` returns a partitioned copy with the
``GlobalSignature`` that splits global arguments and assembles global results;
``is_global_program`` tells the front doors (``xlapy run``, ``xlapy.compile``) when to use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.passes.dce import DeadCodeElimination
from xlapy.passes.pass_manager import Pass, Pipeline
from xlapy.sharding.global_io import GlobalSignature
from xlapy.sharding.partitioner import SpmdPartitioner
from xlapy.sharding.propagation import ShardingPropagation
from xlapy.sharding.read import import_sdy_hlo


@dataclass(frozen=True)
class ImportShardyHlo(Pass):
    """HLO text JAX printed with Shardy: its ``xla.sdy.*`` custom calls and attributes in
    XLA's GSPMD form (``xlapy.sharding.read.import_sdy_hlo``; nothing to do otherwise)."""

    name: ClassVar[str] = "import-shardy-hlo"

    def run(self, module: HloModule) -> bool:
        return import_sdy_hlo(module)


def spmd_pipeline(*, verify: bool = False, num_partitions: int = 0) -> Pipeline:
    """Shardy's HLO form imported, propagation, dead code (JAX marks results with dead
    ``reshape``s carrying shardings, which propagation reads), partitioning over
    ``num_partitions`` (0: the module's), dead code."""
    passes: list[Pass | Pipeline] = [
        ImportShardyHlo(),
        ShardingPropagation(),
        DeadCodeElimination(),
        SpmdPartitioner(num_partitions),
        DeadCodeElimination(),
    ]
    return Pipeline(passes, verify=verify)


def _has_tiled_sharding(module: HloModule) -> bool:
    for instr in module.instructions():
        s = instr.sharding
        if s is None:
            continue
        for leaf in s.tuple_elements or (s,):
            if leaf.kind == "tiled" and not leaf.is_manual_subgroup:
                return True
    return False


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


def partition(
    module: HloModule, num_partitions: int | None = None
) -> tuple[HloModule, GlobalSignature]:
    """A partitioned copy of the global ``module`` (never changed) and its signature."""
    spmd = clone_module(module)
    spmd_pipeline(num_partitions=num_partitions or 0).run(spmd)
    return spmd, GlobalSignature.of(module, spmd)
