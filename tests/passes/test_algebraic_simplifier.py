"""algebraic-simplifier: one case per rule (HLO in, expected entry out, same values), and the
float rewrites it must never do."""

from __future__ import annotations

import pytest
from pass_util import expect, lines, optimize

from xlapy.passes.algebraic_simplifier import algebraic_rules
from xlapy.passes.pass_manager import collect_stats

CASES = {
    "fold_add_zero": (
        """
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  zb = s32[4] broadcast(z), dimensions={}
  ROOT r = s32[4] add(zb, p)""",
        "ROOT p = s32[4] parameter(0)",
    ),
    "fold_sub_zero": (
        """
  p = f32[4] parameter(0)
  z = f32[4] constant({0, 0, 0, 0})
  ROOT r = f32[4] subtract(p, z)""",
        "ROOT p = f32[4] parameter(0)",
    ),
    "fold_mul_one": (
        """
  p = f32[4] parameter(0)
  one = f32[] constant(1)
  ob = f32[4] broadcast(one), dimensions={}
  ROOT r = f32[4] multiply(p, ob)""",
        "ROOT p = f32[4] parameter(0)",
    ),
    "fold_div_one": (
        """
  p = bf16[4] parameter(0)
  one = bf16[4] constant({1, 1, 1, 1})
  ROOT r = bf16[4] divide(p, one)""",
        "ROOT p = bf16[4] parameter(0)",
    ),
    "fold_or_zero": (
        """
  p = pred[4] parameter(0)
  f = pred[] constant(false)
  fb = pred[4] broadcast(f), dimensions={}
  ROOT r = pred[4] or(p, fb)""",
        "ROOT p = pred[4] parameter(0)",
    ),
    "fold_xor_zero": (
        """
  p = s8[4] parameter(0)
  z = s8[4] constant({0, 0, 0, 0})
  ROOT r = s8[4] xor(z, p)""",
        "ROOT p = s8[4] parameter(0)",
    ),
    "fold_and_all_ones": (
        """
  p = u8[4] parameter(0)
  m = u8[4] constant({255, 255, 255, 255})
  ROOT r = u8[4] and(p, m)""",
        "ROOT p = u8[4] parameter(0)",
    ),
    "fold_shift_by_zero": (
        """
  p = s32[4] parameter(0)
  z = s32[4] constant({0, 0, 0, 0})
  ROOT r = s32[4] shift-right-arithmetic(p, z)""",
        "ROOT p = s32[4] parameter(0)",
    ),
    "fold_not_not": (
        """
  p = pred[4] parameter(0)
  n = pred[4] not(p)
  ROOT r = pred[4] not(n)""",
        "ROOT p = pred[4] parameter(0)",
    ),
    "fold_negate_negate": (
        """
  p = s8[4] parameter(0)
  n = s8[4] negate(p)
  ROOT r = s8[4] negate(n)""",
        "ROOT p = s8[4] parameter(0)",
    ),
    "remove_noop_reshape": (
        """
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] reshape(p)""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "remove_noop_copy": (
        """
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] copy(p)""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "remove_noop_convert": (
        """
  p = f16[3] parameter(0)
  ROOT r = f16[3] convert(p)""",
        "ROOT p = f16[3] parameter(0)",
    ),
    "remove_noop_transpose": (
        """
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] transpose(p), dimensions={0,1}""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "remove_noop_broadcast": (
        """
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] broadcast(p), dimensions={0,1}""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "remove_noop_slice": (
        """
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] slice(p), slice={[0:2], [0:3:1]}""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "remove_noop_pad": (
        """
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,3] pad(p, z), padding=0_0x0_0""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "remove_noop_reverse": (
        """
  p = f32[1,3] parameter(0)
  ROOT r = f32[1,3] reverse(p), dimensions={0}""",
        "ROOT p = f32[1,3] parameter(0)",
    ),
    "remove_single_concatenate": (
        """
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] concatenate(p), dimensions={1}""",
        "ROOT p = f32[2,3] parameter(0)",
    ),
    "fold_full_dynamic_update_slice": (
        """
  p = f32[2,3] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  ROOT r = f32[2,3] dynamic-update-slice(p, u, i, i)""",
        "ROOT u = f32[2,3] parameter(1)",
    ),
    "merge_reshapes": (
        """
  p = f32[2,3] parameter(0)
  a = f32[6] reshape(p)
  ROOT r = f32[3,2] reshape(a)""",
        "ROOT reshape = f32[3,2] reshape(p)",
    ),
    "merge_transposes": (
        """
  p = f32[2,3,4] parameter(0)
  a = f32[3,4,2] transpose(p), dimensions={1,2,0}
  ROOT r = f32[4,2,3] transpose(a), dimensions={1,2,0}""",
        "ROOT transpose = f32[4,2,3] transpose(p), dimensions={2,0,1}",
    ),
    "merge_broadcasts": (
        """
  p = f32[3] parameter(0)
  a = f32[3,4] broadcast(p), dimensions={0}
  ROOT r = f32[5,3,4] broadcast(a), dimensions={1,2}""",
        "ROOT broadcast = f32[5,3,4] broadcast(p), dimensions={1}",
    ),
    "merge_slices": (
        """
  p = f32[20] parameter(0)
  a = f32[9] slice(p), slice={[2:19:2]}
  ROOT r = f32[3] slice(a), slice={[1:8:3]}""",
        "ROOT slice = f32[3] slice(p), slice={[4:17:6]}",
    ),
    "merge_reverses": (
        """
  p = f32[2,3] parameter(0)
  a = f32[2,3] reverse(p), dimensions={0,1}
  ROOT r = f32[2,3] reverse(a), dimensions={1}""",
        "ROOT reverse = f32[2,3] reverse(p), dimensions={0}",
    ),
    "broadcast_scalar_directly": (
        """
  p = f32[] parameter(0)
  a = f32[2,3] broadcast(p), dimensions={}
  ROOT r = f32[3,2] transpose(a), dimensions={1,0}""",
        "ROOT broadcast = f32[3,2] broadcast(p), dimensions={}",
    ),
    "fold_convert_roundtrip": (
        """
  p = u8[4] parameter(0)
  a = s16[4] convert(p)
  ROOT r = u8[4] convert(a)""",
        "ROOT p = u8[4] parameter(0)",
    ),
    "transpose_of_dot": (
        """
  a = s32[3,2,4] parameter(0)
  b = s32[3,5,4] parameter(1)
  d = s32[3,2,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  ROOT r = s32[3,5,2] transpose(d), dimensions={0,2,1}""",
        "ROOT dot = s32[3,5,2] dot(b, a), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
        "rhs_batch_dims={0}, rhs_contracting_dims={2}",
    ),
    "fold_select_true": (
        """
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  t = pred[] constant(true)
  tb = pred[4] broadcast(t), dimensions={}
  ROOT r = f32[4] select(tb, p, q)""",
        "ROOT p = f32[4] parameter(0)",
    ),
    "fold_select_false": (
        """
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  f = pred[4] constant({false, false, false, false})
  ROOT r = f32[4] select(f, p, q)""",
        "ROOT q = f32[4] parameter(1)",
    ),
    "fold_select_same": (
        """
  c = pred[4] parameter(0)
  p = f32[4] parameter(1)
  ROOT r = f32[4] select(c, p, p)""",
        "ROOT p = f32[4] parameter(1)",
    ),
    "reduce_no_dims": (
        """
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={}, to_apply=add""",
        "ROOT add = f32[4] add(broadcast, p)",
    ),
    "dynamic_slice_to_slice": (
        """
  p = f32[8] parameter(0)
  i = s32[] constant(6)
  ROOT r = f32[3] dynamic-slice(p, i), dynamic_slice_sizes={3}""",
        "ROOT slice = f32[3] slice(p), slice={[5:8]}",
    ),
    "drop_empty_concatenate_operands": (
        """
  p = f32[2,3] parameter(0)
  q = f32[2,0] parameter(1)
  s = f32[2,1] parameter(2)
  ROOT r = f32[2,4] concatenate(p, q, s), dimensions={1}""",
        "ROOT concatenate = f32[2,4] concatenate(p, s), dimensions={1}",
    ),
}

ADD = """
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
"""


def test_every_rule_has_a_case():
    assert {r.name for r in algebraic_rules} == set(CASES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule(rule):
    body, root = CASES[rule]
    text = "HloModule m\n" + (ADD if "to_apply=add" in body else "") + f"ENTRY e {{{body}\n}}\n"
    with collect_stats() as fired:
        result = optimize(text, "algebraic-simplifier")
    assert [ln for ln in lines(result) if ln.startswith("ROOT")] == [root]
    assert fired[f"algebraic-simplifier/{rule}"] >= 1


@pytest.mark.parametrize(
    "body",
    [
        # -0.0 + 0.0 is +0.0, so x + 0 is not x for floats.
        "p = f32[4] parameter(0)\n z = f32[4] constant({0, 0, 0, 0})\n ROOT r = f32[4] add(p, z)",
        # x * 0 is NaN for inf and NaN, -0 for negative x.
        "p = f32[4] parameter(0)\n z = f32[4] constant({0, 0, 0, 0})\n"
        " ROOT r = f32[4] multiply(p, z)",
        # (a+bi)*(1+0i) has b*0 in its real part: NaN for b = inf.
        "p = c64[4] parameter(0)\n o = c64[4] constant({(1,0), (1,0), (1,0), (1,0)})\n"
        " ROOT r = c64[4] multiply(p, o)",
        # x - (-0.0) is x + 0.0: -0.0 becomes +0.0.
        "p = f32[4] parameter(0)\n z = f32[4] constant({-0, -0, -0, -0})\n"
        " ROOT r = f32[4] subtract(p, z)",
        # negate(negate(x)) on floats is left alone.
        "p = f32[4] parameter(0)\n n = f32[4] negate(p)\n ROOT r = f32[4] negate(n)",
        # A copy that changes the layout is a real transpose in memory.
        "p = f32[2,3]{1,0} parameter(0)\n ROOT r = f32[2,3]{0,1} copy(p)",
    ],
)
def test_float_changing_rewrites_are_not_done(body):
    text = f"HloModule m\nENTRY e {{\n {body}\n}}\n"
    with collect_stats() as fired:
        optimize(text, "algebraic-simplifier")
    assert not fired


def test_a_chain_collapses_in_one_run():
    result = optimize(
        """
HloModule m
ENTRY e {
  p = s32[2,3] parameter(0)
  a = s32[3,2] transpose(p), dimensions={1,0}
  b = s32[2,3] transpose(a), dimensions={1,0}
  c = s32[6] reshape(b)
  d = s32[6] copy(c)
  z = s32[6] constant({0, 0, 0, 0, 0, 0})
  e = s32[6] add(d, z)
  ROOT r = s32[2,3] reshape(e)
}""",
        "algebraic-simplifier",
    )
    assert lines(result) == expect("ROOT p = s32[2,3] parameter(0)")


@pytest.mark.parametrize(
    "body",
    [
        # the dot has another user: swapping would compute it twice
        "a = s32[2,4] parameter(0)\n b = s32[4,5] parameter(1)\n"
        " d = s32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
        " t = s32[5,2] transpose(d), dimensions={1,0}\n"
        " ROOT r = (s32[2,5], s32[5,2]) tuple(d, t)",
        # the transpose moves a batch dimension
        "a = s32[3,2,4] parameter(0)\n b = s32[3,4,5] parameter(1)\n"
        " d = s32[3,2,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},"
        " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"
        " ROOT t = s32[2,3,5] transpose(d), dimensions={1,0,2}",
    ],
)
def test_transpose_of_dot_is_left_alone(body):
    text = f"HloModule m\nENTRY e {{\n {body}\n}}\n"
    with collect_stats() as fired:
        optimize(text, "algebraic-simplifier")
    assert not fired
