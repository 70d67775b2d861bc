"""Fresh-process measurements for the benchmarks (the compile and interpret modes import xlapy
only, never jax; the model mode imports jax and the model's libraries, as a user's script does).

python3 benchmarks/child.py compile HLO_FILE [--inputs NPZ]
    Compiles on ``cpu`` (cache dir from ``$XLAPY_CACHE_DIR``); prints JSON with
    ``compile_seconds`` (the executable's own figure) and ``wall`` (the whole compile call).
    With ``--inputs``, also calls the executable twice and reports ``rss_growth``: how far
    the resident set rose above its size before the second call (Linux ``VmHWM`` after a
    ``clear_refs`` reset), which counts allocations that tracemalloc does not see (numba's).
python3 benchmarks/child.py interpret HLO_FILE --inputs NPZ --outputs NPZ --repeat N
        --timeout S --budget S
    Runs the interpreter up to N times (stopping once the calls so far took ``budget``
    seconds); one call longer than ``timeout`` seconds is interrupted. Prints JSON with the
    call times (or ``timed_out``) and saves the last call's outputs to ``--outputs``.
python3 benchmarks/child.py model NAME --platform xla|cpu [--outputs NPZ]
    A ``model_zoo`` model's first call, after imports and building the model: JAX's lowering
    (``jax.jit(fn).lower``; ``keep_unused=True`` for cpu, as ``xlapy.jit`` lowers), then on
    xla ``.compile()`` and the call, on cpu ``as_text`` + ``xlapy.load``, ``xlapy.compile``
    (cache dir from ``$XLAPY_CACHE_DIR``) and the call: the steps ``xlapy.jit`` takes. Prints
    JSON with the seconds of each step and ``first_call`` (their sum); saves the outputs (the
    result's leaves) to ``--outputs``.
python3 benchmarks/child.py prime
    Fills the bytecode cache (``$PYTHONPYCACHEPREFIX``) the other modes share: imports jax,
    the model libraries, scipy.linalg, numba and every xlapy module, then compiles the
    packages that import more modules lazily (xlapy, jax, numba, llvmlite). Prints nothing.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

import xlapy

# Programs whose first interpreter call is faster than this get a warm-up call.
WARMUP_BELOW = 0.5
# One timed repeat lasts at least this long (several calls of a fast program).
MIN_REPEAT_SECONDS = 0.005


class _Timeout(KeyboardInterrupt):
    """Raised by the alarm in the middle of a call: a KeyboardInterrupt, which the runtime and
    the evaluator let through (any other exception becomes a "device failed" error)."""


def _load_inputs(path: str) -> list[np.ndarray]:
    with np.load(path) as archive:
        return [archive[f"arg{i}"] for i in range(len(archive.files))]


def _proc_status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _rss_growth(exe: object, inputs: list[np.ndarray]) -> int | None:
    """Bytes the resident set rose during one call (after a first call), or None off Linux."""
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current VmRSS
        before = _proc_status_kib("VmRSS")
    except OSError:
        return None
    out = exe(*inputs)  # type: ignore[operator]
    peak = _proc_status_kib("VmHWM")
    del out
    return max(0, peak - before) * 1024


def compile_main(args: argparse.Namespace) -> dict[str, object]:
    module = xlapy.load(Path(args.hlo).read_text())
    start = time.perf_counter()
    exe = xlapy.compile(module, platform="cpu", tiered=False)  # type: ignore[attr-defined]
    wall = time.perf_counter() - start
    result: dict[str, object] = {"compile_seconds": float(exe.compile_seconds), "wall": wall}
    if args.inputs:
        inputs = _load_inputs(args.inputs)
        first = exe(*inputs)
        del first
        result["rss_growth"] = _rss_growth(exe, inputs)
    return result


def interpret_main(args: argparse.Namespace) -> dict[str, object]:
    from xlapy.interpreter.evaluator import load_evaluators

    module = xlapy.load(Path(args.hlo).read_text())
    inputs = _load_inputs(args.inputs)
    load_evaluators()

    def alarm(signum: int, frame: object) -> None:
        raise _Timeout

    signal.signal(signal.SIGALRM, alarm)
    times: list[float] = []
    outputs: list[np.ndarray] = []
    calls, warmed = 1, False
    while len(times) < args.repeat and sum(times) * calls < args.budget:
        signal.setitimer(signal.ITIMER_REAL, args.timeout * calls)
        start = time.perf_counter()
        try:
            for _ in range(calls):
                outputs = xlapy.run(module, *inputs, platform="interpreter")
        except _Timeout:
            return {"timed_out": True, "times": times}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = (time.perf_counter() - start) / calls
        if not warmed and elapsed < WARMUP_BELOW:
            # A fast program: the first call was a warm-up; later repeats batch calls so that
            # each lasts MIN_REPEAT_SECONDS.
            calls = max(1, min(1000, int(MIN_REPEAT_SECONDS / elapsed)))
            warmed = True
            continue
        warmed = True
        times.append(elapsed)
    np.savez(args.outputs, *[np.asarray(o) for o in outputs])
    return {"timed_out": False, "times": times}


def model_main(args: argparse.Namespace) -> dict[str, object]:
    import jax
    from model_zoo import get

    fn, example = get(args.name).build()
    leaves = jax.tree_util.tree_leaves(example)
    start = time.perf_counter()
    lowered = jax.jit(fn, keep_unused=args.platform == "cpu").lower(*example)
    steps: dict[str, float] = {"lower": time.perf_counter() - start}
    if args.platform == "xla":
        start = time.perf_counter()
        compiled = lowered.compile()
        steps["compile"] = time.perf_counter() - start
        start = time.perf_counter()
        outputs = jax.tree_util.tree_leaves(jax.block_until_ready(compiled(*example)))
        steps["run"] = time.perf_counter() - start
    else:
        start = time.perf_counter()
        module = xlapy.load(lowered.as_text())
        steps["load"] = time.perf_counter() - start
        start = time.perf_counter()
        exe = xlapy.compile(module, platform="cpu")  # type: ignore[attr-defined]
        steps["compile"] = time.perf_counter() - start
        start = time.perf_counter()
        # Python scalars (a TrainState's step) take the dtype JAX gave them, as xlapy.jit does.
        outputs = exe(*[np.asarray(jax.numpy.asarray(leaf)) for leaf in leaves])
        steps["run"] = time.perf_counter() - start
        # The first call ran on the quick tier (xlapy.compile's default, as xlapy.jit's):
        # let the background compile finish (untimed), so the next process finds it cached.
        exe.wait_compiled()
    if args.outputs:
        np.savez(args.outputs, *[np.asarray(o) for o in outputs])
    return {**steps, "first_call": sum(steps.values())}


# Packages whose modules are imported lazily (during lowering or kernel compilation): all of
# their modules are compiled, as a pip install compiles them.
LAZY_PACKAGES = ("xlapy", "jax", "numba", "llvmlite")


def prime_main() -> None:
    import compileall
    import importlib
    import pkgutil

    import equinox  # noqa: F401
    import jax.numpy  # noqa: F401
    import numba  # noqa: F401
    import optax  # noqa: F401
    import scipy.linalg  # (LAPACK of the interpreter's and the cpu's linalg)
    import scipy.special  # noqa: F401  (imported lazily by xlapy's special functions)
    from flax import linen, nnx  # noqa: F401
    from flax.training import train_state  # noqa: F401

    for info in pkgutil.walk_packages(xlapy.__path__, "xlapy."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    for name in LAZY_PACKAGES:
        compileall.compile_dir(sys.modules[name].__path__[0], quiet=1, workers=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("compile")
    c.add_argument("hlo")
    c.add_argument("--inputs")
    i = sub.add_parser("interpret")
    i.add_argument("hlo")
    i.add_argument("--inputs", required=True)
    i.add_argument("--outputs", required=True)
    i.add_argument("--repeat", type=int, required=True)
    i.add_argument("--timeout", type=float, required=True)
    i.add_argument("--budget", type=float, required=True)
    m = sub.add_parser("model")
    m.add_argument("name")
    m.add_argument("--platform", choices=("xla", "cpu"), required=True)
    m.add_argument("--outputs")
    sub.add_parser("prime")
    args = parser.parse_args()
    if args.mode == "prime":
        prime_main()
        return
    modes = {"compile": compile_main, "interpret": interpret_main, "model": model_main}
    try:
        result = modes[args.mode](args)
    except Exception as exc:  # reported to the parent, which shows it in the table
        first_line = (str(exc).splitlines() or [""])[0]
        result = {"error": f"{type(exc).__name__}: {first_line[:300]}"}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
