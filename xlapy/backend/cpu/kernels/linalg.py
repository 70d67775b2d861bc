"""Compiled JAX LAPACK custom calls (``lapack_{s,d,c,z}<routine>_ffi``): the interpreter's
per-matrix routine (``xlapy.interpreter.evals.lapack``), with the instruction's checks, its
backend_config and output shapes settled once at compile time, and the batch walked as one
flat index. Each matrix runs the same scipy LAPACK call with the same arguments as the
interpreter's eval, so results are bit for bit the interpreter's.
"""

from __future__ import annotations

import math

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.interpreter.evals.lapack import TARGETS, batch_dims, checked_config, run_element
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value


@kernel_for(Opcode.CUSTOM_CALL, priority=5)
def lapack_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """A LAPACK custom call over a batch of matrices, one routine call per matrix."""
    target = instr.attrs.custom_call_target
    if target not in TARGETS:
        raise NoKernel(f"custom-call target {target!r} is not a LAPACK routine")
    if not instr.shape.is_static or not all(op.shape.is_static for op in instr.operands):
        raise NoKernel(f"custom-call {instr.name}: dynamic dimensions")
    prefix, routine = TARGETS[target]
    shapes = [tuple(op.shape.dims) for op in instr.operands]
    batch = batch_dims(instr, routine, shapes)
    config = checked_config(instr)
    leaves = list(instr.shape.leaves())
    count = math.prod(batch)
    flat_shapes = [(count, *s[len(batch) :]) for s in shapes]
    out_shapes = [(count, *leaf.dims[len(batch) :]) for leaf in leaves]
    out_types = [leaf.element_type.numpy for leaf in leaves]
    is_tuple = instr.shape.is_tuple

    def run(operands: list[Value], ctx: RunContext) -> Value:
        arrays = [np.asarray(v).reshape(s) for v, s in zip(operands, flat_shapes, strict=True)]
        outputs = [np.zeros(s, t) for s, t in zip(out_shapes, out_types, strict=True)]
        for i in range(count):
            run_element(instr, prefix, routine, config, [x[i] for x in arrays], outputs, (i,))
        results = tuple(out.reshape(leaf.dims) for out, leaf in zip(outputs, leaves, strict=True))
        return results if is_tuple else results[0]

    return Kernel(run=run, how=f"LAPACK {prefix}{routine} per matrix, {count} matrices", views=())
