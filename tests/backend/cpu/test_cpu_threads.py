"""The ``cpu`` platform is safe from several Python threads at once (issue #14, concurrency):
8 threads calling compiled executables (the same one and different ones, single-device and
SPMD) and compiling programs through ``xlapy.run(platform="cpu")`` give the serial results, bit
for bit."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import xlapy
from tests.threaded_programs import SPMD, bits, example

PROGRAMS = [
    "mlp",
    "cnn",
    "rnn",
    "sort",
    "gather_scatter",
    "random_threefry",
    "integer_ops",
    "control_flow",
    "transformer",
]


LOOP = """HloModule loop

cond {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(500)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[64] broadcast(h), dimensions={}
  y = f32[64] multiply(x, hb)
  c = f32[64] cosine(y)
  ROOT t = (s32[], f32[64]) tuple(j, c)
}

ENTRY main {
  x = f32[64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64]) tuple(zero, x)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
}
"""


def _in_threads(work: Callable[[int], list[bytes]], count: int) -> list[list[bytes]]:
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(work, range(count)))


def test_eight_threads_call_different_and_same_executables() -> None:
    jobs = [example(name) for name in PROGRAMS]
    exes = [xlapy.compile(module) for module, _ in jobs]
    serial = [bits(exe(*args)) for exe, (_, args) in zip(exes, jobs, strict=True)]

    def work(i: int) -> list[bytes]:
        k = i % len(jobs) if i < 2 * len(jobs) else 0  # then the same program many times
        return bits(exes[k](*jobs[k][1]))

    count = 2 * len(jobs) + 8
    results = _in_threads(work, count)
    for i, got in enumerate(results):
        k = i % len(jobs) if i < 2 * len(jobs) else 0
        assert got == serial[k], f"call {i} ({PROGRAMS[k]})"


def test_eight_threads_compile_and_run_on_cpu() -> None:
    """Each thread loads its own module, so the compiles (passes, plans, kernels) race."""
    names = PROGRAMS[:8]
    serial = [bits(xlapy.run(m, *a, platform="cpu")) for m, a in map(example, names)]

    def work(i: int) -> list[bytes]:
        module, args = example(names[i])
        return bits(xlapy.run(module, *args, platform="cpu"))

    assert _in_threads(work, len(names)) == serial


def test_whole_loop_kernel_and_spmd_beside_single_device_runs() -> None:
    loop = xlapy.compile(xlapy.load(LOOP))
    spmd = xlapy.compile(xlapy.load(SPMD))
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    eight = np.arange(8, dtype=np.float32)
    want_loop = bits(loop(x))
    want_spmd = bits(spmd(eight)[0])
    assert want_loop == bits(xlapy.run(xlapy.load(LOOP), x, platform="cpu"))

    def work(i: int) -> list[bytes]:
        return bits(spmd(eight)[i % 4]) if i % 2 else bits(loop(x))

    for i, got in enumerate(_in_threads(work, 24)):
        assert got == (want_spmd if i % 2 else want_loop), f"call {i}"
    assert want_spmd == [(eight * 6).tobytes()]  # 0 + 1 + 2 + 3 partitions
