"""Profiles on both platforms: the per-instruction table (counts, bytes, self times), the
``xlapy.profile()`` block, unobserved plans left without hooks, and the Chrome trace of an
8-device program (one track per device, collectives and waits visible, events nested)."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xlapy
from tests.profile.programs import ELEMENTWISE, loop_text, psum
from xlapy.backend.cpu.observed_plan import observed_program
from xlapy.profiling.observer import INSTRUCTION, RunObserver
from xlapy.profiling.table import ProfileRow

PLATFORMS = ("interpreter", "cpu")


def rows_by_name(profile: xlapy.Profile) -> dict[str, ProfileRow]:
    return {row.instruction: row for row in profile.rows()}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_table_of_an_elementwise_program(platform: str) -> None:
    module = xlapy.load(ELEMENTWISE)
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    want = xlapy.run(module, x, platform=platform)
    profile = xlapy.Profile()
    got = xlapy.run(module, x, platform=platform, profile=profile)
    np.testing.assert_array_equal(got[0], want[0])
    rows = rows_by_name(profile)
    if platform == "interpreter":
        assert set(rows) == {"a", "m"}
        # f32[1000] operands and result: 3 x 4000 bytes per execution.
        assert [(rows[n].opcode, rows[n].count, rows[n].bytes) for n in ("a", "m")] == [
            ("add", 1, 12000),
            ("multiply", 1, 12000),
        ]
    else:
        (row,) = rows.values()  # the add and multiply fused into one kernel
        assert (row.opcode, row.count, row.bytes) == ("fusion", 1, 8000)
    table = profile.table()
    assert table.startswith(f"profile of elementwise on {platform}: 1 call, 1 device run")
    assert "total ms" in table
    assert "GB/s" in table
    assert all(f"%{name} (main" in table for name in rows)


def test_while_loop_counts_on_the_interpreter() -> None:
    module = xlapy.load(loop_text(50))
    profile = xlapy.Profile()
    xlapy.run(module, np.ones(4, np.float32), profile=profile, platform="interpreter")
    rows = rows_by_name(profile)
    assert rows["y"].count == 50  # the body's multiply, once per iteration
    assert rows["lt"].count == 51  # the condition, once more
    assert (rows["w"].count, rows["w"].bytes, rows["w"].opcode) == (1, 0, "while")
    summary = profile.summary()
    # Self times: the loop's own row excludes its body, so the rows add up to at most the
    # device time (the rest is the evaluator's dispatch).
    total = sum(row.seconds for row in summary.rows) + summary.dispatch_seconds
    assert total == pytest.approx(summary.device_seconds, rel=1e-6)
    assert sum(row.share for row in summary.rows) <= 1.0


def test_while_loop_run_in_python_on_cpu() -> None:
    module = xlapy.load(loop_text(20, custom_call=True))
    x = np.arange(4, dtype=np.float32)
    want = xlapy.run(module, x, platform="interpreter")
    profile = xlapy.Profile()
    got = xlapy.run(module, x, platform="cpu", profile=profile)
    np.testing.assert_array_equal(got[0], want[0])
    calls = [row for row in profile.rows() if row.opcode == "custom-call"]
    assert [row.count for row in calls] == [20]
    assert profile.runs[0].platform == "cpu"
    assert profile.runs[0].logs[0].loops == {"w": 20}  # the loop's iterations were followed


def test_profile_block_records_every_call_inside() -> None:
    module = xlapy.load(ELEMENTWISE)
    x = np.ones(1000, np.float32)
    exe = xlapy.compile(module)
    other = xlapy.Profile()
    with xlapy.profile() as profile:
        xlapy.run(module, x, platform="interpreter")
        exe(x)  # a plain call takes the executable's short road: recorded too
        exe(x, timeout=10.0)
        xlapy.run(module, x, profile=other, platform="interpreter")  # its own profile wins
    xlapy.run(module, x, platform="interpreter")
    exe(x)
    assert [(run.platform, run.index) for run in profile.runs] == [
        ("interpreter", 0),
        ("cpu", 1),
        ("cpu", 2),
    ]
    assert len(other.runs) == 1
    assert {row.count for row in profile.rows()} == {1, 2}  # interpreter rows, fusion x2
    with xlapy.profile(into=other):
        exe(x)
    assert len(other.runs) == 2


def test_plans_without_an_observer_have_no_hooks() -> None:
    module = xlapy.load(loop_text(3, custom_call=True))
    exe = xlapy.compile(module)
    program = exe._program
    assert program is not None
    plans = list(program.plans.values())
    assert plans
    assert not any("CLOCK" in p.source or "ENTER" in p.source for p in plans)
    profile = xlapy.Profile()
    profiled, _ = observed_program(profile, program)
    assert observed_program(profile, program)[0] is profiled  # made once per program
    counted, _ = observed_program(RunObserver(), program)
    for comp in program.plans:
        timed = profiled.plan(comp).source
        assert "log = ENTER(ctx)" in timed
        assert "t = CLOCK()" in timed
        assert "log.call(COMP, t0)" in timed
        light = counted.plan(comp).source
        assert "log = ENTER(ctx)" in light
        assert "CLOCK" not in light
    assert program.plans.keys() == profiled.plans.keys()


def test_profile_argument_is_checked() -> None:
    module = xlapy.load(ELEMENTWISE)
    with pytest.raises(xlapy.InvalidArgument, match=r"profile must be an xlapy\.Profile"):
        xlapy.run(module, np.ones(1000, np.float32), profile="yes", platform="interpreter")  # type: ignore[arg-type]


def complete_events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in trace["traceEvents"] if e["ph"] == "X"]


def assert_nested(events: list[dict[str, Any]]) -> None:
    """Events of one track are nested or disjoint (as trace viewers require)."""
    ordered = sorted(events, key=lambda e: (e["ts"], -e["dur"]))
    stack: list[dict[str, Any]] = []
    for event in ordered:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= event["ts"]:
            stack.pop()
        if stack:
            parent = stack[-1]
            assert event["ts"] + event["dur"] <= parent["ts"] + parent["dur"] + 0.002, (
                event,
                parent,
            )
        stack.append(event)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_trace_of_an_spmd_program(platform: str, tmp_path: Path) -> None:
    module, args = psum()
    want = xlapy.run(module, args, platform=platform)
    profile = xlapy.Profile()
    got = xlapy.run(module, args, platform=platform, profile=profile)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g[0], w[0])
    path = tmp_path / "trace.json"
    profile.write_trace(path)
    trace = json.loads(path.read_text())
    assert trace["displayTimeUnit"] == "ms"
    meta = [e for e in trace["traceEvents"] if e["ph"] == "M"]
    (process,) = [e for e in meta if e["name"] == "process_name"]
    assert process["pid"] == 1
    assert process["args"]["name"] == f"jit__lambda on {platform} (call 1)"
    threads = {e["tid"]: e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert threads == {d: f"device {d} (replica 0, partition {d})" for d in range(8)}
    events = complete_events(trace)
    per_device: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        assert event["pid"] == 1
        assert event["dur"] >= 0
        assert event["ts"] >= 0
        assert event["name"]
        assert event["cat"]
        per_device[event["tid"]].append(event)
    assert sorted(per_device) == list(range(8))
    for tid, track in per_device.items():
        collectives = [e for e in track if e["cat"] == "collective"]
        assert [e["args"]["op"] for e in collectives] == ["all-reduce"], tid
        assert any(e["cat"] == "computation" for e in track)
        assert_nested(track)
        for wait in (e for e in track if e["cat"] == "wait"):
            (holder,) = collectives
            assert holder["ts"] <= wait["ts"] + 0.002
            assert wait["ts"] + wait["dur"] <= holder["ts"] + holder["dur"] + 0.002
    waits = [e for e in events if e["cat"] == "wait"]
    assert 1 <= len(waits) <= 8  # the first device to arrive waits for the others
    (row,) = [r for r in profile.rows() if r.opcode == "all-reduce"]
    assert row.count == 8
    assert row.bytes == 32
    assert "8 device runs" in profile.table()


SEND_RECV = """HloModule send_recv, replica_count=2

send_branch {
  x = f32[3] parameter(0)
  late = f32[3] custom-call(x), custom_call_target="xlapy_test.late_identity"
  tok = token[] after-all()
  s = (f32[3], u32[], token[]) send(late, tok), channel_id=7
  sd = token[] send-done(s), channel_id=7
  ROOT z = f32[3] negate(late)
}

recv_branch {
  x = f32[3] parameter(0)
  tok = token[] after-all()
  r = (f32[3], u32[], token[]) recv(tok), channel_id=7
  rd = (f32[3], token[]) recv-done(r), channel_id=7
  ROOT v = f32[3] get-tuple-element(rd), index=0
}

ENTRY main {
  p = f32[3] parameter(0)
  rid = u32[] replica-id()
  zero = u32[] constant(0)
  is_sender = pred[] compare(rid, zero), direction=EQ
  ROOT c = f32[3] conditional(is_sender, p, p), true_computation=send_branch, false_computation=recv_branch
}
"""


@xlapy.custom_call_target("xlapy_test.late_identity")
def _late_identity(ctx: object, instr: object, operands: list[np.ndarray]) -> np.ndarray:
    """The operand, after 50 ms: the receiver of ``SEND_RECV`` waits for the sender."""
    time.sleep(0.05)
    return np.array(operands[0], copy=True)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_trace_shows_a_wait_on_a_channel(platform: str) -> None:
    module = xlapy.load(SEND_RECV)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    profile = xlapy.Profile()
    got = xlapy.run(module, x, platform=platform, profile=profile)
    np.testing.assert_array_equal(got[1][0], x)  # replica 1 received replica 0's value
    events = complete_events(profile.trace())
    receiver = [e for e in events if e["tid"] == 1]
    channel = [e for e in receiver if e["cat"] == "channel"]
    assert {e["args"]["op"] for e in channel} <= {"recv", "recv-done"}
    (wait,) = [e for e in receiver if e["cat"] == "wait"]
    assert wait["dur"] >= 10_000  # us: most of the sender's 50 ms
    holders = [e for e in channel if e["ts"] <= wait["ts"] <= e["ts"] + e["dur"]]
    assert len(holders) == 1
    assert_nested(receiver)
    assert not [e for e in events if e["tid"] == 0 and e["cat"] == "wait"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_fusion_is_one_row(platform: str) -> None:
    """What runs inside a fusion (its computation, evaluated or run as a plan) stays in the
    fusion's time: no row belongs to a fused computation, and the rows still add up."""
    root = Path(__file__).resolve().parents[2] / "examples"
    module = xlapy.load(root / "control_flow.opt.hlo")
    inputs = np.load(root / "control_flow.inputs.npz")
    profile = xlapy.Profile()
    xlapy.run(module, *[inputs[f"arg{i}"] for i in range(len(inputs.files))],
              platform=platform, profile=profile)  # fmt: skip
    recorded = [
        profile.objects[key]
        for run in profile.runs
        for log in run.logs
        for kind, key, _, _ in log.events or []
        if kind == INSTRUCTION
    ]
    fusions = [instr for instr in recorded if instr.opcode is xlapy.Opcode.FUSION]
    fused = {instr.attrs.calls.name for instr in fusions}
    rows = profile.rows()
    assert fused
    assert not [row for row in rows if row.computation in fused]
    assert any(row.opcode == "fusion" for row in rows)
    summary = profile.summary()
    total = sum(row.seconds for row in rows) + summary.dispatch_seconds
    assert total == pytest.approx(summary.device_seconds, rel=1e-6)
