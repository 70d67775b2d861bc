"""Compiled fusions: a fusion instruction whose fused computation consists of ops with
element generators becomes one generated numba kernel (loop fusions; reduction fusions with
multi-output tuple roots). Anything else raises NoKernel, and the platform runs the fused
computation instruction by instruction."""

from __future__ import annotations

from xlapy.backend.cpu.codegen.fusion_emitter import compile_kernel
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    kernel_for,
    require_generation,
)
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_printer import PrintOptions, print_computation


@kernel_for(Opcode.FUSION, priority=10)
def fusion_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """One kernel for the whole fused computation (any fusion kind: the loop plan follows
    from the root, as XLA's emitters do)."""
    require_generation(f"fusion {instr.name}")
    comp: HloComputation | None = instr.attrs.calls
    if comp is None:
        raise NoKernel(f"fusion {instr.name}: no fused computation")
    leaves = {id(p): p.parameter_number for p in comp.parameters}
    return compile_kernel(
        f"fusion_{instr.name}",
        comp.root,
        leaves,
        options,
        "fusion",
        print_computation(comp, options=PrintOptions.as_hlo_text()),
    )
