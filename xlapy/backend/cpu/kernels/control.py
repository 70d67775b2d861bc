"""Control flow as compiled sub-plans (priority 0, generic): while (the loop in Python around
compiled condition and body plans), conditional, call, and fusion when no generated kernel
takes it (the fused computation run as a plan, each instruction with its own kernel).

Ownership flows through: an operand the caller may donate becomes an owned argument of the
sub-plan, and a loop hands the body's owned results to the next iteration, so in-place kernels
(dynamic-update-slice, scatter) work on a loop's state without copying it each iteration.
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy import dtypes
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.liveness import leaf_count
from xlapy.interpreter.loop_limit import loop_limit_error
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

Mask = tuple[bool, ...]


def _ownership(counts: Sequence[int]) -> tuple[Mask, ...]:
    """Per operand: the all-owned leaf mask of that operand alone."""
    return tuple((True,) * n for n in counts)


def _mask(counts: Sequence[int], donatable: frozenset[int]) -> Mask:
    """One flag per flattened leaf of the operands: owned when its operand is donatable."""
    return tuple(k in donatable for k, n in enumerate(counts) for _ in range(n))


def _calls_with_operands(comp: HloComputation, instr: HloInstruction, how: str) -> Kernel:
    """A kernel running ``comp`` as a plan on the instruction's operands."""
    counts = tuple(leaf_count(o.shape) for o in instr.operands)
    nothing: Mask = (False,) * sum(counts)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        donatable = ctx.donatable
        owned = _mask(counts, donatable) if donatable else nothing
        return ctx.call_owned(comp, operands, owned)[0]  # type: ignore[misc]

    steps = len(comp.instructions)
    return Kernel(run=run, how=f"{how} ({steps} instructions)", calls=(comp,))


@kernel_for(Opcode.WHILE)
def while_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """While: runs the compiled ``body`` while the compiled ``condition`` returns true. The
    body may overwrite the state leaves it owns: all of them when the while's operand is
    donatable, then those the previous iteration made. With ``max_while_iterations`` N, a
    condition still true after N iterations raises (a loop that counts only then)."""
    condition: HloComputation = instr.attrs.condition
    body: HloComputation = instr.attrs.body
    result = condition.root.shape
    if not (result.is_array and result.element_type is dtypes.PRED and result.rank == 0):
        raise NoKernel(f"condition {condition.name} does not return pred[]")
    leaves = leaf_count(instr.operands[0].shape)
    nothing: Mask = (False,) * leaves
    everything: Mask = (True,) * leaves
    limit = options.max_while_iterations

    def run(operands: list[Value], ctx: RunContext) -> Value:
        (state,) = operands
        owned = everything if ctx.donatable else nothing
        call = ctx.call_owned
        assert call is not None
        iteration = 0
        try:
            # sequential by spec: each iteration consumes the state the previous one produced.
            while call(condition, [state], nothing)[0]:
                if iteration == limit:
                    raise loop_limit_error(instr, iteration, state)
                state, owned = call(body, [state], owned)
                iteration += 1
        except KeyboardInterrupt as interrupt:
            if not hasattr(interrupt, "xlapy_loop"):  # the innermost loop
                interrupt.xlapy_loop = f"while {instr.name}, iteration {iteration}"  # type: ignore[attr-defined]
            raise
        return state

    return Kernel(
        run=run,
        how=f"loop in Python over compiled {condition.name} and {body.name}",
        calls=(condition, body),
    )


def _branches(instr: HloInstruction) -> tuple[HloComputation, ...] | None:
    attrs = instr.attrs
    if attrs.branch_computations:
        return tuple(attrs.branch_computations)
    if attrs.true_computation is None or attrs.false_computation is None:
        return None
    return (attrs.true_computation, attrs.false_computation)


@kernel_for(Opcode.CONDITIONAL)
def conditional_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Conditional: runs the selected branch's plan, as the interpreter selects it (pred:
    true -> branch 0; index: out of range -> the last branch). Malformed conditionals run the
    interpreter's eval, which reports them."""
    branches = _branches(instr)
    if branches is None:
        raise NoKernel("no branches")
    selector = instr.operands[0].shape
    branch_operands = instr.operands[1:]
    if not (selector.is_array and selector.rank == 0):
        raise NoKernel(f"branch selector {selector}")
    is_pred = selector.element_type is dtypes.PRED
    if not (is_pred or selector.element_type.is_integer):
        raise NoKernel(f"branch selector {selector}")
    if (is_pred and len(branches) != 2) or (
        branch_operands and len(branch_operands) != len(branches)
    ):
        raise NoKernel("branch and operand counts disagree")
    last = len(branches) - 1
    counts = tuple(leaf_count(o.shape) for o in branch_operands)
    owned_alone = _ownership(counts)
    nothing = tuple((False,) * n for n in counts)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        value = operands[0]
        if is_pred:
            index = 0 if value else 1
        else:
            index = int(value)  # type: ignore[arg-type]
            if not 0 <= index <= last:
                index = last
        call = ctx.call_owned
        assert call is not None
        if not counts:
            return call(branches[index], [], ())[0]
        owned = owned_alone[index] if index + 1 in ctx.donatable else nothing[index]
        return call(branches[index], [operands[index + 1]], owned)[0]

    return Kernel(
        run=run, how=f"compiled branches ({len(branches)})", calls=tuple(dict.fromkeys(branches))
    )


@kernel_for(Opcode.CALL)
def call_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Call (and composite call): ``to_apply`` as a compiled plan."""
    return _calls_with_operands(instr.attrs.to_apply, instr, "compiled call")


@kernel_for(Opcode.FUSION)
def fusion_as_plan_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """Fusion without a generated kernel: the fused computation as a plan of its own."""
    return _calls_with_operands(instr.attrs.calls, instr, "fused computation as a plan")
