"""Side effects: infeed/outfeed (host queues of the runtime) and send/recv (channels between
devices, or the host for ``is_host_transfer``), with their ``-done`` forms.

HLO shapes: infeed -> (data, token); outfeed -> token; send -> (data, u32[] context, token),
send-done -> token; recv -> (data, u32[] context, token), recv-done -> (data, token).
Data is transferred when the send executes and when the recv executes (recv blocks until the
matching send has run, or fails after the runtime's timeout).
"""

from __future__ import annotations

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import TOKEN, Value, shape_of
from xlapy.shape import Shape


def _what(instr: HloInstruction) -> str:
    return f"{instr.opcode.value} {instr.name}"


def _check(instr: HloInstruction, value: Value, shape: Shape, source: str) -> Value:
    if not isinstance(value, tuple) and shape.is_tuple and len(shape.tuple_shapes) == 1:
        value = (value,)
    if not shape_of(value).compatible(shape):
        raise InvalidArgument(
            f"{_what(instr)}: {source} holds a value of shape {shape_of(value)}; "
            f"the op expects {shape}"
        )
    return value


def _channel(instr: HloInstruction) -> int:
    channel = instr.attrs.channel_id
    return 0 if channel is None else int(channel)


@evaluates(Opcode.INFEED)
def infeed(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Pops the next value of the host infeed queue: result (data, token)."""
    data_shape = instr.shape.tuple_shapes[0]
    value = ctx.device.runtime.pop_infeed(_what(instr))
    return (_check(instr, value, data_shape, "the infeed queue"), TOKEN)


@evaluates(Opcode.OUTFEED)
def outfeed(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Appends the data operand to the host outfeed queue; returns a token."""
    ctx.device.runtime.push_outfeed(operands[0])
    return TOKEN


@evaluates(Opcode.SEND)
def send(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Puts the data on channel ``channel_id``; result (data, u32[] context, token)."""
    data = operands[0]
    ctx.device.runtime.send(_channel(instr), data)
    return (data, np.array(0, np.uint32), TOKEN)


@evaluates(Opcode.SEND_DONE)
def send_done(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Completes a send: a token."""
    return TOKEN


@evaluates(Opcode.RECV)
def recv(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Takes the next value sent on channel ``channel_id``; result (data, u32[] context, token)."""
    data_shape = instr.shape.tuple_shapes[0]
    value = ctx.device.runtime.recv(_channel(instr), _what(instr))
    return (
        _check(instr, value, data_shape, f"channel {_channel(instr)}"),
        np.array(0, np.uint32),
        TOKEN,
    )


@evaluates(Opcode.RECV_DONE)
def recv_done(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Completes a recv: (data, token)."""
    started = operands[0]
    assert isinstance(started, tuple)
    return (started[0], TOKEN)
