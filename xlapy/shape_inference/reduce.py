"""Shape inference of ops that apply a computation over arrays: reduce, reduce-window,
select-and-scatter, map, sort, topk and scan; plus the window geometry of OPS.md A.9 that
convolution shares.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy import dtypes
from xlapy.ir import attrs as A
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import UNBOUNDED, Shape
from xlapy.shape_inference.common import (
    InferCtx,
    array,
    collate,
    dim_in_range,
    dims_agree,
    dims_in_range,
    fmt,
    fmt_ints,
    fmt_program,
    infers,
    program_shape,
    scalar,
    unique,
)
from xlapy.shape_inference.gather_scatter import check_update_computation


def window_output_size(base: int, dim: A.WindowDimension) -> int:
    """Number of window positions in one dimension (OPS.md A.9; stablehlo#reduce_window C15);
    unbounded (``?``) for an unbounded base. A dynamic base dimension makes the result
    dimension dynamic, with this size (of its bound) as the bound."""
    if base == UNBOUNDED:
        return UNBOUNDED
    dilated_base = 0 if base == 0 else (base - 1) * dim.base_dilation + 1
    padded = dim.padding_low + dilated_base + dim.padding_high
    window = 0 if dim.size == 0 else (dim.size - 1) * dim.window_dilation + 1
    if padded == 0 or window > padded:
        return 0
    return (padded - window) // dim.stride + 1


def check_window(
    ctx: InferCtx,
    window: A.Window,
    rank: int,
    of: str,
    labels: tuple[str, str, str, str, str] = ("C4", "C5", "C7", "C9", "C11"),
) -> None:
    """One window dimension per dimension of ``of``, with positive size, stride and dilations
    (``labels``: size-count, size, stride, base dilation, window dilation)."""
    dims = window.dimensions
    if len(dims) != rank:
        raise ctx.error(
            labels[0], f"the window has {len(dims)} dimensions but {of} has rank {rank}"
        )
    for what, label, values in (
        ("window size", labels[1], [d.size for d in dims]),
        ("window stride", labels[2], [d.stride for d in dims]),
        ("base dilation", labels[3], [d.base_dilation for d in dims]),
        ("window dilation", labels[4], [d.window_dilation for d in dims]),
    ):
        if any(v <= 0 for v in values):
            raise ctx.error(label, f"every {what} must be positive; got window {window}")


def _split_inputs_inits(ctx: InferCtx, operands: Sequence[Shape], label: str) -> int:
    if not operands or len(operands) % 2:
        raise ctx.error(
            label, f"takes N inputs then N init values with N >= 1; got {len(operands)} operands"
        )
    return len(operands) // 2


def _check_inputs_and_inits(
    ctx: InferCtx,
    inputs: Sequence[Shape],
    inits: Sequence[Shape],
    same_shape_label: str,
    type_label: str,
) -> None:
    for i, s in enumerate(inputs):
        array(ctx, s, f"input {i}")
    for i, (x, init) in enumerate(zip(inputs, inits, strict=True)):
        scalar(ctx, init, f"init value {i}", type_label)
        if x.element_type is not init.element_type:
            raise ctx.error(
                type_label,
                f"input {i} and init value {i} must have the same element type; got {fmt(x)} "
                f"and {fmt(init)}",
            )
    for i, s in enumerate(inputs[1:], 1):
        if s.dims != inputs[0].dims:
            raise ctx.error(
                same_shape_label,
                f"all inputs must have the same shape; got {fmt(inputs[0])} (input 0) and "
                f"{fmt(s)} (input {i})",
            )


@infers(Opcode.REDUCE)
def infer_reduce(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#reduce (C1: inputs of one shape; C2: init values of the input types;
    C3: N >= 1; C4: dimensions in range; C5: unique; C6: body type; C7: the result drops the
    reduced dimensions). OPS.md Reduce."""
    n = _split_inputs_inits(ctx, operands, "C3")
    inputs, inits = operands[:n], operands[n:]
    _check_inputs_and_inits(ctx, inputs, inits, "C1", "C2")
    dims = tuple(attrs.dimensions)
    dims_in_range(ctx, dims, inputs[0].rank, "dimensions", "C4", inputs[0])
    unique(ctx, dims, "dimensions", "C5")
    check_update_computation(
        ctx, attrs.to_apply, [s.element_type for s in inputs], "the reduction computation", "C6"
    )
    kept = [d for d in range(inputs[0].rank) if d not in dims]
    return collate(
        [Shape(s.element_type, tuple(s.dims[d] for d in kept), tuple(s.dynamic[d] for d in kept))
         for s in inputs]
    )  # fmt: skip


@infers(Opcode.REDUCE_WINDOW)
def infer_reduce_window(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#reduce_window (C1: N >= 1; C2: same shapes; C3: init types; C4-C12:
    window; C13: body type; C15: output size per A.9)."""
    n = _split_inputs_inits(ctx, operands, "C1")
    inputs, inits = operands[:n], operands[n:]
    _check_inputs_and_inits(ctx, inputs, inits, "C2", "C3")
    window: A.Window = attrs.window
    base = inputs[0]
    check_window(ctx, window, base.rank, f"input {fmt(base)}")
    check_update_computation(
        ctx, attrs.to_apply, [s.element_type for s in inputs], "the reduction computation", "C13"
    )
    out = [window_output_size(b, d) for b, d in zip(base.dims, window.dimensions, strict=True)]
    return collate([Shape.array(s.element_type, out, dynamic=base.dynamic) for s in inputs])


@infers(Opcode.SELECT_AND_SCATTER)
def infer_select_and_scatter(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#select_and_scatter (C1: window rank; C2: operand and source types;
    C3: source has the reduce-window shape; C4: init type; C6/C8: positive window; C10: select
    is (E, E) -> pred; C11: scatter is (E, E) -> E; C12: result has the operand's type)."""
    operand, source, init_value = operands
    array(ctx, operand, "operand")
    array(ctx, source, "source")
    window: A.Window = attrs.window
    check_window(ctx, window, operand.rank, f"operand {fmt(operand)}",
                 ("C1", "C6", "C8", "C1", "C1"))  # fmt: skip
    if any(d.base_dilation != 1 or d.window_dilation != 1 for d in window.dimensions):
        raise ctx.error("C1", f"select-and-scatter windows cannot be dilated; got {window}")
    if source.element_type is not operand.element_type:
        raise ctx.error("C2", f"operand and source must have the same element type; got "
                        f"{fmt(operand)} and {fmt(source)}")  # fmt: skip
    expected = Shape.array(
        source.element_type,
        [window_output_size(b, d) for b, d in zip(operand.dims, window.dimensions, strict=True)],
        dynamic=operand.dynamic,
    )
    if not dims_agree(source, expected):
        raise ctx.error(
            "C3",
            f"source must have one element per window position, shape {fmt(expected)}; got "
            f"{fmt(source)}",
        )
    scalar(ctx, init_value, "init_value", "C4")
    if init_value.element_type is not operand.element_type:
        raise ctx.error("C4", f"init_value must have the operand's element type; got "
                        f"{fmt(init_value)} for operand {fmt(operand)}")  # fmt: skip
    e = Shape.scalar(operand.element_type)
    _check_binary_comp(ctx, attrs.select, e, Shape.scalar(dtypes.PRED), "select", "C10")
    _check_binary_comp(ctx, attrs.scatter, e, e, "scatter", "C11")
    return operand


def _check_binary_comp(
    ctx: InferCtx, comp: object, param: Shape, result: Shape, what: str, label: str
) -> None:
    params, root = program_shape(comp)  # type: ignore[arg-type]
    if (
        len(params) != 2
        or not all(p.compatible(param) for p in params)
        or not root.compatible(result)
    ):
        raise ctx.error(
            label,
            f"{what} must have type ({fmt(param)}, {fmt(param)}) -> {fmt(result)}; got "
            f"{fmt_program(comp)}",  # type: ignore[arg-type]
        )


@infers(Opcode.MAP)
def infer_map(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#map (C1: inputs of one shape; C2: N >= 1; C3: dimensions = [0, R);
    C4: computation (E0, ..., EN-1) -> E' on scalars). OPS.md Map."""
    if not operands:
        raise ctx.error("C2", "needs at least one input; got 0")
    for i, s in enumerate(operands):
        array(ctx, s, f"input {i}")
        if s.dims != operands[0].dims:
            raise ctx.error("C1", f"all inputs must have the same shape; got "
                            f"{fmt(operands[0])} (input 0) and {fmt(s)} (input {i})")  # fmt: skip
    rank = operands[0].rank
    dims = tuple(attrs.dimensions) if attrs.is_set("dimensions") else tuple(range(rank))
    if dims and dims != tuple(range(rank)):  # XLA's parser accepts (and ignores) {}
        raise ctx.error("C3", f"dimensions must be [0, ..., {rank - 1}]; got {fmt_ints(dims)}")
    comp = attrs.to_apply
    params, root = program_shape(comp)
    expected = [Shape.scalar(s.element_type) for s in operands]
    if (
        len(params) != len(expected)
        or not all(p.compatible(e) for p, e in zip(params, expected, strict=True))
        or not root.is_array
        or root.rank != 0
    ):
        raise ctx.error(
            "C4",
            f"computation must take ({', '.join(fmt(e) for e in expected)}) and return a "
            f"scalar; got {fmt_program(comp)}",
        )
    return Shape.array(root.element_type, operands[0].dims)


@infers(Opcode.SORT)
def infer_sort(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#sort (C1: at least one input; C3: all of one shape; C4: dimension in
    range; C5: comparator (E0, E0, ..., EN-1, EN-1) -> pred). OPS.md Sort."""
    if not operands:
        raise ctx.error("C1", "needs at least one input; got 0")
    for i, s in enumerate(operands):
        array(ctx, s, f"input {i}")
        if s.dims != operands[0].dims:
            raise ctx.error("C3", f"all inputs must have the same shape; got "
                            f"{fmt(operands[0])} (input 0) and {fmt(s)} (input {i})")  # fmt: skip
    dims = tuple(attrs.dimensions)
    if len(dims) != 1:
        raise ctx.error(None, f"dimensions must hold exactly one dimension; got {fmt_ints(dims)}")
    dim_in_range(ctx, dims[0], operands[0].rank, "dimension", "C4", operands[0])
    comp = attrs.to_apply
    params, root = program_shape(comp)
    expected = [Shape.scalar(s.element_type) for s in operands for _ in range(2)]
    if (
        len(params) != len(expected)
        or not all(p.compatible(e) for p, e in zip(params, expected, strict=True))
        or not root.compatible(Shape.scalar(dtypes.PRED))
    ):
        raise ctx.error(
            "C5",
            f"comparator must have type ({', '.join(fmt(e) for e in expected)}) -> pred[]; got "
            f"{fmt_program(comp)}",
        )
    return collate(list(operands))


@infers(Opcode.TOPK)
def infer_topk(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """TopK (OPS.md TopK; chlo.top_k): operand of rank >= 1 whose last dimension is >= k;
    result (values [..., k], s32 indices [..., k])."""
    (operand,) = operands
    array(ctx, operand, "operand")
    k = attrs.k
    if operand.rank < 1:
        raise ctx.error(None, f"operand must have at least one dimension; got {fmt(operand)}")
    if not 0 <= k <= operand.dims[-1]:
        raise ctx.error(
            None,
            f"k must be in [0, {operand.dims[-1]}] (the last dimension of {fmt(operand)}); got {k}",
        )
    dims = (*operand.dims[:-1], k)
    return Shape.tuple_of([Shape.array(operand.element_type, dims), Shape.array(dtypes.S32, dims)])


@infers(Opcode.SCAN)
def infer_scan(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Scan (OPS.md Scan): m inputs then k = num_carries inits; to_apply takes the m slices
    (scan dimension removed) and k carries and returns n outputs then k carries; the result is
    the n outputs stacked along the scan dimension, then the k final carries."""
    k = attrs.num_carries
    if not 0 <= k <= len(operands):
        raise ctx.error(None, f"num_carries must be in [0, {len(operands)}]; got {k}")
    inputs, inits = operands[: len(operands) - k], operands[len(operands) - k :]
    dims = tuple(attrs.dimensions)
    if len(dims) != 1:
        raise ctx.error(None, f"dimensions must hold exactly one dimension; got {fmt_ints(dims)}")
    (dim,) = dims
    length = None
    slices = []
    for i, s in enumerate(inputs):
        array(ctx, s, f"input {i}")
        dim_in_range(ctx, dim, s.rank, "scan dimension", None, s)
        if length is None:
            length = s.dims[dim]
        elif s.dims[dim] != length:
            raise ctx.error(None, f"all inputs must have the same size along dimension {dim}; "
                            f"got {fmt(inputs[0])} (input 0) and {fmt(s)} (input {i})")  # fmt: skip
        slices.append(Shape.array(s.element_type, s.dims[:dim] + s.dims[dim + 1 :]))
    comp = attrs.to_apply
    params, root = program_shape(comp)
    expected = [*slices, *inits]
    if len(params) != len(expected) or not all(
        p.compatible(e) for p, e in zip(params, expected, strict=True)
    ):
        raise ctx.error(
            None,
            f"to_apply must take ({', '.join(fmt(e) for e in expected)}); got {fmt_program(comp)}",
        )
    results = list(root.tuple_shapes) if root.is_tuple else [root]
    if len(results) < k or not all(
        r.compatible(c) for r, c in zip(results[len(results) - k :], inits, strict=True)
    ):
        raise ctx.error(
            None,
            f"to_apply must return its outputs then {k} carries of types "
            f"({', '.join(fmt(c) for c in inits)}); got {fmt_program(comp)}",
        )
    if length is None:
        if ctx.result is None:
            raise ctx.error(None, "a scan without inputs needs the declared result shape")
        return ctx.result
    outputs = []
    for r in results[: len(results) - k]:
        if not r.is_array or not 0 <= dim <= r.rank:
            raise ctx.error(None, f"output {fmt(r)} cannot be stacked along dimension {dim}")
        outputs.append(Shape.array(r.element_type, (*r.dims[:dim], length, *r.dims[dim:])))
    return Shape.tuple_of([*outputs, *inits])
