"""Attribute values in HLO text (HLO_TEXT.md §6, §7.9): one parser and one formatter per
``AttrKind`` of ``xlapy.ir.opdefs``, plus the generic attributes (metadata, sharding,
frontend_attributes, backend_config, ...) and the module-header aliasing attributes.

Nothing here knows about opcodes: the instruction parser/printer looks up each attribute's
``AttrSpec`` and calls ``parse_attr`` / ``format_attr``.
"""

from __future__ import annotations

import abc
import enum
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.opdefs import AttrKind, AttrSpec
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.sharding.hlo_sharding import SUBGROUP_TYPES, HloSharding, required_leaves
from xlapy.sharding.tile_assignment import TileAssignment
from xlapy.text.hlo_lexer import Cursor, NanValue, Tok, c_escape
from xlapy.text.hlo_mesh_groups import MAX_IOTA_IDS, parse_mesh_groups
from xlapy.text.literal_text import format_literal, parse_literal_at

if TYPE_CHECKING:
    from xlapy.ir.computation import HloComputation


class AttrParser(Cursor, abc.ABC):
    """A Cursor that can also parse shapes and computation references (the HLO parser)."""

    @abc.abstractmethod
    def parse_shape(self) -> Shape:
        """Parses a shape at the cursor."""

    @abc.abstractmethod
    def parse_computation_ref(self) -> HloComputation:
        """Parses ``%name`` of an earlier computation or an inline ``{...}`` body."""


# ---- small shared pieces ------------------------------------------------------------------


def parse_int_list(p: Cursor, context: str) -> tuple[int, ...]:
    """``{1,0}`` (possibly empty)."""
    p.expect_punct("{", f"to start {context}")
    values: list[int] = []
    if not p.accept_punct("}"):
        while True:
            values.append(p.expect_int(f"an integer in {context}"))
            if p.accept_punct("}"):
                break
            p.expect_punct(",", f"or '}}' in {context}")
    return tuple(values)


def format_int_list(values: Sequence[int]) -> str:
    return "{" + ",".join(str(int(v)) for v in values) + "}"


def parse_shape_index(p: Cursor) -> tuple[int, ...]:
    return parse_int_list(p, "a shape index")


def parse_bool(p: Cursor, context: str) -> bool:
    tok = p.peek()
    if tok.is_ident("true") or tok.is_ident("false"):
        p.next()
        return tok.value == "true"
    raise p.expected(f"true or false for {context}", tok)


def format_bool(value: bool) -> str:
    return "true" if value else "false"


def format_string(value: str) -> str:
    return '"' + c_escape(value) + '"'


def lexes_as_json_dict(text: str) -> bool:
    """XLA's LexesAsJsonDict: a brace-balanced ``{...}`` blob (printed verbatim, unquoted)."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return False
    cursor = Cursor(text)
    try:
        cursor.raw_braced()
    except Exception:
        return False
    return cursor.lexer.skip_space(cursor.pos) == len(text)


def parse_string_or_blob(p: Cursor, context: str) -> str:
    """A quoted string (unescaped) or a brace-balanced blob kept verbatim."""
    tok = p.peek()
    if tok.kind is Tok.STRING:
        p.next()
        return str(tok.value)
    if tok.is_punct("{"):
        return p.raw_braced()
    raise p.expected(f"a string or a {{...}} dictionary for {context}", tok)


def format_string_or_blob(value: str) -> str:
    return value if lexes_as_json_dict(value) else format_string(value)


# ---- enums ------------------------------------------------------------------------------


def enum_member(p: Cursor, enum_type: type[enum.Enum], context: str) -> enum.Enum:
    tok = p.peek()
    if tok.kind is Tok.IDENT:
        for member in enum_type:
            if member.value == tok.value or member.value.lower() == str(tok.value).lower():
                p.next()
                return member
    choices = ", ".join(m.value for m in enum_type)
    raise p.expected(f"one of {choices} for {context}", tok)


# ---- window / padding / slice / dim_labels ------------------------------------------------


def _split_dxd(p: Cursor, context: str) -> list[str]:
    tok = p.next()
    if tok.kind in (Tok.DXD, Tok.INT, Tok.PAD):
        return str(tok.value).split("x")
    raise p.expected(f"a value like 3x3 for {context}", tok)


def _pad_pairs(p: Cursor, items: list[str], start: int, context: str) -> list[list[int]]:
    pairs = []
    for item in items:
        parts = item.split("_")
        if len(parts) not in (2, 3):
            raise p.error(start, f"{context}: expected low_high[_interior], got {item!r}")
        pairs.append([int(x) for x in parts])
    return pairs


def parse_window(p: Cursor) -> A.Window:
    """``{size=3x3 stride=2x2 pad=1_1x0_2 lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}``."""
    start = p.expect_punct("{", "to start a window").start
    fields: dict[str, list[str]] = {}
    while not p.accept_punct("}"):
        p.accept_punct(",")
        tok = p.expect(Tok.ATTR, "a window field (size=, stride=, pad=, ...)")
        name = str(tok.value)
        if name not in ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"):
            raise p.error(tok.start, f"unknown window field {name!r}")
        if name in fields:
            raise p.error(tok.start, f"window field {name!r} given twice")
        fields[name] = _split_dxd(p, f"window {name}")
    if not fields:
        return A.Window()
    if "size" not in fields:
        raise p.error(start, "window needs size=")
    n = len(fields["size"])
    for name, values in fields.items():
        if len(values) != n:
            raise p.error(start, f"window {name} has {len(values)} entries but size has {n}")
    ints = {k: [int(x) for x in v] for k, v in fields.items() if k != "pad"}
    pads = _pad_pairs(p, fields["pad"], start, "window pad") if "pad" in fields else None
    if pads is not None and any(len(q) != 2 for q in pads):
        raise p.error(start, "window pad entries are low_high")
    return A.Window.make(
        ints["size"],
        ints.get("stride"),
        [(q[0], q[1]) for q in pads] if pads else None,
        ints.get("lhs_dilate"),
        ints.get("rhs_dilate"),
        [bool(v) for v in ints["rhs_reversal"]] if "rhs_reversal" in ints else None,
    )


def parse_padding(p: Cursor) -> A.PaddingConfig:
    tok = p.peek()
    if tok.kind is Tok.PAD:
        p.next()
        return A.PaddingConfig.make(_pad_pairs(p, str(tok.value).split("x"), tok.start, "padding"))
    raise p.expected("a padding like 0_0x1_1", tok)


def format_padding(value: A.PaddingConfig) -> str:
    """``low_high`` per dimension, ``low_high_interior`` for all when any interior is set."""
    interior = any(d.interior for d in value.dimensions)
    return "x".join(
        f"{d.low}_{d.high}" + (f"_{d.interior}" if interior else "") for d in value.dimensions
    )


def format_slice(value: A.SliceSpec) -> str:
    """``{[start:limit], ...}``; every stride is printed when any stride is not 1."""
    strided = any(d.stride != 1 for d in value.dimensions)
    return (
        "{"
        + ", ".join(
            f"[{d.start}:{d.limit}" + (f":{d.stride}]" if strided else "]")
            for d in value.dimensions
        )
        + "}"
    )


def parse_slice(p: Cursor) -> A.SliceSpec:
    p.expect_punct("{", "to start slice")
    dims: list[A.SliceDimension] = []
    while not p.accept_punct("}"):
        if dims:
            p.expect_punct(",", "between slice ranges")
        p.expect_punct("[", "to start a slice range [start:limit:stride]")
        nums = [p.expect_int("the slice start")]
        while len(nums) < 3 and p.accept_punct(":"):
            nums.append(p.expect_int("a slice bound"))
        if len(nums) == 1:
            raise p.expected("':' in [start:limit:stride]")
        p.expect_punct("]", "to close a slice range")
        dims.append(A.SliceDimension(*nums))
    return A.SliceSpec(tuple(dims))


def parse_dim_labels(p: Cursor) -> A.ConvolutionDimensionNumbers:
    tok = p.peek()
    if tok.kind is not Tok.DIM_LABELS:
        raise p.expected("dim labels like b01f_01io->b01f", tok)
    p.next()
    try:
        return A.ConvolutionDimensionNumbers.from_labels(str(tok.value))
    except InvalidArgument as err:
        raise p.error(tok.start, str(err)) from None


# ---- replica groups / aliasing / result accuracy -------------------------------------------


def parse_replica_groups(p: Cursor) -> A.ReplicaGroups:
    tok = p.peek()
    if tok.is_punct("{"):
        p.next()
        groups: list[tuple[int, ...]] = []
        while not p.accept_punct("}"):
            if groups:
                p.expect_punct(",", "between replica groups")
            groups.append(parse_int_list(p, "a replica group"))
        return A.ReplicaGroups(explicit=tuple(groups))
    if tok.is_punct("["):
        return A.ReplicaGroups(iota=parse_iota_list(p, two_dims=True))
    if tok.is_ident("mesh"):
        mesh, p.pos = parse_mesh_groups(p.text, p.lexer.skip_space(p.pos), p.error)
        return A.ReplicaGroups(mesh=mesh)
    raise p.expected("replica groups ({{...}}, [G,S]<=[N] or mesh[...])", tok)


def parse_iota_list(p: Cursor, *, two_dims: bool) -> A.IotaReplicaGroupList:
    """``[G,S]<=[dims]`` optionally followed by ``T(perm)``."""
    start = p.peek().start
    p.expect_punct("[")
    shape = [p.expect_int()]
    while p.accept_punct(","):
        shape.append(p.expect_int())
    p.expect_punct("]")
    if two_dims and len(shape) != 2:
        raise p.error(start, f"iota replica groups need exactly 2 dims [G,S]; got {shape}")
    p.expect(Tok.LEQ, "'<='")
    p.expect_punct("[")
    reshape = [p.expect_int()]
    while p.accept_punct(","):
        reshape.append(p.expect_int())
    p.expect_punct("]")
    perm: list[int] = []
    if p.peek().is_ident("T"):
        p.next()
        p.expect_punct("(")
        perm.append(p.expect_int())
        while p.accept_punct(","):
            perm.append(p.expect_int())
        p.expect_punct(")")
    _check_iota(p, start, shape, reshape, perm)
    return A.IotaReplicaGroupList(shape[0], shape[1], tuple(reshape), tuple(perm))


def _check_iota(
    p: Cursor, start: int, shape: list[int], reshape: list[int], perm: list[int]
) -> None:
    """XLA's IotaReplicaGroupList rules: non-negative sizes whose products agree, ``perm`` a
    permutation of the reshape dims; and at most ``MAX_IOTA_IDS`` ids."""
    text = f"[{','.join(map(str, shape))}]<=[{','.join(map(str, reshape))}]"
    if any(d < 0 for d in (*shape, *reshape)):
        raise p.error(start, f"iota list {text}: sizes must not be negative")
    count = math.prod(reshape)
    if math.prod(shape) != count:
        raise p.error(
            start, f"iota list {text}: {' x '.join(map(str, shape))} ids do not match the "
            f"{count} ids of the reshape dims"
        )  # fmt: skip
    if count > MAX_IOTA_IDS:
        raise p.error(start, f"iota list {text}: {count} ids; at most {MAX_IOTA_IDS} are allowed")
    if perm and sorted(perm) != list(range(len(reshape))):
        raise p.error(
            start, f"iota list {text}: T({','.join(map(str, perm))}) is not a permutation of "
            f"the {len(reshape)} reshape dims"
        )  # fmt: skip


def parse_aliasing(p: Cursor) -> tuple[A.OutputOperandAlias, ...]:
    """``{{0}: (0, {}), {1}: (1, {})}``."""
    p.expect_punct("{", "to start output_to_operand_aliasing")
    items: list[A.OutputOperandAlias] = []
    while not p.accept_punct("}"):
        if items:
            p.expect_punct(",", "between aliasing entries")
        out = parse_shape_index(p)
        p.expect_punct(":")
        p.expect_punct("(")
        number = p.expect_int("an operand number")
        p.expect_punct(",")
        operand = parse_shape_index(p)
        p.expect_punct(")")
        items.append(A.OutputOperandAlias(out, number, operand))
    return tuple(items)


def format_aliasing(items: Sequence[A.OutputOperandAlias]) -> str:
    return "{" + ", ".join(str(i) for i in items) + "}"


def parse_result_accuracy(p: Cursor) -> A.ResultAccuracy:
    p.expect_punct("{", "to start result_accuracy")
    tok = p.expect(Tok.ATTR, "mode= or tolerance=")
    if tok.value == "mode":
        mode = p.expect(Tok.IDENT, "an accuracy mode (default, highest)")
        p.expect_punct("}")
        accuracy = A.ResultAccuracy(mode=str(mode.value))
        problem = accuracy.problem()
        if problem is not None:
            raise p.error(mode.start, f"result_accuracy: {problem}")
        return accuracy
    if tok.value != "tolerance":
        raise p.error(tok.start, f"unknown result_accuracy field {tok.value!r}")
    p.expect_punct("{")
    values: dict[str, float | int] = {"atol": 0.0, "rtol": 0.0, "ulps": 0}
    while not p.accept_punct("}"):
        p.accept_punct(",")
        key = p.expect(Tok.ATTR, "atol=, rtol= or ulps=")
        if key.value not in values:
            raise p.error(key.start, f"unknown tolerance field {key.value!r}")
        num = p.next()
        if key.value == "ulps" and num.kind is not Tok.INT:
            raise p.expected("an integer", num)
        if num.kind not in (Tok.INT, Tok.FLOAT) or isinstance(num.value, NanValue):
            raise p.expected("a number", num)
        values[str(key.value)] = num.value  # type: ignore[assignment]
        accuracy = A.ResultAccuracy("default", float(values["atol"]), float(values["rtol"]),
                                    int(values["ulps"]))  # fmt: skip
        problem = accuracy.problem()
        if problem is not None:
            raise p.error(num.start, f"result_accuracy: {problem}")
    p.expect_punct("}")
    return A.ResultAccuracy(
        "default", float(values["atol"]), float(values["rtol"]), int(values["ulps"])
    )


def format_result_accuracy(value: A.ResultAccuracy) -> str:
    if value.is_tolerance:

        def num(x: float) -> str:
            return f"{x:g}"

        return f"{{tolerance={{atol={num(value.atol)},rtol={num(value.rtol)},ulps={value.ulps}}}}}"
    return f"{{mode={value.mode}}}"


# ---- metadata -----------------------------------------------------------------------------

_METADATA_INT = (
    "source_line",
    "source_end_line",
    "source_column",
    "source_end_column",
    "stack_frame_id",
)
_METADATA_STR = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
_METADATA_ORDER = (
    "op_type",
    "op_name",
    "source_file",
    "source_line",
    "source_end_line",
    "source_column",
    "source_end_column",
    "profile_type",
    "deduplicated_name",
    "scheduling_name",
    "stack_frame_id",
)


def parse_metadata(p: Cursor) -> A.OpMetadata:
    """``{op_type="Mul" op_name="jit(f)/mul" source_line=3 ...}`` (commas tolerated)."""
    p.expect_punct("{", "to start metadata")
    values: dict[str, Any] = {}
    while not p.accept_punct("}"):
        p.accept_punct(",")
        if p.accept_punct("}"):
            break
        tok = p.expect(Tok.ATTR, "a metadata field like op_name=")
        key = str(tok.value)
        if key in _METADATA_STR:
            values[key] = str(p.expect(Tok.STRING, f"a string for {key}").value)
        elif key in _METADATA_INT:
            values[key] = p.expect_int(f"an integer for {key}")
        elif key == "profile_type":
            values[key] = parse_int_list(p, "profile_type")
        else:
            raise p.error(tok.start, f"unknown metadata field {key!r}")
    return A.OpMetadata(**values)


def format_metadata(md: A.OpMetadata) -> str:
    parts = []
    for key in _METADATA_ORDER:
        value = getattr(md, key)
        if not value:
            continue
        if key in _METADATA_STR:
            parts.append(f"{key}={format_string(value)}")
        elif key == "profile_type":
            parts.append(f"{key}={format_int_list(value)}")
        else:
            parts.append(f"{key}={value}")
    return "{" + " ".join(parts) + "}"


# ---- sharding -----------------------------------------------------------------------------


def _parse_single_sharding(p: Cursor) -> HloSharding:
    """One non-tuple sharding between braces (braces consumed), normalised as XLA's parser
    does (``PartialTile``/``Subgroup``)."""
    start = p.expect_punct("{", "to start a sharding").start
    tok = p.peek()
    if tok.is_ident("mesh") or tok.is_ident("maximal_mesh"):
        # Named (mesh) shardings are kept as written (HLO_TEXT.md §6.8).
        p.pos = start
        return HloSharding.named(p.raw_braced(single_quotes=True))
    kind = ""
    device = None
    tiles: TileAssignment | None = None
    last_tile_dim_replicate = False
    last_tile_dims: list[str] = []
    shard_group = ""
    metadata = ""
    while not p.accept_punct("}"):
        tok = p.next()
        if tok.kind is Tok.IDENT and tok.value in ("replicated", "manual", "unknown", "unreduced"):
            kind = str(tok.value)
        elif tok.is_ident("maximal"):
            kind = "maximal"
        elif tok.kind is Tok.ATTR and tok.value == "device":
            device = p.expect_int("a device id")
        elif tok.kind is Tok.ATTR and tok.value == "devices":
            kind = "devices"
            tiles = _parse_tile_assignment(p)
        elif tok.is_ident("last_tile_dim_replicate"):
            last_tile_dim_replicate = True
        elif tok.kind is Tok.ATTR and tok.value == "last_tile_dims":
            p.expect_punct("{")
            while not p.accept_punct("}"):
                if last_tile_dims:
                    p.expect_punct(",")
                at = p.peek()
                name = str(p.expect(Tok.IDENT, "a sharding type").value)
                if name not in SUBGROUP_TYPES:
                    raise p.error(
                        at.start, f"expected a subgroup type {SUBGROUP_TYPES}, found {name}"
                    )
                last_tile_dims.append(name)
        elif tok.is_ident("shard_as") or tok.is_ident("shard_like"):
            shard_group = f"{tok.value} {p.expect_int('a shard group id')}"
        elif tok.kind is Tok.ATTR and tok.value == "metadata":
            metadata = _parse_sharding_metadata(p)
        else:
            raise p.expected("a sharding item (replicated, maximal, devices=, ...)", tok)
    if kind == "maximal":
        if device is None:
            raise p.error(start, "maximal sharding needs device=N")
        sharding = HloSharding.maximal(device, metadata)
    elif kind == "devices":
        assert tiles is not None
        if last_tile_dim_replicate and last_tile_dims:
            raise p.error(start, "last_tile_dim_replicate and last_tile_dims exclude each other")
        if len(last_tile_dims) + int(last_tile_dim_replicate) > tiles.ndim:
            raise p.error(start, f"more subgroup dims than the {tiles.ndim} tile dims")
        sharding = HloSharding.tile(tiles, last_tile_dim_replicate, last_tile_dims, metadata)
    elif kind:
        sharding = HloSharding(kind, metadata=metadata)
    else:
        raise p.error(start, "empty sharding")
    return sharding.with_shard_group(shard_group) if shard_group else sharding


def _parse_tile_assignment(p: Cursor) -> TileAssignment:
    """``[2,2]0,1,2,3`` or the iota form ``[2,2]<=[4]`` / ``[4]<=[2,2]T(1,0)``."""
    at = p.peek().start
    dims = _bracketed_ints(p)
    if any(d <= 0 for d in dims):
        raise p.error(at, f"tile assignment dims must be positive, got {dims}")
    if p.peek().kind is Tok.LEQ:
        p.next()
        reshape_at = p.peek().start
        reshape = _bracketed_ints(p)
        perm = list(range(len(reshape)))
        if p.peek().is_ident("T"):
            p.next()
            p.expect_punct("(")
            perm = [p.expect_int()]
            while p.accept_punct(","):
                perm.append(p.expect_int())
            p.expect_punct(")")
        if math.prod(reshape) != math.prod(dims):
            raise p.error(reshape_at, f"iota [{reshape}] does not hold the {math.prod(dims)} tiles")
        if sorted(perm) != list(range(len(reshape))):
            raise p.error(reshape_at, f"T{tuple(perm)} is not a permutation of the iota dims")
        return TileAssignment.from_iota(dims, reshape, perm)
    devices = [p.expect_int("a device id")]
    while p.at_punct(",") and p.peek2().kind is Tok.INT:
        p.next()
        devices.append(p.expect_int())
    if len(devices) != math.prod(dims):
        raise p.error(
            at, f"tile assignment {dims} needs {math.prod(dims)} devices, got {len(devices)}"
        )
    if len(devices) <= 1:
        raise p.error(at, "non-maximal shardings must have more than one device assigned")
    if len(set(devices)) != len(devices):
        raise p.error(at, f"a device appears twice in the tile assignment {devices}")
    return TileAssignment(dims, array=devices)  # type: ignore[arg-type]


def _bracketed_ints(p: Cursor) -> list[int]:
    p.expect_punct("[")
    values = [p.expect_int()]
    while p.accept_punct(","):
        values.append(p.expect_int())
    p.expect_punct("]")
    return values


def _parse_sharding_metadata(p: Cursor) -> str:
    if p.peek2().is_punct("{"):
        p.expect_punct("{")
        items: list[str] = []
        while not p.accept_punct("}"):
            if items:
                p.expect_punct(",")
            items.append(format_metadata(parse_metadata(p)))
        return "{" + ", ".join(items) + "}"
    return format_metadata(parse_metadata(p))


def parse_sharding(p: Cursor, shape: Shape | None = None) -> HloSharding:
    """``{replicated}``, ``{devices=[2,2]<=[4]}``, tuple ``{{...}, {...}}``.

    A non-tuple sharding on a tuple-shaped instruction is expanded to one per leaf, as XLA
    does.
    """
    start = p.lexer.skip_space(p.pos)
    if p.peek2().is_punct("{") or (p.at_punct("{") and p.peek2().is_punct("}")):
        p.expect_punct("{")
        parts: list[HloSharding] = []
        while not p.accept_punct("}"):
            if parts:
                p.expect_punct(",", "between tuple shardings")
            parts.append(_parse_single_sharding(p))
        if shape is not None and shape.is_tuple:
            leaves = required_leaves(shape)
            if len(parts) != leaves and len(parts) != 1:
                raise p.error(
                    start, f"tuple sharding has {len(parts)} elements but the shape has {leaves}"
                )
            if len(parts) == 1 and leaves != 1:
                parts = parts * leaves
        return HloSharding.tuple(parts)
    single = _parse_single_sharding(p)
    if shape is not None and shape.is_tuple:
        return HloSharding.single(shape, single)
    return single


def parse_sharding_text(text: str, shape: Shape | None = None) -> HloSharding:
    """A whole sharding text (``HloSharding.parse``); ParseError on anything left over."""
    p = Cursor(text)
    sharding = parse_sharding(p, shape)
    tok = p.peek()
    if tok.kind is not Tok.EOF:
        raise p.expected("the end of the sharding", tok)
    return sharding


# ---- frontend attributes ------------------------------------------------------------------


def parse_frontend_attributes(p: Cursor) -> dict[str, str]:
    """``{key="value",key2={blob}}``; keys may contain dots."""
    p.expect_punct("{", "to start frontend_attributes")
    values: dict[str, str] = {}
    while not p.accept_punct("}"):
        if values:
            p.expect_punct(",", "between frontend attributes")
        tok = p.next()
        if tok.kind is Tok.ATTR:
            key = str(tok.value)
        elif tok.kind is Tok.STRING:
            key = str(tok.value)
            p.expect_punct("=")
        else:
            raise p.expected("a frontend attribute key=", tok)
        values[key] = parse_string_or_blob(p, f"frontend attribute {key}")
    return values


def format_frontend_attributes(values: Mapping[str, str]) -> str:
    return "{" + ",".join(f"{k}={format_string_or_blob(values[k])}" for k in sorted(values)) + "}"


# ---- module-header aliasing ---------------------------------------------------------------


def parse_input_output_alias(p: Cursor) -> A.RawAttribute:
    """``{ {0}: (0, {}, may-alias), ... }`` -> canonical text."""
    p.expect_punct("{")
    items: list[str] = []
    while not p.accept_punct("}"):
        if items:
            p.expect_punct(",")
        out = parse_shape_index(p)
        p.expect_punct(":")
        p.expect_punct("(")
        param = p.expect_int("a parameter number")
        p.expect_punct(",")
        index = parse_shape_index(p)
        kind = "may-alias"
        if p.accept_punct(","):
            tok = p.expect(Tok.IDENT, "may-alias or must-alias")
            if tok.value not in ("may-alias", "must-alias"):
                raise p.expected("may-alias or must-alias", tok)
            kind = str(tok.value)
        p.expect_punct(")")
        items.append(f"{format_int_list(out)}: ({param}, {format_int_list(index)}, {kind})")
    return A.RawAttribute("{ " + ", ".join(items) + " }" if items else "{}")


def parse_buffer_donor(p: Cursor) -> A.RawAttribute:
    """``{ (2, {}), ... }`` -> canonical text."""
    p.expect_punct("{")
    items: list[str] = []
    while not p.accept_punct("}"):
        if items:
            p.expect_punct(",")
        p.expect_punct("(")
        param = p.expect_int("a parameter number")
        p.expect_punct(",")
        index = parse_shape_index(p)
        p.expect_punct(")")
        items.append(f"({param}, {format_int_list(index)})")
    return A.RawAttribute("{ " + ", ".join(items) + " }" if items else "{}")


# ---- the per-AttrKind table ---------------------------------------------------------------


def _parse_list(p: AttrParser, item: Callable[[], Any], context: str) -> tuple[Any, ...]:
    p.expect_punct("{", f"to start {context}")
    values: list[Any] = []
    while not p.accept_punct("}"):
        if values:
            p.expect_punct(",", f"between items of {context}")
        values.append(item())
    return tuple(values)


def parse_attr(p: AttrParser, spec: AttrSpec) -> Any:
    """Parses the value of attribute ``spec`` (the ``name=`` token already consumed)."""
    kind = spec.kind
    name = spec.name
    if kind is AttrKind.BOOL:
        return parse_bool(p, name)
    if kind is AttrKind.INT:
        return p.expect_int(f"an integer for {name}")
    if kind is AttrKind.FLOAT:
        tok = p.next()
        if tok.kind in (Tok.INT, Tok.FLOAT) and not hasattr(tok.value, "negative"):
            return float(tok.value)  # type: ignore[arg-type]
        raise p.expected(f"a number for {name}", tok)
    if kind is AttrKind.STRING:
        return str(p.expect(Tok.STRING, f"a quoted string for {name}").value)
    if kind is AttrKind.INTS:
        return parse_int_list(p, name)
    if kind is AttrKind.INTS_LIST:
        return _parse_list(p, lambda: parse_int_list(p, name), name)
    if kind is AttrKind.BOOLS:
        return _parse_list(p, lambda: parse_bool(p, name), name)
    if kind is AttrKind.ENUM:
        assert spec.enum is not None
        return enum_member(p, spec.enum, name)
    if kind is AttrKind.ENUMS:
        assert spec.enum is not None
        enum_type = spec.enum
        return _parse_list(p, lambda: enum_member(p, enum_type, name), name)
    if kind is AttrKind.COMPUTATION:
        return p.parse_computation_ref()
    if kind is AttrKind.COMPUTATIONS:
        return _parse_list(p, p.parse_computation_ref, name)
    if kind is AttrKind.SHAPE:
        return p.parse_shape()
    if kind is AttrKind.SHAPES:
        return _parse_list(p, p.parse_shape, name)
    if kind is AttrKind.WINDOW:
        return parse_window(p)
    if kind is AttrKind.DIM_LABELS:
        return parse_dim_labels(p)
    if kind is AttrKind.PADDING:
        return parse_padding(p)
    if kind is AttrKind.SLICE:
        return parse_slice(p)
    if kind is AttrKind.REPLICA_GROUPS:
        return parse_replica_groups(p)
    if kind is AttrKind.ALIASING:
        return parse_aliasing(p)
    if kind is AttrKind.LITERAL:
        shape = p.parse_shape()
        literal, p.pos = parse_literal_at(p.text, p.pos, shape, p.lexer.filename)
        return literal
    if kind is AttrKind.RESULT_ACCURACY:
        return parse_result_accuracy(p)
    if kind is AttrKind.RAW:
        return parse_raw(p)
    raise AssertionError(f"no parser for {kind}")


def parse_raw(p: Cursor) -> A.RawAttribute:
    """A value kept verbatim: a ``{...}`` blob, a string (quotes kept) or bare tokens."""
    tok = p.peek()
    if tok.is_punct("{"):
        return A.RawAttribute(p.raw_braced(single_quotes=True))
    if tok.kind is Tok.STRING:
        p.next()
        return A.RawAttribute(p.text[tok.start : tok.end])
    return A.RawAttribute(p.raw_until_separator())


def format_attr(spec: AttrSpec, value: Any, comp_name: Callable[[HloComputation], str]) -> str:
    """The text of attribute ``spec`` with ``value`` (without the ``name=``)."""
    kind = spec.kind
    if kind is AttrKind.BOOL:
        return format_bool(bool(value))
    if kind in (AttrKind.INT,):
        return str(int(value))
    if kind is AttrKind.FLOAT:
        return f"{float(value):g}"
    if kind is AttrKind.STRING:
        return format_string(str(value))
    if kind is AttrKind.INTS:
        return format_int_list(value)
    if kind is AttrKind.INTS_LIST:
        return "{" + ",".join(format_int_list(v) for v in value) + "}"
    if kind is AttrKind.BOOLS:
        return "{" + ",".join(format_bool(v) for v in value) + "}"
    if kind is AttrKind.ENUM:
        return str(value.value)
    if kind is AttrKind.ENUMS:
        return "{" + ",".join(str(v.value) for v in value) + "}"
    if kind is AttrKind.COMPUTATION:
        return comp_name(value)
    if kind is AttrKind.COMPUTATIONS:
        return "{" + ", ".join(comp_name(c) for c in value) + "}"
    if kind is AttrKind.SHAPE:
        return value.to_hlo()  # type: ignore[no-any-return]
    if kind is AttrKind.SHAPES:
        return "{" + ", ".join(s.to_hlo() for s in value) + "}"
    if kind is AttrKind.WINDOW:
        return str(value)
    if kind is AttrKind.DIM_LABELS:
        return str(value.to_labels())
    if kind is AttrKind.PADDING:
        return format_padding(value)
    if kind is AttrKind.SLICE:
        return format_slice(value)
    if kind is AttrKind.REPLICA_GROUPS:
        return str(value)
    if kind is AttrKind.ALIASING:
        return format_aliasing(value)
    if kind is AttrKind.LITERAL:
        assert isinstance(value, Literal)
        return f"{value.shape.to_hlo()} {format_literal(value)}"
    if kind is AttrKind.RESULT_ACCURACY:
        return format_result_accuracy(value)
    if kind is AttrKind.RAW:
        return str(value)
    raise AssertionError(f"no formatter for {kind}")
