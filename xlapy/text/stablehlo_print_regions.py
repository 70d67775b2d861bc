"""StableHLO emitters of the HLO ops that call computations: reductions, windows, scatter,
sort, map, ``while``, ``conditional``, ``call`` / composites, ``fusion``, async wrappers and
``chlo.scan``. The inverse of the region lowerings of ``stablehlo_ops``.

* ``reduce`` prints in the compact ``applies stablehlo.add`` form when its body is one
  commutative binary op of its two parameters in order, else with a ``reducer`` block.
* ``while`` prints in its pretty form: the (flattened) state is the iteration arguments of both
  regions; ``conditional`` becomes ``stablehlo.if`` (pred selector) or ``stablehlo.case``, each
  branch computation inlined into a region that uses the branch operand from outside.
* ``call`` becomes ``func.call`` of the callee's function (``stablehlo.composite`` when
  ``is_composite``); ``fusion`` and ``async-start`` inline their computation.
"""

from __future__ import annotations

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.text.stablehlo_print_dense import dense_array, dense_ints, mlir_string
from xlapy.text.stablehlo_print_ops import arrays, int_list, results
from xlapy.text.stablehlo_printer import (
    Opaque,
    Pack,
    Scope,
    Ssa,
    Value,
    emits,
    function_type,
    generic,
    names,
    result_shapes,
    symbol,
    types,
    unflatten,
    unsupported,
)


def define_generic(scope: Scope, instr: HloInstruction, name: str, operands: list[Ssa],
                   properties: list[str], region_comps: list[HloComputation]) -> Value:  # fmt: skip
    """Writes a generic op whose regions are ``region_comps`` (isolated, parameters as block
    arguments); returns its results (a Pack for a tuple-shaped instruction)."""
    base = scope.reserve()
    regions = [scope.region(comp) for comp in region_comps]
    text = generic(name, operands, result_shapes(instr.shape), properties, regions)
    return results(scope, base, text, instr.shape)


def window_properties(instr: HloInstruction, window: A.Window, *, dilations: bool) -> list[str]:
    """``window_dimensions``, ``window_strides``, ``padding`` (and the dilations) of a
    reduce-window or select-and-scatter."""
    dims = window.dimensions
    if any(d.window_reversal for d in dims):
        raise unsupported(instr, "a window reversal has no StableHLO form", window)
    if not dilations and any(d.base_dilation != 1 or d.window_dilation != 1 for d in dims):
        raise unsupported(instr, "select_and_scatter has no window dilations", window)
    props = [
        f"window_dimensions = {dense_array([d.size for d in dims])}",
        f"window_strides = {dense_array([d.stride for d in dims])}",
        f"padding = {dense_ints([(d.padding_low, d.padding_high) for d in dims], 2)}",
    ]
    if dilations:
        props.append(f"base_dilations = {dense_array([d.base_dilation for d in dims])}")
        props.append(f"window_dilations = {dense_array([d.window_dilation for d in dims])}")
    return props


# ---- reductions and windows ----------------------------------------------------------------

_COMPACT = {
    Opcode.ADD: "stablehlo.add",
    Opcode.MULTIPLY: "stablehlo.multiply",
    Opcode.MAXIMUM: "stablehlo.maximum",
    Opcode.MINIMUM: "stablehlo.minimum",
    Opcode.AND: "stablehlo.and",
    Opcode.OR: "stablehlo.or",
    Opcode.XOR: "stablehlo.xor",
}


def compact_reducer(comp: HloComputation, element: dtypes.ElementType) -> str | None:
    """The op of a body ``(a, b) -> op(a, b)`` on scalars of ``element`` (the only body the
    compact ``applies`` form of reduce stands for), else None."""
    params = comp.parameters
    root = comp.root
    scalar = Shape.scalar(element)
    if len(params) != 2 or len(comp.instructions) != 3 or root.opcode not in _COMPACT:
        return None
    if len(root.operands) != 2 or any(
        a is not b for a, b in zip(root.operands, params, strict=True)
    ):
        return None
    if not all(v.shape.compatible(scalar) for v in (*params, root)):
        return None
    return _COMPACT[root.opcode]


@emits(Opcode.REDUCE)
def _reduce(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    n = len(args) // 2
    comp = instr.attrs.to_apply
    pairs = ", ".join(f"({x.name} init: {i.name})" for x, i in zip(args[:n], args[n:], strict=True))
    dims = int_list(instr.attrs.dimensions)
    sig = function_type(args, result_shapes(instr.shape))
    base = scope.reserve()
    compact = compact_reducer(comp, args[n].shape.element_type) if n == 1 else None
    if compact is not None:
        text = f"stablehlo.reduce{pairs} applies {compact} across dimensions = {dims} : {sig}"
        return results(scope, base, text, instr.shape)
    inner = scope.child()
    block_args = [Ssa(scope.fn.arg(), p.shape) for p in comp.parameters]
    root = inner.emit_computation(comp, block_args)
    inner.terminate(inner.leaves(root))

    def arg(a: Ssa) -> str:
        return f"{a.name}: {a.shape.to_mlir()}"

    reducer = " ".join(f"({arg(block_args[i])}, {arg(block_args[n + i])})" for i in range(n))
    text = (
        f"stablehlo.reduce{pairs} across dimensions = {dims} : {sig}\n{scope.pad} reducer"
        f"{reducer} {scope.block_text(inner, '')}"
    )
    return results(scope, base, text, instr.shape)


@emits(Opcode.REDUCE_WINDOW)
def _reduce_window(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    props = window_properties(instr, instr.attrs.window, dilations=True)
    return define_generic(scope, instr, "stablehlo.reduce_window", arrays(scope, instr, operands),
                          props, [instr.attrs.to_apply])  # fmt: skip


@emits(Opcode.SELECT_AND_SCATTER)
def _select_and_scatter(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    props = window_properties(instr, instr.attrs.window, dilations=False)
    comps = [instr.attrs.select, instr.attrs.scatter]
    return define_generic(scope, instr, "stablehlo.select_and_scatter",
                          arrays(scope, instr, operands), props, comps)  # fmt: skip


def dimension_fields(fields: list[tuple[str, object]]) -> str:
    """``a = [1], b = 2`` omitting empty lists (and an index_vector_dim of 0), as MLIR prints
    structured StableHLO attributes."""
    out = []
    for key, value in fields:
        if isinstance(value, tuple):
            if value:
                out.append(f"{key} = {int_list(value)}")
        elif not (key == "index_vector_dim" and value == 0):
            out.append(f"{key} = {value}")
    return ", ".join(out)


def flag(name: str, value: bool) -> str:
    return f"{name} = {'true' if value else 'false'}"


@emits(Opcode.SCATTER)
def _scatter(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    a = instr.attrs
    dims = dimension_fields([
        ("update_window_dims", a.update_window_dims),
        ("inserted_window_dims", a.inserted_window_dims),
        ("input_batching_dims", a.input_batching_dims),
        ("scatter_indices_batching_dims", a.scatter_indices_batching_dims),
        ("scatter_dims_to_operand_dims", a.scatter_dims_to_operand_dims),
        ("index_vector_dim", a.index_vector_dim),
    ])  # fmt: skip
    props = [
        flag("indices_are_sorted", a.indices_are_sorted),
        f"scatter_dimension_numbers = #stablehlo.scatter<{dims}>",
        flag("unique_indices", a.unique_indices),
    ]
    return define_generic(scope, instr, "stablehlo.scatter", arrays(scope, instr, operands),
                          props, [a.to_apply])  # fmt: skip


@emits(Opcode.SORT)
def _sort(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (dim,) = instr.attrs.dimensions
    props = [f"dimension = {dim} : i64", flag("is_stable", instr.attrs.is_stable)]
    return define_generic(scope, instr, "stablehlo.sort", arrays(scope, instr, operands),
                          props, [instr.attrs.to_apply])  # fmt: skip


@emits(Opcode.MAP)
def _map(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    dims = instr.attrs.dimensions or tuple(range(instr.shape.rank))
    props = [f"dimensions = {dense_array(dims)}"]
    return define_generic(scope, instr, "stablehlo.map", arrays(scope, instr, operands), props,
                          [instr.attrs.to_apply])  # fmt: skip


@emits(Opcode.SCAN)
def _scan(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    a = instr.attrs
    args = arrays(scope, instr, operands)
    carries = a.num_carries
    outputs = len(result_shapes(instr.shape)) - carries
    (dim,) = a.dimensions
    props = [
        f"dimension = {dim} : i64",
        f"operandSegmentSizes = {dense_array([len(args) - carries, carries], 'i32')}",
        f"resultSegmentSizes = {dense_array([outputs, carries], 'i32')}",
    ]
    if a.is_reverse:
        props.append("is_reverse = true")
    if a.is_associative:
        props.append("is_associative = true")
    return define_generic(scope, instr, "chlo.scan", args, props, [a.to_apply])


# ---- control flow ---------------------------------------------------------------------------


@emits(Opcode.WHILE)
def _while(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    state = scope.leaves(operands[0])
    base = scope.reserve() if state else ""
    iter_args = [Ssa(scope.fn.arg(), v.shape) for v in state]
    blocks = []
    for comp in (instr.attrs.condition, instr.attrs.body):
        inner = scope.child()
        root = inner.emit_computation(comp, [unflatten(instr.shape, iter(iter_args))])
        inner.terminate(inner.leaves(root))
        blocks.append(scope.block_text(inner, ""))
    bindings = ", ".join(f"{a.name} = {v.name}" for a, v in zip(iter_args, state, strict=True))
    head = f"stablehlo.while({bindings})" + (f" : {types(state)}" if state else "")
    text = f"{head}\n{scope.pad}cond {blocks[0]} do {blocks[1]}"
    values = scope.define(base, text, [v.shape for v in state])
    return unflatten(instr.shape, iter(values))


@emits(Opcode.CONDITIONAL)
def _conditional(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    selector = scope.ssa(operands[0], f"branch index of {instr.name}")
    a = instr.attrs
    comps = list(a.branch_computations) or [a.true_computation, a.false_computation]
    name = "stablehlo.if" if selector.shape.element_type is dtypes.PRED else "stablehlo.case"
    shapes = list(instr.shape.leaves())
    base = scope.reserve() if shapes else ""
    regions = []
    for comp, operand in zip(comps, operands[1:], strict=True):
        params = [operand] if comp.num_parameters == 1 else []
        regions.append(scope.region_with(comp, params))
    text = generic(name, [selector], shapes, regions=regions)
    return unflatten(instr.shape, iter(scope.define(base, text, shapes)))


@emits(Opcode.CALL)
def _call(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    comp = instr.attrs.to_apply
    callee = symbol(scope.printer.function_name(comp))
    args = [leaf for o in operands for leaf in scope.leaves(o)]
    shapes = list(instr.shape.leaves())
    sig = function_type(args, shapes)
    if instr.attrs.is_composite:
        fe = instr.frontend_attributes
        attrs = [
            f"composite_attributes = {fe.get('composite.attributes', '{}')}",
            f"decomposition = {callee}",
        ]
        text_version = fe.get("composite.version", "0") or "0"
        if not text_version.strip().lstrip("-").isdigit():
            raise InvalidArgument(
                f"call {instr.name}: a composite's frontend attribute composite.version must be "
                f"an integer; got {text_version!r}"
            )
        version = int(text_version)
        if version:
            attrs.append(f"version = {version} : i32")
        name = mlir_string(fe.get("composite.name", comp.name))
        listed = f" {names(args)}" if args else ""
        text = f"stablehlo.composite {name}{listed} {{{', '.join(attrs)}}} : {sig}"
    else:
        text = f"func.call {callee}({names(args)}) : {sig}"
    return unflatten(instr.shape, iter(scope.op(text, shapes)))


@emits(Opcode.FUSION)
def _fusion(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """The fused computation, inlined."""
    return scope.emit_computation(instr.attrs.calls, operands)


@emits(Opcode.ASYNC_START)
def _async_start(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """The wrapped computation runs at the start (inlined); the start's value is
    ``((operands...), result, context...)``."""
    comp = instr.attrs.calls
    if comp is None:
        raise unsupported(instr, "an async-start needs the computation it calls", instr.shape)
    result = scope.emit_computation(comp, operands)
    context = [Opaque(s, f"the context of {instr.name}") for s in instr.shape.tuple_shapes[2:]]
    return Pack((Pack(tuple(operands)), result, *context))


@emits(Opcode.ASYNC_UPDATE)
def _async_update(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return operands[0]


@emits(Opcode.ASYNC_DONE)
def _async_done(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return scope.element(operands[0], 1)
