"""``dce``: dead-code elimination (XLA's HloDCE): instructions nothing uses and computations
nothing calls are removed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xlapy.ir.computation import HloComputation
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.passes.analysis import SideEffects, reachable_computations
from xlapy.passes.pass_manager import Pass, record, register_pass


@register_pass
@dataclass(frozen=True)
class DeadCodeElimination(Pass):
    """Removes instructions nothing uses and computations nothing calls.

    An instruction goes when its value is never used: not the root, no users, not a
    control predecessor, not a parameter, and without side effects (rng, infeed/outfeed,
    send/recv, collectives, async ops, custom-calls with side effects, and instructions whose
    called computations have any of these). Then removes the computations that the entry no
    longer reaches.

    Attributes:
        remove_computations: also remove unreachable computations (XLA's
            ``remove_cross_partition_collective_ops`` aside, HloDCE does this too).
    """

    name: ClassVar[str] = "dce"
    remove_computations: bool = True

    def run(self, module: HloModule) -> bool:
        effects = SideEffects()
        changed = False
        for comp in module.computations:
            removed = remove_dead_instructions(comp, effects)
            if removed:
                record(f"{self.name}/dead_instruction", removed)
                changed = True
        if self.remove_computations:
            reachable = {id(c) for c in reachable_computations(module)}
            dead = [c for c in module.computations if id(c) not in reachable]
            if dead:
                module.computations = [c for c in module.computations if id(c) in reachable]
                for comp in dead:
                    comp.parent = None
                record(f"{self.name}/dead_computation", len(dead))
                changed = True
        return changed


def remove_dead_instructions(comp: HloComputation, effects: SideEffects) -> int:
    """Removes every dead instruction of ``comp`` in one backward sweep; returns how many."""
    live: set[int] = {id(comp.root)}
    for instr in comp.instructions:
        for pred in instr.control_predecessors:
            live.add(id(pred))
    dead = []
    for instr in reversed(comp.instructions):
        if (
            id(instr) in live
            or instr.opcode is Opcode.PARAMETER
            or instr.control_predecessors
            or effects.has_side_effect(instr)
        ):
            live.add(id(instr))
            live.update(id(o) for o in instr.operands)
            continue
        dead.append(instr)
    if dead:
        comp.remove_instructions(dead)
    return len(dead)
