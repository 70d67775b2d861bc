"""The MLIR syntax tree the StableHLO parser builds before lowering to HLO.

Pretty and generic op forms parse to the same ``Op``: operand names, result names, one merged
attribute dict (properties ``<{...}>`` and discardable ``{...}``, keyed by the generic attribute
names), regions and the result types. Attribute values are plain Python values where possible:
ints, floats, bools (unit attributes are ``True``), strings, lists, dicts, ``tuple`` of ints for
``array<i64: ...>``, ``Literal`` for ``dense<...>``, ``Shape`` for types, and the small classes
below for symbols and dialect attributes.
"""

from __future__ import annotations

from typing import Any

from xlapy.errors import InvalidArgument
from xlapy.shape import Shape


class _Node:
    """Field-wise ``==`` and ``repr`` over ``__slots__``, as a dataclass gives them. These
    classes are written out instead of ``@dataclass``-generated: every StableHLO load in a
    fresh process imports them, and generating a slotted dataclass costs ~0.4-1.7 ms each."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )

    def __repr__(self) -> str:
        items = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({items})"

    __hash__ = None  # type: ignore[assignment]


class _Value(_Node):
    """An immutable, hashable attribute value."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __hash__(self) -> int:
        return hash((type(self).__name__, *(getattr(self, name) for name in self.__slots__)))

    def __reduce__(self) -> tuple[Any, ...]:  # ``__slots__`` lists the constructor's arguments
        return type(self), tuple(getattr(self, name) for name in self.__slots__)


class SymbolRef(_Value):
    """``@name`` (quotes removed)."""

    __slots__ = ("name",)
    name: str

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "name", name)


class EnumAttr(_Value):
    """``#stablehlo<comparison_direction LT>`` -> kind ``comparison_direction``, value ``LT``.

    Pretty forms write the bare value (``LT``); both reach the lowering as strings through
    ``enum_name``."""

    __slots__ = ("kind", "value")
    kind: str
    value: str

    def __init__(self, kind: str, value: str) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)


class DialectAttr(_Value):
    """A structured dialect attribute ``#stablehlo.gather<offset_dims = [2], ...>``.

    ``fields`` holds the ``name = value`` entries; ``opaque`` keeps the text of attributes
    xlapy does not interpret (``#sdy.sharding<...>``)."""

    __slots__ = ("name", "fields", "opaque")  # noqa: RUF023 - the constructor's order
    name: str
    fields: dict[str, Any]
    opaque: str

    def __init__(self, name: str, fields: dict[str, Any] | None = None, opaque: str = "") -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "fields", {} if fields is None else fields)
        object.__setattr__(self, "opaque", opaque)

    def __hash__(self) -> int:  # a dict field: hashed by its items, as the frozen dataclass
        return hash((self.name, tuple(self.fields.items()), self.opaque))


MlirType = Shape
"""Every MLIR type xlapy reads is a Shape (quantized tensors carry a ``dtypes.QuantizedType``)."""


class Block(_Node):
    """A block: its arguments (name, type) and its ops (the last is the terminator)."""

    __slots__ = ("args", "ops")

    def __init__(self, args: list[tuple[str, MlirType]], ops: list[Op]) -> None:
        self.args = args
        self.ops = ops


class Region(_Node):
    __slots__ = ("blocks",)

    def __init__(self, blocks: list[Block]) -> None:
        self.blocks = blocks


class Op(_Node):
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

    __slots__ = ("name", "results", "operands", "attrs", "regions", "result_types", "offset",  # noqa: RUF023 - the constructor's order
                 "raw", "operand_types")  # fmt: skip

    def __init__(
        self,
        name: str,
        results: list[str],
        operands: list[str],
        attrs: dict[str, Any],
        regions: list[Region],
        result_types: list[MlirType],
        offset: int,
        raw: dict[str, str] | None = None,
        operand_types: list[MlirType] | None = None,
    ) -> None:
        self.name = name
        self.results = results
        self.operands = operands
        self.attrs = attrs if isinstance(attrs, OpAttrs) else OpAttrs(attrs)
        self.regions = regions
        self.result_types = result_types
        self.offset = offset
        self.raw = {} if raw is None else raw
        self.operand_types = [] if operand_types is None else operand_types


class OpAttrs(dict[str, Any]):
    """An op's attributes; reading one the op lacks raises InvalidArgument naming it (the
    lowering adds the op name and location), not a KeyError."""

    def __missing__(self, key: str) -> Any:
        raise InvalidArgument(f"missing required attribute {key!r}")


class FuncOp(_Node):
    """``func.func``: name, visibility, signature and body; ``arg_attrs`` holds per argument
    its attribute dict (``mhlo.sharding``, ``sdy.sharding``, ...)."""

    __slots__ = ("name", "visibility", "arg_types", "result_types", "body", "offset",  # noqa: RUF023 - the constructor's order
                 "arg_attrs", "result_attrs")  # fmt: skip

    def __init__(
        self,
        name: str,
        visibility: str,
        arg_types: list[MlirType],
        result_types: list[MlirType],
        body: Region | None,
        offset: int,
        arg_attrs: list[dict[str, Any]] | None = None,
        result_attrs: list[dict[str, Any]] | None = None,
    ) -> None:
        self.name = name
        self.visibility = visibility
        self.arg_types = arg_types
        self.result_types = result_types
        self.body = body
        self.offset = offset
        self.arg_attrs = [] if arg_attrs is None else arg_attrs
        self.result_attrs = [] if result_attrs is None else result_attrs


class MlirModule(_Node):
    """One module (one ``// -----`` chunk): its functions in source order; ``meshes`` maps
    ``sdy.mesh @name = <...>``'s name to the ``<...>`` text."""

    __slots__ = ("name", "functions", "attrs", "offset", "meshes")  # noqa: RUF023 - the constructor's order

    def __init__(
        self,
        name: str,
        functions: dict[str, FuncOp],
        attrs: dict[str, Any],
        offset: int,
        meshes: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.functions = functions
        self.attrs = attrs
        self.offset = offset
        self.meshes = {} if meshes is None else meshes

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
