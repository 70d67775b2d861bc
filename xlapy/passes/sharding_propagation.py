"""Registers ``sharding-propagation`` (``xlapy.sharding.propagation.ShardingPropagation``)
with the pass registry, which loads every module of this package."""

from xlapy.sharding.propagation import ShardingPropagation

__all__ = ["ShardingPropagation"]
