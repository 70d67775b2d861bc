"""Shape inference of ops that create or rearrange arrays without arithmetic: parameter,
constant, iota, broadcast, reshape, transpose, reverse, slice, concatenate, pad, tuple,
get-tuple-element, bitcast, get/set-dimension-size and the dynamic-shape extensions.

Gather/scatter and dynamic slicing live in ``gather_scatter``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xlapy import dtypes
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.literal import Literal
from xlapy.shape import UNBOUNDED, Shape
from xlapy.shape_inference.common import (
    S32_SCALAR,
    InferCtx,
    array,
    dim_in_range,
    dims_in_range,
    element_type_in,
    fmt,
    fmt_ints,
    infers,
    same_element_type,
    scalar,
    unique,
)


@infers(Opcode.PARAMETER)
def infer_parameter(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """parameter: the declared shape; ``parameter_number`` must be non-negative and
    ``parameter_replication`` (when set) has one entry per leaf of the shape."""
    result = ctx.need_result("a parameter's shape")
    if attrs.parameter_number < 0:
        raise ctx.error(None, f"parameter_number must be >= 0; got {attrs.parameter_number}")
    replication = attrs.parameter_replication
    leaves = sum(1 for _ in result.leaves())
    if replication and len(replication) != leaves:
        raise ctx.error(
            None,
            f"parameter_replication needs one entry per leaf of {fmt(result)} ({leaves}); "
            f"got {len(replication)}",
        )
    return result


@infers(Opcode.CONSTANT)
def infer_constant(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#constant (C1: value and output have the same type)."""
    literal = attrs.literal
    if not isinstance(literal, Literal):
        raise ctx.error(None, f"literal must be a Literal; got {type(literal).__name__}")
    if ctx.result is not None:
        if not ctx.result.compatible(literal.shape):
            raise ctx.error(
                "C1",
                f"the literal has shape {fmt(literal.shape)} but the result is {fmt(ctx.result)}",
            )
        return ctx.result
    return literal.shape


@infers(Opcode.IOTA)
def infer_iota(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#iota (C1: 0 <= iota_dimension < rank(output)); integer, floating-point
    or complex output."""
    result = ctx.need_result("iota's shape")
    element_type_in(ctx, result, "int|float|complex", "output")
    dim_in_range(ctx, attrs.iota_dimension, result.rank, "iota_dimension", "C1", result)
    return result


@infers(Opcode.BROADCAST)
def infer_broadcast(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """HLO broadcast = stablehlo#broadcast_in_dim (C1: same element type; C2: one entry of
    ``dimensions`` per operand dimension; C3: entries in range; C4: unique; C5: each operand
    dimension is 1 or the size of the result dimension it maps to)."""
    (operand,) = operands
    array(ctx, operand, "operand")
    result = ctx.need_result("broadcast's output shape")
    array(ctx, result, "result")
    if result.element_type is not operand.element_type:
        raise ctx.error(
            "C1",
            f"operand and result must have the same element type; got {fmt(operand)} "
            f"(operand) and {fmt(result)} (result)",
        )
    dims = tuple(attrs.dimensions)
    if len(dims) != operand.rank:
        raise ctx.error(
            "C2",
            f"dimensions must have one entry per operand dimension; got {fmt_ints(dims)} for "
            f"operand {fmt(operand)}",
        )
    dims_in_range(ctx, dims, result.rank, "dimensions", "C3", result)
    unique(ctx, dims, "dimensions", "C4")
    for i, d in enumerate(dims):
        if operand.dims[i] not in (1, result.dims[d]):
            raise ctx.error(
                "C5",
                f"operand dimension {i} (size {operand.dims[i]}) maps to result dimension {d} "
                f"(size {result.dims[d]}) and must be 1 or equal to it; got {fmt(operand)} -> "
                f"{fmt(result)}",
            )
    return result


@infers(Opcode.RESHAPE)
def infer_reshape(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#reshape (C1: same element type; C2: same number of elements)."""
    (operand,) = operands
    array(ctx, operand, "operand")
    result = ctx.need_result("reshape's new dimensions")
    array(ctx, result, "result")
    if result.element_type is not operand.element_type:
        raise ctx.error(
            "C1",
            f"operand and result must have the same element type; got {fmt(operand)} -> "
            f"{fmt(result)}",
        )
    if math.prod(result.dims) != math.prod(operand.dims):
        raise ctx.error(
            "C2",
            f"operand and result must have the same number of elements; got {fmt(operand)} "
            f"({math.prod(operand.dims)} elements) -> {fmt(result)} "
            f"({math.prod(result.dims)} elements)",
        )
    inferred = attrs.inferred_dimension
    if inferred is not None and inferred != -1:
        dim_in_range(ctx, inferred, result.rank, "inferred_dimension", None, result)
    return result


@infers(Opcode.DYNAMIC_RESHAPE)
def infer_dynamic_reshape(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """dynamic-reshape(operand, sizes...): one integer scalar per result dimension (HLO), or
    one integer vector ``output_shape`` of the result's rank (stablehlo#dynamic_reshape C3)."""
    operand, *sizes = operands
    array(ctx, operand, "operand")
    result = ctx.need_result("dynamic-reshape's bounds")
    if len(sizes) == 1 and sizes[0].is_array and sizes[0].rank == 1:
        vector = sizes[0]
        element_type_in(ctx, vector, "int", "output_shape")
        if vector.dims[0] != result.rank:
            raise ctx.error("C3", f"output_shape must have one size per result dimension "
                            f"({result.rank}); got {fmt(vector)}")  # fmt: skip
        sizes = []
    elif len(sizes) != result.rank:
        raise ctx.error(
            None,
            f"needs one size operand per result dimension ({result.rank}); got {len(sizes)}",
        )
    for i, s in enumerate(sizes):
        element_type_in(ctx, scalar(ctx, s, f"size {i}"), "int", f"size {i}")
    if result.element_type is not operand.element_type:
        raise ctx.error(None, f"operand and result must have the same element type; got "
                        f"{fmt(operand)} -> {fmt(result)}")  # fmt: skip
    return result


@infers(Opcode.TRANSPOSE)
def infer_transpose(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#transpose (C2: dimensions is a permutation of [0, rank); C3: result
    dimension j has the size of operand dimension permutation[j])."""
    (operand,) = operands
    array(ctx, operand, "operand")
    perm = tuple(attrs.dimensions)
    if sorted(perm) != list(range(operand.rank)):
        raise ctx.error(
            "C2",
            f"permutation must be a permutation of [0, {operand.rank}); got {fmt_ints(perm)} "
            f"for operand {fmt(operand)}",
        )
    return Shape.array(operand.element_type, [operand.dims[p] for p in perm])


@infers(Opcode.REVERSE)
def infer_reverse(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#reverse (C2: unique dimensions; C3: in range)."""
    (operand,) = operands
    array(ctx, operand, "operand")
    dims = tuple(attrs.dimensions)
    unique(ctx, dims, "dimensions", "C2")
    dims_in_range(ctx, dims, operand.rank, "dimensions", "C3", operand)
    return operand


@infers(Opcode.SLICE)
def infer_slice(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#slice (C2: one entry per dimension; C3: 0 <= start <= limit <= dim;
    C4: strides > 0; C5: ceil((limit - start) / stride))."""
    (operand,) = operands
    array(ctx, operand, "operand")
    spec = attrs.slice
    if len(spec.dimensions) != operand.rank:
        raise ctx.error(
            "C2",
            f"the slice has {len(spec.dimensions)} dimensions but operand {fmt(operand)} has "
            f"rank {operand.rank}",
        )
    out = []
    for d, (s, n) in enumerate(zip(spec.dimensions, operand.dims, strict=True)):
        if not 0 <= s.start <= s.limit <= n:
            raise ctx.error(
                "C3",
                f"dimension {d} needs 0 <= start <= limit <= {n}; got start {s.start}, "
                f"limit {s.limit} for operand {fmt(operand)}",
            )
        if s.stride <= 0:
            raise ctx.error("C4", f"strides must be positive; got {s.stride} in dimension {d}")
        out.append(-(-(s.limit - s.start) // s.stride))
    return Shape.array(operand.element_type, out)


@infers(Opcode.CONCATENATE)
def infer_concatenate(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#concatenate (C1: same element type; C2: same shape except along
    ``dimension``; C3: at least one input; C4: 0 <= dimension < rank)."""
    if not operands:
        raise ctx.error("C3", "needs at least one input; got 0")
    for i, s in enumerate(operands):
        array(ctx, s, f"input {i}")
    dims = tuple(attrs.dimensions)
    if len(dims) != 1:
        raise ctx.error(None, f"dimensions must hold exactly one dimension; got {fmt_ints(dims)}")
    (dim,) = dims
    first = operands[0]
    same_element_type(ctx, [(s, f"input {i}") for i, s in enumerate(operands)], "C1")
    for i, s in enumerate(operands[1:], 1):
        if s.rank != first.rank:
            raise ctx.error(
                "C2",
                f"all inputs must have the same rank; got {fmt(first)} (input 0) and {fmt(s)} "
                f"(input {i})",
            )
    if first.rank == 0:
        raise ctx.error("C4", "cannot concatenate scalars: they have no dimension")
    dim_in_range(ctx, dim, first.rank, "dimension", "C4", first)
    for i, s in enumerate(operands[1:], 1):
        for d in range(first.rank):
            if d != dim and s.dims[d] != first.dims[d]:
                raise ctx.error(
                    "C2",
                    f"all inputs must have the same shape except in dimension {dim}; got "
                    f"{fmt(first)} (input 0) and {fmt(s)} (input {i})",
                )
    out = list(first.dims)
    out[dim] = sum(s.dims[dim] for s in operands)
    return Shape.array(first.element_type, out)


@infers(Opcode.PAD)
def infer_pad(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#pad (C1: operand and padding_value have the same element type;
    C2: one padding entry per dimension; C3: interior >= 0; C4: every result dimension
    ``low + high + n + max(n - 1, 0) * interior`` is >= 0)."""
    operand, padding_value = operands
    array(ctx, operand, "operand")
    scalar(ctx, padding_value, "padding_value", "C1")
    same_element_type(ctx, [(operand, "operand"), (padding_value, "padding_value")], "C1")
    config = attrs.padding
    if len(config.dimensions) != operand.rank:
        raise ctx.error(
            "C2",
            f"padding_config has {len(config.dimensions)} dimensions but operand "
            f"{fmt(operand)} has rank {operand.rank}",
        )
    out = []
    for d, (p, n) in enumerate(zip(config.dimensions, operand.dims, strict=True)):
        if p.interior < 0:
            raise ctx.error(
                "C3", f"interior padding must be non-negative; got {p.interior} in dimension {d}"
            )
        if n == UNBOUNDED:
            out.append(UNBOUNDED)
            continue
        size = p.low + p.high + n + max(n - 1, 0) * p.interior
        if size < 0:
            raise ctx.error(
                "C4",
                f"dimension {d} would have negative size {size}: edge padding ({p.low}, "
                f"{p.high}) removes more than the {n + max(n - 1, 0) * p.interior} elements "
                f"of operand {fmt(operand)}",
            )
        out.append(size)
    # XLA: a dynamic operand dimension makes the result dimension dynamic (bound: its size).
    return Shape.array(operand.element_type, out, dynamic=operand.dynamic)


@infers(Opcode.TUPLE)
def infer_tuple(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#tuple (C1-C2: the tuple of the operand types)."""
    return Shape.tuple_of(operands)


@infers(Opcode.GET_TUPLE_ELEMENT)
def infer_get_tuple_element(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#get_tuple_element (C1: 0 <= index < size(operand); C2: its type)."""
    (operand,) = operands
    if not operand.is_tuple:
        raise ctx.error(None, f"operand must be a tuple; got {fmt(operand)}")
    index = attrs.index
    if not 0 <= index < len(operand.tuple_shapes):
        raise ctx.error(
            "C1",
            f"index must be in [0, {len(operand.tuple_shapes)}) for {fmt(operand)}; got {index}",
        )
    element: Shape = operand.tuple_shapes[index]
    return element


@infers(Opcode.BITCAST)
def infer_bitcast(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """bitcast: reinterprets the buffer as the declared result, which must have the same size
    in bits (OPS.md Bitcast)."""
    (operand,) = operands
    array(ctx, operand, "operand")
    result = ctx.need_result("bitcast's result shape")
    array(ctx, result, "result")
    old = math.prod(operand.dims) * operand.element_type.bits
    new = math.prod(result.dims) * result.element_type.bits
    if old != new:
        raise ctx.error(
            None,
            f"operand and result must have the same size in bits; got {fmt(operand)} ({old} "
            f"bits) -> {fmt(result)} ({new} bits)",
        )
    return result


@infers(Opcode.GET_DIMENSION_SIZE)
def infer_get_dimension_size(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#get_dimension_size (C1: 0 <= dimension < rank); result s32[]."""
    (operand,) = operands
    array(ctx, operand, "operand")
    dims = tuple(attrs.dimensions)
    if len(dims) != 1:
        raise ctx.error(None, f"dimensions must hold exactly one dimension; got {fmt_ints(dims)}")
    dim_in_range(ctx, dims[0], operand.rank, "dimension", "C1", operand)
    return S32_SCALAR


@infers(Opcode.SET_DIMENSION_SIZE)
def infer_set_dimension_size(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """set-dimension-size(operand, size): the operand with ``dimension`` made dynamic (its
    static size is the bound); ``size`` is an s32 scalar (OPS.md SetDimensionSize)."""
    operand, size = operands
    array(ctx, operand, "operand")
    scalar(ctx, size, "size")
    if size.element_type is not dtypes.S32:
        raise ctx.error(None, f"size must be an s32 scalar; got {fmt(size)}")
    dims = tuple(attrs.dimensions)
    if len(dims) != 1:
        raise ctx.error(None, f"dimensions must hold exactly one dimension; got {fmt_ints(dims)}")
    dim = dim_in_range(ctx, dims[0], operand.rank, "dimension", None, operand)
    dynamic = list(operand.dynamic)
    dynamic[dim] = True
    return Shape(operand.element_type, operand.dims, tuple(dynamic))


@infers(Opcode.DYNAMIC_BROADCAST_IN_DIM)
def infer_dynamic_broadcast_in_dim(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """dynamic_broadcast_in_dim(operand, output_dimensions): broadcast_in_dim whose result
    sizes come from a rank-1 integer operand (sizes bounded by the declared result)."""
    operand, output_dimensions = operands
    array(ctx, operand, "operand")
    element_type_in(ctx, output_dimensions, "int", "output_dimensions")
    result = ctx.need_result("the bounds of the broadcast")
    if output_dimensions.rank != 1 or output_dimensions.dims[0] != result.rank:
        raise ctx.error(
            None,
            f"output_dimensions must be a vector of {result.rank} sizes; got "
            f"{fmt(output_dimensions)}",
        )
    dims = tuple(attrs.dimensions)
    if len(dims) != operand.rank:
        raise ctx.error("C2", f"broadcast_dimensions needs one entry per operand dimension; got "
                        f"{fmt_ints(dims)} for {fmt(operand)}")  # fmt: skip
    dims_in_range(ctx, dims, result.rank, "broadcast_dimensions", "C3", result)
    unique(ctx, dims, "broadcast_dimensions", "C4")
    if result.element_type is not operand.element_type:
        raise ctx.error(None, f"the result must have the operand's element type; got "
                        f"{fmt(operand)} -> {fmt(result)}")  # fmt: skip
    return result


def declared_like(ctx: InferCtx, operand: Shape, what: str) -> Shape:
    """The declared result of an op whose sizes are known only at run time: it must have the
    operand's element type and rank."""
    result = ctx.need_result(what)
    if (
        not result.is_array
        or result.element_type is not operand.element_type
        or (result.rank != operand.rank)
    ):
        raise ctx.error(None, f"the result must have the element type and rank of the operand "
                        f"{fmt(operand)}; got {fmt(result)}")  # fmt: skip
    return result


@infers(Opcode.DYNAMIC_IOTA)
def infer_dynamic_iota(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """dynamic_iota(output_shape): iota whose sizes come from a rank-1 integer operand."""
    (output_shape,) = operands
    element_type_in(ctx, output_shape, "int", "output_shape")
    result = ctx.need_result("the bounds of the iota")
    element_type_in(ctx, result, "int|float|complex", "output")
    dim_in_range(ctx, attrs.iota_dimension, result.rank, "iota_dimension", "C1", result)
    return result


@infers(Opcode.DYNAMIC_PAD)
def infer_dynamic_pad(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """dynamic_pad(operand, padding_value, low, high, interior): pad with runtime amounts."""
    operand, padding_value, *amounts = operands
    array(ctx, operand, "operand")
    scalar(ctx, padding_value, "padding_value", "C1")
    same_element_type(ctx, [(operand, "operand"), (padding_value, "padding_value")], "C1")
    for what, shape in zip(("edge_padding_low", "edge_padding_high", "interior_padding"),
                           amounts, strict=True):  # fmt: skip
        element_type_in(ctx, shape, "int", what)
        if shape.rank != 1 or shape.dims[0] != operand.rank:
            raise ctx.error("C2", f"{what} needs one entry per operand dimension; got "
                            f"{fmt(shape)} for {fmt(operand)}")  # fmt: skip
    return declared_like(ctx, operand, "the bounds of the padded result")


@infers(Opcode.REAL_DYNAMIC_SLICE)
def infer_real_dynamic_slice(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """real_dynamic_slice(operand, start, limit, strides): slice with runtime bounds."""
    operand, *bounds = operands
    array(ctx, operand, "operand")
    for what, shape in zip(("start_indices", "limit_indices", "strides"), bounds, strict=True):
        element_type_in(ctx, shape, "int", what)
        if shape.rank != 1 or shape.dims[0] != operand.rank:
            raise ctx.error("C2", f"{what} needs one entry per operand dimension; got "
                            f"{fmt(shape)} for {fmt(operand)}")  # fmt: skip
    return declared_like(ctx, operand, "the bounds of the slice")
