"""Communication of xlapy's SPMD partitioner against XLA's, and the time to partition.

    python benchmarks/sharding_comm.py        # writes benchmarks/sharding_comm.md

For every global-view program of ``tests/sharding/data`` (JAX on 8 host devices, Shardy and
GSPMD lowerings; ``tests/sharding/generate.py`` made them and XLA's partitioned modules), the
collective bytes one device sends (``xlapy.sharding.comm``: ring algorithm, each collective
instruction counted once) in xlapy's per-device module (``xlapy.sharding.spmd_pipeline.
partition``) and in XLA's (``comm_xla.json``), their ratio (1.0 when both send nothing) and
the geomean of the ratios over the programs where XLA sends something. Targets: geomean
<= 1.0, no program above 1.5x. Then the median time (of 5) to partition the ~1,000-
instruction training step ``train_step`` (target < 2 s).
"""

from __future__ import annotations

import math
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import xlapy  # noqa: E402
from xlapy.sharding.comm import collective_bytes  # noqa: E402
from xlapy.sharding.spmd_pipeline import partition  # noqa: E402

DATA = ROOT / "tests" / "sharding" / "data"
TIMED = "train_step"


def _names() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from tests.sharding.corpus import NAMES, XLA_BYTES

    return [n for n in NAMES if f"part_{n}" in XLA_BYTES]


def main() -> None:
    from tests.sharding.corpus import XLA_BYTES

    rows = []
    ratios = []
    for name in _names():
        module = xlapy.load(DATA / f"part_{name}.hlo")
        spmd, _ = partition(module)
        ours, theirs = collective_bytes(spmd), XLA_BYTES[f"part_{name}"]
        if theirs > 0:
            ratio = ours / theirs
            ratios.append(ratio)
        else:
            ratio = 1.0 if ours == 0 else math.inf
        rows.append((name, len(module.instructions()), ours, theirs, ratio))
    finite = [r for r in ratios if r > 0]
    geomean = math.exp(statistics.fmean(math.log(r) for r in finite)) if finite else 1.0
    worst = max(rows, key=lambda r: r[4])
    module = xlapy.load(DATA / f"part_{TIMED}.hlo")
    seconds = []
    for _ in range(5):
        start = time.perf_counter()
        partition(module)
        seconds.append(time.perf_counter() - start)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()  # fmt: skip
    lines = [
        "# SPMD partitioner: communication vs XLA",
        "",
        f"`python benchmarks/sharding_comm.py` at {commit} ({platform.machine()}, Python "
        f"{platform.python_version()}). Bytes: what one device sends over all collectives of "
        "the per-device module (ring algorithm, each collective instruction once: "
        "`xlapy/sharding/comm.py`). XLA: the module `jax.jit(...).lower(...).compile()` "
        "returns (`tests/sharding/generate.py`; `_gspmd`: lowered with "
        "`jax_use_shardy_partitioner=False`).",
        "",
        "| program | instructions | xlapy B/device | XLA B/device | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, count, ours, theirs, ratio in rows:
        lines.append(f"| {name} | {count} | {ours:.0f} | {theirs:.0f} | {ratio:.2f} |")
    lines += [
        "",
        f"Geomean ratio over the {len(finite)} programs where XLA communicates: "
        f"**{geomean:.2f}** (target <= 1.0); largest: {worst[0]} {worst[4]:.2f}x "
        "(target: none above 1.5x).",
        "",
        f"Partitioning `{TIMED}` ({len(module.instructions())} instructions, propagation + "
        f"partitioning + DCE): median of 5 **{statistics.median(seconds):.3f} s** "
        "(target < 2 s).",
        "",
    ]
    (HERE / "sharding_comm.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
