"""Cross-replica builder ops: AllReduce, CrossReplicaSum, AllGather, ReduceScatter, AllToAll
(with XLA's reshape/transpose decomposition when split and concat dimensions differ),
RaggedAllToAll, CollectiveBroadcast, CollectivePermute and the async Start/Done halves.
Re-exported by ``xlapy.builder.ops``."""

# ruff: noqa: N802

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xlapy.builder.config import (
    ChannelHandle,
    ReplicaGroup,
    ReplicaGroups,
    channel_attr,
    replica_groups_attr,
)
from xlapy.builder.helpers import reshape
from xlapy.builder.ops_elementwise import Add
from xlapy.builder.ops_shape import GetTupleElement, Transpose
from xlapy.builder.xla_builder import ComputationLike, XlaOp
from xlapy.errors import InvalidArgument
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape

GroupsArg = ReplicaGroups | Sequence[ReplicaGroup] | Sequence[Sequence[int]] | None


def _leaves(operand: XlaOp) -> list[XlaOp]:
    """A tuple operand's elements (collectives work per element), or the operand itself."""
    if operand.shape.is_tuple:
        if not operand.shape.tuple_shapes:
            raise InvalidArgument("collectives need a non-empty tuple of arrays")
        return [GetTupleElement(operand, i) for i in range(len(operand.shape.tuple_shapes))]
    return [operand]


def _common(
    replica_groups: GroupsArg, channel_id: ChannelHandle | int | None, global_ids: bool | None
) -> dict[str, Any]:
    return {
        "replica_groups": replica_groups_attr(replica_groups),
        "channel_id": channel_attr(channel_id),
        "use_global_device_ids": bool(global_ids) or None,
    }


def _reducer(operand: XlaOp, computation: ComputationLike) -> Any:
    e = Shape.scalar(operand.dtype)
    return operand.builder.computation(computation, [e, e], "computation")


def AllReduce(
    operand: XlaOp,
    computation: ComputationLike,
    replica_groups: GroupsArg = None,
    channel_id: ChannelHandle | int | None = None,
    shape_with_layout: Shape | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Reduces ``operand`` (an array or a tuple of arrays) across the replicas of each group
    with ``computation`` (OPS.md AllReduce)."""
    leaves = _leaves(operand)
    attrs = _common(replica_groups, channel_id, use_global_device_ids)
    attrs["to_apply"] = _reducer(leaves[0], computation)
    attrs["constrain_layout"] = shape_with_layout is not None or None
    return operand.builder.add(Opcode.ALL_REDUCE, leaves, attrs)


def CrossReplicaSum(operand: XlaOp, replica_groups: GroupsArg = None) -> XlaOp:
    """AllReduce with summation (OPS.md CrossReplicaSum)."""
    return AllReduce(operand, lambda x, y: Add(x, y), replica_groups)


def _scaled(operand: XlaOp, dim: int, factor: int, multiply: bool, what: str) -> Shape:
    shape = operand.shape
    if not shape.is_array or not 0 <= dim < shape.rank:
        raise InvalidArgument(
            f"{what} [C1]: the dimension must be in [0, {shape.rank}); got {dim} for "
            f"{shape.to_hlo(layout=False)}"
        )
    if factor <= 0:
        raise InvalidArgument(f"{what}: shard_count must be positive; got {factor}")
    dims = list(shape.dims)
    if multiply:
        dims[dim] *= factor
    else:
        if dims[dim] % factor:
            raise InvalidArgument(
                f"{what} [C1]: dimension {dim} of {shape.to_hlo(layout=False)} must be a "
                f"multiple of shard_count {factor}"
            )
        dims[dim] //= factor
    return Shape.array(shape.element_type, dims)


def AllGather(
    operand: XlaOp,
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: GroupsArg = None,
    channel_id: ChannelHandle | int | None = None,
    layout: object = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Concatenates the operands of each group along ``all_gather_dimension`` (OPS.md
    AllGather); the result dimension is ``shard_count`` times larger."""
    result = _scaled(operand, all_gather_dimension, shard_count, True, "all-gather")
    attrs = _common(replica_groups, channel_id, use_global_device_ids)
    attrs["dimensions"] = (int(all_gather_dimension),)
    attrs["constrain_layout"] = layout is not None or None
    return operand.builder.add(Opcode.ALL_GATHER, [operand], attrs, result)


def ReduceScatter(
    operand: XlaOp,
    computation: ComputationLike,
    scatter_dimension: int,
    shard_count: int,
    replica_groups: GroupsArg = None,
    channel_id: ChannelHandle | int | None = None,
    layout: object = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """AllReduce, then replica i of a group keeps shard i along ``scatter_dimension`` (OPS.md
    ReduceScatter)."""
    result = _scaled(operand, scatter_dimension, shard_count, False, "reduce-scatter")
    attrs = _common(replica_groups, channel_id, use_global_device_ids)
    attrs["dimensions"] = (int(scatter_dimension),)
    attrs["to_apply"] = _reducer(operand, computation)
    attrs["constrain_layout"] = layout is not None or None
    return operand.builder.add(Opcode.REDUCE_SCATTER, [operand], attrs, result)


def AllToAll(
    operand: XlaOp,
    split_dimension: int,
    concat_dimension: int,
    split_count: int,
    replica_groups: GroupsArg = None,
    layout: object = None,
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """Splits ``operand`` into ``split_count`` blocks along ``split_dimension``, sends block i
    to participant i and concatenates the received blocks along ``concat_dimension`` (OPS.md
    AllToAll). When the two dimensions differ, this is a reshape, an all-to-all on the new
    block dimension, a transpose and a reshape, as in XLA's builder."""
    shape = operand.shape
    for what, d in (("split_dimension", split_dimension), ("concat_dimension", concat_dimension)):
        if not shape.is_array or not 0 <= d < shape.rank:
            raise InvalidArgument(
                f"all-to-all [C1]: {what} must be in [0, {shape.rank}); got {d} for "
                f"{shape.to_hlo(layout=False)}"
            )
    if split_count <= 0 or shape.dims[split_dimension] % split_count:
        raise InvalidArgument(
            f"all-to-all [C2]: dimension {split_dimension} of {shape.to_hlo(layout=False)} must "
            f"be a multiple of split_count {split_count}"
        )
    attrs = {
        "replica_groups": replica_groups_attr(replica_groups),
        "channel_id": channel_attr(channel_id),
        "constrain_layout": layout is not None or None,
    }
    b = operand.builder
    if split_dimension == concat_dimension:
        return b.add(Opcode.ALL_TO_ALL, [operand], {**attrs, "dimensions": (split_dimension,)})
    sizes: list[int] = []
    for i, n in enumerate(shape.dims):
        sizes.extend([split_count, n // split_count] if i == split_dimension else [n])
    blocks = reshape(operand, sizes)
    exchanged = b.add(Opcode.ALL_TO_ALL, [blocks], {**attrs, "dimensions": (split_dimension,)})
    permutation: list[int] = []
    for i in range(shape.rank):
        if i == concat_dimension:
            permutation.append(split_dimension)
        permutation.append(i + 1 if i >= split_dimension else i)
    moved = Transpose(exchanged, permutation)
    out = list(shape.dims)
    out[split_dimension] //= split_count
    out[concat_dimension] *= split_count
    return reshape(moved, out)


def RaggedAllToAll(
    input: XlaOp,
    input_offsets: XlaOp,
    send_sizes: XlaOp,
    output: XlaOp,
    output_offsets: XlaOp,
    recv_sizes: XlaOp,
    replica_groups: GroupsArg = None,
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """All-to-all of ragged rows written into ``output`` (OPS.md RaggedAllToAll)."""
    attrs = {
        "replica_groups": replica_groups_attr(replica_groups),
        "channel_id": channel_attr(channel_id),
    }
    operands = [input, input_offsets, send_sizes, output, output_offsets, recv_sizes]
    return input.builder.add(Opcode.RAGGED_ALL_TO_ALL, operands, attrs)


def CollectiveBroadcast(
    operand: XlaOp, replica_groups: GroupsArg, channel_id: ChannelHandle | int | None = None
) -> XlaOp:
    """Sends the first replica's operand to the others of each group (OPS.md)."""
    attrs = {
        "replica_groups": replica_groups_attr(replica_groups),
        "channel_id": channel_attr(channel_id),
    }
    return operand.builder.add(Opcode.COLLECTIVE_BROADCAST, [operand], attrs)


def _pairs(source_target_pairs: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(v) for v in p) for p in source_target_pairs)


def CollectivePermute(
    operand: XlaOp,
    source_target_pairs: Sequence[Sequence[int]],
    channel_id: ChannelHandle | int | None = None,
    inplace: bool = False,
) -> XlaOp:
    """Sends the operand of each source replica to its target (OPS.md CollectivePermute);
    replicas that are no target get zeros."""
    attrs = {"source_target_pairs": _pairs(source_target_pairs),
             "channel_id": channel_attr(channel_id)}  # fmt: skip
    return operand.builder.add(Opcode.COLLECTIVE_PERMUTE, [operand], attrs)


# ---- internal async halves -------------------------------------------------------------


def AllReduceStart(
    operand: XlaOp,
    computation: ComputationLike,
    replica_groups: GroupsArg = None,
    channel_id: ChannelHandle | int | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Internal HLO: the start of an asynchronous AllReduce."""
    leaves = _leaves(operand)
    attrs = _common(replica_groups, channel_id, use_global_device_ids)
    attrs["to_apply"] = _reducer(leaves[0], computation)
    return operand.builder.add(Opcode.ALL_REDUCE_START, leaves, attrs)


def AllReduceDone(start: XlaOp) -> XlaOp:
    return start.builder.add(Opcode.ALL_REDUCE_DONE, [start])


def AllGatherStart(
    operand: XlaOp,
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: GroupsArg = None,
    channel_id: ChannelHandle | int | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Internal HLO: the start of an asynchronous AllGather: ``(operand, result)``."""
    gathered = _scaled(operand, all_gather_dimension, shard_count, True, "all-gather-start")
    attrs = _common(replica_groups, channel_id, use_global_device_ids)
    attrs["dimensions"] = (int(all_gather_dimension),)
    return operand.builder.add(
        Opcode.ALL_GATHER_START, [operand], attrs, Shape.tuple_of([operand.shape, gathered])
    )


def AllGatherDone(start: XlaOp) -> XlaOp:
    return start.builder.add(Opcode.ALL_GATHER_DONE, [start])


def CollectivePermuteStart(
    operand: XlaOp,
    source_target_pairs: Sequence[Sequence[int]],
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """Internal HLO: ``(operand, result, u32[], u32[])`` of an asynchronous permute."""
    attrs = {"source_target_pairs": _pairs(source_target_pairs),
             "channel_id": channel_attr(channel_id)}  # fmt: skip
    return operand.builder.add(Opcode.COLLECTIVE_PERMUTE_START, [operand], attrs)


def CollectivePermuteDone(start: XlaOp) -> XlaOp:
    return start.builder.add(Opcode.COLLECTIVE_PERMUTE_DONE, [start])
