"""Where a cold ``cpu`` compile goes, per model (needs jax, flax, optax; not part of the package).

  python benchmarks/compile_breakdown.py [--filter TEXT] [--profile DIR]

Models: ``model_zoo.py`` (without ``--filter``: cnn_adam, gpt_forward, gpt_adamw).

For each model, a fresh process with an empty ``XLAPY_CACHE_DIR`` lowers the JAX function to
StableHLO text, measures XLA's lower + compile (after a warm-up compile of a tiny function, so
XLA's one-time start-up is not counted), then runs ``xlapy.load``, ``xlapy.compile`` and the
first call with phase timers: each phase's *exclusive* wall time (time inside a nested phase
counts for the nested one). A second fresh process on the same cache directory measures the
warm-cache first call. ``--profile DIR`` also writes a cProfile of each cold run
(``DIR/<model>.prof``; cProfile slows Python-heavy phases about 2x, so the table is timed
without it).

Phases: ``load`` (StableHLO text to HLO), ``pass <name>`` (each optimization pass), ``verify``,
``plan`` (plans, liveness, generated plan code), ``kernel source`` (kernel factories: loop
plans and numba source), ``kernel cache files`` (writing and importing generated modules),
``numba typing``, ``numba other`` (bytecode analysis, IR rewrites, parfors), ``numba lowering``
(numba's Python building LLVM IR), ``LLVM`` (every call into LLVM: IR parsing, optimisation,
machine code), ``numba cache write``/``numba cache load`` (numba's on-disk cache), ``run``
(the first call's own work: kernels, interpreter evals, BLAS).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_MODELS = ("cnn_adam", "gpt_forward", "gpt_adamw")
"""The models run without ``--filter`` (the issue's three examples); any of ``model_zoo.py``
with ``--filter``."""


class PhaseTimer:
    """Exclusive wall time per phase: wrapped functions push their phase on a stack; time
    spent in a nested phase is charged to it, not to the caller's."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[list[float]] = []  # [start, child seconds]

    def wrap(self, owner: Any, attr: str, phase: str | Callable[..., str]) -> None:
        original = getattr(owner, attr)
        timer = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            name = phase if isinstance(phase, str) else phase(*args)
            frame = [time.perf_counter(), 0.0]
            timer._stack.append(frame)
            try:
                return original(*args, **kwargs)
            finally:
                timer._stack.pop()
                total = time.perf_counter() - frame[0]
                timer.seconds[name] += total - frame[1]
                timer.calls[name] += 1
                if timer._stack:
                    timer._stack[-1][1] += total

        setattr(owner, attr, timed)

    def region(self, phase: str, fn: Callable[[], Any]) -> Any:
        holder = type("Holder", (), {"run": staticmethod(fn)})
        self.wrap(holder, "run", phase)
        return holder.run()


def install(timer: PhaseTimer) -> None:
    """Wraps the functions that mark each phase."""
    import llvmlite.binding.ffi as ffi
    from numba.core import caching, codegen, compiler_machinery, lowering, typed_passes

    import xlapy.backend.cpu.compiler as compiler
    import xlapy.backend.cpu.plan as plan
    import xlapy.backend.cpu.source_cache as source_cache
    from xlapy.passes.pass_manager import PASSES, load_passes

    load_passes()
    for name, cls in PASSES.items():
        if "run" in vars(cls):
            timer.wrap(cls, "run", f"pass {name}")
    timer.wrap(compiler, "verify", "verify")
    timer.wrap(plan, "build_plan", "plan")
    timer.wrap(plan, "choose_kernel", "kernel source")
    timer.wrap(source_cache, "load_source", "kernel cache files")
    timer.wrap(typed_passes.BaseTypeInference, "run_pass", "numba typing")
    timer.wrap(compiler_machinery.PassManager, "run", "numba other")
    timer.wrap(lowering.BaseLower, "lower", "numba lowering")
    timer.wrap(codegen.CPUCodeLibrary, "finalize", "numba lowering")
    timer.wrap(ffi._lib_fn_wrapper, "__call__", "LLVM")
    timer.wrap(caching.Cache, "save_overload", "numba cache write")
    timer.wrap(caching.Cache, "load_overload", "numba cache load")


def child(model: str, profile_dir: str | None, warm: bool, tiered: bool) -> dict[str, Any]:
    """One model in this (fresh) process: XLA's lower + compile, then xlapy's first call."""
    import jax
    import numpy as np

    sys.path.insert(0, str(HERE))
    import model_zoo

    fn, args = model_zoo.get(model).build()
    jax.jit(lambda x: x + 1).lower(np.float32(0)).compile()  # XLA's one-time start-up
    start = time.perf_counter()
    lowered = jax.jit(fn).lower(*args)
    xla_lower = time.perf_counter() - start
    start = time.perf_counter()
    lowered.compile()
    xla_compile = time.perf_counter() - start
    text = lowered.as_text()
    leaves = [np.asarray(jax.numpy.asarray(leaf)) for leaf in jax.tree_util.tree_leaves(args)]

    import xlapy

    timer = PhaseTimer()
    install(timer)
    profiler = None
    if profile_dir and not warm:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    begin = time.perf_counter()
    module = timer.region("load", lambda: xlapy.load(text))
    exe = timer.region("compile (other)", lambda: xlapy.compile(module, tiered=tiered))
    compiled = time.perf_counter() - begin
    timer.region("run", lambda: exe(*leaves))
    first = time.perf_counter() - begin
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(Path(profile_dir) / f"{model}.prof"))  # type: ignore[arg-type]
    tier = exe.tier
    exe.wait_compiled()
    ready = time.perf_counter() - begin
    start = time.perf_counter()
    exe(*leaves)
    second = time.perf_counter() - start
    steps = [r for p in exe._program.plans.values() for r in p.records]
    return {
        "xla_lower": xla_lower,
        "xla_compile": xla_compile,
        "first_call": first,
        "first_tier": tier,
        "compiled_ready": ready,
        "compile": compiled,
        "second_call": second,
        "phases": dict(timer.seconds),
        "calls": dict(timer.calls),
        "kernels": sum(r.kind == "kernel" for r in steps),
        "fallbacks": sum(r.kind == "fallback" for r in steps),
    }


def run_child(
    model: str, cache: str, profile_dir: str | None, warm: bool, tiered: bool
) -> dict[str, Any]:
    env = dict(os.environ, XLAPY_CACHE_DIR=cache)
    command = [sys.executable, __file__, "--child", model, "--mode", "tiered" if tiered else "sync"]
    if profile_dir:
        command += ["--profile", profile_dir]
    if warm:
        command.append("--warm")
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{model}: child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(model: str, cold: dict[str, Any], warm: dict[str, Any]) -> str:
    xla = cold["xla_lower"] + cold["xla_compile"]
    lines = [
        f"### {model}",
        "",
        f"XLA lower + compile {xla:.2f} s (lower {cold['xla_lower']:.2f} s); xlapy cold first "
        f"call {cold['first_call']:.2f} s ({cold['first_call'] / xla:.1f}x XLA), warm-cache "
        f"first call {warm['first_call']:.2f} s, second call {cold['second_call'] * 1e3:.0f} ms; "
        f"{cold['kernels']} kernels, {cold['fallbacks']} interpreter evals",
        "",
        "| phase | seconds | share | calls |",
        "|---|---:|---:|---:|",
    ]
    phases = cold["phases"]
    total = sum(phases.values())
    passes = {k: v for k, v in phases.items() if k.startswith("pass ")}
    rest = {k: v for k, v in phases.items() if not k.startswith("pass ")}
    rest["passes (all)"] = sum(passes.values())
    for name, seconds in sorted(rest.items(), key=lambda kv: -kv[1]):
        calls = cold["calls"].get(name, sum(cold["calls"][k] for k in passes))
        lines.append(f"| {name} | {seconds:.2f} | {seconds / total:.0%} | {calls} |")
    top = sorted(passes.items(), key=lambda kv: -kv[1])[:6]
    lines += ["", "Slowest passes: " + ", ".join(f"{k[5:]} {v:.2f} s" for k, v in top)]
    warm_phases = dict(warm["phases"])
    warm_phases["passes (all)"] = sum(v for k, v in warm_phases.items() if k.startswith("pass "))
    shown = sorted(
        ((k, v) for k, v in warm_phases.items() if not k.startswith("pass ") and v >= 0.01),
        key=lambda kv: -kv[1],
    )
    lines += ["", "Warm-cache first call: " + ", ".join(f"{k} {v:.2f} s" for k, v in shown), ""]
    return "\n".join(lines)


def tiered_line(model: str, cold: dict[str, Any], warm: dict[str, Any]) -> str:
    xla = cold["xla_lower"] + cold["xla_compile"]
    return (
        f"{model} tiered: XLA lower + compile {xla:.2f} s; xlapy cold first call "
        f"{cold['first_call']:.2f} s on the {cold['first_tier']} tier "
        f"({cold['first_call'] / xla:.1f}x XLA; load {cold['phases'].get('load', 0):.2f} s, "
        f"tier built {cold['compile']:.2f} s), compiled tier ready after "
        f"{cold['compiled_ready']:.1f} s, then {cold['second_call'] * 1e3:.0f} ms per call; "
        f"warm-cache first call {warm['first_call']:.2f} s on the {warm['first_tier']} tier\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="")
    parser.add_argument("--profile", default=None, help="write DIR/<model>.prof (cold run)")
    parser.add_argument(
        "--mode",
        choices=("sync", "tiered", "both"),
        default="both",
        help="sync: the phase table of a synchronous compile (tiered=False); tiered: first "
        "calls on the quick tier; both (default)",
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        print(json.dumps(child(opts.child, opts.profile, opts.warm, opts.mode == "tiered")))
        return
    sys.path.insert(0, str(HERE))
    import model_zoo

    names = [m.name for m in model_zoo.MODELS if opts.filter in m.name]
    for model in names if opts.filter else DEFAULT_MODELS:
        if opts.mode in ("sync", "both"):
            with tempfile.TemporaryDirectory(prefix="xlapy-cold-") as cache:
                cold = run_child(model, cache, opts.profile, warm=False, tiered=False)
                warm = run_child(model, cache, None, warm=True, tiered=False)
            print(table(model, cold, warm), flush=True)
        if opts.mode in ("tiered", "both"):
            with tempfile.TemporaryDirectory(prefix="xlapy-cold-") as cache:
                cold = run_child(model, cache, None, warm=False, tiered=True)
                warm = run_child(model, cache, None, warm=True, tiered=True)
            print(tiered_line(model, cold, warm), flush=True)


if __name__ == "__main__":
    main()
