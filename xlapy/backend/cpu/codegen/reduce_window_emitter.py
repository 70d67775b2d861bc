"""The reduce-window element generator (XLA's elemental ``EmitElementalReduceWindow``): an
output element is its window reduced inline, so pooling and its gradient (``avg_pool`` is a
windowed sum, its transpose a padded sum) fuse with the ops around them instead of running
their fusion as a plan.

Order and values are the interpreter's (OPS.md ReduceWindow, A.9): the accumulator starts at
``init`` and combines the window's cells in row-major tap order; a cell in the padding
combines ``init``, a base-dilation hole is skipped, a real cell combines the operand element at
``(o * stride + k * window_dilation - padding_low) / base_dilation``. Each step is the
reducer's own operation (``reduction_emitter.combine`` without reassociation), so results are
bit-identical wherever the reducer's ops are.

Windows the fusion pass does not fuse (``fusion_policy.inline_window``: cumulative ones, which
the scan kernels run in linear time, and windows of more than ``MAX_WINDOW_CELLS`` cells) are
refused here too.
"""

from __future__ import annotations

import math

from xlapy.backend.cpu.codegen import numba_types
from xlapy.backend.cpu.codegen.loop_emitter import Frame, Index, KernelEmitter, Val, generates
from xlapy.backend.cpu.codegen.reduction_emitter import combine, nested_loops
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.indexing.affine import AffineExpr, as_expr
from xlapy.indexing.interval import Interval
from xlapy.ir.attrs import Window
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.passes import fusion_policy


def checked_window(instr: HloInstruction) -> Window:
    """The window of a reduce-window this generator reduces inline; NoKernel otherwise."""
    if len(instr.operands) != 2:
        raise NoKernel(f"reduce-window {instr.name}: variadic")
    operand, init = (o.shape for o in instr.operands)
    if not (operand.is_array and operand.is_static and init.is_array and instr.shape.is_array):
        raise NoKernel(f"reduce-window {instr.name}: non-array or dynamic operands")
    t = instr.shape.element_type
    if operand.element_type is not t or init.element_type is not t:
        raise NoKernel(f"reduce-window {instr.name}: init or result of another type")
    numba_types.check(t, f"reduce-window {instr.name}")
    window: Window = instr.attrs.window
    if not window.dimensions:
        window = Window.make([1] * operand.rank)
    if len(window.dimensions) != operand.rank:
        raise NoKernel(f"reduce-window {instr.name}: window rank differs from the operand's")
    if not fusion_policy.inline_window(instr):
        if window.cumulative_axis(operand.dims) is not None:
            raise NoKernel(f"reduce-window {instr.name}: a cumulative window (a scan kernel's)")
        cells = math.prod(d.size for d in window.dimensions)
        raise NoKernel(
            f"reduce-window {instr.name}: {cells} cells per window (more than "
            f"{fusion_policy.MAX_WINDOW_CELLS}) or a reversed window"
        )
    return window


@generates(Opcode.REDUCE_WINDOW)
def reduce_window(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """``acc = init``, then every cell of the window at output ``index`` combined in
    row-major order (padding: ``init``; holes: skipped)."""
    window = checked_window(instr)
    operand, init = instr.operands
    t = instr.shape.element_type
    home = em.home(index=index)
    with em.enter(home):
        start = em.scalar(init, ())
    acc = em.fresh(instr.name)
    em.emit_in(home, f"{acc} = {start.text}")
    sizes = [d.size for d in window.dimensions]
    with nested_loops(em, home, "w", sizes) as taps:
        frame = em.current
        inside: list[str] = []  # the cell lies in the base-dilated operand
        real: list[str] = []  # ... and on one of its elements (not a hole)
        cell: list[AffineExpr] = []
        for o, k, d, n in zip(index, taps, window.dimensions, operand.shape.dims, strict=True):
            q = as_expr(o) * d.stride + as_expr(k) * d.window_dilation - d.padding_low
            test = em.condition(q, Interval(0, (n - 1) * d.base_dilation))
            if test is not None:
                inside.append(test)
            if d.base_dilation == 1:
                cell.append(q)
                continue
            hole = em.condition(q % d.base_dilation, Interval(0, 0))
            if hole is not None:
                real.append(hole)
            cell.append(q // d.base_dilation)
        if "False" in inside:  # every cell is padding
            combine(em, frame, instr, [acc], [start], reassociate=False, ordered=True)
            return Val(acc, t, home)
        target = frame
        if inside:
            target = Frame(f"if {_all(inside)}:", frame, branch=True)
            padding = Frame("else:", frame, branch=True)
            frame.items.extend([target, padding])
            combine(em, padding, instr, [acc], [start], reassociate=False, ordered=True)
        if "False" in real:  # holes only
            return Val(acc, t, home)
        if real:
            parent = target
            target = Frame(f"if {_all(real)}:", parent, branch=True)
            parent.items.append(target)
        with em.enter(target):
            x = em.scalar(operand, tuple(cell))
            combine(em, target, instr, [acc], [x], reassociate=False, ordered=True)
    return Val(acc, t, home)


def _all(tests: list[str]) -> str:
    return " and ".join(f"({t})" if " and " in t else t for t in tests)
