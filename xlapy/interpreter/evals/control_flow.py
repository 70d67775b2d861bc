"""Control flow and calls: while, conditional (boolean and indexed forms), call (and composite
calls), fusion.

Spec: OPS.md While, Conditional, Call, CompositeCall, Fusion. Each runs its computations with
the evaluator on the values of its operands; nothing here looks inside them.
"""

from __future__ import annotations

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.interpreter.loop_limit import loop_limit_error
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value, shape_of


def _predicate(instr: HloInstruction, value: Value, what: str) -> bool:
    """The Python truth value of a ``pred[]`` value; raises naming ``what`` otherwise."""
    if not isinstance(value, np.ndarray) or value.dtype != np.bool_ or value.shape != ():
        got = shape_of(value).to_hlo(layout=False)
        raise InvalidArgument(
            f"{instr.opcode.value} {instr.name}: {what} must return pred[]; got {got}"
        )
    return bool(value)


@evaluates(Opcode.WHILE)
def while_loop(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Runs ``body`` on the state while ``condition`` holds and returns the last state (``init``
    when the body never runs). The state may be a tuple or a single array. With
    ``max_while_iterations`` N, a condition still true after N iterations is an error."""
    (state,) = operands
    condition: HloComputation = instr.attrs.condition
    body: HloComputation = instr.attrs.body
    limit = ctx.options.max_while_iterations
    # sequential by spec: each iteration consumes the state the previous one produced.
    iteration = 0
    try:
        while _predicate(instr, ctx.call(condition, [state]), f"condition {condition.name}"):
            if iteration == limit:
                raise loop_limit_error(instr, iteration, state)
            state = ctx.call(body, [state])
            iteration += 1
    except KeyboardInterrupt as interrupt:
        if not hasattr(interrupt, "xlapy_loop"):  # the innermost loop
            interrupt.xlapy_loop = f"while {instr.name}, iteration {iteration}"  # type: ignore[attr-defined]
        raise
    return state


def _branches(instr: HloInstruction) -> tuple[HloComputation, ...]:
    """The branch computations: ``branch_computations``, or (true, false) for the boolean form."""
    attrs = instr.attrs
    if attrs.branch_computations:
        return tuple(attrs.branch_computations)
    if attrs.true_computation is None or attrs.false_computation is None:
        raise InvalidArgument(
            f"conditional {instr.name}: needs branch_computations or both true_computation "
            "and false_computation"
        )
    return (attrs.true_computation, attrs.false_computation)


@evaluates(Opcode.CONDITIONAL)
def conditional(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Runs exactly one branch on its own operand and returns its result.

    Boolean form: ``predicate`` true runs branch 0 (``true_computation``), false branch 1.
    Indexed form: ``branch_index`` (s32) runs ``branch_computations[branch_index]``; an index
    ``< 0`` or ``>= N`` runs the last branch, ``branch_computations[N-1]``.
    A conditional without branch operands runs parameterless branches (StableHLO's ``if`` and
    ``case``, whose regions take no arguments).
    """
    branches = _branches(instr)
    selector, *branch_operands = operands
    if branch_operands and len(branch_operands) != len(branches):
        raise InvalidArgument(
            f"conditional {instr.name}: needs one operand per branch; got {len(branches)} "
            f"branches and {len(branch_operands)} branch operands"
        )
    if not isinstance(selector, np.ndarray) or selector.shape != ():
        got = shape_of(selector).to_hlo(layout=False)
        raise InvalidArgument(
            f"conditional {instr.name}: the branch selector must be pred[] or s32[]; got {got}"
        )
    if selector.dtype == np.bool_:
        if len(branches) != 2:
            raise InvalidArgument(
                f"conditional {instr.name}: a pred[] predicate needs exactly 2 branches; got "
                f"{len(branches)}"
            )
        index = 0 if bool(selector) else 1
    elif selector.dtype.kind in "iu":
        index = int(selector)
        if not 0 <= index < len(branches):
            index = len(branches) - 1
    else:
        raise InvalidArgument(
            f"conditional {instr.name}: the branch selector must be pred[] or s32[]; got "
            f"{shape_of(selector).to_hlo(layout=False)}"
        )
    return ctx.call(branches[index], [branch_operands[index]] if branch_operands else [])


@evaluates(Opcode.CALL)
def call(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Invokes ``to_apply`` on the operands and returns its result. A composite call
    (``is_composite=true``) is evaluated the same way: its decomposition is ``to_apply``."""
    return ctx.call(instr.attrs.to_apply, operands)


@evaluates(Opcode.FUSION)
def fusion(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Evaluates the fused computation ``calls`` with the fusion's operands as parameters."""
    return ctx.call(instr.attrs.calls, operands)
