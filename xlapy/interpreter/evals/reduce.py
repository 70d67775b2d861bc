"""Reductions and other ops that run a region body on whole arrays: reduce (variadic,
argmax-style tuple reducers), map and scan.

Spec: OPS.md Reduce, Map, Scan. Window ops live in ``windows.py``. Bodies are run by the same
evaluator on whole arrays (``apply_computation``), since they are nearly always elementwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument, XlaError
from xlapy.interpreter.evals.elementwise import ROWS, apply
from xlapy.interpreter.evaluator import Evaluator, evaluates, evaluator_for
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value
from xlapy.shape import Shape


def _leaves(value: Value) -> list[Value]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def result_shapes(shape: Shape) -> list[Shape]:
    """The array shapes of an op's result: the elements of a tuple, or the shape itself."""
    return list(shape.leaves())


def collate(instr: HloInstruction, arrays: Sequence[Array]) -> Value:
    """``Collate``: one array for a non-tuple result, a tuple of arrays otherwise (OPS A.6)."""
    if instr.shape.is_tuple:
        return tuple(arrays)
    if len(arrays) != 1:
        raise InvalidArgument(
            f"{instr.opcode.value} {instr.name}: result shape {instr.shape} is not a tuple "
            f"but the op produces {len(arrays)} arrays"
        )
    return arrays[0]


def apply_computation(
    ctx: Evaluator, comp: HloComputation, args: Sequence[Array]
) -> tuple[Array, ...]:
    """Runs a computation with scalar parameters elementwise over same-shaped arrays.

    The body is first run once on the whole arrays (bodies are nearly always elementwise);
    if that is impossible (the body reshapes or broadcasts its parameters), it is run once
    per element. Returns one array per leaf of the body's result, each of the broadcast
    shape of ``args`` and of the exact element type of that leaf.
    """
    shape = np.broadcast_shapes(*(a.shape for a in args))
    args = [np.broadcast_to(a, shape) for a in args]
    out_shapes = result_shapes(comp.root.shape)
    dtypes_out = [s.element_type.numpy for s in out_shapes]
    try:
        leaves = _leaves(ctx.call(comp, args))
        if len(leaves) == len(out_shapes) and all(
            isinstance(leaf, np.ndarray) and _broadcastable(leaf.shape, shape) for leaf in leaves
        ):
            return tuple(
                np.broadcast_to(np.asarray(leaf).astype(dt, copy=False), shape)
                for leaf, dt in zip(leaves, dtypes_out, strict=True)
            )
    except XlaError:
        if not shape:
            raise
    if not shape:
        raise InvalidArgument(
            f"computation {comp.name}: its result does not match its root shape {comp.root.shape}"
        )
    # The body is not elementwise on arrays: run it per element.
    results = [np.empty(shape, dtype=dt) for dt in dtypes_out]
    for index in np.ndindex(*shape):  # sequential fallback for non-elementwise bodies
        leaves = _leaves(ctx.call(comp, [np.asarray(a[index]) for a in args]))
        for out, leaf in zip(results, leaves, strict=True):
            out[index] = np.asarray(leaf).reshape(())
    return tuple(results)


def _broadcastable(got: tuple[int, ...], want: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(got, want) == want
    except ValueError:
        return False


# ---- reduce --------------------------------------------------------------------------------

REDUCER_UFUNCS = {
    # The numpy ufunc of each elementwise opcode a reducer/update body may consist of.
    Opcode.ADD: np.add,
    Opcode.MULTIPLY: np.multiply,
    Opcode.MAXIMUM: np.maximum,
    Opcode.MINIMUM: np.minimum,
    Opcode.AND: np.bitwise_and,
    Opcode.OR: np.bitwise_or,
    Opcode.XOR: np.bitwise_xor,
}


def simple_binary_reducer(comp: HloComputation) -> Opcode | None:
    """The opcode of a body ``root = op(p0, p1)`` (either order), or None."""
    root = comp.root
    if root.opcode not in REDUCER_UFUNCS or comp.num_parameters != 2 or len(root.operands) != 2:
        return None
    kinds = {o.opcode for o in root.operands}
    numbers = {o.parameter_number for o in root.operands if o.opcode is Opcode.PARAMETER}
    if kinds != {Opcode.PARAMETER} or numbers != {0, 1}:
        return None
    return root.opcode


def exact_fast_reduce(
    op: Opcode, element_type: dtypes.ElementType, values: Array, init: Array
) -> Array | None:
    """``init op fold(op, values[..., :])`` with numpy when that is bit-exact, else None.

    Exact cases: integers of a native numpy width (the reduction wraps modulo 2^64 and is
    truncated once, which equals wrapping after every step) and pred with and/or/xor/max/min.
    """
    dtype = element_type.numpy
    assert dtype is not None
    if element_type.is_pred:
        if op in (Opcode.ADD, Opcode.MULTIPLY):
            return None
        ufunc = REDUCER_UFUNCS[op]
        return ufunc(init, ufunc.reduce(values, axis=-1)).astype(np.bool_)
    if not element_type.is_integer or dtype.itemsize * 8 != element_type.bits:
        return None
    if op in (Opcode.ADD, Opcode.MULTIPLY):
        wide = np.uint64
        ufunc = REDUCER_UFUNCS[op]
        total = ufunc(init.astype(wide), ufunc.reduce(values.astype(wide), axis=-1))
        return np.asarray(total).astype(dtype)
    ufunc = REDUCER_UFUNCS[op]
    return np.asarray(ufunc(init, ufunc.reduce(values, axis=-1))).astype(dtype)


def tree_reduce(
    ctx: Evaluator, comp: HloComputation, values: Sequence[Array], inits: Sequence[Array]
) -> tuple[Array, ...]:
    """Reduces the last axis of ``values`` (N arrays) with ``comp``; returns N arrays.

    Order (the spec leaves it to the implementation): a pairwise tree over the elements in
    index order — level by level, element 2i is combined with element 2i+1 (lower index on
    the left), an odd last element is carried to the next level — and finally
    ``comp(init, total)``. The body is called log2(n)+1 times on whole arrays. An empty axis
    gives the init values.
    """
    n = values[0].shape[-1]
    batch = values[0].shape[:-1]
    if n == 0:
        return tuple(
            np.broadcast_to(init, batch).astype(v.dtype)
            for init, v in zip(inits, values, strict=True)
        )
    row = _row_combiner(ctx, comp, values)

    def combine(args: list[Array]) -> tuple[Array, ...]:
        return (row(*args),) if row is not None else apply_computation(ctx, comp, args)

    current = list(values)
    while n > 1:
        half = n // 2
        left = [v[..., 0 : 2 * half : 2] for v in current]
        right = [v[..., 1 : 2 * half : 2] for v in current]
        combined = combine([*left, *right])
        if n % 2:
            combined = tuple(
                np.concatenate([c, v[..., -1:]], axis=-1)
                for c, v in zip(combined, current, strict=True)
            )
        current = list(combined)
        n = half + n % 2
    totals = [v[..., 0] for v in current]
    return combine([*(np.broadcast_to(i, batch) for i in inits), *totals])


def _row_combiner(
    ctx: Evaluator, comp: HloComputation, values: Sequence[Array]
) -> Callable[[Array, Array], Array] | None:
    """For a one-value float or complex reduce whose body is ``root = op(p0, p1)`` of an
    elementwise row op (add, multiply, max, ...): the row's generic eval (``elementwise.apply``)
    on the whole arrays, operands in the root's order, without running the body through the
    evaluator at each of the tree's log2(n) levels (its dispatch, checks and copies were most
    of a reduce's time). The same function computes the same bits; None otherwise (the body
    then runs as any computation)."""
    op = simple_binary_reducer(comp)
    if op is None or len(values) != 1:
        return None
    t = dtypes.from_numpy(values[0].dtype)
    if not (t.is_float or t.is_complex) or comp.root.shape.element_type is not t:
        return None
    evaluator_for(op)  # its family module registers the row
    row = ROWS.get(op)
    kernel = row.kernel(t) if row is not None else None
    if row is None or kernel is None:
        return None
    root = comp.root
    swapped = root.operands[0].parameter_number == 1

    def run(a: Array, b: Array) -> Array:
        x, y = (b, a) if swapped else (a, b)
        return apply(ctx, root, kernel, [x, y], [t, t], precise=row.precise,
                     flush_operands=row.flush_operands, flush_result=row.flush_result)  # fmt: skip

    return run


@evaluates(Opcode.REDUCE)
def reduce(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Reduce: applies ``to_apply`` to N arrays in parallel over ``dimensions``.

    Spec: OPS.md Reduce (variadic; the body's arguments are the N running values, then the
    N input values). Order: ``tree_reduce``; integer/pred bodies ``op(p0, p1)`` take an
    exact numpy fast path.
    """
    if len(operands) % 2:
        raise InvalidArgument(
            f"reduce {instr.name}: expects N inputs followed by N init values; "
            f"got {len(operands)} operands"
        )
    n = len(operands) // 2
    inputs = [np.asarray(v) for v in operands[:n]]
    inits = [np.asarray(v) for v in operands[n:]]
    dims = tuple(instr.attrs.dimensions)
    rank = inputs[0].ndim
    if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
        raise InvalidArgument(
            f"reduce {instr.name}: dimensions must be distinct and in [0, {rank}); got {list(dims)}"
        )
    for i, x in enumerate(inputs):
        if x.shape != inputs[0].shape:
            raise InvalidArgument(
                f"reduce {instr.name}: all inputs must have the same shape; "
                f"got {inputs[0].shape} (input 0) and {x.shape} (input {i})"
            )
    kept = [d for d in range(rank) if d not in dims]
    # Move the reduced dimensions last (in increasing order) and flatten them.
    perm = kept + sorted(dims)
    batch = tuple(inputs[0].shape[d] for d in kept)
    size = int(np.prod([inputs[0].shape[d] for d in dims], dtype=np.int64))
    flat = [x.transpose(perm).reshape((*batch, size)) for x in inputs]
    out_types = [s.element_type for s in result_shapes(instr.shape)]
    comp = instr.attrs.to_apply
    if n == 1:
        op = simple_binary_reducer(comp)
        if op is not None and flat[0].dtype == out_types[0].numpy and flat[0].shape[-1]:
            fast = exact_fast_reduce(op, out_types[0], flat[0], inits[0])
            if fast is not None:
                return collate(instr, [np.asarray(fast)])
    results = tree_reduce(ctx, comp, flat, inits)
    return collate(
        instr,
        [
            np.array(r, dtype=t.numpy).reshape(batch)
            for r, t in zip(results, out_types, strict=True)
        ],
    )


# ---- map -----------------------------------------------------------------------------------


@evaluates(Opcode.MAP)
def map_(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Map: ``result[i] = to_apply(operands[0][i], ..., operands[N-1][i])`` at every index.

    Spec: OPS.md Map (StableHLO requires ``dimensions = [0, ..., rank-1]``).
    """
    arrays = [np.asarray(v) for v in operands]
    rank = len(instr.shape.dims)
    dims = tuple(instr.attrs.dimensions)
    if dims and dims != tuple(range(rank)):
        raise InvalidArgument(
            f"map {instr.name}: dimensions must be [0, ..., {rank - 1}]; got {list(dims)}"
        )
    for i, a in enumerate(arrays):
        if a.shape != tuple(instr.shape.dims):
            raise InvalidArgument(
                f"map {instr.name}: every input must have the result's dimensions "
                f"{list(instr.shape.dims)}; got {list(a.shape)} (input {i})"
            )
    (result,) = apply_computation(ctx, instr.attrs.to_apply, arrays)
    return np.array(result, dtype=instr.shape.element_type.numpy)


# ---- scan ----------------------------------------------------------------------------------


@evaluates(Opcode.SCAN)
def scan(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Scan: runs ``to_apply`` along ``dimensions[0]``, threading ``num_carries`` carries.

    Spec: OPS.md Scan. Operands are the m inputs then the k carries; ``to_apply`` takes the
    m current slices (the scan dimension removed) and the k carries and returns n outputs
    then k new carries. The result is the n stacked outputs (each step's output stored at
    the position of the element that produced it) followed by the k final carries.
    ``is_reverse`` walks from N-1 down to 0; ``is_associative`` allows no other order here.
    """
    k = int(instr.attrs.num_carries)
    arrays = [np.asarray(v) for v in operands]
    if not 0 <= k <= len(arrays):
        raise InvalidArgument(
            f"scan {instr.name}: num_carries must be in [0, {len(arrays)}]; got {k}"
        )
    inputs, carries = arrays[: len(arrays) - k], arrays[len(arrays) - k :]
    dims = tuple(instr.attrs.dimensions)
    if len(dims) != 1:
        raise InvalidArgument(f"scan {instr.name}: expects one scan dimension; got {list(dims)}")
    dim = dims[0]
    out_shapes = result_shapes(instr.shape)
    n_out = len(out_shapes) - k
    if n_out < 0:
        raise InvalidArgument(
            f"scan {instr.name}: the result has {len(out_shapes)} arrays, fewer than "
            f"num_carries={k}"
        )
    if inputs:
        length = inputs[0].shape[dim]
    elif n_out:
        length = out_shapes[0].dims[dim]
    else:
        length = 0
    steps = range(length - 1, -1, -1) if instr.attrs.is_reverse else range(length)
    outputs: list[list[Array]] = [[] for _ in range(n_out)]
    positions: list[int] = []
    comp = instr.attrs.to_apply
    for step in steps:  # sequential by spec
        slices = [np.asarray(np.take(x, step, axis=dim)) for x in inputs]
        leaves = _leaves(ctx.call(comp, [*slices, *carries]))
        if len(leaves) != n_out + k:
            raise InvalidArgument(
                f"scan {instr.name}: to_apply must return {n_out} outputs and {k} carries; "
                f"got {len(leaves)} values"
            )
        for out, leaf in zip(outputs, leaves[:n_out], strict=True):
            out.append(np.asarray(leaf))
        carries = [np.asarray(c) for c in leaves[n_out:]]
        positions.append(step)
    order = np.argsort(positions)
    results: list[Array] = []
    for out, shape in zip(outputs, out_shapes[:n_out], strict=True):
        dtype = shape.element_type.numpy
        if out:
            stacked = np.stack([out[i] for i in order], axis=dim).astype(dtype)
        else:
            stacked = np.zeros(shape.dims, dtype=dtype)
        results.append(stacked)
    for carry, shape in zip(carries, out_shapes[n_out:], strict=True):
        results.append(np.array(carry, dtype=shape.element_type.numpy))
    return collate(instr, results)
