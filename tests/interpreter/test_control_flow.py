"""while, conditional, call, composite call and fusion (OPS.md While, Conditional, Call,
CompositeCall, Fusion), on modules built directly in the IR."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir import attrs as A
from xlapy.literal import Literal
from xlapy.shape import Shape

S32, F32, PRED = dtypes.S32, dtypes.F32, dtypes.PRED


class Comp:
    """A tiny computation builder: ``c.op(opcode, shape, operands, **attrs)``."""

    def __init__(self, name: str, params: Sequence[Shape]) -> None:
        self.comp = HloComputation(name)
        self.params = [
            self.comp.add_instruction(
                HloInstruction(Opcode.PARAMETER, s, attrs={"parameter_number": i}, name=f"p{i}")
            )
            for i, s in enumerate(params)
        ]

    def op(
        self, opcode: Opcode, shape: Shape, operands: Sequence[HloInstruction] = (), **attrs
    ) -> HloInstruction:
        return self.comp.add_instruction(HloInstruction(opcode, shape, operands, attrs))

    def const(self, value: object, t: dtypes.ElementType) -> HloInstruction:
        array = np.asarray(value, dtype=t.numpy)
        shape = Shape.array(t, array.shape)
        return self.op(Opcode.CONSTANT, shape, literal=Literal(shape, array))

    def root(self, instr: HloInstruction) -> HloComputation:
        self.comp.root = instr
        return self.comp


def _module(*comps: HloComputation) -> HloModule:
    """A module of ``comps`` (callees first, the entry last)."""
    m = HloModule("m")
    for i, comp in enumerate(comps):
        m.add_computation(comp, entry=i == len(comps) - 1)
    return m


def _scalar(t: dtypes.ElementType) -> Shape:
    return Shape.scalar(t)


# ---- while ----------------------------------------------------------------------------------
STATE = Shape.tuple_of([_scalar(S32), Shape.array(F32, [10])])


def _spec_loop(limit: int) -> HloModule:
    """OPS.md While pseudo-code: ``while (result(0) < limit) result = {i + 1, v + c}``."""
    cond = Comp("cond", [STATE])
    i = cond.op(Opcode.GET_TUPLE_ELEMENT, _scalar(S32), cond.params, index=0)
    cond.root(
        cond.op(
            Opcode.COMPARE,
            _scalar(PRED),
            [i, cond.const(limit, S32)],
            direction=A.ComparisonDirection.LT,
        )
    )
    body = Comp("body", [STATE])
    i = body.op(Opcode.GET_TUPLE_ELEMENT, _scalar(S32), body.params, index=0)
    v = body.op(Opcode.GET_TUPLE_ELEMENT, STATE.tuple_shapes[1], body.params, index=1)
    i1 = body.op(Opcode.ADD, _scalar(S32), [i, body.const(1, S32)])
    step = body.const(np.arange(1, 11), F32)
    v1 = body.op(Opcode.ADD, STATE.tuple_shapes[1], [v, step])
    body.root(body.op(Opcode.TUPLE, STATE, [i1, v1]))
    entry = Comp("main", [STATE])
    entry.root(entry.op(Opcode.WHILE, STATE, entry.params, condition=cond.comp, body=body.comp))
    return _module(cond.comp, body.comp, entry.comp)


def test_while_spec_example():
    # OPS.md While: 1000 iterations ==> {1000, 1000 * constant_vector}.
    i, v = xlapy.run(
        _spec_loop(1000), (np.int32(0), np.zeros(10, np.float32)), platform="interpreter"
    )
    assert i.dtype == np.int32
    assert int(i) == 1000
    np.testing.assert_array_equal(v, 1000 * np.arange(1, 11, dtype=np.float32))


def test_while_body_never_runs_returns_init():
    init = (np.int32(7), np.full(10, 0.5, np.float32))
    i, v = xlapy.run(_spec_loop(3), init, platform="interpreter")
    assert int(i) == 7
    np.testing.assert_array_equal(v, init[1])


def test_while_single_array_state():
    # x = 3; while (x < 100) x = x * 2  ==> 192
    s = _scalar(S32)
    cond = Comp("cond", [s])
    lt = A.ComparisonDirection.LT
    cond.root(
        cond.op(Opcode.COMPARE, _scalar(PRED), [cond.params[0], cond.const(100, S32)], direction=lt)
    )
    body = Comp("body", [s])
    body.root(body.op(Opcode.MULTIPLY, s, [body.params[0], body.const(2, S32)]))
    entry = Comp("main", [s])
    entry.root(entry.op(Opcode.WHILE, s, entry.params, condition=cond.comp, body=body.comp))
    (out,) = xlapy.run(
        _module(cond.comp, body.comp, entry.comp), np.int32(3), platform="interpreter"
    )
    assert out.dtype == np.int32
    assert int(out) == 192


def test_while_condition_must_return_pred():
    s = _scalar(S32)
    cond = Comp("cond", [s])
    cond.root(cond.params[0])
    body = Comp("body", [s])
    body.root(body.params[0])
    entry = Comp("main", [s])
    entry.root(entry.op(Opcode.WHILE, s, entry.params, condition=cond.comp, body=body.comp))
    with pytest.raises(InvalidArgument, match=r"while .*: condition cond must return pred\[\]"):
        xlapy.run(_module(cond.comp, body.comp, entry.comp), np.int32(3), platform="interpreter")


# ---- conditional ----------------------------------------------------------------------------
def _negate_comp(name: str, t: dtypes.ElementType) -> HloComputation:
    c = Comp(name, [_scalar(t)])
    return c.root(c.op(Opcode.NEGATE, _scalar(t), c.params))


def _failing_comp(name: str, t: dtypes.ElementType) -> HloComputation:
    """A branch that cannot run (an unregistered custom call): proves it is not executed."""
    c = Comp(name, [_scalar(t)])
    return c.root(
        c.op(Opcode.CUSTOM_CALL, _scalar(t), c.params, custom_call_target="xlapy.test.never")
    )


def _boolean_conditional(true_comp: HloComputation, false_comp: HloComputation) -> HloModule:
    s = _scalar(F32)
    entry = Comp("main", [_scalar(PRED), s, s])
    p, x, y = entry.params
    entry.root(
        entry.op(
            Opcode.CONDITIONAL,
            s,
            [p, x, y],
            true_computation=true_comp,
            false_computation=false_comp,
        )
    )
    return _module(true_comp, false_comp, entry.comp)


def test_conditional_boolean_runs_only_the_taken_branch():
    m = _boolean_conditional(_negate_comp("on_true", F32), _failing_comp("on_false", F32))
    (out,) = xlapy.run(m, True, np.float32(2.5), np.float32(7.0), platform="interpreter")
    assert out == np.float32(-2.5)
    with pytest.raises(Unimplemented, match=r"xlapy\.test\.never"):
        xlapy.run(m, False, np.float32(2.5), np.float32(7.0), platform="interpreter")


def test_conditional_boolean_false_branch_gets_false_operand():
    m = _boolean_conditional(_failing_comp("on_true", F32), _negate_comp("on_false", F32))
    (out,) = xlapy.run(m, False, np.float32(2.5), np.float32(7.0), platform="interpreter")
    assert out == np.float32(-7.0)


def _indexed_conditional() -> HloModule:
    """Three branches of different operand types, all returning s32[]:
    0: -x (s32), 1: convert(y) (f32 -> s32), 2: x * 10 (s32)."""
    s, f = _scalar(S32), _scalar(F32)
    b0 = _negate_comp("b0", S32)
    c1 = Comp("b1", [f])
    b1 = c1.root(c1.op(Opcode.CONVERT, s, c1.params))
    c2 = Comp("b2", [s])
    b2 = c2.root(c2.op(Opcode.MULTIPLY, s, [c2.params[0], c2.const(10, S32)]))
    entry = Comp("main", [s, s, f, s])
    index, x, y, z = entry.params
    entry.root(entry.op(Opcode.CONDITIONAL, s, [index, x, y, z], branch_computations=(b0, b1, b2)))
    return _module(b0, b1, b2, entry.comp)


@pytest.mark.parametrize(
    ("index", "expected"),
    [(0, -3), (1, 42), (2, 50), (-1, 50), (3, 50), (-(2**31), 50), (2**31 - 1, 50)],
)
def test_conditional_indexed_out_of_range_takes_last_branch(index, expected):
    m = _indexed_conditional()
    (out,) = xlapy.run(
        m, np.int32(index), np.int32(3), np.float32(42.75), np.int32(5), platform="interpreter"
    )
    assert out.dtype == np.int32
    assert int(out) == expected


def test_conditional_operand_count_must_match_branches():
    s = _scalar(S32)
    b0 = _negate_comp("b0", S32)
    entry = Comp("main", [s, s, s])
    entry.root(entry.op(Opcode.CONDITIONAL, s, entry.params, branch_computations=(b0,)))
    with pytest.raises(InvalidArgument, match="one operand per branch"):
        xlapy.run(
            _module(b0, entry.comp), np.int32(0), np.int32(1), np.int32(2), platform="interpreter"
        )


def test_conditional_pred_needs_two_branches():
    s = _scalar(S32)
    b0 = _negate_comp("b0", S32)
    entry = Comp("main", [_scalar(PRED), s])
    entry.root(entry.op(Opcode.CONDITIONAL, s, entry.params, branch_computations=(b0,)))
    with pytest.raises(InvalidArgument, match="exactly 2 branches"):
        xlapy.run(_module(b0, entry.comp), True, np.int32(1), platform="interpreter")


def test_conditional_tuple_result():
    # A branch may return a tuple; the conditional returns that tuple.
    s = _scalar(S32)
    pair = Shape.tuple_of([s, s])
    c0 = Comp("swap", [pair])
    a = c0.op(Opcode.GET_TUPLE_ELEMENT, s, c0.params, index=0)
    b = c0.op(Opcode.GET_TUPLE_ELEMENT, s, c0.params, index=1)
    swap = c0.root(c0.op(Opcode.TUPLE, pair, [b, a]))
    c1 = Comp("same", [pair])
    same = c1.root(c1.params[0])
    entry = Comp("main", [s, pair])
    entry.root(
        entry.op(
            Opcode.CONDITIONAL,
            pair,
            [entry.params[0], entry.params[1], entry.params[1]],
            branch_computations=(swap, same),
        )
    )
    m = _module(swap, same, entry.comp)
    assert [
        int(v)
        for v in xlapy.run(m, np.int32(0), (np.int32(1), np.int32(2)), platform="interpreter")
    ] == [2, 1]
    assert [
        int(v)
        for v in xlapy.run(m, np.int32(1), (np.int32(1), np.int32(2)), platform="interpreter")
    ] == [1, 2]


# ---- call, composite call, fusion -----------------------------------------------------------
def _fma_comp(name: str) -> HloComputation:
    """(x, y, z) -> x * y + z on f32[3]."""
    v = Shape.array(F32, [3])
    c = Comp(name, [v, v, v])
    x, y, z = c.params
    return c.root(c.op(Opcode.ADD, v, [c.op(Opcode.MULTIPLY, v, [x, y]), z]))


ARGS = (
    np.array([1.0, 2.0, -3.0], np.float32),
    np.array([0.5, 4.0, 2.0], np.float32),
    np.array([1.0, -8.0, 0.25], np.float32),
)
EXPECTED = np.array([1.5, 0.0, -5.75], np.float32)


@pytest.mark.parametrize("is_composite", [False, True])
def test_call_and_composite_call(is_composite):
    v = Shape.array(F32, [3])
    callee = _fma_comp("callee")
    entry = Comp("main", [v, v, v])
    entry.root(entry.op(Opcode.CALL, v, entry.params, to_apply=callee, is_composite=is_composite))
    (out,) = xlapy.run(_module(callee, entry.comp), *ARGS, platform="interpreter")
    np.testing.assert_array_equal(out, EXPECTED)


def test_call_without_operands():
    callee = Comp("seven", [])
    seven = callee.root(callee.const(7, S32))
    entry = Comp("main", [])
    entry.root(entry.op(Opcode.CALL, _scalar(S32), [], to_apply=seven))
    (out,) = xlapy.run(_module(seven, entry.comp), platform="interpreter")
    assert int(out) == 7


def test_fusion_evaluates_its_fused_computation():
    v = Shape.array(F32, [3])
    fused = _fma_comp("fused_computation")
    entry = Comp("main", [v, v, v])
    entry.root(entry.op(Opcode.FUSION, v, entry.params, kind=A.FusionKind.LOOP, calls=fused))
    (out,) = xlapy.run(_module(fused, entry.comp), *ARGS, platform="interpreter")
    np.testing.assert_array_equal(out, EXPECTED)


def test_call_inside_while_inside_conditional():
    # conditional(true) -> branch runs a while whose body calls a computation: x -> x + 3
    # until x >= 10, starting from 1: 1, 4, 7, 10.
    s = _scalar(S32)
    plus3 = Comp("plus3", [s])
    plus3_comp = plus3.root(plus3.op(Opcode.ADD, s, [plus3.params[0], plus3.const(3, S32)]))
    body = Comp("body", [s])
    body_comp = body.root(body.op(Opcode.CALL, s, body.params, to_apply=plus3_comp))
    cond = Comp("cond", [s])
    lt = A.ComparisonDirection.LT
    cond_comp = cond.root(
        cond.op(Opcode.COMPARE, _scalar(PRED), [cond.params[0], cond.const(10, S32)], direction=lt)
    )
    branch = Comp("loop", [s])
    loop = branch.root(
        branch.op(Opcode.WHILE, s, branch.params, condition=cond_comp, body=body_comp)
    )
    other = _negate_comp("other", S32)
    entry = Comp("main", [_scalar(PRED), s])
    p, x = entry.params
    entry.root(
        entry.op(Opcode.CONDITIONAL, s, [p, x, x], true_computation=loop, false_computation=other)
    )
    m = _module(plus3_comp, body_comp, cond_comp, loop, other, entry.comp)
    assert int(xlapy.run(m, True, np.int32(1), platform="interpreter")[0]) == 10
    assert int(xlapy.run(m, False, np.int32(1), platform="interpreter")[0]) == -1


def test_conditional_without_branch_operands():
    # StableHLO's case: regions take no arguments; index 2 of 2 branches runs the last one.
    s = _scalar(S32)
    b0, b1 = Comp("zero", []), Comp("one", [])
    zero, one = b0.root(b0.const(0, S32)), b1.root(b1.const(1, S32))
    entry = Comp("main", [s])
    entry.root(entry.op(Opcode.CONDITIONAL, s, entry.params, branch_computations=(zero, one)))
    m = _module(zero, one, entry.comp)
    assert [int(xlapy.run(m, np.int32(i), platform="interpreter")[0]) for i in (-1, 0, 1, 2)] == [
        1,
        0,
        1,
        1,
    ]
