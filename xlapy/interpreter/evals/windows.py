"""Windowed ops: reduce-window (variadic, strides, padding, base and window dilation) and
select-and-scatter.

Spec: OPS.md A.9 (window geometry), ReduceWindow, SelectAndScatter. Both loop over the
positions inside one window (row-major) and are vectorised over all window placements.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evals.reduce import apply_computation, collate, result_shapes
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.attrs import Window, WindowDimension
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value


@dataclass(frozen=True)
class WindowTap:
    """One position inside the window, seen from every window placement at once.

    ``index`` are per-dimension operand indices (open-mesh broadcastable, clipped to valid),
    ``padding`` marks placements where this position falls into padding, ``hole`` where it
    falls into a base-dilation hole (and not into padding).
    """

    offsets: tuple[int, ...]
    index: tuple[Array, ...]
    padding: Array
    hole: Array


def window_output_dims(
    op: str, instr: HloInstruction, operand_dims: Sequence[int], window: Window
) -> tuple[int, ...]:
    """Number of window placements per dimension (OPS.md A.9)."""
    dims = window.dimensions
    if len(dims) != len(operand_dims):
        raise InvalidArgument(
            f"{op} {instr.name}: the window must have one dimension per operand dimension "
            f"({len(operand_dims)}); got window={window}"
        )
    out = []
    for n, d in zip(operand_dims, dims, strict=True):
        if d.size < 1 or d.stride < 1 or d.base_dilation < 1 or d.window_dilation < 1:
            raise InvalidArgument(
                f"{op} {instr.name}: window size, stride and dilations must be >= 1; "
                f"got window={window}"
            )
        dilated = (n - 1) * d.base_dilation + 1 if n else 0
        padded = d.padding_low + dilated + d.padding_high
        effective = (d.size - 1) * d.window_dilation + 1
        out.append((padded - effective) // d.stride + 1 if padded >= effective else 0)
    return tuple(out)


def window_taps(
    operand_dims: Sequence[int], window: Window, out_dims: Sequence[int]
) -> Iterator[WindowTap]:
    """Yields every position of the window in row-major order.

    For a placement ``o`` and window position ``k`` of one dimension, the coordinate in the
    padded, base-dilated operand is ``q = o*stride + k*window_dilation - padding_low``; it is
    padding when outside ``[0, (n-1)*base_dilation]``, a hole when ``q % base_dilation != 0``,
    and operand element ``q / base_dilation`` otherwise.
    """
    rank = len(operand_dims)
    dims: Sequence[WindowDimension] = window.dimensions
    for offsets in itertools.product(*(range(d.size) for d in dims)):
        index, padding, hole = [], np.zeros((1,) * rank, bool), np.zeros((1,) * rank, bool)
        for axis, (n, d, o, k) in enumerate(
            zip(operand_dims, dims, out_dims, offsets, strict=True)
        ):
            q = np.arange(o) * d.stride + k * d.window_dilation - d.padding_low
            dilated = (n - 1) * d.base_dilation + 1 if n else 0
            pad = (q < 0) | (q >= dilated)
            holes = ~pad & (q % d.base_dilation != 0)
            idx = np.where(pad | holes, 0, q // d.base_dilation)
            shape = [1] * rank
            shape[axis] = o
            index.append(idx.reshape(shape))
            padding = padding | pad.reshape(shape)
            hole = hole | holes.reshape(shape)
        yield WindowTap(tuple(offsets), tuple(index), padding, hole & ~padding)


# ---- reduce-window -------------------------------------------------------------------------


@evaluates(Opcode.REDUCE_WINDOW)
def reduce_window(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """ReduceWindow: reduces every window of N arrays with ``to_apply``.

    Spec: OPS.md ReduceWindow and A.9. Each output starts at the init values (passed on the
    left) and is combined with the window's cells in row-major window order, the order
    XLA:CPU uses. Padding cells hold the init value; base-dilation holes are skipped.
    """
    if len(operands) % 2:
        raise InvalidArgument(
            f"reduce-window {instr.name}: expects N inputs followed by N init values; "
            f"got {len(operands)} operands"
        )
    n = len(operands) // 2
    inputs = [np.asarray(v) for v in operands[:n]]
    inits = [np.asarray(v) for v in operands[n:]]
    for i, x in enumerate(inputs):
        if x.shape != inputs[0].shape:
            raise InvalidArgument(
                f"reduce-window {instr.name}: all inputs must have the same shape; "
                f"got {inputs[0].shape} (input 0) and {x.shape} (input {i})"
            )
    window: Window = instr.attrs.window
    operand_dims = inputs[0].shape
    if not window.dimensions and operand_dims:
        window = Window.make([1] * len(operand_dims))
    out_dims = window_output_dims("reduce-window", instr, operand_dims, window)
    shapes = result_shapes(instr.shape)
    # Dynamic result dimensions (``?`` / ``<=N``) take their size from the operands.
    if any(
        len(s.dims) != len(out_dims)
        or any(not dyn and d != o for d, dyn, o in zip(s.dims, s.dynamic, out_dims, strict=True))
        for s in shapes
    ):
        raise InvalidArgument(
            f"reduce-window {instr.name}: window={window} over {list(operand_dims)} gives "
            f"{list(out_dims)}; got result shape {instr.shape}"
        )
    acc = [
        np.broadcast_to(init, out_dims).astype(s.element_type.numpy)
        for init, s in zip(inits, shapes, strict=True)
    ]
    if math.prod(out_dims) and math.prod(operand_dims):
        comp = instr.attrs.to_apply
        for tap in window_taps(operand_dims, window, out_dims):
            if tap.hole.all():
                continue
            values = [
                np.where(tap.padding, init, x[tap.index])
                for x, init in zip(inputs, inits, strict=True)
            ]
            combined = apply_computation(ctx, comp, [*acc, *values])
            acc = [np.where(tap.hole, a, c) for a, c in zip(acc, combined, strict=True)]
    elif math.prod(out_dims):
        # An empty operand: every cell of every window is padding.
        comp = instr.attrs.to_apply
        for _ in itertools.product(*(range(d.size) for d in window.dimensions)):
            acc = list(
                apply_computation(ctx, comp, [*acc, *(np.broadcast_to(i, out_dims) for i in inits)])
            )
    return collate(
        instr, [np.array(a, dtype=s.element_type.numpy) for a, s in zip(acc, shapes, strict=True)]
    )


# ---- select-and-scatter --------------------------------------------------------------------


@evaluates(Opcode.SELECT_AND_SCATTER)
def select_and_scatter(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """SelectAndScatter: picks one element per window with ``select``, then combines each
    ``source`` element into the picked position with ``scatter``.

    Spec: OPS.md SelectAndScatter. ``select(a, b)`` is called with ``a`` the element of the
    lexicographically smaller index (the one selected so far) and keeps ``a`` when true.
    Padding cells are never selected. The output starts at ``init_value``; source elements
    are scattered in row-major order, so overlapping windows combine in that order.
    """
    operand, source, init = (np.asarray(v) for v in operands)
    window: Window = instr.attrs.window
    if not window.dimensions and operand.shape:
        window = Window.make([1] * operand.ndim)
    out_dims = window_output_dims("select-and-scatter", instr, operand.shape, window)
    if source.shape != out_dims:
        raise InvalidArgument(
            f"select-and-scatter {instr.name}: source must have the shape of the windows "
            f"{list(out_dims)}; got {list(source.shape)}"
        )
    dtype = instr.shape.element_type.numpy
    result = np.broadcast_to(init, operand.shape).astype(dtype)
    if not source.size or not operand.size:
        return result
    select = instr.attrs.select
    flat_index = np.arange(operand.size).reshape(operand.shape)
    chosen_value = np.zeros(out_dims, operand.dtype)
    chosen_index = np.zeros(out_dims, np.int64)
    has_choice = np.zeros(out_dims, bool)
    for tap in window_taps(operand.shape, window, out_dims):
        valid = ~(tap.padding | tap.hole)
        if not valid.any():
            continue
        value = operand[tap.index]
        index = flat_index[tap.index]
        (keep,) = apply_computation(ctx, select, [chosen_value, value])
        take = valid & (~has_choice | ~keep.astype(bool))
        chosen_value = np.where(take, value, chosen_value)
        chosen_index = np.where(take, index, chosen_index)
        has_choice = has_choice | valid
    targets = chosen_index[has_choice]
    updates = source[has_choice]
    # Sequential scatter, vectorised in rounds: round r applies the r-th update of every
    # target (in source order), so each round writes distinct positions.
    order = np.argsort(targets, kind="stable")
    sorted_targets = targets[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_targets)) + 1]
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    flat = result.reshape(-1)
    scatter = instr.attrs.scatter
    for r in range(int(rank.max()) + 1 if len(rank) else 0):
        pick = order[rank == r]
        positions = targets[pick]
        (combined,) = apply_computation(ctx, scatter, [flat[positions], updates[pick]])
        flat[positions] = combined
    return flat.reshape(operand.shape)
