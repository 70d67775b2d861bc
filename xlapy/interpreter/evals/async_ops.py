"""Asynchronous wrappers: async-start / async-update / async-done and copy-start / copy-done.

Spec: OPS.md AsyncStart/AsyncUpdate/AsyncDone, Copy/CopyStart/CopyDone. A sequential
interpreter runs the wrapped computation at async-start; the "in flight" value is the tuple
XLA's shape describes, ``((operands...), result, state...)``, and async-done returns its
``result``. The extra state elements (XLA's opaque contexts) are zeros of their shapes. The
async forms of collectives (all-reduce-start, ...) live in ``collectives.py``.
"""

from __future__ import annotations

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import TOKEN, Value, shape_of
from xlapy.shape import Shape


def zeros(shape: Shape) -> Value:
    """A value of ``shape`` filled with zeros (tokens for token shapes)."""
    if shape.is_tuple:
        return tuple(zeros(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return TOKEN
    if not shape.is_array:
        raise InvalidArgument(f"cannot make a value of shape {shape}")
    return np.zeros(shape.dims, dtype=shape.element_type.numpy)


def _in_flight(instr: HloInstruction, value: Value, min_size: int) -> tuple[Value, ...]:
    """The tuple an async ``-start`` produced; raises naming the instruction otherwise."""
    if not isinstance(value, tuple) or len(value) < min_size:
        raise InvalidArgument(
            f"{instr.opcode.value} {instr.name}: the operand must be the tuple of the matching "
            f"start with at least {min_size} elements; got {shape_of(value)}"
        )
    return value


@evaluates(Opcode.ASYNC_START)
def async_start(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Runs the wrapped computation ``calls`` on the operands now and returns
    ``((operands...), result, state...)`` as the instruction's shape lays it out."""
    comp = instr.attrs.calls
    shape = instr.shape
    if comp is None:
        raise InvalidArgument(f"async-start {instr.name}: needs the wrapped computation (calls)")
    if not shape.is_tuple or len(shape.tuple_shapes) < 2:
        raise InvalidArgument(
            f"async-start {instr.name}: the result must be a tuple ((operands...), result, "
            f"state...); got {shape}"
        )
    result = ctx.call(comp, operands)
    state = tuple(zeros(s) for s in shape.tuple_shapes[2:])
    return (tuple(operands), result, *state)


@evaluates(Opcode.ASYNC_UPDATE)
def async_update(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Passes the in-flight tuple of the matching async-start along unchanged."""
    return _in_flight(instr, operands[0], 2)


@evaluates(Opcode.ASYNC_DONE)
def async_done(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The wrapped computation's result (element 1 of the in-flight tuple)."""
    return _in_flight(instr, operands[0], 2)[1]


@evaluates(Opcode.COPY_START)
def copy_start(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``(destination, source, context)``: the copy is already done, so the destination holds
    the operand's value; the context is zeros of its shape (``u32[]`` in XLA)."""
    (operand,) = operands
    shape = instr.shape
    if not shape.is_tuple or len(shape.tuple_shapes) < 2:
        raise InvalidArgument(
            f"copy-start {instr.name}: the result must be a tuple (destination, source, "
            f"context); got {shape}"
        )
    context = tuple(zeros(s) for s in shape.tuple_shapes[2:])
    return (operand, operand, *context)


@evaluates(Opcode.COPY_DONE)
def copy_done(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The copied value (element 0 of the copy-start tuple)."""
    return _in_flight(instr, operands[0], 2)[0]
