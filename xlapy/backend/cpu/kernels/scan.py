"""Cumulative reduce-windows (JAX's cumsum, cumprod, cummax, cummin, cumlogsumexp, either
direction, any reducer and arity) as linear-time scans instead of one window per output
(XLA's ``ReduceWindowRewriter`` does the same): a generated kernel
(``codegen/scan_emitter.py``), or, on the quick tier and for what the code generator does
not compile (complex, f8 and sub-byte types, reducers with ops it lacks), the same steps over
all rows at once: numpy accumulates for one-op reducers (``scan_accumulate``), else one call
of the reducer per step (bound numpy calls for float bodies, ``scan_body``; the
interpreter's call otherwise).

The scan equals the interpreter's window order only when ``reducer(init, init) == init``
bit for bit (padding prefixes of every length then collapse to ``init``): constant inits are
checked at compile time (a window failing it is left to the literal ``windows`` kernel),
others by the stepwise scan on the values it receives (once per distinct value; failing,
it runs the interpreter's eval).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlapy.backend.cpu.codegen.scan_rules import (
    check_inits,
    cumulative,
    exactly_associative,
    idempotent,
)
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    generating,
    kernel_for,
)
from xlapy.backend.cpu.kernels.scan_accumulate import accumulate
from xlapy.backend.cpu.kernels.scan_body import Body, bound_body
from xlapy.interpreter.evals.reduce import apply_computation, collate, result_shapes
from xlapy.interpreter.evals.windows import reduce_window
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

Run = Callable[[list[Value], RunContext], Value]


def stepwise(instr: HloInstruction, axis: int, reverse: bool, bound: Body | None) -> Run:
    """The scan of ``scan_emitter`` (same order and steps), each step one call of the
    reducer on the rows of every other index at once: its ``bound`` numpy form
    (``scan_body``), else the interpreter's call."""
    half = len(instr.operands) // 2
    comp: HloComputation = instr.attrs.to_apply
    types = [s.element_type.numpy for s in result_shapes(instr.shape)]

    def run(operands: list[Value], ctx: RunContext) -> Value:
        xs = [np.moveaxis(np.asarray(v), axis, 0) for v in operands[:half]]
        inits = [np.asarray(v) for v in operands[half:]]
        outs = [np.empty(x.shape, t) for x, t in zip(xs, types, strict=True)]

        def f(a: Sequence[Array], b: Sequence[Array]) -> list[Array]:
            if bound is not None:
                return bound([*a, *b])
            return list(apply_computation(ctx.evaluator, comp, [*a, *b]))

        def store(k: int, values: Sequence[Array]) -> None:
            for out, value in zip(outs, values, strict=True):
                out[k] = value

        n = xs[0].shape[0]
        with np.errstate(all="ignore"):  # as the interpreter's evals run
            if xs[0].size and not reverse:
                acc = list(inits)
                for k in range(n):
                    acc = f(acc, [x[k] for x in xs])
                    store(k, acc)
            elif xs[0].size:
                acc = [x[n - 1] for x in xs]
                for k in range(n - 1, -1, -1):
                    if k < n - 1:
                        acc = f([x[k] for x in xs], acc)
                    done = f(inits, acc)
                    store(k, f(done, inits) if k else done)
        return collate(instr, [np.ascontiguousarray(np.moveaxis(o, 0, axis)) for o in outs])

    return run


@kernel_for(Opcode.REDUCE_WINDOW, priority=20)
def scan_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """A cumulative reduce-window as one generated scan kernel (constant inits checked at
    compile time), else as interpreter steps (inits checked when the kernel runs)."""
    found = cumulative(instr)
    if found is None:
        raise NoKernel("not a cumulative window (one axis spanned, padding n-1 on one side)")
    half = len(instr.operands) // 2
    if all(i.opcode is Opcode.CONSTANT for i in instr.operands[half:]):
        check_inits(instr, options.flush_denormals)  # else the literal windows kernel
    leaves: dict[int, int] = {}
    for position, operand in enumerate(instr.operands):
        leaves.setdefault(id(operand), position)
    reason = "generated kernels are compiled in the background (quick tier)"
    if generating():  # numba's and the indexing analysis' imports: not on the quick tier
        from xlapy.backend.cpu.codegen.fusion_emitter import compile_kernel
        from xlapy.indexing.per_op import instruction_summary

        try:
            return compile_kernel(
                f"scan_{instr.name}", instr, leaves, options, "op", instruction_summary(instr)
            )
        except NoKernel as exc:
            reason = str(exc)
    axis, reverse = found
    exact = not reverse or exactly_associative(instr)
    comp: HloComputation = instr.attrs.to_apply
    bound = bound_body(comp, options.flush_denormals)
    steps = stepwise(instr, axis, reverse, bound)
    fast = accumulate(instr, axis, reverse, options.flush_denormals)
    checked: list[tuple[bytes, bool]] = [(b"", False)]  # the last init values seen

    def run(operands: list[Value], ctx: RunContext) -> Value:
        inits = [np.asarray(v) for v in operands[half:]]
        key = b"".join(i.tobytes() for i in inits)
        seen, ok = checked[0]
        if seen != key:
            ok = idempotent(ctx.evaluator, comp, inits)
            checked[0] = (key, ok)
        if ok and fast is not None:
            scanned = fast(np.asarray(operands[0]), inits[0])
            if scanned is not None:
                return collate(instr, [scanned])
        if ok:
            return steps(operands, ctx)
        return reduce_window(ctx.evaluator, instr, operands)

    how = "stepwise scan by the interpreter's reducer, all rows per step"
    if bound is not None:
        how = "stepwise scan by the reducer as bound numpy calls, all rows per step"
    if fast is not None:
        how = f"numpy accumulate (NaN sums and products: {how})"
    return Kernel(
        run=run,
        how=f"{how} ({reason})",
        exact=exact,
        notes=() if exact else ("reversed: reassociated from the end",),
        views=(),
    )
