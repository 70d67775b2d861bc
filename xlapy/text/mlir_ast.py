"""The MLIR syntax tree the StableHLO parser builds before lowering to HLO.

Pretty and generic op forms parse to the same ``Op``: operand names, result names, one merged
attribute dict (properties ``<{...}>`` and discardable ``{...}``, keyed by the generic attribute
names), regions and the result types. Attribute values are plain Python values where possible:
ints, floats, bools (unit attributes are ``True``), strings, lists, dicts, ``tuple`` of ints for
``array<i64: ...>``, ``Literal`` for ``dense<...>``, ``Shape`` for types, and the small classes
below for symbols and dialect attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xlapy.errors import InvalidArgument
from xlapy.shape import Shape


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """``@name`` (quotes removed)."""

    name: str


@dataclass(frozen=True, slots=True)
class EnumAttr:
    """``#stablehlo<comparison_direction LT>`` -> kind ``comparison_direction``, value ``LT``.

    Pretty forms write the bare value (``LT``); both reach the lowering as strings through
    ``enum_name``."""

    kind: str
    value: str


@dataclass(frozen=True, slots=True)
class DialectAttr:
    """A structured dialect attribute ``#stablehlo.gather<offset_dims = [2], ...>``.

    ``fields`` holds the ``name = value`` entries; ``opaque`` keeps the text of attributes
    xlapy does not interpret (``#sdy.sharding<...>``)."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    opaque: str = ""


MlirType = Shape
"""Every MLIR type xlapy reads is a Shape (quantized tensors carry a ``dtypes.QuantizedType``)."""


@dataclass(slots=True)
class Block:
    """A block: its arguments (name, type) and its ops (the last is the terminator)."""

    args: list[tuple[str, MlirType]]
    ops: list[Op]


@dataclass(slots=True)
class Region:
    blocks: list[Block]


@dataclass(slots=True)
class Op:
    """One operation.

    Attributes:
        name: full op name (``stablehlo.add``, ``func.call``, ``check.expect_eq_const``).
        results: result value names, one per result (``%0#1`` style for ``%0:2``).
        operands: operand value names (``%arg0``, ``%3#1``).
        attrs: generic attribute name -> value.
        raw: generic attribute name -> its source text (for dictionaries passed on verbatim).
        regions: the op's regions.
        result_types: one type per result.
        offset: position of the op in the source text (for error messages).
    """

    name: str
    results: list[str]
    operands: list[str]
    attrs: dict[str, Any]
    regions: list[Region]
    result_types: list[MlirType]
    offset: int
    raw: dict[str, str] = field(default_factory=dict)
    operand_types: list[MlirType] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.attrs, OpAttrs):
            self.attrs = OpAttrs(self.attrs)


class OpAttrs(dict[str, Any]):
    """An op's attributes; reading one the op lacks raises InvalidArgument naming it (the
    lowering adds the op name and location), not a KeyError."""

    def __missing__(self, key: str) -> Any:
        raise InvalidArgument(f"missing required attribute {key!r}")


@dataclass(slots=True)
class FuncOp:
    """``func.func``: name, visibility, signature and body."""

    name: str
    visibility: str
    arg_types: list[MlirType]
    result_types: list[MlirType]
    body: Region | None
    offset: int
    arg_attrs: list[dict[str, Any]] = field(default_factory=list)
    """Per argument: its attribute dict (``mhlo.sharding``, ``sdy.sharding``, ...)."""
    result_attrs: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class MlirModule:
    """One module (one ``// -----`` chunk): its functions in source order."""

    name: str
    functions: dict[str, FuncOp]
    attrs: dict[str, Any]
    offset: int
    meshes: dict[str, str] = field(default_factory=dict)
    """``sdy.mesh @name = <...>``: name -> the ``<...>`` text."""

    def entry_names(self) -> list[str]:
        """The functions to run: ``main`` if present, else the only function, else every
        public function without arguments (each is one test)."""
        if "main" in self.functions:
            return ["main"]
        if len(self.functions) == 1:
            return list(self.functions)
        return [
            f.name
            for f in self.functions.values()
            if f.visibility == "public" and not f.arg_types and f.body is not None
        ]
