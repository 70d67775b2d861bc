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

from tests.backend.cpu.platform_util import cache_files

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


def test_second_process_writes_no_cache_file(tmp_path: Path) -> None:
    _compile_in_new_process(tmp_path, hash_seed=1)
    first = cache_files(tmp_path)
    assert any(name.endswith(".py") for name in first), "no generated kernel was cached"
    assert any(name.endswith(".nbi") for name in first), "numba cached no kernel"
    warm = _compile_in_new_process(tmp_path, hash_seed=2)
    second = cache_files(tmp_path)
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


RENAMED = """HloModule {module}

{cond} {{
  {s} = (s32[], f32[64]) parameter(0)
  {i} = s32[] get-tuple-element({s}), index=0
  {n} = s32[] constant(100)
  ROOT {lt} = pred[] compare({i}, {n}), direction=LT
}}

{body} {{
  {s} = (s32[], f32[64]) parameter(0)
  {i} = s32[] get-tuple-element({s}), index=0
  {one} = s32[] constant(1)
  {j} = s32[] add({i}, {one})
  {x} = f32[64] get-tuple-element({s}), index=1
  {y} = f32[64] tanh({x})
  ROOT {t} = (s32[], f32[64]) tuple({j}, {y})
}}

ENTRY {main} {{
  {p} = f32[64] parameter(0)
  {q} = f32[64] parameter(1)
  {e} = f32[64] exponential({p})
  {m} = f32[64] multiply({e}, {q})
  {zero} = s32[] constant(0)
  {init} = (s32[], f32[64]) tuple({zero}, {m})
  {w} = (s32[], f32[64]) while({init}), condition={cond}, body={body}
  ROOT {out} = f32[64] get-tuple-element({w}), index=1
}}
"""
_ROLES = ("module", "cond", "s", "i", "n", "lt", "body", "one", "j", "x", "y", "t", "main")
_ROLES += ("p", "q", "e", "m", "zero", "init", "w", "out")


def test_programs_that_differ_only_in_names_share_their_kernels(tmp_path: Path) -> None:
    """The kernel cache is keyed by the code with canonical names: a fusion or whole loop
    renamed in another program finds the first one's compiled code (the reports still show
    each program's own names)."""
    import numpy as np

    import xlapy

    first = RENAMED.format(**{r: f"{r}_a" for r in _ROLES})
    second = RENAMED.format(
        **{r: f"other.{k}" if r != "module" else "b" for k, r in enumerate(_ROLES)}
    )
    args = [np.linspace(-1, 1, 64, dtype=np.float32), np.full(64, 0.5, np.float32)]
    one = xlapy.compile(xlapy.load(first), platform="cpu", cache_dir=tmp_path)
    report = one.report()
    assert ", 0 interpreter evals" in str(report)
    files = cache_files(tmp_path)
    two = xlapy.compile(xlapy.load(second), platform="cpu", cache_dir=tmp_path)
    # No kernel compiled or written again; only the second program's optimized module
    # (``m_<key>.hlo``, keyed by its text: tiers.module_key) is new.
    now = cache_files(tmp_path)
    added = {name for name in now if Path(name).name.startswith("m_")} - set(files)
    assert len(added) == 1
    assert {n: v for n, v in now.items() if n not in added} == files
    np.testing.assert_array_equal(two(*args)[0], one(*args)[0])
    assert "other.19" in two.report(sources=True).__str__()  # its own names in the report


def test_a_loop_writing_fourteen_arrays_it_allocates_vectorizes() -> None:
    """``source_cache.LLVM_OPTIONS``: a generated loop that reads 3 arrays and writes 14 it
    allocates (an LSTM step's cell and residuals) needs 133 run-time overlap checks, more
    than LLVM's vectorizer makes by default; it ran scalar (13x slower) before."""
    import numpy as np

    from xlapy.backend.cpu.source_cache import load_source

    writes = "\n".join(f"    o{k} = np.empty(n, np.float32)" for k in range(14))
    stores = "\n".join(f"        o{k}[i] = v * np.float32({k + 1})" for k in range(14))
    module = load_source(
        "import numba\nimport numpy as np\n\n\n"
        '@numba.njit(error_model="numpy")\n'
        "def k(a, b, c):\n"
        "    n = a.size\n"
        f"{writes}\n"
        "    for i in range(n):\n"
        "        v = a[i] * b[i] + c[i]\n"
        f"{stores}\n"
        "    return o0[0] + o13[n - 1]\n"
    )
    x = np.arange(1024, dtype=np.float32)
    assert module.k(x, x, x) == 0.0 + (1023.0 * 1023.0 + 1023.0) * 14
    llvm = module.k.inspect_llvm(module.k.signatures[0])
    assert "x float>" in llvm
