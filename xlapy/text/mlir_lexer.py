"""Tokens of MLIR text (STABLEHLO_SYNTAX.md §2), produced on demand from a position.

The lexer is position based so the parser can switch to raw scanning where MLIR's lexical rules
depend on context (``tensor<2x3xf32>`` dims, ``dense<...>`` bodies). Trivia skipped between
tokens: whitespace, ``//`` comments and debug locations ``loc(...)`` (balanced, strings
respected), which may follow any op, argument, function or module.
"""

from __future__ import annotations

import enum
import re

from xlapy.errors import ParseError


class Tok(enum.Enum):
    """Token kinds."""

    EOF = "end of input"
    SSA = "SSA value"  # %name, %name#3
    BLOCK = "block label"  # ^bb0
    SYMBOL = "symbol"  # @name, @"quoted"
    HASH = "attribute name"  # #stablehlo.gather, #loc3, #stablehlo
    BANG = "type name"  # !stablehlo.token, !quant.uniform
    ID = "identifier"  # stablehlo.add, dims, LT, tensor, f32
    INT = "integer"  # -12, 0x7FC00000
    FLOAT = "float"  # 1.5, -2.000000e+00
    STRING = "string"  # "..." (text keeps the quotes)
    PUNCT = "punctuation"  # ( ) [ ] { } < > , : = -> :: ? * +


class Token:
    """One token: its kind, its text and its offsets in the source. Written out rather than
    a ``@dataclass`` (generating one costs ~0.7 ms in every fresh process that loads
    StableHLO)."""

    __slots__ = ("end", "kind", "start", "text")

    def __init__(self, kind: Tok, text: str, start: int, end: int) -> None:
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.start}, {self.end})"


_ID_CHARS = r"[A-Za-z0-9_$.\-]"
_TOKEN = re.compile(
    # Trivia, then one token (one named group per kind). Not a verbose pattern: compiling
    # one costs ~0.3 ms more, in every process that loads StableHLO.
    r"(?:\s+|//[^\n]*)*(?:"
    + "|".join(
        (
            r"(?P<SSA>%(?:[A-Za-z_$.\-][A-Za-z0-9_$.\-]*|\d+)(?:#\d+)?)",
            r"(?P<ID>[A-Za-z_][A-Za-z0-9_$.]*)",
            r"(?P<PUNCT>[()\[\]{},:=?*+<>])",
            r"(?P<FLOAT>-?\d+\.\d*(?:[eE][+-]?\d+)?)",
            r"(?P<INT>-?0x[0-9a-fA-F]+|-?\d+)",
            r'(?P<STRING>"[^"\\]*(?:\\.[^"\\]*)*")',
            r"(?P<ARROW>->)",
            r"(?P<DCOLON>::)",
            r"(?P<BLOCK>\^[A-Za-z0-9_$.\-]+)",
            r'(?P<SYMBOL>@(?:"[^"\\]*(?:\\.[^"\\]*)*"|[A-Za-z_$.][A-Za-z0-9_$.\-]*))',
            r"(?P<HASH>#[A-Za-z_][A-Za-z0-9_$.]*)",
            r"(?P<BANG>![A-Za-z_][A-Za-z0-9_$.]*)",
            r"(?P<EOF>\Z)",
        )
    )
    + ")"
)
_TRIVIA = re.compile(r"(?:\s+|//[^\n]*)*")
_LOC = re.compile(r"loc\s*\(")
# Patterns of rare tokens, compiled on first use (``re`` keeps them): most programs have
# neither escapes nor locations, and compiling both took ~0.2 ms of every StableHLO load.
# MLIR's escapes: \" \\ \n \t and two hex digits; a backslash before anything else is an error.
_ESCAPE = r'\\(["\\nt]|[0-9a-fA-F]{2})?'
_STRING_OR_PAREN = r'"[^"\\]*(?:\\.[^"\\]*)*"|[()]'
_KINDS = {
    "SSA": Tok.SSA,
    "BLOCK": Tok.BLOCK,
    "SYMBOL": Tok.SYMBOL,
    "HASH": Tok.HASH,
    "BANG": Tok.BANG,
    "FLOAT": Tok.FLOAT,
    "INT": Tok.INT,
    "STRING": Tok.STRING,
    "ARROW": Tok.PUNCT,
    "DCOLON": Tok.PUNCT,
    "ID": Tok.ID,
    "PUNCT": Tok.PUNCT,
    "EOF": Tok.EOF,
}


class Lexer:
    """Lexes ``text[start:end]`` on demand; ``token_at(pos)`` returns the token at or after pos."""

    def __init__(self, text: str, filename: str = "<string>", start: int = 0, end: int = -1):
        self.text = text
        self.filename = filename
        self.start = start
        self.end = len(text) if end < 0 else end

    def error(self, offset: int, message: str) -> ParseError:
        return ParseError.at(self.text, offset, message, self.filename)

    def skip_trivia(self, pos: int) -> int:
        """The first position at or after ``pos`` that is not whitespace, comment or loc(...)."""
        text = self.text
        while True:
            trivia = _TRIVIA.match(text, pos, self.end)
            assert trivia is not None  # the pattern matches the empty string
            pos = trivia.end()
            if text.startswith("loc", pos) and (pos == 0 or not re.match(_ID_CHARS, text[pos - 1])):
                m = _LOC.match(text, pos, self.end)
                if m is not None:
                    pos = self._skip_balanced(pos, m.end())
                    continue
            return pos

    def _skip_balanced(self, start: int, pos: int) -> int:
        depth = 1
        text = self.text
        strings_or_parens = re.compile(_STRING_OR_PAREN)
        while depth:
            m = strings_or_parens.search(text, pos, self.end)
            if m is None:
                raise self.error(start, "unterminated loc(...)")
            pos = m.end()
            if m.group() == "(":
                depth += 1
            elif m.group() == ")":
                depth -= 1
        return pos

    def token_at(self, pos: int) -> Token:
        text = self.text
        while True:
            m = _TOKEN.match(text, pos, self.end)
            if m is None:
                pos = self.skip_trivia(pos)
                raise self.error(pos, f"unexpected character {text[pos]!r}")
            kind = m.lastgroup
            assert kind is not None
            start = m.start(kind)
            if kind == "ID" and m.group(kind) == "loc":
                loc = _LOC.match(text, start, self.end)
                if loc is not None:
                    pos = self._skip_balanced(start, loc.end())
                    continue
            if kind == "STRING" and "\\" in m.group(kind):
                for escape in re.finditer(_ESCAPE, m.group(kind)):
                    if escape.group(1) is None:
                        raise self.error(start + escape.start(), "unknown escape in string literal")
            return Token(_KINDS[kind], m.group(kind), start, m.end())


def unescape_string(token_text: str) -> str:
    """The value of an MLIR string literal (quotes included in ``token_text``).

    Escapes: ``\\"``, ``\\\\``, ``\\n``, ``\\t`` and ``\\XX`` (two hex digits, a raw byte)."""
    body = token_text[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in ('"', "\\"):
            out += nxt.encode()
            i += 2
        elif nxt == "n":
            out += b"\n"
            i += 2
        elif nxt == "t":
            out += b"\t"
            i += 2
        else:
            out.append(int(body[i + 1 : i + 3], 16))
            i += 3
    return out.decode("utf-8", errors="surrogateescape")


def int_value(text: str) -> int:
    """The value of an integer token: decimal (leading zeros allowed, as MLIR reads them) or
    ``0x`` hexadecimal."""
    body = text.lstrip("+-")
    value = int(body, 16) if body[:2] in ("0x", "0X") else int(body, 10)
    return -value if text.startswith("-") else value
