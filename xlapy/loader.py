"""``load``: read a program from a path or a string, HLO text or StableHLO detected."""

from __future__ import annotations

import os
import re
from pathlib import Path

from xlapy.ir.module import HloModule

_STABLEHLO = re.compile(r"^\s*(module\b|func\.func\b|#loc|\"?stablehlo\.)|\bfunc\.func\b", re.M)


def is_stablehlo(text: str) -> bool:
    """True when ``text`` is MLIR (StableHLO) rather than HLO text."""
    if re.search(r"^\s*(HloModule|ENTRY)\b", text, re.M):
        return False
    return bool(_STABLEHLO.search(text))


def read_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """Returns ``(text, filename)`` for a path, or for program text given directly."""
    if isinstance(source, os.PathLike) or ("\n" not in source and Path(source).exists()):
        path = Path(source)
        return path.read_text(), str(path)
    return str(source), "<string>"


def load(source: str | os.PathLike[str]) -> HloModule:
    """Parses a program from a file path or from text (HLO text or StableHLO MLIR)."""
    text, filename = read_source(source)
    if is_stablehlo(text):
        from xlapy.text.stablehlo_parser import parse_stablehlo

        return parse_stablehlo(text, filename)
    from xlapy.text.hlo_parser import parse_hlo

    return parse_hlo(text, filename)
