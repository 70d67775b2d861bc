"""Indexing of one HLO instruction: output->input and input->output maps for every operand.

``output_to_input(instr, output_id)`` and ``input_to_output(instr, input_id)`` dispatch on
the opcode to the plain-dims builders of ``ops_shape``, ``ops_reduce`` and ``ops_dynamic``.
An op without a rule gets ``IndexingMap.undefined()`` (printed ``unknown indexing``); it
never raises. Fusions and calls are composed in ``xlapy.indexing.fusion``.
"""

from __future__ import annotations

from collections.abc import Callable

from xlapy.indexing import ops_dynamic as dyn
from xlapy.indexing import ops_reduce as red
from xlapy.indexing import ops_shape as shp
from xlapy.indexing.affine import dim, symbol
from xlapy.indexing.indexing_map import IndexingMap, compose
from xlapy.indexing.operand_indexing import (
    HloInstructionIndexing,
    OperandIndexing,
    RuntimeVar,
    instruction_summary,
)
from xlapy.indexing.rt_fold import fold_runtime_vars
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.shape import Shape

__all__ = [
    "HloInstructionIndexing",
    "OperandIndexing",
    "RuntimeVar",
    "input_to_output",
    "instruction_summary",
    "output_to_input",
]


def output_shape(instr: HloInstruction, output_id: int = 0) -> Shape:
    shape = instr.shape
    return shape.tuple_shapes[output_id] if shape.is_tuple else shape


def dims_of(shape: Shape) -> list[int]:
    return list(shape.dims) if shape.is_array else []


# ---- output -> input ----------------------------------------------------------------------

_Rule = Callable[[HloInstruction, int, bool], HloInstructionIndexing]
"""``(instr, output or input id, match_xla) -> indexing``."""
_OUTPUT_RULES: dict[Opcode, _Rule] = {}
_INPUT_RULES: dict[Opcode, _Rule] = {}


def _output_rule(*opcodes: Opcode) -> Callable[[_Rule], _Rule]:
    def register(fn: _Rule) -> _Rule:
        for opcode in opcodes:
            _OUTPUT_RULES[opcode] = fn
        return fn

    return register


def _input_rule(*opcodes: Opcode) -> Callable[[_Rule], _Rule]:
    def register(fn: _Rule) -> _Rule:
        for opcode in opcodes:
            _INPUT_RULES[opcode] = fn
        return fn

    return register


def _is_elementwise(instr: HloInstruction) -> bool:
    if Trait.ELEMENTWISE in instr.opdef.traits or instr.opcode is Opcode.MAP:
        return True
    if instr.opcode is Opcode.BITCAST_CONVERT:
        return instr.shape.rank == instr.operands[0].shape.rank
    return False


def output_to_input(
    instr: HloInstruction,
    output_id: int = 0,
    *,
    physical_layout: bool = False,
    simplify: bool = True,
    match_xla: bool = False,
) -> HloInstructionIndexing:
    """For every operand, the maps from the instruction's output ``output_id`` to the
    operand elements it reads. Fusions and calls are composed through their computation
    (each composed map simplified unless ``simplify`` is False). With ``match_xla`` the
    maps are XLA's where xlapy is deliberately more precise (docs/indexing.md lists them)."""
    if _is_elementwise(instr):
        out = dims_of(output_shape(instr, output_id))
        maps = shp.elementwise_output_to_input(out, [o.shape.rank for o in instr.operands])
        result = HloInstructionIndexing.from_maps(maps)
    elif instr.opcode in (Opcode.FUSION, Opcode.CALL):
        from xlapy.indexing.fusion import fusion_output_to_input

        result = fusion_output_to_input(instr, output_id, simplify=simplify, match_xla=match_xla)
    else:
        rule = _OUTPUT_RULES.get(instr.opcode)
        result = (
            rule(instr, output_id, match_xla)
            if rule
            else HloInstructionIndexing.unknown(len(instr.operands))
        )
    if not physical_layout:
        return result
    return _with_physical_layouts(instr, result, output_shape(instr, output_id))


def _with_physical_layouts(
    instr: HloInstruction, indexing: HloInstructionIndexing, out_shape: Shape
) -> HloInstructionIndexing:
    """Maps from the output's physical index to the operands' physical indices."""
    out_dims = dims_of(out_shape)
    assert out_shape.layout is not None or not out_dims
    from_physical = (
        shp.physical_to_logical(out_dims, out_shape.layout.minor_to_major)
        if out_dims and out_shape.layout is not None
        else IndexingMap.identity(out_dims)
    )
    result = HloInstructionIndexing(len(indexing.maps))
    for i, group in enumerate(indexing.maps):
        shape = instr.operands[i].shape
        operand_dims = dims_of(shape)
        to_physical = (
            shp.logical_to_physical(operand_dims, shape.layout.minor_to_major)
            if operand_dims and shape.layout is not None
            else IndexingMap.identity(operand_dims)
        )
        for oi in group:
            m = compose(compose(from_physical, oi.map), to_physical)
            rt = tuple(
                RuntimeVar(r.instruction, compose(from_physical, r.map), r.level)
                for r in oi.rt_vars
            )
            result.add(i, OperandIndexing(m, rt).simplify())
    return result


@_output_rule(Opcode.PARAMETER, Opcode.CONSTANT, Opcode.IOTA)
def _no_operands(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    return HloInstructionIndexing.unknown(len(instr.operands))


@_output_rule(Opcode.BITCAST)
def _bitcast(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    out, src = instr.shape, instr.operands[0].shape
    if not (out.is_array and src.is_array) or out.element_type.bits != src.element_type.bits:
        return HloInstructionIndexing.unknown(1)
    assert out.layout is not None
    assert src.layout is not None
    m = shp.bitcast_map(out.dims, out.layout.minor_to_major, src.dims, src.layout.minor_to_major)
    return HloInstructionIndexing.from_maps([m])


@_output_rule(Opcode.BITCAST_CONVERT)
def _bitcast_convert(
    instr: HloInstruction, output_id: int, match_xla: bool
) -> HloInstructionIndexing:
    """Different widths: the narrower side has one extra minor dimension."""
    out, src = dims_of(instr.shape), dims_of(instr.operands[0].shape)
    if len(out) == len(src) + 1:
        m = IndexingMap.from_tensor_sizes([dim(i) for i in range(len(src))], out)
    else:
        m = IndexingMap.from_tensor_sizes(
            [*(dim(i) for i in range(len(out))), symbol(0)], out, [src[-1]]
        )
    return HloInstructionIndexing.from_maps([m])


@_output_rule(Opcode.BROADCAST)
def _broadcast(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = shp.broadcast_output_to_input(
        instr.shape.dims, instr.attrs.dimensions, instr.operands[0].shape.dims
    )
    return HloInstructionIndexing.from_maps([m])


@_output_rule(Opcode.CONCATENATE)
def _concatenate(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    d = instr.attrs.dimensions[0]
    sizes = [o.shape.dims[d] for o in instr.operands]
    return HloInstructionIndexing.from_maps(
        shp.concatenate_output_to_input(instr.shape.dims, d, sizes)
    )


@_output_rule(Opcode.TRANSPOSE)
def _transpose(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = shp.transpose_output_to_input(instr.shape.dims, instr.attrs.dimensions)
    return HloInstructionIndexing.from_maps([m])


@_output_rule(Opcode.REVERSE)
def _reverse(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    return HloInstructionIndexing.from_maps(
        [shp.reverse_map(instr.shape.dims, instr.attrs.dimensions)]
    )


@_output_rule(Opcode.SLICE)
def _slice(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    spec = instr.attrs.slice.dimensions
    m = shp.slice_output_to_input(
        instr.shape.dims, [d.start for d in spec], [d.stride for d in spec]
    )
    return HloInstructionIndexing.from_maps([m])


@_output_rule(Opcode.RESHAPE)
def _reshape(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = shp.reshape_output_to_input(instr.operands[0].shape.dims, instr.shape.dims)
    return HloInstructionIndexing.from_maps([m])


def _padding(instr: HloInstruction) -> tuple[list[int], list[int], list[int]]:
    dims = instr.attrs.padding.dimensions
    return [d.low for d in dims], [d.high for d in dims], [d.interior for d in dims]


@_output_rule(Opcode.PAD)
def _pad(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    """Operand: the strided interior; padding value: one map per padding region (an output
    element reads the padding value exactly when some dimension is in a padding region).
    XLA (``match_xla``) reads the padding value for every output element."""
    low, high, interior = _padding(instr)
    out = instr.shape.dims
    result = HloInstructionIndexing.from_maps([shp.pad_output_to_input(out, low, high, interior)])
    base = IndexingMap.scalar(out)
    if match_xla:
        result.maps.append([OperandIndexing(base)])
        return result
    result.maps.append([])
    n = instr.operands[0].shape.dims
    for i, (size, lo, step) in enumerate(zip(out, low, interior, strict=True)):
        d = dim(i)
        first = lo  # output position of operand element 0
        last = lo + (n[i] - 1) * (step + 1)
        regions = [
            base.add_constraint(d, (0, first - 1)),
            base.add_constraint(d, (last + 1, size - 1)),
        ]
        if step:
            regions.append(
                base.add_constraint(d, (max(first, 0), min(last, size - 1))).add_constraint(
                    (d - lo) % (step + 1), (1, step)
                )
            )
        if n[i] == 0:
            regions = [base]
        for region in regions:
            region = region.simplify()
            if not region.is_known_empty:
                result.add(1, OperandIndexing(region))
    return result


@_output_rule(Opcode.REDUCE)
def _reduce(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    n = len(instr.operands) // 2
    out = dims_of(output_shape(instr, output_id))
    inputs = red.reduce_output_to_input(instr.operands[0].shape.dims, out, instr.attrs.dimensions)
    return HloInstructionIndexing.from_maps([inputs] * n + [IndexingMap.scalar(out)] * n)


def _window(instr: HloInstruction) -> list[red.WindowDims]:
    return [
        red.WindowDims(
            d.size,
            d.stride,
            d.padding_low,
            d.padding_high,
            d.window_dilation,
            d.base_dilation,
            d.window_reversal,
        )
        for d in instr.attrs.window.dimensions
    ]


@_output_rule(Opcode.REDUCE_WINDOW)
def _reduce_window(
    instr: HloInstruction, output_id: int, match_xla: bool
) -> HloInstructionIndexing:
    n = len(instr.operands) // 2
    out = dims_of(output_shape(instr, output_id))
    inputs = red.window_output_to_input(instr.operands[0].shape.dims, out, _window(instr))
    return HloInstructionIndexing.from_maps([inputs] * n + [IndexingMap.scalar(out)] * n)


def _dot_dims(instr: HloInstruction) -> red.DotDims:
    a = instr.attrs
    return red.DotDims(
        tuple(a.lhs_batch_dims),
        tuple(a.rhs_batch_dims),
        tuple(a.lhs_contracting_dims),
        tuple(a.rhs_contracting_dims),
    )


@_output_rule(Opcode.DOT)
def _dot(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    lhs, rhs = (o.shape.dims for o in instr.operands)
    maps = red.dot_output_to_input(lhs, rhs, instr.shape.dims, _dot_dims(instr))
    return HloInstructionIndexing.from_maps(list(maps))


@_output_rule(Opcode.CONVOLUTION)
def _convolution(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    lhs, rhs = (o.shape.dims for o in instr.operands)
    maps = red.convolution_output_to_input(
        lhs,
        rhs,
        instr.shape.dims,
        _window(instr),
        instr.attrs.dim_labels,
        instr.attrs.feature_group_count,
        instr.attrs.batch_group_count,
        match_xla=match_xla,
    )
    return HloInstructionIndexing.from_maps(list(maps))


@_output_rule(Opcode.SORT)
def _sort(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    dims = dims_of(output_shape(instr, output_id))
    m = red.sort_output_to_input(dims, instr.attrs.dimensions[0])
    return HloInstructionIndexing.from_maps([m] * len(instr.operands))


@_output_rule(Opcode.TUPLE)
def _tuple(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    """Output ``k`` is operand ``k``; the other operands are not read."""
    result = HloInstructionIndexing(len(instr.operands))
    result.add(
        output_id, OperandIndexing(IndexingMap.identity(dims_of(instr.operands[output_id].shape)))
    )
    return result


@_output_rule(Opcode.GET_TUPLE_ELEMENT)
def _get_tuple_element(
    instr: HloInstruction, output_id: int, match_xla: bool
) -> HloInstructionIndexing:
    return HloInstructionIndexing.from_maps([IndexingMap.identity(dims_of(instr.shape))])


@_output_rule(Opcode.DYNAMIC_SLICE)
def _dynamic_slice(
    instr: HloInstruction, output_id: int, match_xla: bool
) -> HloInstructionIndexing:
    if any(o.shape.rank for o in instr.operands[1:]):
        return HloInstructionIndexing.unknown(len(instr.operands))
    maps = dyn.dynamic_slice_output_to_input(instr.operands[0].shape.dims, instr.shape.dims)
    return HloInstructionIndexing.from_maps(
        [fold_runtime_vars(instr, m, match_xla=match_xla) for m in maps]
    )


@_output_rule(Opcode.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(
    instr: HloInstruction, output_id: int, match_xla: bool
) -> HloInstructionIndexing:
    maps = dyn.dynamic_update_slice_output_to_input(instr.shape.dims, instr.operands[1].shape.dims)
    return HloInstructionIndexing.from_maps(
        [fold_runtime_vars(instr, m, match_xla=match_xla) for m in maps]
    )


@_output_rule(Opcode.GATHER)
def _gather(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    a = instr.attrs
    gd = dyn.GatherDims(
        tuple(a.offset_dims),
        tuple(a.collapsed_slice_dims),
        tuple(a.start_index_map),
        a.index_vector_dim,
        tuple(a.operand_batching_dims),
        tuple(a.start_indices_batching_dims),
    )
    operand, indices = (o.shape.dims for o in instr.operands)
    maps = dyn.gather_output_to_input(operand, indices, instr.shape.dims, gd, a.slice_sizes)
    return HloInstructionIndexing.from_maps(
        [fold_runtime_vars(instr, m, match_xla=match_xla) for m in maps]
    )


@_output_rule(Opcode.SCATTER)
def _scatter(instr: HloInstruction, output_id: int, match_xla: bool) -> HloInstructionIndexing:
    a = instr.attrs
    n = (len(instr.operands) - 1) // 2
    sd = dyn.ScatterDims(
        tuple(a.update_window_dims),
        tuple(a.inserted_window_dims),
        tuple(a.scatter_dims_to_operand_dims),
        a.index_vector_dim,
        tuple(a.input_batching_dims),
        tuple(a.scatter_indices_batching_dims),
    )
    maps = dyn.scatter_output_to_input(
        instr.operands[0].shape.dims,
        instr.operands[n].shape.dims,
        instr.operands[n + 1].shape.dims,
        sd,
        n,
    )
    return HloInstructionIndexing.from_maps(
        [fold_runtime_vars(instr, m, match_xla=match_xla) for m in maps]
    )


# ---- input -> output ----------------------------------------------------------------------


def input_to_output(
    instr: HloInstruction,
    input_id: int = 0,
    *,
    physical_layout: bool = False,
    match_xla: bool = False,
) -> HloInstructionIndexing:
    """For every output of the instruction, the maps from operand ``input_id``'s elements to
    the output elements they feed (undefined where the relation is not affine); XLA's maps
    with ``match_xla``."""
    num_outputs = len(instr.shape.tuple_shapes) if instr.shape.is_tuple else 1
    if _is_elementwise(instr):
        out = dims_of(instr.shape)
        result = HloInstructionIndexing.from_maps(
            [shp.elementwise_input_to_output(out, instr.operands[input_id].shape.rank)]
        )
    else:
        rule = _INPUT_RULES.get(instr.opcode)
        result = (
            rule(instr, input_id, match_xla)
            if rule
            else HloInstructionIndexing.unknown(num_outputs)
        )
    if not physical_layout:
        return result
    operand_shape = instr.operands[input_id].shape
    operand_dims = dims_of(operand_shape)
    from_physical = (
        shp.physical_to_logical(operand_dims, operand_shape.layout.minor_to_major)
        if operand_dims and operand_shape.layout is not None
        else IndexingMap.identity(operand_dims)
    )
    physical = HloInstructionIndexing(len(result.maps))
    for k, group in enumerate(result.maps):
        shape = output_shape(instr, k)
        out_dims = dims_of(shape)
        to_physical = (
            shp.logical_to_physical(out_dims, shape.layout.minor_to_major)
            if out_dims and shape.layout is not None
            else IndexingMap.identity(out_dims)
        )
        for oi in group:
            m = compose(compose(from_physical, oi.map), to_physical)
            physical.add(k, OperandIndexing(m, oi.rt_vars).simplify())
    return physical


def _all_outputs(instr: HloInstruction, m: IndexingMap | OperandIndexing) -> HloInstructionIndexing:
    count = len(instr.shape.tuple_shapes) if instr.shape.is_tuple else 1
    return HloInstructionIndexing.from_maps([m] * count)


@_input_rule(Opcode.BITCAST)
def _bitcast_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    out, src = instr.shape, instr.operands[0].shape
    if out.element_type.bits != src.element_type.bits:
        return HloInstructionIndexing.unknown(1)
    assert out.layout is not None
    assert src.layout is not None
    m = shp.bitcast_map(src.dims, src.layout.minor_to_major, out.dims, out.layout.minor_to_major)
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.BROADCAST)
def _broadcast_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = shp.broadcast_input_to_output(
        instr.operands[0].shape.dims, instr.shape.dims, instr.attrs.dimensions
    )
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.CONCATENATE)
def _concatenate_in(
    instr: HloInstruction, input_id: int, match_xla: bool
) -> HloInstructionIndexing:
    d = instr.attrs.dimensions[0]
    sizes = [o.shape.dims[d] for o in instr.operands]
    m = shp.concatenate_input_to_output(instr.operands[input_id].shape.dims, d, sizes, input_id)
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.TRANSPOSE)
def _transpose_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = shp.transpose_input_to_output(instr.operands[0].shape.dims, instr.attrs.dimensions)
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.REVERSE)
def _reverse_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    return _reverse(instr, 0, match_xla)


@_input_rule(Opcode.SLICE)
def _slice_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    spec = instr.attrs.slice.dimensions
    m = shp.slice_input_to_output(
        instr.operands[0].shape.dims,
        instr.shape.dims,
        [d.start for d in spec],
        [d.stride for d in spec],
    )
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.RESHAPE)
def _reshape_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = shp.reshape_input_to_output(instr.operands[0].shape.dims, instr.shape.dims)
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.PAD)
def _pad_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    if input_id == 1:
        # The padding value reaches the complement of the operand's image: one map per region.
        result = HloInstructionIndexing(1)
        for oi in _pad(instr, 0, match_xla).maps[1]:
            m = oi.map
            syms = [symbol(i) for i in range(m.num_dims)]
            constraints = [(e.replace(syms), b) for e, b in m.constraints.items()]
            result.add(0, OperandIndexing(IndexingMap(syms, [], m.dim_vars, (), constraints)))
        return result
    low, _, interior = _padding(instr)
    m = shp.pad_input_to_output(instr.operands[0].shape.dims, instr.shape.dims, low, interior)
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.REDUCE)
def _reduce_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    n = len(instr.operands) // 2
    if input_id >= n:
        return _all_outputs(instr, red.scalar_input_to_output(dims_of(output_shape(instr, 0))))
    m = red.reduce_input_to_output(instr.operands[input_id].shape.dims, instr.attrs.dimensions)
    return _all_outputs(instr, m)


@_input_rule(Opcode.REDUCE_WINDOW)
def _reduce_window_in(
    instr: HloInstruction, input_id: int, match_xla: bool
) -> HloInstructionIndexing:
    n = len(instr.operands) // 2
    out = dims_of(output_shape(instr, 0))
    if input_id >= n:
        return _all_outputs(instr, red.scalar_input_to_output(out))
    m = red.window_input_to_output(instr.operands[input_id].shape.dims, out, _window(instr))
    return _all_outputs(instr, m)


@_input_rule(Opcode.DOT)
def _dot_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    lhs, rhs = (o.shape.dims for o in instr.operands)
    m = red.dot_input_to_output(lhs, rhs, _dot_dims(instr), input_id)
    return HloInstructionIndexing.from_maps([m])


@_input_rule(Opcode.SORT)
def _sort_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    m = red.sort_input_to_output(instr.operands[input_id].shape.dims, instr.attrs.dimensions[0])
    return _all_outputs(instr, m)


@_input_rule(Opcode.TUPLE)
def _tuple_in(instr: HloInstruction, input_id: int, match_xla: bool) -> HloInstructionIndexing:
    result = HloInstructionIndexing(len(instr.operands))
    result.add(
        input_id, OperandIndexing(IndexingMap.identity(dims_of(instr.operands[input_id].shape)))
    )
    return result


@_input_rule(Opcode.GET_TUPLE_ELEMENT)
def _get_tuple_element_in(
    instr: HloInstruction, input_id: int, match_xla: bool
) -> HloInstructionIndexing:
    return HloInstructionIndexing.from_maps([IndexingMap.identity(dims_of(instr.shape))])


@_input_rule(Opcode.DYNAMIC_SLICE)
def _dynamic_slice_in(
    instr: HloInstruction, input_id: int, match_xla: bool
) -> HloInstructionIndexing:
    if input_id != 0 or any(o.shape.rank for o in instr.operands[1:]):
        return HloInstructionIndexing.unknown(1)
    rt = dyn.dynamic_slice_input_to_output(instr.operands[0].shape.dims, instr.shape.dims)
    return HloInstructionIndexing.from_maps([fold_runtime_vars(instr, rt, match_xla=match_xla)])


@_input_rule(Opcode.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice_in(
    instr: HloInstruction, input_id: int, match_xla: bool
) -> HloInstructionIndexing:
    if input_id == 0:
        return HloInstructionIndexing.from_maps([IndexingMap.identity(instr.shape.dims)])
    if input_id != 1:
        return HloInstructionIndexing.unknown(1)
    rt = dyn.dynamic_update_slice_input_to_output(instr.shape.dims, instr.operands[1].shape.dims)
    return HloInstructionIndexing.from_maps([fold_runtime_vars(instr, rt, match_xla=match_xla)])
