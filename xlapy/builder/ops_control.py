"""Builder ops for calls, control flow, side effects and random numbers: Call, CompositeCall,
While, Conditional, CustomCall, AfterAll, Infeed/Outfeed, Send/Recv, ReplicaId, PartitionId,
the Rng ops, OptimizationBarrier and the internal HLO wrappers (AddDependency, Fusion, async
ops, CopyStart/CopyDone, Domain). Re-exported by ``xlapy.builder.ops``."""

# ruff: noqa: N802

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.builder.config import ChannelHandle, RandomAlgorithm, channel_attr
from xlapy.builder.helpers import enum_arg, op_list, pick_builder, split_builder, to_shape, xla_op
from xlapy.builder.ops_elementwise import ConvertElementType, Lt
from xlapy.builder.ops_shape import Constant, GetTupleElement
from xlapy.builder.xla_builder import ComputationLike, XlaBuilder, XlaOp, argument_error
from xlapy.errors import InvalidArgument, XlaError
from xlapy.ir.attrs import (
    CustomCallApiVersion,
    CustomCallSchedule,
    FusionKind,
    OutputOperandAlias,
    RandomDistribution,
    RawAttribute,
)
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal
from xlapy.shape import Shape

_TOKEN = Shape.token()
_U32 = Shape.scalar(dtypes.U32)

# ---- calls and control flow ----------------------------------------------------------


def _call_args(args: Sequence[Any]) -> tuple[XlaBuilder, ComputationLike, list[XlaOp]]:
    builder, rest = split_builder(args)
    if not rest:
        raise InvalidArgument("call: expected a computation and its operands")
    computation, *operands = rest
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = list(operands[0])
    ops_ = op_list(operands, "operands")
    return pick_builder(builder, ops_), computation, ops_


def Call(*args: Any) -> XlaOp:
    """Invokes ``computation`` on ``operands`` (OPS.md Call): ``Call(builder, computation,
    operands)``, ``Call(computation, operands)`` or ``Call(computation, op0, op1, ...)``."""
    b, computation, operands = _call_args(args)
    comp = b.computation(computation, [o.shape for o in operands], "computation")
    return b.add(Opcode.CALL, operands, {"to_apply": comp})


def CompositeCall(
    *args: Any, name: str, attributes: str | None = None, version: int | None = None
) -> XlaOp:
    """A call of a composite operation whose semantics is its decomposition (OPS.md
    CompositeCall): a ``call`` with ``is_composite=true`` and ``composite.*`` frontend
    attributes."""
    b, computation, operands = _call_args(args)
    comp = b.computation(computation, [o.shape for o in operands], "computation")
    frontend = {
        "composite.attributes": attributes if attributes is not None else "{}",
        "composite.name": name,
        "composite.version": str(version if version is not None else 0),
    }
    return b.add(
        Opcode.CALL,
        operands,
        {"to_apply": comp, "is_composite": True},
        frontend_attributes=frontend,
    )


def While(condition: ComputationLike, body: ComputationLike, init: XlaOp) -> XlaOp:
    """Runs ``body`` while ``condition`` holds, starting from ``init`` (OPS.md While)."""
    b = init.builder
    attrs = {
        "condition": b.computation(condition, [init.shape], "condition"),
        "body": b.computation(body, [init.shape], "body"),
    }
    return b.add(Opcode.WHILE, [init], attrs)


def Conditional(*args: Any) -> XlaOp:
    """``Conditional(predicate, true_operand, true_computation, false_operand,
    false_computation)`` or ``Conditional(branch_index, branch_computations,
    branch_operands)``; an out-of-range index runs the last branch (OPS.md Conditional)."""
    if len(args) == 5:
        predicate, true_operand, true_comp, false_operand, false_comp = args
        b: XlaBuilder = xla_op(predicate, "predicate").builder
        xla_op(true_operand, "true_operand")
        xla_op(false_operand, "false_operand")
        attrs = {
            "true_computation": b.computation(true_comp, [true_operand.shape], "true_computation"),
            "false_computation": b.computation(
                false_comp, [false_operand.shape], "false_computation"
            ),
        }
        return b.add(Opcode.CONDITIONAL, [predicate, true_operand, false_operand], attrs)
    if len(args) != 3:
        raise InvalidArgument(
            "conditional: expected (predicate, true_operand, true_computation, false_operand, "
            "false_computation) or (branch_index, branch_computations, branch_operands)"
        )
    branch_index, computations, operands = args
    b = xla_op(branch_index, "branch_index").builder
    if not isinstance(computations, list | tuple):
        raise argument_error(
            "branch_computations", f"must be a list of computations; got {computations!r:.40}"
        )
    branch_ops = op_list(operands, "branch_operands")
    if len(computations) != len(branch_ops):
        raise InvalidArgument(
            f"conditional: needs one operand per branch computation; got {len(computations)} "
            f"computations and {len(branch_ops)} operands"
        )
    comps = tuple(
        b.computation(c, [o.shape], f"branch_computations[{i}]")
        for i, (c, o) in enumerate(zip(computations, branch_ops, strict=True))
    )
    return b.add(Opcode.CONDITIONAL, [branch_index, *branch_ops],
                 {"branch_computations": comps})  # fmt: skip


def CustomCall(
    *args: Any,
    opaque: str = "",
    has_side_effect: bool = False,
    output_operand_aliasing: Sequence[OutputOperandAlias] = (),
    literal: Literal | None = None,
    schedule: CustomCallSchedule = CustomCallSchedule.NONE,
    api_version: CustomCallApiVersion = CustomCallApiVersion.ORIGINAL,
    called_computations: Sequence[ComputationLike] = (),
) -> XlaOp:
    """Calls the user function ``call_target_name`` (OPS.md CustomCall):
    ``CustomCall(builder, call_target_name, operands, shape)`` or
    ``CustomCall(call_target_name, operands, shape)``. ``opaque`` becomes backend_config."""
    builder, rest = split_builder(args)
    if len(rest) != 3:
        raise InvalidArgument("custom-call: expected (call_target_name, operands, shape)")
    target, operands, shape = rest
    if not isinstance(target, str) or not target:
        raise argument_error("call_target_name", f"must be a non-empty str; got {target!r:.60}")
    ops_ = op_list(operands, "operands")
    b = pick_builder(builder, ops_)
    attrs: dict[str, Any] = {
        "custom_call_target": str(target),
        "custom_call_has_side_effect": bool(has_side_effect) or None,
        "output_to_operand_aliasing": tuple(output_operand_aliasing) or None,
        "literal": literal,
        "schedule": schedule if schedule is not CustomCallSchedule.NONE else None,
        "api_version": api_version if api_version is not CustomCallApiVersion.ORIGINAL else None,
        "called_computations": tuple(b.computation(c) for c in called_computations) or None,
    }
    return b.add(Opcode.CUSTOM_CALL, ops_, attrs, to_shape(shape), backend_config=opaque)


def OptimizationBarrier(operand: XlaOp) -> XlaOp:
    """Identity that blocks optimizations from moving work across it (OPS.md)."""
    return operand.builder.add(Opcode.OPTIMIZATION_BARRIER, [operand])


# ---- tokens and side effects ---------------------------------------------------------


def AfterAll(*args: Any) -> XlaOp:
    """One token ordered after all ``tokens`` (OPS.md AfterAll): ``AfterAll(builder,
    tokens)`` or ``AfterAll(tokens)``."""
    builder, rest = split_builder(args)
    tokens = op_list(rest[0] if len(rest) == 1 else rest, "tokens") if rest else []
    return pick_builder(builder, tokens).add(Opcode.AFTER_ALL, tokens)


def CreateToken(builder: XlaBuilder) -> XlaOp:
    return builder.add(Opcode.AFTER_ALL, [])


def InfeedWithToken(token: XlaOp, shape: Shape | str, config: str = "") -> XlaOp:
    """The infeed's ``(data, token)`` tuple."""
    data = to_shape(shape)
    return token.builder.add(
        Opcode.INFEED, [token], {"infeed_config": config or None}, Shape.tuple_of([data, _TOKEN])
    )


def Infeed(builder: XlaBuilder, shape: Shape | str, config: str = "") -> XlaOp:
    """Reads one item of ``shape`` from the device infeed (OPS.md Infeed)."""
    return GetTupleElement(InfeedWithToken(CreateToken(builder), shape, config), 0)


def OutfeedWithToken(
    operand: XlaOp, token: XlaOp, shape_with_layout: Shape | str | None = None,
    outfeed_config: str = "",
) -> XlaOp:  # fmt: skip
    """Writes ``operand`` to the outfeed after ``token``; returns the new token."""
    declared = to_shape(shape_with_layout) if shape_with_layout is not None else operand.shape
    attrs = {"outfeed_shape": declared, "outfeed_config": outfeed_config or None}
    return operand.builder.add(Opcode.OUTFEED, [operand, token], attrs)


def Outfeed(
    operand: XlaOp, shape_with_layout: Shape | str | None = None, outfeed_config: str = ""
) -> XlaOp:
    """Writes ``operand`` to the outfeed (OPS.md Outfeed); returns the outfeed's token."""
    return OutfeedWithToken(
        operand, CreateToken(operand.builder), shape_with_layout, outfeed_config
    )


def _send(operand: XlaOp, token: XlaOp, handle: ChannelHandle | int, host: bool) -> XlaOp:
    channel = channel_attr(handle)
    attrs = {"channel_id": channel, "is_host_transfer": host or None}
    send = operand.builder.add(Opcode.SEND, [operand, token], attrs)
    return operand.builder.add(Opcode.SEND_DONE, [send], attrs)


def _recv(token: XlaOp, shape: Shape | str, handle: ChannelHandle | int, host: bool) -> XlaOp:
    channel = channel_attr(handle)
    attrs = {"channel_id": channel, "is_host_transfer": host or None}
    result = Shape.tuple_of([to_shape(shape), _U32, _TOKEN])
    recv = token.builder.add(Opcode.RECV, [token], attrs, result)
    return token.builder.add(Opcode.RECV_DONE, [recv], attrs)


def Send(operand: XlaOp, handle: ChannelHandle | int) -> XlaOp:
    """Sends ``operand`` to the Recv with the same channel (OPS.md Send); returns the
    send-done token."""
    return _send(operand, CreateToken(operand.builder), handle, False)


def SendWithToken(operand: XlaOp, token: XlaOp, handle: ChannelHandle | int) -> XlaOp:
    return _send(operand, token, handle, False)


def SendToHost(
    operand: XlaOp, token: XlaOp, shape_with_layout: Shape | str, handle: ChannelHandle | int
) -> XlaOp:
    return _send(operand, token, handle, True)


def Recv(builder: XlaBuilder, shape: Shape | str, handle: ChannelHandle | int) -> XlaOp:
    """Receives data of ``shape`` from the Send with the same channel (OPS.md Recv)."""
    return GetTupleElement(_recv(CreateToken(builder), shape, handle, False), 0)


def RecvWithToken(token: XlaOp, shape: Shape | str, handle: ChannelHandle | int) -> XlaOp:
    """The recv-done ``(data, token)`` tuple."""
    return _recv(token, shape, handle, False)


def RecvFromHost(token: XlaOp, shape: Shape | str, handle: ChannelHandle | int) -> XlaOp:
    return _recv(token, shape, handle, True)


SendWithTokens = SendWithToken
RecvWithTokens = RecvWithToken


def ReplicaId(builder: XlaBuilder) -> XlaOp:
    """The replica's id as a u32 scalar (OPS.md ReplicaId)."""
    return builder.add(Opcode.REPLICA_ID, [])


def PartitionId(builder: XlaBuilder, shape: Shape | str | None = None) -> XlaOp:
    """The partition's id as a u32 scalar (OPS.md PartitionId)."""
    if shape is not None and not to_shape(shape).compatible(_U32):
        raise InvalidArgument(f"partition-id: the shape must be u32[]; got {shape}")
    return builder.add(Opcode.PARTITION_ID, [])


# ---- random numbers ------------------------------------------------------------------


def RngUniform(a: XlaOp, b: XlaOp, shape: Shape | str) -> XlaOp:
    """Uniform random numbers in [a, b) of ``shape`` (OPS.md RngUniform)."""
    return a.builder.add(
        Opcode.RNG, [a, b], {"distribution": RandomDistribution.UNIFORM}, to_shape(shape)
    )


def RngNormal(mu: XlaOp, sigma: XlaOp, shape: Shape | str) -> XlaOp:
    """Normally distributed random numbers N(mu, sigma) of ``shape`` (OPS.md RngNormal)."""
    return mu.builder.add(
        Opcode.RNG, [mu, sigma], {"distribution": RandomDistribution.NORMAL}, to_shape(shape)
    )


def RngBernoulli(mean: XlaOp, shape: Shape | str) -> XlaOp:
    """u32 ones with probability ``mean`` (f32 scalar), zeros otherwise (OPS.md RngBernoulli,
    seed 001): ``uniform[0, 1) < mean`` converted to u32."""
    target = to_shape(shape)
    if target.element_type is not dtypes.U32 or mean.dtype is not dtypes.F32 or mean.ndim:
        raise InvalidArgument(
            f"rng-bernoulli: needs an f32 scalar mean and a u32 shape; got "
            f"{mean.shape.to_hlo(layout=False)} and {target.to_hlo(layout=False)}"
        )
    b = mean.builder
    zero = Constant(b, np.float32(0))
    one = Constant(b, np.float32(1))
    uniform = RngUniform(zero, one, target.with_element_type(dtypes.F32))
    return ConvertElementType(Lt(uniform, mean), dtypes.U32)


def RngBitGenerator(
    algorithm: RandomAlgorithm | str, initial_state: XlaOp, shape: Shape | str
) -> XlaOp:
    """``(new_state, random bits of shape)`` from an explicit PRNG state (OPS.md
    RngBitGenerator)."""
    algo = enum_arg(RandomAlgorithm, algorithm, "algorithm", upper=False)
    result = Shape.tuple_of([initial_state.shape, to_shape(shape)])
    return initial_state.builder.add(
        Opcode.RNG_BIT_GENERATOR, [initial_state], {"algorithm": algo}, result
    )


def RngGetAndUpdateState(builder: XlaBuilder, delta: int) -> XlaOp:
    """Internal HLO: the module RNG state, advanced by ``delta``."""
    return builder.add(Opcode.RNG_GET_AND_UPDATE_STATE, [], {"delta": int(delta)})


# ---- internal HLO wrappers -----------------------------------------------------------


def AddDependency(operand: XlaOp, token: XlaOp) -> XlaOp:
    """Internal HLO: ``operand`` with an ordering edge on ``token``."""
    return operand.builder.add(Opcode.ADD_DEPENDENCY, [operand, token])


def Domain(operand: XlaOp, domain: str) -> XlaOp:
    """Internal HLO domain marker; ``domain`` is the attribute text
    (``{kind="sharding", entry={...}, exit={...}}``), which must read back as HLO text."""
    from xlapy.text.hlo_attr_text import parse_raw
    from xlapy.text.hlo_lexer import Cursor, Tok

    text = str(domain)
    try:
        cursor = Cursor(text)
        parse_raw(cursor)
        whole = cursor.peek().kind is Tok.EOF
    except XlaError:
        whole = False
    if not whole:
        raise argument_error(
            "domain", f'must be HLO attribute text like {{kind="sharding", ...}}; got {text!r:.60}'
        )
    return operand.builder.add(Opcode.DOMAIN, [operand], {"domain": RawAttribute(text)})


def Fusion(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    computation: ComputationLike,
    kind: FusionKind | str = FusionKind.LOOP,
) -> XlaOp:
    """Internal HLO: ``computation`` fused into one instruction."""
    ops_ = op_list(operands, "operands")
    comp = builder.computation(computation, [o.shape for o in ops_], "fused computation")
    fusion_kind = enum_arg(FusionKind, kind, "kind", upper=False)
    return builder.add(Opcode.FUSION, ops_, {"kind": fusion_kind, "calls": comp})


def AsyncStart(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    computation: ComputationLike,
    execution_thread: str = "main",
) -> XlaOp:
    """Internal HLO: starts ``computation`` asynchronously; ``((operands), result, s32[])``."""
    ops_ = op_list(operands, "operands")
    comp = builder.computation(computation, [o.shape for o in ops_], "async computation")
    comp.execution_thread = execution_thread
    attrs = {"calls": comp, "async_execution_thread": execution_thread}
    return builder.add(Opcode.ASYNC_START, ops_, attrs)


def _async_attrs(start: XlaOp) -> Mapping[str, Any]:
    instr = start.instruction
    if instr.opcode not in (Opcode.ASYNC_START, Opcode.ASYNC_UPDATE):
        raise argument_error(
            "operand",
            f"must be the result of AsyncStart or AsyncUpdate; got {start.name} "
            f"({instr.opcode.value})",
        )
    attrs = instr.attrs
    return {"calls": attrs.calls, "async_execution_thread": attrs.async_execution_thread}


def AsyncUpdate(operand: XlaOp) -> XlaOp:
    return operand.builder.add(Opcode.ASYNC_UPDATE, [operand], _async_attrs(operand))


def AsyncDone(operand: XlaOp) -> XlaOp:
    return operand.builder.add(Opcode.ASYNC_DONE, [operand], _async_attrs(operand))


def CopyStart(operand: XlaOp) -> XlaOp:
    """Internal HLO: ``(destination, source, u32[])`` of an asynchronous copy."""
    return operand.builder.add(Opcode.COPY_START, [operand])


def CopyDone(operand: XlaOp) -> XlaOp:
    return operand.builder.add(Opcode.COPY_DONE, [operand])


def _start_attrs(context: XlaOp, start: Opcode) -> Any:
    """The attributes of ``context``'s instruction, which must be a ``start`` (send/recv)."""
    instr = context.instruction
    if instr.opcode is not start:
        raise argument_error(
            "context",
            f"must be the result of a {start.value} instruction; got {context.name} "
            f"({instr.opcode.value})",
        )
    return instr.attrs


def SendDone(context: XlaOp) -> XlaOp:
    """Internal HLO: waits for a send (its context from the send instruction)."""
    attrs = _start_attrs(context, Opcode.SEND)
    return context.builder.add(
        Opcode.SEND_DONE, [context],
        {"channel_id": attrs.channel_id, "is_host_transfer": attrs.is_host_transfer or None},
    )  # fmt: skip


def RecvDone(context: XlaOp) -> XlaOp:
    """Internal HLO: waits for a recv and yields ``(data, token)``."""
    attrs = _start_attrs(context, Opcode.RECV)
    return context.builder.add(
        Opcode.RECV_DONE, [context],
        {"channel_id": attrs.channel_id, "is_host_transfer": attrs.is_host_transfer or None},
    )  # fmt: skip
