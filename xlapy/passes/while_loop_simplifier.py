"""``while-loop-simplifier`` (part of XLA's WhileLoopSimplifier): loops known to run zero
times become their initial value, loops known to run once become their body, and state
elements nothing reads are dropped from loops."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xlapy.errors import XlaError
from xlapy.interpreter.evaluator import Evaluator
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value
from xlapy.passes.analysis import RANDOM_OPS, SideEffects, callers, contains_opcode
from xlapy.passes.call_graph import inline_computation
from xlapy.passes.pass_manager import Pass, record, register_pass
from xlapy.passes.rewrite import constant_array, remove_unused
from xlapy.shape import Shape

_UNKNOWABLE = RANDOM_OPS | {
    Opcode.WHILE,
    Opcode.REPLICA_ID,
    Opcode.PARTITION_ID,
    Opcode.CUSTOM_CALL,
    Opcode.INFEED,
    Opcode.RECV,
}
"""Ops whose value the pass does not compute ahead of time (device- or run-dependent, or a
loop that might not end)."""

WHOLE = -1
"""Key of the whole loop state in a map of known state values (element i is key i)."""


@register_pass
@dataclass(frozen=True)
class WhileLoopSimplifier(Pass):
    """Removes while loops that run zero times or once, and loop state nothing reads.

    In this order:

    - trip count 0 (the condition is false on the initial state): the loop becomes its
      initial value;
    - trip count 1 (true on the initial state, false after one body run): the loop becomes
      the body, inlined once.
      The trip count is known when the condition reads only state elements whose initial
      values are constants and that the body computes from constants and those elements;
      the pass evaluates condition and body on them with the interpreter's evals.
    - dead state elements: an element that the condition and the loop's users never read,
      and that the body uses only to compute that same element, is removed from the state
      (the loop's users must all be get-tuple-element, and the condition and body must be
      called by this loop only; ``flatten-call-graph`` arranges that).

    Loops with side effects in the condition, or with control edges, are left alone.
    """

    name: ClassVar[str] = "while-loop-simplifier"

    def run(self, module: HloModule) -> bool:
        changed = False
        effects = SideEffects()
        evaluator = Evaluator(module)
        for comp in list(module.computations):
            for instr in list(comp.instructions):
                if instr.opcode is not Opcode.WHILE or instr.parent is not comp:
                    continue
                if instr.control_predecessors or any(
                    instr in other.control_predecessors for other in comp.instructions
                ):
                    continue
                cond = instr.attrs.condition
                if effects.computation_has_side_effect(cond):
                    continue
                trips = _trip_count_at_most_one(instr, evaluator)
                if trips == 0:
                    comp.replace_instruction(instr, instr.operands[0])
                    record(f"{self.name}/zero_trips")
                    changed = True
                elif trips == 1:
                    body = instr.attrs.body
                    result = inline_computation(comp, instr, body, instr.operands)
                    comp.replace_instruction(instr, result)
                    record(f"{self.name}/one_trip")
                    changed = True
                else:
                    removed = _remove_dead_elements(module, comp, instr, effects)
                    if removed:
                        record(f"{self.name}/dead_state_element", removed)
                        changed = True
        return changed


# ---- trip counts ----------------------------------------------------------------------------


def _trip_count_at_most_one(loop: HloInstruction, evaluator: Evaluator) -> int | None:
    """0 or 1 when the loop is known to run that many times, else None."""
    cond: HloComputation = loop.attrs.condition
    body: HloComputation = loop.attrs.body
    state = _initial_values(loop.operands[0])
    if not state:
        return None
    first = _evaluate(cond, cond.root, state, evaluator)
    if first is None:
        return None
    if not bool(first):
        return 0
    needed = _state_reads(cond, cond.root)
    if needed is None:
        return None
    following: dict[int, Value] = {}
    for key in needed:
        target = body.root if key == WHOLE else _tuple_operand(body.root, key)
        value = None if target is None else _evaluate(body, target, state, evaluator)
        if value is None:
            return None
        following[key] = value
    second = _evaluate(cond, cond.root, following, evaluator)
    if second is None or bool(second):
        return None
    return 1


def _tuple_operand(root: HloInstruction, index: int) -> HloInstruction | None:
    return root.operands[index] if root.opcode is Opcode.TUPLE else None


def _initial_values(init: HloInstruction) -> dict[int, Value]:
    """The constant parts of a loop's initial state: element i -> value, and WHOLE when the
    whole state is constant."""
    known: dict[int, Value] = {}
    if init.opcode is Opcode.CONSTANT:
        value = init.attrs.literal.value
        if init.attrs.literal.elided:
            return {}
        known[WHOLE] = value
        if isinstance(value, tuple):
            known.update(enumerate(value))
        return known
    if init.opcode is Opcode.TUPLE:
        for i, operand in enumerate(init.operands):
            value = constant_array(operand)
            if value is not None:
                known[i] = value
        if len(known) == len(init.operands):
            known[WHOLE] = tuple(known[i] for i in range(len(init.operands)))
    return known


def _cone(comp: HloComputation, target: HloInstruction) -> list[HloInstruction] | None:
    """``target`` and what it depends on in ``comp``, operands first; None when that includes
    an op whose value cannot be known ahead of time."""
    seen: set[int] = set()
    order: list[HloInstruction] = []
    stack: list[tuple[HloInstruction, bool]] = [(target, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.opcode in _UNKNOWABLE or any(
            contains_opcode(c, _UNKNOWABLE) for c in node.called_computations()
        ):
            return None
        stack.append((node, True))
        if not _reads_state(node):
            stack.extend((o, False) for o in node.operands)
    return order


def _reads_state(instr: HloInstruction) -> bool:
    """The parameter itself, or get-tuple-element of the parameter (one state element)."""
    if instr.opcode is Opcode.PARAMETER:
        return True
    return instr.opcode is Opcode.GET_TUPLE_ELEMENT and (
        instr.operands[0].opcode is Opcode.PARAMETER
    )


def _state_key(instr: HloInstruction) -> int:
    return WHOLE if instr.opcode is Opcode.PARAMETER else int(instr.attrs.index)


def _state_reads(comp: HloComputation, target: HloInstruction) -> set[int] | None:
    cone = _cone(comp, target)
    if cone is None:
        return None
    return {_state_key(i) for i in cone if _reads_state(i)}


def _evaluate(
    comp: HloComputation, target: HloInstruction, state: dict[int, Value], evaluator: Evaluator
) -> Value | None:
    """The value of ``target`` given the known state values; None if it needs an unknown
    element or its evaluation fails."""
    cone = _cone(comp, target)
    if cone is None:
        return None
    values: dict[int, Value] = {}
    for instr in cone:
        if _reads_state(instr):
            key = _state_key(instr)
            if key not in state:
                return None
            values[id(instr)] = state[key]
            continue
        try:
            values[id(instr)] = evaluator.evaluate(instr, [values[id(o)] for o in instr.operands])
        except XlaError:
            return None
    return values[id(target)]


# ---- dead state elements --------------------------------------------------------------------


def _remove_dead_elements(
    module: HloModule, comp: HloComputation, loop: HloInstruction, effects: SideEffects
) -> int:
    """Drops the state elements nothing reads (see the pass docstring); returns how many."""
    shape = loop.shape
    cond: HloComputation = loop.attrs.condition
    body: HloComputation = loop.attrs.body
    if not shape.is_tuple or comp.root is loop or cond is body:
        return 0
    outside = _element_reads(comp, loop)
    in_cond = _element_reads(cond, cond.parameter(0))
    if outside is None or in_cond is None or body.root.opcode is not Opcode.TUPLE:
        return 0
    candidates = set(range(len(shape.tuple_shapes))) - outside - in_cond
    dead = sorted(i for i in candidates if _only_feeds_itself(body, i, effects))
    if not dead or len(dead) == len(shape.tuple_shapes):
        return 0
    sites = callers(module)
    if len(sites.get(cond, [])) != 1 or len(sites.get(body, [])) != 1:
        return 0
    keep = [i for i in range(len(shape.tuple_shapes)) if i not in dead]
    renumber = {old: new for new, old in enumerate(keep)}
    new_shape = Shape.tuple_of([shape.tuple_shapes[i] for i in keep])
    # The body: new root without the dead elements, then what computed them goes.
    old_root = body.root
    new_root = body.make_instruction(Opcode.TUPLE, [old_root.operands[i] for i in keep])
    body.add_instruction(new_root, root=True)
    body.remove_instructions([old_root, *_forward_cone(body, dead)])
    remove_unused(body, [old_root.operands[i] for i in dead])
    for sub in (body, cond):
        param = sub.parameter(0)
        param.shape = new_shape
        for user in sub.users(param):
            user.attrs = user.attrs.replace(index=renumber[user.attrs.index])
    # The caller: the loop takes the kept elements of its initial state.
    init = loop.operands[0]
    if init.opcode is Opcode.TUPLE:
        parts = [init.operands[i] for i in keep]
    else:
        parts = [
            comp.make_instruction(Opcode.GET_TUPLE_ELEMENT, [init], {"index": i}) for i in keep
        ]
    new_init = comp.make_instruction(Opcode.TUPLE, parts)
    new_loop = HloInstruction(Opcode.WHILE, new_shape, [new_init], loop.attrs, name=loop.name)
    new_loop.metadata = loop.metadata
    for part in [*parts, new_init, new_loop]:
        if part.parent is None:
            comp.add_instruction(part, before=loop)
    for user in comp.users(loop):
        user.operands = [new_loop]
        user.attrs = user.attrs.replace(index=renumber[user.attrs.index])
    comp.remove_instruction(loop)
    remove_unused(comp, [init])
    return len(dead)


def _element_reads(comp: HloComputation, value: HloInstruction) -> set[int] | None:
    """The tuple indices read from ``value`` in ``comp``; None if it is used whole."""
    if comp.root is value:
        return None
    indices = set()
    for user in comp.users(value):
        if user.opcode is not Opcode.GET_TUPLE_ELEMENT:
            return None
        indices.add(int(user.attrs.index))
    return indices


def _forward_cone(body: HloComputation, elements: list[int]) -> list[HloInstruction]:
    """The get-tuple-elements of ``elements`` of the body's parameter and everything that
    (transitively) uses them, except the root."""
    param = body.parameter(0)
    tainted: set[int] = set()
    cone = []
    for instr in body.instructions:
        reads = (
            instr.opcode is Opcode.GET_TUPLE_ELEMENT
            and instr.operands[0] is param
            and instr.attrs.index in elements
        )
        if instr is not body.root and (reads or any(id(o) in tainted for o in instr.operands)):
            tainted.add(id(instr))
            cone.append(instr)
    return cone


def _only_feeds_itself(body: HloComputation, element: int, effects: SideEffects) -> bool:
    """Element ``element`` of the body's state flows only into the same element of its
    result, through instructions without side effects or control edges."""
    if _element_reads(body, body.parameter(0)) is None:
        return False
    cone = _forward_cone(body, [element])
    ids = {id(i) for i in cone}
    controlled = {id(p) for i in body.instructions for p in i.control_predecessors}
    if any(effects.has_side_effect(i) or id(i) in controlled for i in cone):
        return False
    return all(
        id(operand) not in ids for j, operand in enumerate(body.root.operands) if j != element
    )
