"""Compiled ``dynamic-slice`` and ``dynamic-update-slice``: numpy slices at clamped starts,
the update written in place when the operand's buffer is donated (a scan's carried array).

Spec: OPS.md DynamicSlice, DynamicUpdateSlice (``clamp(start, 0, dim - size)``). Start
indices are read with the interpreter's helpers, so bad inputs raise its errors.
"""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.interpreter.evals.slicing import clamped_starts, start_indices
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value


def _static(instr: HloInstruction, count: int) -> None:
    shapes = [o.shape for o in instr.operands[:count]]
    if not all(s.is_array and s.is_static for s in (*shapes, instr.shape)):
        raise NoKernel("non-array or dynamic operands")


@kernel_for(Opcode.DYNAMIC_SLICE, priority=10)
def dynamic_slice_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """DynamicSlice: ``operand[s_d : s_d + size_d]`` with ``s_d = clamp(start_d, 0, dim_d -
    size_d)``, copied (bit-identical to the interpreter)."""
    _static(instr, 1)
    sizes = tuple(instr.attrs.dynamic_slice_sizes)
    dims = instr.operands[0].shape.dims
    if len(sizes) != len(dims) or tuple(instr.shape.dims) != sizes:
        raise NoKernel("slice sizes disagree with the operand (the interpreter reports it)")
    if any(not 0 <= s <= n for s, n in zip(sizes, dims, strict=True)):
        raise NoKernel("slice sizes out of range (the interpreter reports it)")

    def run(operands: list[Value], ctx: RunContext) -> Value:
        operand = np.asarray(operands[0])
        starts = start_indices(instr, operands[1:], operand.ndim, ("C2", "C3"))
        # adjusted_start_indices = clamp(0, start_indices, shape(operand) - slice_sizes)
        adjusted = clamped_starts(instr, starts, dims, sizes, "C4")
        index = tuple(slice(s, s + n) for s, n in zip(adjusted, sizes, strict=True))
        return np.array(operand[index], copy=True)

    return Kernel(run=run, how="numpy slice at clamped starts", exact=True, views=())


@kernel_for(Opcode.DYNAMIC_UPDATE_SLICE, priority=10)
def dynamic_update_slice_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """DynamicUpdateSlice: ``operand`` with ``update`` written at the clamped starts, in the
    operand's own buffer when it is donated and writeable, else in a copy (bit-identical to
    the interpreter)."""
    _static(instr, 2)
    operand_shape, update_shape = (o.shape for o in instr.operands[:2])
    if (
        operand_shape.rank != update_shape.rank
        or operand_shape.element_type is not update_shape.element_type
    ):
        raise NoKernel("update of another rank or type (the interpreter reports it)")
    dims, update_dims = operand_shape.dims, update_shape.dims

    def run(operands: list[Value], ctx: RunContext) -> Value:
        operand = np.asarray(operands[0])
        update = np.asarray(operands[1])
        starts = start_indices(instr, operands[2:], operand.ndim, ("C4", "C5"))
        adjusted = clamped_starts(instr, starts, dims, update_dims, "C6")
        in_place = 0 in ctx.donatable and operand.flags.writeable
        result = operand if in_place else np.array(operand, copy=True)
        index = tuple(slice(s, s + n) for s, n in zip(adjusted, update_dims, strict=True))
        result[index] = update
        return result

    return Kernel(
        run=run, how="numpy slice assignment, in place when donated", exact=True, views=()
    )
