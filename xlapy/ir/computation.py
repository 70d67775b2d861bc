"""HloComputation: an ordered list of instructions with parameters and a root."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xlapy.errors import InvalidArgument
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape

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
    def add_instruction(
        self,
        instr: HloInstruction,
        *,
        root: bool = False,
        before: HloInstruction | None = None,
    ) -> HloInstruction:
        """Adds ``instr`` at the end, or just before ``before``; its operands must already be
        instructions of this computation, defined earlier than where it goes."""
        position = len(self.instructions) if before is None else self._index(before)
        if before is not None:
            for operand in instr.operands:
                if operand.parent is not self or self._index(operand) >= position:
                    raise InvalidArgument(
                        f"cannot add {instr.name} before {before.name}: its operand "
                        f"{operand.name} is not an earlier instruction of {self.name}"
                    )
        instr.parent = self
        if self.parent is not None:
            instr.name = self.parent.unique_name(instr.name, instr)
        self.instructions.insert(position, instr)
        if root:
            self._root = instr
        return instr

    def insert_before(self, anchor: HloInstruction, instr: HloInstruction) -> HloInstruction:
        """Adds ``instr`` just before ``anchor`` (``add_instruction(instr, before=anchor)``)."""
        return self.add_instruction(instr, before=anchor)

    def make_instruction(
        self,
        opcode: Opcode,
        operands: Sequence[HloInstruction],
        attrs: Mapping[str, Any] | None = None,
        *,
        shape: Shape | None = None,
        name: str = "",
    ) -> HloInstruction:
        """A new instruction whose shape comes from ``xlapy.shape_inference.infer_shape``,
        not yet added to the computation (add it, or pass it to ``replace_instruction``).

        ``shape`` is the declared result for ops whose result is not a function of their
        operands (reshape, convert, broadcast, ...); it is checked by inference.

        Raises:
            InvalidArgument: the operands and attributes break one of the op's constraints.

        Example::

            one = comp.make_instruction(Opcode.CONSTANT, [], {"literal": Literal.from_numpy(
                np.float32(1))})
            inc = comp.make_instruction(Opcode.ADD, [x, one])
        """
        from xlapy.shape_inference import infer_shape, make_attrs

        checked = make_attrs(opcode, attrs)
        inferred = infer_shape(
            opcode, [o.shape for o in operands], checked, result=shape, name=name
        )
        return HloInstruction(opcode, inferred, operands, checked, name=name)

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
        """Instructions that use ``instr`` as an operand (each once, in order). O(n): for
        many queries build ``user_map()`` once."""
        return [u for u in self.instructions if any(o is instr for o in u.operands)]

    def user_map(self) -> dict[HloInstruction, list[HloInstruction]]:
        """Every instruction -> its users (each once, in definition order), built in one pass.

        A snapshot: it is not updated when the computation changes.
        """
        result: dict[HloInstruction, list[HloInstruction]] = {i: [] for i in self.instructions}
        for instr in self.instructions:
            seen: set[int] = set()
            for operand in instr.operands:
                if id(operand) not in seen:
                    seen.add(id(operand))
                    result.setdefault(operand, []).append(instr)
        return result

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
    def replace_all_uses(
        self,
        old: HloInstruction,
        new: HloInstruction,
        users: Sequence[HloInstruction] | None = None,
    ) -> None:
        """Makes every use of ``old`` (operands, control edges, the root) use ``new``.

        ``users``: the instructions using ``old`` when the caller knows them (from
        ``user_map()``); control edges are rewired in every instruction either way.
        """
        if self.root is old:
            self._root = new
        for instr in self.instructions if users is None else users:
            if old in instr.operands:  # identity: instructions define no __eq__
                instr.operands = [new if o is old else o for o in instr.operands]
        for instr in self.instructions:
            if instr.control_predecessors and old in instr.control_predecessors:
                instr.control_predecessors = [
                    new if o is old else o for o in instr.control_predecessors
                ]

    def replace_instruction(
        self,
        old: HloInstruction,
        new: HloInstruction,
        users: Sequence[HloInstruction] | None = None,
    ) -> HloInstruction:
        """Replaces ``old`` by ``new`` everywhere, removes ``old`` and returns ``new``.

        ``new`` is an instruction of this computation or a new one (from
        ``make_instruction``, not yet added). A new one and its new operands (recursively)
        take ``old``'s place in definition order and ``new`` takes ``old``'s layout. The
        instruction list stays in operand-before-user order. ``users``: as for
        ``replace_all_uses``.

        Raises:
            InvalidArgument: the shapes differ (ignoring layout), or ``new`` belongs to
                another computation.
        """
        if new is old:
            return new
        if not new.shape.compatible(old.shape):
            raise InvalidArgument(
                f"cannot replace {old.name} ({old.shape}) by {new.name} ({new.shape}): "
                "their shapes differ"
            )
        old_index = self._index(old)
        misplaced = False
        if new.parent is None:
            new.shape = old.shape
            added = _detached_post_order(new)
            for instr in added:
                instr.parent = self
                if self.parent is not None:
                    instr.name = self.parent.unique_name(instr.name, instr)
                if instr.metadata is None:
                    instr.metadata = old.metadata
            self.instructions[old_index:old_index] = added
            old_index += len(added)
            misplaced = any(
                o.parent is self and self._index(o) > old_index
                for instr in added
                for o in instr.operands
            )
        elif new.parent is self:
            misplaced = self._index(new) > old_index
        else:
            raise InvalidArgument(
                f"cannot replace {old.name} by {new.name}: it belongs to computation "
                f"{new.parent.name}, not {self.name}"
            )
        self.replace_all_uses(old, new, users)
        del self.instructions[old_index]
        old.parent = None
        old.operands = []
        old.control_predecessors = []
        if misplaced:
            self.instructions = self.post_order()
        return new

    def remove_instruction(self, instr: HloInstruction) -> None:
        """Removes ``instr``, which must not be used (operand, control edge) or the root."""
        self.remove_instructions([instr])

    def remove_instructions(self, dead: Sequence[HloInstruction]) -> None:
        """Removes several instructions in one pass; no instruction that stays may use one
        of them, and none may be the root.

        Raises:
            InvalidArgument: naming a removed instruction that is still used.
        """
        gone = {id(i) for i in dead}
        if self.instructions and id(self.root) in gone:
            raise InvalidArgument(f"cannot remove {self.root.name}: it is the root of {self.name}")
        kept = []
        for instr in self.instructions:
            if id(instr) in gone:
                continue
            for o in (*instr.operands, *instr.control_predecessors):
                if id(o) in gone:
                    raise InvalidArgument(f"cannot remove {o.name}: {instr.name} still uses it")
            kept.append(instr)
        self.instructions = kept
        for instr in dead:
            instr.parent = None

    def _index(self, instr: HloInstruction) -> int:
        try:
            return self.instructions.index(instr)  # identity: instructions define no __eq__
        except ValueError:
            raise InvalidArgument(
                f"{instr.name} is not an instruction of computation {self.name}"
            ) from None

    def __repr__(self) -> str:
        return f"<HloComputation {self.name}: {len(self.instructions)} instructions>"


def _detached_post_order(new: HloInstruction) -> list[HloInstruction]:
    """``new`` and its operands (recursively) that belong to no computation, operands first."""
    order: list[HloInstruction] = []
    seen: set[int] = set()
    stack: list[tuple[HloInstruction, bool]] = [(new, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen or node.parent is not None:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((o, False) for o in reversed(node.operands))
    return order
