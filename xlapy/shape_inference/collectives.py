"""Shape inference of cross-device ops: all-reduce, all-gather, reduce-scatter, all-to-all,
ragged-all-to-all, collective-broadcast, collective-permute and their async halves.

Group sizes come from ``replica_groups``; with empty groups (all devices in one group) the
number of devices is unknown here, so the declared result gives it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import Shape
from xlapy.shape_inference.common import (
    U32_SCALAR,
    InferCtx,
    array,
    collate,
    dim_in_range,
    element_type_in,
    fmt,
    fmt_ints,
    fmt_program,
    infers,
    leaves,
    program_shape,
    same_element_type,
)


def group_size(ctx: InferCtx, attrs: Attrs, labels: tuple[str, str] = ("C1", "C3")) -> int | None:
    """The common size of the replica groups (None when empty = all devices). Checks that ids
    are unique (``labels[0]``), form 0..n-1 (``labels[1]``) and groups have equal sizes."""
    groups_attr: A.ReplicaGroups = attrs.replica_groups
    try:
        groups = groups_attr.groups()
    except InvalidArgument:
        return None  # mesh-axes form: not expandable here
    if not groups:
        return None
    ids = [i for g in groups for i in g]
    if len(set(ids)) != len(ids):
        raise ctx.error(labels[0], f"replica_groups must not repeat an id; got {groups_attr}")
    if ctx.opcode is Opcode.COLLECTIVE_BROADCAST:
        # stablehlo#collective_broadcast C2 only bounds the ids by the (unknown) device count;
        # devices outside every group receive zeros.
        return None
    if sorted(ids) != list(range(len(ids))):
        raise ctx.error(
            labels[1],
            f"the ids of replica_groups must be 0..{len(ids) - 1}; got {groups_attr}",
        )
    if (getattr(attrs, "channel_id", None) or 0) > 0 and not getattr(
        attrs, "use_global_device_ids", False
    ):
        # cross_replica_and_partition: each group spans every partition too, so its size is a
        # multiple of len(group) that depends on num_partitions (the declared result decides).
        return None
    sizes = {len(g) for g in groups}
    if len(sizes) != 1:
        if ctx.opcode in (Opcode.ALL_REDUCE, Opcode.ALL_REDUCE_START, Opcode.COLLECTIVE_BROADCAST):
            return None
        raise ctx.error(None, f"all replica groups must have the same size; got {groups_attr}")
    return sizes.pop()


def _global_ids(ctx: InferCtx, attrs: Attrs, label: str) -> None:
    if attrs.use_global_device_ids and not (attrs.channel_id and attrs.channel_id > 0):
        raise ctx.error(label, "use_global_device_ids needs a positive channel_id")


def _check_reducer(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs, label: str) -> None:
    """``to_apply`` is ``(E, E) -> E`` on scalars for the operands' element type E."""
    comp = attrs.to_apply
    params, root = program_shape(comp)
    for i, s in enumerate(operands):
        e = Shape.scalar(s.element_type)
        if len(params) != 2 or not all(p.compatible(e) for p in params) or not root.compatible(e):
            raise ctx.error(
                label,
                f"computation must have type ({fmt(e)}, {fmt(e)}) -> {fmt(e)} for operand {i} "
                f"{fmt(s)}; got {fmt_program(comp)}",
            )


def _arrays(ctx: InferCtx, operands: Sequence[Shape]) -> list[Shape]:
    if not operands:
        raise ctx.error(None, "needs at least one operand")
    return [array(ctx, s, f"operand {i}") for i, s in enumerate(operands)]


@infers(Opcode.ALL_REDUCE, Opcode.ALL_REDUCE_START, Opcode.COLLECTIVE_REDUCE)
def infer_all_reduce(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#all_reduce (C1/C3: replica ids; C4: global ids need a channel; C5:
    computation (E, E) -> E; C6: result has the operand type). Several operands give a tuple."""
    shapes = _arrays(ctx, operands)
    group_size(ctx, attrs)
    _global_ids(ctx, attrs, "C4")
    _check_reducer(ctx, shapes, attrs, "C5")
    return collate(shapes)


@infers(Opcode.ALL_REDUCE_DONE)
def infer_all_reduce_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    return operands[0]


def _scaled_dim(
    ctx: InferCtx, shapes: Sequence[Shape], dim: int, count: int | None, multiply: bool,
    label: str,
) -> Shape:  # fmt: skip
    """The operands with dimension ``dim`` multiplied (gather) or divided (scatter) by
    ``count``; with an unknown count, the declared result decides."""
    results = []
    declared = leaves(ctx.result) if ctx.result is not None else None
    for i, s in enumerate(shapes):
        dim_in_range(ctx, dim, s.rank, "the dimension", label, s)
        n = count
        if n is None:
            if declared is None or i >= len(declared) or declared[i].rank != s.rank:
                raise ctx.error(
                    None,
                    "the group size is not known from replica_groups alone (empty groups, or "
                    "channel_id without use_global_device_ids); give the result shape",
                )
            got, have = declared[i].dims[dim], s.dims[dim]
            n = (got // have if have else 0) if multiply else (have // got if got else 0)
        if not multiply and (n == 0 or s.dims[dim] % n):
            raise ctx.error(
                label,
                f"dimension {dim} of {fmt(s)} must be a multiple of the group size {n}",
            )
        out = list(s.dims)
        out[dim] = s.dims[dim] * n if multiply else s.dims[dim] // n
        results.append(Shape.array(s.element_type, out))
    return collate(results)


def _one_dim(ctx: InferCtx, attrs: Attrs) -> int:
    dims = tuple(attrs.dimensions)
    if len(dims) != 1:
        raise ctx.error(None, f"dimensions must hold exactly one dimension; got {fmt_ints(dims)}")
    return int(dims[0])


@infers(Opcode.ALL_GATHER)
def infer_all_gather(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#all_gather (C1: dimension in range; C2/C4: replica ids; C5: global ids
    need a channel; C6: dimension multiplied by the group size). OPS.md AllGather."""
    shapes = _arrays(ctx, operands)
    count = group_size(ctx, attrs, ("C2", "C4"))
    _global_ids(ctx, attrs, "C5")
    return _scaled_dim(ctx, shapes, _one_dim(ctx, attrs), count, True, "C1")


@infers(Opcode.ALL_GATHER_START)
def infer_all_gather_start(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """all-gather-start: ``(operands..., results...)`` as a tuple."""
    shapes = _arrays(ctx, operands)
    count = group_size(ctx, attrs, ("C2", "C4"))
    dim = _one_dim(ctx, attrs)
    if ctx.result is not None and ctx.result.is_tuple:
        declared = ctx.result.tuple_shapes[len(shapes) :]
        inner = InferCtx(ctx.opcode, ctx.name, collate(list(declared)) if declared else None)
        gathered = _scaled_dim(inner, shapes, dim, count, True, "C1")
    else:
        gathered = _scaled_dim(ctx, shapes, dim, count, True, "C1")
    return Shape.tuple_of([*shapes, *leaves(gathered)])


@infers(Opcode.ALL_GATHER_DONE)
def infer_all_gather_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    (start,) = operands
    if not start.is_tuple or len(start.tuple_shapes) % 2:
        raise ctx.error(None, f"operand must be an all-gather-start result; got {fmt(start)}")
    half = len(start.tuple_shapes) // 2
    return collate(list(start.tuple_shapes[half:]))


@infers(Opcode.REDUCE_SCATTER)
def infer_reduce_scatter(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#reduce_scatter (C1: dimension divisible by the group size; C2: in range;
    C3/C5: replica ids; C6: global ids need a channel; C7: computation (E, E) -> E; C8: the
    dimension divided by the group size). OPS.md ReduceScatter."""
    shapes = _arrays(ctx, operands)
    count = group_size(ctx, attrs, ("C3", "C5"))
    _global_ids(ctx, attrs, "C6")
    _check_reducer(ctx, shapes, attrs, "C7")
    return _scaled_dim(ctx, shapes, _one_dim(ctx, attrs), count, False, "C1")


@infers(Opcode.ALL_TO_ALL)
def infer_all_to_all(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """all-to-all (OPS.md AllToAll; stablehlo#all_to_all): the array form (``dimensions={d}``)
    keeps each operand's shape, d divisible by the group size (C2), several operands giving a
    tuple; the tuple form exchanges N operands of one shape with N participants."""
    shapes = _arrays(ctx, operands)
    count = group_size(ctx, attrs, ("C5", "C7"))
    dims = tuple(attrs.dimensions)
    if dims:
        if len(dims) != 1:
            raise ctx.error(
                None, f"the array form takes one split dimension; got dimensions={fmt_ints(dims)}"
            )
        for s in shapes:
            dim_in_range(ctx, dims[0], s.rank, "split_dimension", "C1", s)
            if count is not None and s.dims[dims[0]] % count:
                raise ctx.error(
                    "C2",
                    f"dimension {dims[0]} of {fmt(s)} must be a multiple of the group size {count}",
                )
        return collate(shapes)
    if count is not None and len(shapes) != count:
        raise ctx.error(
            None, f"the tuple form needs one operand per participant ({count}); got {len(shapes)}"
        )
    for i, s in enumerate(shapes[1:], 1):
        if not s.compatible(shapes[0]):
            raise ctx.error(None, f"all operands must have the same shape; got "
                            f"{fmt(shapes[0])} (operand 0) and {fmt(s)} (operand {i})")  # fmt: skip
    return Shape.tuple_of(shapes)


@infers(Opcode.RAGGED_ALL_TO_ALL)
def infer_ragged_all_to_all(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """ragged-all-to-all(input, input_offsets, send_sizes, output, output_offsets, recv_sizes)
    (OPS.md RaggedAllToAll): the result has the output's shape; offsets and sizes are integer
    tensors of one shape, rank 1 or 2."""
    data_in, in_off, send, data_out, out_off, recv = operands
    array(ctx, data_in, "input")
    array(ctx, data_out, "output")
    same_element_type(ctx, [(data_in, "input"), (data_out, "output")])
    if data_in.rank != data_out.rank or data_in.rank < 1 or data_in.dims[1:] != data_out.dims[1:]:
        raise ctx.error(
            None,
            "input and output must have the same dimensions except the outermost; got "
            f"{fmt(data_in)} (input) and {fmt(data_out)} (output)",
        )
    named = [(in_off, "input_offsets"), (send, "send_sizes"), (out_off, "output_offsets"),
             (recv, "recv_sizes")]  # fmt: skip
    for s, what in named:
        element_type_in(ctx, s, "int", what)
        if s.rank not in (1, 2) or s.dims != in_off.dims:
            raise ctx.error(
                None,
                f"all offsets and sizes must have one shape of rank 1 or 2; got {fmt(in_off)} "
                f"(input_offsets) and {fmt(s)} ({what})",
            )
    return data_out


@infers(Opcode.COLLECTIVE_BROADCAST)
def infer_collective_broadcast(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """collective-broadcast (OPS.md CollectiveBroadcast): the result has the operand's type.
    With ``has_dynamic_root`` the last operand holds the root ids and is not broadcast."""
    if attrs.has_dynamic_root and operands:
        operands = operands[:-1]
    shapes = _arrays(ctx, operands)
    group_size(ctx, attrs)
    return collate(shapes)


def _permute_pairs(ctx: InferCtx, attrs: Attrs) -> None:
    pairs = tuple(tuple(p) for p in attrs.source_target_pairs)
    if any(len(p) != 2 for p in pairs):
        raise ctx.error("C1", f"source_target_pairs must be pairs; got {pairs}")
    sources = [p[0] for p in pairs]
    targets = [p[1] for p in pairs]
    if len(set(sources)) != len(sources):
        raise ctx.error("C2", f"no two pairs may have the same source; got {pairs}")
    if len(set(targets)) != len(targets):
        raise ctx.error("C3", f"no two pairs may have the same target; got {pairs}")
    if any(i < 0 for i in sources + targets):
        raise ctx.error("C4", f"replica ids must be non-negative; got {pairs}")


def _permute_result(ctx: InferCtx, operands: Sequence[Shape]) -> Shape:
    shapes = _arrays(ctx, operands)
    if len(shapes) == 4:  # input, output, input_start_indices, output_start_indices
        return shapes[1]
    if len(shapes) != 1:
        raise ctx.error(None, f"takes one operand (or four with slice_sizes); got {len(shapes)}")
    return shapes[0]


@infers(Opcode.COLLECTIVE_PERMUTE)
def infer_collective_permute(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#collective_permute (C1: pairs; C2: unique sources; C3: unique targets;
    C4: ids in range; C5: the result has the operand's type)."""
    _permute_pairs(ctx, attrs)
    return _permute_result(ctx, operands)


@infers(Opcode.COLLECTIVE_PERMUTE_START)
def infer_collective_permute_start(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """collective-permute-start: ``(operand, result, u32[], u32[])``."""
    _permute_pairs(ctx, attrs)
    result = _permute_result(ctx, operands)
    return Shape.tuple_of([operands[0], result, U32_SCALAR, U32_SCALAR])


@infers(Opcode.COLLECTIVE_PERMUTE_DONE)
def infer_collective_permute_done(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    (start,) = operands
    if not start.is_tuple or len(start.tuple_shapes) < 2:
        raise ctx.error(None, f"operand must be a collective-permute-start result; got "
                        f"{fmt(start)}")  # fmt: skip
    return start.tuple_shapes[1]
