"""Builder ops that create or move data: Parameter, the constants, Iota, Broadcast,
BroadcastInDim, Reshape, Collapse, Transpose, Rev, Slice, DynamicSlice, DynamicUpdateSlice,
ConcatInDim, Pad, Tuple, GetTupleElement, Gather, Scatter and the dynamic-size ops.
Re-exported by ``xlapy.builder.ops``."""

# ruff: noqa: N802

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

from xlapy import dtypes
from xlapy.builder.config import GatherDimensionNumbers, ScatterDimensionNumbers, padding_config
from xlapy.builder.helpers import (
    broadcast_to,
    etype,
    int_arg,
    ints,
    op_list,
    pick_builder,
    reshape,
    sizes,
    split_builder,
    to_shape,
    xla_op,
)
from xlapy.builder.xla_builder import (
    ComputationLike,
    Operand,
    XlaBuilder,
    XlaOp,
    argument_error,
    as_op,
    python_constant,
)
from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import PaddingConfig, SliceDimension, SliceSpec
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal
from xlapy.shape import Shape

# ---- parameters and constants --------------------------------------------------------


def Parameter(
    builder: XlaBuilder,
    parameter_number: int,
    shape: Shape | str,
    name: str = "",
    replicated_at_leaf_buffers: Sequence[bool] = (),
) -> XlaOp:
    """Input ``parameter_number`` of the computation, of ``shape`` (OPS.md Parameter)."""
    attrs: dict[str, Any] = {"parameter_number": int(parameter_number)}
    if replicated_at_leaf_buffers:
        attrs["parameter_replication"] = tuple(bool(v) for v in replicated_at_leaf_buffers)
    return builder.add(
        Opcode.PARAMETER, [], attrs, to_shape(shape), name=name or f"parameter.{parameter_number}"
    )


def ConstantLiteral(builder: XlaBuilder, literal: Literal) -> XlaOp:
    """A constant holding ``literal`` (OPS.md Constant)."""
    if not isinstance(literal, Literal):
        raise InvalidArgument(f"constant: expected a Literal; got {type(literal).__name__}")
    return builder.add(Opcode.CONSTANT, [], {"literal": literal})


def Constant(builder: XlaBuilder, value: object, dtype: object = None) -> XlaOp:
    """A constant from an ndarray (its dtype, ml_dtypes included, is the element type), a
    Literal, or a Python value with optional ``dtype``."""
    if isinstance(value, Literal):
        return ConstantLiteral(builder, value)
    return ConstantLiteral(builder, Literal.from_numpy(_constant_array(value, dtype, None)))


def _constant_array(value: object, dtype: object, default: object) -> np.ndarray:
    """``value`` as an array: numpy values keep their dtype (or are converted to an explicit
    ``dtype``); Python values become ``dtype`` (else ``default``, else numpy's choice) only
    when no value changes."""
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value) if dtype is None else np.asarray(value, etype(dtype).numpy)
    target = dtype if dtype is not None else default
    if target is not None:
        return python_constant(value, etype(target), "value")
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        array = np.asarray(None)
    if array.dtype.kind not in "biufc":
        raise argument_error(
            "value", f"must be a number, a (rectangular) list of numbers or an array; got "
            f"{value!r:.60}"
        )  # fmt: skip
    return array


def _default_dtype(value: object) -> object:
    """f32 for floats, s32 for ints, pred for bools, c64 for complex (XLA's ConstantR*<T>)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        return None  # ragged: _constant_array reports it
    if array.dtype == np.bool_:
        return dtypes.PRED
    if np.issubdtype(array.dtype, np.integer) and not isinstance(value, np.ndarray | np.generic):
        return dtypes.S32
    if np.issubdtype(array.dtype, np.floating) and not isinstance(value, np.ndarray | np.generic):
        return dtypes.F32
    if np.issubdtype(array.dtype, np.complexfloating) and not isinstance(
        value, np.ndarray | np.generic
    ):
        return dtypes.C64
    return array.dtype


def _constant_rank(builder: XlaBuilder, value: object, dtype: object, rank: int) -> XlaOp:
    array = _constant_array(value, dtype, _default_dtype(value))
    if array.ndim != rank:
        raise InvalidArgument(f"constant: ConstantR{rank} needs a rank-{rank} value; got "
                              f"shape {list(array.shape)}")  # fmt: skip
    return ConstantLiteral(builder, Literal.from_numpy(array))


def ConstantR0(builder: XlaBuilder, value: object, dtype: object = None) -> XlaOp:
    """A scalar constant (Python float -> f32, int -> s32, bool -> pred unless ``dtype``)."""
    return _constant_rank(builder, value, dtype, 0)


def ConstantR1(builder: XlaBuilder, values: object, dtype: object = None) -> XlaOp:
    """A vector constant; ``ConstantR1(builder, length, value)`` repeats ``value``."""
    if isinstance(values, int) and dtype is not None and not isinstance(dtype, str | type):
        values, dtype = [dtype] * values, None
    return _constant_rank(builder, values, dtype, 1)


def ConstantR2(builder: XlaBuilder, values: object, dtype: object = None) -> XlaOp:
    return _constant_rank(builder, values, dtype, 2)


def ConstantR3(builder: XlaBuilder, values: object, dtype: object = None) -> XlaOp:
    return _constant_rank(builder, values, dtype, 3)


def ConstantR4(builder: XlaBuilder, values: object, dtype: object = None) -> XlaOp:
    return _constant_rank(builder, values, dtype, 4)


def ConstantFromArray(builder: XlaBuilder, array: object) -> XlaOp:
    return Constant(builder, array)


def ConstantR0WithType(builder: XlaBuilder, type: object, value: object) -> XlaOp:
    return ConstantR0(builder, value, type)


def _limit(type_: object, which: str) -> XlaOp | np.ndarray:
    t = etype(type_)
    numpy_type = t.numpy
    if numpy_type is None or not (t.is_pred or t.is_integer or t.is_float):
        raise argument_error("type", f"has no {which.replace('_', ' ')} value; got {t}")
    if t.is_pred:
        return np.asarray(which in ("max", "max_finite"), dtype=numpy_type)
    if t.is_integer:
        info = ml_dtypes.iinfo(numpy_type)  # type: ignore[no-untyped-call]
        return np.asarray(info.min if which.startswith("min") else info.max, dtype=numpy_type)
    finfo = ml_dtypes.finfo(numpy_type)  # type: ignore[no-untyped-call]
    has_inf = bool(np.isinf(np.asarray(float("inf")).astype(numpy_type)))
    if which == "min" and has_inf:
        return np.asarray(-np.inf).astype(numpy_type)
    if which == "max" and has_inf:
        return np.asarray(np.inf).astype(numpy_type)
    return np.asarray(finfo.min if which.startswith("min") else finfo.max).astype(numpy_type)


def MinValue(builder: XlaBuilder, type: object) -> XlaOp:
    """The smallest value of ``type``: -inf for floats that have it, else the minimum."""
    return Constant(builder, _limit(type, "min"))


def MaxValue(builder: XlaBuilder, type: object) -> XlaOp:
    """The largest value of ``type``: +inf for floats that have it, else the maximum."""
    return Constant(builder, _limit(type, "max"))


def MinFiniteValue(builder: XlaBuilder, type: object) -> XlaOp:
    return Constant(builder, _limit(type, "min_finite"))


def MaxFiniteValue(builder: XlaBuilder, type: object) -> XlaOp:
    return Constant(builder, _limit(type, "max_finite"))


def Zero(builder: XlaBuilder, type: object) -> XlaOp:
    return Constant(builder, np.zeros((), etype(type).numpy))


def One(builder: XlaBuilder, type: object) -> XlaOp:
    return Constant(builder, np.ones((), etype(type).numpy))


def Zeros(builder: XlaBuilder, shape: Shape | str) -> XlaOp:
    s = to_shape(shape)
    return Broadcast(Zero(builder, s.element_type), s.dims)


def Iota(builder: XlaBuilder, shape: Shape | str | object, iota_dimension: int = 0) -> XlaOp:
    """An array of ``shape`` counting up from 0 along ``iota_dimension`` (OPS.md Iota);
    ``Iota(builder, type, size)`` makes a vector."""
    if isinstance(shape, Shape) or (isinstance(shape, str) and "[" in shape):
        result = to_shape(shape)
        return builder.add(Opcode.IOTA, [], {"iota_dimension": int(iota_dimension)}, result)
    result = Shape.array(etype(shape), sizes([iota_dimension], "size"))
    return builder.add(Opcode.IOTA, [], {"iota_dimension": 0}, result)


# ---- broadcast and reshape -----------------------------------------------------------


def Broadcast(operand: XlaOp, broadcast_sizes: Sequence[int]) -> XlaOp:
    """Adds dimensions of ``broadcast_sizes`` on the left (OPS.md Broadcast)."""
    added = sizes(broadcast_sizes, "broadcast_sizes")
    dims = (*added, *operand.shape.dims)
    mapping = tuple(range(len(added), len(dims)))
    return operand.builder.add(
        Opcode.BROADCAST, [operand], {"dimensions": mapping}, Shape.array(operand.dtype, dims)
    )


def BroadcastInDim(
    operand: XlaOp, out_dim_size: Sequence[int], broadcast_dimensions: Sequence[int]
) -> XlaOp:
    """Broadcasts to ``out_dim_size``, operand dimension i going to output dimension
    ``broadcast_dimensions[i]``; size-1 dimensions expand (OPS.md BroadcastInDim)."""
    dims = sizes(out_dim_size, "out_dim_size")
    mapping = ints(broadcast_dimensions, "broadcast_dimensions")
    result = Shape.array(operand.dtype, dims)
    # Validate with the op's own rule (labels C1-C5) before lowering to XLA-style HLO.
    from xlapy.shape_inference import infer_shape

    infer_shape(Opcode.BROADCAST, [operand.shape], {"dimensions": mapping}, result=result)
    return broadcast_to(operand, dims, mapping)


def Reshape(*args: Any) -> XlaOp:
    """``Reshape(operand, new_sizes)``; the old ``Reshape(operand, dimensions, new_sizes)``
    (collapse order ``dimensions`` = transpose first); and ``Reshape(shape, operand)`` with an
    explicit shape (OPS.md Reshape)."""
    if len(args) == 2 and isinstance(args[1], XlaOp):
        shape, operand = to_shape(args[0]), args[1]
        return operand.builder.add(Opcode.RESHAPE, [operand], {}, shape)
    if len(args) == 3:
        operand, dimensions, new_sizes = args
        operand = xla_op(operand, "operand")
        dims = ints(dimensions, "dimensions")
        if dims != tuple(range(operand.ndim)):
            operand = Transpose(operand, dims)
        return reshape(operand, ints(new_sizes, "new_sizes"))
    if len(args) != 2:
        raise InvalidArgument("reshape: expected (operand, new_sizes), (operand, dimensions, "
                              "new_sizes) or (shape, operand)")  # fmt: skip
    operand, new_sizes = args
    return reshape(xla_op(operand, "operand"), ints(new_sizes, "new_sizes"))


def Collapse(operand: XlaOp, dimensions: Sequence[int]) -> XlaOp:
    """Merges the consecutive, in-order ``dimensions`` into one (OPS.md Collapse)."""
    dims = ints(dimensions, "dimensions")
    if not dims:
        return operand
    if (
        dims != tuple(range(dims[0], dims[0] + len(dims)))
        or not 0 <= dims[0] < operand.ndim
        or (dims[-1] >= operand.ndim)
    ):
        raise InvalidArgument(
            f"collapse: dimensions must be consecutive and in order within [0, {operand.ndim}); "
            f"got {list(dims)} for {operand.shape.to_hlo(layout=False)}"
        )
    sizes = list(operand.shape.dims)
    merged = math.prod(sizes[dims[0] : dims[-1] + 1])
    return reshape(operand, [*sizes[: dims[0]], merged, *sizes[dims[-1] + 1 :]])


def DynamicReshape(
    operand: XlaOp,
    dim_sizes: Sequence[XlaOp],
    new_size_bounds: Sequence[int],
    dims_are_dynamic: Sequence[bool],
) -> XlaOp:
    """Reshape to runtime sizes bounded by ``new_size_bounds`` (OPS.md DynamicReshape)."""
    bounds = ints(new_size_bounds, "new_size_bounds")
    result = Shape(operand.dtype, bounds, tuple(bool(d) for d in dims_are_dynamic))
    return operand.builder.add(Opcode.DYNAMIC_RESHAPE, [operand, *op_list(list(dim_sizes),
                                                                          "dim_sizes")], {}, result)  # fmt: skip


def Transpose(operand: XlaOp, permutation: Sequence[int]) -> XlaOp:
    """Permutes the dimensions: output dimension i is operand dimension permutation[i]."""
    return operand.builder.add(
        Opcode.TRANSPOSE, [operand], {"dimensions": ints(permutation, "permutation")}
    )


def Rev(operand: XlaOp, dimensions: Sequence[int]) -> XlaOp:
    """Reverses the element order along ``dimensions`` (OPS.md Rev)."""
    return operand.builder.add(
        Opcode.REVERSE, [operand], {"dimensions": ints(dimensions, "dimensions")}
    )


# ---- slicing -------------------------------------------------------------------------


def Slice(
    operand: XlaOp,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> XlaOp:
    """The box ``[start, limit)`` taking every ``strides[d]``-th element (OPS.md Slice)."""
    starts = ints(start_indices, "start_indices")
    limits = ints(limit_indices, "limit_indices")
    steps = ints(strides, "strides") if strides is not None else (1,) * len(starts)
    if not len(starts) == len(limits) == len(steps):
        raise InvalidArgument(
            f"slice [C2]: start_indices, limit_indices and strides must have one entry per "
            f"dimension; got {list(starts)}, {list(limits)}, {list(steps)}"
        )
    spec = SliceSpec(tuple(SliceDimension(s, lim, st) for s, lim, st in zip(starts, limits, steps,
                                                                            strict=True)))  # fmt: skip
    return operand.builder.add(Opcode.SLICE, [operand], {"slice": spec})


def SliceInDim(
    operand: XlaOp, start_index: int, limit_index: int, stride: int, dimno: int
) -> XlaOp:
    """Slice along dimension ``dimno`` only."""
    starts = [0] * operand.ndim
    limits = list(operand.shape.dims)
    steps = [1] * operand.ndim
    if not 0 <= dimno < operand.ndim:
        raise InvalidArgument(f"slice: dimno must be in [0, {operand.ndim}); got {dimno}")
    starts[dimno], limits[dimno], steps[dimno] = start_index, limit_index, stride
    return Slice(operand, starts, limits, steps)


def _indices(builder: XlaBuilder, start_indices: object) -> list[XlaOp]:
    if isinstance(start_indices, XlaOp):
        return [start_indices]
    items = list(start_indices)  # type: ignore[call-overload]
    kinds = {o.dtype for o in items if isinstance(o, XlaOp)}
    index_type = kinds.pop() if len(kinds) == 1 else dtypes.S32
    return [as_op(builder, i, index_type) for i in items]


def DynamicSlice(
    operand: XlaOp, start_indices: Sequence[Operand] | XlaOp, slice_sizes: Sequence[int]
) -> XlaOp:
    """The slice of ``slice_sizes`` at runtime ``start_indices`` (N scalars), clamped into
    bounds (OPS.md DynamicSlice)."""
    indices = _indices(operand.builder, start_indices)
    return operand.builder.add(
        Opcode.DYNAMIC_SLICE,
        [operand, *indices],
        {"dynamic_slice_sizes": sizes(slice_sizes, "slice_sizes")},
    )


def DynamicUpdateSlice(
    operand: XlaOp, update: XlaOp, start_indices: Sequence[Operand] | XlaOp
) -> XlaOp:
    """``operand`` with ``update`` written at the clamped ``start_indices`` (OPS.md
    DynamicUpdateSlice)."""
    indices = _indices(operand.builder, start_indices)
    return operand.builder.add(Opcode.DYNAMIC_UPDATE_SLICE, [operand, update, *indices])


def ConcatInDim(*args: Any) -> XlaOp:
    """Concatenates arrays along ``dimension`` (OPS.md ConcatInDim): ``ConcatInDim(builder,
    operands, dimension)``, ``ConcatInDim(operands, dimension)`` or
    ``ConcatInDim(op0, op1, ..., dimension)``."""
    builder, rest = split_builder(args)
    if len(rest) < 2:
        raise InvalidArgument("concatenate: expected operands and a dimension")
    *ops_, dimension = rest
    operands = op_list(ops_[0], "operands") if len(ops_) == 1 else op_list(ops_, "operands")
    if builder is None and not operands:
        raise InvalidArgument("concatenate [C3]: needs at least one input; got 0")
    b = pick_builder(builder, operands)
    return b.add(Opcode.CONCATENATE, operands, {"dimensions": (int_arg(dimension, "dimension"),)})


Concatenate = ConcatInDim


def Pad(
    operand: XlaOp,
    padding_value: XlaOp | object,
    padding_config: PaddingConfig | Sequence[Sequence[int]],
) -> XlaOp:
    """Edge (possibly negative) and interior padding with ``padding_value`` (OPS.md Pad);
    ``padding_config`` is a PaddingConfig or (low, high[, interior]) per dimension."""
    config = _padding_config(padding_config)
    value = as_op(operand.builder, padding_value, operand.dtype)
    return operand.builder.add(Opcode.PAD, [operand, value], {"padding": config})


def _padding_config(config: object) -> PaddingConfig:
    return padding_config(config)  # type: ignore[arg-type]


def PadInDim(
    operand: XlaOp, padding_value: XlaOp | object, dimno: int, pad_lo: int, pad_hi: int
) -> XlaOp:
    """Edge padding along one dimension."""
    pads = [(0, 0, 0)] * operand.ndim
    if not 0 <= dimno < operand.ndim:
        raise InvalidArgument(f"pad: dimno must be in [0, {operand.ndim}); got {dimno}")
    pads[dimno] = (pad_lo, pad_hi, 0)
    return Pad(operand, padding_value, pads)


# ---- tuples and sizes ----------------------------------------------------------------


def Tuple(*args: Any) -> XlaOp:
    """A tuple of ``elements``: ``Tuple(builder, elements)`` or ``Tuple(elements)``."""
    builder, rest = split_builder(args)
    elements = op_list(rest[0] if len(rest) == 1 else rest, "elements") if rest else []
    b = pick_builder(builder, elements)
    return b.add(Opcode.TUPLE, elements)


def GetTupleElement(tuple_data: XlaOp, index: int) -> XlaOp:
    """Element ``index`` of a tuple (OPS.md GetTupleElement)."""
    return tuple_data.builder.add(Opcode.GET_TUPLE_ELEMENT, [tuple_data], {"index": int(index)})


def GetDimensionSize(operand: XlaOp, dimension: int) -> XlaOp:
    """The (dynamic) size of ``dimension`` as an s32 scalar (OPS.md GetDimensionSize)."""
    return operand.builder.add(
        Opcode.GET_DIMENSION_SIZE, [operand], {"dimensions": (int(dimension),)}
    )


def SetDimensionSize(operand: XlaOp, val: Operand, dimension: int) -> XlaOp:
    """Marks ``dimension`` dynamic with runtime size ``val`` (OPS.md SetDimensionSize)."""
    size = as_op(operand.builder, val, dtypes.S32)
    return operand.builder.add(
        Opcode.SET_DIMENSION_SIZE, [operand, size], {"dimensions": (int(dimension),)}
    )


# ---- gather and scatter --------------------------------------------------------------


def Gather(
    operand: XlaOp,
    start_indices: XlaOp,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool = False,
) -> XlaOp:
    """Stitches together slices of ``slice_sizes`` at runtime offsets (OPS.md Gather)."""
    d = dimension_numbers
    attrs = {
        "offset_dims": ints(d.offset_dims, "offset_dims"),
        "collapsed_slice_dims": ints(d.collapsed_slice_dims, "collapsed_slice_dims"),
        "start_index_map": ints(d.start_index_map, "start_index_map"),
        "operand_batching_dims": ints(d.operand_batching_dims, "operand_batching_dims"),
        "start_indices_batching_dims": ints(
            d.start_indices_batching_dims, "start_indices_batching_dims"
        ),
        "index_vector_dim": int_arg(d.index_vector_dim, "index_vector_dim"),
        "slice_sizes": ints(slice_sizes, "slice_sizes"),
        "indices_are_sorted": bool(indices_are_sorted) or None,
    }
    return operand.builder.add(Opcode.GATHER, [operand, start_indices], attrs)


def Scatter(
    operands: XlaOp | Sequence[XlaOp],
    scatter_indices: XlaOp,
    updates: XlaOp | Sequence[XlaOp],
    update_computation: ComputationLike,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> XlaOp:
    """Combines update windows into the operands with ``update_computation`` (OPS.md
    Scatter); one operand or N operands with N updates (the result is then a tuple)."""
    inputs = op_list(operands, "operands", non_empty=True)
    ups = op_list(updates, "updates")
    b = inputs[0].builder
    scalars = [Shape.scalar(o.dtype) for o in inputs]
    comp = b.computation(update_computation, scalars * 2, "update_computation")
    d = dimension_numbers
    attrs = {
        "update_window_dims": ints(d.update_window_dims, "update_window_dims"),
        "inserted_window_dims": ints(d.inserted_window_dims, "inserted_window_dims"),
        "scatter_dims_to_operand_dims": ints(
            d.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims"
        ),
        "input_batching_dims": ints(d.input_batching_dims, "input_batching_dims"),
        "scatter_indices_batching_dims": ints(
            d.scatter_indices_batching_dims, "scatter_indices_batching_dims"
        ),
        "index_vector_dim": int_arg(d.index_vector_dim, "index_vector_dim"),
        "indices_are_sorted": bool(indices_are_sorted) or None,
        "unique_indices": bool(unique_indices) or None,
        "to_apply": comp,
    }
    return b.add(Opcode.SCATTER, [*inputs, scatter_indices, *ups], attrs)


# ---- internal data movement ----------------------------------------------------------


def Copy(operand: XlaOp) -> XlaOp:
    """Internal HLO copy: the operand's value (OPS.md Copy)."""
    return operand.builder.add(Opcode.COPY, [operand])


def Bitcast(operand: XlaOp, shape: Shape | str) -> XlaOp:
    """Internal HLO bitcast to ``shape`` of the same size in bits (OPS.md Bitcast)."""
    return operand.builder.add(Opcode.BITCAST, [operand], {}, to_shape(shape))


def expand_scalar(op: XlaOp, dims: Sequence[int]) -> XlaOp:
    """A scalar broadcast to ``dims`` (arrays are returned as they are)."""
    return broadcast_to(op, dims, ()) if op.ndim == 0 else op
