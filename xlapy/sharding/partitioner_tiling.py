"""``Tiling``: the partitioner's normal form of an array sharding.

Every array sharding the partitioner handles (replicated, maximal, tiled, tiled with
replication on the last tile dim) is held as one array of device ids shaped
``[t_0, ..., t_{r-1}, rep]``: tile counts per data dim then the replication dim, whose order
does not matter (it is kept sorted, so equal layouts compare equal). Device d holds, along
data dim i of size N, the elements ``[k * c, min(N, (k + 1) * c))`` with ``k`` its tile index
and ``c = ceil(N / t_i)`` (XLA's rule); its buffer always has ``c`` elements, the ones past
N being padding of unspecified value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property

import numpy as np

from xlapy.errors import Unimplemented
from xlapy.sharding.hlo_sharding import HloSharding


class Tiling:
    """Device ids by tile index, ``[t_0, ..., t_{r-1}, rep]`` (see the module doc)."""

    __slots__ = ("__dict__", "devices")

    def __init__(self, devices: np.ndarray) -> None:
        self.devices = np.sort(np.asarray(devices, np.int64), axis=-1)
        self.devices.setflags(write=False)

    # ---- construction ----------------------------------------------------------------
    @staticmethod
    def replicated(rank: int, num_devices: int) -> Tiling:
        return Tiling(np.arange(num_devices).reshape((1,) * rank + (num_devices,)))

    @staticmethod
    def from_sharding(sharding: HloSharding, rank: int, num_devices: int, what: str) -> Tiling:
        """The tiling of an array sharding; ``what`` names the value for errors.

        Maximal shardings become replicated (every device computes the value; XLA would
        place it on one device, which changes no result)."""
        if sharding.is_replicated or sharding.is_maximal:
            return Tiling.replicated(rank, num_devices)
        if sharding.kind != "tiled" or (
            sharding.subgroup_types and set(sharding.subgroup_types) != {"replicated"}
        ):
            raise Unimplemented(
                f"spmd-partitioning: {what} has sharding {sharding}; the partitioner handles "
                "replicated, maximal and tiled shardings (with replicated subgroups), not "
                "manual or unreduced ones"
            )
        array = np.asarray(sharding.tile_assignment)
        if array.size != num_devices:
            raise Unimplemented(
                f"spmd-partitioning: {what} has sharding {sharding} over {array.size} devices "
                f"but the module has {num_devices} partitions"
            )
        if sharding.has_partial_replication:
            return Tiling(array)
        return Tiling(array.reshape((*array.shape, 1)))

    def to_sharding(self) -> HloSharding:
        """The XLA sharding with this layout (``{replicated}``, tiled or partially tiled)."""
        if self.is_replicated:
            return HloSharding.replicate()
        if self.rep == 1:
            return HloSharding.tile(self.devices.reshape(self.tiles))
        return HloSharding.tile(self.devices, replicate_on_last_tile_dim=True)

    # ---- queries ---------------------------------------------------------------------
    @property
    def rank(self) -> int:
        return self.devices.ndim - 1

    @property
    def tiles(self) -> tuple[int, ...]:
        return tuple(int(t) for t in self.devices.shape[:-1])

    @property
    def rep(self) -> int:
        return int(self.devices.shape[-1])

    @property
    def num_devices(self) -> int:
        return int(self.devices.size)

    @property
    def is_replicated(self) -> bool:
        return all(t == 1 for t in self.tiles)

    @cached_property
    def index(self) -> np.ndarray:
        """``index[d]``: device d's position in ``devices`` (tile indices, then its place in
        the replication group)."""
        out = np.zeros((self.num_devices, self.rank + 1), np.int64)
        for position in np.ndindex(self.devices.shape):
            out[self.devices[position]] = position
        return out

    def shard_dims(self, dims: Sequence[int]) -> tuple[int, ...]:
        """Per-device buffer dims: ``ceil(N / t)`` per data dim."""
        return tuple(-(-int(n) // t) for n, t in zip(dims, self.tiles, strict=True))

    def is_padded(self, dims: Sequence[int], dim: int) -> bool:
        """True when data dim ``dim`` of a value of ``dims`` has padding on some device."""
        t = self.tiles[dim]
        return t > 1 and int(dims[dim]) % t != 0

    def groups_along(self, dims: Sequence[int]) -> list[list[int]]:
        """Device groups that differ only in their tile indices along ``dims`` (each ordered
        by those indices, row-major): the groups of a collective over those dims."""
        dims = list(dims)
        others = [a for a in range(self.rank + 1) if a not in dims]
        moved = np.transpose(self.devices, others + dims)
        size = math.prod(self.devices.shape[a] for a in dims)
        return [[int(d) for d in row] for row in moved.reshape(-1, size)]

    def gathered(self, dims: Sequence[int]) -> Tiling:
        """The tiling after an all-gather of data dims ``dims`` (their tile axes join the
        replication dim)."""
        dims = list(dims)
        others = [a for a in range(self.rank) if a not in dims]
        moved = np.transpose(self.devices, [*others, self.rank, *dims])
        shape = [1 if a in dims else self.tiles[a] for a in range(self.rank)]
        return Tiling(moved.reshape([*shape, -1]))

    def moved(self, source: int, target: int) -> Tiling:
        """The tiling with the tile axis of data dim ``source`` placed on data dim
        ``target`` (which must have one tile): what an all-to-all from ``source`` to
        ``target`` produces."""
        perm = list(range(self.rank + 1))
        perm[source], perm[target] = target, source
        return Tiling(np.transpose(self.devices, perm))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Tiling)
            and self.devices.shape == other.devices.shape
            and bool(np.array_equal(self.devices, other.devices))
        )

    def __hash__(self) -> int:
        return hash((self.devices.shape, self.devices.tobytes()))

    def __repr__(self) -> str:
        return f"Tiling({self.to_sharding()})"
