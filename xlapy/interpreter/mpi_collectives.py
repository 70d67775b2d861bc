"""The data phase of a collective on MPI, run by one leader thread per rank once every rank of
the group has arrived: all-gather, all-reduce and all-to-all of the rank's devices' values
over the group's communicator.

Bits are those of the in-process runtime: an all-reduce folds the members' values in group
order (each rank folds one slice of the elements: all-to-all of slices, fold, all-gather), and
MPI's own reductions are used only where no order can change a bit (integer add, multiply,
min, max and bitwise ops; pred and/or/xor).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlapy.interpreter.mpi_transport import (
    BufferPool,
    Layout,
    Watchdog,
    contiguous_span,
    displacements,
    nbytes,
    pack,
    unpack,
)
from xlapy.literal import Array

Fold = Callable[[Array, Array], Array]

_INTEGERS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


@dataclass
class GroupPlan:
    """One collective's group on the ranks.

    Attributes:
        comm: the group's communicator (its rank i is world rank ``ranks[i]``).
        group: the members' flat device ids, in group order.
        ranks: the world ranks holding members, ascending.
        members: each rank's members, in group order.
        rank: this rank.
        watchdog, timeout, what: guard every blocking call with ``what`` and ``timeout``.
        buffers: where receive buffers come from.
    """

    comm: Any
    group: list[int]
    ranks: list[int]
    members: dict[int, list[int]]
    rank: int
    watchdog: Watchdog
    timeout: float
    what: str
    buffers: BufferPool

    @property
    def local(self) -> list[int]:
        return self.members[self.rank]

    def call(self, name: str, *args: object) -> None:
        """``comm.<name>(*args)`` under the watchdog."""
        with self.watchdog.guard(f"{self.what}: MPI {name}", self.timeout):
            getattr(self.comm, name)(*args)


def _spec(buffer: Array, counts: Sequence[int]) -> list[Any]:
    from mpi4py import MPI

    return [buffer, list(counts), displacements(counts), MPI.BYTE]


def _allgather(plan: GroupPlan, send: Array, recv: Array, counts: Sequence[int]) -> None:
    """Every rank's ``send`` (``counts[i]`` bytes from rank i) into ``recv``, in rank order;
    MPI_Allgather when the counts are equal (MPICH's Allgatherv is at times far slower)."""
    from mpi4py import MPI

    if len(set(counts)) == 1:
        plan.call("Allgather", [send, MPI.BYTE], [recv, MPI.BYTE])
    else:
        plan.call("Allgatherv", [send, MPI.BYTE], _spec(recv, counts))


def _alltoall(
    plan: GroupPlan,
    send: Array,
    send_counts: Sequence[int],
    recv: Array,
    recv_counts: Sequence[int],
    uniform: bool,
) -> None:
    """Block i of ``send`` to rank i, block i of ``recv`` from rank i; MPI_Alltoall when
    ``uniform``: every block between every two ranks has one size (so every rank decides
    alike)."""
    from mpi4py import MPI

    if uniform:
        plan.call("Alltoall", [send, MPI.BYTE], [recv, MPI.BYTE])
    else:
        plan.call("Alltoallv", _spec(send, send_counts), _spec(recv, recv_counts))


def gather(
    plan: GroupPlan, values: Mapping[int, object], layouts: Mapping[int, Layout]
) -> dict[int, Any]:
    """Every member's value, by device (what ``Runtime.exchange`` returns)."""
    counts = [sum(nbytes(layouts[d]) for d in plan.members[r]) for r in plan.ranks]
    recv = plan.buffers.take(sum(counts))
    if sum(counts):
        _allgather(plan, pack([values[d] for d in plan.local]), recv, counts)
    result: dict[int, Any] = {}
    for r, start in zip(plan.ranks, displacements(counts), strict=True):
        offset = start
        for d in plan.members[r]:
            if r == plan.rank:
                result[d] = values[d]
                offset += nbytes(layouts[d])
            else:
                result[d], offset = unpack(layouts[d], recv, offset)
    return result


def all_gather(
    plan: GroupPlan,
    operands: Mapping[int, Sequence[Array]],
    layouts: Mapping[int, list[Layout]],
    dim: int,
) -> list[Array]:
    """Each operand of every member concatenated along ``dim`` in group order; one operand
    whose members arrive in group order and whose dims before ``dim`` are 1 is received
    straight into the result."""
    (layout, *more) = layouts[plan.group[0]]
    dtype, shape = layout[1], tuple(layout[2])
    arrival = [d for r in plan.ranks for d in plan.members[r]]
    if more or arrival != plan.group or int(np.prod(shape[:dim], dtype=np.int64)) != 1:
        as_lists = {d: ("l", tuple(member)) for d, member in layouts.items()}
        everyone = gather(plan, operands, as_lists)
        count = len(layouts[plan.group[0]])
        return [
            np.concatenate([everyone[d][i] for d in plan.group], axis=dim) for i in range(count)
        ]
    joined = (*shape[:dim], shape[dim] * len(plan.group), *shape[dim + 1 :])
    counts = [len(plan.members[r]) * nbytes(layout) for r in plan.ranks]
    recv = plan.buffers.take(sum(counts))
    if sum(counts):
        _allgather(plan, pack([operands[d] for d in plan.local]), recv, counts)
    return [recv.view(dtype).reshape(joined)]


def join(blocks: Sequence[Array], dim: int) -> Array:
    """``np.concatenate(blocks, axis=dim)``, as a view when the blocks (of one shape) already
    lie back to back in one buffer and every dim before ``dim`` is 1 (what ``scatter``
    received for an operand's blocks)."""
    first = blocks[0]
    same = all(b.dtype == first.dtype and b.shape == first.shape for b in blocks)
    span = contiguous_span(blocks) if same else None
    if span is None or int(np.prod(first.shape[:dim], dtype=np.int64)) != 1:
        return np.concatenate(blocks, axis=dim)
    shape = (*first.shape[:dim], first.shape[dim] * len(blocks), *first.shape[dim + 1 :])
    return span.view(first.dtype).reshape(shape)


def scatter(
    plan: GroupPlan, parts: Mapping[int, Sequence[object]], layouts: Mapping[int, list[Layout]]
) -> dict[int, list[Any]]:
    """All-to-all: ``parts[m][j]`` goes from member m to member ``group[j]``; returns, for
    each local member, what every member sent it, in group order."""
    index = {d: j for j, d in enumerate(plan.group)}
    local = plan.local

    def size(sources: list[int], targets: list[int]) -> int:
        return sum(nbytes(layouts[m][index[t]]) for m in sources for t in targets)

    send_counts = [size(local, plan.members[r]) for r in plan.ranks]
    recv_counts = [size(plan.members[r], local) for r in plan.ranks]
    matrix = {size(plan.members[r], plan.members[s]) for r in plan.ranks for s in plan.ranks}
    recv = plan.buffers.take(sum(recv_counts))
    if matrix != {0}:
        send = pack(
            [parts[m][index[t]] for r in plan.ranks for m in local for t in plan.members[r]]
        )
        _alltoall(plan, send, send_counts, recv, recv_counts, len(matrix) == 1)
    received: dict[int, dict[int, Any]] = {t: {} for t in local}
    for r, start in zip(plan.ranks, displacements(recv_counts), strict=True):
        offset = start
        for m in plan.members[r]:
            for t in local:
                received[t][m], offset = unpack(layouts[m][index[t]], recv, offset)
    return {t: [received[t][m] for m in plan.group] for t in local}


def all_reduce(
    plan: GroupPlan,
    operands: Mapping[int, Sequence[Array]],
    layouts: Sequence[Layout],
    fold: Fold,
    builtin: str | None,
) -> list[Array]:
    """Each operand reduced over the group, bit for bit as a fold in group order."""
    results = []
    for i, layout in enumerate(layouts):
        values = {d: np.asarray(operands[d][i]) for d in plan.local}
        dtype, shape = layout[1], layout[2]
        native = _native(builtin, dtype)
        if native is not None:
            results.append(_reduce_native(plan, values, dtype, shape, fold, native))
        else:
            results.append(_reduce_in_order(plan, values, dtype, shape, fold))
    return results


def _native(builtin: str | None, dtype: np.dtype[Any]) -> tuple[Any, np.dtype[Any]] | None:
    """(MPI op, dtype to reduce in) when MPI's reduction gives the fold's bits in any order:
    wrapping add/multiply and bitwise ops on the unsigned view, min/max on the type itself."""
    if builtin is None:
        return None
    from mpi4py import MPI

    if dtype.type in _INTEGERS:
        unsigned = np.dtype(f"u{dtype.itemsize}")
        table = {
            "add": (MPI.SUM, unsigned),
            "multiply": (MPI.PROD, unsigned),
            "minimum": (MPI.MIN, dtype),
            "maximum": (MPI.MAX, dtype),
            "and": (MPI.BAND, unsigned),
            "or": (MPI.BOR, unsigned),
            "xor": (MPI.BXOR, unsigned),
        }
        return table.get(builtin)
    if dtype == np.bool_:
        bits = {"and": MPI.BAND, "or": MPI.BOR, "xor": MPI.BXOR}
        return (bits[builtin], np.dtype(np.uint8)) if builtin in bits else None
    return None


def _reduce_native(
    plan: GroupPlan,
    values: Mapping[int, Array],
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    fold: Fold,
    native: tuple[Any, np.dtype[Any]],
) -> Array:
    op, view = native
    acc = values[plan.local[0]]
    for d in plan.local[1:]:
        acc = fold(acc, values[d])
    send = np.ascontiguousarray(acc, dtype=dtype).reshape(-1).view(view)
    out = np.empty_like(send)
    if send.size:
        plan.call("Allreduce", send, out, op)
    return out.view(dtype).reshape(shape)


def _reduce_in_order(
    plan: GroupPlan,
    values: Mapping[int, Array],
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    fold: Fold,
) -> Array:
    """Rank i folds elements [bounds[i], bounds[i+1]) of every member in group order, then
    every rank gathers the folded slices."""
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.empty(shape, dtype)
    n, itemsize = len(plan.ranks), dtype.itemsize
    me = plan.ranks.index(plan.rank)
    bounds = [size * j // n for j in range(n + 1)]
    lengths = [bounds[j + 1] - bounds[j] for j in range(n)]
    local = plan.local
    flat = {d: np.ascontiguousarray(values[d]).reshape(-1).view(np.uint8) for d in local}
    if len(local) == 1:  # its slices in rank order are the array itself
        send = flat[local[0]]
    else:
        send = np.concatenate(
            [
                flat[d][bounds[j] * itemsize : bounds[j + 1] * itemsize]
                for j in range(n)
                for d in local
            ]
        )
    send_counts = [len(local) * lengths[j] * itemsize for j in range(n)]
    mine = lengths[me] * itemsize
    recv_counts = [len(plan.members[r]) * mine for r in plan.ranks]
    recv = plan.buffers.take(sum(recv_counts))
    uniform = len(set(lengths)) == 1 and len({len(m) for m in plan.members.values()}) == 1
    _alltoall(plan, send, send_counts, recv, recv_counts, uniform)
    pieces: dict[int, Array] = {}
    for r, start in zip(plan.ranks, displacements(recv_counts), strict=True):
        for k, d in enumerate(plan.members[r]):
            pieces[d] = recv[start + k * mine : start + (k + 1) * mine].view(dtype)
    acc = pieces[plan.group[0]]
    if mine:
        for d in plan.group[1:]:
            acc = fold(acc, pieces[d])
    folded = np.ascontiguousarray(acc, dtype=dtype).view(np.uint8)
    full = plan.buffers.take(size * itemsize)
    _allgather(plan, folded, full, [length * itemsize for length in lengths])
    return full.view(dtype).reshape(shape)
