"""Compiled single instructions: an elementwise op or a standalone reduce becomes a one-op
fusion kernel (its operands are the kernel's arguments)."""

from __future__ import annotations

from xlapy.backend.cpu.codegen.elemental import ELEMENTWISE
from xlapy.backend.cpu.codegen.fusion_emitter import compile_kernel
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, kernel_for
from xlapy.indexing.per_op import instruction_summary
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode


@kernel_for(*ELEMENTWISE, Opcode.REDUCE, priority=10)
def single_op_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """The instruction alone, compiled as a fusion of one op."""
    leaves: dict[int, int] = {}
    for position, operand in enumerate(instr.operands):
        leaves.setdefault(id(operand), position)
    return compile_kernel(instr.name, instr, leaves, options, "op", instruction_summary(instr))
