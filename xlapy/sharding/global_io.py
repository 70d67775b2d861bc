"""Global arrays <-> per-device pieces of a partitioned module.

``split`` cuts a global array into the piece each device holds under a sharding (XLA's
``TileOffsetForDevice``/``TileShape`` rule: ``ceil(N / t)`` elements per tile, the last
pieces padded with zeros to that size); ``assemble`` puts the pieces of a result back
together, dropping the padding (from the first device holding each tile).

``GlobalSignature`` records what the partitioner changed: the global shapes and shardings of
the entry's parameters and results, so a per-device run can take and return global arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.ir.module import HloModule
from xlapy.shape import Shape
from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.partitioner_tiling import Tiling


def _tiling(sharding: HloSharding | None, rank: int, num_devices: int, what: str) -> Tiling:
    if sharding is None:
        return Tiling.replicated(rank, num_devices)
    return Tiling.from_sharding(sharding, rank, num_devices, what)


def split(value: np.ndarray, tiling: Tiling) -> list[np.ndarray]:
    """The piece of ``value`` each device holds, one per device id."""
    value = np.asarray(value)
    shard = tiling.shard_dims(value.shape)
    pieces = []
    for d in range(tiling.num_devices):
        index = tiling.index[d][: value.ndim]
        cut = tuple(slice(int(k) * c, int(k) * c + c) for k, c in zip(index, shard, strict=True))
        piece = value[cut]
        if piece.shape != shard:
            pad = [(0, c - n) for c, n in zip(shard, piece.shape, strict=True)]
            piece = np.pad(piece, pad)
        pieces.append(np.array(piece))  # a copy; 0-d stays 0-d
    return pieces


def assemble(pieces: Sequence[np.ndarray], dims: Sequence[int], tiling: Tiling) -> np.ndarray:
    """The global array of ``dims`` whose per-device pieces are ``pieces``."""
    first = np.asarray(pieces[0])
    out = np.empty(tuple(dims), first.dtype)
    shard = tiling.shard_dims(dims)
    for position in np.ndindex(tiling.devices.shape[:-1]):
        device = int(tiling.devices[(*position, 0)])
        cut = tuple(slice(int(k) * c, min(int(n), int(k) * c + c))
                    for k, c, n in zip(position, shard, dims, strict=True))  # fmt: skip
        sizes = tuple(s.stop - s.start for s in cut)
        if all(n > 0 for n in sizes):
            out[cut] = np.asarray(pieces[device])[tuple(slice(0, n) for n in sizes)]
    return out


@dataclass(frozen=True)
class GlobalSignature:
    """The global view of a partitioned entry: per parameter its leaves (tuples flattened,
    depth first) and per result leaf, each leaf's global shape and tiling (None: a token)."""

    num_devices: int
    params: tuple[tuple[tuple[Shape, Tiling | None], ...], ...]
    results: tuple[tuple[Shape, Tiling | None], ...]

    @staticmethod
    def of(global_module: HloModule, spmd: HloModule) -> GlobalSignature:
        """From the global module (shapes) and the partitioned one (shardings of its entry
        parameters and root, as the partitioner sets them)."""
        n = spmd.config.num_partitions
        params = tuple(
            tuple(_leaves(g.shape, p.sharding, n, p.name))
            for g, p in zip(global_module.entry.parameters, spmd.entry.parameters, strict=True)
        )
        root = spmd.entry.root
        results = _leaves(global_module.entry.root.shape, root.sharding, n, root.name)
        return GlobalSignature(n, params, tuple(results))

    def split_arguments(self, args: Sequence[Any]) -> list[list[Any] | None]:
        """Per parameter: one piece per device (a tuple of pieces for a tuple parameter;
        None for a token)."""
        if len(args) != len(self.params):
            raise InvalidArgument(
                f"the program takes {len(self.params)} global arguments; got {len(args)}"
            )
        out: list[list[Any] | None] = []
        for i, (arg, leaves) in enumerate(zip(args, self.params, strict=True)):
            if len(leaves) == 1 and leaves[0][1] is None:
                out.append(None)
                continue
            values = _flatten(arg) if len(leaves) > 1 or isinstance(arg, tuple) else [arg]
            if len(values) != len(leaves):
                raise InvalidArgument(
                    f"global argument {i} has {len(values)} arrays; the parameter has {len(leaves)}"
                )
            split_leaves = []
            for value, (shape, tiling) in zip(values, leaves, strict=True):
                value = np.asarray(value)
                if value.shape != tuple(shape.dims):
                    raise InvalidArgument(
                        f"global argument {i} has shape {value.shape}; the program takes "
                        f"{shape.to_hlo(layout=False)}"
                    )
                assert tiling is not None
                split_leaves.append(split(value, tiling))
            if isinstance(arg, tuple):
                out.append([_nest(arg, iter(p)) for p in zip(*split_leaves, strict=True)])
            else:
                out.append(split_leaves[0])
        return out

    def assemble_results(self, per_device: Sequence[Sequence[Any]]) -> list[Any]:
        """The global results from each device's flat result list."""
        out = []
        for j, (shape, tiling) in enumerate(self.results):
            if tiling is None:
                out.append(per_device[0][j])
                continue
            out.append(assemble([outs[j] for outs in per_device], shape.dims, tiling))
        return out


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _flatten(v)]
    return [value]


def _nest(like: Any, leaves: Any) -> Any:
    """``leaves`` (an iterator) in the tuple structure of ``like``."""
    if isinstance(like, tuple):
        return tuple(_nest(v, leaves) for v in like)
    return next(leaves)


def _leaves(shape: Shape, sharding: HloSharding | None, n: int,
            what: str) -> list[tuple[Shape, Tiling | None]]:  # fmt: skip
    if shape.is_tuple:
        leaves = list(shape.leaves())
        shardings = sharding.leaf_shardings(shape) if sharding is not None else [None] * len(leaves)
        return [
            pair
            for k, (s, h) in enumerate(zip(leaves, shardings, strict=True))
            for pair in _leaves(s, h, n, f"{what}[{k}]")
        ]
    if not shape.is_array:
        return [(shape, None)]
    return [(shape, _tiling(sharding, shape.rank, n, what))]


class GlobalExecutable:
    """``xlapy.compile`` of a global-view program: called with the global arguments, it
    splits them over the partitions, runs the per-device executable on every device and
    returns the global results (tuples flattened, as ``xlapy.run``).

    Attributes:
        module: the per-device module that runs (partitioned, then optimized on ``cpu``).
        global_module: the program as given.
        signature: the ``GlobalSignature`` (global shapes and tilings of arguments and
            results).
        executable: the per-device ``Executable``.
    """

    def __init__(
        self, global_module: HloModule, signature: GlobalSignature, executable: Any
    ) -> None:
        self.global_module = global_module
        self.signature = signature
        self.executable = executable
        self.module = executable.module
        self.platform = executable.platform
        self.compile_seconds = executable.compile_seconds

    @property
    def num_partitions(self) -> int:
        return self.signature.num_devices

    def __call__(self, *args: Any, timeout: float | None = None) -> list[Any]:
        pieces = self.signature.split_arguments(args)
        options = {} if timeout is None else {"timeout": timeout}
        results = self.executable(*pieces, partitions=self.signature.num_devices, **options)
        return self.signature.assemble_results(results)

    def report(self, **options: Any) -> str:
        return self.executable.report(**options)
