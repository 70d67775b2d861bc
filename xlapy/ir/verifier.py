"""Structural verifier of the HLO IR: module, computation and instruction invariants.

``verify(module)`` checks what holds for every well-formed module regardless of the op's
semantics: names, parameter numbering, roots, definition before use, operand counts
(``OpDef.arity`` and each variadic op's rule), required and well-typed attributes, and the
parameter counts/shapes of called computations (reduce, sort, while, conditional, map,
scatter, call, fusion, ...). Shape inference of results lives in ``xlapy.shape_inference``.
Errors read ``<op> <instr name> [<rule>]: <what must hold>; got <values>``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from xlapy import dtypes
from xlapy.errors import VerificationError
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import VARIADIC, AttrKind, AttrSpec
from xlapy.literal import Literal
from xlapy.shape import Shape


def verify(module: HloModule) -> None:
    """Raises VerificationError naming the first broken invariant of ``module``."""
    _Verifier(module).run()


MAX_CALL_DEPTH = 64
"""The deepest chain of nested called computations (calls, loop bodies, branches, reducers)
xlapy accepts: evaluation recurses once per level, and real programs nest a few dozen at
most."""


def check_call_graph(module: HloModule) -> None:
    """Callees belong to the module, the call graph has no cycle, and no chain of nested
    calls is deeper than ``MAX_CALL_DEPTH``. Walks the graph with an explicit stack (a deep
    chain must not exhaust Python's recursion limit here either)."""
    in_module = {id(c) for c in module.computations}
    state: dict[int, int] = {}  # 1: on the current path, 2: done
    depth: dict[int, int] = {}

    found: dict[int, list[tuple[HloInstruction, HloComputation]]] = {}

    def calls(comp: HloComputation) -> list[tuple[HloInstruction, HloComputation]]:
        listed = found.get(id(comp))
        if listed is None:
            listed = found[id(comp)] = [
                (i, callee) for i in comp.instructions for callee in i.called_computations()
            ]
        return listed

    for start in module.computations:
        if id(start) in state:
            continue
        state[id(start)] = 1
        stack = [(start, iter(calls(start)))]
        while stack:
            comp, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                stack.pop()
                state[id(comp)] = 2
                below = [(depth[id(c)], i) for i, c in calls(comp)]
                deepest = max(below, default=(0, None), key=lambda d: d[0])
                depth[id(comp)] = deepest[0] + 1
                if deepest[1] is not None and depth[id(comp)] > MAX_CALL_DEPTH:
                    raise _fail(
                        deepest[1],
                        "call-depth",
                        f"calls computations nested {deepest[0]} deep; xlapy evaluates at most "
                        f"{MAX_CALL_DEPTH} levels of nested calls",
                    )
                continue
            instr, callee = step
            if id(callee) not in in_module:
                raise _fail(
                    instr,
                    "called-computation",
                    f"calls {callee.name}, which is not a computation of the module",
                )
            if state.get(id(callee)) == 1:
                cycle = " -> ".join([*(c.name for c, _ in stack), callee.name])
                raise _fail(instr, "call-graph", f"computations call each other: {cycle}")
            if id(callee) not in state:
                state[id(callee)] = 1
                stack.append((callee, iter(calls(callee))))


def _fail(instr: HloInstruction, rule: str, message: str) -> VerificationError:
    return VerificationError(f"{instr.opcode.value} {instr.name} [{rule}]: {message}")


def _s(shape: Shape) -> str:
    return shape.to_hlo(layout=False)


def _scalar(etype: dtypes.ElementType) -> Shape:
    return Shape.scalar(etype)


class _Verifier:
    def __init__(self, module: HloModule) -> None:
        self.module = module

    def run(self) -> None:
        module = self.module
        if not module.computations:
            raise VerificationError(f"module {module.name} [computations]: has no computations")
        if module.entry not in module.computations:
            raise VerificationError(
                f"module {module.name} [entry]: the entry computation {module.entry.name} "
                "is not one of the module's computations"
            )
        self._check_unique_names()
        self._check_call_graph()
        for comp in module.computations:
            self._check_computation(comp)
        layout = module.config.entry_computation_layout
        if layout is not None:
            params, result = layout
            entry = module.entry
            if len(params) != entry.num_parameters:
                raise VerificationError(
                    f"module {module.name} [entry_computation_layout]: it has {len(params)} "
                    f"parameters but {entry.name} has {entry.num_parameters}"
                )
            got = [p.shape for p in entry.parameters]
            for i, (want, have) in enumerate(zip(params, got, strict=True)):
                if not want.compatible(have):
                    raise VerificationError(
                        f"module {module.name} [entry_computation_layout]: parameter {i} is "
                        f"{_s(want)} in the layout but {_s(have)} in {entry.name}"
                    )
            if not result.compatible(entry.root.shape):
                raise VerificationError(
                    f"module {module.name} [entry_computation_layout]: result is "
                    f"{_s(result)} in the layout but {_s(entry.root.shape)} in {entry.name}"
                )

    def _check_unique_names(self) -> None:
        comps: set[str] = set()
        instrs: dict[str, HloInstruction] = {}
        for comp in self.module.computations:
            if not comp.name or comp.name in comps:
                raise VerificationError(
                    f"computation {comp.name!r} [names]: computation names must be non-empty "
                    "and unique in the module"
                )
            comps.add(comp.name)
            for instr in comp.instructions:
                if not instr.name:
                    raise _fail(instr, "names", "instruction names must be non-empty")
                other = instrs.get(instr.name)
                if other is not None and other is not instr:
                    where = other.parent.name if other.parent is not None else "?"
                    raise _fail(
                        instr,
                        "names",
                        f"instruction names must be unique in the module; {instr.name!r} is "
                        f"also used in {where}",
                    )
                instrs[instr.name] = instr

    def _check_call_graph(self) -> None:
        check_call_graph(self.module)

    # ---- computations -------------------------------------------------------------------
    def _check_computation(self, comp: HloComputation) -> None:
        if not comp.instructions:
            raise VerificationError(f"computation {comp.name} [instructions]: it is empty")
        position = {id(instr): i for i, instr in enumerate(comp.instructions)}
        if id(comp.root) not in position:
            raise VerificationError(
                f"computation {comp.name} [root]: its root {comp.root.name} is not one of "
                "its instructions"
            )
        numbers = sorted(p.parameter_number for p in comp.parameters)
        if numbers != list(range(len(numbers))):
            raise VerificationError(
                f"computation {comp.name} [parameter-numbering]: parameter numbers must be "
                f"0..{len(numbers) - 1}, each once; got {numbers}"
            )
        for i, instr in enumerate(comp.instructions):
            if instr.parent is not comp:
                raise _fail(instr, "parent", f"it is listed in {comp.name} but not owned by it")
            for k, operand in enumerate(instr.operands):
                j = position.get(id(operand))
                if j is None:
                    raise _fail(
                        instr,
                        "operands-defined",
                        f"operand {k} ({operand.name}) is not an instruction of {comp.name}",
                    )
                if j >= i:
                    raise _fail(
                        instr,
                        "operands-defined",
                        f"operand {k} ({operand.name}) must be defined before its use",
                    )
            for pred in instr.control_predecessors:
                if position.get(id(pred), len(position)) >= i:
                    raise _fail(
                        instr,
                        "control-predecessors",
                        f"control predecessor {pred.name} must "
                        f"be an earlier instruction of {comp.name}",
                    )
            self._check_instruction(instr)

    # ---- instructions -------------------------------------------------------------------
    def _check_instruction(self, instr: HloInstruction) -> None:
        opdef = instr.opdef
        n = len(instr.operands)
        if opdef.arity != VARIADIC and n != opdef.arity:
            raise _fail(instr, "arity", f"takes {opdef.arity} operand(s); got {n}")
        for spec in opdef.attrs:
            value = instr.attrs[spec.name]
            if spec.required and value is None:
                raise _fail(instr, "attributes", f"requires attribute {spec.name}")
            if value is not None and not _well_typed(spec, value):
                raise _fail(
                    instr,
                    "attributes",
                    f"attribute {spec.name} must be a {spec.kind.value}; got {value!r}",
                )
        check = _CHECKS.get(instr.opcode)
        if check is not None:
            check(instr)


# ---- attribute kinds -----------------------------------------------------------------------


def _ints(value: Any) -> bool:
    return isinstance(value, tuple) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


def _well_typed(spec: AttrSpec, value: Any) -> bool:
    kind = spec.kind
    if kind is AttrKind.BOOL:
        return isinstance(value, bool)
    if kind is AttrKind.INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is AttrKind.FLOAT:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is AttrKind.STRING:
        return isinstance(value, str)
    if kind is AttrKind.INTS:
        return _ints(value)
    if kind is AttrKind.INTS_LIST:
        return isinstance(value, tuple) and all(_ints(v) for v in value)
    if kind is AttrKind.BOOLS:
        return isinstance(value, tuple) and all(isinstance(v, bool) for v in value)
    if kind is AttrKind.ENUM:
        return spec.enum is not None and isinstance(value, spec.enum)
    if kind is AttrKind.ENUMS:
        assert spec.enum is not None
        return isinstance(value, tuple) and all(isinstance(v, spec.enum) for v in value)
    if kind is AttrKind.COMPUTATION:
        return isinstance(value, HloComputation)
    if kind is AttrKind.COMPUTATIONS:
        return isinstance(value, tuple) and all(isinstance(v, HloComputation) for v in value)
    if kind is AttrKind.SHAPE:
        return isinstance(value, Shape)
    if kind is AttrKind.SHAPES:
        return isinstance(value, tuple) and all(isinstance(v, Shape) for v in value)
    if kind is AttrKind.LITERAL:
        return isinstance(value, Literal)
    return not isinstance(value, enum.Enum) or spec.enum is not None


# ---- per-op structural rules -----------------------------------------------------------------


def _called_signature(
    instr: HloInstruction,
    comp: HloComputation,
    role: str,
    params: Sequence[Shape],
    result: Shape | None,
) -> None:
    """``comp`` must take exactly ``params`` and (when given) return ``result``."""
    got = [p.shape for p in comp.parameters]
    if len(got) != len(params):
        raise _fail(
            instr,
            "called-computation",
            f"{role} {comp.name} must take {len(params)} parameter(s) "
            f"({', '.join(_s(p) for p in params)}); got {len(got)}",
        )
    for i, (want, have) in enumerate(zip(params, got, strict=True)):
        if not want.compatible(have):
            raise _fail(
                instr,
                "called-computation",
                f"parameter {i} of {role} {comp.name} must be {_s(want)}; got {_s(have)}",
            )
    if result is not None and not result.compatible(comp.root.shape):
        raise _fail(
            instr,
            "called-computation",
            f"{role} {comp.name} must return {_s(result)}; got {_s(comp.root.shape)}",
        )


def _scalars_of(shapes: Sequence[Shape]) -> list[Shape]:
    return [_scalar(s.element_type) for s in shapes]


def _maybe_tuple(shapes: Sequence[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)


def _reducer(instr: HloInstruction, inputs: int, role: str = "to_apply") -> None:
    """A reduction computation: (acc_0..acc_{N-1}, x_0..x_{N-1}) -> N scalars."""
    inits = [o.shape for o in instr.operands[inputs:]]
    params = _scalars_of(inits) * 2
    _called_signature(instr, instr.attrs[role], role, params, _maybe_tuple(_scalars_of(inits)))


def _paired(instr: HloInstruction, what: str) -> int:
    n = len(instr.operands)
    if n == 0 or n % 2:
        raise _fail(
            instr,
            "arity",
            f"takes N {what} followed by N init values (an even number >= 2); got {n} operand(s)",
        )
    return n // 2


def _check_reduce(instr: HloInstruction) -> None:
    _reducer(instr, _paired(instr, "inputs"))


def _check_scatter(instr: HloInstruction) -> None:
    n = len(instr.operands)
    if n < 3 or n % 2 == 0:
        raise _fail(
            instr,
            "arity",
            f"takes N inputs, the indices and N updates (an odd number >= 3); got {n} operand(s)",
        )
    inputs = [o.shape for o in instr.operands[: n // 2]]
    params = _scalars_of(inputs) * 2
    comp = instr.attrs.to_apply
    _called_signature(instr, comp, "to_apply", params, _maybe_tuple(_scalars_of(inputs)))


def _check_sort(instr: HloInstruction) -> None:
    if not instr.operands:
        raise _fail(instr, "arity", "takes at least one operand; got 0")
    params = [s for o in instr.operands for s in _scalars_of([o.shape] * 2)]
    _called_signature(instr, instr.attrs.to_apply, "comparator", params, _scalar(dtypes.PRED))


def _check_map(instr: HloInstruction) -> None:
    if not instr.operands:
        raise _fail(instr, "arity", "takes at least one operand; got 0")
    params = _scalars_of([o.shape for o in instr.operands])
    result = _scalar(instr.shape.element_type) if instr.shape.is_array else None
    _called_signature(instr, instr.attrs.to_apply, "to_apply", params, result)


def _check_while(instr: HloInstruction) -> None:
    state = instr.operands[0].shape
    if not state.compatible(instr.shape):
        raise _fail(
            instr,
            "shape",
            f"result must have the shape of the init value {_s(state)}; got {_s(instr.shape)}",
        )
    _called_signature(instr, instr.attrs.condition, "condition", [state], _scalar(dtypes.PRED))
    _called_signature(instr, instr.attrs.body, "body", [state], state)


def _check_conditional(instr: HloInstruction) -> None:
    if not instr.operands:
        raise _fail(instr, "arity", "takes a branch index and one operand per branch; got 0")
    index = instr.operands[0].shape
    attrs = instr.attrs
    if index.element_type is dtypes.PRED and attrs.true_computation is not None:
        branches = [attrs.true_computation, attrs.false_computation]
        if attrs.false_computation is None:
            raise _fail(instr, "attributes", "a pred conditional needs false_computation")
    else:
        branches = list(attrs.branch_computations)
        if not branches:
            raise _fail(
                instr,
                "attributes",
                "needs branch_computations (or true_/false_computation with a pred index)",
            )
    if index.rank != 0 or index.element_type not in (dtypes.PRED, dtypes.S32):
        raise _fail(instr, "branch-index", f"the branch index must be pred[] or s32[]; "
                    f"got {_s(index)}")  # fmt: skip
    if len(instr.operands) != 1 + len(branches):
        raise _fail(
            instr,
            "arity",
            f"takes the branch index and {len(branches)} branch operand(s); "
            f"got {len(instr.operands)} operand(s)",
        )
    for k, (branch, operand) in enumerate(zip(branches, instr.operands[1:], strict=True)):
        _called_signature(instr, branch, f"branch {k}", [operand.shape], instr.shape)


def _check_call_like(instr: HloInstruction) -> None:
    attr = "calls" if instr.opcode is Opcode.FUSION else "to_apply"
    comp = instr.attrs[attr]
    _called_signature(instr, comp, attr, [o.shape for o in instr.operands], instr.shape)


def _check_collective_reducer(instr: HloInstruction) -> None:
    if not instr.operands:
        raise _fail(instr, "arity", "takes at least one operand; got 0")
    etype = next(instr.operands[0].shape.leaves()).element_type
    scalar = _scalar(etype)
    _called_signature(instr, instr.attrs.to_apply, "to_apply", [scalar, scalar], scalar)


def _check_select_and_scatter(instr: HloInstruction) -> None:
    scalar = _scalar(instr.operands[0].shape.element_type)
    source = _scalar(instr.operands[1].shape.element_type)
    _called_signature(instr, instr.attrs.select, "select", [scalar, scalar], _scalar(dtypes.PRED))
    _called_signature(instr, instr.attrs.scatter, "scatter", [source, source], source)


def _check_async_start(instr: HloInstruction) -> None:
    comp = instr.attrs.calls
    if comp is None:
        raise _fail(instr, "attributes", "requires attribute calls")
    shape = instr.shape
    if not shape.is_tuple or len(shape.tuple_shapes) < 2:
        raise _fail(
            instr, "shape", f"result must be ((operands), result, state...); got {_s(shape)}"
        )
    _called_signature(
        instr, comp, "calls", [o.shape for o in instr.operands], shape.tuple_shapes[1]
    )


def _check_min_operands(minimum: int, what: str) -> Any:
    def check(instr: HloInstruction) -> None:
        if len(instr.operands) < minimum:
            raise _fail(instr, "arity", f"takes {what}; got {len(instr.operands)} operand(s)")

    return check


def _check_get_tuple_element(instr: HloInstruction) -> None:
    shape = instr.operands[0].shape
    index = instr.attrs.index
    if not shape.is_tuple or not 0 <= index < len(shape.tuple_shapes):
        raise _fail(
            instr,
            "index",
            f"index must select an element of the tuple operand; got index {index} of {_s(shape)}",
        )


def _check_parameter(instr: HloInstruction) -> None:
    if instr.attrs.parameter_number < 0:
        raise _fail(instr, "parameter-numbering", "parameter numbers must be >= 0")


def _check_constant(instr: HloInstruction) -> None:
    literal = instr.attrs.literal
    if not literal.shape.compatible(instr.shape):
        raise _fail(
            instr,
            "literal",
            f"the literal's shape {_s(literal.shape)} must be the result shape {_s(instr.shape)}",
        )


_CHECKS: dict[Opcode, Any] = {
    Opcode.REDUCE: _check_reduce,
    Opcode.REDUCE_WINDOW: _check_reduce,
    Opcode.SCATTER: _check_scatter,
    Opcode.SORT: _check_sort,
    Opcode.MAP: _check_map,
    Opcode.WHILE: _check_while,
    Opcode.CONDITIONAL: _check_conditional,
    Opcode.CALL: _check_call_like,
    Opcode.FUSION: _check_call_like,
    Opcode.ALL_REDUCE: _check_collective_reducer,
    Opcode.ALL_REDUCE_START: _check_collective_reducer,
    Opcode.REDUCE_SCATTER: _check_collective_reducer,
    Opcode.SELECT_AND_SCATTER: _check_select_and_scatter,
    Opcode.ASYNC_START: _check_async_start,
    Opcode.GET_TUPLE_ELEMENT: _check_get_tuple_element,
    Opcode.PARAMETER: _check_parameter,
    Opcode.CONSTANT: _check_constant,
    Opcode.CONCATENATE: _check_min_operands(1, "at least one operand"),
    # As XLA's parser: a rank-0 operand has no start indices (shape inference counts them).
    Opcode.DYNAMIC_SLICE: _check_min_operands(1, "the operand and its start indices"),
    Opcode.DYNAMIC_UPDATE_SLICE: _check_min_operands(
        2, "the operand, the update and the start indices"
    ),
}
