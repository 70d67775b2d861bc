"""The HLO IR: opcodes, typed attributes, instructions, computations, modules."""

from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule, ModuleConfig
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY, VARIADIC, AttrKind, Attrs, AttrSpec, OpDef, Trait, opdef

__all__ = [
    "REGISTRY",
    "VARIADIC",
    "AttrKind",
    "AttrSpec",
    "Attrs",
    "HloComputation",
    "HloInstruction",
    "HloModule",
    "ModuleConfig",
    "OpDef",
    "Opcode",
    "Trait",
    "opdef",
]
