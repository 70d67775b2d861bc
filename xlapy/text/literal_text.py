"""HLO literal syntax (HLO_TEXT.md §5): parsing and printing constants of every element type.

Parsing is vectorised: the element tokens of a dense array are found with one regex and the
brace structure is checked against the expected skeleton; only a malformed literal is walked
token by token (to report the exact line and column). Printing follows xla/util.cc
``RoundTripFpToString`` and ``Literal::ToString`` exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import ParseError
from xlapy.literal import TOKEN, Array, Literal, Value
from xlapy.shape import Shape
from xlapy.text.limits import literal_size_problem

ELIDE_THRESHOLD = 10
"""Array constants with more elements than this print as ``{...}`` unless asked otherwise."""

_NUM = (
    r"-?nan(?:\(0x[0-9a-fA-F]+\))?|-?inf|true|false"
    r"|-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
)
_ELEM = re.compile(rf"\(\s*(?:{_NUM})\s*,\s*(?:{_NUM})\s*\)|{_NUM}")
_COMPLEX_PARTS = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)")
_INT_TOKEN = re.compile(r"-?\d+")
_SPACE = re.compile(r"(?:\s+|//[^\n\r]*|/\*.*?\*/)+", re.S)
_BRACES = re.compile(r"[{}]")
_ELIDED = re.compile(r"\{\s*\.\.\.\s*\}")
_SEPARATORS = re.compile(r"[\s,]+")
_STRAY = re.compile(r"[^\s,{}]")

# NaN payload support per type (xla/util.cc RoundTripNanPayload and the parser's checks):
# IEEE-like types with a quiet bit; the fn/fnuz/e8m0 types and 4/6-bit types have none.
_PAYLOAD_TYPES = frozenset({"f16", "bf16", "f32", "f64", "f8e5m2", "f8e4m3", "f8e3m4"})


class ElidedLiteral(Literal):
    """A constant printed as ``{...}``: its values are unknown (zeros are stored).

    XLA elides constants with more than 10 elements by default; such text does not carry the
    values, so evaluators must refuse it (``literal.elided``) instead of computing with zeros.
    """

    elided = True


def _zeros(shape: Shape) -> Value:
    if shape.is_tuple:
        return tuple(_zeros(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return TOKEN
    assert shape.element_type.numpy is not None
    return np.zeros([max(d, 0) for d in shape.dims], shape.element_type.numpy)


def elided_literal(shape: Shape) -> ElidedLiteral:
    return ElidedLiteral(shape, _zeros(shape))


# ---- float formatting -------------------------------------------------------------------


def _finfo(etype: ElementType) -> Any:
    """ml_dtypes.finfo of a float type (nmant, max, tiny)."""
    return ml_dtypes.finfo(etype.numpy)  # type: ignore[no-untyped-call]


def _nmant(etype: ElementType) -> int:
    """Explicit mantissa bits of a float type."""
    return int(_finfo(etype).nmant)


def max_digits10(etype: ElementType) -> int:
    """``std::numeric_limits<T>::max_digits10`` = floor(p * log10(2)) + 2, p = mantissa + 1."""
    return math.floor((_nmant(etype) + 1) * math.log10(2)) + 2


def _digits10(etype: ElementType) -> int:
    return math.floor(_nmant(etype) * math.log10(2))


def _quiet_nan_bit(etype: ElementType) -> int:
    return 1 << (_nmant(etype) - 1)


def _mantissa_mask(etype: ElementType) -> int:
    return (1 << _nmant(etype)) - 1


def _storage_uint(etype: ElementType) -> np.dtype:
    assert etype.numpy is not None
    return np.dtype(f"u{etype.numpy.itemsize}")


def format_floats(values: Array, etype: ElementType) -> list[str]:
    """The text of every element of a float array (flat, row-major), as XLA prints it.

    ``%.{max_digits10}g``, except f32/f64 which first try ``%.{digits10}g`` and keep it when it
    round-trips; NaN prints ``nan``/``-nan`` plus ``(0x<payload>)`` for a non-default payload.
    """
    flat = np.ascontiguousarray(values).reshape(-1)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        wide = flat.astype(np.float64)
    nan = np.isnan(wide)
    if etype in (dtypes.F32, dtypes.F64):
        short = [f"{v:.{_digits10(etype)}g}" for v in wide.tolist()]
        with np.errstate(invalid="ignore", over="ignore"):
            back = np.array(short, dtype=np.float64).astype(etype.numpy)
        same = (back.view(_storage_uint(etype)) == flat.view(_storage_uint(etype))) | nan
        out = short
        if not same.all():
            digits = max_digits10(etype)
            for i in np.flatnonzero(~same).tolist():
                out[i] = f"{wide[i]:.{digits}g}"
    else:
        digits = max_digits10(etype)
        out = [f"{v:.{digits}g}" for v in wide.tolist()]
    if nan.any():
        bits = flat.view(_storage_uint(etype)).astype(np.uint64)
        sign_bit = np.uint64(1 << (_storage_uint(etype).itemsize * 8 - 1))
        if etype.bits < 8:
            sign_bit = np.uint64(1 << (etype.bits - 1))
        for i in np.flatnonzero(nan).tolist():
            negative = etype is not dtypes.F8E8M0FNU and int(bits[i]) & int(sign_bit)
            text = "-nan" if negative else "nan"
            if etype.name in _PAYLOAD_TYPES:
                payload = int(bits[i]) & _mantissa_mask(etype)
                if payload != _quiet_nan_bit(etype):
                    text += f"(0x{payload:x})"
            out[i] = text
    return out


def format_elements(values: Array, etype: ElementType) -> list[str]:
    """Flat row-major element texts of an array (pred as 1/0)."""
    flat = np.ascontiguousarray(values).reshape(-1)
    if etype.is_pred:
        return ["1" if v else "0" for v in flat.tolist()]
    if etype.is_integer:
        wide = np.uint64 if etype is dtypes.U64 else np.int64
        return [str(v) for v in flat.astype(wide).tolist()]
    if etype.is_complex:
        comp = etype.component
        re_parts = format_floats(np.ascontiguousarray(flat.real).astype(comp.numpy), comp)
        im_parts = format_floats(np.ascontiguousarray(flat.imag).astype(comp.numpy), comp)
        return [f"({r}, {i})" for r, i in zip(re_parts, im_parts, strict=True)]
    return format_floats(flat, etype)


def format_array(values: Array, etype: ElementType, dims: Sequence[int]) -> str:
    """Nested-brace text of an array: ``{ { 1, 2 }, { 3, 4 } }`` (innermost ``{a, b}``)."""
    items = format_elements(values, etype)
    if not dims:
        if etype.is_pred:
            return "true" if bool(np.asarray(values).reshape(-1)[0]) else "false"
        return items[0]
    inner = dims[-1]
    if inner == 0:
        level = ["{}"] * math.prod(dims[:-1])
    else:
        # Rows of more than one element in a rank >= 2 literal get inner spaces: { 1, 2 }.
        left, right = ("{ ", " }") if len(dims) > 1 and inner > 1 else ("{", "}")
        level = [
            left + ", ".join(items[i : i + inner]) + right for i in range(0, len(items), inner)
        ]
    for k in range(len(dims) - 2, -1, -1):
        d = dims[k]
        if d == 0:
            level = ["{  }"] * math.prod(dims[:k])
        else:
            level = ["{ " + ", ".join(level[i : i + d]) + " }" for i in range(0, len(level), d)]
    return level[0]


def format_value(value: Value, shape: Shape, *, elide: bool = False) -> str:
    """Literal text of ``value`` of ``shape``; ``elide`` prints ``{...}`` for large arrays."""
    if shape.is_tuple:
        assert isinstance(value, tuple)
        if elide:
            return "{...}"
        parts = [format_value(v, s) for v, s in zip(value, shape.tuple_shapes, strict=True)]
        return "( " + ", ".join(parts) + " )"
    if shape.is_token:
        return "token"
    value = np.asarray(value)
    if elide and value.size > ELIDE_THRESHOLD:
        return "{...}"
    return format_array(value, shape.element_type, shape.dims)


def format_literal(literal: Literal, *, elide: bool = False) -> str:
    """Literal text as it appears inside ``constant(...)``."""
    if isinstance(literal, ElidedLiteral):
        return "{...}"
    return format_value(literal.value, literal.shape, elide=elide)


# ---- parsing --------------------------------------------------------------------------


@dataclass
class _Source:
    text: str
    filename: str

    def error(self, offset: int, message: str) -> ParseError:
        return ParseError.at(self.text, offset, message, self.filename)

    def skip(self, pos: int) -> int:
        m = _SPACE.match(self.text, pos)
        return m.end() if m else pos

    def expect(self, pos: int, char: str, what: str) -> int:
        pos = self.skip(pos)
        if not self.text.startswith(char, pos):
            raise self.error(pos, f"expected '{char}' {what}, found {self.describe(pos)}")
        return pos + len(char)

    def describe(self, pos: int) -> str:
        if pos >= len(self.text):
            return "end of input"
        m = re.compile(r"[A-Za-z0-9_.\-]+|.").match(self.text, pos)
        assert m is not None
        return f"'{m.group()}'"


def _skeleton(dims: Sequence[int]) -> str:
    """The braces of a dense literal of ``dims`` with ``e`` for each element (no commas)."""
    level = "{" + "e" * dims[-1] + "}"
    for d in reversed(dims[:-1]):
        level = "{" + level * d + "}"
    return level


def _structure(region: str) -> str | None:
    """The braces of ``region`` with ``e`` for each element, commas and blanks dropped (XLA's
    parser skips every comma: ``{1 2}``, ``{,1,,2,}`` and ``{1, 2}`` are the same literal);
    None when something else is there."""
    if _STRAY.search(_ELEM.sub("", region)):
        return None
    return _SEPARATORS.sub("", _ELEM.sub("e", region))


def parse_literal_at(
    text: str, pos: int, shape: Shape, filename: str = "<string>"
) -> tuple[Literal, int]:
    """Parses a literal of ``shape`` starting at ``pos``; returns it and the end offset."""
    src = _Source(text, filename)
    value, end, elided = _parse_value(src, pos, shape, top=True)
    if elided:
        return elided_literal(shape), end
    return Literal(shape, value), end


def parse_literal(text: str, shape: Shape, filename: str = "<string>") -> Literal:
    """Parses literal text (``{1, 2}``, ``1.5``, ``( 1, {2} )``, ``{...}``) of ``shape``."""
    literal, end = parse_literal_at(text, 0, shape, filename)
    end = _Source(text, filename).skip(end)
    if end != len(text):
        raise ParseError.at(text, end, "unexpected text after the literal", filename)
    return literal


def _parse_value(src: _Source, pos: int, shape: Shape, top: bool) -> tuple[Value, int, bool]:
    text = src.text
    pos = src.skip(pos)
    m = _ELIDED.match(text, pos)
    if m:
        for leaf in shape.leaves():
            problem = leaf.is_array and literal_size_problem(leaf.element_type, leaf.dims)
            if problem:
                raise ParseError.at(text, pos, f"elided constant: {problem}", src.filename)
        return _zeros(shape), m.end(), True
    if shape.is_tuple:
        pos = src.expect(pos, "(", "to start a tuple literal")
        items: list[Value] = []
        for i, sub in enumerate(shape.tuple_shapes):
            if i:
                pos = src.expect(pos, ",", "between tuple literal elements")
            value, pos, elided = _parse_value(src, pos, sub, top=False)
            if elided:
                raise src.error(pos, "'{...}' is only allowed for a whole constant")
            items.append(value)
        pos = src.expect(
            pos, ")", f"to close a tuple literal of {len(shape.tuple_shapes)} elements"
        )
        return tuple(items), pos, False
    if shape.is_token:
        m = re.compile(r"token\b").match(text, pos)
        if not m:
            raise src.error(pos, f"expected a token literal, found {src.describe(pos)}")
        return TOKEN, m.end(), False
    etype = shape.element_type
    if not etype.is_array:
        raise src.error(pos, f"literals of type {etype.name} are not supported")
    if shape.rank == 0:
        m = _ELEM.match(text, pos)
        if not m:
            raise src.error(pos, f"expected a {etype.name} scalar, found {src.describe(pos)}")
        array = _convert(src, [m.group()], [m.start()], etype)
        return array.reshape(()), m.end(), False
    if not text.startswith("{", pos):
        return _first_element_only(src, pos, shape)
    end = _matching_brace(src, pos)
    region = text[pos:end]
    if "/" in region:
        # Comments (XLA prints ``/*i0=0*/`` index hints) become blanks of the same length, so
        # digits inside them are not elements and offsets stay valid.
        region = _SPACE.sub(lambda c: " " * len(c.group()), region)
    count = math.prod(shape.dims)
    # Each element takes a character: a larger count cannot match (and its skeleton, a
    # string as long as the count, is not built).
    if count > len(region) or _structure(region) != _skeleton(shape.dims):
        _locate_structure_error(src, pos, shape)
        raise src.error(pos, f"literal does not have shape {shape}")
    matches = list(_ELEM.finditer(region))
    array = _convert(src, [m.group() for m in matches], [pos + m.start() for m in matches], etype)
    return array.reshape(shape.dims), end, False


def _first_element_only(src: _Source, pos: int, shape: Shape) -> tuple[Value, int, bool]:
    """A lone element where an array literal of ``shape`` belongs (``bf16[17,22]
    constant(1)``): XLA's parser accepts it and sets the array's first element to it, every
    other element to zero (it does not broadcast it). Complex elements and empty arrays are
    refused, as XLA refuses them."""
    etype = shape.element_type
    m = _ELEM.match(src.text, pos)
    if not m or etype.is_complex or not math.prod(shape.dims):
        raise src.error(pos, f"expected '{{' to start a literal of shape {shape}")
    first = _convert(src, [m.group()], [m.start()], etype)
    array = np.zeros(shape.dims, etype.numpy)
    array.flat[0] = first[0]
    return array, m.end(), False


def _matching_brace(src: _Source, pos: int) -> int:
    depth = 0
    for m in _BRACES.finditer(src.text, pos):
        depth += 1 if m.group() == "{" else -1
        if depth == 0:
            return m.end()
    raise src.error(pos, "unbalanced '{' in literal")


def _locate_structure_error(src: _Source, pos: int, shape: Shape) -> None:
    """Walks a malformed dense literal and raises at the first structural mistake."""
    text, dims = src.text, shape.dims

    def level(pos: int, depth: int, index: str) -> int:
        pos = src.skip(pos)
        if depth == len(dims):
            m = _ELEM.match(text, pos)
            if not m:
                if text.startswith("{", pos):
                    raise src.error(
                        pos, f"too many nested braces: shape {shape} has rank {len(dims)}"
                    )
                raise src.error(
                    pos, f"expected a {shape.element_type.name} element, found {src.describe(pos)}"
                )
            return m.end()
        if not text.startswith("{", pos):
            raise src.error(
                pos,
                f"expected '{{' for the nested array at depth {depth} (shape {shape} has "
                f"rank {len(dims)}), found {src.describe(pos)}",
            )
        pos += 1
        count = 0
        while True:
            pos = src.skip(pos)
            while text.startswith(",", pos):  # XLA's parser skips every comma
                pos = src.skip(pos + 1)
            if text.startswith("}", pos):
                if count != dims[depth]:
                    raise src.error(
                        pos,
                        f"expected {dims[depth]} elements in the {index or 'literal'} "
                        f"(dimension {depth} of {shape}), found {count}",
                    )
                return pos + 1
            if count == dims[depth]:
                raise src.error(
                    src.skip(pos),
                    f"expected {dims[depth]} elements in the {index or 'literal'} "
                    f"(dimension {depth} of {shape}), found more",
                )
            pos = level(pos, depth + 1, f"{index}[{count}]")
            count += 1

    level(pos, 0, "")


def _int_range(etype: ElementType) -> tuple[int, int]:
    if etype.is_signed:
        return -(1 << (etype.bits - 1)), (1 << (etype.bits - 1)) - 1
    return 0, (1 << etype.bits) - 1


def _convert(src: _Source, tokens: list[str], offsets: list[int], etype: ElementType) -> Array:
    """Element token texts -> numpy array of ``etype`` (range-checked like XLA's parser)."""
    if etype.is_pred:
        return _convert_pred(src, tokens, offsets)
    if etype.is_integer:
        return _convert_ints(src, tokens, offsets, etype)
    if etype.is_complex:
        comp = etype.component
        parts = []
        for tok, off in zip(tokens, offsets, strict=True):
            m = _COMPLEX_PARTS.fullmatch(tok)
            if not m:
                raise src.error(off, f"expected a complex element '(real, imag)' for {etype.name}")
            parts.append((m.group(1), m.group(2), off))
        real = _convert_floats(src, [p[0] for p in parts], [p[2] for p in parts], comp)
        imag = _convert_floats(src, [p[1] for p in parts], [p[2] for p in parts], comp)
        # XLA quirk (HLO_TEXT.md §5): a NaN real part makes the imaginary part NaN too.
        imag = np.where(np.isnan(real), real, imag)
        # Parts are assigned, not combined as ``real + 1j * imag``: ``1j * inf`` is ``nan+infj``.
        out = np.empty(real.shape, etype.numpy)
        out.real = real
        out.imag = imag
        return out
    return _convert_floats(src, tokens, offsets, etype)


def _convert_pred(src: _Source, tokens: list[str], offsets: list[int]) -> Array:
    out = np.empty(len(tokens), np.bool_)
    for i, tok in enumerate(tokens):
        if tok in ("true", "false"):
            out[i] = tok == "true"
        elif _INT_TOKEN.fullmatch(tok):
            out[i] = int(tok) != 0
        else:
            raise src.error(offsets[i], f"expected true, false, 1 or 0 for pred, found '{tok}'")
    return out


def _convert_ints(src: _Source, tokens: list[str], offsets: list[int], etype: ElementType) -> Array:
    try:
        values = [int(t) for t in tokens]
    except ValueError:
        bad = next(i for i, t in enumerate(tokens) if not _INT_TOKEN.fullmatch(t))
        raise src.error(
            offsets[bad], f"expected an integer for {etype.name}, found '{tokens[bad]}'"
        ) from None
    lo, hi = _int_range(etype)
    if etype.bits == 64:
        # The lexer keeps 64-bit patterns: u64 accepts negatives, s64 accepts up to 2**64-1.
        values = [v & ((1 << 64) - 1) for v in values]
        if etype.is_signed:
            values = [v - (1 << 64) if v >= (1 << 63) else v for v in values]
    if values and (min(values) < lo or max(values) > hi):
        bad = next(i for i, v in enumerate(values) if not lo <= v <= hi)
        raise src.error(
            offsets[bad],
            f"value {tokens[bad]} is out of range for {etype.name}; the range is [{lo}, {hi}]",
        )
    wide = np.uint64 if etype is dtypes.U64 else np.int64
    return np.array(values, dtype=wide).astype(etype.numpy)


def _nan_bits(etype: ElementType, negative: bool, payload: int | None) -> int:
    nmant = _nmant(etype)
    exp_bits = etype.bits - 1 - nmant
    bits = ((1 << exp_bits) - 1) << nmant
    bits |= payload if payload is not None else _quiet_nan_bit(etype)
    if negative:
        bits |= 1 << (etype.bits - 1)
    return bits


def _convert_floats(
    src: _Source, tokens: list[str], offsets: list[int], etype: ElementType
) -> Array:
    wide = np.empty(len(tokens), np.float64)
    special: list[tuple[int, int]] = []  # (index, bits) of NaNs with payload
    for i, tok in enumerate(tokens):
        c = tok[0]
        if c.isdigit() or c == "." or (c == "-" and tok[1:2] not in ("n", "i")):
            # "-0" is read as negative zero (XLA reads +0 there, losing the sign its own
            # printer wrote); every other number is the nearest double, as strtod gives.
            wide[i] = float(tok)
            if math.isinf(wide[i]):
                raise src.error(offsets[i], f"value {tok} is out of range for f64")
        elif tok in ("inf", "-inf"):
            wide[i] = float(tok)
        elif "nan" in tok:
            negative = tok.startswith("-")
            m = re.search(r"0x([0-9a-fA-F]+)", tok)
            if m is None:
                wide[i] = math.copysign(math.nan, -1.0 if negative else 1.0)
            else:
                payload = int(m.group(1), 16)
                if etype.name not in _PAYLOAD_TYPES:
                    raise src.error(
                        offsets[i], f"{etype.name} does not support NaN payloads; got '{tok}'"
                    )
                mask = _mantissa_mask(etype)
                if not 0 < payload <= mask:
                    raise src.error(
                        offsets[i],
                        f"NaN payload 0x{payload:x} is out of range for {etype.name} "
                        f"(0x1..0x{mask:x})",
                    )
                wide[i] = math.nan
                special.append((i, _nan_bits(etype, negative, payload)))
        else:
            raise src.error(offsets[i], f"expected a number for {etype.name}, found '{tok}'")
    with np.errstate(over="ignore", invalid="ignore"):
        out = wide.astype(etype.numpy)
    finite = np.isfinite(wide)
    bad = finite & ~np.isfinite(out.astype(np.float64))
    if etype is dtypes.F8E8M0FNU:
        bad |= finite & (wide < float(_finfo(etype).tiny))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fi = _finfo(etype)
        lo = float(fi.tiny) if etype is dtypes.F8E8M0FNU else -float(fi.max)
        raise src.error(
            offsets[i],
            f"value {tokens[i]} is out of range for {etype.name}; the range is "
            f"[{lo:g}, {float(fi.max):g}]",
        )
    if special:
        bits = out.view(_storage_uint(etype))
        for i, b in special:
            bits[i] = b
    return out
