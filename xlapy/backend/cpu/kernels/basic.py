"""Kernels that move no data: tuple, get-tuple-element, reshape and bitcast as numpy views,
and the value-preserving ops (optimization-barrier, domain, add-dependency, after-all); and
broadcast as a numpy copy, for the element types the generated kernels do not handle
(complex: a ``rfft2(x) * rfft2(k)`` broadcasts the kernel's spectrum over the batch).

Parameters and constants need no kernel: a plan fills their slots before its steps run
(``xlapy.backend.cpu.plan``). Anything these kernels cannot do as a view (dynamic dimensions,
bitcasts through a non-default layout or between widths) runs the interpreter's eval.
"""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import TOKEN, Value
from xlapy.shape import Shape


@kernel_for(Opcode.TUPLE)
def tuple_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Tuple: the operands, as they are, in a Python tuple."""

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return tuple(operands)

    inline = "(" + "".join(f"{{{k}}}, " for k in range(len(instr.operands))) + ")"
    return Kernel(run=run, how="tuple of references", inline=inline)


@kernel_for(Opcode.GET_TUPLE_ELEMENT)
def get_tuple_element_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """GetTupleElement: the element itself (the verifier checked the index)."""
    index = int(instr.attrs.index)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return operands[0][index]  # type: ignore[index]

    return Kernel(run=run, how=f"element {index} by reference", inline=f"{{0}}[{index}]")


@kernel_for(Opcode.OPTIMIZATION_BARRIER, Opcode.DOMAIN, Opcode.ADD_DEPENDENCY)
def pass_through_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """OptimizationBarrier, Domain, AddDependency: the (first) operand unchanged."""

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return operands[0]

    return Kernel(run=run, how="operand passed through", views=(0,), inline="{0}")


@kernel_for(Opcode.AFTER_ALL)
def after_all_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """AfterAll: a token."""

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return TOKEN

    return Kernel(run=run, how="token", views=())


def _static_array(shape: Shape) -> bool:
    return shape.is_array and shape.is_static


def _default_layout(shape: Shape) -> bool:
    """Row-major storage: no layout, or minor_to_major ``(rank-1, ..., 0)`` without tiles."""
    layout = shape.layout
    if layout is None or not layout.minor_to_major:
        return True
    return not layout.tiles and tuple(layout.minor_to_major) == tuple(range(shape.rank))[::-1]


@kernel_for(Opcode.RESHAPE)
def reshape_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Reshape of static shapes: ``numpy.reshape``, a view of a contiguous operand."""
    operand = instr.operands[0].shape
    if not (_static_array(operand) and _static_array(instr.shape)):
        raise NoKernel("dynamic dimensions")
    dims = tuple(instr.shape.dims)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        return operands[0].reshape(dims)  # type: ignore[union-attr]

    return Kernel(
        run=run, how="numpy reshape (a view)", views=(0,), inline=f"{{0}}.reshape({dims})"
    )


@kernel_for(Opcode.BITCAST)
def bitcast_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Bitcast as a view: a reshape when both shapes are stored row-major (or have the same
    dims and layout), a ``numpy.view`` when only the element type changes between types of
    one byte width. Bitcasts through other layouts or widths run the interpreter's eval."""
    source, result = instr.operands[0].shape, instr.shape
    if not (_static_array(source) and _static_array(result)):
        raise NoKernel("dynamic dimensions")
    same_storage = (source.dims == result.dims and source.layout == result.layout) or (
        _default_layout(source) and _default_layout(result)
    )
    if not same_storage:
        raise NoKernel(f"layouts {source} -> {result} reorder the elements")
    dims = tuple(result.dims)
    if source.element_type is result.element_type:

        def run(operands: list[Value], ctx: RunContext) -> Value:
            return operands[0].reshape(dims)  # type: ignore[union-attr]

        return Kernel(
            run=run, how="numpy reshape (a view)", views=(0,), inline=f"{{0}}.reshape({dims})"
        )
    from_type, to_type = source.element_type, result.element_type
    whole_bytes = all(
        t.numpy is not None and not t.is_pred and t.bits == 8 * t.numpy.itemsize
        for t in (from_type, to_type)
    )
    if not (whole_bytes and source.dims == result.dims and from_type.bits == to_type.bits):
        raise NoKernel(f"bit reinterpretation {from_type} -> {to_type} changes widths or dims")
    dtype = to_type.numpy
    assert dtype is not None

    def run_view(operands: list[Value], ctx: RunContext) -> Value:
        return operands[0].view(dtype)  # type: ignore[union-attr]

    return Kernel(run=run_view, how=f"numpy view as {to_type}", views=(0,))


@kernel_for(Opcode.BROADCAST)
def broadcast_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Broadcast of static shapes: ``result[i] = operand[j]``, ``j[d] = 0`` where operand
    dimension ``d`` has size 1, else ``i[dimensions[d]]`` (OPS.md BroadcastInDim): the
    interpreter's steps (the operand's dimensions put in result order, size-1 dimensions
    inserted, ``numpy.broadcast_to``, a row-major copy) with the order settled at compile time. Tried
    after the generated kernels; invalid dimensions are left to the interpreter's eval,
    which reports them."""
    operand = instr.operands[0].shape
    if not (_static_array(operand) and _static_array(instr.shape)):
        raise NoKernel("dynamic dimensions")
    dimensions = [int(d) for d in instr.attrs.dimensions]
    dims = tuple(instr.shape.dims)
    sizes = list(operand.dims)
    valid = (
        len(dimensions) == len(sizes)
        and len(set(dimensions)) == len(sizes)
        and all(
            0 <= r < len(dims) and n in (1, dims[r]) for n, r in zip(sizes, dimensions, strict=True)
        )
    )
    if not valid:
        raise NoKernel(f"broadcast dimensions {dimensions} do not fit {sizes} -> {list(dims)}")
    order = sorted(range(len(sizes)), key=lambda d: dimensions[d])
    expanded = [1] * len(dims)
    for d in order:
        expanded[dimensions[d]] = sizes[d]

    def run(operands: list[Value], ctx: RunContext) -> Value:
        aligned = np.transpose(np.asarray(operands[0]), order).reshape(expanded)
        return np.array(np.broadcast_to(aligned, dims), order="C", copy=True)

    return Kernel(run=run, how="numpy broadcast (a copy)", views=())
