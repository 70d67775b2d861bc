"""``HloSharding``: how an HLO value is laid out over devices (XLA's ``HloSharding``).

One immutable value type; ``instr.sharding`` holds one (or ``None``). Forms and their text,
printed exactly as XLA prints them (``str(s)``; ``s.to_string(include_metadata=False)``):

=========================  ===================================================================
``replicate()``            ``{replicated}`` -- every device holds the whole value
``maximal(3)``             ``{maximal device=3}`` -- one device holds it
``manual()``               ``{manual}`` -- the program is already per device (shard_map)
``unknown()``              ``{unknown}`` -- to be decided by propagation (Shardy import)
``unreduced()``            ``{unreduced}``
``tile(array)``            ``{devices=[2,2]0,2,1,3}`` -- tile ``i,j`` lives on ``array[i,j]``
``iota_tile(dims, ...)``   ``{devices=[2,4]<=[8]}``, ``{devices=[4,2]<=[2,4]T(1,0)}``
``tile(..., replicate_on_last_tile_dim=True)``  ``{devices=[2,1,4]<=[8] last_tile_dim_replicate}``
``tile(..., last_tile_dims=("manual", "replicated"))``
                           ``{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}``
``tuple([...])``           ``{{replicated}, {devices=[2]0,1}}`` (``/*index=5*/`` every 5th)
``named(text)``            a mesh sharding ``{mesh[...], [...]}`` kept as written
=========================  ===================================================================

``HloSharding.parse(text, shape=None)`` reads that text (metadata kept for printing but
ignored by ``==`` and ``hash``, as XLA does); with a tuple ``shape`` a single sharding is
expanded to one per leaf. Constructors normalise as XLA's do: a partial tile whose last dim
holds every device is ``{replicated}``, a trailing replication dim of size 1 is dropped,
explicit devices are sorted within each replication group, and subgroup dims of size 1 are
removed and dims of one type merged (``last_tile_dims`` manual before replicated).

Tile assignment dims = the data dims (one per array dim) followed by the subgroup dims
(``last_tile_dim_replicate`` = one replicated subgroup dim). Per-device pieces use XLA's
``TileShape``/``TileOffsetForDevice`` rule: each dim is split into ``ceil(size / tiles)``
chunks; the last ones may be short or empty.

Queries: ``is_replicated``, ``is_maximal`` (one device), ``is_tile_maximal`` (replicated or
maximal, XLA's ``IsTileMaximal``), ``is_manual``, ``is_unknown``, ``is_tiled``, ``is_tuple``,
``is_manual_subgroup``, ``has_partial_replication``, ``replicate_on_last_tile_dim``,
``subgroup_types``, ``tile_assignment`` (``np.ndarray``), ``assignment``
(the ``TileAssignment``), ``num_devices``, ``data_rank``/``tiled_data_rank``,
``num_tiles(dims=None)``, ``total_num_tiles``, ``tile_shape(shape, device=None)``,
``tile_index_for_device``, ``device_for_tile_index``, ``devices_for_tile_index``,
``tile_offset_for_device``, ``tile_limit_for_device``, ``replication_group``,
``unique_device``, ``get_sub_sharding(shape, index)``, ``tuple_elements``,
``extract_single_sharding``, ``normalize_tuple(shape)``, ``without_metadata()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import prod

import numpy as np

from xlapy.shape import Shape
from xlapy.sharding.tile_assignment import TileAssignment

SUBGROUP_TYPES = ("manual", "unreduced", "replicated")
"""Subgroup (``last_tile_dims``) types in XLA's canonical order: replicated last."""

_KINDS = ("replicated", "maximal", "manual", "unknown", "unreduced", "tiled", "tuple", "named")


class HloSharding:
    """An immutable HLO sharding. Build with the static constructors or ``parse``."""

    __slots__ = (
        "_data_rank",
        "_hash",
        "assignment",
        "device",
        "kind",
        "metadata",
        "raw",
        "replicate_on_last_tile_dim",
        "shard_group",
        "subgroup_types",
        "tuple_elements",
    )

    kind: str
    assignment: TileAssignment | None
    device: int | None
    replicate_on_last_tile_dim: bool
    subgroup_types: tuple[str, ...]
    tuple_elements: tuple[HloSharding, ...]
    shard_group: str
    metadata: str
    raw: str

    def __init__(
        self,
        kind: str,
        *,
        assignment: TileAssignment | None = None,
        device: int | None = None,
        replicate_on_last_tile_dim: bool = False,
        subgroup_types: Sequence[str] = (),
        tuple_elements: Sequence[HloSharding] = (),
        shard_group: str = "",
        metadata: str = "",
        raw: str = "",
    ) -> None:
        """Raw construction without normalisation; use the static constructors."""
        if kind not in _KINDS:
            raise ValueError(f"unknown sharding kind {kind!r}")
        init = object.__setattr__
        init(self, "kind", kind)
        init(self, "assignment", assignment)
        init(self, "device", device)
        init(self, "replicate_on_last_tile_dim", replicate_on_last_tile_dim)
        init(self, "subgroup_types", tuple(subgroup_types))
        init(self, "tuple_elements", tuple(tuple_elements))
        init(self, "shard_group", shard_group)
        init(self, "metadata", metadata)
        init(self, "raw", raw)
        rank = -1
        if assignment is not None:
            rank = assignment.ndim - int(replicate_on_last_tile_dim) - len(self.subgroup_types)
        init(self, "_data_rank", rank)
        init(self, "_hash", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"HloSharding is immutable (setting {name})")

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its constructor's arguments (``__setattr__`` refuses the default way)."""
        return (
            _unpickled,
            (self.kind, self.assignment, self.device, self.replicate_on_last_tile_dim,
             self.subgroup_types, self.tuple_elements, self.shard_group, self.metadata,
             self.raw),
        )  # fmt: skip

    # ---- constructors -----------------------------------------------------------------
    @staticmethod
    def replicate(metadata: str = "") -> HloSharding:
        return HloSharding("replicated", metadata=metadata)

    @staticmethod
    def maximal(device: int, metadata: str = "") -> HloSharding:
        return HloSharding("maximal", device=int(device), metadata=metadata)

    @staticmethod
    def manual(metadata: str = "") -> HloSharding:
        return HloSharding("manual", metadata=metadata)

    @staticmethod
    def unknown(metadata: str = "") -> HloSharding:
        return HloSharding("unknown", metadata=metadata)

    @staticmethod
    def unreduced(metadata: str = "") -> HloSharding:
        return HloSharding("unreduced", metadata=metadata)

    @staticmethod
    def named(text: str) -> HloSharding:
        """A named (mesh) sharding ``{mesh[...], [...]}``, kept as its text."""
        return HloSharding("named", raw=text)

    @staticmethod
    def tile(
        tile_assignment: np.ndarray | Sequence | TileAssignment,
        replicate_on_last_tile_dim: bool = False,
        last_tile_dims: Sequence[str] = (),
        metadata: str = "",
    ) -> HloSharding:
        """Tiles over devices; ``tile_assignment`` holds device ids, shaped as the tile dims
        (data dims, then subgroup dims)."""
        ta = (
            tile_assignment
            if isinstance(tile_assignment, TileAssignment)
            else TileAssignment.from_array(tile_assignment)
        )
        if replicate_on_last_tile_dim and last_tile_dims:
            raise ValueError("use last_tile_dims=(..., 'replicated') or replicate_on_last_tile_dim")
        if replicate_on_last_tile_dim:
            return HloSharding.partial_tile(ta, metadata)
        if last_tile_dims:
            return HloSharding.subgroup(ta, last_tile_dims, metadata)
        return HloSharding("tiled", assignment=ta, metadata=metadata)

    @staticmethod
    def iota_tile(
        dims: Sequence[int],
        reshape_dims: Sequence[int] | None = None,
        transpose_perm: Sequence[int] | None = None,
        replicate_on_last_tile_dim: bool = False,
        last_tile_dims: Sequence[str] = (),
        metadata: str = "",
    ) -> HloSharding:
        """``{devices=[dims]<=[reshape_dims]T(transpose_perm)}``."""
        ta = TileAssignment.from_iota(dims, reshape_dims, transpose_perm)
        return HloSharding.tile(ta, replicate_on_last_tile_dim, last_tile_dims, metadata)

    @staticmethod
    def partial_tile(ta: TileAssignment, metadata: str = "") -> HloSharding:
        """Tiles whose last tile dim replicates (XLA's ``PartialTile``)."""
        if ta.ndim == 1 or ta.dims[-1] == ta.num_elements:
            return HloSharding.replicate(metadata)
        if ta.dims[-1] == 1:
            return HloSharding("tiled", assignment=ta.reshape(ta.dims[:-1]), metadata=metadata)
        if ta.iota is None:
            groups = np.sort(ta.array.reshape(-1, ta.dims[-1]), axis=1)
            ta = TileAssignment(ta.dims, array=groups.reshape(ta.dims))
        return HloSharding(
            "tiled", assignment=ta, replicate_on_last_tile_dim=True, metadata=metadata
        )

    @staticmethod
    def subgroup(ta: TileAssignment, types: Sequence[str], metadata: str = "") -> HloSharding:
        """Tiles with subgroup dims of the given types (XLA's ``Subgroup``): trivial dims
        dropped, dims of one type merged, types ordered manual, unreduced, replicated."""
        types = tuple(types)
        for t in types:
            if t not in SUBGROUP_TYPES:
                raise ValueError(f"unknown subgroup type {t!r} (expected one of {SUBGROUP_TYPES})")
        if not types:
            return HloSharding("tiled", assignment=ta, metadata=metadata)
        data_dims = ta.ndim - len(types)
        if data_dims < 0:
            raise ValueError(f"{len(types)} subgroup types for a {ta.ndim}-d tile assignment")
        if len(set(types)) == 1 and prod(ta.dims[:data_dims]) == 1:
            if types[0] == "manual":
                return HloSharding.manual(metadata)
            if types[0] == "replicated":
                return HloSharding.replicate(metadata)
        by_type: dict[str, list[int]] = {}
        needs_merging = False
        for i, t in enumerate(types):
            if ta.dims[data_dims + i] == 1:
                needs_merging = True
                continue
            dims = by_type.setdefault(t, [])
            needs_merging |= bool(dims)
            dims.append(data_dims + i)
        needs_merging |= len(by_type) > 1
        if needs_merging:
            # Drop the size-1 subgroup dims (a reshape), then bring dims of one type together.
            kept = list(range(data_dims)) + sorted(d for dims in by_type.values() for d in dims)
            renumber = {old: new for new, old in enumerate(kept)}
            ta = ta.reshape([ta.dims[d] for d in kept])
            order = [t for t in SUBGROUP_TYPES if t in by_type]
            perm = list(range(data_dims)) + [renumber[d] for t in order for d in by_type[t]]
            merged = list(ta.dims[:data_dims]) + [
                prod(ta.dims[renumber[d]] for d in by_type[t]) for t in order
            ]
            ta = ta.transpose(perm).reshape(merged)
            types = tuple(order)
        if types == ("replicated",):
            return HloSharding.partial_tile(ta, metadata)
        if types == ("manual",) and ta.num_elements == ta.dims[-1]:
            return HloSharding.manual(metadata)
        if types and types[-1] == "replicated":
            partial = HloSharding.partial_tile(ta, metadata)
            assert partial.assignment is not None
            ta = partial.assignment
        return HloSharding("tiled", assignment=ta, subgroup_types=types, metadata=metadata)

    @staticmethod
    def tuple(elements: Iterable[HloSharding]) -> HloSharding:
        """A tuple sharding: one non-tuple sharding per leaf of the tuple shape."""
        flat: list[HloSharding] = []
        for e in elements:
            flat.extend(e.tuple_elements if e.is_tuple else (e,))
        return HloSharding("tuple", tuple_elements=flat)

    from_tuple_elements = tuple

    @staticmethod
    def single(shape: Shape, sharding: HloSharding) -> HloSharding:
        """``sharding`` for an array shape; one copy per leaf for a tuple shape."""
        if shape.is_tuple and not sharding.is_tuple:
            return HloSharding.tuple([sharding] * required_leaves(shape))
        return sharding

    @staticmethod
    def parse(text: str, shape: Shape | None = None) -> HloSharding:
        """XLA's sharding text (``{devices=[2,1,4]<=[8] last_tile_dim_replicate}``)."""
        from xlapy.text.hlo_attr_text import parse_sharding_text

        return parse_sharding_text(text, shape)

    def with_metadata(self, metadata: str) -> HloSharding:
        return self._replace(metadata=metadata)

    def without_metadata(self) -> HloSharding:
        if self.is_tuple:
            return HloSharding.tuple(e.without_metadata() for e in self.tuple_elements)
        return self._replace(metadata="") if self.metadata else self

    def with_shard_group(self, shard_group: str) -> HloSharding:
        return self._replace(shard_group=shard_group)

    def _replace(self, **changes: object) -> HloSharding:
        values = {name: getattr(self, name) for name in HloSharding.__slots__ if name[0] != "_"}
        values.update(changes)
        kind = values.pop("kind")
        return HloSharding(kind, **values)  # type: ignore[arg-type]

    # ---- kind queries -------------------------------------------------------------------
    @property
    def is_tuple(self) -> bool:
        return self.kind == "tuple"

    def _all(self, kind: str) -> bool:
        if self.is_tuple:
            return all(e._all(kind) for e in self.tuple_elements)
        return self.kind == kind

    @property
    def is_replicated(self) -> bool:
        """Every device holds the whole value (every leaf, for a tuple)."""
        return self._all("replicated")

    @property
    def is_maximal(self) -> bool:
        """One device holds the value (``{maximal device=N}``; every leaf, for a tuple)."""
        return self._all("maximal")

    @property
    def is_tile_maximal(self) -> bool:
        """XLA's ``IsTileMaximal``: replicated or maximal (every leaf, for a tuple)."""
        if self.is_tuple:
            return all(e.is_tile_maximal for e in self.tuple_elements)
        return self.kind in ("replicated", "maximal")

    @property
    def is_manual(self) -> bool:
        return self._all("manual")

    @property
    def is_unknown(self) -> bool:
        return self._all("unknown")

    @property
    def is_tiled(self) -> bool:
        """Split over devices along at least the tile dims (not replicated, maximal, manual,
        unknown; a tuple when every leaf is)."""
        return self._all("tiled")

    @property
    def is_manual_subgroup(self) -> bool:
        return self.kind == "tiled" and "manual" in self.subgroup_types

    @property
    def has_partial_replication(self) -> bool:
        return self.replicate_on_last_tile_dim or "replicated" in self.subgroup_types

    def _need(self, what: str, *kinds: str) -> None:
        if self.kind not in kinds:
            raise ValueError(f"{what} needs a {' or '.join(kinds)} sharding, not {self}")

    # ---- tiles ---------------------------------------------------------------------------
    @property
    def tile_assignment(self) -> np.ndarray:
        """The device ids by tile index (read-only); ``[device]`` for maximal shardings."""
        if self.kind == "maximal":
            return np.array([self.device], dtype=np.int64)
        self._need("tile_assignment", "tiled")
        assert self.assignment is not None
        return self.assignment.array

    @property
    def num_devices(self) -> int | None:
        """Devices in the tile assignment (1 for maximal); None when the sharding does not
        name devices (replicated, manual, unknown)."""
        if self.kind == "tiled":
            assert self.assignment is not None
            return self.assignment.num_elements
        if self.kind == "maximal":
            return 1
        if self.is_tuple:
            counts = {e.num_devices for e in self.tuple_elements} - {None}
            return max(counts) if counts else None
        return None

    @property
    def tiled_data_rank(self) -> int:
        """Tile dims that split data: all but the replicated/subgroup dims."""
        if self._data_rank < 0:
            self._need("tiled_data_rank", "tiled")
        return self._data_rank

    data_rank = tiled_data_rank

    @property
    def subgroup_replication_dim(self) -> int | None:
        """The tile dim whose devices hold copies, if any."""
        if self.kind != "tiled":
            return None
        assert self.assignment is not None
        if self.replicate_on_last_tile_dim:
            return self.assignment.ndim - 1
        if "replicated" in self.subgroup_types:
            return self.tiled_data_rank + self.subgroup_types.index("replicated")
        return None

    @property
    def subgroup_manual_dim(self) -> int | None:
        if self.kind != "tiled" or "manual" not in self.subgroup_types:
            return None
        return self.tiled_data_rank + self.subgroup_types.index("manual")

    def num_tiles(self, dims: int | Sequence[int] | None = None) -> int:
        """Tiles along data dim ``dims`` (an int), the product over several, or over all
        data dims (``None``); 1 for replicated or maximal."""
        if self.kind in ("replicated", "maximal"):
            return 1
        self._need("num_tiles", "tiled")
        assert self.assignment is not None
        if dims is None:
            return prod(self.assignment.dims[: self.tiled_data_rank])
        if isinstance(dims, int):
            return self.assignment.dims[dims]
        return prod(self.assignment.dims[d] for d in dims)

    @property
    def total_num_tiles(self) -> int:
        if self.kind in ("replicated", "maximal"):
            return 1
        self._need("total_num_tiles", "tiled")
        assert self.assignment is not None
        return self.assignment.num_elements

    def _check_rank(self, shape: Shape) -> None:
        if shape.rank != self.tiled_data_rank:
            raise ValueError(
                f"sharding {self} tiles {self.tiled_data_rank} dims; the shape "
                f"{shape.to_hlo(layout=False)} has {shape.rank}"
            )

    def tile_shape(self, shape: Shape, device: int | None = None) -> Shape:
        """The per-device shape: each tiled dim ``ceil(size / tiles)`` (XLA's ``TileShape``);
        with ``device``, that device's exact piece (``limit - offset``, short at the end)."""
        if self.is_tuple:
            leaves = list(shape.tuple_shapes)
            elements = self.tuple_elements
            if len(elements) != required_leaves(shape):
                raise ValueError(f"{self} has {len(elements)} leaves; the shape has {len(leaves)}")
            it = iter(elements)
            return _map_leaves(shape, lambda s: next(it).tile_shape(s, device))
        if self.kind != "tiled":
            return shape
        self._check_rank(shape)
        if device is None:
            return shape.with_dims([self._chunk(shape, i) for i in range(shape.rank)])
        offset = self.tile_offset_for_device(shape, device)
        limit = self.tile_limit_for_device(shape, device)
        return shape.with_dims([hi - lo for lo, hi in zip(offset, limit, strict=True)])

    def tile_index_for_device(self, device: int) -> tuple[int, ...]:
        """The tile (data dims only) ``device`` holds."""
        self._need("tile_index_for_device", "tiled")
        assert self.assignment is not None
        try:
            position = self.assignment.position_of(device)
        except KeyError:
            raise ValueError(f"device {device} is not in the tile assignment of {self}") from None
        return position[: self.tiled_data_rank]

    def device_for_tile_index(self, index: Sequence[int]) -> int:
        """The first device holding tile ``index`` (data dims, or all tile dims)."""
        if self.kind == "maximal":
            assert self.device is not None
            return self.device
        self._need("device_for_tile_index", "tiled")
        assert self.assignment is not None
        full = tuple(index) + (0,) * (self.assignment.ndim - len(index))
        return self.assignment(*full)

    def devices_for_tile_index(self, index: Sequence[int]) -> list[int]:
        """Every device holding data tile ``index`` (its copies and manual groups)."""
        self._need("devices_for_tile_index", "tiled")
        assert self.assignment is not None
        return [int(d) for d in self.assignment.array[tuple(index)].reshape(-1)]

    def _chunk(self, shape: Shape, i: int) -> int:
        assert self.assignment is not None
        return -(-shape.dims[i] // self.assignment.dims[i])

    def tile_offset_for_device(self, shape: Shape, device: int) -> tuple[int, ...]:
        """Where ``device``'s piece starts in each dim (XLA's ``TileOffsetForDevice``)."""
        if self.kind in ("maximal", "replicated"):
            return (0,) * shape.rank
        self._check_rank(shape)
        index = self.tile_index_for_device(device)
        return tuple(min(t * self._chunk(shape, i), shape.dims[i]) for i, t in enumerate(index))

    def tile_limit_for_device(self, shape: Shape, device: int) -> tuple[int, ...]:
        """Where ``device``'s piece ends (exclusive) in each dim."""
        if self.kind in ("maximal", "replicated"):
            return tuple(shape.dims)
        self._check_rank(shape)
        index = self.tile_index_for_device(device)
        return tuple(
            min((t + 1) * self._chunk(shape, i), shape.dims[i]) for i, t in enumerate(index)
        )

    def replication_group(self, device: int, num_devices: int | None = None) -> list[int]:
        """The devices holding the same data as ``device`` (``device`` included), sorted.
        Replicated shardings need ``num_devices``; manual subgroups are distinct data."""
        if self.kind == "replicated":
            if num_devices is None:
                raise ValueError("replication_group of {replicated} needs num_devices")
            return list(range(num_devices))
        if self.kind == "maximal":
            return [int(self.device)]  # type: ignore[arg-type]
        self._need("replication_group", "tiled")
        assert self.assignment is not None
        position = self.assignment.position_of(device)
        rep = self.subgroup_replication_dim
        index: list[int | slice] = list(position)
        if rep is not None:
            index[rep] = slice(None)
        return sorted(int(d) for d in np.asarray(self.assignment.array[tuple(index)]).reshape(-1))

    def unique_device(self) -> int | None:
        if self.is_tuple:
            devices = {e.unique_device() for e in self.tuple_elements}
            return devices.pop() if len(devices) == 1 else None
        return self.device if self.kind == "maximal" else None

    # ---- tuples -------------------------------------------------------------------------
    def get_sub_sharding(self, shape: Shape, index: Sequence[int]) -> HloSharding:
        """The sharding of the sub-value at tuple ``index`` of ``shape``."""
        if not self.is_tuple:
            return self
        start = 0
        sub = shape
        for i in index:
            if not sub.is_tuple or not 0 <= i < len(sub.tuple_shapes):
                raise ValueError(f"tuple index {tuple(index)} is not in {shape.to_hlo()}")
            start += sum(required_leaves_strict(s) for s in sub.tuple_shapes[:i])
            sub = sub.tuple_shapes[i]
        if sub.is_tuple:
            count = required_leaves_strict(sub)
            return HloSharding.tuple(self.tuple_elements[start : start + count])
        return self.tuple_elements[start]

    def extract_single_sharding(self) -> HloSharding | None:
        """The sharding shared by every leaf, or None when they differ."""
        if not self.is_tuple:
            return self
        if not self.tuple_elements or any(e != self.tuple_elements[0] for e in self.tuple_elements):
            return None
        return self.tuple_elements[0]

    def normalize_tuple(self, shape: Shape) -> HloSharding:
        return HloSharding.single(shape, self)

    def leaf_shardings(self, shape: Shape) -> list[HloSharding]:
        """One sharding per leaf of ``shape`` (a single sharding is repeated)."""
        if not shape.is_tuple:
            return [self]
        return list(HloSharding.single(shape, self).tuple_elements)

    # ---- value semantics ----------------------------------------------------------------
    def _key(self) -> tuple:
        return (
            self.kind,
            self.assignment,
            self.device,
            self.replicate_on_last_tile_dim,
            self.subgroup_types,
            self.tuple_elements,
            self.shard_group,
            self.raw,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HloSharding):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(self._key()))
        return self._hash  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"HloSharding({self})"

    def __str__(self) -> str:
        return self.to_string()

    def to_string(self, include_metadata: bool = True) -> str:
        """XLA's text for this sharding."""
        if self.kind == "named":
            return self.raw
        if self.is_tuple:
            parts = []
            for i, e in enumerate(self.tuple_elements):
                text = e.to_string(include_metadata)
                parts.append(f"/*index={i}*/{text}" if i and i % 5 == 0 else text)
            return "{" + ", ".join(parts) + "}"
        if self.kind == "maximal":
            body = f"maximal device={self.device}"
        elif self.kind == "tiled":
            body = str(self.assignment)
            if self.replicate_on_last_tile_dim:
                body += " last_tile_dim_replicate"
            if self.subgroup_types:
                body += " last_tile_dims={" + ", ".join(self.subgroup_types) + "}"
        else:
            body = self.kind
        if self.shard_group:
            body += " " + self.shard_group
        if self.metadata and include_metadata:
            body += " metadata=" + self.metadata
        return "{" + body + "}"


def required_leaves_strict(shape: Shape) -> int:
    """Leaves of ``shape`` (0 for an empty tuple)."""
    if not shape.is_tuple:
        return 1
    return sum(required_leaves_strict(s) for s in shape.tuple_shapes)


def required_leaves(shape: Shape) -> int:
    """Shardings a tuple sharding of ``shape`` holds: its leaves, at least 1 (XLA)."""
    return max(required_leaves_strict(shape), 1)


def _map_leaves(shape: Shape, fn) -> Shape:  # type: ignore[no-untyped-def]
    if shape.is_tuple:
        return Shape.tuple_of([_map_leaves(s, fn) for s in shape.tuple_shapes])
    return fn(shape)


def _unpickled(
    kind: str,
    assignment: TileAssignment | None,
    device: int | None,
    replicate_on_last_tile_dim: bool,
    subgroup_types: tuple[str, ...],
    tuple_elements: tuple[HloSharding, ...],
    shard_group: str,
    metadata: str,
    raw: str,
) -> HloSharding:
    return HloSharding(
        kind,
        assignment=assignment,
        device=device,
        replicate_on_last_tile_dim=replicate_on_last_tile_dim,
        subgroup_types=subgroup_types,
        tuple_elements=tuple_elements,
        shard_group=shard_group,
        metadata=metadata,
        raw=raw,
    )
