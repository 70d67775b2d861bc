"""What the gather and scatter kernels share, in numpy alone (the quick tier's scatter,
``scatter_numpy``, imports no numba): how index vectors become flat operand offsets
(``Geometry``), the index array as a ``[positions, entries]`` matrix, and which scatter update
computations the kernels recognise (``combiner``: replacement or one binary op, per element
type).

Gather clamps start indices (stablehlo#gather); scatter skips a window that does not fit
(XLA). The records are named tuples: every quick tier's ``xlapy.compile`` imports this module
(``kernel.QUICK_MODULES``), and a frozen dataclass costs about ten times more to define.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType
from xlapy.interpreter.evals.gather_scatter import replaces
from xlapy.interpreter.evals.reduce import simple_binary_reducer
from xlapy.interpreter.evals.slicing import index_values
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array
from xlapy.shape import Shape

# ---- index geometry ------------------------------------------------------------------------


class Geometry(NamedTuple):
    """How positions of the index array become flat operand offsets.

    Attributes:
        positions: number of index vectors (``batch``/``scatter`` positions, row-major).
        index_dims: operand dimension of each index vector entry (``start_index_map``).
        upper: largest allowed start per entry (``dim - window size``).
        batch_div, batch_mod, batch_dims: per batching pair, the batch coordinate of position
            ``s`` is ``s // div % mod`` and it indexes operand dimension ``batch_dims[j]``.
        window_offsets: flat operand offset of every window element (row-major window).
    """

    positions: int
    index_dims: tuple[int, ...]
    upper: tuple[int, ...]
    batch_div: tuple[int, ...]
    batch_mod: tuple[int, ...]
    batch_dims: tuple[int, ...]
    window_offsets: Array


def row_strides(dims: Sequence[int]) -> list[int]:
    """Row-major element strides."""
    out, step = [], 1
    for n in reversed(dims):
        out.append(step)
        step *= n
    return out[::-1]


def index_geometry(
    operand_dims: Sequence[int],
    index_shape: Sequence[int],
    index_vector_dim: int,
    index_map: Sequence[int],
    operand_batching: Sequence[int],
    index_batching: Sequence[int],
    window_dims: Sequence[int],
    window_shape: Sequence[int],
    window_size: Sequence[int],
) -> Geometry:
    """The geometry of a gather/scatter; ``window_dims``/``window_shape`` are the operand
    dimensions the window spans and its sizes, ``window_size`` every dimension's window
    extent (1 for collapsed/inserted and batching dimensions)."""
    batch_shape = [n for d, n in enumerate(index_shape) if d != index_vector_dim]
    strides = row_strides(operand_dims)
    inner = row_strides(batch_shape)
    div, mod = [], []
    for index_dim in index_batching:
        axis = index_dim if index_dim < index_vector_dim else index_dim - 1
        div.append(inner[axis])
        mod.append(batch_shape[axis])
    offsets = np.zeros(window_shape, np.int64)
    for k, d in enumerate(window_dims):
        shape = [1] * len(window_shape)
        shape[k] = window_shape[k]
        offsets = offsets + (np.arange(window_shape[k], dtype=np.int64) * strides[d]).reshape(shape)
    return Geometry(
        positions=math.prod(batch_shape),
        index_dims=tuple(index_map),
        upper=tuple(operand_dims[d] - window_size[d] for d in index_map),
        batch_div=tuple(div),
        batch_mod=tuple(mod),
        batch_dims=tuple(operand_batching),
        window_offsets=np.ascontiguousarray(offsets.reshape(-1)),
    )


def index_matrix(indices: Array, index_vector_dim: int, positions: int, entries: int) -> Array:
    """The index array as ``[positions, entries]`` with native integer elements (u64 values
    above INT64_MAX saturate, as the interpreter's index_values)."""
    if indices.dtype == np.uint64 or indices.dtype == np.bool_ or indices.dtype.kind not in "iu":
        indices = index_values(indices)
    if index_vector_dim >= indices.ndim - 1:  # already [positions..., entries]
        return np.ascontiguousarray(indices).reshape(positions, entries)
    moved = np.moveaxis(indices, index_vector_dim, -1)
    return np.ascontiguousarray(moved).reshape(positions, entries)


def geometry_arrays(geometry: Geometry, operand_dims: Sequence[int]) -> tuple[Array, ...]:
    """``(strides, upper, batch_div, batch_mod, batch_strides)`` as int64 arrays: per index
    vector entry its operand stride and largest start, per batching pair its decoding and
    operand stride."""
    strides = row_strides(operand_dims)
    i64 = np.int64
    return (
        np.array([strides[d] for d in geometry.index_dims], i64),
        np.array(geometry.upper, i64),
        np.array(geometry.batch_div, i64),
        np.array(geometry.batch_mod, i64),
        np.array([strides[d] for d in geometry.batch_dims], i64),
    )


def index_dtype(t: ElementType) -> np.dtype:
    """The dtype ``index_matrix`` gives indices of type ``t``."""
    native = np.dtype(t.numpy)
    if native == np.uint64 or native == np.bool_ or native.kind not in "iu":
        return np.dtype(np.int64)
    return native


def unit_dtype(dtype: np.dtype) -> tuple[np.dtype, int]:
    """A numba-friendly unsigned dtype to move elements of ``dtype`` through, and how many
    of its units one element is (2 for 16-byte complex numbers)."""
    if dtype.itemsize == 16:
        return np.dtype(np.uint64), 2
    return np.dtype(f"u{dtype.itemsize}"), 1


def require_static(instr: HloInstruction, *shapes: Shape) -> None:
    """NoKernel unless every shape is a static array."""
    if any(not (s.is_array and s.is_static) for s in shapes):
        raise NoKernel("non-array or dynamic operands")


def target_buffer(x: Array, donated: bool) -> Array:
    """The buffer to scatter into: the donated input itself when it can be written in place."""
    if donated and x.flags.c_contiguous and x.flags.writeable:
        return x
    return np.array(x, copy=True, order="C")


# ---- scatter update computations -----------------------------------------------------------

# Combiners (the update computation's root applied to (current, update)).
REPLACE, ADD, MUL, MAX, MIN, AND, OR, XOR, FMAX, FMIN = range(10)
COMBINER_NAMES = ("replace", "add", "multiply", "max", "min", "and", "or", "xor")
COMBINER_NAMES += ("IEEE max", "IEEE min")

_OPS = {
    Opcode.ADD: ADD,
    Opcode.MULTIPLY: MUL,
    Opcode.MAXIMUM: MAX,
    Opcode.MINIMUM: MIN,
    Opcode.AND: AND,
    Opcode.OR: OR,
    Opcode.XOR: XOR,
}
_PRED_OPS = {ADD: OR, MUL: AND, MAX: OR, MIN: AND, AND: AND, OR: OR, XOR: XOR}
_NATIVE_FLOATS = (dtypes.F32, dtypes.F64)


def combiner(
    comp: HloComputation, n: int, t: ElementType, flush: bool, half_floats: bool = False
) -> tuple[int, bool]:
    """``(op, swapped)`` of a recognised update computation for element type ``t``:
    replacement of any type; one binary op of native-width integers and of pred (as
    or/and/xor); add/multiply/IEEE max/min of f32 and f64, add/multiply of f16 with
    ``half_floats`` (numpy's, computed in f32 and rounded once: the correctly rounded result,
    f32 having more than twice its precision, NaNs as the interpreter's; not its max/min,
    whose NaNs the interpreter quiets through f32, nor bf16, whose ml_dtypes add gives NaNs
    another sign), not under ``flush``; add of complex numbers. ``swapped``: the
    computation applies the op to (update, current)."""
    if replaces(comp, n):
        return REPLACE, False
    op = simple_binary_reducer(comp) if n == 1 else None
    if op is None or op not in _OPS:
        raise NoKernel("update computation is not a replacement or one binary op")
    code = _OPS[op]
    swapped = comp.root.operands[0].parameter_number == 1
    if t.is_pred:
        return _PRED_OPS[code], False
    native_int = t.is_integer and t.bits == 8 * np.dtype(t.numpy).itemsize
    if native_int:
        return code, swapped
    half = half_floats and t == dtypes.F16 and code in (ADD, MUL)
    if half or t in _NATIVE_FLOATS or (t.is_complex and code == ADD):
        if flush:
            raise NoKernel("floats under flush_denormals")
        if code in (AND, OR, XOR):
            raise NoKernel(f"{op.value} of {t}")
        return {MAX: FMAX, MIN: FMIN}.get(code, code), swapped
    raise NoKernel(f"{op.value} of {t} (only replacement moves narrow/complex types)")


class ScatterLayout(NamedTuple):
    """A scatter the kernels run, checked.

    Attributes:
        inputs: the number of inputs (and of updates).
        op, swapped: the update computation (``combiner``).
        geometry: scatter positions -> flat offsets of the input (``Geometry``).
        update_order: the updates' dimensions as the kernels read them: scatter dimensions,
            then window dimensions (row-major positions, each window row-major).
        index_vector_dim: of the scatter indices.
        operand_dims: the inputs' dimensions.
    """

    inputs: int
    op: int
    swapped: bool
    geometry: Geometry
    update_order: tuple[int, ...]
    index_vector_dim: int
    operand_dims: tuple[int, ...]


def scatter_layout(instr: HloInstruction, flush: bool, half_floats: bool = False) -> ScatterLayout:
    """The layout of a scatter with a recognised update computation (``combiner``; NoKernel
    otherwise, or when its operands disagree: the interpreter reports those)."""
    n = (len(instr.operands) - 1) // 2
    shapes = [o.shape for o in instr.operands]
    require_static(instr, *shapes)
    if len(shapes) != 2 * n + 1 or n < 1:
        raise NoKernel("operand count (the interpreter reports it)")
    t = shapes[0].element_type
    if any(s.dims != shapes[0].dims for s in shapes[1:n]) or any(
        s.element_type is not shapes[i].element_type for i, s in enumerate(shapes[n + 1 :])
    ):
        raise NoKernel("inputs and updates of different types or shapes")
    op, swapped = combiner(instr.attrs.to_apply, n, t, flush, half_floats)
    a = instr.attrs
    dims = shapes[0].dims
    rank = len(dims)
    update_dims = shapes[n + 1].dims
    window_update = tuple(a.update_window_dims)
    inserted = tuple(a.inserted_window_dims)
    input_batching = tuple(a.input_batching_dims)
    ivd = int(a.index_vector_dim)
    window_dims = [d for d in range(rank) if d not in inserted and d not in input_batching]
    window_shape = [update_dims[d] for d in window_update]
    if len(window_dims) != len(window_shape):
        raise NoKernel("window dims disagree (the interpreter reports it)")
    window_size = [1] * rank
    for d, size in zip(window_dims, window_shape, strict=True):
        window_size[d] = size
    geometry = index_geometry(
        dims,
        shapes[n].dims,
        ivd,
        tuple(a.scatter_dims_to_operand_dims),
        input_batching,
        tuple(a.scatter_indices_batching_dims),
        window_dims,
        window_shape,
        window_size,
    )
    update_scatter = [d for d in range(len(update_dims)) if d not in window_update]
    return ScatterLayout(
        inputs=n,
        op=op,
        swapped=swapped,
        geometry=geometry,
        update_order=(*update_scatter, *window_update),
        index_vector_dim=ivd,
        operand_dims=tuple(dims),
    )
