"""The quick tier's ``scatter`` (numpy alone, no numba to import or compile): the scatters the
compiled kernel runs (``scatter_gather_rules.combiner``), with its bits, and f16 add and
multiply, with the interpreter's.

Every update element goes to ``result_index = full_start_index + full_batching_index +
full_window_index`` (OPS.md Scatter), a window skipped unless it fits whole (XLA), the
updates of one target taken in index order (scatter positions row-major, then each window
row-major), as the compiled loop takes them:

- replacement (any type, any number of inputs): the last update of each target wins;
- add, multiply, max, min, and, or, xor of native-width integers, add/multiply of f32, f64
  and f16, add of complex numbers, pred's or/and/xor: ``ufunc.at``, which combines the
  updates one at a time in index order, each result in the element's own type (integers
  wrap; f16 computed in f32 and rounded once, the correctly rounded result);
- IEEE max/min of f32/f64 (``combiner``'s FMAX/FMIN, the interpreter's maximum/minimum:
  the first NaN operand wins, -0 < +0): without NaNs the result is the largest (smallest)
  value in the total order of the bits, whatever the order; a NaN current value stays, and
  a NaN update wins: the first NaN update of a target (the last one when the computation
  takes (update, current)).

As the compiled kernel, a float add or multiply of two NaNs may keep either payload. The
compiled tier's numba loop declines f16 arithmetic; there this kernel (lower priority) runs
it, rather than the interpreter's eval.
"""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, RunContext, kernel_for
from xlapy.backend.cpu.kernels.scatter_gather_rules import (
    ADD,
    AND,
    COMBINER_NAMES,
    FMAX,
    FMIN,
    MAX,
    MIN,
    MUL,
    OR,
    REPLACE,
    XOR,
    ScatterLayout,
    geometry_arrays,
    index_matrix,
    scatter_layout,
    target_buffer,
    unit_dtype,
)
from xlapy.interpreter.numerics import order_keys
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

_UFUNCS = {
    ADD: np.add,
    MUL: np.multiply,
    MAX: np.maximum,
    MIN: np.minimum,
    AND: np.bitwise_and,
    OR: np.bitwise_or,
    XOR: np.bitwise_xor,
}


def _targets(layout: ScatterLayout, indices: Array) -> tuple[Array, Array]:
    """``(targets, fits)``: the flat input offset of every update element of the windows that
    fit, in index order, and which scatter positions' windows fit."""
    geometry = layout.geometry
    strides, upper, batch_div, batch_mod, batch_strides = geometry_arrays(
        geometry, layout.operand_dims
    )
    entries = len(geometry.index_dims)
    starts = index_matrix(indices, layout.index_vector_dim, geometry.positions, entries)
    starts = starts.astype(np.int64, copy=False)
    fits = np.all((starts >= 0) & (starts <= upper), axis=1)
    bases = starts @ strides if entries else np.zeros(geometry.positions, np.int64)
    if batch_div.size:
        positions = np.arange(geometry.positions, dtype=np.int64)
        for div, mod, stride in zip(batch_div, batch_mod, batch_strides, strict=True):
            bases += positions // div % mod * stride
    bases = bases[fits]
    return (bases[:, None] + geometry.window_offsets).reshape(-1), fits


def _winners(targets: Array, last: bool) -> tuple[Array, Array]:
    """``(hit, which)``: the distinct targets in ``targets`` and, for each, the position in
    ``targets`` of its last (``last``) or first occurrence (a stable sort of the updates, not
    an array as large as the input: a few updates into a large input stay cheap)."""
    if not last:
        hit, which = np.unique(targets, return_index=True)  # first occurrences
        return hit, which
    hit, from_end = np.unique(targets[::-1], return_index=True)
    return hit, targets.size - 1 - from_end


def _ieee_extremum(result: Array, targets: Array, values: Array, op: int, swapped: bool) -> None:
    """``result[t] = max(result[t], u)`` (FMAX; FMIN: min) for every target and update in
    order, as the interpreter's IEEE maximum/minimum of (current, update), or of (update,
    current) when ``swapped``; computed on the bits of the targets' current values."""
    signed = np.dtype(f"i{result.itemsize}")
    hit, slot = np.unique(targets, return_inverse=True)
    current = result.view(signed)[hit]
    current_nan = np.isnan(current.view(result.dtype))
    keys = order_keys(current)
    update_bits = values.view(signed)
    update_keys = order_keys(update_bits)
    update_nan = np.isnan(values)
    limits = np.iinfo(signed)
    update_keys[update_nan] = limits.min if op == FMAX else limits.max  # never chosen
    (np.maximum if op == FMAX else np.minimum).at(keys, slot, update_keys)
    combined = np.where(current_nan, current, order_keys(keys))
    if update_nan.any():
        nan_slots, which = _winners(slot[update_nan], last=swapped)
        if not swapped:  # (current, update): a NaN current value stays
            keep = ~current_nan[nan_slots]
            nan_slots, which = nan_slots[keep], which[keep]
        combined[nan_slots] = update_bits[update_nan][which]
    result.view(signed)[hit] = combined


@kernel_for(Opcode.SCATTER, priority=5)
def numpy_scatter_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Scatter with a recognised update computation, by numpy (see the module docstring):
    the compiled kernel's results bit for bit, so the interpreter's."""
    layout = scatter_layout(instr, options.flush_denormals, half_floats=True)
    n, op = layout.inputs, layout.op
    width = layout.geometry.window_offsets.size

    def run(operands: list[Value], ctx: RunContext) -> Value:
        inputs = [np.asarray(v) for v in operands[:n]]
        updates = [np.asarray(v) for v in operands[n + 1 :]]
        results = [target_buffer(x, i in ctx.donatable) for i, x in enumerate(inputs)]
        if results[0].size and updates[0].size:
            targets, fits = _targets(layout, np.asarray(operands[n]))
            flats = [r.reshape(-1) for r in results]
            values = []
            for update in updates:
                staged = update.transpose(layout.update_order).reshape(fits.size, width)
                chosen = staged if fits.all() else staged[fits]
                values.append(np.ascontiguousarray(chosen).reshape(-1))
            if op == REPLACE:
                hit, which = _winners(targets, last=True)
                for flat, value in zip(flats, values, strict=True):
                    unit, per = unit_dtype(flat.dtype)
                    moved = value.view(unit).reshape(-1, per)[which]
                    flat.view(unit).reshape(-1, per)[hit] = moved
            elif op in (FMAX, FMIN):
                _ieee_extremum(flats[0], targets, values[0], op, layout.swapped)
            else:
                flat, value = flats[0], values[0]
                if flat.dtype == np.bool_:  # pred: or/and/xor of 0/1 bytes
                    flat, value = flat.view(np.uint8), value.view(np.uint8)
                with np.errstate(all="ignore"):  # inf - inf, overflow: IEEE results
                    _UFUNCS[op].at(flat, targets, value)
        return tuple(results) if instr.shape.is_tuple else results[0]

    how = f"numpy scatter ({COMBINER_NAMES[layout.op]}, in index order), in place when donated"
    return Kernel(run=run, how=how, exact=True, views=())
