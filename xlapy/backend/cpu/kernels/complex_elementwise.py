"""Elementwise ops on complex values (``complex``, ``real``, ``imag``, ``abs``, ``add``,
``multiply``, ``exp``, ...), which the numba code generator does not type: the interpreter's
own row kernel (``xlapy.interpreter.evals.elementwise.ROWS``) on whole arrays, with the row's
rules (compute dtype, flushing, one rounding) settled at compile time and without the
interpreter's defensive copies where an array already has the compute or storage dtype. The
values are the interpreter's bit for bit: the skipped steps are ``astype`` to the same dtype
and copies.
"""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import (
    QUICK_MODULES,
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    kernel_for,
)
from xlapy.interpreter import numerics
from xlapy.interpreter.evals.elementwise import ROWS, call
from xlapy.interpreter.evaluator import evaluator_for
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Value


# Every elementwise opcode: the rows (``ROWS``) are among them, known once their family module
# of ``interpreter.evals`` is loaded (a program without complex values loads none of them).
@kernel_for(*sorted(QUICK_MODULES["complex_elementwise"], key=lambda op: op.value), priority=5)
def complex_row_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """An elementwise row op with a complex operand or result, on whole numpy arrays."""
    types = [op.shape.element_type for op in instr.operands]
    result = instr.shape.element_type
    if not any(t.is_complex for t in [*types, result]):
        raise NoKernel("no complex operand or result (the numba kernels' case)")
    evaluator_for(instr.opcode)  # its family module registers the row
    row = ROWS.get(instr.opcode)
    if row is None:
        raise NoKernel(f"{instr.opcode.value} is not an elementwise row op")
    if not all(t.is_float or t.is_complex for t in [*types, result]):
        raise NoKernel("complex row kernels take float and complex types only")
    dims = tuple(instr.shape.dims)
    if not instr.shape.is_static or any(tuple(op.shape.dims) != dims for op in instr.operands):
        raise NoKernel("operands of another shape than the result")
    t = types[0]
    kernel = row.kernel(t)
    if kernel is None:
        raise NoKernel(f"{instr.opcode.value} does not accept {t} (the interpreter reports it)")
    flush = options.flush_denormals
    flushed = [
        flush and (row.flush_operands is None or i in row.flush_operands) for i in range(len(types))
    ]
    compute = [
        numerics.precise_dtype(u) if row.precise else numerics.compute_dtype(u) for u in types
    ]
    storage = np.dtype(result.numpy)
    flush_result = flush and row.flush_result

    def run(operands: list[Value], ctx: RunContext) -> Value:
        inputs = []
        for x, u, dtype, flush_x in zip(operands, types, compute, flushed, strict=True):
            a = np.asarray(x)
            a = a if a.dtype == dtype else a.astype(dtype)
            inputs.append(numerics.flush_subnormals(a, u) if flush_x else a)
        with np.errstate(all="ignore"):
            values = np.asarray(call(kernel, t, *inputs))
            out = values if values.dtype == storage else numerics.round_to(values, result)
            if flush_result:
                out = numerics.flush_storage(out, result)
        if out.shape != dims:
            out = np.broadcast_to(out, dims)
        if not out.flags.owndata or any(out is a for a in [*operands, *inputs]):
            out = np.array(out, dtype=storage)
        return out

    return Kernel(run=run, how=f"numpy whole-array {instr.opcode.value} ({t})", views=())
