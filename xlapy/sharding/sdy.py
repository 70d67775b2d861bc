"""Shardy (``sdy``) sharding attributes, read and converted to ``HloSharding`` as XLA's Shardy
export to HLO does.

Forms read (the text inside the attribute's ``<...>``, or with its ``#sdy.xxx`` prefix):

* mesh: ``<["data"=2, "model"=4]>``, ``<["a"=4], device_ids=[3,2,1,0]>``, ``<[], device_ids=[3]>``
  (a maximal mesh: one device);
* tensor sharding: ``<@mesh, [{"data"}, {}]>``, ``<@mesh, [{"a", "b"}, {?}], replicated={"c"}>``,
  ``<@mesh, [{"x":(1)2}, {"x":(2)2}p1]>`` (sub-axis ``name:(pre-size)size``; ``?`` = open dim;
  ``pN`` = priority), an inline ``mesh<[...]>`` instead of ``@mesh``;
* ``#sdy.sharding_per_value<[<@mesh, ...>, ...]>`` (one per result), ``#sdy<manual_axes{"a"}>``.

Conversion (``to_hlo_sharding``): each mesh axis is cut into the pieces its sub-axes name
(``"x"=8`` used as ``"x":(1)2`` and ``"x":(2)4`` has pieces 2 and 4, major first); the devices
``0..n-1`` (or ``device_ids``) laid out over the pieces are transposed to: the pieces of dim 0's
axes, dim 1's, ..., then the manual axes, then every unused piece, and reshaped to the tile
dims plus a ``manual`` and a ``replicated`` subgroup dim. Open/closed and priorities do not
change the HloSharding (``open_dims`` reports the open ones, for ``unspecified_dims``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import prod

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.sharding.hlo_sharding import HloSharding
from xlapy.sharding.tile_assignment import TileAssignment


@dataclass(frozen=True)
class Mesh:
    """``sdy.mesh``: named axes (major first) and optional explicit device ids."""

    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None = None

    @property
    def size(self) -> int:
        return prod(s for _, s in self.axes)

    def axis_size(self, name: str) -> int:
        for n, s in self.axes:
            if n == name:
                return s
        raise InvalidArgument(f"mesh {self} has no axis {name!r}")

    def __str__(self) -> str:
        text = "<[" + ", ".join(f'"{n}"={s}' for n, s in self.axes) + "]"
        if self.device_ids is not None:
            text += ", device_ids=[" + ", ".join(map(str, self.device_ids)) + "]"
        return text + ">"


@dataclass(frozen=True)
class AxisRef:
    """A mesh axis, or its sub-axis ``name:(pre_size)size``."""

    name: str
    pre_size: int = 1
    size: int | None = None  # None: the whole axis


@dataclass(frozen=True)
class DimSharding:
    axes: tuple[AxisRef, ...]
    is_open: bool = False
    priority: int | None = None


@dataclass(frozen=True)
class TensorSharding:
    """``<@mesh, [dims...], replicated={...}, unreduced={...}>``."""

    mesh: str | Mesh
    dims: tuple[DimSharding, ...]
    replicated: tuple[AxisRef, ...] = ()
    unreduced: tuple[AxisRef, ...] = ()

    @property
    def open_dims(self) -> tuple[int, ...]:
        return tuple(i for i, d in enumerate(self.dims) if d.is_open)


# ---- text ------------------------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+)|(@[\w.$-]+)|([A-Za-z_][\w.]*)|(\S))')


@dataclass
class _Cursor:
    text: str
    pos: int = 0
    tokens: list[tuple[str, str, int]] = field(default_factory=list)
    i: int = 0

    def __post_init__(self) -> None:
        pos = 0
        while True:
            m = _TOKEN.match(self.text, pos)
            if m is None or m.end() == pos:
                break
            string, integer, symbol, ident, _punct = m.groups()
            kind = (
                "str" if string else "int" if integer else "sym" if symbol
                else "id" if ident else "p"
            )  # fmt: skip
            value = string[1:-1] if string else m.group(m.lastindex or 0)
            self.tokens.append((kind, value, m.start()))
            pos = m.end()
        self.tokens.append(("eof", "", len(self.text)))

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i]

    def next(self) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def at(self, value: str) -> bool:
        return self.peek()[1] == value and self.peek()[0] in ("p", "id")

    def accept(self, value: str) -> bool:
        if self.at(value):
            self.next()
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.accept(value):
            raise self.error(f"expected {value!r}")

    def expect_kind(self, kind: str, what: str) -> str:
        tok = self.next()
        if tok[0] != kind:
            raise self.error(f"expected {what}", tok)
        return tok[1]

    def error(self, message: str, tok: tuple[str, str, int] | None = None) -> InvalidArgument:
        tok = tok or self.peek()
        return InvalidArgument(
            f"Shardy attribute {self.text!r:.120}: {message} at offset {tok[2]}, "
            f"found {tok[1] or 'the end'!r}"
        )


def _strip(text: str, *prefixes: str) -> str:
    text = text.strip()
    for prefix in prefixes:
        if text.startswith(prefix):
            return text[len(prefix) :].strip()
    return text


def _mesh_axes(c: _Cursor) -> list[tuple[str, int]]:
    """``["a"=2, "b"=4]``: a mesh's axis names and sizes, in order."""
    c.expect("[")
    axes: list[tuple[str, int]] = []
    while not c.accept("]"):
        if axes:
            c.expect(",")
        name = c.expect_kind("str", "an axis name")
        c.expect("=")
        axes.append((name, int(c.expect_kind("int", "an axis size"))))
    return axes


def _mesh_body(c: _Cursor) -> Mesh:
    """``<[axes], device_ids=[...]>`` (the ``<`` is next)."""
    c.expect("<")
    axes = _mesh_axes(c)
    device_ids = None
    if c.accept(","):
        c.expect("device_ids")
        c.expect("=")
        c.expect("[")
        ids: list[int] = []
        while not c.accept("]"):
            if ids:
                c.expect(",")
            ids.append(int(c.expect_kind("int", "a device id")))
        device_ids = tuple(ids)
    c.expect(">")
    mesh = Mesh(tuple(axes), device_ids)
    if device_ids is not None and len(device_ids) != mesh.size:
        raise c.error(f"device_ids has {len(device_ids)} ids for a mesh of {mesh.size} devices")
    return mesh


def parse_mesh(text: str) -> Mesh:
    """``<["a"=2, "b"=4]>`` or ``#sdy.mesh<...>`` or ``mesh<...>``."""
    c = _Cursor(_strip(text, "#sdy.mesh", "mesh"))
    mesh = _mesh_body(c)
    if c.peek()[0] != "eof":
        raise c.error("expected the end of the mesh")
    return mesh


def parse_meshes(text: str) -> dict[str, Mesh]:
    """The HLO module frontend attribute ``xla.sdy.meshes``:
    ``{mesh = #sdy.mesh<["x"=2]>, other = #sdy.mesh<[...]>}``."""
    c = _Cursor(text.strip())
    c.expect("{")
    meshes: dict[str, Mesh] = {}
    while not c.accept("}"):
        if meshes:
            c.expect(",")
        tok = c.next()
        name = tok[1].lstrip("@")
        c.expect("=")
        if c.peek()[1] in ("#", "#sdy.mesh"):
            c.next()
        if c.at("sdy.mesh") or c.at("mesh"):
            c.next()
        meshes[name] = _mesh_body(c)
    return meshes


def _dim_axes(c: _Cursor) -> tuple[tuple[AxisRef, ...], bool]:
    """One dimension's ``{"a", "b":(1)2, ?}``: its axes and whether it is open (``?``)."""
    c.expect("{")
    axes: list[AxisRef] = []
    is_open = False
    while not c.accept("}"):
        if axes or is_open:
            c.expect(",")
        if c.accept("?"):
            is_open = True
        else:
            axes.append(_axis_ref(c))
    return tuple(axes), is_open


def _axis_ref(c: _Cursor) -> AxisRef:
    name = c.expect_kind("str", "an axis name")
    if c.accept(":"):
        c.expect("(")
        pre = int(c.expect_kind("int", "a sub-axis pre-size"))
        c.expect(")")
        size = int(c.expect_kind("int", "a sub-axis size"))
        return AxisRef(name, pre, size)
    return AxisRef(name)


def _axis_set(c: _Cursor) -> tuple[AxisRef, ...]:
    c.expect("{")
    axes: list[AxisRef] = []
    while not c.accept("}"):
        if axes:
            c.expect(",")
        axes.append(_axis_ref(c))
    return tuple(axes)


def _tensor_sharding_body(c: _Cursor) -> TensorSharding:
    """``<@mesh, [dims], replicated={...}, unreduced={...}>`` (the ``<`` is next)."""
    c.expect("<")
    mesh: str | Mesh
    tok = c.peek()
    if tok[0] == "sym":
        mesh = c.next()[1][1:].strip('"')
    elif c.accept("mesh"):
        mesh = _mesh_body(c)
    else:
        raise c.error("expected @mesh or mesh<...>")
    c.expect(",")
    c.expect("[")
    dims: list[DimSharding] = []
    while not c.accept("]"):
        if dims:
            c.expect(",")
        axes, is_open = _dim_axes(c)
        priority = None
        tok = c.peek()
        if tok[0] == "id" and re.fullmatch(r"p\d+", tok[1]):
            priority = int(c.next()[1][1:])
        dims.append(DimSharding(axes, is_open, priority))
    replicated: tuple[AxisRef, ...] = ()
    unreduced: tuple[AxisRef, ...] = ()
    while c.accept(","):
        key = c.expect_kind("id", "replicated= or unreduced=")
        c.expect("=")
        if key == "replicated":
            replicated = _axis_set(c)
        elif key == "unreduced":
            unreduced = _axis_set(c)
        else:
            raise c.error(f"unknown sharding field {key!r}")
    c.expect(">")
    return TensorSharding(mesh, tuple(dims), replicated, unreduced)


def parse_tensor_sharding(text: str) -> TensorSharding:
    """``#sdy.sharding<@mesh, [...]>`` or ``<@mesh, [...]>``."""
    c = _Cursor(_strip(text, "#sdy.sharding"))
    sharding = _tensor_sharding_body(c)
    if c.peek()[0] != "eof":
        raise c.error("expected the end of the sharding")
    return sharding


def parse_sharding_list(text: str) -> list[TensorSharding]:
    """``#sdy.sharding_per_value<[<...>, <...>]>`` or a bare ``[<...>, <...>]``."""
    c = _Cursor(_strip(text, "#sdy.sharding_per_value"))
    wrapped = c.accept("<")
    c.expect("[")
    out: list[TensorSharding] = []
    while not c.accept("]"):
        if out:
            c.expect(",")
        out.append(_tensor_sharding_body(c))
    if wrapped:
        c.expect(">")
    if c.peek()[0] != "eof":
        raise c.error("expected the end of the sharding list")
    return out


def parse_manual_axes(text: str) -> tuple[str, ...]:
    """``#sdy<manual_axes{"a", "b"}>`` or ``{"a", "b"}``."""
    body = _strip(text, "#sdy<manual_axes", "manual_axes")
    body = body[:-1] if body.endswith("}>") else body
    c = _Cursor(body)
    return tuple(a.name for a in _axis_set(c))


# ---- conversion ------------------------------------------------------------------------------


def _pieces(mesh: Mesh, refs: Sequence[AxisRef]) -> tuple[list[int], dict[AxisRef, list[int]]]:
    """The mesh cut into pieces (sizes, major first) and the pieces each ref covers."""
    cuts: dict[str, set[int]] = {name: {1, size} for name, size in mesh.axes}
    for ref in refs:
        size = mesh.axis_size(ref.name)
        if ref.size is not None:
            end = ref.pre_size * ref.size
            if size % end or ref.size < 1:
                raise InvalidArgument(
                    f'sub-axis "{ref.name}":({ref.pre_size}){ref.size} does not divide the '
                    f"axis of size {size}"
                )
            cuts[ref.name] |= {ref.pre_size, end}
    sizes: list[int] = []
    owner: list[tuple[str, int, int]] = []  # (axis, start pre-size, end pre-size)
    for name, _ in mesh.axes:
        points = sorted(cuts[name])
        for lo, hi in itertools.pairwise(points):
            if hi % lo:
                raise InvalidArgument(f"sub-axes of {name!r} overlap: cuts {points}")
            sizes.append(hi // lo)
            owner.append((name, lo, hi))
    covers: dict[AxisRef, list[int]] = {}
    for ref in refs:
        lo = ref.pre_size
        hi = mesh.axis_size(ref.name) if ref.size is None else ref.pre_size * ref.size
        covers[ref] = [
            i for i, (n, a, b) in enumerate(owner) if n == ref.name and lo <= a and b <= hi
        ]
    return sizes, covers


def to_hlo_sharding(
    sharding: TensorSharding,
    meshes: Mapping[str, Mesh],
    rank: int | None = None,
    manual_axes: Sequence[str] = (),
) -> HloSharding:
    """The HloSharding of ``sharding`` (its mesh looked up in ``meshes``); ``manual_axes``
    become a ``manual`` subgroup dim (inside an ``sdy.manual_computation``)."""
    mesh = sharding.mesh if isinstance(sharding.mesh, Mesh) else meshes.get(sharding.mesh)
    if mesh is None:
        raise InvalidArgument(f"sharding refers to an undefined mesh @{sharding.mesh}")
    if rank is not None and len(sharding.dims) != rank:
        raise InvalidArgument(f"sharding has {len(sharding.dims)} dims for a value of rank {rank}")
    if not mesh.axes:
        if mesh.device_ids is not None and len(mesh.device_ids) == 1:
            return HloSharding.maximal(mesh.device_ids[0])
        return HloSharding.replicate()
    manual_refs = [AxisRef(a) for a in manual_axes]
    unreduced_refs = list(sharding.unreduced)
    refs = [r for d in sharding.dims for r in d.axes] + manual_refs + unreduced_refs
    sizes, covers = _pieces(mesh, refs)
    used: list[int] = []
    tile_dims: list[int] = []
    for d in sharding.dims:
        pieces = [p for r in d.axes for p in covers[r]]
        used += pieces
        tile_dims.append(prod(sizes[p] for p in pieces))
    types: list[str] = []
    for kind, kind_refs in (("manual", manual_refs), ("unreduced", unreduced_refs)):
        pieces = [p for r in kind_refs for p in covers[r]]
        if not pieces:
            continue
        used += pieces
        tile_dims.append(prod(sizes[p] for p in pieces))
        types.append(kind)
    if len(set(used)) != len(used):
        raise InvalidArgument("a mesh axis is used twice in one sharding")
    rest = [p for p in range(len(sizes)) if p not in used]
    if rest:
        used += rest
        tile_dims.append(prod(sizes[p] for p in rest))
        types.append("replicated")
    if prod(tile_dims[: len(sharding.dims)]) == 1 and types in ([], ["replicated"]):
        return HloSharding.replicate()
    ta = TileAssignment.from_iota(tile_dims, sizes, used)
    if mesh.device_ids is not None and list(mesh.device_ids) != list(range(mesh.size)):
        ids = np.asarray(mesh.device_ids, dtype=np.int64)
        ta = TileAssignment.from_array(ids[ta.array])
    return HloSharding.subgroup(ta, types)


def named_to_hlo(text: str) -> HloSharding:
    """A named (mesh) sharding of HLO text -- ``{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}``,
    ``{mesh['a'=4], [{'a':(1)2}, {?}], unreduced={'a'}}``, ``{mesh[...], replicated}``,
    ``manual={...}``, ``{maximal_mesh[device_id=1]}`` -- as the tile-assignment sharding XLA
    converts it to."""
    c = _Cursor(text.replace("'", '"'))
    c.expect("{")
    if c.accept("maximal_mesh"):
        c.expect("[")
        c.expect("device_id")
        c.expect("=")
        device = int(c.expect_kind("int", "a device id"))
        c.expect("]")
        return HloSharding.maximal(device)
    c.expect("mesh")
    axes = _mesh_axes(c)
    mesh = Mesh(tuple(axes))
    dims: list[DimSharding] = []
    replicated = False
    extra: dict[str, tuple[AxisRef, ...]] = {}
    while c.accept(","):
        if c.accept("replicated"):
            if not c.accept("="):
                replicated = True
                continue
            extra["replicated"] = _axis_set(c)
        elif c.at("["):
            c.next()
            while not c.accept("]"):
                if dims:
                    c.expect(",")
                refs, is_open = _dim_axes(c)
                dims.append(DimSharding(refs, is_open))
        else:
            key = c.expect_kind("id", "a named sharding field")
            c.expect("=")
            if key == "metadata":
                depth = 0
                while True:
                    tok = c.next()
                    if tok[0] == "eof":
                        raise c.error("unterminated metadata")
                    depth += {"{": 1, "}": -1}.get(tok[1], 0) if tok[0] == "p" else 0
                    if depth == 0:
                        break
                continue
            if key not in ("unreduced", "manual"):
                raise c.error(f"unsupported named sharding field {key!r}")
            extra[key] = _axis_set(c)
    c.expect("}")
    if replicated:
        return HloSharding.replicate()
    manual = [a.name for a in extra.get("manual", ())]
    tensor = TensorSharding(
        mesh, tuple(dims), extra.get("replicated", ()), extra.get("unreduced", ())
    )
    return to_hlo_sharding(tensor, {}, None, manual)


def manual_sharding(mesh: Mesh, manual_axes: Sequence[str], rank: int) -> HloSharding:
    """The sharding of a value inside a manual computation: ``{manual}`` when every mesh axis
    is manual, else data dims 1, then manual and replicated subgroup dims."""
    free = TensorSharding(mesh, tuple(DimSharding(()) for _ in range(rank)))
    return to_hlo_sharding(free, {}, rank, manual_axes)
