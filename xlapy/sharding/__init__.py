"""Shardings of HLO values (``HloSharding``), reading them from every text form JAX emits,
and sharding propagation. The SPMD partitioner builds on these."""

from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.tile_assignment import TileAssignment

__all__ = ["HloSharding", "TileAssignment"]
