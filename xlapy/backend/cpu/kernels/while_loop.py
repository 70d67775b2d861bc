"""While loops compiled whole (priority 10): when the condition and body consist of ops with
element generators, one numba function runs every iteration; otherwise NoKernel, and the
generic loop of compiled plans (``control.py``) runs it."""

from __future__ import annotations

from xlapy.backend.cpu.codegen.while_emitter import compile_while
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, kernel_for
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode


@kernel_for(Opcode.WHILE, priority=10)
def while_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """The whole loop as one generated kernel."""
    return compile_while(instr, options)
