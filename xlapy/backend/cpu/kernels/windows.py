"""Compiled windowed ops: ``reduce-window`` with a one-op reducer (add, multiply, max, min,
and, or, xor) and ``select-and-scatter`` with a compare select and a one-op scatter, as
generated numba loop nests (one per rank), any strides, padding and dilations.

Per output element the window is visited in row-major order, exactly as the interpreter
(OPS.md ReduceWindow / SelectAndScatter, A.9): padding cells combine the init value, base
dilation holes are skipped. When the last dimension's window is trivial (the NHWC pooling
case), its loop is innermost over contiguous rows so that it vectorises. Under
``flush_denormals`` every reducer step and select compare reads float subnormals as zeros
and every reducer result is flushed, as the interpreter's calls of those computations do.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from xlapy import dtypes
from xlapy.backend.cpu.codegen.fusion_emitter import PARALLEL_WORK, runtime_version
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.kernels import blas
from xlapy.backend.cpu.kernels.window_taps import tap_tables
from xlapy.backend.cpu.source_cache import load_source
from xlapy.dtypes import ElementType
from xlapy.interpreter.evals.compare_select import default_comparison_type
from xlapy.interpreter.evals.reduce import simple_binary_reducer
from xlapy.interpreter.evals.windows import window_output_dims
from xlapy.ir.attrs import ComparisonDirection, Window, WindowDimension
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

# ``combine(a, b)`` of each reducer, on the element's own numba type. The IEEE forms are the
# interpreter's maximum/minimum: the first NaN operand wins, max(-0, +0) = +0, min = -0.
_COMBINE = {
    "add": "return a + b",
    "multiply": "return a * b",
    "max": "return max(a, b)",
    "min": "return min(a, b)",
    "and": "return a & b",
    "or": "return a | b",
    "xor": "return a ^ b",
    "ieee_max": (
        "if a != a:\n        return a\n    if b != b:\n        return b\n"
        "    return a if a > b or (a == b and not np.signbit(a)) else b"
    ),
    "ieee_min": (
        "if a != a:\n        return a\n    if b != b:\n        return b\n"
        "    return a if a < b or (a == b and np.signbit(a)) else b"
    ),
}
_BY_OPCODE = {
    Opcode.ADD: "add",
    Opcode.MULTIPLY: "multiply",
    Opcode.MAXIMUM: "max",
    Opcode.MINIMUM: "min",
    Opcode.AND: "and",
    Opcode.OR: "or",
    Opcode.XOR: "xor",
}
_PRED = {"add": "or", "multiply": "and", "max": "or", "min": "and"}
_FLOATS = (dtypes.F32, dtypes.F64)


def reducer_name(comp: HloComputation, t: ElementType) -> tuple[str, bool]:
    """``(combine name, swapped)`` of a one-op reducer ``op(p0, p1)`` (``swapped``: the
    computation is ``op(p1, p0)``) for element type ``t``; NoKernel otherwise."""
    op = simple_binary_reducer(comp)
    if op is None or op not in _BY_OPCODE:
        raise NoKernel("reducer is not one binary op of its two parameters")
    name = _BY_OPCODE[op]
    swapped = comp.root.operands[0].parameter_number == 1
    if t.is_pred:
        return _PRED.get(name, name), False
    if t.is_integer and t.bits == 8 * np.dtype(t.numpy).itemsize:
        return name, swapped
    if t in _FLOATS and name in ("add", "multiply", "max", "min"):
        return {"max": "ieee_max", "min": "ieee_min"}.get(name, name), swapped
    raise NoKernel(f"{op.value} reducer on {t}")


def flush_helper(t: ElementType, options: CompileOptions) -> str | None:
    """The ``scalar_ops`` helper flushing subnormals of float type ``t`` under
    ``flush_denormals`` (None: no flushing)."""
    if not (options.flush_denormals and t in _FLOATS):
        return None
    return f"flush_f{t.bits}"


def combine_source(combine: str, flush: str | None) -> list[str]:
    """Lines defining ``combine(a, b)``; with ``flush``, the reducer as the interpreter runs
    it under flush_denormals: both operands read with subnormals as zeros, the result
    flushed (XLA:CPU's DAZ/FTZ)."""
    if flush is None:
        return ["@numba.njit", "def combine(a, b):", f"    {_COMBINE[combine]}"]
    return [
        f"from xlapy.backend.cpu.codegen.scalar_ops import {flush} as ftz",
        f"# runtime {runtime_version()}",
        "",
        "",
        "@numba.njit",
        "def combine_values(a, b):",
        f"    {_COMBINE[combine]}",
        "",
        "",
        "@numba.njit",
        "def combine(a, b):",
        "    return ftz(combine_values(ftz(a), ftz(b)))",
    ]


_CANONICAL_RANK = 4


def _canonical(dims: Sequence[int], window: Window) -> tuple[tuple[int, ...], Window]:
    """Operand dims and window with leading unit dimensions (trivial windows) up to rank 4,
    so that one compiled loop nest serves every rank up to 4."""
    lead = max(_CANONICAL_RANK - len(dims), 0)
    unit = WindowDimension(1)
    return (1,) * lead + tuple(dims), Window((unit,) * lead + tuple(window.dimensions))


def _trivial(d: WindowDimension) -> bool:
    return (
        d.size == 1
        and d.stride == 1
        and d.base_dilation == 1
        and not (d.padding_low or d.padding_high)
    )


def _loops(rank: int, indent: int) -> tuple[list[str], int]:
    """``for o1 in range(O1): for o2 in range(O2): ...`` lines (``o0`` is the row function's
    argument); returns them and the indent of the body."""
    lines = []
    for d in range(1, rank):
        lines.append(" " * indent + f"for o{d} in range(O{d}):")
        indent += 4
    return lines, indent


def _rows(name: str, row: str, args: str) -> list[str]:
    """The cached entry point: ``row(o0, ...)`` for ``o0`` in ``range(lo, hi)``, without the
    GIL, so that the kernel's ``run`` spreads blocks of rows over threads (``_over_rows``).

    numba's own ``parallel=True`` (prange) compiled the maxpool kernel in 4 s of CPU, 2.3 s
    with the nest in a row function; the serial entry compiles in about 0.8 s.
    """
    return [
        "",
        "",
        "@numba.njit(cache=True, nogil=True)",
        f"def {name}(lo, hi, {args}):",
        "    for o0 in range(lo, hi):",
        f"        {row}(o0, {args})",
    ]


def _over_rows(function: Callable[..., None], rows: int, parallel: bool, *args: object) -> None:
    """``function(lo, hi, *args)`` over ``range(rows)``: in blocks taken in turn by the BLAS
    thread pool's workers when ``parallel`` (a busy core then takes fewer blocks), else one
    call."""
    threads = blas.workers() if parallel else 1
    if threads == 1 or rows < 2:
        function(0, rows, *args)
        return
    size = max(1, rows // (4 * threads))
    blocks = itertools.count()

    def task() -> None:
        while (lo := next(blocks) * size) < rows:
            function(lo, min(rows, lo + size), *args)

    blas.run_parallel([task] * min(threads, rows))


def _parallel(options: CompileOptions, out_dims: Sequence[int], window: Window) -> bool:
    """Whether a window kernel runs on several threads: as for fusions, from
    ``PARALLEL_WORK`` (output elements times window cells) on."""
    cells = math.prod(d.size for d in window.dimensions)
    return options.parallel and math.prod(out_dims) * cells >= PARALLEL_WORK


def _taps(rank: int, indent: int) -> tuple[list[str], int]:
    """Row-major loops over window positions, binding each dimension's operand index."""
    lines = []
    for d in range(rank):
        lines.append(" " * indent + f"for k{d} in range(t{d}.shape[1]):")
        lines.append(" " * (indent + 4) + f"i{d} = t{d}[o{d}, k{d}]")
        indent += 4
    return lines, indent


def _any(rank: int, test: str) -> str:
    return " or ".join(test.format(d=d) for d in range(rank))


def _all(rank: int, test: str) -> str:
    return " and ".join(test.format(d=d) for d in range(rank))


def reduce_window_source(
    rank: int,
    vector: bool,
    combine: str,
    swapped: bool,
    flush: str | None = None,
) -> str:
    """The generated reduce-window loop nest over ``rank`` windowed dimensions (plus a
    trailing contiguous dimension when ``vector``); ``flush`` names the helper that flushes
    subnormals in each reducer step (``combine_source``)."""
    acc = "combine({v}, acc)" if swapped else "combine(acc, {v})"
    tables = ", ".join(f"t{d}" for d in range(rank))
    outs = ", ".join(f"O{d}" for d in range(rank)) + (", C" if vector else "")
    index = ", ".join(f"o{d}" for d in range(rank))
    cell = ", ".join(f"i{d}" for d in range(rank))
    lines = [
        f"# reduce-window ({combine}) over {rank} windowed dimension(s)"
        + (" and a contiguous last dimension" if vector else ""),
        "import numba",
        "import numpy as np",
        "",
        "",
        *combine_source(combine, flush),
        "",
        "",
        "@numba.njit",
        f"def window_row(o0, x, init, out, {tables}):",
        f"    {outs}{',' if rank + vector == 1 else ''} = out.shape",
    ]
    loops, indent = _loops(rank, 4)
    lines += loops
    pad = _any(rank, "i{d} == -1")
    real = _all(rank, "i{d} >= 0")
    if vector:
        sp = " " * indent
        lines += [
            sp + f"acc_row = out[{index}]",
            sp + "for c in range(C):",
            sp + "    acc_row[c] = init",
        ]
        taps, inner = _taps(rank, indent)
        lines += taps
        ip = " " * inner
        upd_init = acc.format(v="init").replace("acc", "acc_row[c]")
        upd_x = acc.format(v="row[c]").replace("acc", "acc_row[c]")
        lines += [
            ip + f"if {pad}:",
            ip + "    for c in range(C):",
            ip + f"        acc_row[c] = {upd_init}",
            ip + f"elif {real}:",
            ip + f"    row = x[{cell}]",
            ip + "    for c in range(C):",
            ip + f"        acc_row[c] = {upd_x}",
        ]
    else:
        sp = " " * indent
        lines.append(sp + "acc = init")
        taps, inner = _taps(rank, indent)
        lines += taps
        ip = " " * inner
        lines += [
            ip + f"if {pad}:",
            ip + f"    acc = {acc.format(v='init')}",
            ip + f"elif {real}:",
            ip + f"    acc = {acc.format(v=f'x[{cell}]')}",
            sp + f"out[{index}] = acc",
        ]
    lines += _rows("reduce_window", "window_row", f"x, init, out, {tables}")
    return "\n".join(lines) + "\n"


def _storage(t: ElementType) -> np.dtype:
    """The dtype the loops run on (pred as uint8 0/1)."""
    return np.dtype(np.uint8) if t.is_pred else np.dtype(t.numpy)


def _compile(source: str, name: str, cache_dir: Path | None) -> Callable[..., None]:
    fn: Callable[..., None] = getattr(load_source(source, cache_dir), name)
    return fn


# ---- reduce-window -------------------------------------------------------------------------


@kernel_for(Opcode.REDUCE_WINDOW, priority=10)
def reduce_window_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """ReduceWindow of one input with a one-op reducer: per output element, ``acc = init``
    combined with every window cell in row-major order (padding: ``init``; holes skipped).

    Bit-identical to the interpreter (same order and the same operations per element).
    """
    if len(instr.operands) != 2:
        raise NoKernel("variadic reduce-window")
    operand, init = (o.shape for o in instr.operands)
    if not (operand.is_array and operand.is_static and instr.shape.is_array):
        raise NoKernel("non-array or dynamic operands")
    if operand.rank == 0:
        raise NoKernel("rank-0 operand")
    t = operand.element_type
    if init.element_type is not t or instr.shape.element_type is not t:
        raise NoKernel("init or result of another type")
    combine, swapped = reducer_name(instr.attrs.to_apply, t)
    flush = flush_helper(t, options)
    window: Window = instr.attrs.window
    if not window.dimensions:
        window = Window.make([1] * operand.rank)
    out_dims = window_output_dims("reduce-window", instr, operand.dims, window)
    if tuple(out_dims) != tuple(instr.shape.dims):
        raise NoKernel("result shape disagrees with the window")
    dims, window = _canonical(operand.dims, window)
    padded_out = (1,) * (len(dims) - operand.rank) + tuple(out_dims)
    vector = _trivial(window.dimensions[-1])
    rank = len(dims) - vector
    tables = tap_tables(dims[:rank], Window(window.dimensions[:rank]), padded_out[:rank])
    parallel = _parallel(options, out_dims, window)
    source = reduce_window_source(rank, vector, combine, swapped, flush)
    storage = _storage(t)
    started = time.perf_counter()
    loop = _compile(source, "reduce_window", options.cache_dir)
    small = [np.zeros((1, 1), np.int64) for _ in range(rank)]
    loop(0, 1, np.zeros((1,) * len(dims), storage), storage.type(0),
         np.zeros((1,) * len(dims), storage), *small)  # fmt: skip
    compile_seconds = time.perf_counter() - started
    dtype = np.dtype(t.numpy)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        x = np.ascontiguousarray(operands[0]).view(storage).reshape(dims)
        init_value = np.asarray(operands[1]).reshape(()).view(storage)[()]
        out = np.empty(padded_out, storage)
        if out.size:
            _over_rows(loop, out.shape[0], parallel, x, init_value, out, *tables)
        return out.view(dtype).reshape(out_dims)

    how = (
        f"numba loop nest ({combine}), {rank} windowed dim(s)"
        + (", contiguous last dim vectorised" if vector else "")
        + (", parallel" if parallel else "")
    )
    return Kernel(
        run=run, how=how, source=source, compile_seconds=compile_seconds, exact=True, views=()
    )


# ---- select-and-scatter --------------------------------------------------------------------

_SELECT = {
    ComparisonDirection.GE: ">=",
    ComparisonDirection.GT: ">",
    ComparisonDirection.LE: "<=",
    ComparisonDirection.LT: "<",
}


def select_expression(comp: HloComputation, t: ElementType) -> str:
    """``a <op> b`` for a select computation ``compare(p0, p1)`` (either order) of the default
    comparison type; NoKernel otherwise."""
    root = comp.root
    if root.opcode is not Opcode.COMPARE or comp.num_parameters != 2:
        raise NoKernel("select is not one comparison")
    lhs, rhs = root.operands
    if {lhs.opcode, rhs.opcode} != {
        Opcode.PARAMETER
    } or lhs.parameter_number == rhs.parameter_number:
        raise NoKernel("select does not compare its two parameters")
    ctype = root.attrs.type
    if ctype is not None and ctype is not default_comparison_type(t):
        raise NoKernel(f"select compares {t} as {ctype.name}")
    op = _SELECT.get(root.attrs.direction)
    if op is None:
        raise NoKernel(f"select direction {root.attrs.direction.name}")
    first, second = ("a", "b") if lhs.parameter_number == 0 else ("b", "a")
    return f"{first} {op} {second}"


def select_and_scatter_source(
    rank: int,
    select: str,
    combine: str,
    swapped: bool,
    flush: str | None = None,
) -> str:
    """Generated select-and-scatter: a parallel pass choosing each window's cell, then the
    sequential scatter of ``source`` in row-major order. With ``flush``, the select compares
    and the scatter steps read subnormals as zeros (the scatter flushes its results)."""
    tables = ", ".join(f"t{d}" for d in range(rank))
    outs = ", ".join(f"O{d}" for d in range(rank))
    index = ", ".join(f"o{d}" for d in range(rank))
    cell = ", ".join(f"i{d}" for d in range(rank))
    flat = " + ".join(f"i{d} * s{d}" for d in range(rank))
    strides = "\n".join(
        f"    s{d} = {' * '.join(f'x.shape[{e}]' for e in range(d + 1, rank)) or '1'}"
        for d in range(rank)
    )
    lines = [
        f"# select-and-scatter: select {select!r}, scatter {combine}, {rank} dimension(s)",
        "import numba",
        "import numpy as np",
        "",
        "",
        *combine_source(combine, flush),
        "",
        "",
        "@numba.njit",
        "def keep(a, b):",
        *(["    a, b = ftz(a), ftz(b)"] if flush else []),
        f"    return {select}",
        "",
        "",
        "@numba.njit",
        f"def choose_row(o0, x, zero, chosen, {tables}):",
        f"    {outs}{',' if rank == 1 else ''} = chosen.shape",
        strides,
    ]
    loops, indent = _loops(rank, 4)
    lines += loops
    sp = " " * indent
    lines += [sp + "best = -1", sp + "value = zero"]
    taps, inner = _taps(rank, indent)
    lines += taps
    ip = " " * inner
    lines += [
        ip + f"if {_all(rank, 'i{d} >= 0')}:",
        ip + f"    candidate = x[{cell}]",
        ip + "    if best < 0 or not keep(value, candidate):",
        ip + f"        best = {flat}",
        ip + "        value = candidate",
        sp + f"chosen[{index}] = best",
    ]
    lines += _rows("choose", "choose_row", f"x, zero, chosen, {tables}")
    lines += [
        "",
        "",
        "@numba.njit(cache=True)",
        "def scatter(out, chosen, source):",
        "    for p in range(chosen.size):",
        "        t = chosen[p]",
        "        if t >= 0:",
        "            out[t] = "
        + ("combine(source[p], out[t])" if swapped else "combine(out[t], source[p])"),
    ]
    return "\n".join(lines) + "\n"


@kernel_for(Opcode.SELECT_AND_SCATTER, priority=10)
def select_and_scatter_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """SelectAndScatter: per window (row-major), the cell ``select`` keeps against every
    later cell (padding and holes never chosen); then each ``source`` element combined into
    its cell in row-major source order, starting from ``init``.

    Bit-identical to the interpreter (same choice rule and per-cell order).
    """
    operand, source, init = (o.shape for o in instr.operands)
    if not all(s.is_array and s.is_static for s in (operand, source, init, instr.shape)):
        raise NoKernel("non-array or dynamic operands")
    if operand.rank == 0:
        raise NoKernel("rank-0 operand")
    t = operand.element_type
    if source.element_type is not t or init.element_type is not t:
        raise NoKernel("source or init of another type")
    select = select_expression(instr.attrs.select, t)
    combine, swapped = reducer_name(instr.attrs.scatter, t)
    flush = flush_helper(t, options)
    window: Window = instr.attrs.window
    if not window.dimensions:
        window = Window.make([1] * operand.rank)
    out_dims = window_output_dims("select-and-scatter", instr, operand.dims, window)
    if tuple(out_dims) != tuple(source.dims):
        raise NoKernel("source shape disagrees with the window")
    dims, window = _canonical(operand.dims, window)
    padded_out = (1,) * (len(dims) - operand.rank) + tuple(out_dims)
    rank = len(dims)
    tables = tap_tables(dims, window, padded_out)
    parallel = _parallel(options, out_dims, window)
    text = select_and_scatter_source(rank, select, combine, swapped, flush)
    storage = _storage(t)
    started = time.perf_counter()
    module = load_source(text, options.cache_dir)
    ones = (1,) * rank
    module.choose(0, 1, np.zeros(ones, storage), storage.type(0), np.zeros(ones, np.int64),
                  *[np.zeros((1, 1), np.int64) for _ in range(rank)])  # fmt: skip
    module.scatter(np.zeros(1, storage), np.zeros(1, np.int64), np.zeros(1, storage))
    compile_seconds = time.perf_counter() - started
    dtype = np.dtype(t.numpy)

    def run(operands: list[Value], ctx: RunContext) -> Value:
        x, src, init_value = (np.ascontiguousarray(v).view(storage) for v in operands)
        out = np.empty(operand.dims, storage)
        out.fill(init_value.reshape(())[()])
        if math.prod(out_dims) and x.size:
            chosen = np.empty(padded_out, np.int64)
            _over_rows(
                module.choose, chosen.shape[0], parallel,
                x.reshape(dims), storage.type(0), chosen, *tables,
            )  # fmt: skip
            module.scatter(out.reshape(-1), chosen.reshape(-1), src.reshape(-1))
        return out.view(dtype)

    how = (
        f"numba select ({select}){' in parallel' if parallel else ''}, sequential {combine} scatter"
    )
    return Kernel(
        run=run, how=how, source=text, compile_seconds=compile_seconds, exact=True, views=()
    )
