"""Dynamic shapes: get-dimension-size, set-dimension-size, dynamic-reshape, and the StableHLO
dynamic ops dynamic-broadcast-in-dim, dynamic-iota, dynamic-pad, real-dynamic-slice and
dynamic-gather, all evaluated with the runtime sizes.

Spec: OPS.md GetDimensionSize, SetDimensionSize, DynamicReshape; stablehlo#dynamic_*,
#real_dynamic_slice. Runtime arrays carry their actual sizes; result shapes may have
unbounded (``?``) or bounded (``<=N``) dims, so sizes come from the operands.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy.interpreter.evals.gather_scatter import gather_array
from xlapy.interpreter.evals.shape_ops import broadcast_in_dim, iota_values
from xlapy.interpreter.evals.slicing import array_operand, error, index_values, pad_array
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value, shape_of


def _shape_operand(
    instr: HloInstruction, value: Value, name: str, size: int | None = None
) -> list[int]:
    """A rank-1 integer tensor of sizes or indices (``output_shape``, ``low``, ``start``...)
    as Python ints; ``size`` is the number of elements it must have."""
    array = array_operand(instr, value, name)
    integer = array.dtype.kind in "iu" or array.dtype.name.startswith(("int", "uint"))
    if array.ndim != 1 or not integer or (size is not None and array.shape[0] != size):
        want = f"{size} " if size is not None else ""
        raise error(
            instr,
            "",
            f"{name} must be a rank-1 integer tensor of {want}elements",
            shape_of(array).to_hlo(layout=False),
        )
    return [int(v) for v in index_values(array)]


def _dimension(instr: HloInstruction, rank: int) -> int:
    (dimension,) = instr.attrs.dimensions
    if not 0 <= dimension < rank:
        raise error(instr, "C1", f"dimension must be in [0, {rank})", str(dimension))
    return int(dimension)


# ---- get/set-dimension-size ----------------------------------------------------------------


@evaluates(Opcode.GET_DIMENSION_SIZE)
def get_dimension_size(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """GetDimensionSize: the (runtime) size of ``dimension`` as an s32 scalar.

    Spec: OPS.md GetDimensionSize; stablehlo#get_dimension_size C1.
    """
    operand = array_operand(instr, operands[0], "operand")
    dimension = _dimension(instr, operand.ndim)
    return np.array(operand.shape[dimension], dtype=instr.shape.element_type.numpy)


@evaluates(Opcode.SET_DIMENSION_SIZE)
def set_dimension_size(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """SetDimensionSize: the operand with the runtime size of ``dimension`` set to ``size``.

    Spec: OPS.md SetDimensionSize. The static bound is unchanged; elements past ``size`` are
    dropped (downstream ops ignore them). Growing past the operand's runtime size pads with
    zeros (the padding of a dynamic buffer is unspecified); beyond the bound is an error.
    """
    operand = array_operand(instr, operands[0], "operand")
    dimension = _dimension(instr, operand.ndim)
    size_value = array_operand(instr, operands[1], "size")
    if size_value.shape != ():
        raise error(instr, "C2", "size must be a scalar", shape_of(size_value).to_hlo())
    size = int(index_values(size_value))
    bound = instr.shape.dims[dimension] if instr.shape.is_array else operand.shape[dimension]
    if not 0 <= size <= bound:
        raise error(
            instr,
            "C3",
            f"size must be in [0, {bound}] (the bound of dimension {dimension})",
            str(size),
        )
    index = [slice(None)] * operand.ndim
    index[dimension] = slice(0, size)
    result = np.array(operand[tuple(index)], copy=True)
    missing = size - result.shape[dimension]
    if missing > 0:
        widths = [(0, 0)] * operand.ndim
        widths[dimension] = (0, missing)
        result = np.pad(result, widths).astype(operand.dtype)
    return result


# ---- dynamic-reshape, dynamic-broadcast-in-dim, dynamic-iota -------------------------------


@evaluates(Opcode.DYNAMIC_RESHAPE)
def dynamic_reshape(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """DynamicReshape: Reshape to the runtime sizes ``output_shape`` (one 1-D tensor) or
    ``dim_sizes`` (one scalar per result dimension).

    Spec: OPS.md DynamicReshape; stablehlo#dynamic_reshape C1-C4.
    """
    operand = array_operand(instr, operands[0], "operand")
    rest = operands[1:]
    if len(rest) == 1 and isinstance(rest[0], np.ndarray) and rest[0].ndim == 1:
        sizes = _shape_operand(instr, rest[0], "output_shape", instr.shape.rank)
    else:
        scalars = [array_operand(instr, v, f"dim_sizes[{i}]") for i, v in enumerate(rest)]
        if len(scalars) != instr.shape.rank or any(s.ndim for s in scalars):
            got = ", ".join(shape_of(s).to_hlo(layout=False) for s in scalars)
            raise error(
                instr,
                "C3",
                f"needs one output_shape vector or {instr.shape.rank} dim_sizes scalars",
                got or "none",
            )
        sizes = [int(index_values(s)) for s in scalars]
    _check_sizes(instr, sizes, "output_shape")
    if int(np.prod(sizes, dtype=np.int64)) != operand.size:
        raise error(
            instr,
            "C4",
            "output_shape must have as many elements as the operand",
            f"output_shape {sizes} for operand {list(operand.shape)} ({operand.size} elements)",
        )
    return np.array(operand.reshape(sizes), copy=True)


def _check_sizes(instr: HloInstruction, sizes: Sequence[int], name: str) -> None:
    """Runtime sizes must be >= 0 and within the static (or bounded) result dims."""
    shape = instr.shape
    for d, n in enumerate(sizes):
        static = shape.dims[d] if shape.is_array and d < shape.rank else -1
        if (
            n < 0
            or (static >= 0 and n > static)
            or (static >= 0 and not shape.dynamic[d] and n != static)
        ):
            raise error(
                instr,
                "",
                f"{name} must be >= 0 and match the result shape {shape}",
                str(list(sizes)),
            )


@evaluates(Opcode.DYNAMIC_BROADCAST_IN_DIM)
def dynamic_broadcast_in_dim(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """DynamicBroadcastInDim: BroadcastInDim to the runtime ``output_dimensions``.

    Spec: stablehlo#dynamic_broadcast_in_dim (``known_expanding_dimensions`` and
    ``known_nonexpanding_dimensions`` are hints: a size-1 operand dimension expands, any other
    must equal the output dimension).
    """
    operand = array_operand(instr, operands[0], "operand")
    output_dimensions = _shape_operand(instr, operands[1], "output_dimensions", instr.shape.rank)
    _check_sizes(instr, output_dimensions, "output_dimensions")
    return broadcast_in_dim(instr, operand, output_dimensions, tuple(instr.attrs.dimensions))


@evaluates(Opcode.DYNAMIC_IOTA)
def dynamic_iota(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """DynamicIota: Iota of the runtime ``output_shape``. Spec: stablehlo#dynamic_iota."""
    output_shape = _shape_operand(instr, operands[0], "output_shape", instr.shape.rank)
    _check_sizes(instr, output_shape, "output_shape")
    iota_dimension = instr.attrs.iota_dimension
    if not 0 <= iota_dimension < len(output_shape):
        raise error(
            instr,
            "C1",
            f"iota_dimension must be in [0, {len(output_shape)})",
            str(iota_dimension),
        )
    return iota_values(instr.shape, output_shape, iota_dimension)


# ---- dynamic-pad, real-dynamic-slice, dynamic-gather ---------------------------------------


@evaluates(Opcode.DYNAMIC_PAD)
def dynamic_pad(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """DynamicPad: Pad with runtime ``edge_padding_low``, ``edge_padding_high`` and
    ``interior_padding``. Spec: stablehlo#dynamic_pad."""
    operand = array_operand(instr, operands[0], "operand")
    padding_value = array_operand(instr, operands[1], "padding_value")
    rank = operand.ndim
    low = _shape_operand(instr, operands[2], "edge_padding_low", rank)
    high = _shape_operand(instr, operands[3], "edge_padding_high", rank)
    interior = _shape_operand(instr, operands[4], "interior_padding", rank)
    # The padded sizes are checked against the result before anything is allocated.
    sizes = [lo + hi + n + max(n - 1, 0) * max(it, 0)
             for lo, hi, it, n in zip(low, high, interior, operand.shape, strict=True)]  # fmt: skip
    _check_sizes(instr, sizes, "the padded sizes")
    return pad_array(instr, operand, padding_value, low, high, interior)


@evaluates(Opcode.REAL_DYNAMIC_SLICE)
def real_dynamic_slice(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """RealDynamicSlice: Slice with runtime ``start_indices``, ``limit_indices`` and
    ``strides`` (no clamping: out-of-range values are an error).

    Spec: stablehlo#real_dynamic_slice.
    """
    operand = array_operand(instr, operands[0], "operand")
    rank = operand.ndim
    start = _shape_operand(instr, operands[1], "start_indices", rank)
    limit = _shape_operand(instr, operands[2], "limit_indices", rank)
    strides = _shape_operand(instr, operands[3], "strides", rank)
    index = []
    for d, (s, lim, st, n) in enumerate(zip(start, limit, strides, operand.shape, strict=True)):
        if not (0 <= s <= lim <= n) or st < 1:
            raise error(
                instr,
                "",
                f"dimension {d} needs 0 <= start <= limit <= {n} and stride >= 1",
                f"start_indices={start} limit_indices={limit} strides={strides}",
            )
        index.append(slice(s, lim, st))
    return np.array(operand[tuple(index)], copy=True)


@evaluates(Opcode.DYNAMIC_GATHER)
def dynamic_gather(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """DynamicGather: Gather with the runtime ``slice_sizes`` tensor.

    Spec: stablehlo#dynamic_gather (= stablehlo#gather with ``slice_sizes`` an operand).
    """
    operand = array_operand(instr, operands[0], "operand")
    start_indices = array_operand(instr, operands[1], "start_indices")
    slice_sizes = _shape_operand(instr, operands[2], "slice_sizes", operand.ndim)
    result = gather_array(instr, operand, start_indices, slice_sizes)
    declared = instr.shape
    if any(not dyn and n != got for n, got, dyn in
           zip(declared.dims, result.shape, declared.dynamic, strict=True)):  # fmt: skip
        raise error(
            instr,
            "C23",
            f"slice_sizes {slice_sizes} give a result of dims {list(result.shape)}, which the "
            f"declared result {declared.to_hlo(layout=False)} does not allow",
            f"slice_sizes={slice_sizes}",
        )
    return result
