"""Measurement helpers for the benchmark: timing, output comparison, peak memory, and the
fresh-process runs of ``child.py`` (cold/warm compile, the interpreter under a time cap)."""

from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent

# One timed repeat lasts at least this long: fast programs are called several times per repeat
# and the per-call time is reported, so timer resolution, scheduler ticks (4 ms) and one-off
# hiccups matter less.
MIN_REPEAT_SECONDS = 0.02


def median_seconds(fn: Callable[[], object], repeat: int, budget: float = 20.0) -> float:
    """Median per-call seconds of ``fn`` over ``repeat`` repeats, after one warm-up call.

    The warm-up takes one-time costs (an executable's first call on a newly loaded compiled
    tier: 0.1-0.2 s) out of the repeats. Each repeat calls ``fn`` k times, k calibrated on
    calls after the warm-up (doubling until a run lasts ``MIN_REPEAT_SECONDS``; that run is
    the first repeat), so a slow warm-up cannot make the repeats single calls. No new repeat
    starts once the repeats took ``budget`` seconds (a slow program gets fewer repeats, at
    least one); when the warm-up call alone took ``budget``, its time is the answer.
    """
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    if first >= budget:
        return first
    calls, first_repeat = _calls_per_repeat(fn, budget)
    times = [first_repeat]
    while len(times) < repeat and sum(times) * calls < budget:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def _calls_per_repeat(fn: Callable[[], object], budget: float) -> tuple[int, float]:
    """Calls of ``fn`` per timed repeat (doubling until a run lasts ``MIN_REPEAT_SECONDS``, at
    most 1000) and the per-call seconds of the calibrating run."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= MIN_REPEAT_SECONDS or calls >= 1000 or elapsed >= budget:
            return calls, elapsed / calls
        calls = min(1000, max(2 * calls, int(1.2 * MIN_REPEAT_SECONDS * calls / elapsed)))


def interleaved_medians(
    fns: Sequence[Callable[[], object]], repeat: int, budget: float = 20.0
) -> list[float]:
    """Median per-call seconds of each of ``fns``, their repeats taken in alternation.

    Each function is warmed up once and its calls per repeat calibrated as in
    ``median_seconds`` (the calibrating runs are not timed repeats); then each round times
    one repeat of every function in turn, until ``repeat`` rounds or, after the first round,
    ``budget`` seconds of rounds. On a shared machine the load changes
    within seconds: timed in alternation, every function sees the same load (XLA's time and
    xlapy's, timed one after the other, moved by up to 1.8x against each other between runs).
    """
    for fn in fns:
        fn()
    calls_each = [_calls_per_repeat(fn, budget)[0] for fn in fns]
    times: list[list[float]] = [[] for _ in fns]
    spent = 0.0
    while not times[0] or (len(times[0]) < repeat and spent < budget):
        for calls, fn, own in zip(calls_each, fns, times, strict=True):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            elapsed = time.perf_counter() - start
            own.append(elapsed / calls)
            spent += elapsed
    return [statistics.median(own) for own in times]


def tracemalloc_peak(fn: Callable[[], object]) -> int:
    """Peak bytes traced by tracemalloc during one call of ``fn`` (numpy reports its buffers;
    memory numba's runtime allocates inside compiled code is not traced)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        tracemalloc.stop()
    return peak


def nbytes(values: Sequence[object]) -> int:
    return sum(np.asarray(v).nbytes for v in values)


# Memory target of issue #10: a call's peak (arguments included) at most this many times the
# program's largest live set.
LIVE_SET_FACTOR = 1.5
# ... plus this many bytes: a call's own bookkeeping (lists, dicts, small arrays) is not a
# buffer, and dominates the peak of tiny programs.
LIVE_SET_ALLOWANCE = 1 << 20


def live_set_bytes(module: object) -> int:
    """The largest set of values the ``cpu`` platform keeps alive at once in ``module`` (its
    optimized copy): arguments throughout, every other value from the step that makes it to
    its last use, as ``xlapy.ir.memory.peak_memory`` counts, except that a fusion is one
    step (its fused values are never arrays on ``cpu``). Called computations (while bodies,
    branches) add their own peak while their caller's values are live."""
    from xlapy.ir.memory import shape_bytes
    from xlapy.ir.opcode import Opcode

    aliasing = {Opcode.TUPLE, Opcode.GET_TUPLE_ELEMENT, Opcode.BITCAST, Opcode.PARAMETER}
    cache: dict[int, int] = {}

    def peak(comp: object) -> int:
        if id(comp) in cache:
            return cache[id(comp)]
        cache[id(comp)] = 0
        order = comp.post_order()  # type: ignore[attr-defined]
        last_use = {id(o): step for step, i in enumerate(order) for o in i.operands}
        last_use[id(comp.root)] = len(order)  # type: ignore[attr-defined]
        live = best = 0
        size: dict[int, int] = {}
        for step, instr in enumerate(order):
            own = 0 if instr.opcode in aliasing else shape_bytes(instr.shape)
            called = [] if instr.opcode is Opcode.FUSION else instr.called_computations()
            best = max(best, live + own + max((peak(c) for c in called), default=0))
            live += own
            size[id(instr)] = own
            for operand in {id(o): o for o in instr.operands}.values():
                if last_use.get(id(operand)) == step:
                    live -= size.get(id(operand), 0)
            if id(instr) not in last_use:
                live -= own
        cache[id(comp)] = best
        return best

    entry = module.entry  # type: ignore[attr-defined]
    return sum(shape_bytes(p.shape) for p in entry.parameters) + peak(entry)


# Elementwise relative difference |a - b| / max(|b|, FLOOR * max|b|): the floor keeps values
# near zero (where any rounding is a large relative change) from dominating.
REL_FLOOR = 1e-3
# A float difference above this is flagged as a disagreement.
REL_LIMIT = 1e-3


@dataclass(frozen=True)
class Agreement:
    """How two lists of outputs compare: ``ok`` and a short text for the table."""

    ok: bool
    text: str


def compare(ours: Sequence[object], ref: Sequence[object]) -> Agreement:
    """Integers and booleans must be equal; floats show their largest relative difference
    ("exact" when bit-identical); NaNs must sit at the same places."""
    if len(ours) != len(ref):
        return Agreement(False, f"{len(ours)} outputs vs {len(ref)}")
    worst = 0.0
    exact = True
    for a, b in zip(ours, ref, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return Agreement(False, f"{a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
        if a.dtype.kind not in "fc":
            if not np.array_equal(a, b):
                return Agreement(False, f"{int(np.sum(a != b))} elements differ")
            continue
        if a.tobytes() == b.tobytes():
            continue
        exact = False
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        if not np.array_equal(nan_a, nan_b):
            return Agreement(False, f"NaN at {int(np.sum(nan_a != nan_b))} places differs")
        keep = ~nan_b
        a64, b64 = a[keep].astype(np.complex128), b[keep].astype(np.complex128)
        same = a64 == b64  # equal infinities have a NaN difference
        diff = np.abs(np.where(same, 0, a64 - b64))
        scale = float(np.abs(b64).max(initial=0.0))
        denom = np.maximum(np.abs(b64), REL_FLOOR * scale)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.where(diff == 0, 0.0, diff / np.where(denom == 0, 1.0, denom))
        rel = np.where(np.isnan(rel), np.inf, rel)
        worst = max(worst, float(rel.max(initial=0.0)))
    if exact:
        return Agreement(True, "exact")
    return Agreement(worst <= REL_LIMIT, f"{worst:.1e}")


def _run_child(argv: Sequence[str], env: dict[str, str], timeout: float) -> dict[str, object]:
    """Runs ``child.py`` with ``argv``; its JSON result, or ``{"error": ...}``."""
    try:
        done = subprocess.run(
            [sys.executable, str(HERE / "child.py"), *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"no answer within {timeout:.0f} s", "timed_out": True}
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": f"exit {done.returncode}: {tail[:300]}"}
    assert isinstance(result, dict)
    return result


_bytecode_prefix: Path | None = None


def bytecode_prefix() -> Path:
    """The Python bytecode cache every child of this run shares (``PYTHONPYCACHEPREFIX``),
    primed once per run by ``child.py prime`` (the imports of jax, the model libraries, numba
    and every xlapy module, and the packages that import lazily), then kept for the run.

    This machine sets ``PYTHONDONTWRITEBYTECODE``, and a bytecode prefix hides the ``.pyc``
    files beside the sources: without priming, the first child would compile jax's, numba's
    and xlapy's modules from source inside its timed steps. A pip install has its ``.pyc``
    files before the first call; so has every child here (the empty kernel cache is a
    separate directory)."""
    global _bytecode_prefix
    if _bytecode_prefix is None:
        prefix = Path(tempfile.mkdtemp(prefix="xlapy-pycache-"))
        atexit.register(shutil.rmtree, prefix, ignore_errors=True)
        env = _base_env()
        env["PYTHONPYCACHEPREFIX"] = str(prefix)
        subprocess.run(
            [sys.executable, str(HERE / "child.py"), "prime"],
            env=env,
            capture_output=True,
            check=True,
        )
        _bytecode_prefix = prefix
    return _bytecode_prefix


def _base_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent), env.get("PYTHONPATH")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _child_env(cache_dir: Path | None = None) -> dict[str, str]:
    """The child's environment: the run's primed bytecode cache (``bytecode_prefix``) and,
    when given, ``XLAPY_CACHE_DIR=cache_dir`` (the kernel cache, empty for a cold child)."""
    env = _base_env()
    env["PYTHONPYCACHEPREFIX"] = str(bytecode_prefix())
    if cache_dir is not None:
        env["XLAPY_CACHE_DIR"] = str(cache_dir)
    return env


def compile_in_fresh_process(
    hlo: Path, cache_dir: Path, inputs: Path | None, timeout: float
) -> dict[str, object]:
    """``child.py compile`` with ``XLAPY_CACHE_DIR=cache_dir``."""
    argv = [str(hlo)] + (["--inputs", str(inputs)] if inputs else [])
    return _run_child(["compile", *argv], _child_env(cache_dir), timeout)


def interpret_in_fresh_process(
    hlo: Path, inputs: Path, outputs: Path, repeat: int, timeout: float, budget: float
) -> dict[str, object]:
    """``child.py interpret``: one call is cut at ``timeout`` s, repeats stop after ``budget``."""
    argv = [str(hlo), "--inputs", str(inputs), "--outputs", str(outputs)]
    argv += ["--repeat", str(repeat), "--timeout", str(timeout), "--budget", str(budget)]
    # A call stuck in one long C routine cannot be interrupted by the child's alarm.
    hard = timeout + budget + 120
    return _run_child(["interpret", *argv], _child_env(), hard)


def model_first_call_in_fresh_process(
    name: str, platform: str, cache_dir: Path | None, outputs: Path, timeout: float
) -> dict[str, object]:
    """``child.py model``: a ``model_zoo`` model's first call on ``platform`` ("xla" or "cpu",
    the latter with ``XLAPY_CACHE_DIR=cache_dir``), step by step; outputs saved to ``outputs``."""
    argv = [name, "--platform", platform, "--outputs", str(outputs)]
    return _run_child(["model", *argv], _child_env(cache_dir), timeout)


def load_npz(path: Path) -> list[np.ndarray]:
    with np.load(path) as archive:
        return [archive[f"arr_{i}"] for i in range(len(archive.files))]


# ---- text for the tables, and the run's provenance ---------------------------------------------


def seconds_text(t: float | None) -> str:
    """``t`` seconds as the tables show them (s, or ms with 2-3 decimals); "—" for None."""
    if t is None:
        return "—"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e3:.3f} ms"


def ratio_text(num: float | None, den: float | None) -> str:
    """``num / den`` as "1.23x" (no decimals from 10x); "—" when either is missing."""
    if num is None or den is None or den == 0:
        return "—"
    r = num / den
    return f"{r:.2f}x" if r < 10 else f"{r:.0f}x"


def agreement_text(a: Agreement | None) -> str:
    """An agreement cell: its text, in bold with "NO" when the outputs disagree."""
    if a is None:
        return "—"
    return a.text if a.ok else f"**NO: {a.text}**"


def machine_text() -> str:
    """Cores, CPU model and OS of this machine."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, {platform.system()} {platform.machine()}"


def commit_text() -> str:
    """HEAD's short hash, with the count of uncommitted files under ``xlapy/`` (the tree is
    shared with engineers at work: the run measures the tree, not only the commit)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(HERE.parent), "status", "--porcelain", "--", "xlapy"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} + {len(dirty)} uncommitted files under xlapy/" if dirty else head
