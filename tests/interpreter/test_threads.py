"""``xlapy.run`` is safe to call from several Python threads at once: 8 threads running
different programs and the same program, single-device and SPMD, give the serial results
(issue #14, concurrency)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import xlapy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = ["mlp", "cnn", "rnn", "sort", "gather_scatter", "random_threefry", "integer_ops"]

SPMD = """HloModule spmd, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8] parameter(0)
  id = u32[] partition-id()
  f = f32[] convert(id)
  b = f32[8] broadcast(f), dimensions={}
  y = f32[8] multiply(x, b)
  ROOT r = f32[8] all-reduce(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}
"""


def _job(name: str) -> tuple[xlapy.HloModule, list[np.ndarray]]:
    with np.load(EXAMPLES / f"{name}.inputs.npz") as data:
        args = [data[f"arg{i}"] for i in range(len(data.files))]
    return xlapy.load(EXAMPLES / f"{name}.hlo"), args


def _bits(values: list[object]) -> list[bytes]:
    return [np.asarray(v).tobytes() for v in values]


def test_eight_threads_different_and_same_programs_equal_serial_runs() -> None:
    jobs = [_job(name) for name in PROGRAMS] + [_job("mlp")] * 4
    serial = [_bits(xlapy.run(module, *args)) for module, args in jobs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(lambda job: _bits(xlapy.run(job[0], *job[1])), jobs))
    assert threaded == serial


def test_spmd_runs_in_parallel_with_single_device_runs() -> None:
    spmd = xlapy.load(SPMD)
    x = np.arange(8, dtype=np.float32)
    want_spmd = _bits(xlapy.run(spmd, x)[0])
    mlp, args = _job("mlp")
    want_mlp = _bits(xlapy.run(mlp, *args))

    def work(i: int) -> list[bytes]:
        return _bits(xlapy.run(spmd, x)[i % 4]) if i % 2 else _bits(xlapy.run(mlp, *args))

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
        return str(xlapy.run(module, np.array([1.0, i], np.float32))[0].tolist())

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(register, range(8))) == [str([2.0, 2.0 * i]) for i in range(8)]
