"""The HLO text lexer (HLO_TEXT.md §1): position-based, lazy, context-free except for numbers.

``Lexer.lex(pos)`` returns the token starting at or after ``pos``, so the parser can peek,
backtrack and capture raw source text (brace-balanced blobs) by offsets. String escapes follow
absl's CUnescape/CEscape, which XLA uses on both sides.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from xlapy import dtypes
from xlapy.errors import ParseError


class Tok(enum.Enum):
    """Token kinds."""

    EOF = "end of input"
    NAME = "name"  # %foo  or  foo:   (value = foo)
    ATTR = "attribute name"  # foo=  (value = foo)
    IDENT = "identifier"
    INT = "integer"
    FLOAT = "float"
    STRING = "string"
    DIM_LABELS = "dim labels"
    DXD = "DxD"
    PAD = "padding"
    ARROW = "'->'"
    LEQ = "'<='"
    DOTS = "'...'"
    PUNCT = "punctuation"


# Keywords that cannot be instruction names (lexed as IDENT but recognised by the parser).
KEYWORDS = frozenset(
    [
        "HloModule",
        "ENTRY",
        "ROOT",
        "true",
        "false",
        "inf",
        "FileNames",
        "FunctionNames",
        "FileLocations",
        "StackFrames",
        "maximal",
        "replicated",
        "manual",
        "unknown",
        "unreduced",
        "last_tile_dim_replicate",
        "shard_as",
        "shard_like",
    ]
)

TYPE_NAMES = frozenset(t.name for t in dtypes.ALL if t.name not in ("tuple",))

_IDENT = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.\-]*")
_DIM_LABELS = re.compile(r"[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}")
_FLOAT = re.compile(r"-?(?:(?:\d+|\d+\.\d*|\d*\.\d+)[eE][+-]?\d+|\d+\.\d*|\d*\.\d+)")
_DXD = re.compile(r"[0-9]+(?:x[0-9]+)+")
_PAD = re.compile(r"-?[0-9]+_-?[0-9]+(?:_[0-9]+)?(?:x-?[0-9]+_-?[0-9]+(?:_[0-9]+)?)*")
_INT = re.compile(r"-?\d+")
_NAN_PAYLOAD = re.compile(r"\(0x([0-9a-fA-F]+)\)")
_STRING = {'"': re.compile(r'"(?:[^"\\]|\\.)*"', re.S), "'": re.compile(r"'(?:[^'\\]|\\.)*'", re.S)}
_SPACE = re.compile(r"(?:\s+|//[^\n\r]*|/\*.*?\*/)+", re.S)
_PUNCT = frozenset("=,:*#+~[]{}()?")
_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1


@dataclass(frozen=True, slots=True)
class NanValue:
    """A NaN literal token: sign and optional payload (``-nan(0x12)``)."""

    negative: bool
    payload: int | None


@dataclass(frozen=True, slots=True)
class Token:
    """One token: kind, value (str/int/float/NanValue), source offsets [start, end)."""

    kind: Tok
    value: object
    start: int
    end: int

    @property
    def text(self) -> str:
        return str(self.value)

    def is_punct(self, char: str) -> bool:
        return self.kind is Tok.PUNCT and self.value == char

    def is_ident(self, word: str) -> bool:
        return self.kind is Tok.IDENT and self.value == word

    def describe(self) -> str:
        """How the token is named in 'expected X, found Y' messages."""
        if self.kind is Tok.EOF:
            return "end of input"
        if self.kind is Tok.PUNCT:
            return f"'{self.value}'"
        if self.kind is Tok.NAME:
            return f"name '{self.value}'"
        if self.kind is Tok.ATTR:
            return f"attribute '{self.value}='"
        if self.kind is Tok.STRING:
            return "string"
        return f"{self.kind.value} '{self.value}'" if self.kind is not Tok.DOTS else "'...'"


_SIMPLE_ESCAPES = {
    "n": 10,
    "t": 9,
    "r": 13,
    "\\": 92,
    '"': 34,
    "'": 39,
    "?": 63,
    "a": 7,
    "b": 8,
    "f": 12,
    "v": 11,
}


def c_unescape(body: str) -> str:
    """absl::CUnescape of a string body (``\\n``, ``\\"``, ``\\x41``, octal ``\\101``)."""
    if "\\" not in body:
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            j = body.find("\\", i)
            j = n if j < 0 else j
            out += body[i:j].encode()
            i = j
            continue
        e = body[i + 1] if i + 1 < n else ""
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 2
        elif e == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            if not m:
                raise ValueError("\\x with no following hex digits")
            out.append(int(m.group(), 16))
            i += 2 + len(m.group())
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            value = int(m.group(), 8)
            if value > 255:
                raise ValueError(f"octal escape \\{m.group()} out of range")
            out.append(value)
            i += 1 + len(m.group())
        else:
            raise ValueError(f"unknown escape sequence \\{e}")
    return out.decode("utf-8", errors="surrogateescape")


_ESCAPE_OUT = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}


def c_escape(text: str) -> str:
    """absl::CEscape: quotes/backslash/newlines escaped, other bytes < 0x20 or >= 0x7f octal."""
    raw = text.encode("utf-8", errors="surrogateescape")
    if all(0x20 <= b < 0x7F and b not in (34, 39, 92) for b in raw):
        return text
    parts = []
    for b in raw:
        if b in _ESCAPE_OUT:
            parts.append(_ESCAPE_OUT[b])
        elif b < 0x20 or b >= 0x7F:
            parts.append(f"\\{b:03o}")
        else:
            parts.append(chr(b))
    return "".join(parts)


class Lexer:
    """Lexes HLO text on demand at any offset (tokens are cached per offset)."""

    def __init__(self, text: str, filename: str = "<string>") -> None:
        self.text = text
        self.filename = filename
        self._cache: dict[int, Token] = {}

    def error(self, offset: int, message: str) -> ParseError:
        return ParseError.at(self.text, offset, message, self.filename)

    def skip_space(self, pos: int) -> int:
        m = _SPACE.match(self.text, pos)
        if m:
            pos = m.end()
        if self.text.startswith("/*", pos):
            raise self.error(pos, "unterminated /* comment")
        return pos

    def lex(self, pos: int) -> Token:
        """The token at or after ``pos`` (whitespace and comments skipped)."""
        tok = self._cache.get(pos)
        if tok is None:
            tok = self._lex(self.skip_space(pos))
            self._cache[pos] = tok
        return tok

    def _lex(self, pos: int) -> Token:
        text = self.text
        if pos >= len(text):
            return Token(Tok.EOF, "", pos, pos)
        c = text[pos]
        if (c.isascii() and c.isalpha()) or c == "_":
            return self._lex_identifier(pos)
        if (c.isascii() and c.isdigit()) or c in "-?.":
            if text.startswith("->", pos):
                return Token(Tok.ARROW, "->", pos, pos + 2)
            if text.startswith("...", pos):
                return Token(Tok.DOTS, "...", pos, pos + 3)
            tok = self._lex_number(pos)
            if tok is not None:
                return tok
            if c == "?":
                return Token(Tok.PUNCT, "?", pos, pos + 1)
            raise self.error(pos, f"unexpected character {c!r}")
        if c == "%":
            m = _IDENT.match(text, pos + 1)
            if not m:
                raise self.error(pos, "expected a name after '%'")
            return Token(Tok.NAME, m.group(), pos, m.end())
        if c == "<" and text.startswith("<=", pos):
            return Token(Tok.LEQ, "<=", pos, pos + 2)
        if c in "\"'":
            m = _STRING[c].match(text, pos)
            if not m:
                raise self.error(pos, "unterminated string")
            try:
                value = c_unescape(m.group()[1:-1])
            except ValueError as err:
                raise self.error(pos, f"bad string: {err}") from None
            return Token(Tok.STRING, value, pos, m.end())
        if c in _PUNCT:
            return Token(Tok.PUNCT, c, pos, pos + 1)
        raise self.error(pos, f"unexpected character {c!r}")

    def _lex_identifier(self, pos: int) -> Token:
        text = self.text
        m = _IDENT.match(text, pos)
        assert m is not None
        end = m.end()
        word = m.group()
        nxt = text[end : end + 1]
        if nxt == ":":
            return Token(Tok.NAME, word, pos, end + 1)
        if nxt == "=":
            return Token(Tok.ATTR, word, pos, end + 1)
        if word == "nan":
            payload = None
            if nxt == "(":
                pm = _NAN_PAYLOAD.match(text, end)
                if not pm:
                    raise self.error(end, "bad NaN payload; expected (0x<hex>)")
                payload, end = int(pm.group(1), 16), pm.end()
            return Token(Tok.FLOAT, NanValue(False, payload), pos, end)
        dm = _DIM_LABELS.match(text, pos)
        if dm and word not in KEYWORDS:
            return Token(Tok.DIM_LABELS, dm.group(), pos, dm.end())
        return Token(Tok.IDENT, word, pos, end)

    def _lex_number(self, pos: int) -> Token | None:
        text = self.text
        m = _FLOAT.match(text, pos)
        if m:
            return Token(Tok.FLOAT, float(m.group()), pos, m.end())
        for kind, pattern in ((Tok.DIM_LABELS, _DIM_LABELS), (Tok.DXD, _DXD), (Tok.PAD, _PAD)):
            m = pattern.match(text, pos)
            if m:
                return Token(kind, m.group(), pos, m.end())
        m = _INT.match(text, pos)
        if m:
            value = int(m.group())
            if not _INT64_MIN <= value <= _UINT64_MAX:
                raise self.error(pos, f"integer {m.group()} is out of the 64-bit range")
            return Token(Tok.INT, value, pos, m.end())
        if text.startswith("-inf", pos):
            return Token(Tok.FLOAT, float("-inf"), pos, pos + 4)
        if text.startswith("-nan", pos):
            end = pos + 4
            payload = None
            pm = _NAN_PAYLOAD.match(text, end)
            if pm:
                payload, end = int(pm.group(1), 16), pm.end()
            return Token(Tok.FLOAT, NanValue(True, payload), pos, end)
        return None


_BLOB = re.compile(r'"(?:[^"\\]|\\.)*"|[{}]', re.S)
_BLOB_QUOTES = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[{}\[\]()]', re.S)


class Cursor:
    """A parser's position in the text plus the token helpers every parser needs."""

    def __init__(self, text: str, filename: str = "<string>") -> None:
        self.lexer = Lexer(text, filename)
        self.text = text
        self.pos = 0

    # ---- tokens ------------------------------------------------------------------------
    def peek(self) -> Token:
        return self.lexer.lex(self.pos)

    def peek2(self) -> Token:
        """The token after the next one."""
        return self.lexer.lex(self.peek().end)

    def next(self) -> Token:
        tok = self.lexer.lex(self.pos)
        self.pos = tok.end
        return tok

    def error(self, offset: int, message: str) -> ParseError:
        return self.lexer.error(offset, message)

    def expected(self, what: str, tok: Token | None = None) -> ParseError:
        tok = tok or self.peek()
        return self.error(tok.start, f"expected {what}, found {tok.describe()}")

    def at_punct(self, char: str) -> bool:
        return self.peek().is_punct(char)

    def accept_punct(self, char: str) -> bool:
        if self.peek().is_punct(char):
            self.next()
            return True
        return False

    def expect_punct(self, char: str, context: str = "") -> Token:
        tok = self.peek()
        if not tok.is_punct(char):
            raise self.expected(f"'{char}'" + (f" {context}" if context else ""), tok)
        return self.next()

    def expect(self, kind: Tok, what: str) -> Token:
        tok = self.peek()
        if tok.kind is not kind:
            raise self.expected(what, tok)
        return self.next()

    def expect_int(self, what: str = "an integer") -> int:
        tok = self.expect(Tok.INT, what)
        assert isinstance(tok.value, int)
        return tok.value

    def accept_ident(self, word: str) -> bool:
        if self.peek().is_ident(word):
            self.next()
            return True
        return False

    # ---- raw text ----------------------------------------------------------------------
    def raw_braced(self, *, single_quotes: bool = False) -> str:
        """Consumes a brace-balanced ``{...}`` blob verbatim (strings may contain braces)."""
        start = self.lexer.skip_space(self.pos)
        if not self.text.startswith("{", start):
            raise self.expected("'{'")
        depth = 0
        pattern = _BLOB_QUOTES if single_quotes else _BLOB
        for m in pattern.finditer(self.text, start):
            g = m.group()
            if g in "{[(":
                depth += 1
            elif g in "}])":
                depth -= 1
                if depth == 0:
                    self.pos = m.end()
                    return self.text[start : m.end()]
        raise self.error(start, "unbalanced '{'")

    def raw_until_separator(self) -> str:
        """Consumes tokens up to a ',' or closing bracket at depth 0; returns the text."""
        start = self.lexer.skip_space(self.pos)
        depth = 0
        while True:
            tok = self.peek()
            if tok.kind is Tok.EOF:
                break
            if tok.kind is Tok.PUNCT and str(tok.value) in "([{":
                depth += 1
            elif tok.kind is Tok.PUNCT and str(tok.value) in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (tok.is_punct(",") or tok.kind is Tok.NAME):
                break
            if depth == 0 and self.pos > start and "\n" in self.text[self.pos : tok.start]:
                break
            self.next()
        return self.text[start : self.pos].strip()
