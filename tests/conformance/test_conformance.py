"""The StableHLO conformance corpus (../shared/conformance), one test per file, run in-process.

A file listed in ``xfail.txt`` is expected to fail (it is reported, not failed, when it starts
passing: remove it then); any other failing file fails the suite. Pass rates by folder and by
op are printed at the end of the run.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

import pytest

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "conformance.py"


def conformance_tool() -> ModuleType:
    """``tools/conformance.py`` as a module (shared with conftest.py through sys.modules)."""
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


_XFAIL: dict[str, str] | None = None


def _xfail() -> dict[str, str]:
    global _XFAIL
    if _XFAIL is None:
        _XFAIL = conformance_tool().load_xfail()
    return _XFAIL


def test_conformance_file(conformance_file: str, request: pytest.FixtureRequest) -> None:
    tool = conformance_tool()
    root = tool.corpus_root()
    assert root is not None
    outcome = tool.run_one(conformance_file, str(root))
    listed = outcome.rel in _xfail()
    record = asdict(outcome) | {"xfail": listed}
    request.node.user_properties.append(("conformance", json.dumps(record)))
    if outcome.passed:
        return
    if listed:
        pytest.xfail(f"{tool.op_of(outcome.rel)}: {outcome.reason}")
    pytest.fail(
        f"{Path(outcome.rel)} fails ({outcome.failed} of {outcome.tests} tests): {outcome.reason}",
        pytrace=False,
    )
