"""``xlapy.profiling`` is a layer below both platforms: the platforms import it and plug their
observed code into it (``interpreter/observed.py``, ``backend/cpu/observed_plan.py``); no
module of it imports a platform (nor anything above them), even lazily or for type checks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import xlapy.profiling

PROFILING = Path(xlapy.profiling.__file__).parent
ABOVE = ("xlapy.interpreter", "xlapy.backend", "xlapy.jit", "xlapy.cli", "xlapy.loader")
"""Packages that sit above the profiling layer."""


def imported_modules(path: Path) -> list[str]:
    """Every module ``path`` imports anywhere (top level, in functions, under TYPE_CHECKING)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_profiling_has_modules() -> None:
    assert {"observer.py", "recorder.py", "live.py"} <= {p.name for p in PROFILING.glob("*.py")}


@pytest.mark.parametrize("path", sorted(PROFILING.glob("*.py")), ids=lambda p: p.name)
def test_profiling_imports_no_platform(path: Path) -> None:
    upward = [
        name
        for name in imported_modules(path)
        if name == "xlapy" or any(name == top or name.startswith(top + ".") for top in ABOVE)
    ]
    assert upward == [], f"{path.name} imports {upward}"
