"""Slicing family: slice, concatenate, pad (negative edges, interior), reverse, dynamic-slice
and dynamic-update-slice (start indices clamped), plus the index helpers the other
data-movement evals share (runtime index values, error messages).

Spec: OPS.md Slice, ConcatInDim, Pad, Rev, DynamicSlice, DynamicUpdateSlice; stablehlo#slice,
#concatenate, #pad, #reverse, #dynamic_slice, #dynamic_update_slice. Gather/scatter live in
``gather_scatter.py``, the StableHLO dynamic-shape ops in ``dynamic_shapes.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.attrs import PaddingConfig, SliceSpec
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value, shape_of

_INT64_MAX = np.iinfo(np.int64).max


# ---- shared helpers ------------------------------------------------------------------------


def error(instr: HloInstruction, label: str, rule: str, got: str) -> InvalidArgument:
    """``<op> <name> [<label>]: <rule>; got <got>`` (the label is omitted when empty)."""
    where = f"{instr.opcode.value} {instr.name}" + (f" [{label}]" if label else "")
    return InvalidArgument(f"{where}: {rule}; got {got}")


def array_operand(instr: HloInstruction, value: Value, name: str) -> Array:
    """Operand ``name`` as an array; raises naming it for tuples and tokens."""
    if isinstance(value, np.generic):
        return np.asarray(value)
    if not isinstance(value, np.ndarray):
        got = shape_of(value).to_hlo(layout=False)
        raise error(instr, "", f"{name} must be an array", got)
    return value


def index_values(indices: Array) -> Array:
    """Integer index values as int64 (pred as 0/1); u64 values above INT64_MAX saturate, so a
    huge unsigned index still clamps to the upper bound instead of wrapping negative."""
    indices = np.asarray(indices)
    if indices.dtype.kind == "f":
        raise TypeError(f"indices must be integers; got {indices.dtype}")
    if indices.dtype == np.uint64:
        return np.minimum(indices, np.uint64(_INT64_MAX)).astype(np.int64)
    return indices.astype(np.int64)


def _is_integer_array(x: Value) -> bool:
    if not isinstance(x, np.ndarray):
        return False
    return x.dtype.kind in "iu" or x.dtype.name.startswith(("int", "uint"))


def start_indices(
    instr: HloInstruction, operands: Sequence[Value], rank: int, labels: tuple[str, str]
) -> list[int]:
    """The start indices of dynamic-slice / dynamic-update-slice: ``rank`` integer scalars or
    one rank-1 integer vector of ``rank`` elements. ``labels``: the constraints on their count
    and on their type."""
    count_label, type_label = labels
    if not all(_is_integer_array(x) for x in operands):
        got = ", ".join(shape_of(x).to_hlo(layout=False) for x in operands)
        raise error(instr, type_label, "start_indices must be integer arrays", got or "none")
    arrays = [np.asarray(x) for x in operands]
    if len(arrays) == 1 and arrays[0].ndim == 1 and (rank != 1 or arrays[0].shape == (1,)):
        values = index_values(arrays[0])
    elif all(a.ndim == 0 for a in arrays):
        values = index_values(np.array([index_values(a) for a in arrays], np.int64))
    else:
        values = None
    if values is None or values.shape != (rank,):
        got = ", ".join(shape_of(a).to_hlo(layout=False) for a in arrays)
        raise error(
            instr,
            count_label,
            f"start_indices must be {rank} integer scalars or one vector of {rank} elements",
            got or "none",
        )
    return [int(v) for v in values]


# ---- slice ---------------------------------------------------------------------------------


@evaluates(Opcode.SLICE)
def slice_(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Slice: extracts ``operand[start:limit:stride]`` per dimension.

    Spec: OPS.md Slice (``result[i] = operand[start + i * stride]``, result size
    ``ceil((limit - start) / stride)``); stablehlo#slice C2-C4.
    """
    operand = array_operand(instr, operands[0], "operand")
    spec: SliceSpec = instr.attrs.slice
    if len(spec.dimensions) != operand.ndim:
        raise error(
            instr, "C2", "slice needs one [start:limit:stride] per operand dimension", str(spec)
        )
    index = []
    for d, (dim, size) in enumerate(zip(spec.dimensions, operand.shape, strict=True)):
        if not (0 <= dim.start <= dim.limit <= size) or dim.stride < 1:
            raise error(
                instr,
                "C3",
                f"dimension {d} needs 0 <= start <= limit <= {size} and stride >= 1",
                f"[{dim.start}:{dim.limit}:{dim.stride}]",
            )
        index.append(slice(dim.start, dim.limit, dim.stride))
    return np.array(operand[tuple(index)], copy=True)


# ---- concatenate ---------------------------------------------------------------------------


@evaluates(Opcode.CONCATENATE)
def concatenate(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Concatenate: joins the inputs along ``dimension`` in operand order.

    Spec: OPS.md ConcatInDim; stablehlo#concatenate C1-C6.
    """
    inputs = [array_operand(instr, v, f"input {i}") for i, v in enumerate(operands)]
    (dimension,) = instr.attrs.dimensions
    if not inputs:
        raise error(instr, "C3", "needs at least one input", "none")
    rank = inputs[0].ndim
    if not 0 <= dimension < rank:
        raise error(instr, "C4", f"dimension must be in [0, {rank})", str(dimension))
    for i, x in enumerate(inputs):
        same = x.ndim == rank and all(
            a == b
            for d, (a, b) in enumerate(zip(x.shape, inputs[0].shape, strict=True))
            if d != dimension
        )
        if not same:
            raise error(
                instr,
                "C2",
                f"inputs must have equal dimensions except dimension {dimension}",
                f"{list(inputs[0].shape)} (input 0) and {list(x.shape)} (input {i})",
            )
    return np.concatenate(inputs, axis=dimension).astype(inputs[0].dtype, copy=False)


# ---- pad -----------------------------------------------------------------------------------


def pad_array(
    instr: HloInstruction,
    operand: Array,
    padding_value: Array,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int],
) -> Array:
    """``operand`` with ``interior`` padding between elements, then ``low``/``high`` edge
    padding (negative edges remove elements), filled with ``padding_value``.

    Spec: stablehlo#pad: ``result[result_index] = operand[operand_index]`` where
    ``result_index = edge_padding_low + operand_index * (interior_padding + 1)``.
    """
    if np.asarray(padding_value).shape != ():
        raise error(
            instr, "C1", "padding_value must be a scalar", str(list(np.shape(padding_value)))
        )
    rank = operand.ndim
    if not len(low) == len(high) == len(interior) == rank:
        raise error(
            instr,
            "C2",
            f"padding needs {rank} (low, high, interior) triples",
            f"low={list(low)} high={list(high)} interior={list(interior)}",
        )
    if any(i < 0 for i in interior):
        raise error(instr, "C3", "interior padding must be >= 0", str(list(interior)))
    result_dims = [
        lo + hi + n + max(n - 1, 0) * it
        for lo, hi, n, it in zip(low, high, operand.shape, interior, strict=True)
    ]
    if any(n < 0 for n in result_dims):
        raise error(
            instr,
            "C4",
            "result dimensions must be >= 0",
            f"{result_dims} from operand {list(operand.shape)}, low={list(low)}, "
            f"high={list(high)}, interior={list(interior)}",
        )
    result = np.full(result_dims, padding_value, dtype=operand.dtype)
    # result_index = edge_padding_low + operand_index * (interior_padding + 1), kept in bounds.
    operand_index, result_index = [], []
    for lo, n, it, out in zip(low, operand.shape, interior, result_dims, strict=True):
        positions = lo + np.arange(n, dtype=np.int64) * (it + 1)
        inside = (positions >= 0) & (positions < out)
        operand_index.append(np.nonzero(inside)[0])
        result_index.append(positions[inside])
    result[np.ix_(*result_index)] = operand[np.ix_(*operand_index)]
    return result


@evaluates(Opcode.PAD)
def pad(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Pad: edge padding (may be negative) and interior padding with ``padding_value``.

    Spec: OPS.md Pad; stablehlo#pad C1-C4. Interior padding is applied before edge padding.
    """
    operand = array_operand(instr, operands[0], "operand")
    padding_value = array_operand(instr, operands[1], "padding_value")
    config: PaddingConfig = instr.attrs.padding
    dims = config.dimensions
    return pad_array(
        instr,
        operand,
        padding_value,
        [d.low for d in dims],
        [d.high for d in dims],
        [d.interior for d in dims],
    )


# ---- reverse -------------------------------------------------------------------------------


@evaluates(Opcode.REVERSE)
def reverse(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Reverse: ``result[i] = operand[j]`` with ``j[d] = dim(d) - i[d] - 1`` for every ``d``
    in ``dimensions``, ``j[d] = i[d]`` otherwise.

    Spec: OPS.md Rev; stablehlo#reverse C2-C3.
    """
    operand = array_operand(instr, operands[0], "operand")
    dimensions = tuple(instr.attrs.dimensions)
    if len(set(dimensions)) != len(dimensions) or any(
        not 0 <= d < operand.ndim for d in dimensions
    ):
        raise error(
            instr,
            "C2-C3",
            f"dimensions must be unique and in [0, {operand.ndim})",
            str(list(dimensions)),
        )
    return np.array(np.flip(operand, axis=dimensions), copy=True)


# ---- dynamic-slice / dynamic-update-slice --------------------------------------------------


def clamped_starts(
    instr: HloInstruction,
    starts: Sequence[int],
    dims: Sequence[int],
    sizes: Sequence[int],
    label: str,
) -> list[int]:
    """``clamp(start_indices[d], 0, operand.dim(d) - sizes[d])`` for every dimension."""
    for d, (n, size) in enumerate(zip(dims, sizes, strict=True)):
        if not 0 <= size <= n:
            raise error(
                instr,
                label,
                f"size of dimension {d} must be in [0, {n}]",
                f"sizes {list(sizes)} for operand dims {list(dims)}",
            )
    return [min(max(s, 0), n - size) for s, n, size in zip(starts, dims, sizes, strict=True)]


@evaluates(Opcode.DYNAMIC_SLICE)
def dynamic_slice(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Dynamic-slice: the slice of ``slice_sizes`` at runtime ``start_indices``, each start
    clamped to ``[0, operand.dim(d) - slice_sizes[d]]`` so the slice is always in bounds.

    Spec: OPS.md DynamicSlice; stablehlo#dynamic_slice. Start indices are N integer scalars
    (HLO/StableHLO) or one rank-1 vector (old XLA form).
    """
    operand = array_operand(instr, operands[0], "operand")
    slice_sizes = tuple(instr.attrs.dynamic_slice_sizes)
    if len(slice_sizes) != operand.ndim:
        raise error(
            instr,
            "C2",
            f"slice_sizes must have one entry per operand dimension ({operand.ndim})",
            str(list(slice_sizes)),
        )
    starts = start_indices(instr, operands[1:], operand.ndim, ("C2", "C3"))
    # adjusted_start_indices = clamp(0, start_indices, shape(operand) - slice_sizes)
    adjusted = clamped_starts(instr, starts, operand.shape, slice_sizes, "C4")
    index = tuple(slice(s, s + n) for s, n in zip(adjusted, slice_sizes, strict=True))
    return np.array(operand[index], copy=True)


@evaluates(Opcode.DYNAMIC_UPDATE_SLICE)
def dynamic_update_slice(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Dynamic-update-slice: ``operand`` with ``update`` written at runtime ``start_indices``,
    each start clamped to ``[0, operand.dim(d) - update.dim(d)]``.

    Spec: OPS.md DynamicUpdateSlice; stablehlo#dynamic_update_slice C1-C5.
    """
    operand = array_operand(instr, operands[0], "operand")
    update = array_operand(instr, operands[1], "update")
    if update.ndim != operand.ndim or update.dtype != operand.dtype:
        raise error(
            instr,
            "C2-C3",
            "update must have the operand's rank and element type",
            f"{shape_of(update).to_hlo(layout=False)} for operand "
            f"{shape_of(operand).to_hlo(layout=False)}",
        )
    starts = start_indices(instr, operands[2:], operand.ndim, ("C4", "C5"))
    adjusted = clamped_starts(instr, starts, operand.shape, update.shape, "C6")
    result = np.array(operand, copy=True)
    index = tuple(slice(s, s + n) for s, n in zip(adjusted, update.shape, strict=True))
    result[index] = update
    return result
