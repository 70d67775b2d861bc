"""The data-heavy op kernels of the ``cpu`` platform vs XLA:CPU, on the issue's sizes.

    .venv/bin/python benchmarks/op_kernels.py [--repeat 9] [--filter sort]

Each program is lowered from JAX (``benchmarks/programs.py``; ``matmul`` is the mlp's first
layer alone, ``rbg_*`` are rng-bit-generator programs written as HLO), compiled with
``xlapy.compile(platform="cpu")`` and timed beside ``jax.jit`` in alternating rounds (the
machine is shared: alternating keeps both sides under the same load). Shown: minimum and
median per call of each, the ratio of the medians, the report line of the program's op
kernel, and agreement with XLA (bit-identical, or the largest relative difference).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from programs import PROGRAMS, Program, hlo_text, make_inputs  # noqa: E402

import xlapy  # noqa: E402

OPS = ("sort", "scatter_add", "gather", "conv2d", "maxpool", "mlp")
KERNEL_OPS = ("sort", "scatter", "gather", "convolution", "reduce-window", "dot",
              "rng-bit-generator")  # fmt: skip

RBG = """HloModule rbg
ENTRY e {{
  s = u64[{size}] parameter(0)
  ROOT r = (u64[{size}], u32[1048576]) rng-bit-generator(s), algorithm={algorithm}
}}"""


def _matmul(x, w1, *unused):
    return x @ w1


def _programs() -> list[tuple[str, str, list[np.ndarray], Callable[..., object] | None]]:
    """(name, HLO text, inputs, jax function or None) for every measured program."""
    by_name = {p.name: p for p in PROGRAMS}
    out: list[tuple[str, str, list[np.ndarray], Callable[..., object] | None]] = []
    for name in OPS:
        program = by_name[name]
        inputs = make_inputs(program)
        out.append((name, hlo_text(program, inputs), inputs, program.fn))
    mlp = by_name["mlp"]
    inputs = make_inputs(mlp)
    matmul = Program("matmul", _matmul, mlp.inputs, True)
    out.append(("matmul 256x784x512", hlo_text(matmul, inputs), inputs[:2], _matmul))
    state = np.array([42, 7], np.uint64)
    for algorithm in ("rng_three_fry", "rng_philox"):
        out.append((f"rbg {algorithm[4:]} 1M u32", RBG.format(size=2, algorithm=algorithm),
                    [state], None))  # fmt: skip
    return out


def _agreement(ours: list[np.ndarray], theirs: list[np.ndarray]) -> str:
    worst = 0.0
    for a, b in zip(ours, theirs, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"NO ({a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)})"
        if a.tobytes() == b.tobytes():
            continue
        if b.dtype.kind != "f":
            return "NO"
        scale = max(float(np.abs(b).max(initial=0.0)), 1e-30)
        worst = max(worst, float(np.abs(a.astype(np.float64) - b).max()) / scale)
    return "exact" if worst == 0.0 else f"{worst:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    print("| program | cpu min | cpu median | XLA min | XLA median | ratio | kernel | agree |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for name, text, inputs, fn in _programs():
        if args.filter not in name:
            continue
        module = xlapy.load(text)
        started = time.perf_counter()
        exe = xlapy.compile(module, platform="cpu", tiered=False)
        compile_seconds = time.perf_counter() - started
        kernel_line = "; ".join(
            " ".join(line.split()[1:])
            for line in exe.report().splitlines()
            if line.split()[1:2] and line.split()[1] in KERNEL_OPS
        )
        ours = [np.asarray(v) for v in exe(*inputs)]
        if fn is not None:
            jitted = jax.jit(fn)
            device = [jax.device_put(x) for x in inputs]
            theirs = [np.asarray(v) for v in jax.tree_util.tree_leaves(jitted(*device))]
            agree = _agreement(ours, theirs)
        else:
            reference = xlapy.run(module, *inputs, platform="interpreter")
            agree = _agreement(ours, [np.asarray(v) for v in reference]) + " (interpreter)"
        t_cpu: list[float] = []
        t_xla: list[float] = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            exe(*inputs)
            t_cpu.append(time.perf_counter() - start)
            if fn is not None:
                start = time.perf_counter()
                jax.block_until_ready(jitted(*device))
                t_xla.append(time.perf_counter() - start)
        ms = [1e3 * min(t_cpu), 1e3 * statistics.median(t_cpu)]
        if t_xla:
            ms += [1e3 * min(t_xla), 1e3 * statistics.median(t_xla)]
            ratio = f"{ms[1] / ms[3]:.2f}"
            xla = f"{ms[2]:.2f} | {ms[3]:.2f}"
        else:
            ratio, xla = "-", "- | -"
        print(
            f"| {name} | {ms[0]:.2f} | {ms[1]:.2f} | {xla} | {ratio} | {kernel_line} "
            f"(compile {compile_seconds:.2f} s) | {agree} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
