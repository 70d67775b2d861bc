"""Compiled ``fft``: the interpreter's transform (``xlapy.interpreter.evals.fft.transform``,
scipy.fft's pocketfft in the element type's own precision) on the whole array, its checks done
once at compile time; a large one on every core (pocketfft's own threads: its Python binding
holds the GIL, so Python threads could not share the work) when the machine has a core to
spare, as XLA:CPU runs its FFTs on its threads. The values are the interpreter's bit for bit
(each 1-D transform is computed as on one thread)."""

from __future__ import annotations

import math

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.kernels import blas
from xlapy.interpreter.evals.fft import check_fft, transform
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

_SPLIT_WORK = 1e7
"""A transform of at least this many ``elements x log2(points)`` runs on every core when
other processes leave one idle (``blas.spare_core``: pocketfft gives each of its threads a
fixed share and waits for all, so a thread the scheduler runs late holds the transform up;
16 64x64 RFFTs measured 0.15 ms on one thread, 1.8 ms on two under a load of 6 on 2
cores). On this 2-core machine, idle, c64 FFTs on 1 and 2 threads: 64x1024 (6.6e5) 0.15-0.19
vs 0.20-0.23 ms, 16x64x64 0.11 vs 0.16 ms, 256x4096 (1.2e7) 3.4-3.5 vs 3.0 ms, 64x65536
(1.0e8) 20.2 vs 18.5 ms: only large transforms gain."""


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
    how = f"scipy.fft {fft_type.value} over {len(lengths)} dims"
    work = max(math.prod(operand.dims), math.prod(dims)) * math.log2(max(math.prod(lengths), 2))
    cores = blas.workers()
    if work < _SPLIT_WORK or cores == 1:

        def run(operands: list[Value], ctx: RunContext) -> Value:
            return transform(np.asarray(operands[0]), fft_type, lengths, dtype, dims)

        return Kernel(run=run, how=how, views=())

    def run_split(operands: list[Value], ctx: RunContext) -> Value:
        threads = cores if blas.spare_core() else 1
        return transform(np.asarray(operands[0]), fft_type, lengths, dtype, dims, threads)

    return Kernel(run=run_split, how=f"{how}, {cores} threads when a core is idle", views=())
