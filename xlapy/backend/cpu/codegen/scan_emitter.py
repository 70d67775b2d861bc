"""Scans: the loop plan of a kernel whose root is a cumulative reduce-window (a window that
spans one axis, ``Window.cumulative_axis``: JAX's cumsum, cumprod, cummax, cummin and
cumlogsumexp), in linear time instead of one window per output.

Order (the interpreter's, OPS.md ReduceWindow as ``evals.windows`` runs it): output ``o``
starts at ``init``, combines the window's padding cells (each ``init``) and then its elements
in row-major order, the accumulator on the left. When ``reducer(init, init) == init`` (bit
for bit; checked at compile time on the constant inits, ``check_inits``: a scan with other
inits is refused) every padding prefix collapses to ``init``, so:

* forward (padding below): ``acc = init; acc = f(acc, x[k]); out[k] = acc`` for k = 0..n-1
  is exactly the interpreter's result, for any reducer;
* reversed (padding above): ``out[o] = f(..f(f(init, x[o]), x[o+1]).., x[n-1])`` combined
  with ``init`` ``o`` times. With ``R[o] = f(x[o], R[o+1])`` (from the end) and an
  associative reducer this is ``f(f(init, R[o]), init)`` (``f(init, R[0])`` for o = 0):
  bit-identical for the exactly associative reducers (integer and pred add, multiply, and,
  or, xor, maximum, minimum; float maximum and minimum: the first NaN in order wins, +0
  above -0), reassociated for the others (float sums and products, logaddexp...), which
  XLA's scan rewrite reassociates as well (the kernel is then not bit-exact).

Plans: *row* (the scanned axis innermost, one scalar accumulator per result, the other
dimensions' loops outside, the outermost parallel) and *column* when dimensions follow the
scanned axis: each step combines the previous output row with the next input row, so the
rows are read contiguously.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence

from xlapy.backend.cpu.codegen import numba_types
from xlapy.backend.cpu.codegen.loop_emitter import Frame, Index, KernelEmitter, Output, Val
from xlapy.backend.cpu.codegen.reduction_emitter import combine, nested_loops, reducer_op
from xlapy.backend.cpu.codegen.scan_rules import check_inits, cumulative, exactly_associative
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.indexing.affine import AffineExpr, constant
from xlapy.ir.instruction import HloInstruction


def emit_scan(
    em: KernelEmitter, outputs: Sequence[Output], parallel: bool
) -> tuple[str, tuple[Output, ...]]:
    """Emits the loops of a kernel whose outputs are the results of one cumulative
    reduce-window; returns the plan's name and no in-place candidates."""
    scan = outputs[0].instr
    found = cumulative(scan)
    if found is None or any(o.instr is not scan for o in outputs):
        raise NoKernel(f"{scan.opcode.value} {scan.name}: a scan with other outputs")
    axis, reverse = found
    for operand in scan.operands:
        if not operand.shape.is_array:
            raise NoKernel(f"reduce-window {scan.name}: tuple operand")
        numba_types.check(operand.shape.element_type, f"reduce-window {scan.name}")
    check_inits(scan, em.flush_denormals)
    if reverse and not exactly_associative(scan):
        em.exact = False
    scanner = _Scanner(em, scan, sorted(outputs, key=lambda o: o.position), axis)
    dims = scanner.dims
    if math.prod(dims[axis + 1 :]) > 1:
        scanner.column(reverse, parallel)
        return "column scan", ()
    scanner.row(reverse, parallel)
    return "row scan", ()


class _Scanner:
    """The statements of one scan: element reads, reducer steps and stores."""

    def __init__(
        self, em: KernelEmitter, scan: HloInstruction, outputs: Sequence[Output], axis: int
    ) -> None:
        self.em, self.scan, self.outputs, self.axis = em, scan, outputs, axis
        half = len(scan.operands) // 2
        self.inputs, self.init_instrs = scan.operands[:half], scan.operands[half:]
        self.dims = self.inputs[0].shape.dims
        self.n = self.dims[axis]
        self.inits = [em.scalar(i, ()) for i in self.init_instrs]
        root = scan.attrs.to_apply.root
        self.swapped = (
            reducer_op(scan) is not None and root.operands[0].parameter_number == 1
        )  # a one-op reducer written op(p1, p0)

    def read(self, index: Index) -> list[Val]:
        return [self.em.scalar(x, index) for x in self.inputs]

    def load(self, index: Index) -> list[Val]:
        """The outputs' elements at ``index``, read back (written by an earlier step)."""
        em = self.em
        values = []
        for o in self.outputs:
            load = em.load(o.arg, em.flat_index(index, o.dims))
            values.append(em.emit(f"{self.scan.name}_prev", load, o.type, index=index))
        return values

    def store(self, frame: Frame, index: Index, values: Sequence[Val]) -> None:
        for o, value in zip(self.outputs, values, strict=True):
            self.em.store(frame, o, index, value)

    def step(self, frame: Frame, lhs: Sequence[Val], rhs: Sequence[Val]) -> list[Val]:
        """``reducer(lhs, rhs)`` in ``frame``. Both sides are copied into fresh variables
        first, so that no expression of this step is value-numbered onto another step's
        (the same text over a variable that has changed since)."""
        em, name = self.em, self.scan.name
        left = [em.fresh(f"{name}_acc") for _ in lhs]
        right = [em.fresh(f"{name}_x") for _ in rhs]
        for var, value in [*zip(left, lhs, strict=True), *zip(right, rhs, strict=True)]:
            em.emit_in(frame, f"{var} = {value.text}")
        if self.swapped:  # op(p1, p0): combine computes op(acc, x)
            left, right = right, left
        xs = [Val(var, v.type, frame) for var, v in zip(right, rhs, strict=True)]
        combine(em, frame, self.scan, left, xs, reassociate=False, ordered=True)
        return [Val(var, v.type, frame) for var, v in zip(left, lhs, strict=True)]

    def assign(self, frame: Frame, targets: Sequence[str], values: Sequence[Val]) -> list[Val]:
        for var, value in zip(targets, values, strict=True):
            self.em.emit_in(frame, f"{var} = {value.text}")
        return [Val(var, v.type, frame) for var, v in zip(targets, values, strict=True)]

    def carried(self) -> list[str]:
        """Fresh names of loop-carried values, one per result."""
        return [self.em.fresh(f"{self.scan.name}_scan") for _ in self.inputs]

    def finish(self, frame: Frame, suffix: Sequence[Val], padded: bool) -> list[Val]:
        """A reversed scan's output from the suffix reduction ``R[o]``: ``f(init, R)``,
        then ``f(., init)`` when the window had padding (o >= 1)."""
        values = self.step(frame, self.inits, suffix)
        return self.step(frame, values, self.inits) if padded else values

    # ---- row plan ---------------------------------------------------------------------
    def row(self, reverse: bool, parallel: bool) -> None:
        em, axis, n = self.em, self.axis, self.n
        outer = self.dims[:axis] + self.dims[axis + 1 :]
        with em.output_loops(outer, parallel) as index:
            frame = em.current

            def at(k: AffineExpr) -> Index:
                return (*index[:axis], k, *index[axis:])

            acc = self.carried()
            if not reverse:
                self.assign(frame, acc, self.inits)
                with em.loop(frame, "k", n) as k:
                    body = em.current
                    held = [Val(a, v.type, body) for a, v in zip(acc, self.inits, strict=True)]
                    values = self.assign(body, acc, self.step(body, held, self.read(at(k))))
                    self.store(body, at(k), values)
                return
            last = self.assign(frame, acc, self.read(at(constant(n - 1))))
            self.store(frame, at(constant(n - 1)), self.finish(frame, last, True))
            if n > 2:
                with em.loop(frame, "k", n - 2) as m:
                    body = em.current
                    k = -m + (n - 2)
                    held = [Val(a, v.type, body) for a, v in zip(acc, last, strict=True)]
                    values = self.assign(body, acc, self.step(body, self.read(at(k)), held))
                    self.store(body, at(k), self.finish(body, values, True))
            held = [Val(a, v.type, frame) for a, v in zip(acc, last, strict=True)]
            values = self.step(frame, self.read(at(constant(0))), held)
            self.store(frame, at(constant(0)), self.finish(frame, values, False))

    # ---- column plan ------------------------------------------------------------------
    def column(self, reverse: bool, parallel: bool) -> None:
        em, axis, n = self.em, self.axis, self.n
        post = self.dims[axis + 1 :]
        with em.output_loops(self.dims[:axis], parallel) as index:
            frame = em.current

            def rows(
                k: Callable[[AffineExpr], AffineExpr], count: int
            ) -> contextlib.AbstractContextManager[tuple[Frame, Callable[[int], Index]]]:
                return _rows(em, frame, index, post, k, count)

            if not reverse:
                with _row(em, frame, index, post, constant(0)) as (body, at):
                    self.store(body, at(0), self.step(body, self.inits, self.read(at(0))))
                with rows(lambda m: m + 1, n - 1) as (body, at):
                    values = self.step(body, self.load(at(-1)), self.read(at(0)))
                    self.store(body, at(0), values)
                return
            # R[k] = f(x[k], R[k+1]) into the outputs, then each row finished in place.
            with _row(em, frame, index, post, constant(n - 1)) as (body, at):
                self.store(body, at(0), self.read(at(0)))
            with rows(lambda m: -m + (n - 2), n - 1) as (body, at):
                self.store(body, at(0), self.step(body, self.read(at(0)), self.load(at(1))))
            with _row(em, frame, index, post, constant(0)) as (body, at):
                self.store(body, at(0), self.finish(body, self.load(at(0)), False))
            with rows(lambda m: m + 1, n - 1) as (body, at):
                self.store(body, at(0), self.finish(body, self.load(at(0)), True))


@contextlib.contextmanager
def _row(
    em: KernelEmitter, frame: Frame, index: Index, post: Sequence[int], k: AffineExpr
) -> Iterator[tuple[Frame, Callable[[int], Index]]]:
    """Loops over the dimensions after the scanned axis for row ``k``; yields the innermost
    frame and ``at(d)``: the index of row ``k + d`` there."""
    with nested_loops(em, frame, "j", post) as inner:
        body = em.current

        def at(d: int) -> Index:
            return (*index, k + d, *inner)

        yield body, at


@contextlib.contextmanager
def _rows(
    em: KernelEmitter,
    frame: Frame,
    index: Index,
    post: Sequence[int],
    k: Callable[[AffineExpr], AffineExpr],
    count: int,
) -> Iterator[tuple[Frame, Callable[[int], Index]]]:
    """``_row`` for rows ``k(m)``, m = 0..count-1, in a loop."""
    with em.loop(frame, "k", count) as m, _row(em, em.current, index, post, k(m)) as rows:
        yield rows
