"""``constant-folding`` (XLA's HloConstantFolding): an instruction whose operands are constants
becomes a constant holding its value, computed by the interpreter's eval of its op (one
arithmetic: the folded value is bit-identical to what the interpreter computes at run time,
for every element type).

XLA's rules of which instructions fold (``hlo_constant_folding.cc``):

- at least one operand is a constant, and every operand is a constant, a broadcast of a
  constant or an iota (looking through tuple operands);
- broadcasts and iotas themselves never fold: folding them would only grow constants (a
  program stays as small as it was written, and its text stays short);
- a pad of a broadcast with a constant padding value does not fold (compile time);
- results and operands of more than ``max_elements`` (45 million) elements do not fold.
"""

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

_EXPANDING = frozenset({Opcode.BROADCAST, Opcode.IOTA})
"""Never folded, nor anything that calls a computation holding them (XLA checks the
instructions of called computations with the same rules)."""

_NOT_INSIDE = frozenset(_NEVER - {Opcode.PARAMETER, Opcode.CONSTANT}) | _EXPANDING
"""An instruction whose called computations contain one of these is not folded either."""


@register_pass
@dataclass(frozen=True)
class ConstantFolding(Pass):
    """Replaces each instruction whose operands are constants by a ``constant``.

    Folds an instruction when at least one operand is a constant and every operand is a
    constant, a broadcast of a constant or an iota (through tuple operands), as XLA does.
    Not folded: broadcasts and iotas (folding them only grows constants), pads of a
    broadcast, side-effecting instructions (also through called computations), random ops,
    replica/partition ids, while loops, custom calls, FFT, tokens, dynamic shapes, results or
    operands of more than ``max_elements`` elements, and evaluation errors (left for run
    time). Tuple-valued instructions are not turned into tuple constants; a get-tuple-element
    of one folds. So a program whose root is an array computed from constants only becomes
    one constant.

    Values are computed as the interpreter computes them by default (no denormal flushing).
    """

    name: ClassVar[str] = "constant-folding"
    max_elements: int = 45_000_000

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
        # Constants: constant arrays, and tuple-valued instructions that fold (not made
        # constants: a get-tuple-element of one folds), by id. Values are computed on first
        # use, those of broadcasts of constants and iotas too.
        constants: set[int] = set()
        values: dict[int, Value] = {}
        users = comp.user_map()
        orphans: list[HloInstruction] = []
        folded = 0
        for instr in list(comp.instructions):
            value = constant_array(instr)
            if value is not None:
                constants.add(id(instr))
                values[id(instr)] = value
                continue
            if not self.operands_fold(instr, constants) or not self.foldable(instr):
                continue
            if not self.small_enough(instr):
                continue
            if not instr.shape.is_array:
                constants.add(id(instr))  # folds when a get-tuple-element needs it
                continue
            result = self.value_of(instr, values)
            if result is None:
                continue
            constant = HloInstruction(
                Opcode.CONSTANT, instr.shape, (), {"literal": Literal(instr.shape, result)}
            )
            orphans.extend(instr.operands)
            comp.replace_instruction(instr, constant, users[instr])
            constants.add(id(constant))
            values[id(constant)] = result
            folded += 1
        if orphans:
            remove_unused(comp, orphans)
        return folded

    def operands_fold(self, instr: HloInstruction, constants: set[int]) -> bool:
        """XLA's operand rule: some operand is a constant (a tuple operand: some element),
        every operand a constant, a broadcast of one, an iota, or a tuple of those."""
        any_constant = False

        def constant_like(operand: HloInstruction) -> bool:
            nonlocal any_constant
            if id(operand) in constants:
                any_constant = True
                return True
            if operand.opcode is Opcode.TUPLE:
                return all(constant_like(o) for o in operand.operands)
            if operand.opcode is Opcode.BROADCAST:
                return id(operand.operands[0]) in constants
            return operand.opcode is Opcode.IOTA

        return all(constant_like(o) for o in instr.operands) and any_constant

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
        if instr.opcode in _NEVER or instr.opcode in _EXPANDING or not instr.shape.is_static:
            return False
        if (
            instr.opcode is Opcode.PAD
            and instr.operands[0].opcode is Opcode.BROADCAST
            and instr.operands[1].opcode is Opcode.CONSTANT
        ):
            return False  # XLA: folding it takes long for no gain
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
