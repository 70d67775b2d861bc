"""HloComputation: an ordered list of instructions with parameters and a root."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from xlapy.errors import InvalidArgument
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

if TYPE_CHECKING:
    from xlapy.ir.module import HloModule


class HloComputation:
    """A computation: instructions in definition order (operands before users), one root.

    Attributes:
        name: unique in its module.
        instructions: every instruction, each after its operands.
        root: the result instruction (the last one unless set).
        execution_thread: ``"main"`` unless the computation runs on another thread.
    """

    def __init__(self, name: str, execution_thread: str = "main") -> None:
        self.name = name
        self.instructions: list[HloInstruction] = []
        self._root: HloInstruction | None = None
        self.execution_thread = execution_thread
        self.parent: HloModule | None = None

    # ---- building -------------------------------------------------------------------
    def add_instruction(self, instr: HloInstruction, *, root: bool = False) -> HloInstruction:
        """Appends ``instr`` (its operands must already be in this computation)."""
        instr.parent = self
        if self.parent is not None:
            instr.name = self.parent.unique_name(instr.name, instr)
        self.instructions.append(instr)
        if root:
            self._root = instr
        return instr

    @property
    def root(self) -> HloInstruction:
        if self._root is not None:
            return self._root
        if not self.instructions:
            raise InvalidArgument(f"computation {self.name} has no instructions")
        return self.instructions[-1]

    @root.setter
    def root(self, instr: HloInstruction) -> None:
        self._root = instr

    @property
    def has_explicit_root(self) -> bool:
        return self._root is not None

    # ---- queries --------------------------------------------------------------------
    @property
    def parameters(self) -> list[HloInstruction]:
        """Parameter instructions ordered by parameter number."""
        params = [i for i in self.instructions if i.opcode is Opcode.PARAMETER]
        return sorted(params, key=lambda p: p.parameter_number)

    def parameter(self, number: int) -> HloInstruction:
        for p in self.instructions:
            if p.opcode is Opcode.PARAMETER and p.parameter_number == number:
                return p
        raise InvalidArgument(f"computation {self.name} has no parameter {number}")

    @property
    def num_parameters(self) -> int:
        return sum(1 for i in self.instructions if i.opcode is Opcode.PARAMETER)

    def instruction(self, name: str) -> HloInstruction:
        for instr in self.instructions:
            if instr.name == name:
                return instr
        raise InvalidArgument(f"computation {self.name} has no instruction named {name!r}")

    def users(self, instr: HloInstruction) -> list[HloInstruction]:
        """Instructions that use ``instr`` as an operand (each once, in order)."""
        return [u for u in self.instructions if any(o is instr for o in u.operands)]

    def post_order(self) -> list[HloInstruction]:
        """Instructions reachable from the root and control edges, operands first.

        Unreachable instructions (dead code, side-effecting ops without users) follow in
        definition order, so evaluation sees every instruction once.
        """
        seen: set[int] = set()
        order: list[HloInstruction] = []

        def visit(start: HloInstruction) -> None:
            stack: list[tuple[HloInstruction, bool]] = [(start, False)]
            while stack:
                node, expanded = stack.pop()
                if id(node) in seen:
                    continue
                if expanded:
                    seen.add(id(node))
                    order.append(node)
                    continue
                stack.append((node, True))
                for dep in reversed([*node.operands, *node.control_predecessors]):
                    if id(dep) not in seen:
                        stack.append((dep, False))

        for instr in self.instructions:
            visit(instr)
        return order

    def called_computations(self) -> Iterator[HloComputation]:
        for instr in self.instructions:
            yield from instr.called_computations()

    # ---- editing --------------------------------------------------------------------
    def replace_all_uses(self, old: HloInstruction, new: HloInstruction) -> None:
        for instr in self.instructions:
            instr.operands = [new if o is old else o for o in instr.operands]
            instr.control_predecessors = [
                new if o is old else o for o in instr.control_predecessors
            ]
        if self._root is old:
            self._root = new

    def remove_instruction(self, instr: HloInstruction) -> None:
        if self.users(instr):
            raise InvalidArgument(f"cannot remove {instr.name}: it still has users")
        self.instructions = [i for i in self.instructions if i is not instr]
        if self._root is instr:
            self._root = None

    def __repr__(self) -> str:
        return f"<HloComputation {self.name}: {len(self.instructions)} instructions>"
