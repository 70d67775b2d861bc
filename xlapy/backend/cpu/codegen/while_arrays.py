"""Array steps of whole-loop while kernels (``while_emitter``): products computed by BLAS
once per iteration, and state elements updated in place through a window.

A ``dot`` in the body has no element generator (an element would be a k-long sum, redone for
every element that reads it); here it is a statement of the loop, ``np.dot`` of its operands
(state arrays read as they are, other operands first written to a temporary) into a
temporary the rest of the body reads::

    np.dot(out1.reshape((16, 32)), out4.reshape((32, 32)), dot_2.reshape((16, 32)))

A state element the body replaces by ``dynamic-update-slice(state[k], update, starts...)``
is updated in place: the update goes to a temporary with the other new values, and the
commit writes only that window (a loop nest ``out2[U(corner) + U(c1 * 256 + c2)] = next2[...]``), so
a large state (a scan's stacked outputs) costs the window per iteration, not its size.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from xlapy import dtypes
from xlapy.backend.cpu.codegen.loop_emitter import Frame, Index, KernelArg, KernelEmitter, Val
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.backend.cpu.kernels.blas import openblas_thread_setter
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode


@dataclass(frozen=True)
class WindowUpdate:
    """A state element's new value as a window: ``temp`` (the update's values) written at
    the clamped ``starts`` (source names) of an array of ``dims``, the window ``sizes``."""

    temp: KernelArg
    starts: tuple[str, ...]
    dims: tuple[int, ...]
    sizes: tuple[int, ...]


def _element_of_state(body: HloComputation, x: HloInstruction, is_tuple: bool) -> int | None:
    """``k`` when ``x`` is state element ``k`` as the body receives it."""
    (param,) = body.parameters
    if not is_tuple:
        return 0 if x is param else None
    if x.opcode is Opcode.GET_TUPLE_ELEMENT and x.operands[0] is param:
        return int(x.attrs.index)
    return None


def window_update_of(body: HloComputation, k: int, is_tuple: bool) -> HloInstruction | None:
    """The ``dynamic-update-slice`` of state element ``k`` into itself that the body returns
    as its new value ``k``, if so."""
    root = body.root
    if is_tuple and root.opcode is not Opcode.TUPLE:
        return None
    element = root.operands[k] if is_tuple else root
    if (
        element.opcode is not Opcode.DYNAMIC_UPDATE_SLICE
        or not element.shape.is_static
        or element.shape.rank == 0
    ):
        return None
    if _element_of_state(body, element.operands[0], is_tuple) != k:
        return None
    return element


def window_update(em: KernelEmitter, loop: Frame, dus: HloInstruction, hint: str) -> WindowUpdate:
    """The update of ``dus`` computed into a temporary and its clamped start indices, in
    ``loop`` (so they read this iteration's state)."""
    update = dus.operands[1]
    dims, sizes = tuple(dus.shape.dims), tuple(update.shape.dims)
    temp = em.scratch(hint, update.shape.element_type, math.prod(sizes))
    with em.enter(loop), em.output_loops(sizes, False, "j") as index:
        value = em.scalar(update, index)
        offset = em.flat_index(index, sizes)
        em.emit_in(em.current, em.store_text(temp, offset, value.text))
    starts = []
    with em.enter(loop):
        for d, start in enumerate(dus.operands[2:]):
            s = em.scalar(start, ())
            name = em.fresh(f"{hint}_start{d}")
            # spec: start indices clamped to [0, dim - size]
            em.emit_in(loop, f"{name} = min(max(np.int64({s.text}), 0), {dims[d] - sizes[d]})")
            starts.append(name)
    return WindowUpdate(temp, tuple(starts), dims, sizes)


def commit_window(em: KernelEmitter, loop: Frame, target: KernelArg, w: WindowUpdate) -> None:
    """``target``'s window at ``w.starts`` receives the update, element by element in a loop
    nest over the window (numba compiled the equivalent multi-dimensional slice assignment in
    about 4 s of CPU, the loop nest in a few ms)."""
    strides = [math.prod(w.dims[d + 1 :]) for d in range(len(w.dims))]
    base = em.fresh(f"{target.name}_window")
    corner = " + ".join(f"{s} * {n}" for s, n in zip(w.starts, strides, strict=True))
    em.emit_in(loop, f"{base} = {corner or '0'}")
    with em.enter(loop), em.output_loops(w.sizes, False, "c") as index:
        inner = em.flat_index(index, w.dims)
        at = f"U({base}) + {inner}" if inner.startswith("U(") else f"U({base} + {inner})"
        em.emit_in(
            em.current, f"{target.name}[{at}] = {w.temp.name}[{em.flat_index(index, w.sizes)}]"
        )


_BLAS_TYPES = (dtypes.F32, dtypes.F64)


def _plain_product(dot: HloInstruction) -> bool:
    """A matrix product BLAS computes as written: ``[m, k] x [k, n]`` of one f32/f64 type,
    no dimension empty."""
    a = dot.attrs
    lhs, rhs = (o.shape for o in dot.operands)
    return (
        lhs.is_array
        and rhs.is_array
        and lhs.rank == 2
        and rhs.rank == 2
        and not a.lhs_batch_dims
        and not a.rhs_batch_dims
        and tuple(a.lhs_contracting_dims) == (1,)
        and tuple(a.rhs_contracting_dims) == (0,)
        and dot.shape.element_type in _BLAS_TYPES
        and lhs.element_type is dot.shape.element_type
        and rhs.element_type is dot.shape.element_type
        and 0 not in (*lhs.dims, *rhs.dims)
    )


def materialize_dots(
    em: KernelEmitter,
    loop: Frame,
    body: HloComputation,
    is_tuple: bool,
    state: Sequence[str | KernelArg],
) -> int:
    """Every ``dot`` of the body as an ``np.dot`` statement of ``loop`` into a temporary that
    later reads of the dot use; returns how many. NoKernel for a dot BLAS cannot take."""
    count = 0
    for instr in body.post_order():
        if instr.opcode is not Opcode.DOT:
            continue
        if not _plain_product(instr):
            raise NoKernel(f"dot {instr.name}: not an f32/f64 [m,k] x [k,n] product")
        arrays = [_as_array(em, loop, body, is_tuple, state, o) for o in instr.operands]
        m, n = instr.shape.dims
        temp = em.scratch(instr.name, instr.shape.element_type, m * n)
        (lm, lk), (rk, rn) = (o.shape.dims for o in instr.operands)
        em.emit_in(
            loop,
            f"np.dot({arrays[0]}.reshape(({lm}, {lk})), {arrays[1]}.reshape(({rk}, {rn})), "
            f"{temp.name}.reshape(({m}, {n})))",
        )
        em.bindings[id(instr)] = _reader(em, temp, tuple(instr.shape.dims))
        em.exact = False
        count += 1
    return count


def _as_array(
    em: KernelEmitter,
    loop: Frame,
    body: HloComputation,
    is_tuple: bool,
    state: Sequence[str | KernelArg],
    x: HloInstruction,
) -> str:
    """A flat array holding ``x``'s values this iteration: a state array as it is, else a
    temporary filled from its element generators."""
    k = _element_of_state(body, x, is_tuple)
    if k is not None and isinstance(state[k], KernelArg):
        return state[k].name  # type: ignore[union-attr]
    temp = em.scratch(f"{x.name}_array", x.shape.element_type, math.prod(x.shape.dims))
    with em.enter(loop), em.output_loops(x.shape.dims, False, "j") as index:
        value = em.scalar(x, index)
        offset = em.flat_index(index, x.shape.dims)
        em.emit_in(em.current, em.store_text(temp, offset, value.text))
    return temp.name


def _reader(em: KernelEmitter, temp: KernelArg, dims: tuple[int, ...]) -> Callable[[Index], Val]:
    t = temp.type

    def read(index: Index) -> Val:
        offset = em.flat_index(index, dims)
        return em.emit(f"{temp.name}_element", em.load(temp, offset), t, index=index)

    return read


# ---- BLAS threads of numba's np.dot -------------------------------------------------------


def _scipy_thread_setter() -> Callable[[int], int] | None:
    """The thread setting of the OpenBLAS bundled with scipy (the BLAS numba's ``np.dot``
    calls, through ``scipy.linalg.cython_blas``), or None."""
    spec = importlib.util.find_spec("scipy")
    if spec is None or spec.origin is None:
        return None
    return openblas_thread_setter(Path(spec.origin).resolve().parent.parent / "scipy.libs")


_set_scipy_local = _scipy_thread_setter()


@contextmanager
def numba_blas_one_thread() -> Iterator[None]:
    """numba's BLAS calls from this thread run single-threaded inside the block (as
    ``kernels.blas.one_thread`` for numpy's: OpenBLAS's own threads busy-wait and fight the
    other work for the cores; measured 690 us against 152 us for a 32x256x256 product)."""
    if _set_scipy_local is None:
        yield
        return
    previous = _set_scipy_local(1)
    try:
        yield
    finally:
        _set_scipy_local(previous)
