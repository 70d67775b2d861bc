"""``scatter`` as statements of a generated kernel (a whole-loop while kernel's body: JAX's LU
pivoting swaps two entries of a permutation per iteration with two scatters).

A scatter has no element generator (an element of its result depends on every update that
may land on it); here it is a block of the kernel: its input copied into a temporary, then
every update combined into it in the interpreter's order, scatter positions row-major and
each window row-major, a window skipped unless it fits whole (XLA)::

    for j0 in range(16):                     # the input, from its element generator
        for j1 in range(32):
            scatter_3[U(j0 * 32 + j1)] = ...
    for s0 in range(16):                     # the scatter positions
        scatter_3_start0 = np.int64(...)     # index vector entries
        if 0 <= scatter_3_start0 <= 31:
            scatter_3_at = scatter_3_start0 * 1
            acc = scatter_3[U(scatter_3_at + s0 * 32)]
            acc = <update computation>(acc, <update element>)
            scatter_3[U(scatter_3_at + s0 * 32)] = acc

Later reads of the scatter read the temporary. A scatter whose input is another scatter
read by nothing else updates that one's temporary in place (JAX's swap: two scatters in a
row). The update computation is generated inline, in the element's own type, so the
result is the interpreter's, bit for bit.
"""

from __future__ import annotations

import math

from xlapy import dtypes
from xlapy.backend.cpu.codegen import numba_types
from xlapy.backend.cpu.codegen.elemental import wrap
from xlapy.backend.cpu.codegen.loop_emitter import Frame, KernelArg, KernelEmitter, Val
from xlapy.backend.cpu.codegen.reduction_emitter import nested_loops
from xlapy.backend.cpu.codegen.while_arrays import array_reader
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.indexing.affine import AffineExpr, constant
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

_INT64_MAX = (1 << 63) - 1


def materialize_scatter(
    em: KernelEmitter, frame: Frame, scatter: HloInstruction, temps: dict[int, KernelArg]
) -> None:
    """Emits ``scatter`` into ``frame`` and binds its elements to the temporary holding its
    result; ``temps`` maps the scatters already emitted (by id) to their temporaries.

    Raises:
        NoKernel: several inputs (a tuple result), an element type kernels do not compile,
            non-integer indices, or an operand or update computation without element
            generators.
    """
    n = (len(scatter.operands) - 1) // 2
    if n != 1:
        raise NoKernel(f"scatter {scatter.name}: {n} inputs (a tuple result)")
    operand, indices, updates = scatter.operands
    where = f"scatter {scatter.name}"
    t = scatter.shape.element_type
    numba_types.check(t, where)
    if not indices.shape.element_type.is_integer:
        raise NoKernel(f"{where}: indices of type {indices.shape.element_type}")
    dims = tuple(scatter.shape.dims)
    temp = temps.get(id(operand))
    comp = operand.parent
    if temp is None or comp.users(operand) != [scatter] or operand is comp.root:
        temp = em.scratch(scatter.name, t, math.prod(dims))
        # A copy of a parameter walks one flat loop (a memory copy); a computed operand is
        # indexed by its loop indices, which a flat loop would rebuild by division.
        copy = operand.opcode in (Opcode.PARAMETER, Opcode.GET_TUPLE_ELEMENT)
        loops = em.flat_loop(dims) if copy else em.output_loops(dims, False, "j")
        with em.enter(frame), loops as index:
            value = em.scalar(operand, index)
            em.emit_in(em.current, em.store_text(temp, em.flat_index(index, dims), value.text))
    temps[id(scatter)] = temp
    if math.prod(dims) and math.prod(updates.shape.dims):
        _updates(em, frame, scatter, temp)
    em.bindings[id(scatter)] = array_reader(em, temp, dims)


def _updates(em: KernelEmitter, frame: Frame, scatter: HloInstruction, temp: KernelArg) -> None:
    """The loops combining every update of ``scatter`` into ``temp`` (OPS.md Scatter:
    ``result_index = full_start_index + full_batching_index + full_window_index``)."""
    a = scatter.attrs
    _, indices, updates = scatter.operands
    dims = tuple(scatter.shape.dims)
    rank = len(dims)
    strides = [math.prod(dims[d + 1 :]) for d in range(rank)]
    update_dims = tuple(updates.shape.dims)
    window_update = tuple(a.update_window_dims)
    update_scatter = [d for d in range(len(update_dims)) if d not in window_update]
    window_operand = [
        d for d in range(rank) if d not in a.inserted_window_dims and d not in a.input_batching_dims
    ]
    window_size = [1] * rank
    for d, u in zip(window_operand, window_update, strict=True):
        window_size[d] = update_dims[u]
    ivd = int(a.index_vector_dim)
    index_rank = indices.shape.rank
    name = em.fresh(scatter.name)
    positions = [update_dims[d] for d in update_scatter]
    with em.enter(frame), nested_loops(em, frame, f"{name}_s", positions) as scatter_index:
        vector: list[AffineExpr] = list(scatter_index)
        # Index vector entry k, and the operand dimension it starts (the last entry naming a
        # dimension wins, as the interpreter's full_start_index).
        starts: dict[int, Val] = {}
        tests = []
        for k, d in enumerate(a.scatter_dims_to_operand_dims):
            at = list(vector)
            if ivd < index_rank:
                at.insert(ivd, constant(k))
            entry = em.scalar(indices, tuple(at))
            text = entry.text
            if entry.type.is_unsigned and entry.type.bits == 64:
                text = f"min({text}, np.uint64({_INT64_MAX}))"
            start = em.emit(f"{name}_start{k}", f"np.int64({text})", dtypes.S64, [entry])
            starts[d] = start
            tests.append(f"0 <= {start.text} <= {dims[d] - window_size[d]}")
        base = " + ".join(f"{s.text} * {strides[d]}" for d, s in starts.items()) or "0"
        corner = em.emit(f"{name}_at", f"np.int64({base})", dtypes.S64, list(starts.values()))
        fits = Frame(f"if {' and '.join(tests) or 'True'}:", em.current, branch=True)
        em.current.items.append(fits)
        batch_axes = [d if d < ivd else d - 1 for d in a.scatter_indices_batching_dims]
        fixed: AffineExpr = constant(0)
        for operand_dim, axis in zip(a.input_batching_dims, batch_axes, strict=True):
            fixed = fixed + scatter_index[axis] * strides[operand_dim]
        window_shape = [update_dims[u] for u in window_update]
        with em.enter(fits), nested_loops(em, fits, f"{name}_w", window_shape) as window:
            offset = fixed
            for d, w in zip(window_operand, window, strict=True):
                offset = offset + w * strides[d]
            (offset,) = em.simplify([offset])
            target = f"U({corner.text} + {em.render(offset)})"
            update_index = [constant(0)] * len(update_dims)
            for d, s in zip(update_scatter, scatter_index, strict=True):
                update_index[d] = s
            for d, w in zip(window_update, window, strict=True):
                update_index[d] = w
            update = em.scalar(updates, tuple(update_index))
            current = em.emit(
                f"{name}_current", f"{temp.name}[{target}]", temp.type, [corner], [offset]
            )
            value = _apply(em, scatter, current, update)
            em.emit_in(em.current, f"{temp.name}[{target}] = {value}")


def _apply(em: KernelEmitter, scatter: HloInstruction, current: Val, update: Val) -> str:
    """Source of ``update_computation(current, update)`` in the element type (its root
    generated inline, its parameters bound by number)."""
    comp: HloComputation = scatter.attrs.to_apply
    values = (current, update)
    for param in comp.parameters:
        if param.parameter_number > 1:
            raise NoKernel(f"scatter {scatter.name}: {comp.name} takes more than two values")
        em.bindings[id(param)] = lambda index, v=values[param.parameter_number]: v
    try:
        with em.scope(comp.instructions):
            result = em.scalar(comp.root, ())
    finally:
        for param in comp.parameters:
            em.bindings.pop(id(param), None)
    return wrap(em, scatter.shape.element_type, result.text)


def materialize_scatters(
    em: KernelEmitter, frame: Frame, instructions: list[HloInstruction]
) -> int:
    """Every ``scatter`` of ``instructions`` (in post-order) as statements of ``frame``;
    returns how many."""
    temps: dict[int, KernelArg] = {}
    for instr in instructions:
        if instr.opcode is Opcode.SCATTER:
            materialize_scatter(em, frame, instr, temps)
    return len(temps)
