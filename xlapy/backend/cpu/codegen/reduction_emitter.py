"""Reductions: the reduce element generator (an inline loop over the reduced dimensions with
one accumulator per result) and the three loop plans of a kernel whose outputs are reductions.

Reducers are read from the reducer computation: ``op(p0, p1)`` with op in add, multiply,
maximum, minimum, and, or, xor is combined with one expression; any other body of ops that
have element generators (argmax's compare/select pairs...) is generated inline once per
iteration, in index order. Order: the interpreter reduces in a pairwise tree; kernels
accumulate sequentially, and float sums may reassociate (XLA's vectorized reductions do the
same), so only integer, pred, maximum and minimum reductions are bit-exact. Accumulation: a
float32 sum ``add(p0, p1)`` (``widened``) accumulates in float64 (a scalar, a float64 scratch
row in the column plan, float64 partial totals in the split plan) and is rounded to float32
once, so it is at least as accurate as the interpreter's tree and XLA's; every other reducer
accumulates in its own type (f16/bf16 rounded at every step, as the interpreter's calls).
Under ``flush_denormals`` a float add/multiply/maximum/minimum step reads its element with
subnormals as zeros and its result is flushed, as the interpreter's reducer calls, except
that a reassociated or float64 sum flushes its running total at its start and end only
(``combine``).

Plans for reduction outputs (all reduces of one kernel share the input dims and reduced
dimensions; other outputs have the reduce input's shape, written as the input is read, or
the reduce output's shape, computed after the accumulation):

* *row*: loops over the outputs (the outer one parallel), the reduced dimensions inside with
  scalar accumulators: for reductions over minor dimensions.
* *column*: when the minor input dimension is kept, the kept dimensions after the last
  reduced one are the innermost loop and accumulate into the output arrays, so the input is
  read contiguously.
* *split*: few outputs and a long associative reduction: the outermost reduced dimension is
  cut into chunks reduced in parallel from the reducer's identity, then combined in order.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xlapy import dtypes
from xlapy.backend.cpu.codegen import numba_types
from xlapy.backend.cpu.codegen.elemental import binary_expression, flush_helper, wrap
from xlapy.backend.cpu.codegen.loop_emitter import (
    Frame,
    Index,
    KernelEmitter,
    Output,
    Val,
    generates,
)
from xlapy.backend.cpu.codegen.scan_rules import ASSOCIATIVE, reducer_op
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType
from xlapy.indexing.affine import AffineExpr
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

SPLIT_CHUNKS = 64
"""Chunks of a split reduction (enough to balance the threads of any common machine)."""
SPLIT_MIN_EXTENT = 1 << 15
SPLIT_MAX_OUTPUTS = 16


def splittable(reduce: HloInstruction) -> bool:
    """True when chunks may be reduced separately and combined: an associative simple
    reducer (float multiply excluded: only float sums reassociate)."""
    op = reducer_op(reduce)
    if op not in ASSOCIATIVE:
        return False
    t = reduce.shape.element_type
    return not (t.is_float and op is Opcode.MULTIPLY)


def widened(reduce: HloInstruction) -> bool:
    """True for a float32 sum ``add(p0, p1)``: it accumulates in float64 and is rounded to
    float32 once at the end (more accurate than XLA's tree of f32 partial sums, and
    vectorizes as well)."""
    return reducer_op(reduce) is Opcode.ADD and reduce.shape.element_type is dtypes.F32


def identity(op: Opcode, t: ElementType) -> object:
    """The identity element of ``op`` on ``t`` (-0.0 for float sums: ``-0 + x = x``)."""
    if t.is_pred:
        return op in (Opcode.MULTIPLY, Opcode.MINIMUM, Opcode.AND)
    if t.is_float:
        return {
            Opcode.ADD: -0.0,
            Opcode.MULTIPLY: 1.0,
            Opcode.MAXIMUM: -math.inf,
            Opcode.MINIMUM: math.inf,
        }[op]
    low = -(1 << (t.bits - 1)) if t.is_signed else 0
    high = (1 << (t.bits - 1)) - 1 if t.is_signed else (1 << t.bits) - 1
    return {
        Opcode.ADD: 0,
        Opcode.MULTIPLY: 1,
        Opcode.MAXIMUM: low,
        Opcode.MINIMUM: high,
        Opcode.AND: -1 if t.is_signed else high,
        Opcode.OR: 0,
        Opcode.XOR: 0,
    }[op]


def combine(
    em: KernelEmitter,
    frame: Frame,
    reduce: HloInstruction,
    accs: Sequence[str],
    xs: Sequence[Val],
    *,
    reassociate: bool = True,
    ordered: bool = False,
    wide: bool = False,
) -> None:
    """Emits ``accs = reducer(accs, xs)`` into ``frame``. ``ordered``: the caller combines
    in the interpreter's order (a scan), so only the ops' own exactness counts. ``wide``:
    the accumulator of a ``widened`` sum holds a float64 total and ``xs`` are its float32
    elements (flushed when read, then widened) or float64 partial totals (added as they are).

    Under ``flush_denormals`` a one-op float reducer reads its element with subnormals as
    zeros; maximum/minimum results are operands (flushed already), and a reassociated sum
    is a running total whose start and end ``accumulate`` flushes (flushing it every step
    would stop the loop from vectorizing); other steps flush accumulator and result.
    """
    types = [x.type for x in xs]
    op = reducer_op(reduce)
    if wide:
        em.exact = em.exact and ordered
        x = xs[0].text
        if xs[0].type is not dtypes.F64:
            flush = flush_helper(em, xs[0].type)
            x = f"np.float64({x if flush is None else f'{flush}({x})'})"
        if reassociate:
            expr = f"{em.helper('fast_math', 'add_reassoc')}({accs[0]}, {x})"
        else:
            expr = f"{accs[0]} + {x}"
        em.emit_in(frame, f"{accs[0]} = {expr}")
        return
    if op is not None:
        t = types[0]
        if t.is_float and op in (Opcode.ADD, Opcode.MULTIPLY) and not ordered:
            em.exact = False
        acc, x = accs[0], xs[0].text
        running = t.is_float and op is Opcode.ADD and reassociate
        flush = flush_helper(em, t)
        if flush is not None:
            x = f"{flush}({x})"
            acc = acc if running else f"{flush}({acc})"
        if running:
            expr = f"{em.helper('fast_math', 'add_reassoc')}({acc}, {x})"
        else:
            expr = binary_expression(em, op, t, acc, x)
        if expr is None:
            raise NoKernel(f"reduce {reduce.name}: {op.value} reducer on {t}")
        value = wrap(em, t, expr)
        if flush is not None and not running and op not in (Opcode.MAXIMUM, Opcode.MINIMUM):
            value = f"{flush}({value})"
        em.emit_in(frame, f"{accs[0]} = {value}")
        return
    body: HloComputation = reduce.attrs.to_apply
    params = body.parameters
    if len(params) != 2 * len(accs):
        raise NoKernel(f"reduce {reduce.name}: reducer {body.name} takes {len(params)} values")
    if any(t.is_float for t in types) and not ordered:
        em.exact = False
    values = [Val(a, t, frame) for a, t in zip(accs, types, strict=True)] + list(xs)
    for param, value in zip(params, values, strict=True):
        em.bindings[id(param)] = _constant(value)
    try:
        with em.scope(body.instructions), em.enter(frame):
            root = body.root
            leaves = root.operands if root.opcode is Opcode.TUPLE else [root]
            results = [em.scalar(leaf, ()) for leaf in leaves]
    finally:
        for param in params:
            em.bindings.pop(id(param), None)
    if len(results) != len(accs):
        raise NoKernel(f"reduce {reduce.name}: reducer {body.name} returns {len(results)} values")
    targets = ", ".join(accs)
    sources = ", ".join(wrap(em, t, r.text) for t, r in zip(types, results, strict=True))
    em.emit_in(frame, f"{targets} = {sources}" if len(accs) == 1 else f"{targets} = ({sources})")


def _constant(value: Val) -> Callable[[Index], Val]:
    return lambda index: value


def _check(reduce: HloInstruction) -> tuple[list[HloInstruction], list[HloInstruction]]:
    n = len(reduce.operands) // 2
    inputs, inits = reduce.operands[:n], reduce.operands[n:]
    for operand in reduce.operands:
        if not operand.shape.is_array:
            raise NoKernel(f"reduce {reduce.name}: tuple operand")
        numba_types.check(operand.shape.element_type, f"reduce {reduce.name}")
    return list(inputs), list(inits)


def reduced_map_results(em: KernelEmitter, reduce: HloInstruction) -> tuple[AffineExpr, ...]:
    """The input index of ``reduce`` over its output dims and reduced-dimension symbols."""
    (indexing,) = em.maps(reduce)[0]
    return indexing.map.results


def reduce_loops(
    em: KernelEmitter,
    reduce: HloInstruction,
    parent: Frame,
    chunk: tuple[str, int] | None = None,
) -> contextlib.AbstractContextManager[list[AffineExpr]]:
    """Nested loops over the reduced dimensions (in order) inside ``parent``."""
    extents = [reduce.operands[0].shape.dims[d] for d in sorted(reduce.attrs.dimensions)]
    return nested_loops(em, parent, "r", extents, chunk=chunk)


@contextlib.contextmanager
def nested_loops(
    em: KernelEmitter,
    parent: Frame,
    hint: str,
    extents: Sequence[int],
    *,
    chunk: tuple[str, int] | None = None,
) -> Iterator[list[AffineExpr]]:
    """Loops ``<hint>0, <hint>1...`` over ``extents`` nested in ``parent``; with ``chunk``
    (a chunk variable and the chunk size) the outermost covers one chunk only."""
    with contextlib.ExitStack() as stack:
        symbols = []
        frame = parent
        for position, extent in enumerate(extents):
            start = stop = None
            if position == 0 and chunk is not None:
                var, size = chunk
                start, stop = f"{var} * {size}", f"min({var} * {size} + {size}, {extent})"
            s = stack.enter_context(
                em.loop(frame, f"{hint}{position}", extent, start=start, stop=stop)
            )
            symbols.append(s)
            frame = em.current
        yield symbols


def input_index(
    em: KernelEmitter, reduce: HloInstruction, out_index: Index, reduced: Sequence[AffineExpr]
) -> Index:
    """The reduce input index of an output index and reduced-dimension symbols (its map)."""
    return tuple(
        r.replace(dims=out_index, symbols=list(reduced)) for r in reduced_map_results(em, reduce)
    )


@dataclass(frozen=True)
class InnerWriter:
    """Stores ``outputs`` (shaped like the reduce input) where the input element is read, in
    the innermost loop of the accumulation: ``writer(frame, input_index)``."""

    em: KernelEmitter
    outputs: tuple[Output, ...]

    def __call__(self, frame: Frame, index: Index) -> None:
        em = self.em
        with em.enter(frame):
            values = [em.scalar(o.instr, index) for o in self.outputs]  # every read first
            for o, value in zip(self.outputs, values, strict=True):
                em.store(frame, o, index, value)

    def stored(self, instr: HloInstruction, index: Index) -> Val | None:
        """``instr``'s element at ``index`` read back from its output array, when it is one
        of the outputs (after the accumulation loop that wrote it), else None."""
        for o in self.outputs:
            if o.instr is instr and o.position == 0:
                offset = self.em.flat_index(index, o.dims)
                load = self.em.load(o.arg, offset)
                return self.em.emit(f"{instr.name}_stored", load, o.type, index=index)
        return None


def reduce_group(
    em: KernelEmitter,
    reduces: Sequence[HloInstruction],
    index: Index,
    inner: InnerWriter | None = None,
) -> dict[int, tuple[Val, ...]]:
    """Reduces sharing input dims and dimensions, accumulated in one loop nest placed at the
    home frame of ``index``; ``inner(frame, input_index)`` adds code to the innermost loop."""
    home = em.home(index=index)
    starts = {id(r): [em.scalar(init, ()).text for init in _check(r)[1]] for r in reduces}
    accs = accumulate(em, home, reduces, index, starts, inner)
    return {
        id(r): tuple(Val(a, t, home) for a, (_, t) in zip(accs[id(r)], _results(r), strict=True))
        for r in reduces
    }


def _keyed(reduce: HloInstruction) -> bool:
    """Float maximum/minimum: reduced through TOTALORDER keys (see ``accumulate``)."""
    return reducer_op(reduce) in (Opcode.MAXIMUM, Opcode.MINIMUM) and (
        reduce.shape.element_type.is_float
    )


def accumulate(
    em: KernelEmitter,
    home: Frame,
    reduces: Sequence[HloInstruction],
    index: Index,
    starts: dict[int, list[str]],
    inner: InnerWriter | None,
    chunk: tuple[str, int] | None = None,
    rounded: bool = True,
) -> dict[int, list[str]]:
    """Accumulators of ``reduces`` in ``home``, started from ``starts`` (source per result),
    updated in one loop nest over the reduced dimensions (the outermost restricted to
    ``chunk``); returns their names. A ``widened`` sum accumulates in float64 and is rounded
    to float32 after the loop, unless ``rounded`` is false (its float64 total is returned).

    Float maximum and minimum accumulate the TOTALORDER integer key of each element (an
    integer max/min, which vectorizes, and orders -0 below +0 as IEEE maximum/minimum do)
    and a flag of NaNs seen; when a NaN was seen, the reduction runs again with the exact
    element rule, which returns the first NaN, as the interpreter does. That second pass
    reads elements that ``inner`` stored from their output arrays rather than from the
    kernel's operands, so those outputs may take a donated operand's buffer (``_in_place``).
    """
    accs: dict[int, list[str]] = {}
    keys: dict[int, tuple[str, str, str]] = {}
    wides: dict[int, str] = {}
    for r in reduces:
        names = []
        for (k, t), start in zip(_results(r), starts[id(r)], strict=True):
            names.append(em.fresh(f"{r.name}_acc{k}" if len(starts[id(r)]) > 1 else r.name))
            flush = flush_helper(em, t) if reducer_op(r) is not None else None
            value = start if flush is None else f"{flush}({start})"
            if widened(r):
                wides[id(r)] = em.fresh(f"{r.name}_wide")
                em.emit_in(home, f"{wides[id(r)]} = np.float64({value})")
            else:
                em.emit_in(home, f"{names[-1]} = {value}")
        accs[id(r)] = names
        if _keyed(r):
            bits = max(32, r.shape.element_type.bits)  # f16/bf16 values are f32 here
            key, nan = em.fresh(f"{r.name}_key"), em.fresh(f"{r.name}_nan")
            to_key = em.helper("scalar_ops", f"total_order_key_f{bits}")
            em.emit_in(home, f"{key} = {to_key}({names[0]})")
            em.emit_in(home, f"{nan} = {names[0]} != {names[0]}")
            keys[id(r)] = (key, nan, to_key)
    with _sum_loops(em, reduces[0], home, chunk, wides) as (reduced, totals):
        frame = em.current
        in_index = input_index(em, reduces[0], index, reduced)
        for r in reduces:
            xs = [em.scalar(x, in_index) for x in _check(r)[0]]
            if id(r) in totals:
                total, wide = totals[id(r)]
                combine(em, frame, r, [total], xs, wide=wide)
                continue
            if id(r) not in keys:
                combine(em, frame, r, accs[id(r)], xs)
                continue
            key, nan, to_key = keys[id(r)]
            x = xs[0].text
            flush = flush_helper(em, xs[0].type)
            element_key = em.fresh(f"{r.name}_element_key")
            better = ">" if reducer_op(r) is Opcode.MAXIMUM else "<"
            read = x if flush is None else f"{flush}({x})"
            em.emit_in(frame, f"{element_key} = {to_key}({read})")
            em.emit_in(frame, f"{key} = {key} if {key} {better} {element_key} else {element_key}")
            em.emit_in(frame, f"{nan} = {nan} | ({x} != {x})")
        if inner is not None:
            inner(frame, in_index)
    for r in reduces:
        if id(r) in wides:
            if not rounded:
                accs[id(r)] = [wides[id(r)]]
                continue
            _round_wide(em, home, r, accs[id(r)][0], wides[id(r)])
            continue
        flush = flush_helper(em, r.shape.element_type) if not r.shape.is_tuple else None
        if flush is not None and reducer_op(r) is Opcode.ADD:  # the running total's end
            em.emit_in(home, f"{accs[id(r)][0]} = {flush}({accs[id(r)][0]})")
        if id(r) not in keys:
            continue
        key, nan, to_key = keys[id(r)]
        acc = accs[id(r)][0]
        bits = max(32, r.shape.element_type.bits)
        from_key = em.helper("scalar_ops", f"f{bits}_from_total_order_key")
        em.emit_in(home, f"{acc} = {from_key}({key})")
        exact = Frame(f"if {nan}:", home, branch=True)
        em.emit_in(exact, f"{acc} = {starts[id(r)][0]}")
        with em.enter(exact), reduce_loops(em, r, exact, chunk) as reduced:
            in_index = input_index(em, r, index, reduced)
            xs = []
            for x in _check(r)[0]:
                stored = None if inner is None else inner.stored(x, in_index)
                xs.append(stored if stored is not None else em.scalar(x, in_index))
            combine(em, em.current, r, [acc], xs)
        home.items.append(exact)
    return accs


BLOCK = 4096
"""Elements of the innermost reduced dimension a widened sum adds in a float32 partial sum
(vectorized at float32 width, 32 lanes) before adding it to its float64 total: long enough
that the partial's horizontal sum costs little (256 was 3x slower on rows of 1024)."""
BLOCKED_MIN = 256
"""Shorter innermost reduced dimensions accumulate every element in float64 directly."""


@contextlib.contextmanager
def _sum_loops(
    em: KernelEmitter,
    reduce: HloInstruction,
    home: Frame,
    chunk: tuple[str, int] | None,
    wides: dict[int, str],
) -> Iterator[tuple[list[AffineExpr], dict[int, tuple[str, bool]]]]:
    """``reduce_loops`` for a group with ``widened`` sums (their float64 totals in
    ``wides``); yields the reduced symbols and, per widened sum, the accumulator the loop
    body adds its elements to and whether it is the float64 total. When the innermost
    reduced dimension (or chunk) has ``BLOCKED_MIN`` elements or more it is cut into blocks
    whose elements go into a float32 partial sum, added to the total after each block (a
    two-level sum: as accurate, at float32 speed)."""
    extents = [reduce.operands[0].shape.dims[d] for d in sorted(reduce.attrs.dimensions)]
    last = extents[-1]
    span = chunk[1] if chunk is not None and len(extents) == 1 else last
    if not wides or span < BLOCKED_MIN:
        with nested_loops(em, home, "r", extents, chunk=chunk) as reduced:
            yield reduced, {key: (total, True) for key, total in wides.items()}
        return
    outer_chunk = chunk if len(extents) > 1 else None
    with nested_loops(em, home, "r", extents[:-1], chunk=outer_chunk) as outer:
        low, high = "0", str(last)
        if chunk is not None and len(extents) == 1:
            var, size = chunk
            low, high = f"{var} * {size}", f"min({var} * {size} + {size}, {last})"
        with em.loop(em.current, "block", -(-span // BLOCK)) as b:
            block = em.current
            partials = {}
            for key, total in wides.items():
                partials[key] = (em.fresh(f"{total}_block"), False)
                em.emit_in(block, f"{partials[key][0]} = np.float32(-0.0)")
            start = f"{low} + {em.render(b)} * {BLOCK}"
            stop = f"min({start} + {BLOCK}, {high})"
            hint = f"r{len(extents) - 1}"
            with em.loop(block, hint, last, start=start, stop=stop) as symbol:
                yield [*outer, symbol], partials
            for key, total in wides.items():
                em.emit_in(block, f"{total} = {total} + np.float64({partials[key][0]})")


@generates(Opcode.REDUCE)
def reduce(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val | tuple[Val, ...]:
    """An inline reduction of the element at ``index`` (a tuple for variadic reduces)."""
    values = reduce_group(em, [instr], index)[id(instr)]
    return values if instr.shape.is_tuple else values[0]


# ---- loop plans of kernels whose outputs are reductions -------------------------------------

COLUMN_CHUNKS = 16
"""Parallel chunks of the kept minor dimension of a column reduction without outer dims."""


def emit_reductions(
    em: KernelEmitter, outputs: Sequence[Output], reduces: Sequence[HloInstruction], parallel: bool
) -> tuple[str, tuple[Output, ...]]:
    """Emits the loops of a kernel whose outputs include ``reduces`` (see the module
    docstring); returns the plan's name and the outputs stored where the input is read."""
    first = reduces[0]
    in_dims = first.operands[0].shape.dims
    dims = tuple(sorted(first.attrs.dimensions))
    for r in reduces:
        _check(r)
        if r.operands[0].shape.dims != in_dims or tuple(sorted(r.attrs.dimensions)) != dims:
            raise NoKernel(f"reduce {r.name}: sibling reductions of different shapes")
    out_dims = tuple(n for d, n in enumerate(in_dims) if d not in dims)
    group = {id(r) for r in reduces}
    inner = [o for o in outputs if id(o.instr) not in group and o.dims == in_dims and dims]
    after = [o for o in outputs if o not in inner]
    for o in after:
        if id(o.instr) not in group and o.dims != out_dims:
            raise NoKernel(f"{o.instr.opcode.value} {o.instr.name}: output shape {o.dims}")
    writer = InnerWriter(em, tuple(inner)) if inner else None
    extent = math.prod(in_dims[d] for d in dims)
    if (
        parallel
        and math.prod(out_dims) <= SPLIT_MAX_OUTPUTS
        and extent >= SPLIT_MIN_EXTENT
        and in_dims[dims[0]] > 1
        and all(splittable(r) for r in reduces)
    ):
        _split_plan(em, after, reduces, out_dims, writer)
        return "split reduction", tuple(inner)
    if dims and (len(in_dims) - 1) not in dims:
        _column_plan(em, after, reduces, in_dims, dims, parallel, writer)
        return "column reduction", tuple(inner)
    with em.output_loops(out_dims, parallel) as index:
        frame = em.current
        results = reduce_group(em, reduces, index, writer)
        _store_after(em, frame, after, reduces, index, results)
    return "row reduction", tuple(inner)


def _store_after(
    em: KernelEmitter,
    frame: Frame,
    outputs: Sequence[Output],
    reduces: Sequence[HloInstruction],
    index: Index,
    results: dict[int, tuple[Val, ...]],
) -> None:
    """Stores the reduce results and the outputs computed from them at ``index``."""
    for r in reduces:
        values = results[id(r)]
        em.remember(r, index, values if r.shape.is_tuple else values[0])
    with em.enter(frame):
        for o in outputs:
            if id(o.instr) in results:
                value = results[id(o.instr)][o.position]
            else:
                value = em.scalar(o.instr, index)
            em.store(frame, o, index, value)


def _results(reduce: HloInstruction) -> list[tuple[int, ElementType]]:
    shapes = reduce.shape.tuple_shapes if reduce.shape.is_tuple else (reduce.shape,)
    return [(k, s.element_type) for k, s in enumerate(shapes)]


def _column_plan(
    em: KernelEmitter,
    outputs: Sequence[Output],
    reduces: Sequence[HloInstruction],
    in_dims: Sequence[int],
    dims: Sequence[int],
    parallel: bool,
    writer: InnerWriter | None,
) -> None:
    """Accumulates into arrays indexed by the kept dimensions, the kept minor dimensions
    innermost (contiguous reads); a ``widened`` sum accumulates into a float64 scratch row
    whose totals are rounded into its output after the loops."""
    kept = [d for d in range(len(in_dims)) if d not in dims]
    outer = [in_dims[d] for d in kept if d < dims[-1]]
    trailing = [in_dims[d] for d in kept if d > dims[-1]]
    out_dims = tuple(in_dims[d] for d in kept)
    size = math.prod(out_dims)
    arrays: dict[tuple[int, int], Output] = {}
    for o in outputs:
        if o.instr in reduces and not widened(o.instr):
            arrays[(id(o.instr), o.position)] = o
    for r in reduces:
        for k, t in _results(r):
            if (id(r), k) not in arrays:
                t = dtypes.F64 if widened(r) else t
                arrays[(id(r), k)] = Output(r, k, em.scratch(f"{r.name}_values{k}", t, size))
    with contextlib.ExitStack() as stack:
        chunk = None
        outer_index: Index = ()
        if outer:
            outer_index = stack.enter_context(em.output_loops(outer, parallel, "o"))
        elif parallel and trailing[0] >= 2 * COLUMN_CHUNKS:
            block = -(-trailing[0] // COLUMN_CHUNKS)
            count = -(-trailing[0] // block)
            c = stack.enter_context(em.loop(em.current, "chunk", count, parallel=True))
            chunk = (em.render(c), block)
        home = em.current
        with nested_loops(em, home, "t", trailing, chunk=chunk) as t_index:
            for r in reduces:
                _, inits = _check(r)
                for k, init in enumerate(inits):
                    value = em.scalar(init, ())
                    flush = flush_helper(em, value.type) if widened(r) else None
                    if flush is not None:  # the running total's start
                        value = Val(f"{flush}({value.text})", value.type, value.frame)
                    em.store(em.current, arrays[(id(r), k)], (*outer_index, *t_index), value)
        with (
            reduce_loops(em, reduces[0], home) as reduced,
            nested_loops(em, em.current, "t", trailing, chunk=chunk) as t_index,
        ):
            frame = em.current
            out_index = (*outer_index, *t_index)
            in_index = input_index(em, reduces[0], out_index, reduced)
            for r in reduces:
                inputs, _ = _check(r)
                accs = []
                for k, _ in _results(r):
                    target = arrays[(id(r), k)]
                    read = em.fresh(f"{r.name}_acc{k}")
                    offset = em.flat_index(out_index, target.dims)
                    em.emit_in(frame, f"{read} = {em.load(target.arg, offset)}")
                    accs.append(read)
                xs = [em.scalar(x, in_index) for x in inputs]
                combine(em, frame, r, accs, xs, reassociate=False, wide=widened(r))
                for (k, _), acc in zip(_results(r), accs, strict=True):
                    target = arrays[(id(r), k)]
                    offset = em.flat_index(out_index, target.dims)
                    em.emit_in(frame, em.store_text(target.arg, offset, acc))
            if writer is not None:
                writer(frame, in_index)
        rest = [o for o in outputs if o.instr not in reduces or widened(o.instr)]
        if rest:
            with nested_loops(em, home, "t", trailing, chunk=chunk) as t_index:
                frame = em.current
                out_index = (*outer_index, *t_index)
                for r in reduces:  # read lazily: only the results the outputs use
                    em.bindings[id(r)] = _array_reader(em, r, arrays)
                try:
                    for o in rest:
                        em.store(frame, o, out_index, em.scalar(o.instr, out_index))
                finally:
                    for r in reduces:
                        del em.bindings[id(r)]


def _array_reader(
    em: KernelEmitter, reduce: HloInstruction, arrays: dict[tuple[int, int], Output]
) -> Callable[[Index], Val | tuple[Val, ...]]:
    """Reads the accumulated results of ``reduce`` at an output index."""

    def read(index: Index) -> Val | tuple[Val, ...]:
        values = []
        for k, t in _results(reduce):
            target = arrays[(id(reduce), k)]
            offset = em.flat_index(index, target.dims)
            load = em.load(target.arg, offset)
            if widened(reduce):  # the float64 total rounded once, then flushed (its end)
                flush = flush_helper(em, t)
                load = f"np.float32({load})"
                load = load if flush is None else f"{flush}({load})"
            values.append(em.emit(f"{reduce.name}_{k}", load, t, index=index))
        return tuple(values) if reduce.shape.is_tuple else values[0]

    return read


def _split_plan(
    em: KernelEmitter,
    outputs: Sequence[Output],
    reduces: Sequence[HloInstruction],
    out_dims: Sequence[int],
    writer: InnerWriter | None,
) -> None:
    """Chunks of the outermost reduced dimension reduced in parallel from the identity into
    partial arrays, then combined in chunk order with the init values (a ``widened`` sum's
    partial totals stay float64 and the result is rounded once)."""
    first = reduces[0]
    extent = first.operands[0].shape.dims[min(first.attrs.dimensions)]
    block = -(-extent // SPLIT_CHUNKS)
    count = -(-extent // block)
    parts_dims = (count, *out_dims)
    parts = {
        (id(r), k): Output(
            r,
            k,
            em.scratch(f"{r.name}_part{k}", dtypes.F64 if widened(r) else t, math.prod(parts_dims)),
        )
        for r in reduces
        for k, t in _results(r)
    }
    with (
        em.loop(em.current, "chunk", count, parallel=True) as c,
        em.output_loops(out_dims, False) as index,
    ):
        home = em.current
        starts = {}
        for r in reduces:
            op = reducer_op(r)
            assert op is not None
            starts[id(r)] = [identity_literal(op, t) for _, t in _results(r)]
        chunk = (em.render(c), block)
        accs = accumulate(em, home, reduces, index, starts, writer, chunk, rounded=False)
        for r in reduces:
            for (k, _), acc in zip(_results(r), accs[id(r)], strict=True):
                target = parts[(id(r), k)]
                offset = em.flat_index((c, *index), parts_dims)
                em.emit_in(home, em.store_text(target.arg, offset, acc))
    with em.output_loops(out_dims, False) as index:
        home = em.current
        results = {}
        for r in reduces:
            _, inits = _check(r)
            names = []
            for init in inits:
                name = em.fresh(f"{r.name}")
                em.emit_in(home, f"{name} = {em.scalar(init, ()).text}")
                names.append(name)
            totals = names
            if widened(r):
                flush = flush_helper(em, r.shape.element_type)
                totals = [em.fresh(f"{r.name}_wide")]
                start = names[0] if flush is None else f"{flush}({names[0]})"
                em.emit_in(home, f"{totals[0]} = np.float64({start})")
            with em.loop(home, "chunk", count) as c2:
                frame = em.current
                partials = []
                for k, _ in _results(r):
                    target = parts[(id(r), k)]
                    offset = em.flat_index((c2, *index), parts_dims)
                    partials.append(
                        em.emit(
                            f"{r.name}_part",
                            em.load(target.arg, offset),
                            target.arg.type,
                            index=[c2, *index],
                        )
                    )
                combine(em, frame, r, totals, partials, reassociate=False, wide=widened(r))
            if widened(r):
                _round_wide(em, home, r, names[0], totals[0])
            results[id(r)] = tuple(
                Val(n, t, home) for n, (_, t) in zip(names, _results(r), strict=True)
            )
        _store_after(em, home, outputs, reduces, index, results)


def identity_literal(op: Opcode, t: ElementType) -> str:
    """Source of the identity element of ``op`` on ``t``."""
    text = numba_types.literal(identity(op, t), t)
    assert text is not None
    return text


def _round_wide(
    em: KernelEmitter, frame: Frame, reduce: HloInstruction, acc: str, wide: str
) -> None:
    """``acc = wide`` rounded to float32 once (then flushed under ``flush_denormals``: the
    end of the running total)."""
    flush = flush_helper(em, reduce.shape.element_type)
    value = f"np.float32({wide})"
    em.emit_in(frame, f"{acc} = {value if flush is None else f'{flush}({value})'}")
