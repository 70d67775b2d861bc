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
from xlapy.dtypes import ElementType
from xlapy.indexing.affine import constant
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


def unchanged(body: HloComputation, k: int, is_tuple: bool) -> bool:
    """True when the body passes state element ``k`` through as it is."""
    root = body.root
    if not is_tuple or root.opcode is not Opcode.TUPLE:
        return False
    element = root.operands[k]
    return (
        element.opcode is Opcode.GET_TUPLE_ELEMENT
        and element.attrs.index == k
        and element.operands[0] is body.parameters[0]
    )


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


Store = Callable[[Index], None]
"""Writes one value of a temporary at an index of its array (inside a loop nest)."""


def window_update(
    em: KernelEmitter, loop: Frame, dus: HloInstruction, hint: str
) -> tuple[WindowUpdate, Store]:
    """The temporary of the update of ``dus``, its clamped start indices (computed in
    ``loop``, so they read this iteration's state) and the store that fills the temporary
    (the caller runs it in a loop nest over the update's dims)."""
    update = dus.operands[1]
    dims, sizes = tuple(dus.shape.dims), tuple(update.shape.dims)
    temp = em.scratch(hint, update.shape.element_type, math.prod(sizes))

    def store(index: Index) -> None:
        value = em.scalar(update, index)
        em.emit_in(em.current, em.store_text(temp, em.flat_index(index, sizes), value.text))

    starts = []
    with em.enter(loop):
        for d, start in enumerate(dus.operands[2:]):
            s = em.scalar(start, ())
            name = em.fresh(f"{hint}_start{d}")
            # spec: start indices clamped to [0, dim - size]
            em.emit_in(loop, f"{name} = min(max(np.int64({s.text}), 0), {dims[d] - sizes[d]})")
            starts.append(name)
    return WindowUpdate(temp, tuple(starts), dims, sizes), store


def fill(em: KernelEmitter, loop: Frame, jobs: Sequence[tuple[Sequence[int], Store]]) -> None:
    """Runs the stores of ``jobs`` (an array's dims and its store) in ``loop``, in one loop
    nest per distinct shape once unit dimensions are dropped, so that values two arrays
    share (the results of one multi-output fusion) are computed once per element. A nest, not
    one flat loop: the stores compute values whose operands (broadcasts, slices) are indexed
    by the loop indices, which a flat loop would rebuild by division for every element (the
    GRU scan's step, 4.5 -> 14.8 ms per call)."""
    groups: dict[tuple[int, ...], list[tuple[Sequence[int], Store]]] = {}
    for dims, store in jobs:
        groups.setdefault(tuple(d for d in dims if d != 1), []).append((dims, store))
    for squeezed, members in groups.items():
        with em.enter(loop), em.output_loops(squeezed, False, "j") as index:
            for dims, store in members:
                positions = iter(index)
                store(tuple(constant(0) if d == 1 else next(positions) for d in dims))


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
        value = em.load(w.temp, em.flat_index(index, w.sizes))  # f16/bf16 as f32 values
        em.emit_in(em.current, em.store_text(target, at, value))  # ... stored as patterns


_BLAS_TYPES = (dtypes.F32, dtypes.F64)


@dataclass(frozen=True)
class MatrixForm:
    """A ``dot`` as ``batch`` matrix products ``(m, k) x (k, n) -> (m, n)``: each operand is
    its flat array reshaped to ``(batch, rows, cols)`` and, when ``*_transposed``, read
    through ``.T`` (BLAS takes the transposed view as it is, no copy)."""

    batch: int
    m: int
    k: int
    n: int
    lhs_transposed: bool
    rhs_transposed: bool

    def transposed(self, side: str) -> bool:
        """True when the ``side`` operand's matrix is its array read through ``.T``."""
        return self.lhs_transposed if side == "lhs" else self.rhs_transposed

    def stored(self, side: str) -> tuple[int, int]:
        """The ``(rows, cols)`` of the ``side`` operand's array as it is stored (the matrix
        transposed when ``transposed(side)``)."""
        rows, cols = (self.m, self.k) if side == "lhs" else (self.k, self.n)
        return (cols, rows) if self.transposed(side) else (rows, cols)

    def matrix(self, name: str, side: str, b: str | None) -> str:
        """Source of one operand's ``(m, k)`` or ``(k, n)`` matrix, of batch ``b``, from
        ``name`` holding it in C order (a transposed operand's copy,
        ``transposed_copy``)."""
        rows, cols = (self.m, self.k) if side == "lhs" else (self.k, self.n)
        if b is None:
            return f"{name}.reshape(({rows}, {cols}))"
        return f"{name}.reshape(({self.batch}, {rows}, {cols}))[{b}]"


def _grouped(dims: Sequence[int], rank: int, start: int) -> bool:
    """``dims`` are the consecutive dimensions ``start, start + 1, ...`` ending before or at
    ``rank``."""
    return tuple(dims) == tuple(range(start, start + len(dims))) and start + len(dims) <= rank


def matrix_form(dot: HloInstruction) -> MatrixForm | None:
    """The dot as (batched) matrix products BLAS computes on views of its operands, or None.

    Taken: one f32/f64 type throughout, no empty dimension, batch dimensions leading in both
    operands (in the same order), and each operand's contracting dimensions one consecutive
    run (in the same order on both sides) either after its free dimensions (a plain matrix)
    or before them (a transposed one): ``x @ w``, ``x @ w.T``, ``w.T @ x`` and their stacks.
    """
    a = dot.attrs
    lhs, rhs = (o.shape for o in dot.operands)
    if not (lhs.is_array and rhs.is_array and dot.shape.is_array):
        return None
    t = dot.shape.element_type
    if t not in _BLAS_TYPES or lhs.element_type is not t or rhs.element_type is not t:
        return None
    if 0 in (*lhs.dims, *rhs.dims):
        return None
    lb, rb = tuple(a.lhs_batch_dims), tuple(a.rhs_batch_dims)
    lc, rc = tuple(a.lhs_contracting_dims), tuple(a.rhs_contracting_dims)
    nb = len(lb)
    if lb != tuple(range(nb)) or rb != tuple(range(nb)) or not lc:
        return None
    sides = []
    for dims, contract in ((lhs.dims, lc), (rhs.dims, rc)):
        rank = len(dims)
        free = rank - nb - len(contract)
        if _grouped(contract, rank, rank - len(contract)):
            contract_last = True
        elif _grouped(contract, rank, nb):
            contract_last = False
        else:
            return None
        sides.append(
            (
                contract_last,
                math.prod(dims[nb : nb + free] if contract_last else dims[nb + len(contract) :]),
            )
        )
    (l_last, m), (r_last, n) = sides
    return MatrixForm(
        batch=math.prod(lhs.dims[:nb]),
        m=m,
        k=math.prod(lhs.dims[d] for d in lc),
        n=n,
        lhs_transposed=not l_last,
        rhs_transposed=r_last,
    )


def transposed_copy(
    em: KernelEmitter, frame: Frame, source: str, batch: int, rows: int, cols: int, t: ElementType
) -> KernelArg:
    """A temporary holding each ``(rows, cols)`` matrix of ``source`` (``batch`` of them)
    transposed, copied in ``frame``."""
    temp = em.scratch(f"{source}_t", t, batch * rows * cols)
    r, c = em.fresh("tr"), em.fresh("tc")
    parent, base = frame, ""
    if batch > 1:
        b = em.fresh("tb")
        parent = Frame(f"for {b} in range({batch}):", frame)
        frame.items.append(parent)
        base = f"{b} * {rows * cols} + "
    middle = Frame(f"for {c} in range({cols}):", parent)
    inner = Frame(f"for {r} in range({rows}):", middle)
    em.emit_in(inner, f"{temp.name}[{base}{c} * {rows} + {r}] = {source}[{base}{r} * {cols} + {c}]")
    middle.items.append(inner)
    parent.items.append(middle)
    return temp


def materialize_dots(
    em: KernelEmitter,
    loop: Frame,
    body: HloComputation,
    is_tuple: bool,
    state: Sequence[str | KernelArg],
) -> int:
    """Every ``dot`` of the body as ``np.dot`` statements of ``loop`` (one per batch) into a
    temporary that later reads of the dot use; returns how many dots. NoKernel for a dot
    BLAS cannot take on views of its operands (``matrix_form``).

    An operand the product reads transposed is first copied transposed: once before the
    loop for a state element the body never changes (the weights of an RNN cell), else each
    iteration. OpenBLAS took 2.5x the time with a transposed weight matrix (``x @ w.T``,
    (16, 128) x (128, 384): 37 us against 15 us for ``x @ wt``); the copies cost a few us."""
    count = 0
    hoisted: dict[tuple[str, int, int], KernelArg] = {}  # (state array, rows, cols) -> copy

    def matrix_array(form: MatrixForm, side: str, operand: HloInstruction) -> str:
        """The array holding the ``side`` operand's matrix in C order."""
        name = _as_array(em, loop, body, is_tuple, state, operand)
        if not form.transposed(side):
            return name
        rows, cols = form.stored(side)
        invariant = _invariant(body, operand, is_tuple)
        key = (name, rows, cols)
        if invariant and key in hoisted:
            return hoisted[key].name
        copy = transposed_copy(em, em.top if invariant else loop, name, form.batch, rows, cols, t)
        if invariant:
            hoisted[key] = copy
        return copy.name

    for instr in body.post_order():
        if instr.opcode is not Opcode.DOT:
            continue
        form = matrix_form(instr)
        if form is None:
            raise NoKernel(
                f"dot {instr.name}: not an f32/f64 product of (batched, possibly transposed) "
                "matrices"
            )
        t = instr.shape.element_type
        dims = tuple(instr.shape.dims)
        row = _row_of_state(body, instr.operands[0], is_tuple)
        if (
            form.batch == 1
            and not form.lhs_transposed
            and row is not None
            and _invariant(body, instr.operands[1], is_tuple)
        ):
            k, start = row
            em.bindings[id(instr)] = _projection(
                em,
                loop,
                form,
                state[k],
                body_state_dims(body, k, is_tuple)[0],
                start,
                matrix_array(form, "rhs", instr.operands[1]),
                instr.name,
                t,
                dims,
            )
            em.exact = False
            count += 1
            continue
        lhs, rhs = (
            matrix_array(form, side, operand)
            for side, operand in zip(("lhs", "rhs"), instr.operands, strict=True)
        )
        temp = em.scratch(instr.name, t, math.prod(dims))
        if form.batch == 1:
            left, right = form.matrix(lhs, "lhs", None), form.matrix(rhs, "rhs", None)
            em.emit_in(loop, f"np.dot({left}, {right}, {temp.name}.reshape(({form.m}, {form.n})))")
        else:
            b = em.fresh(f"{instr.name}_batch")
            batches = Frame(f"for {b} in range({form.batch}):", loop)
            out = f"{temp.name}.reshape(({form.batch}, {form.m}, {form.n}))[{b}]"
            left, right = form.matrix(lhs, "lhs", b), form.matrix(rhs, "rhs", b)
            em.emit_in(batches, f"np.dot({left}, {right}, {out})")
            loop.items.append(batches)
        em.bindings[id(instr)] = array_reader(em, temp, dims)
        em.exact = False
        count += 1
    return count


def _invariant(body: HloComputation, x: HloInstruction, is_tuple: bool) -> bool:
    """True when ``x`` is a state element the body never changes."""
    k = _element_of_state(body, x, is_tuple)
    return k is not None and unchanged(body, k, is_tuple)


def body_state_dims(body: HloComputation, k: int, is_tuple: bool) -> tuple[int, ...]:
    """The dims of state element ``k``."""
    shape = body.parameters[0].shape
    return tuple((shape.tuple_shapes[k] if is_tuple else shape).dims)


def _row_of_state(
    body: HloComputation, x: HloInstruction, is_tuple: bool
) -> tuple[int, HloInstruction] | None:
    """``(k, start)`` when ``x`` is row ``start`` of state element ``k``, which the body never
    changes: ``reshape(dynamic-slice(state[k], start, 0, ...))`` of one whole row (a scan's
    input at step ``start``), possibly inside a fusion."""
    outer: dict[int, HloInstruction] = {}
    node = x
    if node.opcode is Opcode.FUSION:
        fused: HloComputation = node.attrs.calls
        outer = {id(p): node.operands[p.parameter_number] for p in fused.parameters}
        node = fused.root
    if node.opcode is not Opcode.RESHAPE or node.operands[0].opcode is not Opcode.DYNAMIC_SLICE:
        return None
    ds = node.operands[0]
    source = outer.get(id(ds.operands[0]), ds.operands[0])
    start = outer.get(id(ds.operands[1]), ds.operands[1])
    if start.parent is not body and start.opcode is not Opcode.CONSTANT:
        return None
    k = _element_of_state(body, source, is_tuple)
    if k is None or not unchanged(body, k, is_tuple):
        return None
    dims = body_state_dims(body, k, is_tuple)
    sizes = tuple(ds.attrs.dynamic_slice_sizes)
    if len(dims) < 2 or sizes != (1, *dims[1:]):
        return None
    return k, start


def _projection(
    em: KernelEmitter,
    loop: Frame,
    form: MatrixForm,
    rows: str | KernelArg,
    steps: int,
    start: HloInstruction,
    right: str,
    hint: str,
    t: ElementType,
    dims: tuple[int, ...],
) -> Callable[[Index], Val]:
    """A product of one row of an unchanged state array (a scan's input at this step) and
    an unchanged matrix, computed for every row at once before the loop (one large GEMM
    instead of one small one per iteration: a scan RNN's input projection, 32x256 @ 256x256
    per step, 70 us, against 9.6 ms for all 200 steps at once); the loop reads the row it
    selects (``start`` clamped as dynamic-slice clamps it)."""
    assert isinstance(rows, KernelArg)
    every = em.scratch(f"{hint}_rows", t, steps * form.m * form.n)
    em.emit_in(
        em.top,
        f"np.dot({rows.name}.reshape(({steps * form.m}, {form.k})), "
        f"{form.matrix(right, 'rhs', None)}, {every.name}.reshape(({steps * form.m}, {form.n})))",
    )
    with em.enter(loop):
        at = em.scalar(start, ())
    row = em.fresh(f"{hint}_row")
    em.emit_in(loop, f"{row} = min(max(np.int64({at.text}), 0), {steps - 1}) * {form.m * form.n}")
    return array_reader(em, every, dims, Val(row, dtypes.S64, loop))


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


def array_reader(
    em: KernelEmitter, temp: KernelArg, dims: tuple[int, ...], base: Val | None = None
) -> Callable[[Index], Val]:
    """Reads of an array of ``dims`` held in ``temp`` (from offset ``base`` on)."""
    t = temp.type

    def read(index: Index) -> Val:
        offset = em.flat_index(index, dims)
        vals: list[Val] = []
        if base is not None:
            u = offset.startswith("U(")
            offset = f"U({base.text}) + {offset}" if u else f"U({base.text} + {offset})"
            vals.append(base)
        return em.emit(f"{temp.name}_element", em.load(temp, offset), t, vals, index)

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


def import_numba_blas() -> None:
    """Imports what numba's ``np.dot`` imports on a kernel's first product: numba's helper
    library takes gemm and gemv from ``scipy.linalg.cython_blas`` then, importing the whole
    ``scipy.linalg`` package (0.18-0.26 s of gru_scan's first compiled call). Called when
    such a kernel is built (on the tier-up thread, before the compiled tier is installed)."""
    importlib.import_module("scipy.linalg.cython_blas")


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
