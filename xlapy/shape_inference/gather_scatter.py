"""Shape inference of indexed data movement: gather (and dynamic_gather), scatter,
dynamic-slice and dynamic-update-slice.

Labels follow the current StableHLO spec, which has batching dimensions.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy.ir.computation import HloComputation
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import Shape
from xlapy.shape_inference.common import (
    InferCtx,
    array,
    collate,
    dim_in_range,
    dims_in_range,
    element_type_in,
    fmt,
    fmt_ints,
    fmt_program,
    infers,
    program_shape,
    same_element_type,
    scalar,
    sorted_unique,
    unique,
)


def _index_count(
    ctx: InferCtx, indices: Shape, index_vector_dim: int, what: str, label: str
) -> int:
    """Entries per index vector: the size of ``index_vector_dim`` (1 when it is the rank)."""
    if not 0 <= index_vector_dim <= indices.rank:
        raise ctx.error(
            label,
            f"index_vector_dim must be in [0, {indices.rank}] for {what} {fmt(indices)}; "
            f"got {index_vector_dim}",
        )
    return indices.dims[index_vector_dim] if index_vector_dim < indices.rank else 1


def _batch_sizes(indices: Shape, index_vector_dim: int) -> list[int]:
    return [n for d, n in enumerate(indices.dims) if d != index_vector_dim]


@infers(Opcode.GATHER)
def infer_gather(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#gather (C1-C23; OPS.md Gather shape rules)."""
    operand, start_indices = operands
    return gather_shape(ctx, operand, start_indices, attrs, tuple(attrs.slice_sizes))


@infers(Opcode.DYNAMIC_GATHER)
def infer_dynamic_gather(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """dynamic_gather(operand, start_indices, slice_sizes): gather with runtime slice sizes
    bounded by the operand; the declared result gives the bounds."""
    operand, start_indices, slice_sizes = operands
    array(ctx, operand, "operand")
    element_type_in(ctx, start_indices, "int", "start_indices")
    element_type_in(ctx, slice_sizes, "int", "slice_sizes")
    if slice_sizes.rank != 1 or slice_sizes.dims[0] != operand.rank:
        raise ctx.error(
            "C20", f"slice_sizes must be a vector of {operand.rank} sizes; got {fmt(slice_sizes)}"
        )
    result = ctx.need_result("dynamic_gather's bounds")
    # The largest slices (size 1 where a dimension is collapsed or batching) bound the result:
    # its batch dimensions are exact, its offset dimensions at most these sizes.
    single = {*attrs.collapsed_slice_dims, *attrs.operand_batching_dims}
    widest = [1 if d in single else n for d, n in enumerate(operand.dims)]
    bound = gather_shape(ctx, operand, start_indices, attrs, widest)
    offset_dims = set(attrs.offset_dims)
    if (
        result.element_type is not operand.element_type
        or result.rank != bound.rank
        or any(
            (got > want) if d in offset_dims else (got != want)
            for d, (got, want) in enumerate(zip(result.dims, bound.dims, strict=True))
        )
    ):
        raise ctx.error(
            "C23",
            f"the result must be {fmt(bound)} with offset dimensions {fmt_ints(sorted(offset_dims))}"
            f" at most as large; got {fmt(result)}",
        )
    return result


def gather_shape(
    ctx: InferCtx, operand: Shape, start_indices: Shape, attrs: Attrs, slice_sizes: Sequence[int]
) -> Shape:
    array(ctx, operand, "operand")
    element_type_in(ctx, start_indices, "int", "start_indices")
    offset_dims = tuple(attrs.offset_dims)
    collapsed = tuple(attrs.collapsed_slice_dims)
    start_index_map = tuple(attrs.start_index_map)
    operand_batching = tuple(attrs.operand_batching_dims)
    indices_batching = tuple(attrs.start_indices_batching_dims)
    ivd = attrs.index_vector_dim
    rank = operand.rank
    if rank != len(offset_dims) + len(collapsed) + len(operand_batching):
        raise ctx.error(
            "C1",
            f"operand rank {rank} must equal size(offset_dims) + size(collapsed_slice_dims) + "
            f"size(operand_batching_dims); got {fmt_ints(offset_dims)}, {fmt_ints(collapsed)}, "
            f"{fmt_ints(operand_batching)} for operand {fmt(operand)}",
        )
    count = _index_count(ctx, start_indices, ivd, "start_indices", "C2")
    if len(start_index_map) != count:
        raise ctx.error(
            "C3",
            f"start_index_map must have one entry per index vector element ({count}); got "
            f"{fmt_ints(start_index_map)}",
        )
    sorted_unique(ctx, offset_dims, "offset_dims", "C4")
    batch_sizes = _batch_sizes(start_indices, ivd)
    result_rank = len(batch_sizes) + len(offset_dims)
    dims_in_range(ctx, offset_dims, result_rank, "offset_dims", "C5")
    unique(ctx, (*collapsed, *operand_batching), "collapsed_slice_dims + operand_batching_dims",
           "C6")  # fmt: skip
    sorted_unique(ctx, collapsed, "collapsed_slice_dims", "C7")
    dims_in_range(ctx, collapsed, rank, "collapsed_slice_dims", "C8", operand)
    if len(slice_sizes) != rank:
        raise ctx.error(
            "C20",
            f"slice_sizes must have one entry per operand dimension; got {fmt_ints(slice_sizes)} "
            f"for operand {fmt(operand)}",
        )
    for d in collapsed:
        if slice_sizes[d] > 1:
            raise ctx.error(
                "C9",
                f"collapsed dimension {d} must have slice size <= 1; got slice_sizes "
                f"{fmt_ints(slice_sizes)}",
            )
    sorted_unique(ctx, operand_batching, "operand_batching_dims", "C10")
    dims_in_range(ctx, operand_batching, rank, "operand_batching_dims", "C11", operand)
    for d in operand_batching:
        if slice_sizes[d] > 1:
            raise ctx.error(
                "C12",
                f"operand batching dimension {d} must have slice size <= 1; got slice_sizes "
                f"{fmt_ints(slice_sizes)}",
            )
    unique(ctx, indices_batching, "start_indices_batching_dims", "C13")
    dims_in_range(
        ctx, indices_batching, start_indices.rank, "start_indices_batching_dims", "C14",
        start_indices,
    )  # fmt: skip
    if ivd in indices_batching:
        raise ctx.error("C15", f"index_vector_dim {ivd} must not be a start_indices batching dim")
    if len(operand_batching) != len(indices_batching):
        raise ctx.error(
            "C16",
            "operand_batching_dims and start_indices_batching_dims must have the same size; got "
            f"{fmt_ints(operand_batching)} and {fmt_ints(indices_batching)}",
        )
    for a, b in zip(operand_batching, indices_batching, strict=True):
        if operand.dims[a] != start_indices.dims[b]:
            raise ctx.error(
                "C17",
                f"batching dimensions must have equal sizes; got operand dimension {a} of "
                f"{fmt(operand)} and start_indices dimension {b} of {fmt(start_indices)}",
            )
    unique(ctx, (*start_index_map, *operand_batching), "start_index_map + operand_batching_dims",
           "C18")  # fmt: skip
    dims_in_range(ctx, start_index_map, rank, "start_index_map", "C19", operand)
    for d, (s, n) in enumerate(zip(slice_sizes, operand.dims, strict=True)):
        if not 0 <= s <= n:
            raise ctx.error(
                "C21",
                f"slice_sizes[{d}] must be in [0, {n}]; got {fmt_ints(slice_sizes)} for operand "
                f"{fmt(operand)}",
            )
    skipped = set(collapsed) | set(operand_batching)
    offset_sizes = [s for d, s in enumerate(slice_sizes) if d not in skipped]
    out: list[int] = []
    batch = iter(batch_sizes)
    offsets = iter(offset_sizes)
    offset_set = set(offset_dims)
    for d in range(result_rank):
        out.append(next(offsets) if d in offset_set else next(batch))
    return Shape.array(operand.element_type, out)


def check_update_computation(
    ctx: InferCtx,
    comp: HloComputation,
    element_types: Sequence[object],
    what: str,
    label: str | None,
) -> None:
    """``comp`` has type ``(E0, ..., EN-1, E0, ..., EN-1) -> Collate(E0, ..., EN-1)`` on
    scalars (reducers of reduce, reduce-window, scatter, all-reduce)."""
    params, result = program_shape(comp)
    n = len(element_types)
    expected = [Shape.scalar(e) for e in element_types] * 2  # type: ignore[arg-type]
    want_result = collate(expected[:n])
    if len(params) != 2 * n or any(
        not p.compatible(e) for p, e in zip(params, expected, strict=True)
    ):
        raise ctx.error(
            label,
            f"{what} must have type ({', '.join(fmt(e) for e in expected)}) -> "
            f"{fmt(want_result)}; got {fmt_program(comp)}",
        )
    if not result.compatible(want_result):
        raise ctx.error(
            label,
            f"{what} must return {fmt(want_result)}; got {fmt_program(comp)}",
        )


@infers(Opcode.SCATTER)
def infer_scatter(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#scatter (C1-C25; OPS.md Scatter). Operands: N inputs, scatter_indices,
    N updates."""
    if len(operands) < 3 or len(operands) % 2 == 0:
        raise ctx.error(
            "C5",
            "takes N inputs, scatter_indices and N updates with N >= 1; got "
            f"{len(operands)} operands",
        )
    n = (len(operands) - 1) // 2
    inputs, scatter_indices, updates = operands[:n], operands[n], operands[n + 1 :]
    for i, s in enumerate(inputs):
        array(ctx, s, f"input {i}")
    for i, s in enumerate(updates):
        array(ctx, s, f"update {i}")
    element_type_in(ctx, scatter_indices, "int", "scatter_indices")
    first = inputs[0]
    for i, s in enumerate(inputs[1:], 1):
        if s.dims != first.dims:
            raise ctx.error("C1", f"all inputs must have the same shape; got {fmt(first)} "
                            f"(input 0) and {fmt(s)} (input {i})")  # fmt: skip
    window_dims = tuple(attrs.update_window_dims)
    inserted = tuple(attrs.inserted_window_dims)
    to_operand = tuple(attrs.scatter_dims_to_operand_dims)
    input_batching = tuple(attrs.input_batching_dims)
    indices_batching = tuple(attrs.scatter_indices_batching_dims)
    ivd = attrs.index_vector_dim
    rank = first.rank
    if rank != len(window_dims) + len(inserted) + len(input_batching):
        raise ctx.error(
            "C2",
            f"input rank {rank} must equal size(update_window_dims) + size(inserted_window_dims)"
            f" + size(input_batching_dims); got {fmt_ints(window_dims)}, {fmt_ints(inserted)}, "
            f"{fmt_ints(input_batching)} for input {fmt(first)}",
        )
    u0 = updates[0]
    for i, s in enumerate(updates[1:], 1):
        if s.dims != u0.dims:
            raise ctx.error("C3", f"all updates must have the same shape; got {fmt(u0)} "
                            f"(update 0) and {fmt(s)} (update {i})")  # fmt: skip
    for k, (inp, upd) in enumerate(zip(inputs, updates, strict=True)):
        if inp.element_type is not upd.element_type:
            raise ctx.error("C6", f"update {k} must have the element type of input {k}; got "
                            f"{fmt(upd)} and {fmt(inp)}")  # fmt: skip
    sorted_unique(ctx, window_dims, "update_window_dims", "C7")
    dims_in_range(ctx, window_dims, u0.rank, "update_window_dims", "C8", u0)
    unique(ctx, (*inserted, *input_batching), "inserted_window_dims + input_batching_dims", "C9")
    sorted_unique(ctx, inserted, "inserted_window_dims", "C10")
    dims_in_range(ctx, inserted, rank, "inserted_window_dims", "C11", first)
    sorted_unique(ctx, input_batching, "input_batching_dims", "C12")
    dims_in_range(ctx, input_batching, rank, "input_batching_dims", "C13", first)
    unique(ctx, indices_batching, "scatter_indices_batching_dims", "C14")
    dims_in_range(ctx, indices_batching, scatter_indices.rank, "scatter_indices_batching_dims",
                  "C15", scatter_indices)  # fmt: skip
    if ivd in indices_batching:
        raise ctx.error("C16", f"index_vector_dim {ivd} must not be a scatter_indices batching dim")
    if len(input_batching) != len(indices_batching):
        raise ctx.error("C17", "input_batching_dims and scatter_indices_batching_dims must have "
                        f"the same size; got {fmt_ints(input_batching)} and "
                        f"{fmt_ints(indices_batching)}")  # fmt: skip
    for a, b in zip(input_batching, indices_batching, strict=True):
        if first.dims[a] != scatter_indices.dims[b]:
            raise ctx.error("C18", f"batching dimensions must have equal sizes; got input "
                            f"dimension {a} of {fmt(first)} and scatter_indices dimension {b} of "
                            f"{fmt(scatter_indices)}")  # fmt: skip
    count = _index_count(ctx, scatter_indices, ivd, "scatter_indices", "C22")
    if len(to_operand) != count:
        raise ctx.error("C19", "scatter_dims_to_operand_dims must have one entry per index "
                        f"vector element ({count}); got {fmt_ints(to_operand)}")  # fmt: skip
    unique(ctx, (*to_operand, *input_batching),
           "scatter_dims_to_operand_dims + input_batching_dims", "C20")  # fmt: skip
    dims_in_range(ctx, to_operand, rank, "scatter_dims_to_operand_dims", "C21", first)
    # C4: shape(updates) = combine(update_scatter_dim_sizes, update_window_dim_sizes)
    scatter_sizes = _batch_sizes(scatter_indices, ivd)
    if u0.rank != len(window_dims) + len(scatter_sizes):
        raise ctx.error(
            "C4",
            f"updates must have rank size(update_window_dims) + rank(scatter_indices) - 1 = "
            f"{len(window_dims) + len(scatter_sizes)}; got {fmt(u0)}",
        )
    skipped = set(inserted) | set(input_batching)
    window_bounds = [n for d, n in enumerate(first.dims) if d not in skipped]
    scatter_iter = iter(scatter_sizes)
    window_iter = iter(window_bounds)
    window_set = set(window_dims)
    for d, size in enumerate(u0.dims):
        if d in window_set:
            bound = next(window_iter)
            if size > bound:
                raise ctx.error("C4", f"update window dimension {d} has size {size}, larger than "
                                f"the input bound {bound}; got updates {fmt(u0)} for input "
                                f"{fmt(first)}")  # fmt: skip
        else:
            want = next(scatter_iter)
            if size != want:
                raise ctx.error("C4", f"update scatter dimension {d} must have size {want} (from "
                                f"scatter_indices {fmt(scatter_indices)}); got updates "
                                f"{fmt(u0)}")  # fmt: skip
    comp = attrs.to_apply
    check_update_computation(ctx, comp, [s.element_type for s in inputs], "update_computation",
                             "C23")  # fmt: skip
    return collate(list(inputs))


def _start_indices(ctx: InferCtx, operand: Shape, indices: Sequence[Shape], label: str) -> None:
    """N integer scalars of one type (or, in the old form, one rank-1 integer vector)."""
    if len(indices) == 1 and indices[0].is_array and indices[0].rank == 1 and operand.rank != 1:
        element_type_in(ctx, indices[0], "int", "start_indices")
        if indices[0].dims[0] != operand.rank:
            raise ctx.error(label, f"start_indices must have one entry per operand dimension; "
                            f"got {fmt(indices[0])} for operand {fmt(operand)}")  # fmt: skip
        return
    if len(indices) != operand.rank:
        raise ctx.error(
            label,
            f"needs one start index per operand dimension ({operand.rank}); got {len(indices)} "
            f"for operand {fmt(operand)}",
        )
    for i, s in enumerate(indices):
        element_type_in(ctx, scalar(ctx, s, f"start index {i}"), "int", f"start index {i}")
    if indices:
        same_element_type(ctx, [(s, f"start index {i}") for i, s in enumerate(indices)])


@infers(Opcode.DYNAMIC_SLICE)
def infer_dynamic_slice(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#dynamic_slice (C2: one start index and one size per dimension; C3: start
    indices of one integer type; C4: 0 <= slice_sizes[k] <= dim(operand, k); C5: result
    shape = slice_sizes)."""
    if not operands:
        raise ctx.error(None, "takes the operand and its start indices; got no operands")
    operand, *indices = operands
    array(ctx, operand, "operand")
    sizes = tuple(attrs.dynamic_slice_sizes)
    _start_indices(ctx, operand, indices, "C2")
    if len(sizes) != operand.rank:
        raise ctx.error(
            "C2",
            f"slice_sizes must have one entry per operand dimension; got {fmt_ints(sizes)} for "
            f"operand {fmt(operand)}",
        )
    for d, (s, n) in enumerate(zip(sizes, operand.dims, strict=True)):
        if not 0 <= s <= n:
            raise ctx.error(
                "C4",
                f"slice_sizes[{d}] must be in [0, {n}]; got {fmt_ints(sizes)} for operand "
                f"{fmt(operand)}",
            )
    return Shape.array(operand.element_type, sizes)


@infers(Opcode.DYNAMIC_UPDATE_SLICE)
def infer_dynamic_update_slice(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#dynamic_update_slice (C2: same element type; C3: same rank; C4: one
    start index per dimension; C5: start indices of one type; C6: update fits the operand)."""
    if len(operands) < 2:
        raise ctx.error(None, f"takes operand, update and start indices; got {len(operands)}")
    operand, update, *indices = operands
    array(ctx, operand, "operand")
    array(ctx, update, "update")
    same_element_type(ctx, [(operand, "operand"), (update, "update")], "C2")
    if update.rank != operand.rank:
        raise ctx.error(
            "C3",
            f"update must have the operand's rank; got {fmt(update)} (update) and "
            f"{fmt(operand)} (operand)",
        )
    _start_indices(ctx, operand, indices, "C4")
    for d, (u, n) in enumerate(zip(update.dims, operand.dims, strict=True)):
        if not 0 <= u <= n:
            raise ctx.error(
                "C6",
                f"update dimension {d} (size {u}) must fit in the operand (size {n}); got "
                f"{fmt(update)} (update) and {fmt(operand)} (operand)",
            )
    return operand


def check_dim(ctx: InferCtx, dim: int, shape: Shape, what: str, label: str) -> int:
    return dim_in_range(ctx, dim, shape.rank, what, label, shape)
