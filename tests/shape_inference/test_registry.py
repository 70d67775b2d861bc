"""Every opcode has shape inference; the entry point validates arity and attributes."""

import pytest

from xlapy import InvalidArgument
from xlapy.ir import Opcode
from xlapy.shape_inference import INFER, infer_shape
from xlapy.text.hlo_parser import parse_shape as S


def test_every_opcode_has_an_infer_function():
    assert [op.value for op in Opcode if op not in INFER] == []


def test_arity_is_checked():
    with pytest.raises(InvalidArgument, match=r"^add: takes 2 operand\(s\); got 1$"):
        infer_shape(Opcode.ADD, [S("f32[2]")])


def test_unknown_and_missing_attributes_are_reported():
    with pytest.raises(InvalidArgument, match="pad: missing required attribute 'padding'"):
        infer_shape(Opcode.PAD, [S("f32[2]"), S("f32[]")], {})
    with pytest.raises(InvalidArgument, match="add: unknown attribute 'dimensions'"):
        infer_shape(Opcode.ADD, [S("f32[2]"), S("f32[2]")], {"dimensions": (0,)})


def test_instruction_name_appears_after_the_op():
    with pytest.raises(InvalidArgument, match=r"^add %sum \[C1\]: lhs and rhs must have"):
        infer_shape(Opcode.ADD, [S("f32[2]"), S("s32[2]")], name="sum")
