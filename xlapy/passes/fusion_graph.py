"""Graph editing for the fusion pass (``fusion.py``): one computation's users and
reachability, and the four edits fusion makes (wrap an op in a fusion, fuse a producer
into a fusion, merge a producer or a sibling in as another output). Fused computations
always keep their parameters numbered in operand order and operands before users.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Sequence

from xlapy.errors import VerificationError
from xlapy.ir.attrs import FusionKind
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape

FUSION_NAME = "fusion"
COMPUTATION_NAME = "fused_computation"
_TEMPORARY_PARAMETER = "fusion_parameter"


def distinct(instrs: Sequence[HloInstruction]) -> list[HloInstruction]:
    """The instructions in order, each once (instructions hash by identity)."""
    return list(dict.fromkeys(instrs))


def stable_topological_order(instrs: Sequence[HloInstruction]) -> list[HloInstruction]:
    """``instrs`` reordered so that operands and control predecessors come first, keeping
    the given order wherever it is already valid."""
    position = {id(i): k for k, i in enumerate(instrs)}
    waiting = {id(i): 0 for i in instrs}
    dependents: dict[int, list[HloInstruction]] = {id(i): [] for i in instrs}
    for instr in instrs:
        for dep in distinct([*instr.operands, *instr.control_predecessors]):
            if id(dep) in position:
                waiting[id(instr)] += 1
                dependents[id(dep)].append(instr)
    ready = [(position[id(i)], i) for i in instrs if waiting[id(i)] == 0]
    heapq.heapify(ready)
    order: list[HloInstruction] = []
    while ready:
        _, instr = heapq.heappop(ready)
        order.append(instr)
        for user in dependents[id(instr)]:
            waiting[id(user)] -= 1
            if waiting[id(user)] == 0:
                heapq.heappush(ready, (position[id(user)], user))
    if len(order) != len(instrs):
        raise VerificationError("fusion: the edited computation has a cycle")
    return order


def clone(instr: HloInstruction, operands: Sequence[HloInstruction]) -> HloInstruction:
    """A copy of ``instr`` (same attributes and metadata) reading ``operands``."""
    return HloInstruction(
        instr.opcode,
        instr.shape,
        operands,
        instr.attrs,
        name=instr.name,
        metadata=instr.metadata,
        sharding=instr.sharding,
        frontend_attributes=instr.frontend_attributes,
        backend_config=instr.backend_config,
        statistics=instr.statistics,
        origin=instr.origin,
        unknown_attributes=instr.unknown_attributes,
    )


def outputs(comp: HloComputation) -> list[HloInstruction]:
    """The outputs of a fused computation: the operands of a tuple root, else the root."""
    root = comp.root
    return list(root.operands) if root.opcode is Opcode.TUPLE else [root]


class FusionEditor:
    """Edits one computation of ``module``; ``touched`` lists the fusions it made or
    changed, which ``finish`` tidies (unused parameters dropped, ``param_N`` names)."""

    def __init__(self, module: HloModule, comp: HloComputation) -> None:
        self.module = module
        self.comp = comp
        comp.root = comp.root  # explicit: reordering must not change which one it is
        self.touched: list[HloInstruction] = []
        self.redirects: list[tuple[HloInstruction, HloInstruction]] = []
        """(old, new): every use of old now reads new (a get-tuple-element); for caches."""
        self._users: dict[int, dict[int, HloInstruction]] | None = None
        self._control: dict[int, list[HloInstruction]] = {}
        for instr in comp.instructions:
            for p in instr.control_predecessors:
                self._control.setdefault(id(p), []).append(instr)
        self._counters: dict[tuple[str, bool], int] = {}
        self._positions: dict[int, int] | None = None

    # ---- queries ----------------------------------------------------------------------
    def _index(self) -> dict[int, dict[int, HloInstruction]]:
        """Users by instruction; kept up to date by ``_link``/``_unlink`` for local edits,
        rebuilt after edits that redirect many uses."""
        if self._users is None:
            self._users = {id(i): {} for i in self.comp.instructions}
            for instr in self.comp.instructions:
                for o in instr.operands:
                    self._users[id(o)][id(instr)] = instr
        return self._users

    def _link(self, instr: HloInstruction) -> None:
        if self._users is not None:
            self._users.setdefault(id(instr), {})
            for o in instr.operands:
                self._users[id(o)][id(instr)] = instr

    def _unlink(self, instr: HloInstruction) -> None:
        if self._users is not None:
            for o in instr.operands:
                self._users.get(id(o), {}).pop(id(instr), None)

    def users(self, instr: HloInstruction) -> list[HloInstruction]:
        """Instructions reading ``instr``, each once, in definition order."""
        users = self._index()[id(instr)]
        if len(users) < 2:
            return list(users.values())
        positions = self._positions
        if positions is None:
            positions = {id(i): k for k, i in enumerate(self.comp.instructions)}
            self._positions = positions
        return sorted(users.values(), key=lambda u: positions[id(u)])

    def has_other_uses(self, instr: HloInstruction, user: HloInstruction) -> bool:
        """True when something besides ``user`` reads ``instr`` (the root counts)."""
        users = self._index()[id(instr)]
        return instr is self.comp.root or any(u is not user for u in users.values())

    def is_used(self, instr: HloInstruction) -> bool:
        return instr is self.comp.root or bool(self._index()[id(instr)])

    def alive(self, instr: HloInstruction) -> bool:
        return instr.parent is self.comp

    def has_control_edges(self, instr: HloInstruction) -> bool:
        return bool(instr.control_predecessors) or id(instr) in self._control

    def reaches(self, sources: Sequence[HloInstruction], target: HloInstruction) -> bool:
        """True when ``target`` depends on one of ``sources`` (or is one of them)."""
        stack = list(sources)
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if node is target:
                return True
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(self._index().get(id(node), {}).values())
            stack.extend(self._control.get(id(node), ()))
        return False

    def fresh_name(self, base: str, owner: object, *, computation: bool = False) -> str:
        """A name free in the module for ``owner``: ``base`` or ``base.N``, N counted up
        here so that the module's search for a free suffix rarely runs."""
        key = (base, computation)
        count = self._counters.get(key, 0)
        candidate = base if count == 0 else f"{base}.{count}"
        name = self.module.unique_name(candidate, owner, computation=computation)
        suffix = re.fullmatch(rf"{re.escape(base)}\.(\d+)", name)
        self._counters[key] = (int(suffix.group(1)) if suffix else 0) + 1
        return name

    def _named(self, instr: HloInstruction, base: str) -> HloInstruction:
        instr.name = self.fresh_name(re.sub(r"\.\d+$", "", base), instr)
        return instr

    # ---- edits ------------------------------------------------------------------------
    def wrap(self, instr: HloInstruction, kind: FusionKind) -> HloInstruction:
        """Replaces ``instr`` by a fusion whose computation is ``instr`` on parameters."""
        operands = distinct(instr.operands)
        comp_f = HloComputation(COMPUTATION_NAME, self.comp.execution_thread)
        comp_f.name = self.fresh_name(COMPUTATION_NAME, comp_f, computation=True)
        params = [self._parameter(k, o.shape) for k, o in enumerate(operands)]
        for p in params:
            comp_f.add_instruction(p)
        position = next(k for k, i in enumerate(self.comp.instructions) if i is instr)
        self._unlink(instr)
        instr.operands = [params[_find(operands, o)] for o in instr.operands]
        comp_f.add_instruction(instr, root=True)
        self.module.add_computation(comp_f)
        self.module.computations.remove(comp_f)
        self.module.computations.insert(self.module.computations.index(self.comp), comp_f)
        fusion = HloInstruction(
            Opcode.FUSION,
            instr.shape,
            operands,
            {"kind": kind, "calls": comp_f},
            name=FUSION_NAME,
            metadata=instr.metadata,
            sharding=instr.sharding,
        )
        fusion.parent = self.comp
        self._named(fusion, FUSION_NAME)
        self.comp.instructions[position] = fusion
        self.comp.replace_all_uses(instr, fusion)
        if self._users is not None:
            self._users[id(fusion)] = self._users.pop(id(instr), {})
        self._link(fusion)
        self._changed(fusion)
        return fusion

    def fuse_producer(self, fusion: HloInstruction, producer: HloInstruction) -> None:
        """Puts ``producer`` inside ``fusion`` in place of the operands it feeds: moved when
        ``fusion`` is its only user, else a copy (the producer stays for its other users)."""
        move = not self.has_other_uses(producer, fusion)
        self._unlink(fusion)
        if move:
            self._unlink(producer)
        self._inline(fusion, producer, move=move)
        self._link(fusion)
        if move:
            self._remove(producer)
        self._changed(fusion)

    def merge_output(self, fusion: HloInstruction, producer: HloInstruction) -> None:
        """Moves ``producer`` inside ``fusion`` and makes it one more output of it (a tuple
        root); the producer's other users read it with get-tuple-element."""
        value = self._inline(fusion, producer, move=True)
        self._remove(producer)
        (index,) = self._append_outputs(fusion, [value])
        _deduplicate(fusion.attrs.calls)
        self._redirect(producer, self._get_tuple_element(fusion, index))
        self._changed(fusion, reorder=True)

    def merge_sibling(self, fusion: HloInstruction, other: HloInstruction) -> None:
        """Moves the body of fusion ``other`` into ``fusion`` (shared operands become shared
        parameters); its outputs become more outputs of ``fusion``."""
        comp_f, comp_o = fusion.attrs.calls, other.attrs.calls
        comp_f.root = comp_f.root  # explicit: instructions are appended below
        parameter_for = self._parameter_finder(fusion, _parameters(comp_f), ())
        mapping = {
            id(p): parameter_for(other.operands[p.parameter_number]) for p in comp_o.parameters
        }
        old_outputs = outputs(comp_o)
        for instr in _fused_order(comp_o):
            if instr.opcode is Opcode.PARAMETER or (
                instr is comp_o.root and instr.opcode is Opcode.TUPLE
            ):
                continue
            instr.operands = [mapping[id(o)] for o in instr.operands]
            comp_f.add_instruction(instr)
            mapping[id(instr)] = instr
        indices = self._append_outputs(fusion, [mapping[id(o)] for o in old_outputs])
        _deduplicate(comp_f)
        self.module.computations.remove(comp_o)
        self._remove(other)
        if other.shape.is_tuple:
            for gte in [u for u in self.comp.instructions if other in u.operands]:
                gte.operands = [fusion]
                gte.attrs = gte.attrs.replace(index=indices[gte.attrs.index])
        else:
            self._redirect(other, self._get_tuple_element(fusion, indices[0]))
        self._changed(fusion, reorder=True)

    def set_kind(self, fusion: HloInstruction, kind: FusionKind) -> None:
        if fusion.attrs.kind is not kind:
            fusion.attrs = fusion.attrs.replace(kind=kind)

    def finish(self) -> None:
        """Tidies every touched fusion and restores definition order in the computation."""
        for fusion in distinct(self.touched):
            if self.alive(fusion):
                self._tidy(fusion)
        self.comp.instructions = stable_topological_order(self.comp.instructions)

    # ---- helpers ----------------------------------------------------------------------
    def _changed(self, fusion: HloInstruction, *, reorder: bool = False) -> None:
        """Records an edit of ``fusion`` (fused computations are put in order by ``_tidy``);
        ``reorder`` after a merge: many uses moved, and some users may precede it."""
        self.touched.append(fusion)
        self._positions = None
        if reorder:
            self._users = None
            self.comp.instructions = stable_topological_order(self.comp.instructions)

    def _parameter(self, number: int, shape: Shape) -> HloInstruction:
        param = HloInstruction(Opcode.PARAMETER, shape, (), {"parameter_number": number})
        return self._named(param, _TEMPORARY_PARAMETER)  # ``param_N`` once numbered (_tidy)

    def _parameter_finder(
        self, fusion: HloInstruction, params: dict[int, HloInstruction], skip: Sequence[int]
    ) -> Callable[[HloInstruction], HloInstruction]:
        """A function giving the parameter of ``fusion`` that reads an operand (ignoring
        positions ``skip``), adding a last operand and parameter (to ``params``, the
        parameters by number) when there is none."""
        comp_f = fusion.attrs.calls
        found: dict[int, HloInstruction] = {}
        for k, existing in enumerate(fusion.operands):
            if k not in skip:
                found.setdefault(id(existing), params[k])

        def parameter_for(operand: HloInstruction) -> HloInstruction:
            param = found.get(id(operand))
            if param is None:
                param = self._parameter(len(fusion.operands), operand.shape)
                comp_f.add_instruction(param)
                params[len(fusion.operands)] = param
                fusion.operands.append(operand)
                found[id(operand)] = param
            return param

        return parameter_for

    def _inline(
        self, fusion: HloInstruction, producer: HloInstruction, *, move: bool
    ) -> HloInstruction:
        """Copies (or moves) ``producer``'s computation into ``fusion`` in place of the
        parameters reading it; returns the instruction standing for its value there."""
        comp_f = fusion.attrs.calls
        comp_f.root = comp_f.root  # explicit: instructions are appended below
        positions = [k for k, o in enumerate(fusion.operands) if o is producer]
        params = _parameters(comp_f)
        parameter_for = self._parameter_finder(fusion, params, positions)
        replaced = [params[k] for k in positions]
        if producer.opcode is Opcode.FUSION:
            inner = producer.attrs.calls
            mapping = {
                id(p): parameter_for(producer.operands[p.parameter_number])
                for p in inner.parameters
            }
            for instr in _fused_order(inner):
                if instr.opcode is Opcode.PARAMETER:
                    continue
                operands = [mapping[id(o)] for o in instr.operands]
                new = instr if move else self._named(clone(instr, operands), instr.name)
                new.operands = operands
                comp_f.add_instruction(new)
                mapping[id(instr)] = new
            value = mapping[id(inner.root)]
            if move:
                self.module.computations.remove(inner)
        else:
            operands = [parameter_for(o) for o in producer.operands]
            value = producer if move else self._named(clone(producer, operands), producer.name)
            value.operands = operands
            comp_f.add_instruction(value)
        for param in replaced:
            comp_f.replace_all_uses(param, value)
            comp_f.instructions.remove(param)
        # The last operands fill the holes (``_tidy`` puts the operands in order at the end).
        operands = fusion.operands
        for hole in sorted(positions, reverse=True):
            last = len(operands) - 1
            if hole != last:
                operands[hole] = operands[last]
                params[hole] = params[last]
                _renumber(params[hole], hole)
            operands.pop()
            del params[last]
        return value

    def _append_outputs(
        self, fusion: HloInstruction, values: Sequence[HloInstruction]
    ) -> list[int]:
        """Adds ``values`` as outputs of ``fusion`` (after the existing ones); a single-
        output fusion gets a tuple root and its users read element 0. Returns the indices."""
        comp_f = fusion.attrs.calls
        root = comp_f.root
        single = root.opcode is not Opcode.TUPLE
        if single:
            root = self._named(
                HloInstruction(Opcode.TUPLE, Shape.tuple_of([root.shape]), [root]), "tuple"
            )
            comp_f.add_instruction(root, root=True)
        first = len(root.operands)
        root.operands.extend(values)
        root.shape = Shape.tuple_of([o.shape for o in root.operands])
        fusion.shape = root.shape
        if single:
            self._redirect(fusion, self._get_tuple_element(fusion, 0))
        return list(range(first, first + len(values)))

    def _get_tuple_element(self, fusion: HloInstruction, index: int) -> HloInstruction:
        gte = HloInstruction(
            Opcode.GET_TUPLE_ELEMENT,
            fusion.shape.tuple_shapes[index],
            [fusion],
            {"index": index},
        )
        self.comp.add_instruction(self._named(gte, "get-tuple-element"))
        return gte

    def _redirect(self, old: HloInstruction, new: HloInstruction) -> None:
        """Every use of ``old`` in the computation (the root included) reads ``new``."""
        for instr in self.comp.instructions:
            if instr is not new:
                instr.operands = [new if o is old else o for o in instr.operands]
        if self.comp.root is old:
            self.comp.root = new
        self._users = None
        self.redirects.append((old, new))

    def _remove(self, instr: HloInstruction) -> None:
        """Drops ``instr`` from the computation (its uses are gone or redirected next)."""
        self.comp.instructions = [i for i in self.comp.instructions if i is not instr]
        if instr.parent is self.comp:
            instr.parent = None
        if self._users is not None:
            self._users.pop(id(instr), None)

    def _tidy(self, fusion: HloInstruction) -> None:
        """Orders the fused computation as the root reaches it (operands first, left to
        right; parameters first, numbered in that order), drops what the root does not
        reach (parameters included), names parameter N ``param_N``."""
        comp_f = fusion.attrs.calls
        order = _operands_first(comp_f.root)
        params = [i for i in order if i.opcode is Opcode.PARAMETER]
        fusion.operands = [fusion.operands[p.parameter_number] for p in params]
        for number, param in enumerate(params):
            _renumber(param, number)
            if not re.fullmatch(rf"param_{number}(\.\d+)?", param.name):
                self._named(param, f"param_{number}")
        comp_f.instructions = params + [i for i in order if i.opcode is not Opcode.PARAMETER]


def _deduplicate(comp: HloComputation) -> None:
    """Merges equal instructions of a fused computation (same op, shape, attributes and
    operands): merged fusions often hold copies of the same cheap producers."""
    seen: dict[tuple[object, ...], HloInstruction] = {}
    for instr in _fused_order(comp):
        if instr.opcode in (Opcode.PARAMETER, Opcode.TUPLE):
            continue
        if instr.opcode is Opcode.CONSTANT and instr.attrs.literal.elided:
            continue  # an elided constant's values are unknown
        key = (instr.opcode, instr.shape, tuple(id(o) for o in instr.operands), instr.attrs)
        kept = seen.setdefault(key, instr)
        if kept is not instr:
            comp.replace_all_uses(instr, kept)
            comp.instructions.remove(instr)


def _find(instrs: Sequence[HloInstruction], target: HloInstruction) -> int:
    return next(k for k, i in enumerate(instrs) if i is target)


def _parameters(comp: HloComputation) -> dict[int, HloInstruction]:
    return {i.parameter_number: i for i in comp.instructions if i.opcode is Opcode.PARAMETER}


def _renumber(param: HloInstruction, number: int) -> None:
    if param.parameter_number != number:
        param.attrs = param.attrs.replace(parameter_number=number)


def _fused_order(comp: HloComputation) -> list[HloInstruction]:
    """Parameters first, by number; then the other instructions in definition order."""
    params = sorted(
        (i for i in comp.instructions if i.opcode is Opcode.PARAMETER),
        key=lambda p: p.parameter_number,
    )
    rest = [i for i in comp.instructions if i.opcode is not Opcode.PARAMETER]
    return params + stable_topological_order(rest)


def _operands_first(root: HloInstruction) -> list[HloInstruction]:
    """What ``root`` depends on, each once, operands (left to right) before users."""
    order: list[HloInstruction] = []
    seen: set[int] = set()
    stack: list[tuple[HloInstruction, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((o, False) for o in reversed(node.operands) if id(o) not in seen)
    return order
