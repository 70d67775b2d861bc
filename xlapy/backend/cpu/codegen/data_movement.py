"""Element generators of data-movement ops and leaves: broadcast, reshape, bitcast,
transpose, slice, reverse, dynamic-slice, gather (operand element at the op's indexing map, no
statement of their own), concatenate, pad and dynamic-update-slice (a branch per region of
the maps' domains), iota, constants (scalars inline, arrays as kernel arguments),
get-tuple-element, and fusions and calls nested in generated code (generated inline).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlapy.backend.cpu.codegen import numba_types
from xlapy.backend.cpu.codegen.elemental import wrap
from xlapy.backend.cpu.codegen.loop_emitter import Frame, Index, KernelEmitter, Val, generates
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType
from xlapy.indexing.affine import AffineExpr
from xlapy.indexing.indexing_map import IndexingMap
from xlapy.indexing.interval import Interval
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

Region = tuple[str | None, Callable[[], Val]]


def _check(instr: HloInstruction) -> ElementType:
    if not instr.shape.is_array:
        raise NoKernel(f"{instr.opcode.value} {instr.name}: tuple-shaped")
    t = instr.shape.element_type
    numba_types.check(t, f"{instr.opcode.value} {instr.name}")
    return t


@generates(
    Opcode.BROADCAST,
    Opcode.RESHAPE,
    Opcode.BITCAST,
    Opcode.TRANSPOSE,
    Opcode.SLICE,
    Opcode.REVERSE,
    Opcode.DYNAMIC_SLICE,
    Opcode.GATHER,
)
def moved(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """The operand element at the op's map (dynamic offsets, and gather's start indices read
    from its indices operand, clamped as XLA does)."""
    t = _check(instr)
    if instr.operands[0].shape.element_type is not t:
        raise NoKernel(f"{instr.opcode.value} {instr.name}: changes the element type")
    return em.operand(instr, 0, index)


@generates(Opcode.IOTA)
def iota(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """The index along ``iota_dimension``, converted to the element type."""
    t = _check(instr)
    position = em.render(index[instr.attrs.iota_dimension])
    expr = f"{position} != 0" if t.is_pred else position
    return em.emit(instr.name, wrap(em, t, expr), t, index=[index[instr.attrs.iota_dimension]])


@generates(Opcode.CONSTANT)
def constant(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """A scalar constant inline; an array constant read from a kernel argument."""
    t = _check(instr)
    value = instr.attrs.literal.to_numpy()
    if value.ndim == 0:
        text = numba_types.literal(value, t)
        if text is not None:
            return Val(text, t, em.top)
    arg = em.constant_arg(instr, t)
    offset = em.flat_index(index, instr.shape.dims)
    return em.emit(instr.name, em.load(arg, offset), t, index=index)


@generates(Opcode.GET_TUPLE_ELEMENT)
def get_tuple_element(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """Element ``index`` of result ``instr.attrs.index`` of the tuple-shaped operand."""
    return tuple_element(em, instr.operands[0], instr.attrs.index, index)


def tuple_element(em: KernelEmitter, source: HloInstruction, position: int, index: Index) -> Val:
    """Element ``index`` of result ``position`` of tuple-shaped ``source``: a tuple's
    operand, a called computation's root element, a bound tuple (a loop state), or one
    result of a variadic reduce."""
    while id(source) in em.aliases:  # a parameter of an inlined computation
        source = em.aliases[id(source)]
    if source.opcode is Opcode.TUPLE:
        return em.scalar(source.operands[position], index)
    readers = em.tuple_bindings.get(id(source))
    if readers is not None:
        return readers[position](index)
    if source.opcode in (Opcode.FUSION, Opcode.CALL):
        return inline_call(em, source, index, position)
    value = em.element(source, index)
    if not isinstance(value, tuple):
        raise NoKernel(f"{source.opcode.value} {source.name}: not a tuple")
    return value[position]


@generates(Opcode.FUSION, Opcode.CALL)
def called(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """A fusion or call inside generated code: its computation generated inline, its
    parameters reading the instruction's operands."""
    return inline_call(em, instr, index, None)


def inline_call(
    em: KernelEmitter, instr: HloInstruction, index: Index, position: int | None
) -> Val:
    """The root element (result ``position`` of a tuple root) of the computation ``instr``
    calls, at ``index``."""
    comp: HloComputation | None = (
        instr.attrs.calls if instr.opcode is Opcode.FUSION else instr.attrs.to_apply
    )
    if comp is None:
        raise NoKernel(f"{instr.opcode.value} {instr.name}: no computation")
    params = comp.parameters
    for param in params:
        operand = instr.operands[param.parameter_number]
        em.aliases[id(param)] = operand
        em.bindings[id(param)] = _reader(em, operand)
    try:
        with em.scope(comp.instructions, instr, index):
            if position is None:
                return em.scalar(comp.root, index)
            return tuple_element(em, comp.root, position, index)
    finally:
        for param in params:
            del em.aliases[id(param)]
            del em.bindings[id(param)]


def _reader(em: KernelEmitter, operand: HloInstruction) -> Callable[[Index], Val | tuple[Val, ...]]:
    return lambda index: em.element(operand, index)


def domain_condition(
    em: KernelEmitter, m: IndexingMap, index: Index, dims: Sequence[int]
) -> str | None:
    """Source testing that ``index`` lies in the domain of ``m`` (dimension bounds and
    constraints); None when always true, ``"False"`` when never."""
    tests = []
    for i, variable in enumerate(m.dim_vars):
        if variable.bounds != Interval(0, dims[i] - 1):
            tests.append(em.condition(index[i], variable.bounds))
    for expr, bounds in m.constraints.items():
        tests.append(em.condition(expr.replace(dims=index), bounds))
    if "False" in tests:
        return "False"
    kept = [t for t in tests if t is not None]
    return " and ".join(f"({t})" if " and " in t else t for t in kept) or None


def select_regions(
    em: KernelEmitter,
    instr: HloInstruction,
    regions: Sequence[Region],
    deps: Sequence[AffineExpr],
) -> Val:
    """``v = region_k()`` for the first region whose condition holds, as an ``if``/``else``
    chain (each branch computes only its own operand); the last region is the default."""
    live = [r for r in regions if r[0] != "False"]
    for position, (test, _) in enumerate(live):
        if test is None:
            live = live[: position + 1]
            break
    if len(live) == 1:
        return live[0][1]()
    home = em.home(index=deps)
    name = em.fresh(instr.name)
    parent = home
    for test, thunk in live[:-1]:
        then = Frame(f"if {test}:", parent, branch=True)
        other = Frame("else:", parent, branch=True)
        em.emit_in(then, f"{name} = {_in_branch(em, then, thunk).text}")
        parent.items.extend([then, other])
        parent = other
    em.emit_in(parent, f"{name} = {_in_branch(em, parent, live[-1][1]).text}")
    return Val(name, instr.shape.element_type, home)


def _in_branch(em: KernelEmitter, frame: Frame, thunk: Callable[[], Val]) -> Val:
    with em.enter(frame):
        return thunk()


@generates(Opcode.CONCATENATE)
def concatenate(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """The operand whose slab along ``dimensions[0]`` holds the index."""
    _check(instr)
    dims = instr.shape.dims
    regions: list[Region] = []
    for k, group in enumerate(em.maps(instr)):
        if len(group) != 1:
            raise NoKernel(f"concatenate {instr.name}: operand {k} has {len(group)} maps")
        test = domain_condition(em, group[0].map, index, dims)
        regions.append((test, _operand_thunk(em, instr, k, index)))
    return select_regions(em, instr, regions, index)


@generates(Opcode.PAD)
def pad(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """The operand element where the index maps onto one, the padding value elsewhere."""
    _check(instr)
    (operand_map,) = em.maps(instr)[0]
    test = domain_condition(em, operand_map.map, index, instr.shape.dims)
    padding = instr.operands[1]
    regions: list[Region] = [
        (test, _operand_thunk(em, instr, 0, index)),
        (None, lambda: em.scalar(padding, ())),
    ]
    return select_regions(em, instr, regions, index)


@generates(Opcode.DYNAMIC_UPDATE_SLICE)
def dynamic_update_slice(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """The update element inside the (clamped) window, the operand element elsewhere."""
    _check(instr)
    update = instr.operands[1]
    update_index = em.operand_index(instr, 1, index)
    tests = [
        em.condition(e, Interval(0, n - 1))
        for e, n in zip(update_index, update.shape.dims, strict=True)
    ]
    live = [t for t in tests if t is not None]
    test = "False" if "False" in live else (" and ".join(live) or None)
    regions: list[Region] = [
        (test, lambda: em.scalar(update, update_index)),
        (None, _operand_thunk(em, instr, 0, index)),
    ]
    return select_regions(em, instr, regions, [*index, *update_index])


def _operand_thunk(
    em: KernelEmitter, instr: HloInstruction, k: int, index: Index
) -> Callable[[], Val]:
    return lambda: em.operand(instr, k, index)


def constant_value(instr: HloInstruction) -> np.ndarray:
    """The flat C-contiguous value of a constant, as kernels read it."""
    return np.ascontiguousarray(instr.attrs.literal.to_numpy()).reshape(-1)
