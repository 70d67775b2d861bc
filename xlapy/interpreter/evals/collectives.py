"""Collectives across the devices of the SPMD runtime: all-reduce, all-gather, all-to-all,
ragged-all-to-all, reduce-scatter, collective-permute, collective-broadcast, their async
``-start``/``-done`` forms, replica-id and partition-id.

Process groups follow the StableHLO spec ("Parallel execution"): ``cross_replica`` when there is
no channel, ``cross_replica_and_partition`` with a channel, ``flattened_ids`` with
``use_global_device_ids``; ops without ``use_global_device_ids`` (all-to-all, collective-permute,
collective-broadcast, ragged-all-to-all) are ``cross_partition`` with a channel (XLA's
GetCollectiveOpGroupMode).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy.errors import EvaluationError, InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value, shape_of
from xlapy.shape import Shape

_HAS_GLOBAL_IDS = {
    Opcode.ALL_REDUCE,
    Opcode.ALL_REDUCE_START,
    Opcode.ALL_GATHER,
    Opcode.ALL_GATHER_START,
    Opcode.REDUCE_SCATTER,
    Opcode.COLLECTIVE_REDUCE,
}


def _what(instr: HloInstruction) -> str:
    return f"{instr.opcode.value} {instr.name}"


def process_groups(ctx: Evaluator, instr: HloInstruction) -> list[list[int]]:
    """The process groups of a collective, as lists of flat device ids in group order."""
    runtime = ctx.device.runtime
    replicas, partitions = runtime.num_replicas, runtime.num_partitions
    groups = [list(g) for g in instr.attrs.replica_groups.groups()]
    channel = instr.attrs.channel_id
    has_channel = channel is not None and channel > 0
    use_global = (
        bool(instr.attrs.use_global_device_ids) if instr.opcode in _HAS_GLOBAL_IDS else None
    )
    flat = runtime.flat_id

    def check(ids: Sequence[int], limit: int, kind: str) -> None:
        bad = [i for i in ids if not 0 <= i < limit]
        if bad:
            raise InvalidArgument(
                f"{_what(instr)}: replica_groups name {kind} ids {bad} outside [0, {limit}); "
                f"got replica_groups={instr.attrs.replica_groups}"
            )

    if not has_channel and not use_global:  # cross_replica
        groups = groups or [list(range(replicas))]
        check([i for g in groups for i in g], replicas, "replica")
        return [[flat(r, p) for r in g] for p in range(partitions) for g in groups]
    if use_global is None:  # cross_partition
        groups = groups or [list(range(partitions))]
        check([i for g in groups for i in g], partitions, "partition")
        return [[flat(r, p) for p in g] for r in range(replicas) for g in groups]
    if not use_global:  # cross_replica_and_partition
        groups = groups or [list(range(replicas))]
        check([i for g in groups for i in g], replicas, "replica")
        return [[flat(r, p) for p in range(partitions) for r in g] for g in groups]
    if not has_channel:
        raise InvalidArgument(f"{_what(instr)}: use_global_device_ids requires a channel_id")
    groups = groups or [list(range(replicas * partitions))]  # flattened_ids
    check([i for g in groups for i in g], replicas * partitions, "device")
    return groups


def my_group(ctx: Evaluator, instr: HloInstruction) -> list[int] | None:
    me = ctx.device.flat_id
    found = [g for g in process_groups(ctx, instr) if me in g]
    if len(found) > 1:
        raise InvalidArgument(
            f"{_what(instr)}: device {me} appears in more than one replica group; "
            f"got replica_groups={instr.attrs.replica_groups}"
        )
    return found[0] if found else None


def _require_group(ctx: Evaluator, instr: HloInstruction) -> list[int]:
    group = my_group(ctx, instr)
    if group is None:
        raise InvalidArgument(
            f"{_what(instr)}: device {ctx.device.flat_id} is in no replica group; "
            f"got replica_groups={instr.attrs.replica_groups}"
        )
    return group


def _exchange(ctx: Evaluator, instr: HloInstruction, group: list[int], value: object) -> list:
    """Every group member's value, in group order."""
    key = ctx.device.execution_key(instr)
    got = ctx.device.runtime.exchange(key, group, ctx.device.flat_id, value, _what(instr))
    return [got[d] for d in group]


def _zeros(shape: Shape) -> Value:
    if shape.is_tuple:
        return tuple(_zeros(s) for s in shape.tuple_shapes)
    assert shape.element_type.numpy is not None
    return np.zeros(shape.dims, shape.element_type.numpy)


def _pack(instr: HloInstruction, results: list[Array]) -> Value:
    """One result as an array, several as a tuple (variadic collectives)."""
    return results[0] if len(instr.operands) == 1 else tuple(results)


_BUILTIN_REDUCTIONS = {
    Opcode.ADD: "add",
    Opcode.MULTIPLY: "multiply",
    Opcode.MINIMUM: "minimum",
    Opcode.MAXIMUM: "maximum",
    Opcode.AND: "and",
    Opcode.OR: "or",
    Opcode.XOR: "xor",
}


def _builtin(instr: HloInstruction) -> str | None:
    """The name of the reduction when ``to_apply`` is one such op of its two parameters."""
    comp = instr.attrs.to_apply
    root = comp.root
    if comp.num_parameters != 2 or root.opcode not in _BUILTIN_REDUCTIONS:
        return None
    if {id(o) for o in root.operands} != {id(p) for p in comp.parameters}:
        return None
    return _BUILTIN_REDUCTIONS[root.opcode]


_UFUNCS = {
    "add": np.add,
    "multiply": np.multiply,
    "minimum": np.minimum,
    "maximum": np.maximum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}
_INTEGERS = {np.dtype(f"{kind}{size}") for kind in "iu" for size in (1, 2, 4, 8)}


def _exact_ufunc(ctx: Evaluator, builtin: str | None, operands: list[Value]) -> np.ufunc | None:
    """A numpy ufunc with the reduction computation's bits, or None: every builtin on the
    standard integer types (wrapping, as the interpreter's integer ops), and/or/xor on pred,
    add and multiply on f32/f64 (one IEEE operation in the type itself, which is their
    compute type) while subnormals are kept."""
    dtypes = {np.asarray(o).dtype for o in operands}
    if builtin is None or len(dtypes) != 1:
        return None
    (dtype,) = dtypes
    exact = (
        dtype in _INTEGERS
        or (dtype == np.bool_ and builtin in ("and", "or", "xor"))
        or (
            dtype in (np.float32, np.float64)
            and builtin in ("add", "multiply")
            and not ctx.options.flush_denormals
        )
    )
    return _UFUNCS[builtin] if exact else None


def _all_reduce(
    ctx: Evaluator, instr: HloInstruction, group: list[int], operands: list[Value]
) -> list[Array]:
    """Each operand folded over the group in group order with the reduction computation
    (through a numpy ufunc where that gives the same bits)."""
    builtin = _builtin(instr)
    ufunc = _exact_ufunc(ctx, builtin, operands)

    def fold(acc: Array, value: Array) -> Array:
        if ufunc is not None:
            return np.asarray(ufunc(acc, value))
        return ctx.call(instr.attrs.to_apply, [acc, value])  # type: ignore[return-value]

    key = ctx.device.execution_key(instr)
    return ctx.device.runtime.all_reduce(
        key, group, ctx.device.flat_id, operands, fold, _what(instr), builtin
    )


# ---- all-reduce ---------------------------------------------------------------------------
@evaluates(Opcode.ALL_REDUCE, Opcode.ALL_REDUCE_START)
def all_reduce(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Every member of a group gets the element-wise reduction of all members' operands."""
    group = _require_group(ctx, instr)
    return _pack(instr, _all_reduce(ctx, instr, group, operands))


@evaluates(Opcode.COLLECTIVE_REDUCE)
def collective_reduce(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The group's root (its first member) gets the reduction of all members' operands; the
    other members get zeros."""
    group = _require_group(ctx, instr)
    results = _all_reduce(ctx, instr, group, operands)
    if ctx.device.flat_id != group[0]:
        return _pack(instr, [_zeros(shape_of(o)) for o in operands])
    return _pack(instr, results)


# ---- all-gather ---------------------------------------------------------------------------
@evaluates(Opcode.ALL_GATHER, Opcode.ALL_GATHER_START)
def all_gather(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """results@process = concatenate(operands@sender for sender in group, all_gather_dim)."""
    group = _require_group(ctx, instr)
    (dim,) = instr.attrs.dimensions
    key = ctx.device.execution_key(instr)
    runtime = ctx.device.runtime
    results = runtime.all_gather(key, group, ctx.device.flat_id, operands, dim, _what(instr))
    result = _pack(instr, results)
    if instr.opcode is Opcode.ALL_GATHER_START and _is_start_tuple(instr, result):
        return (_pack(instr, list(operands)), result)  # (operands, results)
    return _sized_for(instr, group, result)


def _is_start_tuple(instr: HloInstruction, result: Value) -> bool:
    shape = instr.shape
    return (
        shape.is_tuple
        and len(shape.tuple_shapes) == 2
        and shape.tuple_shapes[1].compatible(shape_of(result))
        and not shape.compatible(shape_of(result))
    )


# ---- all-to-all -------------------------------------------------------------------------
@evaluates(Opcode.ALL_TO_ALL)
def all_to_all(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Block i of every member goes to member i; each member concatenates what it received.

    Array form (``dimensions={d}``): the operand is split into len(group) blocks along d and the
    received blocks are concatenated along d. Tuple form: operand i is block i, result j is
    the block received from member j.
    """
    group = _require_group(ctx, instr)
    n = len(group)
    if instr.attrs.dimensions:
        (dim,) = instr.attrs.dimensions
        for operand in operands:
            if operand.shape[dim] % n:
                raise InvalidArgument(
                    f"{_what(instr)}: dimension {dim} of the operand ({operand.shape[dim]}) is "
                    f"not divisible by the group size {n}"
                )
        key = ctx.device.execution_key(instr)
        runtime = ctx.device.runtime
        me = ctx.device.flat_id
        results = runtime.all_to_all(key, group, me, operands, dim, _what(instr))
        return _pack_values(instr, results)
    if len(operands) != n:
        raise InvalidArgument(
            f"{_what(instr)}: the tuple form needs one operand per group member ({n}); "
            f"got {len(operands)}"
        )
    return tuple(_scatter(ctx, instr, group, operands))


def _scatter(ctx: Evaluator, instr: HloInstruction, group: list[int], parts: list) -> list:
    """What every member sent to this device (``parts[j]`` goes to ``group[j]``)."""
    key = ctx.device.execution_key(instr)
    runtime = ctx.device.runtime
    return runtime.scatter_exchange(key, group, ctx.device.flat_id, parts, _what(instr))


# ---- ragged-all-to-all ------------------------------------------------------------------
@evaluates(Opcode.RAGGED_ALL_TO_ALL)
def ragged_all_to_all(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Sender s writes input[input_offsets[i] : +send_sizes[i]] into member i's output at
    output_offsets[i] (offsets are from the target's point of view); rows not written keep the
    ``output`` operand's values. Offsets/sizes are [num_devices] or [num_devices, num_updates]."""
    group = _require_group(ctx, instr)
    me = group.index(ctx.device.flat_id)
    data, input_offsets, send_sizes, output, output_offsets, _recv_sizes = operands
    everyone = _exchange(ctx, instr, group, (data, input_offsets, send_sizes, output_offsets))
    result = np.array(output, copy=True)
    for sender in everyone:  # sequential by spec: later senders overwrite earlier ones
        s_data, s_in, s_sizes, s_out = (np.asarray(x) for x in sender)
        in_rows = np.atleast_1d(s_in[me]).ravel()
        sizes = np.atleast_1d(s_sizes[me]).ravel()
        out_rows = np.atleast_1d(s_out[me]).ravel()
        for start, size, dest in zip(in_rows, sizes, out_rows, strict=True):
            start, size, dest = int(start), int(size), int(dest)
            if size == 0:
                continue
            if (
                start < 0
                or start + size > s_data.shape[0]
                or dest < 0
                or dest + size > result.shape[0]
            ):
                raise EvaluationError(
                    f"{_what(instr)}: update of {size} rows from offset {start} to offset {dest} "
                    f"is out of bounds (input has {s_data.shape[0]} rows, output {result.shape[0]})"
                )
            result[dest : dest + size] = s_data[start : start + size]
    return result


# ---- reduce-scatter ---------------------------------------------------------------------
@evaluates(Opcode.REDUCE_SCATTER)
def reduce_scatter(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """All-reduce, then member i keeps block i of the result split along ``dimensions[0]``."""
    group = _require_group(ctx, instr)
    me = group.index(ctx.device.flat_id)
    (dim,) = instr.attrs.dimensions
    results = []
    for reduced in _all_reduce(ctx, instr, group, operands):
        if reduced.shape[dim] % len(group):
            raise InvalidArgument(
                f"{_what(instr)}: dimension {dim} ({reduced.shape[dim]}) is not divisible by "
                f"the group size {len(group)}"
            )
        results.append(np.split(reduced, len(group), axis=dim)[me])
    return _sized_for(instr, group, _pack(instr, results))


def _sized_for(instr: HloInstruction, group: list[int], result: Value) -> Value:
    """``result`` when it has the declared shape; else the program declares its result for
    groups of another size than this run has (a replica_groups={} program run on another
    number of devices), which is the caller's error, not the evaluator's."""
    if instr.shape.compatible(shape_of(result)):
        return result
    raise EvaluationError(
        f"{_what(instr)}: the declared result {instr.shape.to_hlo(layout=False)} is sized for "
        f"groups of another size; this run's group {group} gives "
        f"{shape_of(result).to_hlo(layout=False)} (run the program with the replicas and "
        "partitions it was written for)"
    )


# ---- collective-permute -----------------------------------------------------------------
@evaluates(Opcode.COLLECTIVE_PERMUTE, Opcode.COLLECTIVE_PERMUTE_START)
def collective_permute(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """For each (source, target) pair the source's operand goes to the target; a device that is
    no pair's target gets zeros. Ids are replica ids (no channel) or partition ids."""
    runtime = ctx.device.runtime
    replica, partition = ctx.device.replica_id, ctx.device.partition_id
    channel = instr.attrs.channel_id
    cross_partition = channel is not None and channel > 0
    if cross_partition:
        peers = [runtime.flat_id(replica, p) for p in range(runtime.num_partitions)]
        my_id = partition
    else:
        peers = [runtime.flat_id(r, partition) for r in range(runtime.num_replicas)]
        my_id = replica
    pairs = [tuple(p) for p in instr.attrs.source_target_pairs]
    for what, ids in (("source", [s for s, _ in pairs]), ("target", [t for _, t in pairs])):
        if len(set(ids)) != len(ids):
            raise InvalidArgument(f"{_what(instr)}: two pairs have the same {what}; got {pairs}")
        if any(not 0 <= i < len(peers) for i in ids):
            raise InvalidArgument(
                f"{_what(instr)}: {what} ids must be in [0, {len(peers)}); got {pairs}"
            )
    operand = operands[0]
    targets = {t for s, t in pairs if s == my_id}
    parts = [operand if j in targets else None for j in range(len(peers))]
    received = _scatter(ctx, instr, peers, parts)
    sources = [s for s, t in pairs if t == my_id]
    shape = shape_of(operand)
    result = received[sources[0]] if sources else _zeros(shape)
    if instr.opcode is Opcode.COLLECTIVE_PERMUTE_START and instr.shape.is_tuple:
        extra = [_zeros(s) for s in instr.shape.tuple_shapes[2:]]
        return (operand, result, *extra)
    return result


# ---- collective-broadcast ---------------------------------------------------------------
@evaluates(Opcode.COLLECTIVE_BROADCAST)
def collective_broadcast(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Every member of a group gets the operand of the group's first member; devices in no
    group get zeros. With ``has_dynamic_root`` the last operand holds, per data operand, the
    position in the group of the member whose value is broadcast."""
    data = list(operands)
    roots = [0] * len(data)
    if instr.attrs.has_dynamic_root:
        root_operand = np.asarray(data.pop()).ravel()
        if root_operand.size != len(data):
            raise InvalidArgument(
                f"{_what(instr)}: the root operand needs one index per data operand "
                f"({len(data)}); got {root_operand.size}"
            )
        roots = [int(r) for r in root_operand]
    group = my_group(ctx, instr)
    if group is None:
        return _pack_values(instr, [_zeros(shape_of(o)) for o in data])
    everyone = _exchange(ctx, instr, group, data)
    if any(not 0 <= r < len(group) for r in roots):
        raise EvaluationError(f"{_what(instr)}: root indices {roots} outside the group {group}")
    return _pack_values(instr, [everyone[r][i] for i, r in enumerate(roots)])


def _pack_values(instr: HloInstruction, results: list[Value]) -> Value:
    return tuple(results) if instr.shape.is_tuple else results[0]


# ---- async done forms -------------------------------------------------------------------
@evaluates(Opcode.ALL_REDUCE_DONE, Opcode.ALL_GATHER_DONE, Opcode.COLLECTIVE_PERMUTE_DONE)
def collective_done(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The result of the matching ``-start`` (its second tuple element when it carries one)."""
    (started,) = operands
    if isinstance(started, tuple) and not instr.shape.compatible(shape_of(started)):
        return started[1]
    return started


# ---- ids ----------------------------------------------------------------------------------
@evaluates(Opcode.REPLICA_ID)
def replica_id(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The replica id of this device, as u32[]."""
    return np.array(ctx.device.replica_id, np.uint32)


@evaluates(Opcode.PARTITION_ID)
def partition_id(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The partition id of this device, as u32[]."""
    return np.array(ctx.device.partition_id, np.uint32)
