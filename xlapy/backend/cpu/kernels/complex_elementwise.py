"""Elementwise row ops (``add``, ``multiply``, ``exp``, ``complex``, ``real``, ``abs``, ...) as
the interpreter's own row kernel (``xlapy.interpreter.evals.elementwise.ROWS``) on whole
arrays, with the row's rules (compute dtype, flushing, one rounding) settled at compile time
and without the interpreter's defensive copies where an array already has the compute or
storage dtype. The values are the interpreter's bit for bit: the skipped steps are ``astype``
to the same dtype and copies. One thread: split over this machine's two cores, fft_c64's
|z| of 64x1024 c64 made the program slower on an idle machine (0.8 ms per call, 0.49 ms
unsplit).

* Complex operands or results, on both tiers: the numba code generator does not type them.
* Every float type on the quick tier: the evaluator's per-op dispatch, checks and copies were
  most of a quick first run (gpt_adamw's ~2,000 elementwise ops: its quick run ~215 -> ~115 ms
  of CPU); the compiled tier leaves real types to its generated kernels.
"""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import (
    QUICK_MODULES,
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    generating,
    kernel_for,
)
from xlapy.interpreter.evals.elementwise import ROWS, bind
from xlapy.interpreter.evaluator import evaluator_for
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Value


# Every elementwise opcode: the rows (``ROWS``) are among them, known once their family module
# of ``interpreter.evals`` is loaded (a program without complex values loads none of them).
@kernel_for(*sorted(QUICK_MODULES["complex_elementwise"], key=lambda op: op.value), priority=5)
def complex_row_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """An elementwise row op of float or complex types on whole numpy arrays (on the compiled
    tier: only with a complex operand or result)."""
    types = [op.shape.element_type for op in instr.operands]
    result = instr.shape.element_type
    if generating() and not any(t.is_complex for t in [*types, result]):
        raise NoKernel("no complex operand or result (the numba kernels' case)")
    if not all(t.is_float or t.is_complex for t in [*types, result]):
        raise NoKernel("row kernels take float and complex types only")
    evaluator_for(instr.opcode)  # its family module registers the row
    row = ROWS.get(instr.opcode)
    if row is None:
        raise NoKernel(f"{instr.opcode.value} is not an elementwise row op")
    dims = tuple(instr.shape.dims)
    if not instr.shape.is_static or any(tuple(op.shape.dims) != dims for op in instr.operands):
        raise NoKernel("operands of another shape than the result")
    t = types[0]
    op = bind(row, types, result, options.flush_denormals)
    if op is None:
        raise NoKernel(f"{instr.opcode.value} does not accept {t} (the interpreter reports it)")
    storage = np.dtype(result.numpy)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        arrays = [np.asarray(x) for x in operands]
        out = op(*arrays)
        if out.shape != dims:
            out = np.broadcast_to(out, dims)
        if not out.flags.owndata or any(out is a for a in arrays):
            out = np.array(out, dtype=storage)
        return out

    how = f"numpy whole-array {instr.opcode.value} ({t})"
    return Kernel(run=run, how=how, views=())
