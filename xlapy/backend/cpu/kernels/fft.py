"""Compiled ``fft``: the interpreter's transform (``xlapy.interpreter.evals.fft.transform``,
scipy.fft's pocketfft in the element type's own precision) on the whole array, its checks done
once at compile time; the values are the interpreter's bit for bit."""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.interpreter.evals.fft import check_fft, transform
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value


@kernel_for(Opcode.FFT)
def fft_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """FFT, IFFT, RFFT or IRFFT over the innermost 1-3 dimensions of a static operand."""
    operand = instr.operands[0].shape
    if not operand.is_static or not instr.shape.is_static:
        raise NoKernel("fft of dynamic dimensions")
    lengths = check_fft(instr, operand.dims)
    fft_type = instr.attrs.fft_type
    dtype = instr.shape.element_type.numpy
    dims = tuple(instr.shape.dims)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return transform(np.asarray(operands[0]), fft_type, lengths, dtype, dims)

    return Kernel(run=run, how=f"scipy.fft {fft_type.value} over {len(lengths)} dims", views=())
