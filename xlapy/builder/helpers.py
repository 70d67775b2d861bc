"""Argument plumbing shared by the op modules: element types and shapes from user spellings,
the optional leading builder argument, explicit broadcasting, and padding helpers."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from xlapy import dtypes
from xlapy.builder.config import Padding
from xlapy.builder.shape_text import shape as parse_shape
from xlapy.builder.xla_builder import XlaBuilder, XlaOp, argument_error, builder_of
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape


def etype(value: object, what: str = "element type") -> ElementType:
    """An element type from an ElementType, its HLO name (``"f32"``) or a numpy dtype."""
    if isinstance(value, ElementType):
        return value
    try:
        if isinstance(value, str):
            return dtypes.from_name(value.lower())
        if value is not None and not isinstance(value, XlaOp):
            return dtypes.from_numpy(value)
    except InvalidArgument:
        pass
    raise argument_error(
        what,
        "must be an element type: an xlapy.dtypes member (dtypes.F32), an HLO name ('f32') or "
        f"a numpy dtype; got {value!r:.60}",
    )


def to_shape(value: object, what: str = "shape") -> Shape:
    """A Shape from a Shape or its HLO spelling (``"f32[2,3]"``)."""
    if isinstance(value, Shape):
        return value
    if isinstance(value, str):
        return parse_shape(value)
    raise argument_error(what, f"must be a Shape or a shape string like 'f32[2,3]'; got {value!r}")


def ints(values: object, what: str) -> tuple[int, ...]:
    """A tuple of ints from any int sequence (numpy arrays included); floats and bools are
    refused rather than truncated."""
    if values is None:
        return ()
    if is_int(values):
        return (int(values),)  # type: ignore[call-overload]
    items = values.tolist() if isinstance(values, np.ndarray) else values
    if isinstance(items, str | bytes | XlaOp) or not isinstance(items, Iterable):
        # (an XlaOp defines __iter__ only to refuse it, with a message naming no function)
        raise argument_error(what, f"must be a sequence of ints; got {values!r:.60}")
    result = []
    for i, v in enumerate(items):
        if not is_int(v):
            raise argument_error(what, f"must be a sequence of ints; got {v!r:.30} at index {i}")
        result.append(int(v))
    return tuple(result)


def xla_op(value: object, what: str) -> XlaOp:
    """``value`` if it is an XlaOp (for functions taking ``*args``, which the signature-driven
    check of ``argcheck`` cannot see)."""
    if not isinstance(value, XlaOp):
        raise argument_error(what, f"must be an XlaOp; got {type(value).__name__} {value!r:.40}")
    return value


def int_arg(value: object, what: str) -> int:
    """An int from an int or numpy integer; floats, bools and others are refused."""
    if not is_int(value):
        raise argument_error(what, f"must be an int; got {value!r:.60}")
    return int(value)  # type: ignore[call-overload, no-any-return]


def sizes(values: object, what: str) -> tuple[int, ...]:
    """Dimension sizes: ``ints`` that are all >= 0."""
    result = ints(values, what)
    if any(v < 0 for v in result):
        raise argument_error(what, f"must be sizes >= 0; got {list(result)}")
    return result


def is_int(value: object) -> bool:
    """An int or numpy integer, not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


E = TypeVar("E", bound=enum.Enum)


def enum_arg(cls: type[E], value: object, what: str, *, upper: bool = True) -> E:
    """A member of enum ``cls`` from itself or its (case-insensitive) value or name."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        text = value.upper() if upper else value
        for member in cls:
            if member.value in (value, text) or member.name in (value, value.upper()):
                return member
    choices = ", ".join(sorted({str(m.value) for m in cls}))
    raise argument_error(what, f"must be a {cls.__name__} ({choices}); got {value!r:.60}")


def split_builder(args: Sequence[Any]) -> tuple[XlaBuilder | None, list[Any]]:
    """Separates an optional leading XlaBuilder (XLA's C++ overloads take one) from the rest."""
    if args and isinstance(args[0], XlaBuilder):
        return args[0], list(args[1:])
    return None, list(args)


def op_list(value: object, what: str, *, non_empty: bool = False) -> list[XlaOp]:
    """A list of XlaOps from one XlaOp or a sequence of them (at least one if ``non_empty``)."""
    if isinstance(value, XlaOp):
        return [value]
    if isinstance(value, list | tuple):
        if non_empty and not value:
            raise argument_error(what, "must hold at least one XlaOp; got an empty list")
        for i, v in enumerate(value):
            if not isinstance(v, XlaOp):
                raise argument_error(f"{what}[{i}]", f"must be an XlaOp; got {type(v).__name__}")
        return list(value)
    raise argument_error(what, f"must be an XlaOp or a list of XlaOps; got {value!r:.60}")


def pick_builder(builder: XlaBuilder | None, *values: object) -> XlaBuilder:
    return builder if builder is not None else builder_of(*values)


def reshape(op: XlaOp, dims: Sequence[int]) -> XlaOp:
    return op.builder.add(Opcode.RESHAPE, [op], {}, Shape.array(op.dtype, dims))


def broadcast_to(op: XlaOp, dims: Sequence[int], mapping: Sequence[int]) -> XlaOp:
    """``op`` broadcast to ``dims``, operand dimension i going to result dimension
    ``mapping[i]``; size-1 operand dimensions that must expand are first reshaped away, so the
    HLO broadcast maps equal sizes only (as XLA's builder does)."""
    dims = tuple(dims)
    mapping = tuple(mapping)
    if op.shape.dims == dims and mapping == tuple(range(len(dims))):
        return op
    keep = [i for i, n in enumerate(op.shape.dims) if n == dims[mapping[i]]]
    if len(keep) != op.ndim:
        op = reshape(op, [op.shape.dims[i] for i in keep])
        mapping = tuple(mapping[i] for i in keep)
    return op.builder.add(
        Opcode.BROADCAST, [op], {"dimensions": mapping}, Shape.array(op.dtype, dims)
    )


def make_padding(
    padding: Padding | str | Sequence[Sequence[int]],
    input_dims: Sequence[int],
    window_dims: Sequence[int],
    strides: Sequence[int],
) -> list[tuple[int, int]]:
    """(low, high) pairs: explicit pairs as given, VALID = none, SAME such that the output has
    ``ceil(n / stride)`` positions (OPS.md A.9; XLA MakePadding)."""
    if isinstance(padding, str):
        padding = enum_arg(Padding, padding, "padding", upper=False)
    if isinstance(padding, Padding):
        if padding is Padding.VALID:
            return [(0, 0)] * len(input_dims)
        pairs = []
        for n, w, s in zip(input_dims, window_dims, strides, strict=True):
            out = -(-n // s)
            total = max((out - 1) * s + w - n, 0)
            pairs.append((total // 2, total - total // 2))
        return pairs
    explicit = [tuple(int(v) for v in p) for p in padding]
    if any(len(p) != 2 for p in explicit):
        raise argument_error("padding", f"must be (low, high) pairs; got {list(padding)!r:.60}")
    return [(p[0], p[1]) for p in explicit]


def scalar_shape(value: ElementType) -> Shape:
    return Shape.scalar(value)
