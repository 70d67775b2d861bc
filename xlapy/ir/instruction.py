"""HloInstruction: one node of the HLO graph (opcode, shape, operands, typed attributes).

Instructions have identity semantics; change the graph only through HloComputation methods.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import OpMetadata, RawAttribute
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import VARIADIC, AttrKind, Attrs, AttrSpec, OpDef, opdef
from xlapy.shape import Shape

if TYPE_CHECKING:
    from xlapy.ir.computation import HloComputation
    from xlapy.sharding.hlo_sharding import HloSharding


_CALLEE_KINDS = (AttrKind.COMPUTATION, AttrKind.COMPUTATIONS)
_CALLEE_SPECS: dict[Opcode, tuple[AttrSpec, ...]] = {}
"""Per opcode: its attributes that hold computations (most ops have none)."""


class HloInstruction:
    """An HLO instruction.

    Attributes:
        name: unique name in its module (without ``%``).
        opcode: the Opcode.
        shape: the result shape (layout included).
        operands: operand instructions, in order.
        attrs: the op's typed attributes (schema from ``xlapy.ir.opdefs``).
        metadata, sharding, frontend_attributes, backend_config, control_predecessors,
        statistics, origin: the generic attributes every instruction may carry.
        unknown_attributes: ``name=value`` pairs newer than xlapy, kept verbatim.
    """

    __slots__ = (
        "attrs",
        "backend_config",
        "control_predecessors",
        "frontend_attributes",
        "metadata",
        "name",
        "opcode",
        "operands",
        "origin",
        "parent",
        "shape",
        "sharding",
        "statistics",
        "unknown_attributes",
    )

    def __init__(
        self,
        opcode: Opcode,
        shape: Shape,
        operands: Sequence[HloInstruction] = (),
        attrs: Mapping[str, Any] | Attrs | None = None,
        *,
        name: str = "",
        metadata: OpMetadata | None = None,
        sharding: HloSharding | None = None,
        frontend_attributes: Mapping[str, str] | None = None,
        backend_config: str = "",
        control_predecessors: Sequence[HloInstruction] = (),
        statistics: RawAttribute | None = None,
        origin: RawAttribute | None = None,
        unknown_attributes: Sequence[tuple[str, RawAttribute]] = (),
    ) -> None:
        self.opcode = opcode
        self.shape = shape
        self.operands: list[HloInstruction] = list(operands)
        self.attrs = attrs if isinstance(attrs, Attrs) else Attrs(opdef(opcode), attrs)
        self.name = name or opcode.value
        self.metadata = metadata
        self.sharding = sharding
        self.frontend_attributes: dict[str, str] = dict(frontend_attributes or {})
        self.backend_config = backend_config
        self.control_predecessors: list[HloInstruction] = list(control_predecessors)
        self.statistics = statistics
        self.origin = origin
        self.unknown_attributes: list[tuple[str, RawAttribute]] = list(unknown_attributes)
        self.parent: HloComputation | None = None

    @property
    def opdef(self) -> OpDef:
        return opdef(self.opcode)

    @property
    def arity(self) -> int:
        return self.opdef.arity

    @property
    def is_variadic(self) -> bool:
        return self.opdef.arity == VARIADIC

    def operand(self, i: int) -> HloInstruction:
        return self.operands[i]

    def called_computations(self) -> list[HloComputation]:
        """Computations this instruction calls, in attribute order."""
        result: list[HloComputation] = []
        specs = _CALLEE_SPECS.get(self.opcode)
        if specs is None:
            specs = _CALLEE_SPECS[self.opcode] = tuple(
                s for s in self.opdef.attrs if s.kind in _CALLEE_KINDS
            )
        for spec in specs:
            value = self.attrs[spec.name]
            if value is None:
                continue
            if spec.kind is AttrKind.COMPUTATION:
                result.append(value)
            elif spec.kind is AttrKind.COMPUTATIONS:
                result.extend(value)
        return result

    def replace_all_uses_with(self, new: HloInstruction) -> None:
        """Makes every use of this instruction in its computation (operands, control edges,
        the root) use ``new`` instead; this instruction stays, without users."""
        if self.parent is None:
            raise InvalidArgument(f"{self.name} belongs to no computation")
        self.parent.replace_all_uses(self, new)

    def walk_operands(self) -> Iterator[HloInstruction]:
        yield from self.operands

    @property
    def parameter_number(self) -> int:
        if self.opcode is not Opcode.PARAMETER:
            raise AttributeError(f"{self.name} is a {self.opcode.value}, not a parameter")
        return int(self.attrs.parameter_number)

    def __repr__(self) -> str:
        ops = ", ".join(o.name for o in self.operands)
        return f"<{self.name} = {self.shape} {self.opcode.value}({ops})>"
