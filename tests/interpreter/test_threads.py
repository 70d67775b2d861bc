"""``xlapy.run`` is safe to call from several Python threads at once: 8 threads running
different programs and the same program, single-device and SPMD, give the serial results
(issue #14, concurrency)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import xlapy
from tests.threaded_programs import SPMD, bits, example

PROGRAMS = ["mlp", "cnn", "rnn", "sort", "gather_scatter", "random_threefry", "integer_ops"]


def test_eight_threads_different_and_same_programs_equal_serial_runs() -> None:
    jobs = [example(name) for name in PROGRAMS] + [example("mlp")] * 4
    serial = [bits(xlapy.run(module, *args, platform="interpreter")) for module, args in jobs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(
            pool.map(lambda job: bits(xlapy.run(job[0], *job[1], platform="interpreter")), jobs)
        )
    assert threaded == serial


def test_spmd_runs_in_parallel_with_single_device_runs() -> None:
    spmd = xlapy.load(SPMD)
    x = np.arange(8, dtype=np.float32)
    want_spmd = bits(xlapy.run(spmd, x, platform="interpreter")[0])
    mlp, args = example("mlp")
    want_mlp = bits(xlapy.run(mlp, *args, platform="interpreter"))

    def work(i: int) -> list[bytes]:
        return (
            bits(xlapy.run(spmd, x, platform="interpreter")[i % 4])
            if i % 2
            else bits(xlapy.run(mlp, *args, platform="interpreter"))
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(16)))
    for i, got in enumerate(results):
        assert got == (want_spmd if i % 2 else want_mlp)
    assert want_spmd == [(x * 6).tobytes()]  # 0 + 1 + 2 + 3 partitions


def test_custom_call_registration_from_threads() -> None:
    def register(i: int) -> str:
        target = f"thread_double_{i}"
        xlapy.custom_call_target(target)(lambda ctx, instr, operands: operands[0] * 2)
        module = xlapy.load(
            f"HloModule m\nENTRY e {{\n  p = f32[2] parameter(0)\n  ROOT c = f32[2] "
            f'custom-call(p), custom_call_target="{target}"\n}}\n'
        )
        return str(
            xlapy.run(module, np.array([1.0, i], np.float32), platform="interpreter")[0].tolist()
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(register, range(8))) == [str([2.0, 2.0 * i]) for i in range(8)]
