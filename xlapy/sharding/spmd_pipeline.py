"""The ``spmd`` pipeline and the entry points that take global programs.

``spmd_pipeline()`` = ``sharding-propagation`` (every instruction gets a sharding), then
``spmd-partitioning`` (the per-device module), then dead-code elimination. ``xlapy opt FILE
--pipeline=spmd`` prints its result; ``partition(module)`` returns a partitioned copy with the
``GlobalSignature`` that splits global arguments and assembles global results;
``global_view.is_global_program`` tells the front doors (``xlapy run``, ``xlapy.compile``)
when to use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
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


def partition(
    module: HloModule, num_partitions: int | None = None
) -> tuple[HloModule, GlobalSignature]:
    """A partitioned copy of the global ``module`` (never changed) and its signature."""
    spmd = clone_module(module)
    spmd_pipeline(num_partitions=num_partitions or 0).run(spmd)
    return spmd, GlobalSignature.of(module, spmd)
