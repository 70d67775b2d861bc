"""The kernel cache across processes (#10): a second process compiling the same programs finds
every kernel on disk and writes nothing, whatever its hash seed; ``import xlapy`` and the
interpreter's evaluators load neither numba nor scipy (they cost seconds at start-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# A convolution, reduce-window and loop fusions (cnn), a while loop and conditionals
# (control_flow), gathers and scatters (gather_scatter).
PROGRAMS = ("cnn", "control_flow", "gather_scatter")

_COMPILE = """
import json, sys
from pathlib import Path
import xlapy
seconds = {}
for path in sys.argv[1:]:
    exe = xlapy.compile(xlapy.load(Path(path).read_text()), platform="cpu")
    seconds[Path(path).stem] = exe.compile_seconds
# numba's implementation library: imported when numba compiles (or refreshes its contexts)
seconds["numba_initialised"] = "numba.np.arraymath" in sys.modules
print(json.dumps(seconds))
"""


def _compile_in_new_process(cache: Path, hash_seed: int) -> dict[str, float]:
    """Compiles PROGRAMS in a new process; returns their compile seconds and whether numba
    initialised its compiler (``numba_initialised``)."""
    env = dict(os.environ, XLAPY_CACHE_DIR=str(cache), PYTHONHASHSEED=str(hash_seed))
    paths = [str(ROOT / "examples" / f"{name}.hlo") for name in PROGRAMS]
    done = subprocess.run(
        [sys.executable, "-c", _COMPILE, *paths],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seconds: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds


def _files(cache: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``cache``: its path -> (size, modification time in ns)."""
    return {
        str(p.relative_to(cache)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(cache.rglob("*"))
        if p.is_file()
    }


def test_second_process_writes_no_cache_file(tmp_path: Path) -> None:
    _compile_in_new_process(tmp_path, hash_seed=1)
    first = _files(tmp_path)
    assert any(name.endswith(".py") for name in first), "no generated kernel was cached"
    assert any(name.endswith(".nbi") for name in first), "numba cached no kernel"
    warm = _compile_in_new_process(tmp_path, hash_seed=2)
    second = _files(tmp_path)
    added = sorted(set(second) - set(first))
    rewritten = sorted(n for n in first if n in second and second[n] != first[n])
    assert not added, f"the second process added cache files: {added}"
    assert not rewritten, f"the second process rewrote cache files: {rewritten}"
    # Cached kernels load without numba's compiler (source_cache.install_quick_cache_loads).
    assert not warm["numba_initialised"], "the second process initialised numba's compiler"


def _modules_after(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


@pytest.mark.parametrize(
    "code",
    [
        "import xlapy",
        "from xlapy.interpreter.evaluator import load_evaluators; load_evaluators()",
    ],
)
def test_start_up_loads_neither_numba_nor_scipy(code: str) -> None:
    heavy = [m for m in _modules_after(code) if m.split(".")[0] in ("numba", "scipy")]
    assert not heavy, f"{code!r} imported {heavy[:5]}"
