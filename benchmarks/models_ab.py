"""Per-call time of models of ``model_zoo.py`` on XLA:CPU and on xlapy, measured in ONE
process with the two alternated in short blocks (an in-process A/B).

  python3 benchmarks/models_ab.py cholesky,qr,eigh [--rounds 200] [--block 5]

``models.py`` times XLA's calls and then xlapy's, seconds apart: on this shared 2-core
machine the load changes in between, and per-call ratios of sub-millisecond models moved by
up to 1.8x between runs of the same tree. Here each round times ``--block`` calls of
``jax.jit(fn)`` (device-resident arguments, ``block_until_ready``) and then as many of
``xlapy.jit(fn)`` (numpy arguments, on its compiled tier: ``wait_compiled``), so both see
about the same load. Printed per model: each side's median and 10th percentile per-call
time over the rounds, their ratios, and the median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import xlapy

sys.path.insert(0, str(Path(__file__).parent))


def _per_call(fn: Callable[[], object], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def ab(name: str, rounds: int, block: int) -> str:
    """One model's A/B line (times in ms)."""
    import jax
    from model_zoo import get

    fn, example = get(name).build()
    jitted = jax.jit(fn)
    on_device = jax.device_put(example)
    host = jax.tree_util.tree_map(lambda leaf: np.array(jax.numpy.asarray(leaf)), example)
    ours = xlapy.jit(fn)
    ours(*host)
    ours.wait_compiled()

    def xla() -> object:
        return jax.block_until_ready(jitted(*on_device))

    def xlapy_call() -> object:
        return ours(*host)

    for _ in range(3 * block):  # warm-up: the compiled tier's first calls, XLA's threads
        xla()
        xlapy_call()
    theirs_ms, ours_ms = [], []
    for _ in range(rounds):
        theirs_ms.append(_per_call(xla, block) * 1e3)
        ours_ms.append(_per_call(xlapy_call, block) * 1e3)
    per_round = statistics.median(o / t for o, t in zip(ours_ms, theirs_ms, strict=True))
    med_x, med_o = statistics.median(theirs_ms), statistics.median(ours_ms)
    p10_x, p10_o = _quantile(theirs_ms, 0.1), _quantile(ours_ms, 0.1)
    return (
        f"{name:18s} XLA med {med_x:.3f} p10 {p10_x:.3f} | xlapy med {med_o:.3f} "
        f"p10 {p10_o:.3f} | ratio med {med_o / med_x:.2f} p10 {p10_o / p10_x:.2f} "
        f"per-round {per_round:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", help="comma-separated model names of model_zoo.py")
    parser.add_argument("--rounds", type=int, default=200, help="alternated rounds")
    parser.add_argument("--block", type=int, default=5, help="calls per side and round")
    args = parser.parse_args()
    for name in args.models.split(","):
        print(ab(name, args.rounds, args.block), flush=True)


if __name__ == "__main__":
    main()
