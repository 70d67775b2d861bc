"""Indexing results: one operand's map with its runtime variables (``OperandIndexing``) and
the sets of maps of an instruction's operands or outputs (``HloInstructionIndexing``).

A runtime variable ``rt_k`` of a map stands for a value read at run time; ``RuntimeVar``
records which instruction is read and where (a map from the same index space). The list of
an ``OperandIndexing`` is aligned with the map's ``rt`` symbols. Printing follows XLA's
``ToString``: ``operand id = N`` then the maps, each followed by ``runtime variables:``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xlapy.indexing.indexing_map import IndexingMap
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode


@dataclass(frozen=True, slots=True, eq=False)
class RuntimeVar:
    """What a runtime variable stands for: ``instruction`` read at ``map(output index)``.

    ``level`` counts the producers composed before the variable was introduced (0 for the
    outermost instruction's); XLA lists the variables of a composed map by level.
    """

    instruction: HloInstruction
    map: IndexingMap
    level: int = 0

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RuntimeVar)
            and self.instruction is other.instruction
            and self.map == other.map
        )

    def __hash__(self) -> int:
        return hash((id(self.instruction), self.map))


@dataclass(frozen=True, slots=True)
class OperandIndexing:
    """One indexing map of an operand and the sources of its runtime variables."""

    map: IndexingMap
    rt_vars: tuple[RuntimeVar, ...] = ()

    def simplify(self) -> OperandIndexing:
        """Simplifies the map and drops unused symbols (with their runtime variables)."""
        if self.map.is_undefined:
            return self
        simplified, _, kept = self.map.simplify().remove_unused(remove_dims=False)
        n_range = len(self.map.range_vars)
        rt = tuple(self.rt_vars[j - n_range] for j in kept if j >= n_range)
        if len(rt) != len(simplified.rt_vars):  # the map became KNOWN EMPTY
            rt = ()
        return OperandIndexing(simplified, rt)

    def to_string(self, *, xla_order: bool = False) -> str:
        """The map and its runtime variables. With ``xla_order`` the variables are listed
        as XLA lists them: by level (the outermost instruction's first), which after a
        composition differs from the map's ``rt`` numbering (XLA's listing, kept for
        ``--match-xla`` diffs)."""
        if self.map.is_undefined:
            return "unknown indexing"
        text = self.map.to_string()
        if self.rt_vars and not self.map.is_known_empty:
            listed = list(self.rt_vars)
            if xla_order:
                listed.sort(key=lambda rt: rt.level)
            lines = [text, "runtime variables:"]
            for k, rt in enumerate(listed):
                lines.append(
                    f"rt{k}: {instruction_summary(rt.instruction)}; "
                    f"{rt.map.to_string(multiline=False)}"
                )
            text = "\n".join(lines)
        return text


def instruction_summary(instr: HloInstruction) -> str:
    """``%name = shape opcode(%operands...)`` (``parameter(N)`` for parameters)."""
    if instr.opcode is Opcode.PARAMETER:
        args = str(instr.parameter_number)
    elif instr.opcode is Opcode.CONSTANT:
        value = instr.attrs.literal.to_numpy()
        args = str(value.item()) if value.ndim == 0 else "{...}"
    else:
        args = ", ".join(f"%{o.name}" for o in instr.operands)
    return f"%{instr.name} = {instr.shape} {instr.opcode.value}({args})"


class HloInstructionIndexing:
    """A set of maps per operand (output->input) or per output (input->output).

    Maps are kept unique (equal maps are merged) in insertion order; printing sorts each
    set by its text (ignoring blanks), so equal indexings print equally.
    """

    def __init__(self, count: int = 0) -> None:
        self.maps: list[list[OperandIndexing]] = [[] for _ in range(count)]

    @classmethod
    def from_maps(cls, maps: Sequence[IndexingMap | OperandIndexing]) -> HloInstructionIndexing:
        result = cls(len(maps))
        for i, m in enumerate(maps):
            result.add(i, m if isinstance(m, OperandIndexing) else OperandIndexing(m))
        return result

    @classmethod
    def unknown(cls, count: int) -> HloInstructionIndexing:
        return cls.from_maps([IndexingMap.undefined()] * count)

    def add(self, position: int, indexing: OperandIndexing) -> None:
        if indexing not in self.maps[position]:
            self.maps[position].append(indexing)

    def simplify(self) -> HloInstructionIndexing:
        result = HloInstructionIndexing(len(self.maps))
        for i, group in enumerate(self.maps):
            for m in group:
                result.add(i, m.simplify())
        return result

    def to_string(self, *, xla_order: bool = False) -> str:
        """``operand id = N`` blocks; ``xla_order`` lists runtime variables as XLA does."""
        blocks = []
        for i, group in enumerate(self.maps):
            lines = [f"operand id = {i}"]
            texts = (m.to_string(xla_order=xla_order) for m in group)
            for text in sorted(texts, key=_sort_key):
                lines.extend("  " + line for line in text.splitlines())
            blocks.append("\n".join(lines))
        return "\n".join(blocks)

    def __str__(self) -> str:
        return self.to_string()


def _sort_key(text: str) -> str:
    """Maps of one operand print sorted by their text without blanks (identity first)."""
    return "".join(text.split())
