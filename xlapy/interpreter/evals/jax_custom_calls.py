"""Custom calls JAX itself emits into the programs it exports (not XLA library kernels).

* ``shape_assertion`` (``jax.export`` with symbolic shapes): operand 0 is a ``pred[]``
  condition, the others the values the message refers to as ``{0}``, ``{1}``, ...; the
  message is the custom call's ``backend_config`` (the StableHLO front end puts the op's
  ``error_message`` there). A false condition fails the run with that message, as JAX's
  ``stablehlo-refine-shapes`` / XLA do for inputs that do not fit the shape specification.
* ``stablehlo.dynamic_reduce_window`` (StableHLO's experimental op as a custom call, emitted
  for ``cumsum``/``reduce_window`` on symbolic shapes): operands ``inputs..., init_values...,
  window_dimensions, window_strides, base_dilations, window_dilations, padding`` (the last five
  1-D/``Nx2`` integer tensors), body in ``called_computations``: ``reduce_window`` with the
  window those tensors hold.
* ``stablehlo.dynamic_rng_bit_generator(state, output_shape)``: ``rng_bit_generator`` whose
  output dimensions are the values of ``output_shape``; the algorithm name (``DEFAULT``,
  ``THREE_FRY``, ``PHILOX``) is the ``backend_config``.
"""

from __future__ import annotations

import contextlib

import numpy as np

from xlapy.errors import EvaluationError, InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, custom_call_target
from xlapy.ir.attrs import RandomAlgorithm, Window
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value, shape_of
from xlapy.shape import Shape


@custom_call_target("shape_assertion")
def shape_assertion(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Fails with the formatted message unless operand 0 (``pred[]``) is true; returns ``()``."""
    if not operands or not isinstance(operands[0], np.ndarray) or operands[0].dtype != np.bool_:
        raise InvalidArgument(
            f"custom-call {instr.name}: shape_assertion needs a pred[] condition first"
        )
    if not bool(operands[0].all()):
        arrays = [np.asarray(v) for v in operands[1:]]
        values = [a.item() if a.size == 1 else a for a in arrays]
        message = instr.backend_config or "shape assertion failed"
        # (a message whose braces are not format fields stays as written)
        with contextlib.suppress(IndexError, KeyError, ValueError):
            message = message.format(*values)
        raise EvaluationError(f"custom-call {instr.name}: shape_assertion failed: {message}")
    return ()


@custom_call_target("stablehlo.dynamic_reduce_window")
def dynamic_reduce_window(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``reduce_window`` whose window comes from the last five operands (see the module doc)."""
    comps = instr.attrs.called_computations
    n, extra = divmod(len(operands) - 5, 2)
    if len(comps) != 1 or n < 1 or extra:
        raise InvalidArgument(
            f"custom-call {instr.name}: stablehlo.dynamic_reduce_window needs N inputs, N init "
            f"values, 5 window tensors and one body; got {len(operands)} operands and "
            f"{len(comps)} computations"
        )
    sizes, strides, base, dilations, padding = (
        np.asarray(v).astype(np.int64) for v in operands[2 * n :]
    )
    rank = np.asarray(operands[0]).ndim
    if any(np.shape(v) != (rank,) for v in (sizes, strides, base, dilations)) or np.shape(
        padding
    ) != (rank, 2):
        raise InvalidArgument(
            f"custom-call {instr.name}: the window tensors must have {rank} entries (padding "
            f"{rank}x2); got {[list(np.asarray(v).shape) for v in operands[2 * n :]]}"
        )
    window = Window.make(
        sizes.tolist(),
        strides.tolist(),
        [(int(lo), int(hi)) for lo, hi in padding],
        base.tolist(),
        dilations.tolist(),
    )
    params = [
        HloInstruction(Opcode.PARAMETER, shape_of(v), attrs={"parameter_number": i})
        for i, v in enumerate(operands[: 2 * n])
    ]
    attrs = {"window": window, "to_apply": comps[0]}
    reduce_window = HloInstruction(
        Opcode.REDUCE_WINDOW, instr.shape, params, attrs, name=instr.name
    )
    return ctx.evaluate(reduce_window, list(operands[: 2 * n]))


@custom_call_target("stablehlo.dynamic_rng_bit_generator")
def dynamic_rng_bit_generator(ctx: Evaluator, instr: HloInstruction, operands: list[Value]
                              ) -> Value:  # fmt: skip
    """``rng_bit_generator`` with the output dimensions given by operand 1 (see module doc)."""
    shape = instr.shape
    if len(operands) != 2 or not shape.is_tuple or len(shape.tuple_shapes) != 2:
        raise InvalidArgument(
            f"custom-call {instr.name}: stablehlo.dynamic_rng_bit_generator takes (state, "
            f"output_shape) and returns (state, bits); got {len(operands)} operands, {shape}"
        )
    name = (instr.backend_config or "DEFAULT").strip()
    if name not in RandomAlgorithm.__members__:
        raise InvalidArgument(f"custom-call {instr.name}: unknown rng algorithm '{name}'")
    dims = [int(d) for d in np.asarray(operands[1]).reshape(-1)]
    state_shape, bits_shape = shape.tuple_shapes
    if len(dims) != bits_shape.rank or min(dims, default=0) < 0:
        raise InvalidArgument(
            f"custom-call {instr.name}: output_shape {dims} does not fit {bits_shape.to_mlir()}"
        )
    result = Shape.tuple_of([state_shape, Shape.array(bits_shape.element_type, dims)])
    param = HloInstruction(Opcode.PARAMETER, shape_of(operands[0]), attrs={"parameter_number": 0})
    attrs = {"algorithm": RandomAlgorithm[name]}
    rng = HloInstruction(Opcode.RNG_BIT_GENERATOR, result, [param], attrs, name=instr.name)
    return ctx.evaluate(rng, [operands[0]])
