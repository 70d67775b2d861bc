"""while-loop-simplifier: trip counts 0 and 1, dead state elements."""

from __future__ import annotations

import numpy as np
from pass_util import expect, lines, optimize

import xlapy
from xlapy.passes.pass_manager import collect_stats


def counted_loop(start: int, limit: int, direction: str = "LT") -> str:
    """A loop over (i, x): x doubles while i < limit; i starts at ``start``."""
    return f"""
HloModule m
cond {{
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({limit})
  ROOT c = pred[] compare(i, n), direction={direction}
}}
body {{
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x2 = f32[3] add(x, x)
  ROOT t = (s32[], f32[3]) tuple(i1, x2)
}}
ENTRY e {{
  p = f32[3] parameter(0)
  zero = s32[] constant({start})
  init = (s32[], f32[3]) tuple(zero, p)
  w = (s32[], f32[3]) while(init), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
}}
"""


def test_zero_trips_becomes_the_initial_value():
    with collect_stats() as fired:
        module = optimize(counted_loop(5, 5), "while-loop-simplifier", "tuple-simplifier", "dce")
    assert fired["while-loop-simplifier/zero_trips"] == 1
    assert lines(module) == ["ROOT p = f32[3] parameter(0)"]


def test_one_trip_becomes_the_body():
    with collect_stats() as fired:
        module = optimize(counted_loop(4, 5), "while-loop-simplifier", "tuple-simplifier", "dce")
    assert fired["while-loop-simplifier/one_trip"] == 1
    assert lines(module) == expect("""
        p = f32[3] parameter(0)
        ROOT x2.1 = f32[3] add(p, p)
    """)


def test_more_trips_or_an_unknown_start_leave_the_loop():
    with collect_stats() as fired:
        optimize(counted_loop(3, 5), "while-loop-simplifier")
        optimize(counted_loop(0, 5, "NE"), "while-loop-simplifier")
    assert not any("trip" in event for event in fired)
    text = counted_loop(0, 5).replace("zero = s32[] constant(0)", "zero = s32[] parameter(1)")
    module = optimize(text, "while-loop-simplifier", args=[np.ones(3, np.float32), np.int32(4)])
    assert any("while(" in ln for ln in lines(module))


def test_dead_state_elements_are_removed():
    text = """
HloModule m
cond {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  unused = f32[3] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x2 = f32[3] add(x, x)
  e2 = f32[3] exponential(unused)
  ROOT t = (s32[], f32[3], f32[3]) tuple(i1, x2, e2)
}
ENTRY e {
  p = f32[3] parameter(0)
  q = f32[3] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[3], f32[3]) tuple(zero, p, q)
  w = (s32[], f32[3], f32[3]) while(init), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
}
"""
    with collect_stats() as fired:
        module = optimize(text, "while-loop-simplifier")
    assert fired == {"while-loop-simplifier/dead_state_element": 1}
    assert lines(module, "body") == expect("""
        s.1 = (s32[], f32[3]) parameter(0)
        i.1 = s32[] get-tuple-element(s.1), index=0
        x = f32[3] get-tuple-element(s.1), index=1
        one = s32[] constant(1)
        i1 = s32[] add(i.1, one)
        x2 = f32[3] add(x, x)
        ROOT tuple = (s32[], f32[3]) tuple(i1, x2)
    """)
    assert lines(module)[-3:] == expect("""
        tuple.1 = (s32[], f32[3]) tuple(zero, p)
        w.1 = (s32[], f32[3]) while(tuple.1), condition=cond, body=body
        ROOT r = f32[3] get-tuple-element(w.1), index=1
    """)


def test_elements_feeding_others_or_read_after_the_loop_stay():
    text = """
HloModule m
cond {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  y = f32[3] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  xy = f32[3] add(x, y)
  ROOT t = (s32[], f32[3], f32[3]) tuple(i1, xy, y)
}
ENTRY e {
  p = f32[3] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[3], f32[3]) tuple(zero, p, p)
  w = (s32[], f32[3], f32[3]) while(init), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
}
"""
    with collect_stats() as fired:
        optimize(text, "while-loop-simplifier")
    assert not fired


def test_side_effects_in_the_body_run_once_after_inlining():
    text = counted_loop(4, 5).replace(
        "  ROOT t = (s32[], f32[3]) tuple(i1, x2)",
        "  tok = token[] after-all()\n"
        "  out = token[] outfeed(x2, tok), outfeed_shape=f32[3]\n"
        "  ROOT t = (s32[], f32[3]) tuple(i1, x2)",
    )
    module = optimize(text, "while-loop-simplifier", "dce")
    sent: list = []
    xlapy.run(module, np.float32([1, 2, 3]), outfeed=sent, platform="interpreter")
    assert len(sent) == 1
    assert sent[0].tolist() == [2, 4, 6]
