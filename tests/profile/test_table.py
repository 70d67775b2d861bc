"""The rules of the profile table on hand-made events: self times, waits kept in their
collective, a fusion as one unit, device time from the top-level events, bytes touched."""

from __future__ import annotations

import pytest

import xlapy
from xlapy.profiling.observer import COMPUTATION, INSTRUCTION, WAIT
from xlapy.profiling.table import bytes_touched, format_table, self_times, summarize

PROGRAM = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}

fused {
  a = f32[8] parameter(0)
  ROOT n = f32[8] negate(a)
}

cond {
  s = f32[8] parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  ROOT s = f32[8] parameter(0)
}

ENTRY main {
  p = f32[8] parameter(0)
  f = f32[8] fusion(p), kind=kLoop, calls=fused
  r = f32[8] all-reduce(f), to_apply=add
  ROOT w = f32[8] while(r), condition=cond, body=body
}
"""


@pytest.fixture(scope="module")
def module() -> xlapy.HloModule:
    return xlapy.load(PROGRAM)


def named(module: xlapy.HloModule, name: str) -> xlapy.HloInstruction:
    return next(i for c in module.computations for i in c.instructions if i.name == name)


def test_self_times_and_device_time(module: xlapy.HloModule) -> None:
    main = module.entry
    f, n, r, w = (named(module, x) for x in ("f", "n", "r", "w"))
    events = [
        (COMPUTATION, main, 0, 100),  # the entry: 100 of device time
        (INSTRUCTION, f, 10, 30),  # a fusion of 20 ...
        (COMPUTATION, f.attrs.calls, 12, 28),  # ... whose computation ...
        (INSTRUCTION, n, 14, 26),  # ... and instructions stay in it
        (INSTRUCTION, r, 40, 70),  # a collective of 30 ...
        (WAIT, None, 45, 65),  # ... of which 20 waiting: still its own time
        (INSTRUCTION, w, 75, 95),  # a loop of 20 whose body call takes 15
        (COMPUTATION, w.attrs.body, 78, 93),
    ]
    own, inside, top = self_times(events)
    assert top == 100
    assert own == [100 - 20 - 30 - 20, 20, 16, 12, 30, 20, 5, 15]
    assert inside == [False, False, True, True, False, False, False, False]
    objects = {id(obj): obj for _, obj, _, _ in events if obj is not None}
    keyed = [
        (kind, id(obj) if obj is not None else 0, start, end) for kind, obj, start, end in events
    ]
    log = type("Log", (), {"events": keyed})()
    summary = summarize([log], 1, objects)  # type: ignore[list-item]
    rows = {row.instruction: row for row in summary.rows}
    assert sorted(rows) == ["f", "r", "w"]  # n ran inside the fusion
    assert [rows[x].seconds * 1e9 for x in ("f", "r", "w")] == pytest.approx([20, 30, 5])
    assert summary.device_seconds * 1e9 == pytest.approx(100)
    assert summary.dispatch_seconds * 1e9 == pytest.approx(30 + 15)
    assert summary.wait_seconds * 1e9 == pytest.approx(20)
    assert [row.instruction for row in summary.rows] == ["r", "f", "w"]  # longest first
    assert rows["r"].share == pytest.approx(0.3)
    table = format_table(summary, "profile of m on interpreter", limit=2)
    assert table.splitlines()[-1].endswith("... 1 more instructions")


def test_bytes_touched(module: xlapy.HloModule) -> None:
    assert bytes_touched(named(module, "f")) == 64  # f32[8] in and out
    assert bytes_touched(named(module, "r")) == 64
    assert bytes_touched(named(module, "w")) == 0  # its body is counted on its own
    assert bytes_touched(named(module, "p")) == 0
