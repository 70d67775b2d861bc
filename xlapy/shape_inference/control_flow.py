"""Shape inference of calls and control flow (call, while, conditional, fusion, custom-call,
async wrappers), token/side-effect ops (after-all, add-dependency, opt-barrier, domain,
infeed, outfeed, send/recv and their -done halves, copy-start/done), random numbers and the
device ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy import dtypes
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import Shape
from xlapy.shape_inference.common import (
    TOKEN_SHAPE,
    U32_SCALAR,
    InferCtx,
    array,
    element_type_in,
    fmt,
    fmt_program,
    infers,
    program_shape,
    scalar,
    token,
)


def check_call_args(
    ctx: InferCtx, comp: HloComputation, args: Sequence[Shape], what: str, label: str | None
) -> Shape:
    """``comp``'s parameters must have the shapes of ``args``; returns its root shape."""
    params, result = program_shape(comp)
    if len(params) != len(args) or not all(
        p.compatible(a) for p, a in zip(params, args, strict=True)
    ):
        raise ctx.error(
            label,
            f"{what} must take ({', '.join(fmt(a) for a in args)}); got {fmt_program(comp)}",
        )
    return result


@infers(Opcode.CALL)
def infer_call(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """call / composite (OPS.md Call, CompositeCall): the arguments match the computation's
    parameters; the result is its root shape."""
    return check_call_args(ctx, attrs.to_apply, operands, "to_apply", None)


@infers(Opcode.FUSION)
def infer_fusion(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """fusion: the fused computation applied to the operands (OPS.md Fusion)."""
    return check_call_args(ctx, attrs.calls, operands, "the fused computation", None)


@infers(Opcode.WHILE)
def infer_while(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#while (C1: condition is T -> pred[]; C2: body is T -> T; C3: the result
    is T). OPS.md While."""
    (init,) = operands
    cond_result = check_call_args(ctx, attrs.condition, [init], "condition", "C1")
    if not cond_result.compatible(Shape.scalar(dtypes.PRED)):
        raise ctx.error(
            "C1",
            f"condition must return pred[]; got {fmt_program(attrs.condition)}",
        )
    body_result = check_call_args(ctx, attrs.body, [init], "body", "C2")
    if not body_result.compatible(init):
        raise ctx.error(
            "C2",
            f"body must return the loop state {fmt(init)}; got {fmt_program(attrs.body)}",
        )
    return init


@infers(Opcode.CONDITIONAL)
def infer_conditional(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Conditional (OPS.md; stablehlo#if / #case): a pred[] selector with true/false
    computations, or an s32[] index with N >= 1 branch computations; branch b takes
    operand b + 1; every branch returns the same shape."""
    if not operands:
        raise ctx.error(None, "needs a predicate or branch index operand")
    selector, *args = operands
    scalar(ctx, selector, "the predicate or branch index")
    if selector.element_type is dtypes.PRED:
        if attrs.true_computation is None or attrs.false_computation is None:
            raise ctx.error(None, "a pred[] predicate needs true_computation and "
                            "false_computation")  # fmt: skip
        branches: list[HloComputation] = [attrs.true_computation, attrs.false_computation]
    elif selector.element_type is dtypes.S32:
        branches = list(attrs.branch_computations)
        if not branches:
            raise ctx.error("C1", "branch_computations must hold at least one computation")
    else:
        raise ctx.error(None, f"the selector must be pred[] or s32[]; got {fmt(selector)}")
    if len(args) != len(branches):
        raise ctx.error(
            None,
            f"needs one operand per branch ({len(branches)}); got {len(args)}",
        )
    results = [
        check_call_args(ctx, comp, [arg], f"branch {b}", None)
        for b, (comp, arg) in enumerate(zip(branches, args, strict=True))
    ]
    for b, r in enumerate(results[1:], 1):
        if not r.compatible(results[0]):
            raise ctx.error(
                "C3",
                f"all branches must return the same shape; got {fmt(results[0])} (branch 0) "
                f"and {fmt(r)} (branch {b})",
            )
    return results[0]


@infers(Opcode.CUSTOM_CALL)
def infer_custom_call(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """custom-call: the target's result shape is declared by the caller (OPS.md CustomCall)."""
    return ctx.need_result("a custom call's result shape")


@infers(Opcode.SHUFFLE)
def infer_shuffle(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """shuffle (newest XLA): no semantics known; the declared result is taken as is."""
    return ctx.need_result("shuffle's result shape")


@infers(Opcode.ASYNC_START)
def infer_async_start(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """async-start: ``((operands...), wrapped result, context...)`` (HLO text §7.7)."""
    comp = attrs.calls
    if comp is None:
        raise ctx.error(None, "async-start needs the wrapped computation (calls=)")
    root = check_call_args(ctx, comp, operands, "the wrapped computation", None)
    head = [Shape.tuple_of(operands), root]
    if ctx.result is None:
        return Shape.tuple_of([*head, Shape.scalar(dtypes.S32)])
    result = ctx.result
    if (
        not result.is_tuple
        or len(result.tuple_shapes) < 2
        or not all(r.compatible(h) for r, h in zip(result.tuple_shapes, head, strict=False))
    ):
        raise ctx.error(
            None,
            f"the result must start with ({fmt(head[0])}, {fmt(head[1])}); got {fmt(result)}",
        )
    return result


def _async_state(ctx: InferCtx, operand: Shape) -> Shape:
    if not operand.is_tuple or len(operand.tuple_shapes) < 2:
        raise ctx.error(None, f"operand must be an async state tuple; got {fmt(operand)}")
    return operand


@infers(Opcode.ASYNC_UPDATE)
def infer_async_update(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    return _async_state(ctx, operands[0])


@infers(Opcode.ASYNC_DONE)
def infer_async_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    return _async_state(ctx, operands[0]).tuple_shapes[1]


@infers(Opcode.COPY_START)
def infer_copy_start(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """copy-start: ``(destination, source, u32[] context)``."""
    (operand,) = operands
    return Shape.tuple_of([operand, operand, U32_SCALAR])


@infers(Opcode.COPY_DONE)
def infer_copy_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    (operand,) = operands
    if not operand.is_tuple or len(operand.tuple_shapes) != 3:
        raise ctx.error(None, f"operand must be a copy-start result; got {fmt(operand)}")
    return operand.tuple_shapes[0]


@infers(Opcode.AFTER_ALL)
def infer_after_all(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#after_all: any number of tokens in, one token out."""
    for i, s in enumerate(operands):
        token(ctx, s, f"input {i}")
    return TOKEN_SHAPE


@infers(Opcode.ADD_DEPENDENCY)
def infer_add_dependency(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """add-dependency(data, token): ``data`` unchanged (OPS.md AddDependency)."""
    data, dep = operands
    token(ctx, dep, "the dependency")
    return data


@infers(Opcode.OPTIMIZATION_BARRIER, Opcode.DOMAIN)
def infer_identity(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """opt-barrier / domain: the operand passes through (stablehlo#optimization_barrier C1-C2)."""
    return operands[0]


@infers(Opcode.INFEED)
def infer_infeed(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """infeed(token) -> (data, token[]); the data shape is declared (OPS.md Infeed). Nested
    tuples are not supported."""
    (tok,) = operands
    token(ctx, tok, "operand", "C2")
    result = ctx.need_result("the infeed data shape")
    if not result.is_tuple or len(result.tuple_shapes) != 2 or not result.tuple_shapes[1].is_token:
        raise ctx.error("C2", f"the result must be (data, token[]); got {fmt(result)}")
    data = result.tuple_shapes[0]
    if data.is_tuple and any(s.is_tuple for s in data.tuple_shapes):
        raise ctx.error(None, f"nested tuples cannot be read from the infeed; got {fmt(data)}")
    return result


@infers(Opcode.OUTFEED)
def infer_outfeed(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """outfeed(data, token) -> token[]; ``outfeed_shape`` (when set) is the data's shape."""
    data, tok = operands
    token(ctx, tok, "the token operand")
    declared = attrs.outfeed_shape
    if declared is not None and not declared.compatible(data):
        raise ctx.error(
            None,
            f"shape_with_layout {fmt(declared)} must be the operand's shape {fmt(data)}",
        )
    return TOKEN_SHAPE


@infers(Opcode.SEND)
def infer_send(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """send(data, token) -> (data, u32[] context, token[]) (OPS.md Send)."""
    data, tok = operands
    token(ctx, tok, "the token operand")
    return Shape.tuple_of([data, U32_SCALAR, TOKEN_SHAPE])


@infers(Opcode.RECV)
def infer_recv(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """recv(token) -> (data, u32[] context, token[]); the data shape is declared."""
    (tok,) = operands
    token(ctx, tok, "operand")
    result = ctx.need_result("the received data shape")
    if (
        not result.is_tuple
        or len(result.tuple_shapes) != 3
        or not result.tuple_shapes[1].compatible(U32_SCALAR)
        or not result.tuple_shapes[2].is_token
    ):
        raise ctx.error(None, f"the result must be (data, u32[], token[]); got {fmt(result)}")
    return result


@infers(Opcode.SEND_DONE)
def infer_send_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    (context,) = operands
    if not context.is_tuple or len(context.tuple_shapes) != 3:
        raise ctx.error(None, f"operand must be a send context; got {fmt(context)}")
    return TOKEN_SHAPE


@infers(Opcode.RECV_DONE)
def infer_recv_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    (context,) = operands
    if not context.is_tuple or len(context.tuple_shapes) != 3:
        raise ctx.error(None, f"operand must be a recv context; got {fmt(context)}")
    return Shape.tuple_of([context.tuple_shapes[0], TOKEN_SHAPE])


@infers(Opcode.REPLICA_ID, Opcode.PARTITION_ID)
def infer_device_id(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """replica-id / partition-id: a u32 scalar."""
    return U32_SCALAR


@infers(Opcode.RNG)
def infer_rng(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#rng (C1: a, b and result of one element type; C2: NORMAL needs a float
    type; C3: the declared shape). a and b are scalars (OPS.md RngUniform/RngNormal)."""
    if len(operands) != 2:
        raise ctx.error(None, f"takes two distribution parameters; got {len(operands)}")
    a, b = operands
    result = ctx.need_result("the output shape")
    element_type_in(ctx, result, "pred|int|float", "the output")
    for shape, what in ((a, "a"), (b, "b")):
        scalar(ctx, shape, what)
        if shape.element_type is not result.element_type:
            raise ctx.error(
                "C1",
                f"{what} must have the output element type {result.element_type}; got {fmt(shape)}",
            )
    if attrs.distribution is A.RandomDistribution.NORMAL and not result.element_type.is_float:
        raise ctx.error(
            "C2", f"a normal distribution needs a floating-point type; got {fmt(result)}"
        )
    return result


_STATE_SIZES = {A.RandomAlgorithm.THREE_FRY: (2,), A.RandomAlgorithm.PHILOX: (2, 3)}


@infers(Opcode.RNG_BIT_GENERATOR)
def infer_rng_bit_generator(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#rng_bit_generator (C1: the new state has the initial state's type;
    C2: state size per algorithm): ``(new_state, output)``; the output shape is declared
    (either the whole tuple or just the output array)."""
    (state,) = operands
    array(ctx, state, "initial_state")
    if state.rank != 1 or not state.element_type.is_integer:
        raise ctx.error(None, f"initial_state must be an integer vector; got {fmt(state)}")
    sizes = _STATE_SIZES.get(attrs.algorithm)
    if sizes is not None and state.element_type is dtypes.U64 and state.dims[0] not in sizes:
        raise ctx.error(
            "C2",
            f"{attrs.algorithm.value} needs a u64 state of size "
            f"{' or '.join(map(str, sizes))}; got {fmt(state)}",
        )
    result = ctx.need_result("the output shape")
    output = result.tuple_shapes[1] if result.is_tuple and len(result.tuple_shapes) == 2 else result
    if result.is_tuple and not result.tuple_shapes[0].compatible(state):
        raise ctx.error("C1", f"the new state must have the type of initial_state "
                        f"{fmt(state)}; got {fmt(result)}")  # fmt: skip
    element_type_in(ctx, output, "int|float", "output")
    return Shape.tuple_of([state, output])


@infers(Opcode.RNG_GET_AND_UPDATE_STATE)
def infer_rng_get_and_update_state(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """rng-get-and-update-state: the module's RNG state, u64[2] unless declared."""
    if ctx.result is not None:
        return ctx.result
    return Shape.array(dtypes.U64, [2])
