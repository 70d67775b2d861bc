"""async-start / async-update / async-done and copy-start / copy-done (OPS.md AsyncStart,
CopyStart): the wrapped computation runs, the in-flight tuple has the shape XLA gives it."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.shape import Shape

F32, S32, U32 = dtypes.F32, dtypes.S32, dtypes.U32
V = Shape.array(F32, [3])
X = np.array([1.0, 2.5, -4.0], np.float32)
Y = np.array([0.5, 0.5, 8.0], np.float32)


def _param(comp: HloComputation, i: int, shape: Shape) -> HloInstruction:
    return comp.add_instruction(
        HloInstruction(Opcode.PARAMETER, shape, attrs={"parameter_number": i})
    )


def _wrapped_add() -> HloComputation:
    comp = HloComputation("wrapped_add")
    x, y = _param(comp, 0, V), _param(comp, 1, V)
    comp.root = comp.add_instruction(HloInstruction(Opcode.ADD, V, [x, y]))
    return comp


IN_FLIGHT = Shape.tuple_of([Shape.tuple_of([V, V]), V, Shape.scalar(S32)])


def _async_module(*, update: bool, done: bool, replicas: int = 1) -> HloModule:
    m = HloModule("m")
    m.config.replica_count = replicas
    wrapped = _wrapped_add() if replicas == 1 else _wrapped_all_reduce(m)
    m.add_computation(wrapped)
    entry = HloComputation("main")
    x, y = _param(entry, 0, V), _param(entry, 1, V)
    start = entry.add_instruction(
        HloInstruction(Opcode.ASYNC_START, IN_FLIGHT, [x, y], {"calls": wrapped})
    )
    if update:
        start = entry.add_instruction(HloInstruction(Opcode.ASYNC_UPDATE, IN_FLIGHT, [start]))
    entry.root = (
        entry.add_instruction(HloInstruction(Opcode.ASYNC_DONE, V, [start])) if done else start
    )
    m.add_computation(entry, entry=True)
    return m


@pytest.mark.parametrize("update", [False, True])
def test_async_done_returns_wrapped_result(update):
    (out,) = xlapy.run(_async_module(update=update, done=True), X, Y, platform="interpreter")
    np.testing.assert_array_equal(out, X + Y)


def test_async_start_in_flight_tuple():
    # ((operands...), result, state...): flattened by run as x, y, result, state.
    x, y, result, state = xlapy.run(
        _async_module(update=False, done=False), X, Y, platform="interpreter"
    )
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(y, Y)
    np.testing.assert_array_equal(result, X + Y)
    assert state.dtype == np.int32
    assert state.shape == ()


def _wrapped_all_reduce(m: HloModule) -> HloComputation:
    add = HloComputation("sum")
    s = Shape.scalar(F32)
    a, b = _param(add, 0, s), _param(add, 1, s)
    add.root = add.add_instruction(HloInstruction(Opcode.ADD, s, [a, b]))
    m.add_computation(add)
    comp = HloComputation("wrapped_all_reduce")
    x, y = _param(comp, 0, V), _param(comp, 1, V)
    both = comp.add_instruction(HloInstruction(Opcode.MULTIPLY, V, [x, y]))
    comp.root = comp.add_instruction(
        HloInstruction(Opcode.ALL_REDUCE, V, [both], {"to_apply": add})
    )
    return comp


def test_async_wrapping_a_collective():
    # Each of 2 replicas starts an all-reduce of x * y; async-done gives the sum on both.
    m = _async_module(update=True, done=True, replicas=2)
    ys = [Y, 2 * Y]
    out = xlapy.run(m, X, ys, platform="interpreter")
    for (value,) in out:
        np.testing.assert_array_equal(value, X * Y + X * (2 * Y))


def test_async_done_needs_the_start_tuple():
    m = HloModule("m")
    entry = HloComputation("main")
    x = _param(entry, 0, V)
    entry.root = entry.add_instruction(HloInstruction(Opcode.ASYNC_DONE, V, [x]))
    m.add_computation(entry, entry=True)
    with pytest.raises(InvalidArgument, match=r"async-done .*: the operand must be the tuple"):
        xlapy.run(m, X, platform="interpreter")


def _copy_module(done: bool) -> HloModule:
    m = HloModule("m")
    entry = HloComputation("main")
    shape = Shape.array(S32, [2, 3])
    x = _param(entry, 0, shape)
    in_flight = Shape.tuple_of([shape, shape, Shape.scalar(U32)])
    start = entry.add_instruction(HloInstruction(Opcode.COPY_START, in_flight, [x]))
    entry.root = (
        entry.add_instruction(HloInstruction(Opcode.COPY_DONE, shape, [start])) if done else start
    )
    m.add_computation(entry, entry=True)
    return m


def test_copy_start_and_done():
    value = np.arange(6, dtype=np.int32).reshape(2, 3)
    (out,) = xlapy.run(_copy_module(done=True), value, platform="interpreter")
    np.testing.assert_array_equal(out, value)
    destination, source, context = xlapy.run(
        _copy_module(done=False), value, platform="interpreter"
    )
    np.testing.assert_array_equal(destination, value)
    np.testing.assert_array_equal(source, value)
    assert context.dtype == np.uint32
