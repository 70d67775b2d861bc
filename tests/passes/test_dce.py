"""dce: dead instructions and computations go; side effects, parameters and the root stay."""

from __future__ import annotations

from pass_util import expect, lines, optimize

from xlapy.passes.pass_manager import collect_stats


def test_dead_instructions_are_removed():
    module = optimize(
        """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  dead1 = f32[4] exponential(p)
  dead2 = f32[4] add(dead1, q)
  ROOT r = f32[4] negate(p)
}""",
        "dce",
    )
    assert lines(module) == expect("""
        p = f32[4] parameter(0)
        q = f32[4] parameter(1)
        ROOT r = f32[4] negate(p)
    """)


def test_side_effects_are_kept():
    module = optimize(
        """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  tok = token[] after-all()
  out = token[] outfeed(p, tok), outfeed_shape=f32[4]
  lo = f32[] constant(0)
  s = f32[] rng(lo, lo), distribution=rng_uniform
  cc = f32[4] custom-call(p), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
  pure = f32[4] custom-call(p), custom_call_target="foo"
  ROOT r = f32[4] negate(p)
}""",
        "dce",
        check_values=False,
    )
    names = [ln.split(" = ")[0] for ln in lines(module)]
    assert names == ["p", "tok", "out", "lo", "s", "cc", "ROOT r"]


def test_a_while_with_a_side_effect_in_its_body_is_kept():
    module = optimize(
        """
HloModule m
cond {
  c = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(c, ten), direction=LT
}
body {
  b = s32[] parameter(0)
  tok = token[] after-all()
  out = token[] outfeed(b, tok), outfeed_shape=s32[]
  one = s32[] constant(1)
  ROOT next = s32[] add(b, one)
}
ENTRY e {
  p = s32[] parameter(0)
  w = s32[] while(p), condition=cond, body=body
  ROOT r = s32[] negate(p)
}""",
        "dce",
        check_values=False,
    )
    assert "w = s32[] while(p), condition=cond, body=body" in lines(module)


def test_unreachable_computations_are_removed():
    text = """
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
unused {
  u = f32[] parameter(0)
  ROOT n = f32[] negate(u)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  dead = f32[] reduce(p, z), dimensions={0}, to_apply=add
  ROOT r = f32[4] negate(p)
}"""
    with collect_stats() as fired:
        module = optimize(text, "dce")
    assert [c.name for c in module.computations] == ["e"]
    assert fired == {"dce/dead_instruction": 2, "dce/dead_computation": 2}


def test_dead_code_in_called_computations_is_removed_but_parameters_stay():
    module = optimize(
        """
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  unused = f32[] multiply(x, y)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}""",
        "dce",
    )
    assert lines(module, "add") == expect("""
        x = f32[] parameter(0)
        y = f32[] parameter(1)
        ROOT s = f32[] add(x, y)
    """)
