"""cse: structurally equal instructions merge; constants by bits; never side effects or rng."""

from __future__ import annotations

from pass_util import expect, lines, optimize


def test_equal_instructions_merge_and_chains_follow():
    module = optimize(
        """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] exponential(p)
  c = f32[4] negate(a)
  d = f32[4] negate(b)
  ROOT r = f32[4] add(c, d)
}""",
        "cse",
    )
    assert lines(module) == expect("""
        p = f32[4] parameter(0)
        a = f32[4] exponential(p)
        c = f32[4] negate(a)
        ROOT r = f32[4] add(c, c)
    """)


def test_different_attributes_or_operand_order_do_not_merge():
    module = optimize(
        """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  a = pred[4] compare(p, q), direction=LT
  b = pred[4] compare(p, q), direction=GT
  c = f32[4] subtract(p, q)
  d = f32[4] subtract(q, p)
  ROOT r = (pred[4], pred[4], f32[4], f32[4]) tuple(a, b, c, d)
}""",
        "cse",
    )
    assert len(lines(module)) == 7


def test_constants_compare_by_bits():
    module = optimize(
        """
HloModule m
ENTRY e {
  a = f32[2] constant({0, nan})
  b = f32[2] constant({-0, nan})
  c = f32[2] constant({0, nan})
  d = f32[2] constant({0, nan(0x400005)})
  ROOT r = (f32[2], f32[2], f32[2], f32[2]) tuple(a, b, c, d)
}""",
        "cse",
    )
    assert lines(module)[-1] == "ROOT r = (f32[2], f32[2], f32[2], f32[2]) tuple(a, b, a, d)"


def test_rng_and_side_effects_never_merge():
    module = optimize(
        """
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  a = f32[3] rng(lo, hi), distribution=rng_uniform
  b = f32[3] rng(lo, hi), distribution=rng_uniform
  s = u64[2] constant({1, 2})
  g1 = (u64[2], u32[3]) rng-bit-generator(s), algorithm=rng_default
  g2 = (u64[2], u32[3]) rng-bit-generator(s), algorithm=rng_default
  c1 = f32[3] custom-call(a), custom_call_target="f", custom_call_has_side_effect=true
  c2 = f32[3] custom-call(a), custom_call_target="f", custom_call_has_side_effect=true
  ROOT r = ((u64[2], u32[3]), (u64[2], u32[3]), f32[3], f32[3], f32[3], f32[3]) tuple(g1, g2, a, b, c1, c2)
}""",
        "cse",
        check_values=False,
    )
    assert lines(module)[-1].endswith("tuple(g1, g2, a, b, c1, c2)")


def test_cse_inside_called_computations():
    module = optimize(
        """
HloModule m
body {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  a = f32[] multiply(x, y)
  b = f32[] multiply(x, y)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  ROOT r = f32[4] map(p, q), dimensions={0}, to_apply=body
}""",
        "cse",
    )
    assert lines(module, "body")[-1] == "ROOT s = f32[] add(a, a)"
