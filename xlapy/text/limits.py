"""Bounds of the text parsers, checked where the text is read so the error is located.

* Nesting: a recursive-descent parser recurses once (a few Python frames) per open bracket,
  so text nested deeper than ``MAX_NESTING`` is refused before parsing starts, instead of
  exhausting Python's recursion limit. Brackets are counted outside strings and comments,
  with each format's own lexical rules; a closing bracket without an opener only lowers the
  count to zero (the parser reports it).
* Array sizes: a dimension, and an array's byte size, must fit in int64 (XLA's
  ``ShapeUtil::ValidateShape``), so no later product of dimensions overflows.
* Literals made from less text than their size (a ``dense<1.0>`` splat, an elided
  ``{...}`` constant) must fit the memory budget of a run (``xlapy.ir.memory``): they are
  materialized while the text is read, before any run could refuse the program.
"""

from __future__ import annotations

import math
import re

import numpy as np

from xlapy.dtypes import ElementType
from xlapy.errors import ParseError
from xlapy.ir import memory

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

_SKIPPED = {
    HLO_BRACKETS: re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|//[^\n\r]*|/\*.*?\*/', re.S),
    MLIR_BRACKETS: re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|//[^\n]*'),
    PLAIN_BRACKETS: None,
}
"""Per bracket pattern: its strings and comments (the alternatives that are not brackets)."""
_STEP = {
    HLO_BRACKETS: np.zeros(256, np.int32),
    MLIR_BRACKETS: np.zeros(256, np.int32),
    PLAIN_BRACKETS: np.zeros(256, np.int32),
}
"""Per bracket pattern: +1 for an opening byte, -1 for a closing one."""
for _pattern, _step in _STEP.items():
    _step[[ord(c) for c in "([{"]] = 1
    _step[[ord(c) for c in ")]}"]] = -1
_STEP[MLIR_BRACKETS][ord("<")] = 1
_STEP[MLIR_BRACKETS][ord(">")] = -1

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

    The depth is computed at once with numpy (``_deepest``); only text nested too deep is
    walked bracket by bracket, to locate the error.
    """
    end = len(text) if end is None else end
    if brackets in _STEP and _deepest(text, start, end, brackets) <= limit:
        return
    depth = 0
    for match in brackets.finditer(text, start, end):
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


INT64_MAX = 2**63 - 1


def _deepest(text: str, start: int, end: int, brackets: re.Pattern[str]) -> int:
    """The deepest nesting of ``text[start:end]`` as ``check_nesting`` counts it: strings and
    comments blanked (``brackets``' other alternatives), MLIR's ``->`` not a closer, and a
    closer at depth zero leaving it zero (the depth is the walk of +1/-1 steps reflected at
    zero: its running sum less the lowest negative running sum so far)."""
    chunk = text[start:end]
    skipped = _SKIPPED[brackets]
    if skipped is not None:
        chunk = skipped.sub(" ", chunk)
    data = np.frombuffer(chunk.encode("utf-8", "surrogatepass"), np.uint8)
    if data.size == 0:
        return 0
    step = _STEP[brackets][data]
    if brackets is MLIR_BRACKETS:
        step[1:][(data[1:] == ord(">")) & (data[:-1] == ord("-"))] = 0
    total = np.cumsum(step)
    floor = np.minimum(np.minimum.accumulate(total), 0)
    return int((total - floor).max())


def array_size_problem(etype: ElementType, dims: list[int] | tuple[int, ...]) -> str | None:
    """Why an array of ``etype`` and ``dims`` (bounds for dynamic ones; negative entries are
    unbounded and skipped) cannot exist, or None: a dimension or the byte size beyond int64."""
    sizes = [d for d in dims if d >= 0]
    for d in sizes:
        if d > INT64_MAX:
            return f"dimension {d} is out of the int64 range"
    count = math.prod(sizes)
    if count * max(etype.bits, 1) // 8 > INT64_MAX:
        return f"an array of {etype.name}[{','.join(map(str, dims))}] has 2^63 bytes or more"
    return None


def literal_size_problem(etype: ElementType, dims: tuple[int, ...]) -> str | None:
    """Why a literal of ``etype`` and ``dims`` built from a few characters of text cannot be
    materialized (above 80% of the memory available, ``ir.memory``'s default budget), or
    None. Literals of at most ``memory.ALWAYS_FITS`` bytes fit without asking the system (as
    ``check_memory`` does), so a program's many small constants do not read /proc/meminfo."""
    size = math.prod(max(d, 0) for d in dims) * max(etype.bits, 8) // 8
    if size <= memory.ALWAYS_FITS:
        return None
    available = memory.available_memory()
    if available is None:
        return None
    budget = int(available * memory.DEFAULT_FRACTION)
    if size <= budget:
        return None
    return (
        f"a literal of {etype.name}[{','.join(map(str, dims))}] takes {size} bytes, above the "
        f"memory budget of {budget} bytes (80% of the memory available)"
    )
