"""tuple-simplifier: get-tuple-element of a tuple, and a tuple rebuilt from its elements."""

from __future__ import annotations

from pass_util import expect, lines, optimize

from xlapy.passes.pass_manager import collect_stats


def test_gte_of_tuple_is_the_element():
    with collect_stats() as fired:
        module = optimize(
            """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  q = s32[2] parameter(1)
  t = (f32[4], s32[2]) tuple(p, q)
  g = s32[2] get-tuple-element(t), index=1
  ROOT r = s32[2] negate(g)
}""",
            "tuple-simplifier",
        )
    assert lines(module) == expect("""
        p = f32[4] parameter(0)
        q = s32[2] parameter(1)
        ROOT r = s32[2] negate(q)
    """)
    assert fired == {"tuple-simplifier/fold_gte_of_tuple": 1}


def test_tuple_of_all_gtes_in_order_is_the_source():
    module = optimize(
        """
HloModule m
ENTRY e {
  p = (f32[4], s32[2]) parameter(0)
  a = f32[4] get-tuple-element(p), index=0
  b = s32[2] get-tuple-element(p), index=1
  ROOT t = (f32[4], s32[2]) tuple(a, b)
}""",
        "tuple-simplifier",
    )
    assert lines(module) == ["ROOT p = (f32[4], s32[2]) parameter(0)"]


def test_partial_or_reordered_tuples_stay():
    text = """
HloModule m
ENTRY e {
  p = (f32[4], f32[4], f32[4]) parameter(0)
  a = f32[4] get-tuple-element(p), index=0
  b = f32[4] get-tuple-element(p), index=1
  c = f32[4] get-tuple-element(p), index=2
  swapped = (f32[4], f32[4], f32[4]) tuple(b, a, c)
  short = (f32[4], f32[4]) tuple(a, b)
  ROOT t = ((f32[4], f32[4], f32[4]), (f32[4], f32[4])) tuple(swapped, short)
}"""
    with collect_stats() as fired:
        optimize(text, "tuple-simplifier")
    assert not fired


def test_nested_tuples_unwrap():
    module = optimize(
        """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  inner = (f32[4], f32[4]) tuple(p, p)
  outer = ((f32[4], f32[4]), f32[4]) tuple(inner, p)
  g = (f32[4], f32[4]) get-tuple-element(outer), index=0
  ROOT h = f32[4] get-tuple-element(g), index=1
}""",
        "tuple-simplifier",
    )
    assert lines(module) == ["ROOT p = f32[4] parameter(0)"]
