"""Indexing maps of ops that read ranges: reduce, reduce-window, dot, convolution, sort.

Plain dimension lists in, maps out (see ``ops_shape``). Range variables ``s_j`` enumerate
the reduced dimensions, window positions or contracted dimensions. Spec: INDEXING.md
§3, §4.6, §4.11, §4.12.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xlapy.indexing.affine import AffineExpr, dim, symbol
from xlapy.indexing.indexing_map import IndexingMap, Variable, compose, vars_from_sizes
from xlapy.indexing.interval import Interval
from xlapy.indexing.ops_shape import pad_output_to_input
from xlapy.ir.attrs import ConvolutionDimensionNumbers

Dims = Sequence[int]


def reduce_output_to_input(
    input_dims: Dims, output_dims: Dims, reduce_dims: Sequence[int]
) -> IndexingMap:
    """``(d...)[s...] -> (...)``: kept dims read ``d_i`` in order, reduced dims ``s_j`` (§4.6)."""
    exprs: list[AffineExpr] = []
    reduced: list[int] = []
    kept = 0
    for i, n in enumerate(input_dims):
        if i in reduce_dims:
            exprs.append(symbol(len(reduced)))
            reduced.append(n)
        else:
            exprs.append(dim(kept))
            kept += 1
    return IndexingMap.from_tensor_sizes(exprs, output_dims, reduced)


def reduce_input_to_output(input_dims: Dims, reduce_dims: Sequence[int]) -> IndexingMap:
    """``(d...) -> (kept d_i)``: every input element feeds one output element (§4.6)."""
    exprs = [dim(i) for i in range(len(input_dims)) if i not in reduce_dims]
    return IndexingMap.from_tensor_sizes(exprs, input_dims)


def scalar_input_to_output(output_dims: Dims) -> IndexingMap:
    """``()[s...] -> (s...)``: a scalar (an init value) reaches every output element."""
    return IndexingMap.from_tensor_sizes(
        [symbol(j) for j in range(len(output_dims))], [], output_dims
    )


@dataclass(frozen=True, slots=True)
class WindowDims:
    """One dimension of a window (the fields of ``xlapy.ir.attrs.WindowDimension``)."""

    size: int
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    window_reversal: bool = False


def window_output_to_input(
    input_dims: Dims, output_dims: Dims, window: Sequence[WindowDims]
) -> IndexingMap:
    """Output position ``d`` with window offset ``s`` reads padded position
    ``q = d * stride + s * window_dilation``; ``q`` maps to operand ``(q - low) floordiv
    base_dilation`` when ``(q - low) mod base_dilation == 0`` and it is inside the operand
    (the pad map composed with the window map, XLA's ``ComposeWindowIndexingMap``)."""
    exprs = []
    padded = []
    low, high, interior = [], [], []
    for i, (n, w) in enumerate(zip(input_dims, window, strict=True)):
        exprs.append(symbol(i) * w.window_dilation + dim(i) * w.stride)
        padded.append(n + w.padding_low + w.padding_high + (n - 1) * (w.base_dilation - 1))
        low.append(w.padding_low)
        high.append(w.padding_high)
        interior.append(w.base_dilation - 1)
    window_map = IndexingMap(
        exprs, vars_from_sizes(output_dims), vars_from_sizes([w.size for w in window])
    )
    pad_map = pad_output_to_input(padded, low, high, interior)
    return compose(window_map, pad_map).simplify().remove_unused_symbols()


def window_input_to_output(
    input_dims: Dims, output_dims: Dims, window: Sequence[WindowDims]
) -> IndexingMap:
    """Operand index ``x`` reaches output ``o`` through window offset ``s`` when
    ``x * base_dilation + low = o * stride + s * window_dilation``:
    ``(x)[s] -> ((x * b + low - s * wd) floordiv stride)`` with that quotient exact and
    inside the output."""
    exprs = []
    constraints = []
    for i, w in enumerate(window):
        position = dim(i) * w.base_dilation + w.padding_low - symbol(i) * w.window_dilation
        exprs.append(position // w.stride)
        constraints.append((position % w.stride, Interval(0, 0)))
        constraints.append((position // w.stride, Interval(0, output_dims[i] - 1)))
    m = IndexingMap(
        exprs,
        vars_from_sizes(input_dims),
        vars_from_sizes([w.size for w in window]),
        constraints=constraints,
    )
    return m.simplify().remove_unused_symbols()


# ---- dot ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DotDims:
    lhs_batch: tuple[int, ...] = ()
    rhs_batch: tuple[int, ...] = ()
    lhs_contracting: tuple[int, ...] = ()
    rhs_contracting: tuple[int, ...] = ()


def _dot_layout(lhs_rank: int, rhs_rank: int, dd: DotDims) -> tuple[list[int], list[int]]:
    lhs_free = [i for i in range(lhs_rank) if i not in dd.lhs_batch + dd.lhs_contracting]
    rhs_free = [i for i in range(rhs_rank) if i not in dd.rhs_batch + dd.rhs_contracting]
    return lhs_free, rhs_free


def dot_output_to_input(
    lhs_dims: Dims, rhs_dims: Dims, output_dims: Dims, dd: DotDims
) -> tuple[IndexingMap, IndexingMap]:
    """Output dims are batch, lhs free, rhs free (in order); contracted dims become shared
    range variables ``s_j`` (§4.11)."""
    lhs: list[AffineExpr | None] = [None] * len(lhs_dims)
    rhs: list[AffineExpr | None] = [None] * len(rhs_dims)
    out = 0
    for lb, rb in zip(dd.lhs_batch, dd.rhs_batch, strict=True):
        lhs[lb] = rhs[rb] = dim(out)
        out += 1
    lhs_free, rhs_free = _dot_layout(len(lhs_dims), len(rhs_dims), dd)
    for i in lhs_free:
        lhs[i] = dim(out)
        out += 1
    for i in rhs_free:
        rhs[i] = dim(out)
        out += 1
    sizes = []
    for j, (lc, rc) in enumerate(zip(dd.lhs_contracting, dd.rhs_contracting, strict=True)):
        lhs[lc] = rhs[rc] = symbol(j)
        sizes.append(lhs_dims[lc])
    return (
        IndexingMap.from_tensor_sizes([e for e in lhs if e is not None], output_dims, sizes),
        IndexingMap.from_tensor_sizes([e for e in rhs if e is not None], output_dims, sizes),
    )


def dot_input_to_output(lhs_dims: Dims, rhs_dims: Dims, dd: DotDims, operand: int) -> IndexingMap:
    """An lhs element feeds every output element with its batch and free indices and any
    value of the other side's free dims (range variables); the same for rhs (§4.11)."""
    lhs_free, rhs_free = _dot_layout(len(lhs_dims), len(rhs_dims), dd)
    own_dims = lhs_dims if operand == 0 else rhs_dims
    own_batch = dd.lhs_batch if operand == 0 else dd.rhs_batch
    exprs: list[AffineExpr] = [dim(b) for b in own_batch]
    sizes: list[int] = []
    if operand == 0:
        exprs += [dim(i) for i in lhs_free]
        for i in rhs_free:
            exprs.append(symbol(len(sizes)))
            sizes.append(rhs_dims[i])
    else:
        for i in lhs_free:
            exprs.append(symbol(len(sizes)))
            sizes.append(lhs_dims[i])
        exprs += [dim(i) for i in rhs_free]
    return IndexingMap.from_tensor_sizes(exprs, own_dims, sizes)


# ---- convolution --------------------------------------------------------------------------


def convolution_output_to_input(
    input_dims: Dims,
    kernel_dims: Dims,
    output_dims: Dims,
    window: Sequence[WindowDims],
    cd: ConvolutionDimensionNumbers,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    *,
    match_xla: bool = False,
) -> tuple[IndexingMap, IndexingMap]:
    """Spatial dims read a window as reduce-window does; the input feature is a range
    variable over the kernel's input features (offset by the feature group of the output
    feature); with batch groups the lhs batch is ``group * out_batch + d_batch`` where the
    group is that of the output feature. The kernel reads ``(s_spatial, s_feature,
    d_out_feature)``, and only window positions that fall on operand elements (so padded
    positions read no kernel element).

    ``match_xla`` gives XLA's maps instead: the kernel map has no constraints, and with batch
    groups the lhs batch is ``d_batch + s_group * out_batch`` for every group ``s_group``
    (a last range variable of the input map)."""
    rank = len(output_dims)
    spatial_rank = len(cd.output_spatial_dimensions)
    in_spatial = [input_dims[d] for d in cd.input_spatial_dimensions]
    out_spatial = [output_dims[d] for d in cd.output_spatial_dimensions]
    # The window map over spatial dims only, before padding: position = s * wd + d * stride.
    exprs = [symbol(i) * w.window_dilation + dim(i) * w.stride for i, w in enumerate(window)]
    padded = [
        n + w.padding_low + w.padding_high + (n - 1) * (w.base_dilation - 1)
        for n, w in zip(in_spatial, window, strict=True)
    ]
    spatial = compose(
        IndexingMap(exprs, vars_from_sizes(out_spatial), vars_from_sizes([w.size for w in window])),
        pad_output_to_input(
            padded,
            [w.padding_low for w in window],
            [w.padding_high for w in window],
            [w.base_dilation - 1 for w in window],
        ),
    )
    to_output_dims = [dim(d) for d in cd.output_spatial_dimensions]
    spatial_results = [e.replace(to_output_dims) for e in spatial.results]
    constraints = [(e.replace(to_output_dims), b) for e, b in spatial.constraints.items()]
    window_vars = list(spatial.range_vars)

    input_group_size = kernel_dims[cd.kernel_input_feature_dimension]
    feature = symbol(spatial_rank)
    input_exprs: list[AffineExpr] = [dim(0)] * rank
    for i, d in enumerate(cd.input_spatial_dimensions):
        input_exprs[d] = spatial_results[i]
    out_feature = dim(cd.output_feature_dimension)
    if feature_group_count > 1:
        group_size = output_dims[cd.output_feature_dimension] // feature_group_count
        input_exprs[cd.input_feature_dimension] = (
            out_feature // group_size
        ) * input_group_size + feature
    else:
        input_exprs[cd.input_feature_dimension] = feature
    batch = dim(cd.output_batch_dimension)
    out_batch = output_dims[cd.output_batch_dimension]
    symbols = [*window_vars, Variable(Interval(0, input_group_size - 1))]
    input_symbols = list(symbols)
    if batch_group_count > 1 and match_xla:
        input_exprs[cd.input_batch_dimension] = batch + symbol(len(symbols)) * out_batch
        input_symbols.append(Variable(Interval(0, batch_group_count - 1)))
    elif batch_group_count > 1:
        group_size = output_dims[cd.output_feature_dimension] // batch_group_count
        input_exprs[cd.input_batch_dimension] = (out_feature // group_size) * out_batch + batch
    else:
        input_exprs[cd.input_batch_dimension] = batch
    dims_vars = vars_from_sizes(output_dims)
    input_map = IndexingMap(input_exprs, dims_vars, input_symbols, constraints=constraints)

    kernel_exprs: list[AffineExpr] = [dim(0)] * rank
    for i, d in enumerate(cd.kernel_spatial_dimensions):
        w = window[i]
        kernel_exprs[d] = -symbol(i) + (w.size - 1) if w.window_reversal else symbol(i)
    kernel_exprs[cd.kernel_input_feature_dimension] = feature
    kernel_exprs[cd.kernel_output_feature_dimension] = out_feature
    kernel_constraints = () if match_xla else constraints
    kernel_map = IndexingMap(kernel_exprs, dims_vars, symbols, constraints=kernel_constraints)
    # Point dimensions (a batch of 1) are kept as variables, as XLA prints them.
    return (
        input_map.simplify(replace_point_dims=False).remove_unused_symbols(),
        kernel_map.simplify(replace_point_dims=False).remove_unused_symbols(),
    )


# ---- sort ---------------------------------------------------------------------------------


def sort_output_to_input(dims: Dims, sort_dimension: int) -> IndexingMap:
    """Every output element depends on the whole row of every operand along the sort
    dimension: ``(d...)[s0] -> (d with d_k replaced by s0)``."""
    exprs = [symbol(0) if i == sort_dimension else dim(i) for i in range(len(dims))]
    return IndexingMap.from_tensor_sizes(exprs, dims, [dims[sort_dimension]])


def sort_input_to_output(dims: Dims, sort_dimension: int) -> IndexingMap:
    """The same row map: an element can land anywhere in its row."""
    return sort_output_to_input(dims, sort_dimension)
