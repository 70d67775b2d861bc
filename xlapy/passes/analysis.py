"""Facts the passes share: which instructions have side effects, and the call graph (who calls
which computation, in which context). Pure queries: nothing here changes the IR."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import AttrKind, Trait

_EFFECT_TRAITS = Trait.SIDE_EFFECTING | Trait.COLLECTIVE | Trait.ASYNC

RANDOM_OPS = frozenset({Opcode.RNG, Opcode.RNG_BIT_GENERATOR, Opcode.RNG_GET_AND_UPDATE_STATE})
"""Ops that produce random bits. ``rng`` draws from the device state (a side effect);
``rng-bit-generator`` is a pure function of its state operand, but no pass folds or merges
it either."""

SEQUENTIAL_CALLERS = frozenset({Opcode.CALL, Opcode.WHILE, Opcode.CONDITIONAL})
"""Ops that run their called computations as control flow (XLA's sequential calling
context); reduce, sort, map, fusion, ... apply theirs as element functions (embedded)."""


def has_side_effect_no_recurse(instr: HloInstruction) -> bool:
    """True for an instruction whose own execution has an effect besides its result: the
    SIDE_EFFECTING ops (rng, infeed, outfeed, send, recv, ...), collectives and async ops
    (they meet other devices), and custom-calls marked ``custom_call_has_side_effect``."""
    if instr.opdef.traits & _EFFECT_TRAITS:
        return True
    return instr.opcode is Opcode.CUSTOM_CALL and bool(instr.attrs.custom_call_has_side_effect)


class SideEffects:
    """Answers ``has_side_effect(instr)``, looking through called computations (a while
    whose body has an outfeed has a side effect); results per computation are cached, so
    build a new one after changing the module."""

    def __init__(self) -> None:
        self._computations: dict[int, bool] = {}

    def has_side_effect(self, instr: HloInstruction) -> bool:
        if has_side_effect_no_recurse(instr):
            return True
        return any(self.computation_has_side_effect(c) for c in instr.called_computations())

    def computation_has_side_effect(self, comp: HloComputation) -> bool:
        cached = self._computations.get(id(comp))
        if cached is None:
            self._computations[id(comp)] = False  # cycles are invalid; never loop forever
            cached = any(self.has_side_effect(i) for i in comp.instructions)
            self._computations[id(comp)] = cached
        return cached


def contains_opcode(comp: HloComputation, opcodes: frozenset[Opcode]) -> bool:
    """True if ``comp`` or a computation it calls (recursively) has one of ``opcodes``."""
    seen: set[int] = set()
    stack = [comp]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for instr in current.instructions:
            if instr.opcode in opcodes:
                return True
            stack.extend(instr.called_computations())
    return False


@dataclass(frozen=True, slots=True)
class CallSite:
    """One reference from an instruction to a computation: attribute ``attr`` (and position
    ``index`` in a list attribute such as ``branch_computations``, else -1)."""

    instr: HloInstruction
    attr: str
    index: int

    @property
    def sequential(self) -> bool:
        return self.instr.opcode in SEQUENTIAL_CALLERS


def call_sites(instr: HloInstruction) -> Iterator[tuple[CallSite, HloComputation]]:
    """Every computation ``instr`` references, with where it does."""
    for spec in instr.opdef.attrs:
        value = instr.attrs[spec.name]
        if value is None:
            continue
        if spec.kind is AttrKind.COMPUTATION:
            yield CallSite(instr, spec.name, -1), value
        elif spec.kind is AttrKind.COMPUTATIONS:
            for i, comp in enumerate(value):
                yield CallSite(instr, spec.name, i), comp


def callers(module: HloModule) -> dict[HloComputation, list[CallSite]]:
    """Every computation of ``module`` -> the call sites that reference it (in module order)."""
    result: dict[HloComputation, list[CallSite]] = {c: [] for c in module.computations}
    for comp in module.computations:
        for instr in comp.instructions:
            for site, callee in call_sites(instr):
                result.setdefault(callee, []).append(site)
    return result


def reachable_computations(module: HloModule) -> list[HloComputation]:
    """The computations reachable from the entry through called computations, in module
    order."""
    seen: set[int] = set()
    stack = [module.entry]
    while stack:
        comp = stack.pop()
        if id(comp) in seen:
            continue
        seen.add(id(comp))
        for instr in comp.instructions:
            stack.extend(instr.called_computations())
    return [c for c in module.computations if id(c) in seen]
