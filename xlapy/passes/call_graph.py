"""Call-graph passes: ``flatten-call-graph`` (XLA's FlattenCallGraph: every control-flow call
site gets its own computation) and ``inline`` (XLA's CallInliner: ``call`` instructions
replaced by the body they call). ``inline_computation`` is shared with the while-loop
simplifier."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xlapy.ir.clone import clone_computation
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.passes.analysis import CallSite, call_sites, callers
from xlapy.passes.pass_manager import Pass, record, register_pass


def inline_computation(
    caller: HloComputation,
    before: HloInstruction,
    callee: HloComputation,
    operands: Sequence[HloInstruction],
) -> HloInstruction:
    """Copies every instruction of ``callee`` into ``caller`` just before ``before``, with
    parameter i replaced by ``operands[i]``; returns the instruction that stands for the
    callee's root (an operand when the root is a parameter). Called computations are shared,
    not copied."""
    mapping: dict[int, HloInstruction] = {
        id(p): operands[p.parameter_number] for p in callee.parameters
    }
    for instr in callee.instructions:
        if instr.opcode is Opcode.PARAMETER:
            continue
        copy = HloInstruction(
            instr.opcode,
            instr.shape,
            [mapping[id(o)] for o in instr.operands],
            instr.attrs,
            name=instr.name,
            metadata=instr.metadata,
            sharding=instr.sharding,
            frontend_attributes=instr.frontend_attributes,
            backend_config=instr.backend_config,
            control_predecessors=[mapping[id(p)] for p in instr.control_predecessors],
            statistics=instr.statistics,
            origin=instr.origin,
            unknown_attributes=instr.unknown_attributes,
        )
        caller.add_instruction(copy, before=before)
        mapping[id(instr)] = copy
    return mapping[id(callee.root)]


def _has_control_edges(instr: HloInstruction) -> bool:
    comp = instr.parent
    assert comp is not None
    return bool(instr.control_predecessors) or any(
        instr in other.control_predecessors for other in comp.instructions
    )


@register_pass
@dataclass(frozen=True)
class Inline(Pass):
    """Replaces every ``call`` by a copy of the computation it calls (nested calls too).

    Kept: calls with control edges, calls into another execution thread, and composite
    calls (``is_composite=true``) when ``inline_composites`` is False; a backend that
    matches composites by name would keep them. The interpreter and our cpu platform run a
    composite as its decomposition, so by default they are inlined too. Computations left
    uncalled are removed by ``dce``.
    """

    name: ClassVar[str] = "inline"
    inline_composites: bool = True

    def run(self, module: HloModule) -> bool:
        changed = False
        progress = True
        while progress:
            progress = False
            for comp in list(module.computations):
                for instr in list(comp.instructions):
                    if instr.parent is comp and self._inlinable(instr):
                        callee = instr.attrs.to_apply
                        root = inline_computation(comp, instr, callee, instr.operands)
                        comp.replace_instruction(instr, root)
                        record(f"{self.name}/inlined_call")
                        progress = changed = True
        return changed

    def _inlinable(self, instr: HloInstruction) -> bool:
        if instr.opcode is not Opcode.CALL:
            return False
        if instr.attrs.is_composite and not self.inline_composites:
            return False
        comp = instr.parent
        assert comp is not None
        callee = instr.attrs.to_apply
        return callee.execution_thread == comp.execution_thread and not _has_control_edges(instr)


@register_pass
@dataclass(frozen=True)
class FlattenCallGraph(Pass):
    """Gives every control-flow call site (call, while, conditional) its own computation.

    A computation that such sites (a call, a while condition or body, a conditional branch)
    reference more than once, or that is also applied as an element function (a reducer, a
    comparator), is cloned for each extra site.
    Clones are placed just before the original, so callees stay before callers."""

    name: ClassVar[str] = "flatten-call-graph"

    def run(self, module: HloModule) -> bool:
        graph = callers(module)
        changed = False
        # Callers first: the clones' own callees come earlier in the list, so they are
        # visited after the clones have added their call sites to ``graph``.
        for comp in reversed(list(module.computations)):
            sites = graph.get(comp, [])
            sequential = [s for s in sites if s.sequential]
            embedded = len(sites) - len(sequential)
            for site in sequential if embedded else sequential[1:]:
                clone = _clone_before(module, comp)
                _retarget(site, clone)
                for instr in clone.instructions:
                    for new_site, callee in call_sites(instr):
                        graph.setdefault(callee, []).append(new_site)
                record(f"{self.name}/cloned_computation")
                changed = True
        return changed


def _clone_before(module: HloModule, comp: HloComputation) -> HloComputation:
    """A copy of ``comp`` (calling the same computations) placed just before it."""
    shared = {id(c): c for c in module.computations if c is not comp}
    clone = clone_computation(comp, module, shared)
    module.computations.remove(clone)
    module.computations.insert(module.computations.index(comp), clone)
    return clone


def _retarget(site: CallSite, clone: HloComputation) -> None:
    instr = site.instr
    if site.index < 0:
        instr.attrs = instr.attrs.replace(**{site.attr: clone})
        return
    values = list(instr.attrs[site.attr])
    values[site.index] = clone
    instr.attrs = instr.attrs.replace(**{site.attr: tuple(values)})
