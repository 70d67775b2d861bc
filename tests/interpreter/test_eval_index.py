"""The index of ``xlapy.interpreter.evals`` (``evals.MODULES``): a process imports only the
eval modules of the opcodes it runs, so the index must name, for every opcode with an eval,
a module whose import registers it. Computed afresh in a clean process (each module imported
in turn, in name order, its new registrations attributed to it, or to the module defining
the eval function when that is another module of the package and not the shared row
machinery) and compared with the checked-in table."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from xlapy.interpreter import evals
from xlapy.interpreter.evaluator import EVALUATORS, evaluator_for, load_evaluators
from xlapy.ir.opcode import Opcode

_SCAN = """
import importlib, json, pkgutil
from xlapy.interpreter import evaluator, evals
by_op = {}
for name in sorted(m.name for m in pkgutil.iter_modules(evals.__path__)):
    before = set(evaluator.EVALUATORS)
    importlib.import_module(f"{evals.__name__}.{name}")
    for op in set(evaluator.EVALUATORS) - before:
        by_op[op.value] = name
for op, fn in evaluator.EVALUATORS.items():
    home = fn.__module__.rsplit(".", 1)[-1]
    if fn.__module__.startswith(evals.__name__ + ".") and home != "elementwise":
        by_op[op.value] = home
table = {}
for op, name in sorted(by_op.items()):
    table.setdefault(name, []).append(op)
print(json.dumps({name: " ".join(ops) for name, ops in sorted(table.items())}))
"""

_TARGETS = """
import importlib, json, pkgutil
from xlapy.interpreter import evaluator, evals
found = []
for name in sorted(m.name for m in pkgutil.iter_modules(evals.__path__)):
    before = set(evaluator.CUSTOM_CALLS)
    importlib.import_module(f"{evals.__name__}.{name}")
    if set(evaluator.CUSTOM_CALLS) - before:
        found.append(name)
print(json.dumps(found))
"""

_NEGATE = """
import sys
import numpy as np
import xlapy
PRELUDE
text = "HloModule m\\nENTRY e {\\n p = f32[4] parameter(0)\\n ROOT n = f32[4] negate(p)\\n}"
(out,) = xlapy.run(xlapy.load(text), np.arange(4, dtype=np.float32), platform="interpreter")
print(np.asarray(out).tolist())
print(sorted(m.rsplit(".", 1)[-1] for m in sys.modules if m.startswith("xlapy.interpreter.evals.")))
"""


def _python(code: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


def test_the_index_is_what_the_modules_register() -> None:
    (found,) = _python(_SCAN)
    expected = json.loads(found)
    assert expected == evals.MODULES, (
        "xlapy/interpreter/evals/__init__.py's MODULES is stale; it should be:\n"
        + json.dumps(expected, indent=4)
    )


def test_the_custom_call_modules_are_those_that_register_targets() -> None:
    (found,) = _python(_TARGETS)
    assert tuple(json.loads(found)) == evals.CUSTOM_CALL_MODULES


def test_every_registered_eval_is_found_through_the_index() -> None:
    load_evaluators()
    for opcode, fn in EVALUATORS.items():
        if opcode is Opcode.CUSTOM_CALL:
            continue  # registered by the evaluator itself
        assert evals.module_of(opcode.value) is not None, opcode
        assert evaluator_for(opcode) is fn


def _negate_in_fresh_process(prelude: str) -> tuple[list[float], list[str]]:
    """negate([0, 1, 2, 3]) on the interpreter in a new process after ``prelude``, and the
    eval modules that process imported."""
    result, modules = _python(_NEGATE.replace("PRELUDE", prelude))
    return ast.literal_eval(result), ast.literal_eval(modules)


def test_a_fresh_process_imports_the_evals_of_its_opcodes_only() -> None:
    result, loaded = _negate_in_fresh_process("")
    assert result == [-0.0, -1.0, -2.0, -3.0]
    assert "unary_math" in loaded
    assert "lapack" not in loaded
    assert "collectives" not in loaded


def test_a_wrong_or_missing_index_entry_loads_every_module() -> None:
    for index in ("{'negate': 'fft'}", "{'-': '-'}"):  # not empty: it is not rebuilt
        prelude = f"from xlapy.interpreter import evals; evals._by_opcode.update({index})"
        result, loaded = _negate_in_fresh_process(prelude)
        assert result == [-0.0, -1.0, -2.0, -3.0]
        assert {"unary_math", "lapack", "collectives"} <= set(loaded)
