"""Liveness, aliasing and donation of plans: the analysis on small programs (kernels described
by hand), then running programs with a spy kernel that overwrites what it is given."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import xlapy
from tests.backend.cpu.platform_util import only_generic_while
from xlapy.backend.cpu import kernel as kernel_module
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, RunContext
from xlapy.backend.cpu.liveness import Liveness, NodeInfo, Origin, analyze
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value
from xlapy.passes.pass_manager import Pipeline
from xlapy.text.hlo_parser import parse_hlo

VIEWS = {Opcode.RESHAPE: (0,), Opcode.BITCAST: (0,)}


def analyzed(text: str, fallbacks: tuple[str, ...] = ()) -> tuple[Liveness, list[str]]:
    """The analysis of the entry of ``text``: reshapes/bitcasts are views of their operand,
    instructions named in ``fallbacks`` interpreter evals, the others fresh kernels."""
    comp = parse_hlo(text).entry
    order = comp.post_order()
    nodes = []
    for instr in order:
        if instr.opcode is Opcode.PARAMETER:
            nodes.append(NodeInfo(instr, (), Origin.PARAMETER, template=True))
        elif instr.opcode is Opcode.CONSTANT:
            nodes.append(NodeInfo(instr, (), Origin.CONSTANT, template=True))
        elif instr.name in fallbacks:
            nodes.append(NodeInfo(instr, None, Origin.FOREIGN, template=False))
        else:
            views = VIEWS.get(instr.opcode, ())
            nodes.append(NodeInfo(instr, views, Origin.FRESH, template=False))
    root = next(i for i, instr in enumerate(order) if instr is comp.root)
    return analyze(nodes, root), [instr.name for instr in order]


def donations(live: Liveness, names: list[str]) -> dict[str, set[int]]:
    """Static donatable positions by instruction name (only non-empty ones)."""
    return {names[i]: set(d) for i, d in enumerate(live.donatable) if d}


def conditional(live: Liveness, names: list[str]) -> dict[str, tuple]:
    return {names[i]: c for i, c in enumerate(live.conditional) if c}


def test_values_are_dropped_after_their_last_use() -> None:
    live, names = analyzed("""HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] negate(a)
  unused = f32[4] sine(x)
  ROOT c = f32[4] add(b, x)
}
""")
    dead = {names[i]: {names[d] for d in ds} for i, ds in enumerate(live.dead_after) if ds}
    assert dead == {"b": {"a"}, "unused": {"unused"}, "c": {"b", "x"}}


def test_a_dying_fresh_operand_is_donatable_a_parameter_only_when_owned() -> None:
    live, names = analyzed("""HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  ROOT b = f32[4] negate(a)
}
""")
    assert donations(live, names) == {"b": {0}}
    assert conditional(live, names) == {"a": ((0, (0,)),)}, "x only when the caller owns it"


def test_no_donation_of_a_value_used_later_or_twice() -> None:
    live, names = analyzed("""HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] negate(a)
  c = f32[4] multiply(a, a)
  ROOT d = f32[4] add(b, c)
}
""")
    assert donations(live, names) == {"d": {0, 1}}


def test_a_view_keeps_its_base_alive() -> None:
    live, names = analyzed("""HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  r = f32[2,2] reshape(a)
  b = f32[4] negate(a)
  ROOT c = f32[2,2] sine(r)
}
""")
    assert "b" not in donations(live, names), "r still reads a's memory"
    assert donations(live, names) == {"c": {0}}, "the view dies last: a's memory is free then"


def test_tuple_leaves_are_tracked_one_by_one() -> None:
    live, names = analyzed("""HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] sine(x)
  t = (f32[4], f32[4]) tuple(a, b)
  g0 = f32[4] get-tuple-element(t), index=0
  n = f32[4] negate(g0)
  g1 = f32[4] get-tuple-element(t), index=1
  ROOT s = f32[4] add(n, g1)
}
""")
    assert donations(live, names) == {"n": {0}, "s": {0, 1}}, "t later reads leaf 1 only"


def test_a_tuple_root_keeps_its_leaves() -> None:
    live, names = analyzed("""HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] negate(a)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
""")
    assert donations(live, names) == {}
    assert [leaf.possible for leaf in live.result] == [True, True]


def test_constants_and_fallback_results_are_never_donated() -> None:
    live, names = analyzed(
        """HloModule m
ENTRY main {
  c = f32[4] constant({1, 2, 3, 4})
  a = f32[4] negate(c)
  f = f32[4] sine(a)
  ROOT g = f32[4] negate(f)
}
""",
        fallbacks=("f",),
    )
    # A fallback's result may be a view of its operands, so f and a are one alias class,
    # which holds a buffer the plan does not own: neither is ever overwritten.
    assert donations(live, names) == {}
    assert live.result_constant == (False,)


def test_result_ownership_and_constant_leaves() -> None:
    live, _ = analyzed("""HloModule m
ENTRY main {
  p = (f32[4], f32[4]) parameter(0)
  x = f32[4] get-tuple-element(p), index=0
  y = f32[4] get-tuple-element(p), index=1
  a = f32[4] exponential(y)
  c = f32[4] constant({1, 2, 3, 4})
  ROOT t = (f32[4], f32[4], f32[4], f32[4]) tuple(x, a, c, a)
}
""")
    ownership = [(leaf.possible, leaf.needs) for leaf in live.result]
    assert ownership == [(True, (0,)), (False, ()), (False, ()), (False, ())], (
        "x is owned when parameter leaf 0 is; a appears twice; c is a constant"
    )
    assert live.result_constant == (False, False, True, False)
    assert live.parameter_leaves == (2,)


# ---- running: a spy kernel for negate that overwrites donated operands --------------------


@pytest.fixture
def spy() -> Iterator[list[tuple[str, frozenset[int]]]]:
    """Registers (for the test only) a negate kernel that records the donatable positions it
    is given and negates in place when it may."""
    seen: list[tuple[str, frozenset[int]]] = []

    def factory(instr: HloInstruction, options: CompileOptions) -> Kernel:
        def run(operands: list[Value], ctx: RunContext) -> Value:
            (x,) = operands
            seen.append((instr.name, ctx.donatable))
            if 0 in ctx.donatable:
                assert isinstance(x, np.ndarray)
                np.negative(x, out=x)
                return x
            return np.negative(x)

        return Kernel(run=run, how="spy negate", views=())

    kernel_module.kernel_for(Opcode.NEGATE, priority=10**6)(factory)
    try:
        yield seen
    finally:
        entries = kernel_module.KERNELS[Opcode.NEGATE]
        entries[:] = [e for e in entries if e.factory is not factory]


@pytest.fixture
def generic_while() -> Iterator[None]:
    with only_generic_while():
        yield


def compiled(text: str) -> xlapy.Executable:
    """``text`` compiled without passes, so each instruction keeps its own kernel."""
    return xlapy.compile(parse_hlo(text), pipeline=Pipeline([]))


def test_user_arguments_are_never_overwritten(spy: list) -> None:
    exe = compiled("""HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  ROOT n = f32[3] negate(x)
}
""")
    x = np.array([1, 2, 3], np.float32)
    got = exe(x)
    np.testing.assert_array_equal(got[0], -x)
    np.testing.assert_array_equal(x, [1, 2, 3])
    assert spy == [("n", frozenset())]


@pytest.mark.usefixtures("generic_while")
def test_a_loop_state_is_overwritten_from_the_second_iteration(spy: list) -> None:
    exe = compiled("""HloModule m
cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[3] get-tuple-element(p), index=1
  y = f32[3] negate(x)
  ROOT t = (s32[], f32[3]) tuple(j, y)
}
ENTRY main {
  x = f32[3] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[3]) tuple(z, x)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
}
""")
    x = np.array([1, 2, 3], np.float32)
    got = exe(x)
    np.testing.assert_array_equal(got[0], -x)
    np.testing.assert_array_equal(x, [1, 2, 3])
    assert [d for _, d in spy] == [frozenset(), frozenset({0}), frozenset({0})], (
        "the first iteration reads the user's array; later ones own the state"
    )
