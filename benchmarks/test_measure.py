"""Tests of the benchmark's measurement helpers (output comparison, repeat budget, the
interpreter child's time cap). Run: ``.venv/bin/python -m pytest -q benchmarks/test_measure.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from measure import (
    compare,
    interleaved_medians,
    interpret_in_fresh_process,
    load_npz,
    median_seconds,
)


def test_compare_exact_floats_and_ints() -> None:
    a = [np.array([1.0, np.nan, np.inf], np.float32), np.array([3, 4], np.int32)]
    got = compare(a, [x.copy() for x in a])
    assert (got.ok, got.text) == (True, "exact")


def test_compare_integer_difference_is_a_disagreement() -> None:
    got = compare([np.array([1, 2, 3], np.int32)], [np.array([1, 5, 6], np.int32)])
    assert (got.ok, got.text) == (False, "2 elements differ")


def test_compare_float_relative_difference_with_floor() -> None:
    ref = np.array([1000.0, 1.0, 0.0], np.float32)
    # 0.5 at the zero reference is measured against 1e-3 * max|ref| = 1: relative 0.5.
    got = compare([np.array([1000.0, 1.0, 0.5], np.float32)], [ref])
    assert (got.ok, got.text) == (False, "5.0e-01")
    small = compare([np.array([1000.0, 1.0 + 1e-6, 0.0], np.float32)], [ref])
    assert small.ok
    assert float(small.text) == pytest.approx(np.float32(1.0 + 1e-6) - 1.0, rel=1e-2)


def test_compare_nan_places_and_shapes() -> None:
    got = compare([np.array([np.nan, 1.0])], [np.array([1.0, 1.0])])
    assert (got.ok, got.text) == (False, "NaN at 1 places differs")
    shape = compare([np.zeros((2, 3), np.float32)], [np.zeros((3, 2), np.float32)])
    assert (shape.ok, shape.text) == (False, "float32[2, 3] vs float32[3, 2]")


def test_median_seconds_stops_at_the_budget() -> None:
    calls = []

    def slow() -> None:
        calls.append(1)
        time.sleep(0.05)

    median_seconds(slow, repeat=50, budget=0.12)
    # the warm-up, then repeats until 0.12 s have been spent: 3 of 0.05 s.
    assert len(calls) == 4
    calls.clear()
    assert median_seconds(slow, repeat=5, budget=0.01) >= 0.05
    assert len(calls) == 1  # the warm-up alone exceeded the budget


def test_median_seconds_calibrates_repeats_after_a_slow_warm_up() -> None:
    calls = []

    def first_slow() -> None:  # an executable's first call on a newly loaded tier
        calls.append(1)
        time.sleep(0.1 if len(calls) == 1 else 0.001)

    assert median_seconds(first_slow, repeat=3, budget=5.0) < 0.005
    # each of the 3 repeats lasts MIN_REPEAT_SECONDS (0.02 s): many calls, not one
    assert len(calls) > 1 + 3 * 10


def test_interleaved_medians_alternate_the_functions() -> None:
    order: list[str] = []

    def fast() -> None:
        order.append("f")
        time.sleep(0.001)

    def slow() -> None:
        order.append("s")
        time.sleep(0.03)

    got = interleaved_medians([fast, slow], repeat=4, budget=5.0)
    assert 0.001 <= got[0] < 0.02
    assert 0.03 <= got[1] < 0.2
    # warm-ups and calibration (fast: doubling until 20 ms; slow: one call), then 4 rounds of
    # one repeat each: many fast calls, then one slow call.
    rounds = "".join(order).split("s")[2:]
    assert len(rounds) == 5
    assert rounds[-1] == ""
    assert all(len(r) >= 10 for r in rounds[:4])


def test_interleaved_medians_stop_at_the_budget_after_one_round() -> None:
    calls: list[int] = []

    def slow() -> None:
        calls.append(1)
        time.sleep(0.05)

    interleaved_medians([slow, slow], repeat=10, budget=0.01)
    assert len(calls) == 2 + 2 + 2  # warm-ups, calibrations, one round


_LOOP = """HloModule loop, entry_computation_layout={(s32[])->s32[]}

cond {
  p = s32[] parameter(0)
  limit = s32[] constant(%d)
  ROOT lt = pred[] compare(p, limit), direction=LT
}

body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}

ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
"""


def _write_loop(tmp_path: Path, trips: int) -> tuple[Path, Path]:
    hlo = tmp_path / "loop.hlo"
    hlo.write_text(_LOOP % trips)
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, arg0=np.array(0, np.int32))
    return hlo, inputs


def test_interpreter_child_runs_and_saves_outputs(tmp_path: Path) -> None:
    hlo, inputs = _write_loop(tmp_path, 10)
    outputs = tmp_path / "out.npz"
    res = interpret_in_fresh_process(hlo, inputs, outputs, repeat=3, timeout=60, budget=10)
    assert res["timed_out"] is False
    assert len(res["times"]) == 3  # type: ignore[arg-type]
    assert [int(v) for v in load_npz(outputs)] == [10]


def test_interpreter_child_cuts_a_long_call(tmp_path: Path) -> None:
    hlo, inputs = _write_loop(tmp_path, 10**9)
    res = interpret_in_fresh_process(
        hlo, inputs, tmp_path / "out.npz", repeat=3, timeout=1, budget=10
    )
    assert res["timed_out"] is True
    assert res["times"] == []


def test_live_set_counts_a_fusion_as_one_step() -> None:
    from measure import live_set_bytes

    import xlapy

    module = xlapy.load(
        """HloModule m
%f (a: f32[256]) -> f32[256] {
  %a = f32[256] parameter(0)
  %e = f32[256] exponential(%a)
  ROOT %n = f32[256] negate(%e)
}
ENTRY %main (x: f32[256]) -> f32[256] {
  %x = f32[256] parameter(0)
  %y = f32[256] fusion(%x), kind=kLoop, calls=%f
  ROOT %z = f32[256] add(%y, %y)
}
"""
    )
    # x throughout; y and z alive together when z is made; the fused exponential never is.
    assert live_set_bytes(module) == 3 * 1024
