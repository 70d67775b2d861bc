"""The IR editing API the passes use: make/insert/replace/remove instructions, users, and
computations added and removed."""

from __future__ import annotations

import numpy as np
import pytest
from pass_util import expect, lines

import xlapy
from xlapy.errors import InvalidArgument
from xlapy.ir.computation import HloComputation
from xlapy.ir.opcode import Opcode
from xlapy.ir.verifier import verify
from xlapy.literal import Literal

PROGRAM = """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  a = f32[4] add(n, p)
  ROOT m = f32[4] multiply(a, n)
}
"""


def test_make_instruction_infers_the_shape():
    module = xlapy.load(PROGRAM)
    comp = module.entry
    p = comp.parameter(0)
    cmp = comp.make_instruction(Opcode.COMPARE, [p, p], {"direction": "LT"})
    assert cmp.shape.to_hlo(layout=False) == "pred[4]"
    assert cmp.parent is None
    reshaped = comp.make_instruction(Opcode.RESHAPE, [p], shape=xlapy.shape("f32[2,2]"))
    assert reshaped.shape.dims == (2, 2)


def test_make_instruction_reports_broken_constraints():
    comp = xlapy.load(PROGRAM).entry
    one = comp.make_instruction(Opcode.CONSTANT, [], {"literal": Literal.from_numpy(np.int32(1))})
    with pytest.raises(InvalidArgument, match=r"add"):
        comp.make_instruction(Opcode.ADD, [comp.parameter(0), one])


def test_replace_instruction_puts_new_instructions_in_the_old_place():
    module = xlapy.load(PROGRAM)
    comp = module.entry
    a = comp.instruction("a")
    p = comp.parameter(0)
    # a = n + p becomes abs(p) - n, built from two new instructions.
    absolute = comp.make_instruction(Opcode.ABS, [p])
    sub = comp.make_instruction(Opcode.SUBTRACT, [absolute, comp.instruction("n")])
    comp.replace_instruction(a, sub)
    verify(module)
    assert lines(module) == expect("""
        p = f32[4] parameter(0)
        n = f32[4] negate(p)
        abs = f32[4] abs(p)
        subtract = f32[4] subtract(abs, n)
        ROOT m = f32[4] multiply(subtract, n)
    """)
    assert [i.name for i in comp.instructions] == ["p", "n", "abs", "subtract", "m"]
    assert a.parent is None


def test_replace_instruction_updates_the_root_and_accepts_existing_instructions():
    module = xlapy.load(PROGRAM)
    comp = module.entry
    comp.replace_instruction(comp.root, comp.instruction("n"))
    assert comp.root.name == "n"
    assert comp.users(comp.instruction("a")) == []


def test_replace_instruction_reorders_when_the_new_one_is_defined_later():
    module = xlapy.load(PROGRAM)
    comp = module.entry
    # n is replaced by a later instruction a2 = abs(p): a2 must move before n's users.
    a2 = comp.add_instruction(
        comp.make_instruction(Opcode.ABS, [comp.parameter(0)], name="a2"),
        before=comp.root,
    )
    comp.replace_instruction(comp.instruction("n"), a2)
    verify(module)
    assert [i.name for i in comp.instructions] == ["p", "a2", "a", "m"]


def test_replace_instruction_refuses_a_different_shape():
    comp = xlapy.load(PROGRAM).entry
    cmp = comp.make_instruction(Opcode.COMPARE, [comp.root, comp.root], {"direction": "EQ"})
    with pytest.raises(InvalidArgument, match="shapes differ"):
        comp.replace_instruction(comp.root, cmp)


def test_replace_all_uses_with_and_remove_instruction():
    module = xlapy.load(PROGRAM)
    comp = module.entry
    n, p = comp.instruction("n"), comp.parameter(0)
    with pytest.raises(InvalidArgument, match="still uses it"):
        comp.remove_instruction(n)
    n.replace_all_uses_with(p)
    comp.remove_instruction(n)
    verify(module)
    assert lines(module) == expect("""
        p = f32[4] parameter(0)
        a = f32[4] add(p, p)
        ROOT m = f32[4] multiply(a, p)
    """)


def test_add_instruction_before_an_anchor():
    comp = xlapy.load(PROGRAM).entry
    new = comp.make_instruction(Opcode.EXP, [comp.parameter(0)])
    comp.insert_before(comp.instruction("a"), new)
    assert [i.name for i in comp.instructions] == ["p", "n", "exponential", "a", "m"]


def test_user_map_lists_each_user_once():
    comp = xlapy.load(PROGRAM).entry
    users = comp.user_map()
    p, n = comp.parameter(0), comp.instruction("n")
    assert [u.name for u in users[p]] == ["n", "a"]
    assert [u.name for u in users[n]] == ["a", "m"]
    assert users[comp.root] == []


def test_remove_computation():
    module = xlapy.load("""
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
""")
    add = module.computation("add")
    with pytest.raises(InvalidArgument, match="calls it"):
        module.remove_computation(add)
    with pytest.raises(InvalidArgument, match="entry"):
        module.remove_computation(module.entry)
    spare = HloComputation("spare")
    spare.add_instruction(
        spare.make_instruction(
            Opcode.PARAMETER, [], {"parameter_number": 0}, shape=xlapy.shape("f32[]")
        )
    )
    module.add_computation(spare, before=module.entry)
    assert [c.name for c in module.computations] == ["add", "spare", "e"]
    module.remove_computation(spare)
    assert [c.name for c in module.computations] == ["add", "e"]
    verify(module)


def test_add_instruction_before_checks_operand_order():
    comp = xlapy.load(PROGRAM).entry
    late = comp.make_instruction(Opcode.EXP, [comp.instruction("a")])
    with pytest.raises(InvalidArgument, match="operand a is not an earlier instruction"):
        comp.add_instruction(late, before=comp.instruction("n"))
