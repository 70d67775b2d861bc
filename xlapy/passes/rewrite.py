"""Rewrites as data: a ``Rule`` is a pattern over one instruction plus a function returning
its replacement (or None); ``apply_rules`` is the one driver that applies a rule list until
nothing changes and records which rules fired.

Patterns read like the HLO they match (tinygrad's UPat, kept small)::

    Rule("fold_mul_one", Pat(Opcode.MULTIPLY, Pat.var("x"), Pat.splat(1)), lambda m: m["x"])

Operand patterns of a commutative binary op also match with the operands swapped. The
replacement is an existing instruction or a new one built with ``Match.make`` (its shape
comes from shape inference); the driver puts it in place of the matched instruction and
removes what became dead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.literal import Array
from xlapy.passes.analysis import SideEffects
from xlapy.passes.pass_manager import record
from xlapy.shape import Shape

Predicate = Callable[[HloInstruction], bool]


@dataclass(frozen=True, slots=True)
class Pat:
    """Matches an instruction: its opcode (one of ``opcodes``; any if empty), its operands
    (each against a pattern; any operands if None), ``where`` (a predicate), and binds it to
    ``name`` (a name bound twice must be the same instruction)."""

    opcodes: frozenset[Opcode] = frozenset()
    operands: tuple[Pat, ...] | None = None
    name: str | None = None
    where: Predicate | None = None

    def __init__(
        self,
        opcode: Opcode | Sequence[Opcode] | None = None,
        *operands: Pat,
        name: str | None = None,
        where: Predicate | None = None,
        any_operands: bool = False,
    ) -> None:
        """``Pat(Opcode.ADD, a, b)``: an add whose operands match ``a`` and ``b``; with no
        operand patterns, an instruction with no operands, unless ``any_operands``."""
        if opcode is None:
            opcodes: frozenset[Opcode] = frozenset()
        elif isinstance(opcode, Opcode):
            opcodes = frozenset({opcode})
        else:
            opcodes = frozenset(opcode)
        object.__setattr__(self, "opcodes", opcodes)
        object.__setattr__(self, "operands", None if any_operands else tuple(operands))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "where", where)

    @staticmethod
    def var(name: str, where: Predicate | None = None) -> Pat:
        """Any instruction, bound to ``name``."""
        return Pat(None, name=name, where=where, any_operands=True)

    @staticmethod
    def op(
        opcode: Opcode | Sequence[Opcode], name: str | None = None, where: Predicate | None = None
    ) -> Pat:
        """An instruction of ``opcode`` with any operands."""
        return Pat(opcode, name=name, where=where, any_operands=True)

    @staticmethod
    def splat(value: float, name: str | None = None, *, integer_only: bool = False) -> Pat:
        """A constant, or a broadcast of a scalar constant, whose every element equals
        ``value`` (see ``splat_value``); with ``integer_only``, of an integer or pred type."""

        def check(instr: HloInstruction) -> bool:
            if integer_only and not _is_integral(instr.shape):
                return False
            found = splat_value(instr)
            return found is not None and _equals(found, value)

        return Pat((Opcode.CONSTANT, Opcode.BROADCAST), name=name, where=check, any_operands=True)

    def match(self, instr: HloInstruction, bindings: dict[str, HloInstruction]) -> bool:
        """True if ``instr`` matches; fills ``bindings`` (undone on failure)."""
        if self.opcodes and instr.opcode not in self.opcodes:
            return False
        if self.where is not None and not self.where(instr):
            return False
        if self.name is not None:
            bound = bindings.get(self.name)
            if bound is not None:
                return bound is instr and self._match_operands(instr, bindings)
        saved = dict(bindings)
        if self.name is not None:
            bindings[self.name] = instr
        if self._match_operands(instr, bindings):
            return True
        bindings.clear()
        bindings.update(saved)
        return False

    def _match_operands(self, instr: HloInstruction, bindings: dict[str, HloInstruction]) -> bool:
        pats = self.operands
        if pats is None:
            return True
        if len(pats) != len(instr.operands):
            return False
        saved = dict(bindings)
        if all(p.match(o, bindings) for p, o in zip(pats, instr.operands, strict=True)):
            return True
        bindings.clear()
        bindings.update(saved)
        if len(pats) == 2 and Trait.COMMUTATIVE in instr.opdef.traits:
            swapped = (instr.operands[1], instr.operands[0])
            if all(p.match(o, bindings) for p, o in zip(pats, swapped, strict=True)):
                return True
            bindings.clear()
            bindings.update(saved)
        return False


@dataclass
class Match:
    """What a rule's function receives: the matched instruction, the bound instructions
    (``m["x"]``) and ``make`` to build replacements."""

    comp: HloComputation
    instr: HloInstruction
    bindings: dict[str, HloInstruction] = field(default_factory=dict)

    def __getitem__(self, name: str) -> HloInstruction:
        return self.bindings[name]

    def make(
        self,
        opcode: Opcode,
        operands: Sequence[HloInstruction],
        attrs: Mapping[str, Any] | None = None,
        *,
        shape: Shape | None = None,
    ) -> HloInstruction:
        """A new instruction (shape inferred; ``shape`` where the op needs its result)."""
        return self.comp.make_instruction(opcode, operands, attrs, shape=shape)


RewriteFn = Callable[[Match], HloInstruction | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rewrite: instructions matching ``pattern`` are replaced by what ``rewrite``
    returns (None: leave the instruction alone)."""

    name: str
    pattern: Pat
    rewrite: RewriteFn


def apply_rules(
    module: HloModule, rules: Sequence[Rule], *, prefix: str, max_sweeps: int = 20
) -> bool:
    """Applies ``rules`` to every instruction of every computation until none fires (each
    sweep visits operands before users, so a chain collapses in one sweep); returns True if
    anything changed. Each firing is recorded as ``<prefix>/<rule name>``; instructions left
    without users by a rewrite are removed unless they have side effects."""
    by_opcode: dict[Opcode, list[Rule]] = {}
    anywhere: list[Rule] = []
    for rule in rules:
        if not rule.pattern.opcodes:
            anywhere.append(rule)
        for opcode in rule.pattern.opcodes:
            by_opcode.setdefault(opcode, []).append(rule)
    changed = False
    for comp in list(module.computations):
        orphans: list[HloInstruction] = []
        for _ in range(max_sweeps):
            fired = False
            for instr in list(comp.instructions):
                if instr.parent is not comp:
                    continue
                for rule in (*by_opcode.get(instr.opcode, ()), *anywhere):
                    bindings: dict[str, HloInstruction] = {}
                    if not rule.pattern.match(instr, bindings):
                        continue
                    new = rule.rewrite(Match(comp, instr, bindings))
                    if new is None or new is instr or not _fits(new, instr):
                        continue
                    orphans.extend(instr.operands)
                    comp.replace_instruction(instr, new)
                    record(f"{prefix}/{rule.name}")
                    fired = True
                    break
            if not fired:
                break
            changed = True
        if orphans:
            remove_unused(comp, orphans)
    return changed


def _fits(new: HloInstruction, old: HloInstruction) -> bool:
    """A new instruction must have ``old``'s shape ignoring layout (it takes the layout); an
    existing one must have exactly ``old``'s shape, layout included (bitcast reads layouts)."""
    if new.parent is None:
        return new.shape.compatible(old.shape)
    return new.shape == old.shape


def remove_unused(comp: HloComputation, candidates: Sequence[HloInstruction]) -> int:
    """Removes the ``candidates`` that have no users (and then their operands that are left
    without users), keeping the root, parameters, control predecessors and instructions with
    side effects; returns how many were removed."""
    effects = SideEffects()
    uses: dict[int, int] = {}
    for instr in comp.instructions:
        for o in (*instr.operands, *instr.control_predecessors):
            uses[id(o)] = uses.get(id(o), 0) + 1
    root = comp.root
    dead: dict[int, HloInstruction] = {}
    stack = [c for c in candidates if c.parent is comp]
    while stack:
        instr = stack.pop()
        if (
            id(instr) in dead
            or uses.get(id(instr), 0)
            or instr is root
            or instr.opcode is Opcode.PARAMETER
            or effects.has_side_effect(instr)
        ):
            continue
        dead[id(instr)] = instr
        for o in instr.operands:
            uses[id(o)] -= 1
            stack.append(o)
    if dead:
        comp.remove_instructions(list(dead.values()))
    return len(dead)


# ---- constants -----------------------------------------------------------------------------


def constant_array(instr: HloInstruction) -> Array | None:
    """The value of a constant array instruction (None for other instructions, tuples and
    constants whose text was elided)."""
    if instr.opcode is not Opcode.CONSTANT or not instr.shape.is_array:
        return None
    literal = instr.attrs.literal
    if literal.elided or not isinstance(literal.value, np.ndarray):
        return None
    return literal.value


def splat_value(instr: HloInstruction) -> Array | None:
    """The one element (a rank-0 array) of a constant whose elements all have the same bits,
    or of a broadcast of such a constant; None otherwise (and for empty constants)."""
    if instr.opcode is Opcode.BROADCAST:
        return splat_value(instr.operands[0])
    value = constant_array(instr)
    if value is None or value.size == 0:
        return None
    flat = np.ascontiguousarray(value).reshape(-1)
    rows = flat.view(np.uint8).reshape(flat.size, -1)
    if not np.all(rows == rows[0]):
        return None
    return flat[:1].reshape(())


def _equals(found: Array, value: float) -> bool:
    """``found`` (a rank-0 array) equals ``value``; a zero ``value`` matches +0 only."""
    if found.dtype == np.bool_:
        return value in (0, 1) and bool(found) == bool(value)
    if np.iscomplexobj(found):
        return False
    if dtypes.from_numpy(found.dtype).is_integer:
        return int(found) == value
    as_float = float(found.astype(np.float64))
    return as_float == value and not (value == 0 and bool(np.signbit(as_float)))


def _is_integral(shape: Shape) -> bool:
    return shape.is_array and (shape.element_type.is_integer or shape.element_type.is_pred)
