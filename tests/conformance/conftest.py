"""Conformance harness plumbing: one test per corpus file, the xfail list, and a pass-rate
summary (by folder and by op) at the end of the run, collected from the test reports so that it
also works under pytest-xdist."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "conformance.py"
_RESULTS: list[dict[str, Any]] = []


def conformance_tool() -> ModuleType:
    """``tools/conformance.py`` as a module (loaded once)."""
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_file" not in metafunc.fixturenames:
        return
    tool = conformance_tool()
    root = tool.corpus_root()
    if root is None:
        skip = pytest.mark.skip(reason="conformance corpus not found at ../shared/conformance")
        metafunc.parametrize("conformance_file", [pytest.param(None, marks=skip)], ids=["absent"])
        return
    files = tool.corpus_files(root)
    ids = [str(f.relative_to(root)) for f in files]
    metafunc.parametrize("conformance_file", [str(f) for f in files], ids=ids)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for key, value in report.user_properties:
        if key == "conformance":
            _RESULTS.append(json.loads(value))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _RESULTS:
        return
    tool = conformance_tool()
    outcomes = [
        tool.FileOutcome(r["rel"], r["passed"], r["tests"], r["failed"], r["reason"], r["seconds"])
        for r in _RESULTS
    ]
    terminalreporter.section("conformance pass rates")
    for line in tool.summary(outcomes).splitlines():
        terminalreporter.write_line(line)
    fixed = sorted(r["rel"] for r in _RESULTS if r["passed"] and r["xfail"])
    if fixed:
        terminalreporter.write_line(
            f"{len(fixed)} file(s) listed in tests/conformance/xfail.txt now pass; remove them "
            "(python3 tools/conformance.py --update-xfail):"
        )
        for rel in fixed:
            terminalreporter.write_line(f"  XPASS {rel}")
