"""``xlapy.shape("f32[2,3]")``: a shape from its HLO spelling.

Uses the HLO text parser when it is present; otherwise a small parser of the same syntax
(element type, ``[dims]`` with ``<=N`` bounds and ``?``, an optional ``{minor_to_major}``
layout, tuples in parentheses, ``token[]``).
"""

from __future__ import annotations

import re

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.shape import UNBOUNDED, Layout, Shape

_ARRAY = re.compile(r"\s*([a-z][a-z0-9]*)\[([^\]]*)\](\{[^}]*\})?\s*")


def shape(text: str | Shape) -> Shape:
    """Parses an HLO shape: ``f32[2,3]``, ``f32[2,3]{0,1}``, ``(s32[], f32[<=4])``,
    ``token[]``. A Shape is returned unchanged.

    Raises:
        InvalidArgument: naming the text when it is not a shape.
    """
    if isinstance(text, Shape):
        return text
    try:
        from xlapy.text.hlo_parser import parse_shape
    except ImportError:
        return parse_shape_text(text)
    try:
        return parse_shape(text)
    except InvalidArgument:
        raise
    except ValueError as exc:
        raise InvalidArgument(f"not a shape: {text!r}: {exc}") from None


def parse_shape_text(text: str) -> Shape:
    """The small fallback parser (see the module docstring)."""
    result, end = _parse(text, 0)
    if text[end:].strip():
        raise InvalidArgument(f"not a shape: {text!r} (unexpected {text[end:].strip()!r})")
    return result


def _parse(text: str, pos: int) -> tuple[Shape, int]:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if text.startswith("(", pos):
        pos += 1
        elements: list[Shape] = []
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if text.startswith(")", pos):
                return Shape.tuple_of(elements), pos + 1
            element, pos = _parse(text, pos)
            elements.append(element)
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if text.startswith(",", pos):
                pos += 1
            elif not text.startswith(")", pos):
                raise InvalidArgument(f"not a shape: {text!r} (expected ',' or ')' at {pos})")
    match = _ARRAY.match(text, pos)
    if match is None:
        raise InvalidArgument(f"not a shape: {text!r}")
    name, dims_text, layout_text = match.groups()
    etype = dtypes.from_name(name)
    if etype is dtypes.TOKEN:
        return Shape.token(), match.end()
    dims: list[int] = []
    dynamic: list[bool] = []
    for item in filter(None, (d.strip() for d in dims_text.split(","))):
        if item == "?":
            dims.append(UNBOUNDED)
            dynamic.append(True)
        elif item.startswith("<="):
            dims.append(int(item[2:]))
            dynamic.append(True)
        else:
            dims.append(int(item))
            dynamic.append(False)
    layout = None
    if layout_text:
        body = layout_text[1:-1].split(":")[0]
        layout = Layout(tuple(int(x) for x in body.split(",") if x.strip()))
    return Shape(etype, tuple(dims), tuple(dynamic), layout), match.end()
