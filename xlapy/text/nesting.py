"""The nesting bound of the text parsers: a recursive-descent parser recurses once (a few
Python frames) per open bracket, so text nested deeper than ``MAX_NESTING`` is refused with a
located ``ParseError`` before parsing starts, instead of exhausting Python's recursion limit.

Brackets are counted outside strings and comments, with each format's own lexical rules; a
closing bracket without an opener only lowers the count to zero (the parser reports it).
"""

from __future__ import annotations

import re

from xlapy.errors import ParseError

MAX_NESTING = 128
"""The deepest bracket nesting any text format accepts. Real programs stay far below it (a
rank-8 literal is 9 levels, a JAX program with nested loops a few dozen)."""

HLO_BRACKETS = re.compile(
    r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|//[^\n\r]*|/\*.*?\*/|[(\[{]|[)\]}]', re.S
)
"""HLO text: strings in double or single quotes, ``//`` and ``/* */`` comments, ``( [ {``."""

MLIR_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|//[^\n]*|->|[(\[{<]|[)\]}>]')
"""MLIR text: strings, ``//`` comments, ``( [ { <`` (``->`` is an arrow, not a closer)."""

PLAIN_BRACKETS = re.compile(r"[(\[{]|[)\]}]")
"""Text without strings or comments (indexing maps)."""

_OPENERS = frozenset("([{<")
_CLOSERS = frozenset(")]}>")


def check_nesting(
    text: str,
    filename: str,
    brackets: re.Pattern[str],
    *,
    start: int = 0,
    end: int | None = None,
    limit: int = MAX_NESTING,
) -> None:
    """Raises a ParseError at the first bracket of ``text[start:end]`` that opens level
    ``limit + 1``; ``brackets`` matches strings and comments (skipped) and single brackets.
    """
    depth = 0
    for match in brackets.finditer(text, start, len(text) if end is None else end):
        token = match.group()
        if token in _OPENERS:
            depth += 1
            if depth > limit:
                raise ParseError.at(
                    text,
                    match.start(),
                    f"brackets nested more than {limit} levels deep, the most xlapy's parsers "
                    "accept",
                    filename,
                )
        elif token in _CLOSERS and depth:
            depth -= 1
