"""``tuple-simplifier`` (XLA's TupleSimplifier): tuples built only to be taken apart again
disappear."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.passes.pass_manager import Pass, register_pass
from xlapy.passes.rewrite import Match, Pat, Rule, apply_rules


def fold_gte_of_tuple(m: Match) -> HloInstruction:
    """get-tuple-element(tuple(a0, ..., an), i) -> ai."""
    return m["tuple"].operands[m.instr.attrs.index]


def fold_tuple_of_gtes(m: Match) -> HloInstruction | None:
    """tuple(gte(t, 0), ..., gte(t, n-1)) -> t, when t has exactly those n elements."""
    elements = m.instr.operands
    if not elements or any(e.opcode is not Opcode.GET_TUPLE_ELEMENT for e in elements):
        return None
    source = elements[0].operands[0]
    if len(source.shape.tuple_shapes) != len(elements):
        return None
    for i, element in enumerate(elements):
        if element.operands[0] is not source or element.attrs.index != i:
            return None
    return source


tuple_rules = [
    Rule(
        "fold_gte_of_tuple",
        Pat(Opcode.GET_TUPLE_ELEMENT, Pat.op(Opcode.TUPLE, name="tuple")),
        fold_gte_of_tuple,
    ),
    Rule("fold_tuple_of_gtes", Pat.op(Opcode.TUPLE), fold_tuple_of_gtes),
]


@register_pass
@dataclass(frozen=True)
class TupleSimplifier(Pass):
    """Applies ``tuple_rules``: get-tuple-element of a tuple, tuple of in-order
    get-tuple-elements (until none fires)."""

    name: ClassVar[str] = "tuple-simplifier"

    def run(self, module: HloModule) -> bool:
        return apply_rules(module, tuple_rules, prefix=self.name)
