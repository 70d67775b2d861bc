"""Collective bandwidth on the MPI runtime: xlapy vs plain mpi4py on the same buffers.

    .venv/bin/python benchmarks/collectives.py [--ranks 2,4] [--sizes-mb 1,4,16,64,256]
        [--repeat 3] [--output benchmarks/collectives.md]

For each rank count N this starts ``mpirun -n N`` on this script (``--worker``). Every rank
holds one device of an N-replica HLO program with one collective on f32 data, and times, on
the same buffers: ``xlapy.run(module, x, runtime="mpi")`` (the whole call: the start and end
of a run, the collective, the result) and the plain mpi4py call (``Allreduce`` with
``MPI.SUM``, ``Allgather``, ``Alltoall`` into a preallocated buffer). A size is the bytes of
each rank's operand (all-reduce, all-to-all) or of the gathered result (all-gather: each rank
sends size/N). Times are the median over ``--repeat`` of the slowest rank, after a warm-up;
bandwidth is size / time. The in-process column is the same program on N devices as threads
of one process (``runtime="local"``). Needs the mpi extra (mpi4py, MPICH).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import xlapy

HERE = Path(__file__).parent
HEADER = """# Collective bandwidth on the MPI runtime (issue #12)

```
.venv/bin/python benchmarks/collectives.py --repeat 5 --output benchmarks/collectives.md
```

xlapy: `xlapy.run(module, x, runtime="mpi")` on an N-replica program with one collective (the
whole call: start and end of a run, announce, transfer, result); mpi4py: `Allreduce` (MPI.SUM),
`Allgather`, `Alltoall` on the same buffers into a preallocated output. A size is each rank's
operand (all-gather: the gathered result). MPICH 5.0.2 (wheel), mpi4py 4.1.2, loopback, one
machine with 2 cores shared with other engineers' test runs (see the load average): 4 ranks
oversubscribe the cores and single numbers move by 2x between runs; compare the 2-rank rows
and the large sizes. The xlapy all-reduce of f32 is bit-identical to the in-process fold in
group order (slices: all-to-all, fold, all-gather), which MPI's own float sum is not. Small
sizes pay a fixed cost per call (three small synchronisations: start, announce, end).

"""
"""What ``--output`` writes above the table (what is measured, and how noisy it is)."""
MB = 1 << 20
OPS = ("all-reduce", "all-gather", "all-to-all")


def program(op: str, ranks: int, elements: int) -> str:
    """The HLO text of one ``op`` over ``ranks`` replicas on f32[elements] per device."""
    head = f"HloModule {op.replace('-', '_')}, replica_count={ranks}\n\n"
    add = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n\n"
    if op == "all-reduce":
        body = f"  ROOT r = f32[{elements}] all-reduce(p), replica_groups={{}}, to_apply=add"
        return head + add + f"ENTRY main {{\n  p = f32[{elements}] parameter(0)\n{body}\n}}\n"
    if op == "all-gather":
        out = elements * ranks
        body = f"  ROOT r = f32[{out}] all-gather(p), replica_groups={{}}, dimensions={{0}}"
        return head + f"ENTRY main {{\n  p = f32[{elements}] parameter(0)\n{body}\n}}\n"
    body = f"  ROOT r = f32[{elements}] all-to-all(p), replica_groups={{}}, dimensions={{0}}"
    return head + f"ENTRY main {{\n  p = f32[{elements}] parameter(0)\n{body}\n}}\n"


def operand_elements(op: str, size_mb: int, ranks: int) -> int:
    elements = size_mb * MB // 4
    return elements // ranks if op == "all-gather" else elements - elements % ranks


def worker(sizes: list[int], repeat: int) -> None:
    """One rank: times every op and size; rank 0 prints one JSON line per measurement."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()

    def timed(fn: Callable[[], object]) -> float:
        times = []
        for i in range(repeat + 1):
            comm.Barrier()
            start = time.perf_counter()
            fn()
            elapsed = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
            if i:
                times.append(elapsed)
        return statistics.median(times)

    for op in OPS:
        for size in sizes:
            elements = operand_elements(op, size, ranks)
            module = xlapy.load(program(op, ranks, elements))
            x = np.random.default_rng(rank).standard_normal(elements).astype(np.float32)
            out = np.empty(elements * (ranks if op == "all-gather" else 1), np.float32)
            seconds_plain = timed(partial(_plain, comm, op, x, out))
            seconds_xlapy = timed(partial(xlapy.run, module, x, runtime="mpi", timeout=600))
            if rank == 0:
                row = {"op": op, "ranks": ranks, "mb": size}
                row |= {"xlapy": seconds_xlapy, "mpi4py": seconds_plain}
                print(json.dumps(row), flush=True)


def _plain(comm: Any, op: str, x: np.ndarray, out: np.ndarray) -> None:
    """The mpi4py call of ``op`` on the same buffers (sum for all-reduce)."""
    from mpi4py import MPI

    if op == "all-reduce":
        comm.Allreduce(x, out, op=MPI.SUM)
    elif op == "all-gather":
        comm.Allgather(x, out)
    else:
        comm.Alltoall(x, out)


def in_process(op: str, ranks: int, size: int, repeat: int) -> float:
    """Median seconds of the same program on ``ranks`` devices of the in-process runtime."""
    elements = operand_elements(op, size, ranks)
    module = xlapy.load(program(op, ranks, elements))
    rng = np.random.default_rng(0)
    args = [[rng.standard_normal(elements).astype(np.float32) for _ in range(ranks)]]
    times = []
    for i in range(repeat + 1):
        start = time.perf_counter()
        xlapy.run(module, *args, timeout=600, platform="interpreter")
        if i:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="2,4")
    parser.add_argument("--sizes-mb", default="1,4,16,64,256")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--in-process-max-mb", type=int, default=64)
    parser.add_argument("--output", help="write the table (markdown) here too")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes_mb.split(",")]
    if options.worker:
        worker(sizes, options.repeat)
        return 0
    mpirun = Path(sys.executable).with_name("mpirun")
    rows = []
    for ranks in [int(r) for r in options.ranks.split(",")]:
        command = [str(mpirun), "-n", str(ranks), sys.executable, __file__, "--worker"]
        command += ["--sizes-mb", options.sizes_mb, "--repeat", str(options.repeat)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        rows += [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    for row in rows:
        small = row["mb"] <= options.in_process_max_mb
        row["local"] = in_process(row["op"], row["ranks"], row["mb"], 1) if small else None
    load = os.getloadavg()[0]
    lines = [
        f"load average {load:.1f}; median of {options.repeat}, slowest rank; f32; "
        "GB/s = size / time",
        "",
        "| op | ranks | size | xlapy | mpi4py | xlapy / mpi4py | xlapy GB/s | mpi4py GB/s "
        "| in-process (threads) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        gb = r["mb"] * MB / 1e9
        local = f"{r['local'] * 1e3:.1f} ms" if r["local"] is not None else "-"
        lines.append(
            f"| {r['op']} | {r['ranks']} | {r['mb']} MB | {r['xlapy'] * 1e3:.1f} ms "
            f"| {r['mpi4py'] * 1e3:.1f} ms | {r['xlapy'] / r['mpi4py']:.2f}x "
            f"| {gb / r['xlapy']:.2f} | {gb / r['mpi4py']:.2f} | {local} |"
        )
    table = "\n".join(lines)
    print(table)
    if options.output:
        Path(options.output).write_text(HEADER + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
