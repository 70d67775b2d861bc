"""constant-folding: folds through the interpreter's evals, bit for bit; keeps what XLA keeps."""

from __future__ import annotations

import numpy as np
from pass_util import assert_same_results, expect, lines, optimize

import xlapy
from xlapy.ir.clone import clone_module
from xlapy.ir.opcode import Opcode
from xlapy.passes.constant_folding import ConstantFolding


def test_a_program_of_constants_becomes_one_constant():
    module = optimize(
        """
HloModule m
ENTRY e {
  a = f32[3] constant({1.5, -0, nan})
  b = f32[] constant(2)
  bb = f32[3] broadcast(b), dimensions={}
  s = f32[3] multiply(a, bb)
  n = f32[3] negate(s)
  ROOT c = bf16[3] convert(n)
}""",
        "constant-folding",
    )
    assert lines(module) == ["ROOT constant.2 = bf16[3] constant({-3, 0, -nan})"]


def test_folding_is_bit_exact_for_narrow_types():
    text = """
HloModule m
ENTRY e {
  a = f8e4m3fn[4] constant({0.5, -0, 448, 0.001953125})
  b = f8e4m3fn[4] constant({0.25, 0, 32, 0.001953125})
  s = f8e4m3fn[4] add(a, b)
  i = s4[3] constant({-8, 7, 3})
  j = s4[3] constant({-1, 1, 7})
  k = s4[3] add(i, j)
  x = bf16[2] constant({1.0078125, 3})
  y = bf16[2] multiply(x, x)
  ROOT t = (f8e4m3fn[4], s4[3], bf16[2]) tuple(s, k, y)
}"""
    module = optimize(text, "constant-folding")
    want = xlapy.run(xlapy.load(text), platform="interpreter")
    for instr, expected in zip(module.entry.root.operands, want, strict=True):
        assert instr.opcode is Opcode.CONSTANT
        got = instr.attrs.literal.value
        assert got.dtype == expected.dtype
        assert got.view(np.uint8).tobytes() == expected.view(np.uint8).tobytes()


def test_nan_payloads_and_signed_zeros_survive():
    module = optimize(
        """
HloModule m
ENTRY e {
  a = f32[2] constant({nan(0x400005), -0})
  c = f32[2] copy(a)
  ROOT r = f32[2] reverse(c), dimensions={0}
}""",
        "constant-folding",
    )
    assert lines(module) == ["ROOT constant.1 = f32[2] constant({-0, nan(0x400005)})"]


def test_side_effects_rng_and_device_ids_are_not_folded():
    module = optimize(
        """
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[2] rng(lo, hi), distribution=rng_uniform
  id = u32[] replica-id()
  one = u32[] constant(1)
  idp = u32[] add(id, one)
  cc = f32[] custom-call(lo), custom_call_target="check.print", custom_call_has_side_effect=true
  ROOT t = (f32[2], u32[], f32[]) tuple(r, idp, cc)
}""",
        "constant-folding",
        check_values=False,
    )
    assert [ln.split(" = ")[0] for ln in lines(module)] == [
        "lo", "hi", "r", "id", "one", "idp", "cc", "ROOT t"
    ]  # fmt: skip


def test_broadcasts_and_iotas_stay_and_fold_only_into_users_with_a_constant_operand():
    """XLA's rule: an instruction folds when some operand is a constant and the others are
    constants, broadcasts of constants or iotas; broadcasts and iotas never fold (however
    small), nor do users of broadcasts and iotas only."""
    text = """
HloModule m
ENTRY e {
  z = f32[] constant(0)
  big = f32[2,3] broadcast(z), dimensions={}
  c = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  s = f32[2,3] add(big, c)
  i = f32[2,3] iota(), iota_dimension=1
  both = f32[2,3] add(big, i)
  small = s32[2] iota(), iota_dimension=0
  n = s32[2] negate(small)
  ROOT t = (f32[2,3], f32[2,3], f32[2,3], s32[2]) tuple(big, s, both, n)
}"""
    module = xlapy.load(text)
    ConstantFolding().run(module)
    assert_same_results(xlapy.load(text), module)
    assert lines(module) == expect("""
        z = f32[] constant(0)
        big = f32[2,3] broadcast(z), dimensions={}
        constant = f32[2,3] constant({ { 1, 2, 3 }, { 4, 5, 6 } })
        i = f32[2,3] iota(), iota_dimension=1
        both = f32[2,3] add(big, i)
        small = s32[2] iota(), iota_dimension=0
        n = s32[2] negate(small)
        ROOT t = (f32[2,3], f32[2,3], f32[2,3], s32[2]) tuple(big, constant, both, n)
    """)


def test_pad_of_a_broadcast_does_not_fold():
    text = """
HloModule m
ENTRY e {
  one = f32[] constant(1)
  b = f32[3] broadcast(one), dimensions={}
  z = f32[] constant(0)
  ROOT p = f32[5] pad(b, z), padding=1_1
}"""
    module = xlapy.load(text)
    assert not ConstantFolding().run(module)


def test_size_limit_is_an_option():
    text = """
HloModule m
ENTRY e {
  a = s32[4] constant({1, 2, 3, 4})
  ROOT n = s32[4] negate(a)
}"""
    module = xlapy.load(text)
    assert not ConstantFolding(max_elements=3).run(module)
    assert ConstantFolding(max_elements=4).run(module)
    assert module.entry.root.opcode is Opcode.CONSTANT


def test_tuple_results_fold_through_get_tuple_element():
    module = optimize(
        """
HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = s32[3] constant({3, 1, 2})
  v = f32[3] constant({30, 10, 20})
  s = (s32[3], f32[3]) sort(k, v), dimensions={0}, to_apply=cmp
  ROOT g = f32[3] get-tuple-element(s), index=1
}""",
        "constant-folding",
    )
    assert lines(module) == ["ROOT constant = f32[3] constant({10, 20, 30})"]
    assert [c.name for c in module.computations] == ["cmp", "e"]  # dce removes cmp later


def test_while_loops_and_elided_constants_are_not_folded():
    text = """
HloModule m
cond {
  c = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(c, ten), direction=LT
}
body {
  b = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(b, one)
}
ENTRY e {
  z = s32[] constant(0)
  w = s32[] while(z), condition=cond, body=body
  big = f32[20] constant({...})
  n = f32[20] negate(big)
  ROOT t = (s32[], f32[20]) tuple(w, n)
}"""
    module = xlapy.load(text)
    assert not ConstantFolding().run(clone_module(module))


def test_folds_inside_called_computations():
    module = optimize(
        """
HloModule m
body {
  x = f32[] parameter(0)
  two = f32[] constant(2)
  three = f32[] constant(3)
  six = f32[] multiply(two, three)
  ROOT s = f32[] add(x, six)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f32[4] map(p), dimensions={0}, to_apply=body
}""",
        "constant-folding",
    )
    assert lines(module, "body") == expect("""
        x = f32[] parameter(0)
        constant = f32[] constant(6)
        ROOT s = f32[] add(x, constant)
    """)
