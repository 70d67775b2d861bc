"""Shape ops: constant, iota, tuple, get-tuple-element, broadcast, reshape, transpose,
bitcast (layout-aware), and the value-preserving ops opt-barrier, domain, add-dependency and
after-all.

Spec: OPS.md Constant, Iota, Tuple, GetTupleElement, Broadcast/BroadcastInDim, Reshape,
Transpose, Bitcast, OptimizationBarrier, Domain, AddDependency, AfterAll. Copy lives with the
elementwise ops (``convert.py``); slicing ops in ``slicing.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.interpreter.evals.convert import convert_values, from_bits, to_bits
from xlapy.interpreter.evals.slicing import array_operand, error
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import TOKEN, Array, Value, shape_of
from xlapy.shape import UNBOUNDED, Layout, Shape

# ---- constant, iota ------------------------------------------------------------------------


@evaluates(Opcode.CONSTANT)
def constant(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Constant: the value of ``literal`` (never mutated by any eval, so not copied).

    Spec: OPS.md Constant; stablehlo#constant.
    """
    literal = instr.attrs.literal
    if literal.elided:
        raise InvalidArgument(
            f"constant {instr.name}: the program text elides this constant's values ({{...}}), "
            f"so it cannot run; print it with large constants (e.g. XLA's "
            f"print_large_constants) to keep them"
        )
    value: Value = literal.value
    return value


def iota_values(shape: Shape, dims: Sequence[int], iota_dimension: int) -> Array:
    """``result[result_index] = result_index[iota_dimension]`` converted to the element type
    of ``shape`` (integers wrap, floats round to nearest even, pred is ``index != 0``,
    complex has a zero imaginary part)."""
    positions = np.arange(dims[iota_dimension], dtype=np.int64)
    broadcast = [1] * len(dims)
    broadcast[iota_dimension] = dims[iota_dimension]
    values = convert_values(positions, dtypes.S64, shape.element_type, flush=False)
    return np.array(np.broadcast_to(np.reshape(values, broadcast), tuple(dims)))


@evaluates(Opcode.IOTA)
def iota(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Iota: ``result[i_0, ..., i_n] = i_{iota_dimension}`` in the result element type.

    Spec: OPS.md Iota (floats equal ConvertElementType of an integer iota); stablehlo#iota C1.
    """
    shape = instr.shape
    iota_dimension = instr.attrs.iota_dimension
    if not 0 <= iota_dimension < shape.rank:
        raise error(
            instr, "C1", f"iota_dimension must be in [0, {shape.rank})", str(iota_dimension)
        )
    if UNBOUNDED in shape.dims:
        raise error(instr, "", "iota needs a bounded result shape", shape.to_hlo())
    return iota_values(shape, shape.dims, iota_dimension)


# ---- tuples and pass-through ops -----------------------------------------------------------


@evaluates(Opcode.TUPLE)
def tuple_(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Tuple: ``(val_0, ..., val_{N-1})``. Spec: OPS.md Tuple; stablehlo#tuple."""
    return tuple(operands)


@evaluates(Opcode.GET_TUPLE_ELEMENT)
def get_tuple_element(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """GetTupleElement: element ``index`` of the tuple.

    Spec: OPS.md GetTupleElement; stablehlo#get_tuple_element C1.
    """
    (operand,) = operands
    index = int(instr.attrs.index)
    if not isinstance(operand, tuple) or not 0 <= index < len(operand):
        got = shape_of(operand).to_hlo(layout=False)
        raise error(instr, "C1", f"index {index} must select an element of a tuple", got)
    element: Value = operand[index]
    return element


@evaluates(Opcode.OPTIMIZATION_BARRIER, Opcode.DOMAIN)
def identity(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """OptimizationBarrier and Domain: the operand unchanged (value-wise identities).

    Spec: OPS.md OptimizationBarrier, Domain; stablehlo#optimization_barrier.
    """
    (operand,) = operands
    return operand


@evaluates(Opcode.ADD_DEPENDENCY)
def add_dependency(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """AddDependency: ``data`` unchanged; the token only orders execution.

    Spec: OPS.md AddDependency.
    """
    return operands[0]


@evaluates(Opcode.AFTER_ALL)
def after_all(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """AfterAll: a token ordered after every input token. Spec: OPS.md AfterAll."""
    return TOKEN


# ---- broadcast -----------------------------------------------------------------------------


def broadcast_in_dim(
    instr: HloInstruction,
    operand: Array,
    result_dims: Sequence[int],
    broadcast_dimensions: Sequence[int],
) -> Array:
    """``result[result_index] = operand[operand_index]`` with
    ``operand_index[d] = 0 if dim(operand, d) == 1 else result_index[broadcast_dimensions[d]]``.

    Spec: stablehlo#broadcast_in_dim C2-C5 (HLO broadcast has the same ``dimensions``).
    """
    rank = len(result_dims)
    if len(broadcast_dimensions) != operand.ndim:
        raise error(
            instr,
            "C2",
            f"broadcast_dimensions must have one entry per operand dimension ({operand.ndim})",
            str(list(broadcast_dimensions)),
        )
    if len(set(broadcast_dimensions)) != operand.ndim or any(
        not 0 <= d < rank for d in broadcast_dimensions
    ):
        raise error(
            instr,
            "C3-C4",
            f"broadcast_dimensions must be unique and in [0, {rank})",
            str(list(broadcast_dimensions)),
        )
    for d, (n, r) in enumerate(zip(operand.shape, broadcast_dimensions, strict=True)):
        if n != 1 and n != result_dims[r]:
            raise error(
                instr,
                "C5",
                f"operand dimension {d} must be 1 or equal result dimension {r}",
                f"operand {list(operand.shape)}, result {list(result_dims)}",
            )
    # Put the operand's dimensions in result order, then insert size-1 dimensions.
    order = sorted(range(operand.ndim), key=lambda d: broadcast_dimensions[d])
    expanded = [1] * rank
    for d in order:
        expanded[broadcast_dimensions[d]] = operand.shape[d]
    aligned = np.transpose(operand, order).reshape(expanded)
    return np.array(np.broadcast_to(aligned, tuple(result_dims)), copy=True)


@evaluates(Opcode.BROADCAST)
def broadcast(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Broadcast: operand dimension ``d`` maps to result dimension ``dimensions[d]``; size-1
    operand dimensions and the result dimensions no operand dimension maps to are replicated.

    Spec: OPS.md BroadcastInDim (HLO ``broadcast``); stablehlo#broadcast_in_dim. A dynamic
    result dimension takes the runtime size of the operand dimension mapped to it.
    """
    operand = array_operand(instr, operands[0], "operand")
    dimensions = tuple(instr.attrs.dimensions)
    shape = instr.shape
    result_dims = list(shape.dims)
    for d, r in enumerate(dimensions):
        mapped = 0 <= r < shape.rank and shape.dynamic[r] and d < operand.ndim
        if mapped and (operand.shape[d] != 1 or instr.operands[0].shape.dynamic[d]):
            result_dims[r] = operand.shape[d]
    if UNBOUNDED in result_dims:
        raise error(instr, "", "unbounded result dimensions need an operand dimension", str(shape))
    return broadcast_in_dim(instr, operand, result_dims, dimensions)


# ---- reshape, transpose --------------------------------------------------------------------


def _reshape_dims(instr: HloInstruction, operand: Array) -> list[int]:
    """The runtime result dims of a reshape: the static ones; one dynamic dimension inferred
    from the operand's element count; several dynamic ones matched in order with the
    operand's dims other than 1 (a reshape that only adds or removes size-1 dimensions)."""
    shape = instr.shape
    dims = list(shape.dims)
    dynamic = [i for i, dyn in enumerate(shape.dynamic) if dyn]
    if len(dynamic) == 1:
        rest = math.prod(n for i, n in enumerate(dims) if i != dynamic[0])
        if rest and operand.size % rest == 0:
            dims[dynamic[0]] = operand.size // rest
    elif dynamic and operand.size != math.prod(dims):
        source = [n for n in operand.shape if n != 1]
        target = [i for i, n in enumerate(dims) if n != 1]
        if len(source) == len(target):
            for i, n in zip(target, source, strict=True):
                dims[i] = n if shape.dynamic[i] else dims[i]
    return dims


@evaluates(Opcode.RESHAPE)
def reshape(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Reshape: the operand's elements in row-major order, refined into the result dims.

    Spec: OPS.md Reshape; stablehlo#reshape C1 (element counts equal).
    """
    operand = array_operand(instr, operands[0], "operand")
    dims = _reshape_dims(instr, operand)
    if math.prod(dims) != operand.size or any(n < 0 for n in dims):
        raise error(
            instr,
            "C1",
            "the result must have as many elements as the operand",
            f"operand {list(operand.shape)} ({operand.size} elements) for result {instr.shape}",
        )
    return np.array(operand.reshape(dims), copy=True)


@evaluates(Opcode.TRANSPOSE)
def transpose(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Transpose: ``result[result_index] = operand[operand_index]`` with
    ``result_index[d] = operand_index[permutation[d]]``.

    Spec: OPS.md Transpose; stablehlo#transpose C2.
    """
    operand = array_operand(instr, operands[0], "operand")
    permutation = tuple(instr.attrs.dimensions)
    if sorted(permutation) != list(range(operand.ndim)):
        raise error(
            instr,
            "C2",
            f"permutation must be a permutation of [0, {operand.ndim})",
            str(list(permutation)),
        )
    return np.array(np.transpose(operand, permutation), order="C")


# ---- bitcast -------------------------------------------------------------------------------


def _major_to_minor(layout: Layout | None, rank: int) -> list[int]:
    if layout is None or not layout.minor_to_major:
        return list(range(rank))
    if layout.tiles:
        raise Unimplemented(f"bitcast of tiled layouts is not supported; got layout {layout}")
    return list(reversed(layout.minor_to_major))


@evaluates(Opcode.BITCAST)
def bitcast(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Bitcast: reinterprets the operand's buffer (its physical layout) as the result shape.

    Spec: OPS.md Bitcast. The operand's elements are read in physical order (dimensions
    major to minor per its layout), reinterpreted as a bit stream when the element type
    changes, and written in the result's physical order. With equal types and default
    layouts this is a reshape.
    """
    operand = array_operand(instr, operands[0], "operand")
    source_shape = instr.operands[0].shape
    result_shape = instr.shape
    target = result_shape.element_type
    source = dtypes.from_numpy(operand.dtype)
    if UNBOUNDED in result_shape.dims or not result_shape.is_static:
        raise error(instr, "", "bitcast needs a static result shape", str(result_shape))
    if (
        source_shape.dims == result_shape.dims
        and source_shape.layout == result_shape.layout
        and source.bits == target.bits
    ):
        # Same dims and layout: an elementwise reinterpretation of the bits (this also runs
        # comparator bodies evaluated on whole arrays, e.g. XLA's f32[] -> s32[] bitcast).
        if source is target:
            return np.array(operand, copy=True)
        bits = to_bits(operand, source.bits).reshape((*operand.shape, source.bits))
        return np.asarray(from_bits(bits, target)).reshape(operand.shape)
    source_order = _major_to_minor(source_shape.layout, operand.ndim)
    physical = np.transpose(operand, source_order).reshape(-1)
    if source is not target:
        bits = to_bits(physical, source.bits).reshape(-1)
        if bits.size != result_shape.num_elements * target.bits:
            raise error(
                instr,
                "",
                "operand and result must have the same size in bits",
                f"{source_shape} and {result_shape}",
            )
        physical = from_bits(bits.reshape(-1, target.bits), target)
    elif physical.size != result_shape.num_elements:
        raise error(
            instr,
            "",
            "operand and result must have the same number of elements",
            f"{source_shape} and {result_shape}",
        )
    result_order = _major_to_minor(result_shape.layout, result_shape.rank)
    stored = physical.reshape([result_shape.dims[d] for d in result_order])
    inverse = [result_order.index(d) for d in range(result_shape.rank)]
    return np.array(np.transpose(stored, inverse), order="C")
