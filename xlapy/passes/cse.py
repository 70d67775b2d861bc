"""``cse``: common-subexpression elimination (XLA's HloCSE): of two structurally equal
instructions in a computation, the later one is replaced by the earlier."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.passes.analysis import RANDOM_OPS, SideEffects
from xlapy.passes.pass_manager import Pass, record, register_pass
from xlapy.passes.rewrite import constant_array, remove_unused

_NEVER = RANDOM_OPS | {Opcode.PARAMETER}


@register_pass
@dataclass(frozen=True)
class CommonSubexpressionElimination(Pass):
    """Merges structurally equal instructions of a computation into the first one.

    Equal means: the same opcode, operands (the same instructions, in order), attributes (called computations by identity), result shape including layout,
    backend config, frontend attributes and sharding; metadata is ignored. Constants compare
    by their bits (-0.0 and 0.0 differ, NaNs with the same payload are equal).

    Never merged: parameters, random ops, instructions with side effects (also through
    called computations) and instructions with control edges.
    """

    name: ClassVar[str] = "cse"

    def run(self, module: HloModule) -> bool:
        effects = SideEffects()
        changed = False
        for comp in module.computations:
            merged = _cse_computation(comp, effects)
            if merged:
                record(f"{self.name}/merged", merged)
                changed = True
        return changed


def _cse_computation(comp: HloComputation, effects: SideEffects) -> int:
    controlled = {id(p) for i in comp.instructions for p in i.control_predecessors}
    users = comp.user_map()
    seen: dict[tuple[object, ...], HloInstruction] = {}
    merged = []
    for instr in list(comp.instructions):
        if (
            instr.opcode in _NEVER
            or instr.control_predecessors
            or id(instr) in controlled
            or effects.has_side_effect(instr)
        ):
            continue
        key = _key(instr)
        first = seen.get(key)
        if first is None:
            seen[key] = instr
            continue
        # Later users' keys see ``first``: instructions are visited operands first.
        comp.replace_all_uses(instr, first, users[instr])
        merged.append(instr)
    if merged:
        remove_unused(comp, merged)
    return len(merged)


def _key(instr: HloInstruction) -> tuple[object, ...]:
    """Equal keys <=> instructions that compute the same value. Attrs compare by value
    (literals bitwise, computations by identity); constants also hash their bits."""
    value = constant_array(instr)
    bits = b"" if value is None else np.ascontiguousarray(value).tobytes()
    return (
        instr.opcode,
        instr.shape,
        tuple(id(o) for o in instr.operands),
        instr.attrs,
        bits,
        instr.backend_config,
        tuple(sorted(instr.frontend_attributes.items())),
        instr.sharding,
        tuple(instr.unknown_attributes),
    )
