"""One-regex parsing of the pretty ops JAX prints most (``%3 = stablehlo.add %1, %2 :
tensor<4xf32>``, ``broadcast_in_dim ... dims = [0, 1]``, ``constant dense<...>``, ``compare``,
``dot_general``...): one result, single-spaced items (operands, ``keyword = ints``, compare's
bare enum values), simple tensor types, the op alone on its line.

``parse_fast_op`` matches the whole op with one compiled regex and builds the same ``Op`` that
``stablehlo_pretty._universal`` builds through the token stream, several times faster. Anything
else (other spacing, attribute dicts, locations, other types, an op with its own syntax) and
anything wrong (an error to report) returns None: the general parser then parses the op and
reports errors as before, so the fast path never changes what is accepted or what is said.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from xlapy.errors import XlaError
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.mlir_ast import Op
from xlapy.text.mlir_parser import MlirParser, tensor_type
from xlapy.text.stablehlo_pretty import (
    _KEYWORDS,
    _POSITIONAL,
    _SPECIAL,
    KNOWN_DIALECTS,
    _set_keyword,
)

_SSA = r"%(?:[A-Za-z_$.\-][A-Za-z0-9_$.\-]*|\d+)(?:\#\d+)?"
_TYPE = r"tensor<(?:(?:\d+|\?)x)*(?:[a-z][A-Za-z0-9]*|complex<f(?:32|64)>)>"  # _SIMPLE_TENSOR
_INTS = r"\[(?:-?\d+(?:, -?\d+)*)?\]"
_WORDS = r"\[[A-Z]+(?:, [A-Z]+)*\]"
_ITEM = rf"{_SSA}|[a-z_][a-z_0-9]* = (?:{_INTS}(?: x {_INTS})?|-?\d+|{_WORDS})|[A-Z]+"
_TYPES = rf"\((?:{_TYPE}(?:, {_TYPE})*)?\) -> {_TYPE}|{_TYPE}(?:, {_TYPE})*(?: -> {_TYPE})?"
_FAST = (
    rf"(?P<result>{_SSA}) = (?P<name>[a-z_]+\.[a-z_0-9]+) "
    rf"(?:(?P<items>(?:{_ITEM})(?:, (?:{_ITEM}))*) : (?P<types>{_TYPES})"
    rf"|dense<(?P<body>[^>\n]*)> : (?P<dense_type>{_TYPE}))"
    # The op ends its line and the next line starts another op or closes the region (a line
    # starting with ',', '->', '{', ':' or 'loc(' would continue this op).
    r"[ \t]*(?=\n[ \t]*(?:[%\"}^]|(?!loc\b)[A-Za-z_]))"
)
_ITEMS = (
    rf"({_SSA})|([a-z_][a-z_0-9]*) = (?:({_INTS})(?: x ({_INTS}))?|(-?\d+)|({_WORDS}))|([A-Z]+)"
)


@functools.cache
def _compiled() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``_FAST`` and ``_ITEMS`` compiled, on the first op that starts as the fast form does
    (compiling them takes ~2.5 ms: a program with no such op, e.g. JAX's ``top_k`` alone,
    does without)."""
    return re.compile(_FAST), re.compile(_ITEMS)


def parse_fast_op(p: MlirParser) -> Op | None:
    """The op at ``p`` (its first token is the result name) when it has the common form; the
    parser then continues after it. None, with ``p`` untouched, otherwise."""
    offset = p.tok.start
    if not p.text.startswith(" = ", p.tok.end):
        return None  # not one result name then " = ", as _FAST starts
    m = _compiled()[0].match(p.text, offset, p.lex.end)
    if m is None:
        return None
    name = m.group("name")
    if name in _SPECIAL or name.split(".", 1)[0] not in KNOWN_DIALECTS:
        return None
    try:
        op = _build(p, m, name, offset)
    except XlaError:
        return None  # the general parser reports it, located
    if op is not None:
        p.reset(m.end())
    return op


def _build(p: MlirParser, m: re.Match[str], name: str, offset: int) -> Op | None:
    if m.group("body") is not None:
        shape = tensor_type(m.group("dense_type"))
        if shape is None or not shape.is_array or not shape.is_static:
            return None
        from xlapy.text.dense import parse_dense_body  # (see MlirParser.parse_dense)

        value = parse_dense_body(m.group("body"), shape.element_type, shape.dims)
        literal = Literal(shape, value)
        return Op(name, [m.group("result")], [], {"value": literal}, [], [literal.shape], offset)
    operands: list[str] = []
    attrs: dict[str, Any] = {}
    positional: list[str] = []
    keywords = _KEYWORDS.get(name, {})
    for ssa, key, ints, ints_rhs, integer, words, bare in _compiled()[1].findall(m.group("items")):
        if ssa:
            operands.append(ssa)
        elif key:
            value: Any = (
                int(integer) if integer else words[1:-1].split(", ") if words else _ints(ints)
            )
            if ints_rhs:
                value = (value, _ints(ints_rhs))
            _set_keyword(p, name, key, value, attrs, keywords, offset)
        elif name in _POSITIONAL:
            positional.append(bare)
        else:
            return None  # a bare word ends the general parser's item list
    for key, word in zip(_POSITIONAL.get(name, ()), positional, strict=False):
        attrs[key] = word
    types = m.group("types")
    if types[0] == "(":
        listed, _, result = types[1:].partition(") -> ")
        operand_types = _shapes(listed.split(", ") if listed else [])
        result_types = _shapes([result])
    else:
        listed, arrow, result = types.partition(" -> ")
        operand_types = _shapes(listed.split(", "))
        result_types = _shapes([result]) if arrow or operand_types is None else operand_types[-1:]
        if not arrow:  # a bare list names the result types (as stablehlo_pretty._types)
            operand_types = [] if operand_types is not None else None
    if operand_types is None or result_types is None:
        return None
    return Op(name, [m.group("result")], operands, attrs, [], result_types, offset, {},
              operand_types)  # fmt: skip


def _ints(text: str) -> list[int]:
    """``[1, -2]`` -> [1, -2] (as ``parse_attr`` reads a list of integers)."""
    return [int(v) for v in text[1:-1].split(", ")] if len(text) > 2 else []


def _shapes(texts: list[str]) -> list[Shape] | None:
    shapes = []
    for text in texts:
        shape = tensor_type(text)
        if shape is None:
            return None
        shapes.append(shape)
    return shapes
