"""Helpers for the indexing tests: parse HLO snippets and compare printed maps."""

from __future__ import annotations

import re

from xlapy.ir.instruction import HloInstruction
from xlapy.text.hlo_parser import parse_hlo


def squash(text: str) -> str:
    """Whitespace-insensitive form of printed indexing (XLA's MatchIndexingString)."""
    return re.sub(r"\s+", "", text)


def parse_root(text: str) -> HloInstruction:
    """The ENTRY root of an HLO snippet (``HloModule m`` is prepended when missing)."""
    if not text.lstrip().startswith("HloModule"):
        text = "HloModule m\n" + text
    return parse_hlo(text, "<test>").entry.root


def assert_printed(got: str, expected: str) -> None:
    __tracebackhide__ = True
    if squash(got) != squash(expected):
        raise AssertionError(
            f"printed indexing differs\n--- got:\n{got}\n--- expected:\n{expected}"
        )
