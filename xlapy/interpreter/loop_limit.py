"""The ``max_while_iterations`` bound of both platforms (off by default, as in XLA): the option's
check and the error a loop raises when its condition still holds after that many iterations,
naming the loop, the count and its state (scalar elements with their values)."""

from __future__ import annotations

import numpy as np

from xlapy.errors import EvaluationError, InvalidArgument
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Value, shape_of

SHOWN_ELEMENTS = 8
"""State elements the error describes; the others are counted."""


def check_max_while_iterations(value: object, where: str) -> int | None:
    """``value`` as a bound (a positive int, or None for no bound); raises InvalidArgument
    naming ``where`` (``run``, ``compile``) otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidArgument(
            f"{where}: max_while_iterations must be a positive int (or None: no bound); got "
            f"{value!r}"
        )
    return int(value)


def loop_limit_error(instr: HloInstruction, limit: int, state: Value) -> EvaluationError:
    """The error of while ``instr`` whose condition still holds after ``limit`` iterations
    (``state`` is the state the next iteration would have consumed)."""
    condition = instr.attrs.condition
    return EvaluationError(
        f"while {instr.name} [max_while_iterations]: a loop may run at most {limit} "
        f"iterations (--max-while-iterations / max_while_iterations=); got condition "
        f"{condition.name} still true after {limit} iterations, state {describe_state(state)}"
    )


def describe_state(state: Value) -> str:
    """A short description of a loop state: the value of scalar elements, the shape of the
    others, at most ``SHOWN_ELEMENTS`` elements (``(s32[] 100, f32[64], ... 3 more)``)."""
    if not isinstance(state, tuple):
        return _element(state)
    shown = [_element(v) for v in state[:SHOWN_ELEMENTS]]
    if len(state) > SHOWN_ELEMENTS:
        shown.append(f"... {len(state) - SHOWN_ELEMENTS} more")
    return f"({', '.join(shown)})"


def _element(value: Value) -> str:
    shape = shape_of(value).to_hlo(layout=False)
    if isinstance(value, tuple):
        return shape
    if isinstance(value, np.ndarray) and value.ndim == 0:
        scalar = value[()]
        text = ("true" if scalar else "false") if value.dtype == np.bool_ else str(scalar)
        return f"{shape} {text}"
    return shape


__all__ = ["check_max_while_iterations", "describe_state", "loop_limit_error"]
