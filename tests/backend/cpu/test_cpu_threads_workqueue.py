"""Under numba's ``workqueue`` threading layer (not thread-safe: concurrent launches of parallel
kernels abort the process) the ``cpu`` platform stays safe from several Python threads
(issue #14, concurrency): a subprocess with ``NUMBA_THREADING_LAYER=workqueue`` runs 8 threads
calling one program, different programs, and SPMD programs beside single-device ones, every
program with parallel kernels, and exits 0 with the serial results, bit for bit.

Run as a script, this file is that subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import xlapy

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
FIXED = ["sort", "gather_scatter", "random_threefry"]
"""Example programs with xlapy's fixed parallel kernels (radix sort, gather, ThreeFry)."""

N = 1 << 20
"""Elements of the generated kernels: with two transcendental ops, above PARALLEL_WORK."""

REPEATS = 6
"""Calls each thread makes in a row (without the launch lock, 8 threads of a few calls each
already abort the process most of the time; with 6 they always did)."""

BIG = f"""HloModule big

ENTRY main {{
  x = f32[{N}] parameter(0)
  t = f32[{N}] tanh(x)
  e = f32[{N}] exponential(t)
  ROOT y = f32[{N}] multiply(e, x)
}}
"""

OTHER = f"""HloModule other

ENTRY main {{
  x = f32[{N}] parameter(0)
  s = f32[{N}] sine(x)
  c = f32[{N}] cosine(x)
  ROOT y = f32[{N}] add(s, c)
}}
"""

SPMD = f"""HloModule spmd, num_partitions=4

add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}

ENTRY main {{
  x = f32[{N}] parameter(0)
  id = u32[] partition-id()
  f = f32[] convert(id)
  b = f32[{N}] broadcast(f), dimensions={{}}
  y = f32[{N}] multiply(x, b)
  t = f32[{N}] tanh(y)
  e = f32[{N}] exponential(t)
  ROOT r = f32[{N}] all-reduce(e), channel_id=1, replica_groups={{{{0,1,2,3}}}}, use_global_device_ids=true, to_apply=add
}}
"""


def _bits(values: list[object]) -> list[bytes]:
    return [np.asarray(v).tobytes() for v in values]


def _in_threads(work: Callable[[int], list[bytes]], count: int) -> list[list[bytes]]:
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(work, range(count)))


def _jobs() -> list[tuple[xlapy.Executable, list[np.ndarray]]]:
    """BIG, OTHER, SPMD (in this order) and the FIXED examples, compiled, with arguments."""
    x = np.linspace(-2, 2, N, dtype=np.float32)
    jobs = [(xlapy.compile(xlapy.load(text)), [x]) for text in (BIG, OTHER, SPMD)]
    for name in FIXED:
        with np.load(EXAMPLES / f"{name}.inputs.npz") as data:
            args = [data[f"arg{i}"] for i in range(len(data.files))]
        jobs.append((xlapy.compile(xlapy.load(EXAMPLES / f"{name}.hlo")), args))
    return jobs


def main() -> None:
    """The three 8-thread scenarios; prints the threading layer numba used."""
    import numba

    from xlapy.backend.cpu import launch_lock

    jobs = _jobs()
    for exe, _ in jobs[:3]:
        assert ", parallel" in exe.report(), exe.report()
    serial = [_bits(exe(*args)) for exe, args in jobs]

    def call(k: int) -> list[bytes]:
        exe, args = jobs[k]
        runs = [_bits(exe(*args)) for _ in range(REPEATS)]
        assert runs == [runs[0]] * REPEATS
        return runs[0]

    # the same program
    assert _in_threads(lambda i: call(0), 8) == [serial[0]] * 8
    # different programs
    picks = [i % len(jobs) for i in range(2 * len(jobs))]
    assert _in_threads(lambda i: call(picks[i]), len(picks)) == [serial[k] for k in picks]
    # SPMD (4 device threads each) beside single-device programs
    picks = [2 if i % 2 else i % 4 // 2 for i in range(16)]
    assert _in_threads(lambda i: call(picks[i]), len(picks)) == [serial[k] for k in picks]
    assert launch_lock.serialise_launches()
    print(numba.threading_layer())


def test_eight_threads_under_the_workqueue_layer_exit_with_serial_results() -> None:
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    done = subprocess.run(
        [sys.executable, __file__], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["workqueue"]


if __name__ == "__main__":
    main()


def test_thread_safe_layers_launch_the_kernel_itself() -> None:
    """In this process (numba's default layer): the layer found is the one numba runs, and a
    parallel kernel is wrapped only when that layer is ``workqueue``."""
    import numba

    from xlapy.backend.cpu import launch_lock
    from xlapy.backend.cpu.kernels import radix

    xlapy.compile(xlapy.load(BIG))(np.linspace(-2, 2, N, dtype=np.float32))  # a launch
    layer = numba.threading_layer()
    assert launch_lock.threading_layer() == layer
    kernel = radix._sort_keys_rows
    assert isinstance(kernel, numba.core.registry.CPUDispatcher) == (layer != "workqueue")
    assert launch_lock.guarded(radix._sort_keys_one) is radix._sort_keys_one  # not parallel
