"""Shapes: arrays (dims, element type, layout, bounded/unbounded dynamic dims), tuples, tokens.

Printing in HLO syntax (``f32[2,3]{1,0}``, ``(s32[], f32[<=4])``, ``token[]``) and in MLIR
syntax (``tensor<2x3xf32>``) lives here; parsing lives in ``xlapy.text``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xlapy import dtypes
from xlapy.dtypes import ElementType

UNBOUNDED = -1
"""Dimension size of an unbounded dynamic dimension (``?``)."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile of a tiled layout; ``COMBINE`` (-1) prints as ``*``."""

    dims: tuple[int, ...]

    COMBINE = -1

    def __str__(self) -> str:
        return "(" + ",".join("*" if d == Tile.COMBINE else str(d) for d in self.dims) + ")"


@dataclass(frozen=True, slots=True)
class SplitConfig:
    """``SC(dimension:index,index...)`` of a layout."""

    dimension: int
    split_indices: tuple[int, ...]

    def __str__(self) -> str:
        return f"({self.dimension}:{','.join(map(str, self.split_indices))})"


@dataclass(frozen=True, slots=True)
class Layout:
    """An XLA layout: ``minor_to_major`` plus the rarely used suffix items of HLO text §3.2."""

    minor_to_major: tuple[int, ...]
    dim_level_types: tuple[str, ...] = ()
    tiles: tuple[Tile, ...] = ()
    tail_padding_alignment_in_elements: int = 1
    index_primitive_type: ElementType | None = None
    pointer_primitive_type: ElementType | None = None
    element_size_in_bits: int = 0
    memory_space: int = 0
    split_configs: tuple[SplitConfig, ...] = ()
    physical_shape: Shape | None = None
    dynamic_shape_metadata_prefix_bytes: int = 0

    @staticmethod
    def default(rank: int) -> Layout:
        """The major-to-minor layout ``{rank-1, ..., 1, 0}``."""
        return Layout(tuple(range(rank - 1, -1, -1)))

    def __str__(self) -> str:
        text = ",".join(map(str, self.minor_to_major))
        suffix = ""
        if self.dim_level_types:
            suffix += "D(" + ",".join(self.dim_level_types) + ")"
        if self.tiles:
            suffix += "T" + "".join(map(str, self.tiles))
        if self.tail_padding_alignment_in_elements != 1:
            suffix += f"L({self.tail_padding_alignment_in_elements})"
        if self.index_primitive_type is not None:
            suffix += f"#({self.index_primitive_type.name})"
        if self.pointer_primitive_type is not None:
            suffix += f"*({self.pointer_primitive_type.name})"
        if self.element_size_in_bits:
            suffix += f"E({self.element_size_in_bits})"
        if self.memory_space:
            suffix += f"S({self.memory_space})"
        if self.split_configs:
            suffix += "SC" + "".join(map(str, self.split_configs))
        if self.physical_shape is not None:
            suffix += f"P({self.physical_shape})"
        if self.dynamic_shape_metadata_prefix_bytes:
            suffix += f"M({self.dynamic_shape_metadata_prefix_bytes})"
        return "{" + text + (":" + suffix if suffix else "") + "}"


@dataclass(frozen=True, slots=True)
class Shape:
    """An array, tuple, token or opaque shape.

    Arrays: ``element_type`` is an array type, ``dims`` its sizes (``UNBOUNDED`` for ``?``),
    ``dynamic`` marks dimensions that are dynamic (``<=N``: size is the bound N), ``layout``
    is always set (the default major-to-minor layout unless given).
    Tuples: ``element_type`` is ``dtypes.TUPLE`` and ``tuple_shapes`` the element shapes.
    """

    element_type: ElementType
    dims: tuple[int, ...] = ()
    dynamic: tuple[bool, ...] = ()
    layout: Layout | None = None
    tuple_shapes: tuple[Shape, ...] = field(default=())

    def __deepcopy__(self, memo: dict[int, object]) -> Shape:
        return self  # immutable

    def __post_init__(self) -> None:
        if self.element_type.is_array:
            dims = tuple(int(d) for d in self.dims)
            object.__setattr__(self, "dims", dims)
            if not self.dynamic:
                object.__setattr__(self, "dynamic", tuple(d == UNBOUNDED for d in dims))
            if self.layout is None:
                object.__setattr__(self, "layout", Layout.default(len(dims)))

    # ---- constructors -------------------------------------------------------------
    @staticmethod
    def array(
        element_type: ElementType,
        dims: Sequence[int],
        layout: Sequence[int] | Layout | None = None,
        dynamic: Sequence[bool] | None = None,
    ) -> Shape:
        """An array shape; ``layout`` may be a minor_to_major sequence."""
        if layout is not None and not isinstance(layout, Layout):
            layout = Layout(tuple(layout))
        return Shape(element_type, tuple(dims), tuple(dynamic or ()), layout)

    @staticmethod
    def scalar(element_type: ElementType) -> Shape:
        return Shape(element_type)

    @staticmethod
    def tuple_of(shapes: Sequence[Shape]) -> Shape:
        return Shape(dtypes.TUPLE, tuple_shapes=tuple(shapes))

    @staticmethod
    def token() -> Shape:
        return Shape(dtypes.TOKEN)

    # ---- queries -------------------------------------------------------------------
    @property
    def is_array(self) -> bool:
        return self.element_type.is_array

    @property
    def is_tuple(self) -> bool:
        return self.element_type is dtypes.TUPLE

    @property
    def is_token(self) -> bool:
        return self.element_type is dtypes.TOKEN

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def is_static(self) -> bool:
        """True when no dimension (recursively) is dynamic."""
        if self.is_tuple:
            return all(s.is_static for s in self.tuple_shapes)
        return not any(self.dynamic)

    @property
    def num_elements(self) -> int:
        return math.prod(self.dims)

    def leaves(self) -> Iterator[Shape]:
        """The non-tuple shapes of a (nested) tuple, depth first; the shape itself otherwise."""
        if self.is_tuple:
            for s in self.tuple_shapes:
                yield from s.leaves()
        else:
            yield self

    def with_element_type(self, element_type: ElementType) -> Shape:
        return Shape(element_type, self.dims, self.dynamic, self.layout)

    def with_dims(self, dims: Sequence[int]) -> Shape:
        """Same element type, new static dims, default layout."""
        return Shape(self.element_type, tuple(dims))

    def without_layout(self) -> Shape:
        """The shape with default layouts everywhere (compare shapes ignoring layout)."""
        if self.is_tuple:
            return Shape.tuple_of([s.without_layout() for s in self.tuple_shapes])
        if not self.is_array:
            return self
        return Shape(self.element_type, self.dims, self.dynamic)

    def compatible(self, other: Shape) -> bool:
        """Equal ignoring layouts (as ``without_layout()`` on both sides, without building
        the shapes)."""
        if self is other:
            return True
        if self.is_tuple or other.is_tuple:
            return (
                self.is_tuple
                and other.is_tuple
                and len(self.tuple_shapes) == len(other.tuple_shapes)
                and all(
                    a.compatible(b)
                    for a, b in zip(self.tuple_shapes, other.tuple_shapes, strict=True)
                )
            )
        if self.is_array and other.is_array:
            return (
                self.element_type == other.element_type
                and self.dims == other.dims
                and self.dynamic == other.dynamic
            )
        return self.without_layout() == other.without_layout()

    # ---- printing ------------------------------------------------------------------
    def to_hlo(self, *, layout: bool = True) -> str:
        """HLO text: ``f32[2,3]{1,0}``; tuples get ``/*index=N*/`` before every 5th element."""
        if self.is_tuple:
            parts = []
            for i, s in enumerate(self.tuple_shapes):
                text = s.to_hlo(layout=layout)
                parts.append(f"/*index={i}*/{text}" if i and i % 5 == 0 else text)
            return "(" + ", ".join(parts) + ")"
        if not self.is_array:
            return f"{self.element_type.name}[]"
        dims = ",".join(
            "?" if d == UNBOUNDED else (f"<={d}" if dyn else str(d))
            for d, dyn in zip(self.dims, self.dynamic, strict=True)
        )
        text = f"{self.element_type.name}[{dims}]"
        if layout and self.dims and self.layout is not None:
            text += str(self.layout)
        return text

    def __str__(self) -> str:
        return self.to_hlo()

    def to_mlir(self) -> str:
        """MLIR text: ``tensor<2x3xf32>``, ``!stablehlo.token``, ``tuple<...>``."""
        if self.is_tuple:
            return "tuple<" + ", ".join(s.to_mlir() for s in self.tuple_shapes) + ">"
        if self.is_token:
            return "!stablehlo.token"
        dims = "".join(
            ("?" if (d == UNBOUNDED or dyn) else str(d)) + "x"
            for d, dyn in zip(self.dims, self.dynamic, strict=True)
        )
        encoding = ""
        if any(dyn and d != UNBOUNDED for d, dyn in zip(self.dims, self.dynamic, strict=True)):
            bounds = ", ".join(
                str(d) if (dyn and d != UNBOUNDED) else "?"
                for d, dyn in zip(self.dims, self.dynamic, strict=True)
            )
            encoding = f", #stablehlo.bounds<{bounds}>"
        return f"tensor<{dims}{self.element_type.mlir}{encoding}>"
