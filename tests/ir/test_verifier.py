"""The structural verifier: one test per rule, asserting the instruction, rule and values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.errors import VerificationError
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir.verifier import verify
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.hlo_parser import parse_hlo

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

ADD = """
add {
  add.a = f32[] parameter(0)
  add.b = f32[] parameter(1)
  ROOT add.s = f32[] add(add.a, add.b)
}
"""


def module(body: str, extra: str = ADD) -> HloModule:
    return parse_hlo(f"HloModule m\n{extra}\nENTRY e {{\n{body}\n}}\n")


def fails(body: str, *fragments: str, extra: str = ADD) -> None:
    __tracebackhide__ = True
    with pytest.raises(VerificationError) as info:
        verify(module(body, extra))
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.hlo")), ids=lambda p: p.name)
def test_examples_verify(path: Path):
    verify(parse_hlo(path.read_text()))


def test_arity_of_fixed_arity_ops():
    fails(
        "p = f32[2] parameter(0)\n ROOT n = f32[2] add(p)",
        "add n [arity]",
        "takes 2 operand(s); got 1",
    )


def test_reduce_needs_pairs_of_inputs_and_inits():
    fails(
        "p = f32[2,3] parameter(0)\n c = f32[] constant(0)\n"
        " ROOT r = f32[2] reduce(p, c, c), dimensions={1}, to_apply=add",
        "reduce r [arity]",
        "got 3 operand(s)",
    )


def test_reduce_computation_parameter_count():
    bad = "bad {\n a = f32[] parameter(0)\n ROOT n = f32[] negate(a)\n}\n"
    fails(
        "p = f32[2,3] parameter(0)\n c = f32[] constant(0)\n"
        " ROOT r = f32[2] reduce(p, c), dimensions={1}, to_apply=bad",
        "reduce r [called-computation]",
        "to_apply bad must take 2 parameter(s) (f32[], f32[]); got 1",
        extra=bad,
    )


def test_reduce_computation_parameter_types():
    fails(
        "p = s32[2,3] parameter(0)\n c = s32[] constant(0)\n"
        " ROOT r = s32[2] reduce(p, c), dimensions={1}, to_apply=add",
        "parameter 0 of to_apply add must be s32[]; got f32[]",
    )


def test_sort_comparator_takes_two_scalars_per_operand():
    fails(
        "p = f32[4] parameter(0)\n q = s32[4] parameter(1)\n"
        " ROOT s = (f32[4], s32[4]) sort(p, q), dimensions={0}, to_apply=add",
        "sort s [called-computation]",
        "comparator add must take 4 parameter(s)",
    )


def test_while_body_and_condition_shapes():
    extra = (
        ADD
        + "cond {\n a = f32[] parameter(0)\n ROOT c = pred[] compare(a, a), direction=LT\n}\n"
        + "body {\n a = s32[] parameter(0)\n ROOT n = s32[] negate(a)\n}\n"
    )
    fails(
        "p = f32[] parameter(0)\n ROOT w = f32[] while(p), condition=cond, body=body",
        "while w [called-computation]",
        "parameter 0 of body body must be f32[]; got s32[]",
        extra=extra,
    )


def test_conditional_branch_count_and_operands():
    extra = ADD + "neg {\n a = f32[] parameter(0)\n ROOT n = f32[] negate(a)\n}\n"
    fails(
        "i = s32[] parameter(0)\n x = f32[] parameter(1)\n"
        " ROOT c = f32[] conditional(i, x), branch_computations={neg, neg}",
        "conditional c [arity]",
        "takes the branch index and 2 branch operand(s); got 2 operand(s)",
        extra=extra,
    )


def test_conditional_branch_index_type():
    extra = ADD + "neg {\n a = f32[] parameter(0)\n ROOT n = f32[] negate(a)\n}\n"
    fails(
        "i = f32[] parameter(0)\n ROOT c = f32[] conditional(i, i), branch_computations={neg}",
        "[branch-index]",
        "got f32[]",
        extra=extra,
    )


def test_map_computation():
    fails(
        "p = f32[4] parameter(0)\n ROOT m = f32[4] map(p), dimensions={0}, to_apply=add",
        "map m [called-computation]",
        "to_apply add must take 1 parameter(s)",
    )


def test_scatter_operand_count_and_computation():
    fails(
        "p = f32[4] parameter(0)\n i = s32[1,1] parameter(1)\n"
        " ROOT s = f32[4] scatter(p, i), update_window_dims={}, inserted_window_dims={0}, "
        "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
        "scatter s [arity]",
        "an odd number >= 3",
    )


def test_call_parameter_shapes():
    extra = ADD + "neg {\n a = f32[3] parameter(0)\n ROOT n = f32[3] negate(a)\n}\n"
    fails(
        "p = f32[4] parameter(0)\n ROOT c = f32[4] call(p), to_apply=neg",
        "call c [called-computation]",
        "parameter 0 of to_apply neg must be f32[4]; got f32[3]",
        extra=extra,
    )


def test_parameter_numbering():
    fails(
        "p = f32[4] parameter(0)\n q = f32[4] parameter(2)\n ROOT a = f32[4] add(p, q)",
        "computation e [parameter-numbering]",
        "got [0, 2]",
    )


def test_get_tuple_element_index():
    fails(
        "p = (f32[4], s32[]) parameter(0)\n ROOT g = f32[4] get-tuple-element(p), index=2",
        "get-tuple-element g [index]",
        "got index 2 of (f32[4], s32[])",
    )


def test_operands_defined_before_use():
    m = module("p = f32[4] parameter(0)\n n = f32[4] negate(p)\n ROOT ab = f32[4] abs(n)")
    comp = m.entry
    comp.instructions.reverse()  # abs before negate before parameter
    with pytest.raises(VerificationError, match=r"abs ab \[operands-defined\]: operand 0 \(n\)"):
        verify(m)


def test_root_must_belong_to_the_computation():
    m = module("p = f32[4] parameter(0)\n ROOT n = f32[4] negate(p)")
    literal = Literal.from_numpy(np.float32(1))
    stray = HloInstruction(
        Opcode.CONSTANT, Shape.scalar(dtypes.F32), name="stray", attrs={"literal": literal}
    )
    m.entry.root = stray
    with pytest.raises(VerificationError, match=r"computation e \[root\]"):
        verify(m)


def test_called_computation_must_be_in_the_module():
    m = module(
        "p = f32[2,3] parameter(0)\n c = f32[] constant(0)\n"
        " ROOT r = f32[2] reduce(p, c), dimensions={1}, to_apply=add"
    )
    m.computations = [c for c in m.computations if c.name != "add"]
    with pytest.raises(VerificationError, match=r"reduce r \[called-computation\]: calls add"):
        verify(m)


def test_unique_instruction_names():
    m = module("p = f32[4] parameter(0)\n ROOT n = f32[4] negate(p)")
    m.entry.instructions[1].name = "p"
    with pytest.raises(VerificationError, match=r"\[names\]"):
        verify(m)


def test_entry_computation_layout_matches_the_entry():
    m = module("p = f32[4] parameter(0)\n ROOT n = f32[4] negate(p)")
    m.config.entry_computation_layout = ((Shape.array(dtypes.F32, [5]),), m.entry.root.shape)
    with pytest.raises(VerificationError, match=r"parameter 0 is f32\[5\] in the layout"):
        verify(m)


def test_empty_module():
    with pytest.raises(VerificationError, match="has no computations"):
        verify(HloModule("empty"))


def test_call_graph_cycles():
    m = module("p = f32[4] parameter(0)\n ROOT n = f32[4] negate(p)")
    comp = HloComputation("loop")
    p = comp.add_instruction(
        HloInstruction(
            Opcode.PARAMETER, Shape.array(dtypes.F32, [4]), attrs={"parameter_number": 0}
        )
    )
    call = HloInstruction(Opcode.CALL, p.shape, [p], {"to_apply": comp}, name="self_call")
    comp.add_instruction(call, root=True)
    m.add_computation(comp)
    with pytest.raises(VerificationError, match=r"call self_call \[call-graph\]"):
        verify(m)


def test_attribute_types():
    m = module("p = f32[4,4] parameter(0)\n ROOT t = f32[4,4] transpose(p), dimensions={1,0}")
    root = m.entry.root
    root.attrs = root.attrs.replace(dimensions=[1, 0])  # a list, not a tuple of ints
    with pytest.raises(
        VerificationError, match=r"transpose t \[attributes\]: attribute dimensions"
    ):
        verify(m)
