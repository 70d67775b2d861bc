"""A fixed sample of the StableHLO conformance corpus (every 15th file in path order, about
100 files across every folder) passes on ``cpu`` exactly as it does on the interpreter: a file
passes unless ``tests/conformance/xfail.txt`` lists it. The whole corpus on ``cpu`` is one
command: ``python3 tools/conformance.py --platform cpu``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

_TOOL = Path(__file__).resolve().parents[3] / "tools" / "conformance.py"
STEP = 15


def conformance_tool() -> ModuleType:
    """``tools/conformance.py`` as a module (the name tests/conformance/ loads it under)."""
    name = "xlapy_conformance_tool"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, _TOOL)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def _sample() -> list[object]:
    tool = conformance_tool()
    root = tool.corpus_root()
    if root is None:
        skip = pytest.mark.skip(reason="conformance corpus not found at ../shared/conformance")
        return [pytest.param(None, marks=skip, id="absent")]
    files = tool.corpus_files(root)[::STEP]
    return [pytest.param(str(f), id=str(f.relative_to(root))) for f in files]


@pytest.mark.parametrize("path", _sample())
def test_corpus_file_on_cpu_as_on_interpreter(path: str) -> None:
    tool = conformance_tool()
    root = tool.corpus_root()
    outcome = tool.run_one(path, str(root), "cpu")
    listed = outcome.rel in tool.load_xfail()
    if listed:
        assert not outcome.passed, f"{outcome.rel} passes on cpu but fails on the interpreter"
    else:
        assert outcome.passed, f"{outcome.rel} fails on cpu: {outcome.reason}"
