"""Random well-typed HLO programs for differential fuzzing (``tools/fuzz/differential.py``).

A program is drawn op by op with hypothesis (so a failing one shrinks to a few ops): every
value is an array of some element type (floats f64/f32/bf16/f16/f8, signed and unsigned ints
of 4 to 64 bits, pred) and shape (rank 0-3, dims 0, 1, 2, 3 or 5); each step appends one
instruction reading earlier values: elementwise ops of every kind, compare, select, clamp,
convert, bitcast-convert, broadcast, reshape, transpose, slice, concatenate, pad, reverse,
reduce, dot, iota, dynamic-slice, dynamic-update-slice, sort, reduce-window, while loops
(trip count 0, 1 or data-dependent) and conditionals, whose bodies are further ops. The
parameters' values mix the corners of each type (NaN, +-inf, -0.0, subnormals, the largest
values, INT_MIN, shifts past the width) with random bit patterns.

Each value records how closely the cpu platform must reproduce the interpreter's value of it
(a ``bounds.Bound``, from the op that made it and the bounds of its operands): the same bits,
within a few ulps after the cpu's own transcendentals, within a summation error bound after
reassociated sums and dots (whose magnitude scale the program computes as companion outputs).

This module draws whole modules (``programs``), loops and conditionals, donations and
layouts; ``program_ops`` draws single instructions and ``program_values`` holds the values,
argument arrays and the HLO builder.
"""

from __future__ import annotations

import random
import re

from hypothesis import strategies as st

from tools.fuzz import bounds
from tools.fuzz import program_ops as ops
from tools.fuzz.bounds import BITS
from tools.fuzz.program_values import (
    DIMS,
    MAX_DEPTH,
    PRED,
    TYPES,
    VIEWS,
    Builder,
    Computation,
    Program,
    Value,
)
from xlapy import dtypes


def _window_update(b: Builder, comp: Computation, i: str) -> Value:
    """In a loop body: ``x`` with its row ``i`` (clamped) replaced by a function of itself,
    an in-place update of the loop state (a scan's pattern)."""
    x = comp.params[0]
    if not x.dims or not x.dims[0]:
        return x
    sizes = (1, *x.dims[1:])
    zero = b.constant(comp, dtypes.S32, 0)
    starts = ", ".join([i, *([zero.name] * (len(x.dims) - 1))])
    row = b.emit(comp, Value(b.fresh("row"), x.type, sizes, x.bound, nan_bits=x.nan_bits),
                 f"dynamic-slice({x.name}, {starts}), dynamic_slice_sizes={{{','.join(map(str, sizes))}}}")  # fmt: skip
    if x.type is PRED:
        new = b.emit(comp, Value(b.fresh("not"), PRED, sizes, x.bound), f"not({row.name})")
    else:
        op = "add" if not x.type.is_float else b.draw(st.sampled_from(("add", "multiply")))
        new = b.emit(comp, Value(b.fresh(op), x.type, sizes,
                                 bounds.after_op(op, x.type, [x.bound]), nan_bits=False),
                     f"{op}({row.name}, {row.name})")  # fmt: skip
    out = Value(
        b.fresh("dus"), x.type, x.dims, bounds.join(x.type, x.bound, new.bound), nan_bits=False
    )
    return b.emit(comp, out, f"dynamic-update-slice({x.name}, {new.name}, {starts})")


def _body_ops(b: Builder, comp: Computation, steps: int) -> Value:
    """``steps`` elementwise/data-movement ops over ``comp``'s values (no new parameters);
    the last one is of the first parameter's type and dims."""
    first = comp.params[0]
    choices = [
        ops.draw_unary, ops.draw_binary, ops.draw_compare, ops.draw_select, ops.draw_convert,
        ops.draw_reverse,
    ]  # fmt: skip
    if b.depth < MAX_DEPTH:
        choices += [draw_while, draw_conditional]
    b.depth += 1
    for _ in range(steps):
        op = b.draw(st.sampled_from(choices))
        op(b, comp, False)
    b.depth -= 1
    like = [w for w in comp.values if w.type is first.type and w.dims == first.dims]
    return b.draw(st.sampled_from(like[::-1]))


def draw_while(b: Builder, comp: Computation, entry: bool) -> Value:
    v = ops.pick(b, comp)
    trips = b.draw(st.sampled_from((0, 1, 2, 7)))
    state = f"(s32[], {v.shape})"
    cond = b.fresh("cond")
    b.computations.append(
        f"{cond} {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
        f"  n = s32[] constant({trips})\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}\n"
    )
    body = Computation(b.fresh("body"))
    body.lines.append(f"  s = {state} parameter(0)")
    body.lines.append("  i = s32[] get-tuple-element(s), index=0")
    x = Value("x", v.type, v.dims, v.moved)
    body.lines.append(f"  x = {v.shape} get-tuple-element(s), index=1")
    body.params.append(x)
    body.values.append(x)
    if b.draw(st.booleans()):
        _window_update(b, body, "i")
    result = _body_ops(b, body, b.draw(st.integers(0, 3)))
    body.lines.append("  one = s32[] constant(1)\n  next = s32[] add(i, one)")
    body.lines.append(f"  ROOT t = {state} tuple(next, {result.name})")
    b.computations.append(f"{body.name} {{\n" + "\n".join(body.lines) + "\n}\n")
    start = b.constant(comp, dtypes.S32, 0)
    if entry and b.draw(st.booleans()):  # a data-dependent trip count: trips - start
        given = b.param(comp, dtypes.S32, (), entry)
        low, high = b.constant(comp, dtypes.S32, -5), b.constant(comp, dtypes.S32, trips)
        start = b.emit(comp, Value(b.fresh("start"), dtypes.S32, ()),
                       f"clamp({low.name}, {given.name}, {high.name})")  # fmt: skip
    init = b.fresh("init")
    comp.lines.append(f"  {init} = {state} tuple({start.name}, {v.name})")
    loop = b.fresh("while")
    comp.lines.append(f"  {loop} = {state} while({init}), condition={cond}, body={body.name}")
    # each iteration's state feeds the next: only exact loops keep a bound
    exact = v.exact and all(w.exact for w in body.values)
    out = Value(
        b.fresh("wout"), v.type, v.dims, BITS if exact else bounds.degraded(v.type), nan_bits=False
    )
    return b.emit(comp, out, f"get-tuple-element({loop}), index=1")


def draw_conditional(b: Builder, comp: Computation, entry: bool) -> Value:
    v = ops.pick(b, comp)
    count = b.draw(st.sampled_from((2, 2, 1, 3)))  # pred, or an s32 index (clamped: any value)
    if count == 2:
        preds = [p for p in comp.values if p.type is PRED and p.dims == ()]
        if preds:
            p = b.draw(st.sampled_from(preds))
        elif entry:
            p = b.param(comp, PRED, (), entry)
        else:
            p = b.constant(comp, PRED, b.draw(st.booleans()))
    elif entry:
        p = b.param(comp, dtypes.S32, (), entry)
    else:
        p = b.constant(comp, dtypes.S32, b.draw(st.integers(-2, 4)))
    branches, results = [], [v.moved]
    for _ in range(count):
        branch = Computation(b.fresh("branch"))
        x = Value("x", v.type, v.dims, v.moved)
        branch.lines.append(f"  x = {v.shape} parameter(0)")
        branch.params.append(x)
        branch.values.append(x)
        result = _body_ops(b, branch, b.draw(st.integers(0, 2)))
        results.append(result.bound)
        branch.lines.append(f"  ROOT r = {v.shape} copy({result.name})")
        b.computations.append(f"{branch.name} {{\n" + "\n".join(branch.lines) + "\n}\n")
        branches.append(branch.name)
    bound = bounds.join(v.type, *results) if p.exact else bounds.degraded(v.type)
    out = Value(b.fresh("cond"), v.type, v.dims, bound, nan_bits=False)
    if count == 2 and p.type is PRED:
        text = (f"conditional({p.name}, {v.name}, {v.name}), "
                f"true_computation={branches[0]}, false_computation={branches[1]}")  # fmt: skip
    else:
        operands = ", ".join([p.name, *([v.name] * count)])
        text = f"conditional({operands}), branch_computations={{{', '.join(branches)}}}"
    return b.emit(comp, out, text)


OPS = (
    ops.draw_unary, ops.draw_unary, ops.draw_binary, ops.draw_binary, ops.draw_binary,
    ops.draw_compare, ops.draw_select, ops.draw_clamp, ops.draw_convert, ops.draw_bitcast,
    ops.draw_broadcast, ops.draw_reshape, ops.draw_transpose, ops.draw_slice,
    ops.draw_concatenate, ops.draw_pad, ops.draw_reverse, ops.draw_reduce,
    ops.draw_reduce_window, ops.draw_dot, ops.draw_iota, ops.draw_dynamic_slice,
    ops.draw_dynamic_update_slice, ops.draw_sort, draw_while, draw_conditional,
    ops.draw_gather, ops.draw_scatter, ops.draw_rng_bit_generator,
)  # fmt: skip


@st.composite
def programs(draw: st.DrawFn, max_steps: int = 8) -> Program:
    """A random well-typed module: 1-3 parameters, then 1-``max_steps`` ops; the root is a
    tuple of the last few values and up to three earlier ones (then the companion values of
    their bounds)."""
    b = Builder(draw)
    entry = Computation("main")
    for _ in range(draw(st.integers(1, 3))):
        t = draw(st.sampled_from(TYPES))
        rank = draw(st.integers(0, 3))
        b.param(entry, t, tuple(draw(st.sampled_from(DIMS)) for _ in range(rank)), True)
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(st.sampled_from(OPS))
        op(b, entry, True)
    count = draw(st.integers(1, min(3, len(entry.values))))
    outs = entry.values[-count:]
    earlier = entry.values[:-count]
    if earlier:  # intermediate values too (compared before later ops can mask them)
        picked = draw(st.sets(st.sampled_from(range(len(earlier))), max_size=3))
        outs = [earlier[i] for i in sorted(picked)] + outs
    names = [v.name for v in outs]
    shapes = [v.shape for v in outs]
    scales = []
    for v in outs:  # companions after the outputs
        scales.append(tuple(range(len(names), len(names) + len(v.bound.companions))))
        names += v.bound.companions
        shapes += [b.companions[c] for c in v.bound.companions]
    entry.lines.append(f"  ROOT out = ({', '.join(shapes)}) tuple({', '.join(names)})")
    donated = _donations(b, entry, outs)
    text = f"HloModule fuzz{_aliasing(donated, draw)}\n\n" + "\n".join(b.computations)
    text += "\nENTRY main {\n" + "\n".join(entry.lines) + "\n}\n"
    if draw(st.booleans()):
        text = _with_layouts(text, random.Random(draw(st.integers(0, 2**32 - 1))))
    views = [draw(st.integers(0, len(VIEWS) - 1)) for _ in b.args]
    bounds_ = [v.bound for v in outs]
    return Program(text, b.args, bounds_, views, scales, tuple(sorted(donated)))


def _donations(b: Builder, entry: Computation, outs: list[Value]) -> dict[int, int | None]:
    """Drawn donated parameters of the entry: parameter number -> the output it aliases (one
    of the same shape), or None for a buffer donor the module does not tie to an output."""
    donated: dict[int, int | None] = {}
    taken: set[int] = set()
    for i, p in enumerate(entry.params):
        if not b.draw(st.booleans()):
            continue
        same = [j for j, v in enumerate(outs) if v.shape == p.shape and j not in taken]
        j = b.draw(st.sampled_from([None, *same]))
        donated[i] = j
        if j is not None:
            taken.add(j)
    return donated


def _aliasing(donated: dict[int, int | None], draw: st.DrawFn) -> str:
    """The module header's ``input_output_alias`` and ``buffer_donor`` of ``donated``."""
    aliases = [
        f"{{{j}}}: ({i}, {{}}, {draw(st.sampled_from(('may-alias', 'must-alias')))})"
        for i, j in donated.items()
        if j is not None
    ]
    donors = [f"({i}, {{}})" for i, j in donated.items() if j is None]
    text = ""
    if aliases:
        text += f", input_output_alias={{ {', '.join(aliases)} }}"
    if donors:
        text += f", buffer_donor={{ {', '.join(donors)} }}"
    return text


def _with_layouts(text: str, rng: random.Random) -> str:
    """``text`` with a random minor-to-major layout on every array shape of rank >= 2 (values
    are logical arrays: a layout changes only how kernels walk memory)."""

    def relayout(m: re.Match[str]) -> str:
        dims = m.group(2)
        rank = len(dims.split(",")) if dims else 0
        if rank < 2:
            return m.group(0)
        order = list(range(rank))
        rng.shuffle(order)
        return f"{m.group(1)}[{dims}]{{{','.join(map(str, order))}}}"

    return re.sub(r"\b([a-z][a-z0-9]*)\[([\d,]*)\](?!\{)", relayout, text)
