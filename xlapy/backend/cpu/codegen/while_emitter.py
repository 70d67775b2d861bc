"""While loops compiled whole: one numba function runs every iteration of a ``while`` whose
condition and body consist of ops with element generators (scalars and small arrays,
tuples, get-tuple-element, elementwise ops, compares, constants, data movement, fusions and
calls, reductions), so an iteration costs nanoseconds instead of a dispatch of compiled
plans. Dots (BLAS statements of the loop) and state elements updated in place through a
window (dynamic-update-slice, a scan's stacked outputs) are ``while_arrays``'s, scatters
(statements filling a temporary) ``scatter_emitter``'s.

The loop state lives in the kernel: scalar elements in local variables, array elements in
the output arrays. Each iteration evaluates the condition, then every new state element
(arrays into temporaries), then commits them all at once, as the body's tuple result
replaces the whole state::

    state0 = in0[0]
    state1 = in1[0]
    limit = loop[0]
    iterations = 0
    while True:
        lt_0 = np.bool_(state0 < np.int32(10000))
        if not lt_0:
            break
        if iterations == limit:
            loop[1] = 1
            break
        iterations += 1
        ...
        state0, state1 = (np.int32(add_1), np.float32(add_0))
    out0[0] = state0
    out1[0] = state1

``loop`` is ``[budget, 0]``: a kernel whose condition still holds after ``budget``
iterations sets ``loop[1]`` and returns the state the next iteration would consume. The
budget is always finite, so the kernel never runs an endless loop (which LLVM may replace by
its closed form, or assume terminates): the runner (``_chunked``) calls it again on that
state, in chunks of iterations that grow while a call takes less than ``CHUNK_SECONDS``,
until the condition is false. Between chunks Python runs, so Ctrl-C interrupts the loop
(naming it and the iteration, as the interpreter does), and ``max_while_iterations`` caps
the last chunk and raises ``loop_limit_error`` with the state.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np
from numba.core.errors import NumbaError

from xlapy import dtypes
from xlapy.backend.cpu.codegen import data_movement, numba_types, scatter_emitter, while_arrays
from xlapy.backend.cpu.codegen.fusion_emitter import load_kernel_module, runner
from xlapy.backend.cpu.codegen.loop_emitter import (
    Frame,
    Index,
    KernelArg,
    KernelEmitter,
    Output,
    Val,
)
from xlapy.backend.cpu.codegen.while_arrays import WindowUpdate
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    require_generation,
)
from xlapy.interpreter.loop_limit import loop_limit_error
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value
from xlapy.shape import Shape

MAX_STATE_ELEMENTS = 1 << 16
"""Largest array in a compiled loop's state that the body rewrites whole (larger loops run as
plans: their bodies are worth compiled fusions, and each iteration's dispatch is small beside
them); elements passed through or updated through a window may be larger."""


def _state_shapes(instr: HloInstruction) -> list[Shape]:
    shape = instr.shape
    body: HloComputation = instr.attrs.body
    leaves = list(shape.tuple_shapes) if shape.is_tuple else [shape]
    for k, leaf in enumerate(leaves):
        if not leaf.is_array:
            raise NoKernel(f"while {instr.name}: nested tuple or token in the loop state")
        numba_types.check(leaf.element_type, f"while {instr.name}")
        in_place = while_arrays.unchanged(body, k, shape.is_tuple) or while_arrays.window_update_of(
            body, k, shape.is_tuple
        )
        if math.prod(leaf.dims) > MAX_STATE_ELEMENTS and not in_place:
            raise NoKernel(
                f"while {instr.name}: state element {leaf} is large (runs as compiled plans)"
            )
    return leaves


def compile_while(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """The whole loop as one kernel (see the module docstring).

    Raises:
        NoKernel: a state that is not a flat tuple of compiled arrays, a large state, or an
            op of the condition or body without an element generator, or generated kernels
            are switched off (the quick tier).
    """
    require_generation(f"while {instr.name}")
    start = time.perf_counter()
    shapes = _state_shapes(instr)
    condition: HloComputation = instr.attrs.condition
    body: HloComputation = instr.attrs.body
    for comp in (condition, body):
        numba_types.check_static(comp.instructions, f"while {instr.name}")
    if options.flush_denormals and any(i.opcode is Opcode.DOT for i in body.instructions):
        raise NoKernel(f"while {instr.name}: a dot under flush_denormals (runs as plans)")
    em = KernelEmitter(f"while_{instr.name}")
    em.flush_denormals = options.flush_denormals  # the generators flush as XLA:CPU
    inputs = [em.add_arg(f"in{k}", s.element_type, ("operand", k)) for k, s in enumerate(shapes)]
    outputs = [
        Output(instr, k, em.add_arg(f"out{k}", s.element_type, ("output", k)))
        for k, s in enumerate(shapes)
    ]
    control = em.add_arg("loop", dtypes.S64, ("operand", len(shapes)))
    scalars = [not s.dims for s in shapes]
    state: list[str | KernelArg] = []  # a local variable per scalar, the output per array
    for k, (shape, arg, out) in enumerate(zip(shapes, inputs, outputs, strict=True)):
        if scalars[k]:
            state.append(em.fresh(f"state{k}"))
            em.emit_in(em.top, f"{state[-1]} = {em.load(arg, '0')}")
        else:
            state.append(out.arg)
            with em.flat_loop(shape.dims) as index:
                offset = em.flat_index(index, shape.dims)
                em.emit_in(em.current, f"{out.arg.name}[{offset}] = {arg.name}[{offset}]")
    limit, iterations = em.fresh("limit"), em.fresh("iterations")
    em.emit_in(em.top, f"{limit} = {control.name}[0]")
    em.emit_in(em.top, f"{iterations} = 0")
    loop = Frame("while True:", em.top, branch=True)
    readers = [_state_reader(em, loop, shapes[k], state[k]) for k in range(len(shapes))]
    for comp in (condition, body):
        (param,) = comp.parameters
        if instr.shape.is_tuple:
            em.tuple_bindings[id(param)] = readers
        else:
            em.bindings[id(param)] = readers[0]
    with em.enter(loop):
        go_on = em.scalar(condition.root, ())
        stop = Frame(f"if not {go_on.text}:", loop, branch=True)
        em.emit_in(stop, "break")
        loop.items.append(stop)
        bounded = Frame(f"if {iterations} == {limit}:", loop, branch=True)
        em.emit_in(bounded, f"{control.name}[1] = 1")
        em.emit_in(bounded, "break")
        loop.items.append(bounded)
        em.emit_in(loop, f"{iterations} += 1")
        scatters = scatter_emitter.materialize_scatters(em, loop, body.post_order())
        dots = while_arrays.materialize_dots(em, loop, body, instr.shape.is_tuple, state)
        new_values = _body_results(em, instr, body, shapes)
    _commit(em, loop, shapes, state, new_values)
    em.top.items.append(loop)
    for k, out in enumerate(outputs):
        if scalars[k]:
            em.emit_in(em.top, em.store_text(out.arg, "0", str(state[k])))
    header = f"while {instr.name}: condition {condition.name}, body {body.name}"
    try:
        source, module, names = load_kernel_module(em, header, options.cache_dir)
    except NumbaError as exc:
        first = str(exc).strip().splitlines()[0]
        raise NoKernel(f"while {instr.name}: numba could not compile it: {first}") from exc
    function = getattr(module, names[em.name])
    run = runner(function, em.args, outputs, instr.shape.is_tuple)
    if dots:
        run = _one_blas_thread(run)
        while_arrays.import_numba_blas()
    return Kernel(
        run=_chunked(
            run, instr, options.max_while_iterations, sum(math.prod(s.dims) for s in shapes)
        ),
        how=f"numba whole loop, {len(shapes)} state elements"
        + (f", {dots} BLAS products" if dots else "")
        + (f", {scatters} scatters" if scatters else ""),
        source=source,
        compile_seconds=time.perf_counter() - start,
        exact=em.exact,
        notes=() if em.exact else ("float results within a few ulp (fast exp/log/tanh)",),
        views=(),
    )


FIRST_CHUNK = 1 << 10
"""Iterations of a loop's first call of its kernel, at least (most loops end within it); a
loop whose state has more elements starts with that many, since each call copies the state
in (a scan of 20000 rows of 256 ran 2.4x slower in chunks from 1024)."""

MAX_CHUNK = 1 << 30
"""The most iterations of one call of a loop's kernel."""

CHUNK_SECONDS = 0.05
"""A call of the kernel that ends sooner doubles the next chunk: a long loop returns to
Python a few times a second at most, and Ctrl-C waits for one call at most."""


def _chunked(
    run: Callable[[list[Value], RunContext], Value],
    instr: HloInstruction,
    limit: int | None,
    state_elements: int,
) -> Callable[[list[Value], RunContext], Value]:
    """``run`` of the kernel on the state's leaves and the ``loop`` argument, called in chunks
    of iterations until the condition is false (see the module docstring); raises
    ``loop_limit_error`` when ``limit`` iterations were not enough, and marks a Ctrl-C with
    the loop and its iteration."""

    def chunked(operands: list[Value], ctx: RunContext) -> Value:
        (state,) = operands
        done, chunk = 0, max(FIRST_CHUNK, min(state_elements, MAX_CHUNK))
        try:
            while True:
                budget = chunk if limit is None else min(chunk, limit - done)
                control = np.array([budget, 0], np.int64)
                leaves = list(state) if isinstance(state, tuple) else [state]
                start = time.perf_counter()
                state = run([*leaves, control], ctx)
                if not control[1]:
                    return state
                done += budget
                if done == limit:
                    raise loop_limit_error(instr, limit, state)
                if time.perf_counter() - start < CHUNK_SECONDS:
                    chunk = min(2 * chunk, MAX_CHUNK)
        except KeyboardInterrupt as interrupt:
            if not hasattr(interrupt, "xlapy_loop"):  # the innermost loop
                interrupt.xlapy_loop = f"while {instr.name}, iteration {done}"  # type: ignore[attr-defined]
            raise

    return chunked


def _one_blas_thread(
    run: Callable[[list[Value], RunContext], Value],
) -> Callable[[list[Value], RunContext], Value]:
    """``run`` with numba's BLAS single-threaded on the calling thread."""

    def run_one_thread(operands: list[Value], ctx: RunContext) -> Value:
        with while_arrays.numba_blas_one_thread():
            return run(operands, ctx)

    return run_one_thread


def _state_reader(
    em: KernelEmitter, loop: Frame, shape: Shape, state: str | KernelArg
) -> Callable[[Index], Val]:
    """Reads of one state element inside the loop (a local variable or the state array)."""
    t = shape.element_type

    def read(index: Index) -> Val:
        if isinstance(state, str):
            return Val(state, t, loop)
        offset = em.flat_index(index, shape.dims)
        return em.emit(f"{state.name}_element", em.load(state, offset), t, index=index)

    return read


def _body_results(
    em: KernelEmitter, instr: HloInstruction, body: HloComputation, shapes: list[Shape]
) -> list[str | KernelArg | WindowUpdate | None]:
    """Every new state element: a value for scalars, a filled temporary for arrays, a window
    for in-place updates (None for the elements the body passes through unchanged). The
    temporaries of one shape are filled in one loop nest (``while_arrays.fill``)."""
    root = body.root
    loop = em.current
    results: list[str | KernelArg | WindowUpdate | None] = []
    jobs: list[tuple[tuple[int, ...], while_arrays.Store]] = []
    for k, shape in enumerate(shapes):
        if while_arrays.unchanged(body, k, instr.shape.is_tuple):
            results.append(None)
            continue
        dus = while_arrays.window_update_of(body, k, instr.shape.is_tuple)
        if dus is not None:
            window, store = while_arrays.window_update(em, loop, dus, f"next{k}")
            results.append(window)
            jobs.append((window.sizes, store))
            continue
        if not shape.dims:
            if instr.shape.is_tuple:
                value = data_movement.tuple_element(em, root, k, ())
            else:
                value = em.scalar(root, ())
            results.append(numba_types.ctor(shape.element_type) + f"({value.text})")
            continue
        temp = em.scratch(f"next{k}", shape.element_type, math.prod(shape.dims))
        store = _store_element(em, root, k, instr.shape.is_tuple, temp, shape.dims)
        jobs.append((tuple(shape.dims), store))
        results.append(temp)
    while_arrays.fill(em, loop, jobs)
    return results


def _store_element(
    em: KernelEmitter,
    root: HloInstruction,
    k: int,
    is_tuple: bool,
    temp: KernelArg,
    dims: Sequence[int],
) -> while_arrays.Store:
    """The store of new state element ``k`` (the body's root, or its element ``k``) of
    ``dims`` into ``temp``."""

    def store(index: Index) -> None:
        if is_tuple:
            value = data_movement.tuple_element(em, root, k, index)
        else:
            value = em.scalar(root, index)
        em.emit_in(em.current, em.store_text(temp, em.flat_index(index, dims), value.text))

    return store


def _commit(
    em: KernelEmitter,
    loop: Frame,
    shapes: list[Shape],
    state: list[str | KernelArg],
    new_values: list[str | KernelArg | WindowUpdate | None],
) -> None:
    """The new state replaces the old one after all of it was computed."""
    for target, value in zip(state, new_values, strict=True):
        if isinstance(value, WindowUpdate):
            assert isinstance(target, KernelArg)
            while_arrays.commit_window(em, loop, target, value)
    targets = [t for t, v in zip(state, new_values, strict=True) if isinstance(t, str) and v]
    values = [str(v) for t, v in zip(state, new_values, strict=True) if isinstance(t, str) and v]
    if len(targets) == 1:
        em.emit_in(loop, f"{targets[0]} = {values[0]}")
    elif targets:
        em.emit_in(loop, f"{', '.join(targets)} = ({', '.join(values)})")
    for shape, target, value in zip(shapes, state, new_values, strict=True):
        if isinstance(target, str) or not isinstance(value, KernelArg):
            continue
        with em.enter(loop), em.flat_loop(shape.dims) as index:
            offset = em.flat_index(index, shape.dims)
            em.emit_in(em.current, em.store_text(target, offset, em.load(value, offset)))
