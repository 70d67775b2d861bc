"""flatten-call-graph and inline."""

from __future__ import annotations

from pass_util import expect, lines, optimize

import xlapy
from xlapy.passes.call_graph import Inline
from xlapy.passes.pass_manager import collect_stats

CALLS = """
HloModule m
twice {
  x = f32[4] parameter(0)
  ROOT d = f32[4] add(x, x)
}
square_plus {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  sq = f32[4] multiply(a, a)
  c = f32[4] call(sq), to_apply=twice
  ROOT s = f32[4] add(c, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  r1 = f32[4] call(p, q), to_apply=square_plus
  r2 = f32[4] call(q, p), to_apply=square_plus
  ROOT t = (f32[4], f32[4]) tuple(r1, r2)
}
"""


def test_flatten_gives_each_call_site_its_own_computation():
    with collect_stats() as fired:
        module = optimize(CALLS, "flatten-call-graph")
    # square_plus is cloned for r2; the clone calls twice again, so twice is cloned too.
    assert fired == {"flatten-call-graph/cloned_computation": 2}
    names = [c.name for c in module.computations]
    assert names == ["twice.1", "twice", "square_plus.1", "square_plus", "e"]
    calls = {ln.split(" = ")[0]: ln.split("to_apply=")[1] for ln in lines(module) if "call(" in ln}
    assert calls == {"r1": "square_plus", "r2": "square_plus.1"}
    inner = {
        ln.split("to_apply=")[1]
        for name in ("square_plus", "square_plus.1")
        for ln in lines(module, name)
        if "call(" in ln
    }
    assert inner == {"twice", "twice.1"}


def test_flatten_clones_a_while_body_also_used_as_a_reducer():
    module = optimize(
        """
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  ROOT c = f32[] call(r, z), to_apply=add
}""",
        "flatten-call-graph",
    )
    assert lines(module)[-1] == "ROOT c = f32[] call(r, z), to_apply=add.1"


def test_conditional_branches_sharing_a_computation_are_split():
    module = optimize(
        """
HloModule m
neg {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
ENTRY e {
  i = s32[] parameter(0)
  p = f32[] parameter(1)
  ROOT c = f32[] conditional(i, p, p), branch_computations={neg, neg}
}""",
        "flatten-call-graph",
    )
    assert lines(module)[-1].endswith("branch_computations={neg, neg.1}")


def test_inline_replaces_nested_calls_by_their_bodies():
    with collect_stats() as fired:
        module = optimize(CALLS, "inline", "dce")
    # square_plus's own call first (callees come first), then the two calls of the entry.
    assert fired["inline/inlined_call"] == 3
    assert [c.name for c in module.computations] == ["e"]
    assert lines(module) == expect("""
        p = f32[4] parameter(0)
        q = f32[4] parameter(1)
        sq.1 = f32[4] multiply(p, p)
        d.2 = f32[4] add(sq.1, sq.1)
        s.1 = f32[4] add(d.2, q)
        sq.2 = f32[4] multiply(q, q)
        d.3 = f32[4] add(sq.2, sq.2)
        s.2 = f32[4] add(d.3, p)
        ROOT t = (f32[4], f32[4]) tuple(s.1, s.2)
    """)


COMPOSITE = """
HloModule m
my_op {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] call(p), to_apply=my_op, is_composite=true
}
"""


def test_inline_takes_composites_unless_told_not_to():
    module = optimize(COMPOSITE, "inline")
    assert lines(module)[-1] == "ROOT n.1 = f32[4] negate(p)"
    kept = xlapy.load(COMPOSITE)
    assert not Inline(inline_composites=False).run(kept)


def test_inline_of_a_body_that_returns_its_parameter():
    module = optimize(
        """
HloModule m
ident {
  ROOT x = f32[4] parameter(0)
}
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] call(p), to_apply=ident
  ROOT n = f32[4] negate(c)
}""",
        "inline",
    )
    assert lines(module)[-1] == "ROOT n = f32[4] negate(p)"
