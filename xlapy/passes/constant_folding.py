"""``constant-folding`` (XLA's HloConstantFolding): an instruction whose operands are all
constants becomes a constant holding its value, computed by the interpreter's eval of its op
(one arithmetic: the folded value is bit-identical to what the interpreter computes at run
time, for every element type)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xlapy.errors import XlaError
from xlapy.interpreter.evaluator import Evaluator
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal, Value
from xlapy.passes.analysis import RANDOM_OPS, SideEffects, contains_opcode
from xlapy.passes.pass_manager import Pass, record, register_pass
from xlapy.passes.rewrite import constant_array, remove_unused

_NEVER = RANDOM_OPS | {
    Opcode.PARAMETER,
    Opcode.CONSTANT,
    Opcode.AFTER_ALL,
    Opcode.ADD_DEPENDENCY,
    Opcode.DOMAIN,
    Opcode.OPTIMIZATION_BARRIER,
    Opcode.REPLICA_ID,
    Opcode.PARTITION_ID,
    Opcode.CUSTOM_CALL,
    Opcode.WHILE,
    Opcode.FFT,
}
"""Never folded: no value to fold (parameter, token ops), values that differ per device or
per run (ids, random ops), barriers and custom calls by intent, loops (XLA's folding
evaluator allows no loop iterations) and FFT (XLA: too slow to fold)."""

_NOT_INSIDE = frozenset(_NEVER - {Opcode.PARAMETER, Opcode.CONSTANT})
"""An instruction whose called computations contain one of these is not folded either."""

_EXPANDING = frozenset({Opcode.BROADCAST, Opcode.IOTA})


@register_pass
@dataclass(frozen=True)
class ConstantFolding(Pass):
    """Replaces each instruction whose operands are all constants by a ``constant``.

    Not folded: side-effecting instructions (also through called computations), random ops,
    replica/partition ids, while loops, custom calls, FFT, tokens, dynamic shapes, results or
    operands of more than ``max_elements`` elements, and evaluation errors (left for run
    time). A broadcast or iota producing more than ``max_expanded_elements`` elements is kept
    as it is (XLA keeps broadcasts of constants), though an instruction that also has a
    constant operand still folds through it. Tuple-valued instructions are not turned into
    tuple constants; a get-tuple-element of one folds. So a program whose root is an array
    computed from constants only becomes one constant.

    Values are computed as the interpreter computes them by default (no denormal flushing).
    """

    name: ClassVar[str] = "constant-folding"
    max_elements: int = 45_000_000
    max_expanded_elements: int = 1024

    def run(self, module: HloModule) -> bool:
        folder = _Folder(self, Evaluator(module), SideEffects())
        changed = False
        for comp in module.computations:
            folded = folder.fold_computation(comp)
            if folded:
                record(f"{self.name}/folded", folded)
                changed = True
        return changed


class _Folder:
    def __init__(
        self, options: ConstantFolding, evaluator: Evaluator, effects: SideEffects
    ) -> None:
        self.options = options
        self.evaluator = evaluator
        self.effects = effects
        self.foldable_computations: dict[int, bool] = {}

    def fold_computation(self, comp: HloComputation) -> int:
        # Known values: constants, and instructions that fold but are not materialized (tuples,
        # large broadcasts/iotas), evaluated on first use.
        known: dict[int, HloInstruction] = {}
        values: dict[int, Value] = {}
        users = comp.user_map()
        orphans: list[HloInstruction] = []
        folded = 0
        for instr in list(comp.instructions):
            value = constant_array(instr)
            if value is not None:
                known[id(instr)] = instr
                values[id(instr)] = value
                continue
            if not all(id(o) in known for o in instr.operands) or not self.foldable(instr):
                continue
            if instr.operands and all(o.opcode in _EXPANDING for o in instr.operands):
                # Only large expansions (small ones are constants by now): keep it small, as
                # XLA does for op(broadcast, broadcast).
                continue
            if not self.small_enough(instr):
                continue
            if not instr.shape.is_array or (
                instr.opcode in _EXPANDING
                and instr.shape.num_elements > self.options.max_expanded_elements
            ):
                known[id(instr)] = instr  # folds when a user needs it
                continue
            result = self.value_of(instr, values)
            if result is None:
                continue
            constant = HloInstruction(
                Opcode.CONSTANT, instr.shape, (), {"literal": Literal(instr.shape, result)}
            )
            orphans.extend(instr.operands)
            comp.replace_instruction(instr, constant, users[instr])
            known[id(constant)] = constant
            values[id(constant)] = result
            folded += 1
        if orphans:
            remove_unused(comp, orphans)
        return folded

    def value_of(self, instr: HloInstruction, values: dict[int, Value]) -> Value | None:
        """The value of a known instruction (None when its evaluation fails)."""
        if id(instr) in values:
            return values[id(instr)]
        operands = []
        for o in instr.operands:
            v = self.value_of(o, values)
            if v is None:
                return None
            operands.append(v)
        try:
            result = self.evaluator.evaluate(instr, operands)
        except XlaError:
            return None
        values[id(instr)] = result
        return result

    def foldable(self, instr: HloInstruction) -> bool:
        if instr.opcode in _NEVER or not instr.shape.is_static:
            return False
        if any(s.is_token for s in instr.shape.leaves()):
            return False
        if self.effects.has_side_effect(instr):
            return False
        for comp in instr.called_computations():
            ok = self.foldable_computations.get(id(comp))
            if ok is None:
                ok = not contains_opcode(comp, _NOT_INSIDE)
                self.foldable_computations[id(comp)] = ok
            if not ok:
                return False
        return True

    def small_enough(self, instr: HloInstruction) -> bool:
        limit = self.options.max_elements
        result = sum(s.num_elements for s in instr.shape.leaves() if s.is_array)
        operands = sum(
            s.num_elements for o in instr.operands for s in o.shape.leaves() if s.is_array
        )
        return max(result, operands) <= limit
