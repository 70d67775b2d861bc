"""Indexing maps of data-movement ops, from plain dimension lists (no HLO objects here).

Elementwise, broadcast, transpose, reverse, slice, reshape, bitcast (layout-aware),
concatenate, pad and the logical/physical layout maps. ``*_output_to_input`` returns one map
per operand (output index -> operand index); ``*_input_to_output`` one map for the given
operand (operand index -> output index). Spec: INDEXING.md §4.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy.indexing.affine import AffineExpr, constant, dim, symbol
from xlapy.indexing.indexing_map import IndexingMap, Variable, compose, vars_from_sizes
from xlapy.indexing.interval import Interval

Dims = Sequence[int]


def identity_map(dims: Dims) -> IndexingMap:
    """``(d0, ..., dn) -> (d0, ..., dn)`` over ``dims``."""
    return IndexingMap.identity(dims)


def elementwise_output_to_input(
    output_dims: Dims, operand_ranks: Sequence[int]
) -> list[IndexingMap]:
    """Identity for every operand; a rank-0 operand of a non-scalar op (select's predicate,
    clamp's bounds) is read at ``()`` by every output element (INDEXING.md §4.1)."""
    return [
        IndexingMap.scalar(output_dims) if rank == 0 and output_dims else identity_map(output_dims)
        for rank in operand_ranks
    ]


def elementwise_input_to_output(output_dims: Dims, operand_rank: int) -> IndexingMap:
    """Identity; a scalar operand of a non-scalar op reaches every output element."""
    if operand_rank == 0 and output_dims:
        return IndexingMap(
            [symbol(j) for j in range(len(output_dims))], [], vars_from_sizes(output_dims)
        )
    return identity_map(output_dims)


def broadcast_output_to_input(
    output_dims: Dims, dimensions: Sequence[int], input_dims: Dims | None = None
) -> IndexingMap:
    """``(d0, ..., dR) -> (d_{D[0]}, ..., d_{D[r-1]})`` (INDEXING.md §4.2); an operand
    dimension of size 1 stretched over a larger output dimension (StableHLO's degenerate
    ``broadcast_in_dim``) is always read at 0."""
    exprs = [
        constant(0) if input_dims is not None and input_dims[k] == 1 != output_dims[d] else dim(d)
        for k, d in enumerate(dimensions)
    ]
    return IndexingMap.from_tensor_sizes(exprs, output_dims)


def broadcast_input_to_output(
    input_dims: Dims, output_dims: Dims, dimensions: Sequence[int]
) -> IndexingMap:
    """Operand dim ``k`` at output position ``D[k]``, a range variable at every added position."""
    exprs: list[AffineExpr] = []
    added: list[int] = []
    for out_dim, size in enumerate(output_dims):
        if out_dim in dimensions:
            exprs.append(dim(list(dimensions).index(out_dim)))
        else:
            exprs.append(symbol(len(added)))
            added.append(size)
    return IndexingMap.from_tensor_sizes(exprs, input_dims, added)


def permutation_map(permutation: Sequence[int], domain_dims: Dims) -> IndexingMap:
    """``(d0, ...) -> (d_{P[0]}, d_{P[1]}, ...)`` over ``domain_dims``."""
    return IndexingMap.from_tensor_sizes([dim(p) for p in permutation], domain_dims)


def inverse_permutation(permutation: Sequence[int]) -> list[int]:
    inverse = [0] * len(permutation)
    for i, p in enumerate(permutation):
        inverse[p] = i
    return inverse


def transpose_output_to_input(output_dims: Dims, permutation: Sequence[int]) -> IndexingMap:
    """Output dim ``k`` is input dim ``P[k]``: input dim ``P[k]`` reads ``d_k`` (§4.4)."""
    return permutation_map(inverse_permutation(permutation), output_dims)


def transpose_input_to_output(input_dims: Dims, permutation: Sequence[int]) -> IndexingMap:
    return permutation_map(permutation, input_dims)


def reverse_map(dims: Dims, reverse_dims: Sequence[int]) -> IndexingMap:
    """``d_i -> -d_i + (n_i - 1)`` on reversed dims; an involution, so both directions (§4.5)."""
    exprs = [-dim(i) + (n - 1) if i in reverse_dims else dim(i) for i, n in enumerate(dims)]
    return IndexingMap.from_tensor_sizes(exprs, dims)


def slice_output_to_input(
    output_dims: Dims, starts: Sequence[int], strides: Sequence[int]
) -> IndexingMap:
    """``d_i -> d_i * stride_i + start_i`` (§4.7)."""
    exprs = [dim(i) * t + s for i, (s, t) in enumerate(zip(starts, strides, strict=True))]
    return IndexingMap.from_tensor_sizes(exprs, output_dims)


def slice_input_to_output(
    input_dims: Dims, output_dims: Dims, starts: Sequence[int], strides: Sequence[int]
) -> IndexingMap:
    """``d_i -> (d_i - start_i) floordiv stride_i`` on the strided input elements only:
    ``d_i in [start_i, start_i + (out_i - 1) * stride_i]``, ``(d_i - start_i) mod stride_i == 0``."""
    exprs = [(dim(i) - s) // t for i, (s, t) in enumerate(zip(starts, strides, strict=True))]
    m = IndexingMap.from_tensor_sizes(exprs, input_dims)
    for i, (s, t, n) in enumerate(zip(starts, strides, output_dims, strict=True)):
        m = m.add_constraint(dim(i), (s, (n - 1) * t + s))
        m = m.add_constraint((dim(i) - s) % t, (0, 0))
    return m


def concatenate_output_to_input(
    output_dims: Dims, dimension: int, operand_sizes: Sequence[int]
) -> list[IndexingMap]:
    """Operand ``k`` owns output rows ``[offset_k, offset_k + size_k - 1]`` along the
    concatenated dimension and reads ``d - offset_k`` there (§4.10)."""
    maps = []
    offset = 0
    for size in operand_sizes:
        exprs = [dim(i) - offset if i == dimension else dim(i) for i in range(len(output_dims))]
        variables = list(vars_from_sizes(output_dims))
        variables[dimension] = Variable(Interval(offset, offset + size - 1))
        maps.append(IndexingMap(exprs, variables))
        offset += size
    return maps


def concatenate_input_to_output(
    input_dims: Dims, dimension: int, operand_sizes: Sequence[int], operand: int
) -> IndexingMap:
    offset = sum(operand_sizes[:operand])
    exprs = [dim(i) + offset if i == dimension else dim(i) for i in range(len(input_dims))]
    return IndexingMap.from_tensor_sizes(exprs, input_dims)


def pad_output_to_input(
    output_dims: Dims, low: Sequence[int], high: Sequence[int], interior: Sequence[int]
) -> IndexingMap:
    """``d -> (d - low) floordiv (interior + 1)`` with ``(d - low) mod (interior + 1) == 0``,
    ``d`` restricted to the part of the output that holds operand elements (§4.12)."""
    exprs: list[AffineExpr] = []
    variables = []
    constraints = []
    for i, (n, lo, hi, step) in enumerate(zip(output_dims, low, high, interior, strict=True)):
        variables.append(Variable(Interval(max(0, lo), min(n - 1, n - 1 - hi))))
        if step == 0:
            exprs.append(dim(i) - lo)
        else:
            exprs.append((dim(i) - lo) // (step + 1))
            constraints.append(((dim(i) - lo) % (step + 1), Interval(0, 0)))
    return IndexingMap(exprs, variables, constraints=constraints)


def pad_input_to_output(
    input_dims: Dims, output_dims: Dims, low: Sequence[int], interior: Sequence[int]
) -> IndexingMap:
    """``d -> d * (interior + 1) + low``, for the operand elements that stay inside the
    output (negative edge padding drops some)."""
    exprs = [
        dim(i) * (step + 1) + lo for i, (lo, step) in enumerate(zip(low, interior, strict=True))
    ]
    m = IndexingMap.from_tensor_sizes(exprs, input_dims)
    for e, n in zip(exprs, output_dims, strict=True):
        m = m.add_constraint(e, (0, n - 1))
    return m.simplify()


# ---- reshape ------------------------------------------------------------------------------


def strides_of(dims: Dims) -> list[int]:
    """Row-major strides: ``strides[i] = prod(dims[i+1:])``."""
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = dims[i + 1] * strides[i + 1]
    return strides


def linearize(dims: Dims, exprs: Sequence[AffineExpr]) -> AffineExpr:
    linear = constant(0)
    for stride, e in zip(strides_of(dims), exprs, strict=True):
        linear = linear + e * stride
    return linear


def delinearize(dims: Dims, linear: AffineExpr) -> list[AffineExpr]:
    result = []
    remainder = linear
    for stride in strides_of(dims):
        result.append(remainder // stride)
        remainder = remainder % stride
    return result


def _minimal_reshape(
    input_dims: Dims, output_dims: Dims, output_exprs: Sequence[AffineExpr]
) -> list[AffineExpr]:
    if len(input_dims) == 1 and len(output_dims) == 1:
        return list(output_exprs)
    if len(input_dims) == 1:
        return [linearize(output_dims, output_exprs)]
    if len(output_dims) == 1:
        return delinearize(input_dims, output_exprs[0])
    return delinearize(input_dims, linearize(output_dims, output_exprs))


def reshape_exprs(input_dims: Dims, output_dims: Dims) -> list[AffineExpr]:
    """Input index as expressions of the output dims: the shapes are cut into the shortest
    runs with equal element counts, each run is a plain copy, an expand, a collapse or a
    linearize-delinearize (XLA's ``ComputeReshapeIndexingMap``, INDEXING.md §4.8)."""
    if any(n == 0 for n in input_dims):
        return [constant(0)] * len(input_dims)
    exprs: list[AffineExpr] = []
    in_sub: list[int] = []
    out_sub: list[int] = []
    out_exprs: list[AffineExpr] = []
    in_count = out_count = 1
    i = o = 0
    while i < len(input_dims) or o < len(output_dims) or in_sub:
        if i < len(input_dims) and (not in_sub or in_count < out_count):
            in_count *= input_dims[i]
            in_sub.append(input_dims[i])
            i += 1
            continue
        if o < len(output_dims) and (not out_sub or out_count < in_count):
            out_count *= output_dims[o]
            out_sub.append(output_dims[o])
            out_exprs.append(dim(o))
            o += 1
            continue
        exprs.extend(_minimal_reshape(in_sub, out_sub, out_exprs))
        in_count = out_count = 1
        in_sub, out_sub, out_exprs = [], [], []
    return exprs


def reshape_output_to_input(input_dims: Dims, output_dims: Dims) -> IndexingMap:
    m = IndexingMap.from_tensor_sizes(reshape_exprs(input_dims, output_dims), output_dims)
    return m.simplify(replace_point_dims=False)


def reshape_input_to_output(input_dims: Dims, output_dims: Dims) -> IndexingMap:
    m = IndexingMap.from_tensor_sizes(reshape_exprs(output_dims, input_dims), input_dims)
    return m.simplify(replace_point_dims=False)


# ---- layouts and bitcast ------------------------------------------------------------------


def major_to_minor(minor_to_major: Sequence[int]) -> list[int]:
    return list(reversed(minor_to_major))


def physical_dims(dims: Dims, minor_to_major: Sequence[int]) -> list[int]:
    """The dims in memory order (major first)."""
    return [dims[d] for d in major_to_minor(minor_to_major)]


def logical_to_physical(dims: Dims, minor_to_major: Sequence[int]) -> IndexingMap:
    """Logical index -> physical (memory-order) index."""
    return permutation_map(major_to_minor(minor_to_major), dims)


def physical_to_logical(dims: Dims, minor_to_major: Sequence[int]) -> IndexingMap:
    """Physical (memory-order) index -> logical index."""
    order = major_to_minor(minor_to_major)
    return permutation_map(inverse_permutation(order), physical_dims(dims, order[::-1]))


def bitcast_map(
    source_dims: Dims,
    source_layout: Sequence[int],
    target_dims: Dims,
    target_layout: Sequence[int],
) -> IndexingMap:
    """Source index -> target index of a bitcast: both address the same linear memory, so
    the map is transpose (to physical) - reshape - transpose (to logical) (§4.9). Undefined
    when the element counts differ."""
    count = 1
    for n in source_dims:
        count *= n
    target_count = 1
    for n in target_dims:
        target_count *= n
    if count != target_count:
        return IndexingMap.undefined()
    src_physical = physical_dims(source_dims, source_layout)
    dst_physical = physical_dims(target_dims, target_layout)
    to_physical = logical_to_physical(source_dims, source_layout)
    reshape = IndexingMap.from_tensor_sizes(reshape_exprs(dst_physical, src_physical), src_physical)
    to_logical = physical_to_logical(target_dims, target_layout)
    composed = compose(compose(to_physical, reshape), to_logical)
    return composed.simplify(replace_point_dims=False).remove_unused_symbols()
