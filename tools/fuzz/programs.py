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
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field, replace

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

from tools.fuzz import bounds
from tools.fuzz.bounds import BITS, Bound
from xlapy import dtypes
from xlapy.dtypes import ElementType

FLOATS = tuple(dtypes.from_name(n) for n in ("f64", "f32", "bf16", "f16", "f8e4m3fn", "f8e5m2"))
INTS = tuple(
    dtypes.from_name(n) for n in ("s64", "s32", "s16", "s8", "s4", "u64", "u32", "u16", "u8", "u4")
)
PRED = dtypes.PRED
TYPES = (*FLOATS, *INTS, PRED)
DIMS = (0, 1, 2, 3, 5)
MAX_DEPTH = 2
"""Loops and conditionals nest at most this deep."""

FLOAT_UNARY = (
    "abs", "negate", "exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt",
    "rsqrt", "cbrt", "tanh", "logistic", "sine", "cosine", "tan", "floor", "ceil",
    "round-nearest-afz", "round-nearest-even", "sign", "cosh", "sinh",
)  # fmt: skip
INT_UNARY = ("abs", "negate", "not", "popcnt", "count-leading-zeros", "sign")
FLOAT_BINARY = (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "atan2",
)  # fmt: skip
INT_BINARY = (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
    "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "power",
)  # fmt: skip
PRED_BINARY = ("and", "or", "xor", "maximum", "minimum")
DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")


@dataclass(frozen=True)
class Value:
    """One array value of the program: its HLO name, element type, dims, and how closely the
    cpu platform must reproduce the interpreter's value of it."""

    name: str
    type: ElementType
    dims: tuple[int, ...]
    bound: Bound = BITS
    nan_bits: bool = True
    """Whether its NaNs have the interpreter's bits: OPS.md leaves the sign and payload of a
    NaN an op makes implementation-defined (numpy's log(-1) is -NaN, numba's +NaN), so only
    NaNs of the arguments moved as they are keep them (bitcast-convert, total-order compares
    and sorts of other float values are not drawn)."""

    @property
    def shape(self) -> str:
        return f"{self.type.name}[{','.join(map(str, self.dims))}]"

    @property
    def exact(self) -> bool:
        return self.bound.exact

    @property
    def moved(self) -> Bound:
        """The bound of this value's elements combined with others (a sum's bound names
        companion values of its own shape: only ``_Builder.emit_moved`` moves them along)."""
        if self.bound.kind in ("sum", "dot", "product"):
            return bounds.degraded(self.type)
        return self.bound


VIEWS = ("contiguous", "negative strides", "Fortran order", "every other element", "read-only")
"""How an argument is passed to the cpu executable (the same values, other memory)."""


class Program:
    """A drawn program: HLO text, its arguments, the bound of each output the cpu platform
    must keep (``scales``: per output, the indices of the companion outputs its bound reads;
    companions follow the program's own outputs in the root tuple and are not compared), how
    each argument is passed to the cpu platform (an index of ``VIEWS``), and which
    parameters the module donates (``input_output_alias``/``buffer_donor``)."""

    def __init__(
        self,
        text: str,
        args: list[np.ndarray],
        bounds: list[Bound],
        views: list[int] | None = None,
        scales: list[tuple[int, ...]] | None = None,
        donated: tuple[int, ...] = (),
    ) -> None:
        self.text = text
        self.args = args
        self.bounds = bounds
        self.views = views or [0] * len(args)
        self.scales = scales or [() for _ in bounds]
        self.donated = donated

    def cpu_args(self) -> list[np.ndarray]:
        """The arguments as views of other memory layouts, with the same values."""
        return [_view(a, v) for a, v in zip(self.args, self.views, strict=True)]

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example
        args = ", ".join(
            f"{a.dtype}{list(a.shape)}:{a.tobytes().hex()} ({VIEWS[v]})"
            for a, v in zip(self.args, self.views, strict=True)
        )
        return f"Program(\n{self.text}\nargs: {args})"


def _view(a: np.ndarray, how: int) -> np.ndarray:
    if how == 1:
        return np.flip(np.flip(a).copy())
    if how == 2:
        return np.asfortranarray(a) if a.ndim >= 2 else a
    if how == 3:
        wide = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), a.dtype) if a.ndim else None
        if wide is None:
            return a
        wide[..., ::2] = a
        return wide[..., ::2]
    if how == 4:
        frozen = a.copy()
        frozen.flags.writeable = False
        return frozen
    return a


@dataclass
class _Computation:
    """An HLO computation being built: its instructions and values."""

    name: str
    lines: list[str] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    params: list[Value] = field(default_factory=list)


class _Builder:
    """Draws the instructions of a module (computations of reducers, loops, branches too)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.counter = 0
        self.depth = 0  # loops and conditionals nested around the ops being drawn
        self.computations: list[str] = []
        self.args: list[np.ndarray] = []
        self.companions: dict[str, str] = {}
        """Shapes of the companion values (magnitude scales of bounds), by name."""

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}.{self.counter}"

    def emit(self, comp: _Computation, value: Value, text: str) -> Value:
        comp.lines.append(f"  {value.name} = {value.shape} {text}")
        comp.values.append(value)
        return value

    def emit_moved(self, comp: _Computation, v: Value, out: Value, text: str) -> Value:
        """Emits ``out`` (``text``: an op moving ``v``'s elements, ``v`` its first operand);
        a sum, dot or product bound moves with companions moved by the same op."""
        bound = v.bound
        if bound.kind in ("sum", "dot", "product"):
            name = re.compile(rf"(?<![\w.]){re.escape(v.name)}(?![\w.])")
            moved = (
                self.companion(comp, out.dims, name.sub(c, text, count=1)) for c in bound.companions
            )
            bound = replace(bound, companions=tuple(moved))
        return self.emit(comp, replace(out, bound=bound), text)

    def param(
        self, comp: _Computation, t: ElementType, dims: tuple[int, ...], entry: bool
    ) -> Value:
        """A new parameter of ``comp`` (with a drawn argument in the entry computation)."""
        v = Value(self.fresh("p"), t, dims)
        comp.lines.append(f"  {v.name} = {v.shape} parameter({len(comp.params)})")
        comp.params.append(v)
        comp.values.append(v)
        if entry:
            self.args.append(self.draw(arrays(t, dims)))
        return v

    def constant(self, comp: _Computation, t: ElementType, x: float | int | bool) -> Value:
        v = Value(self.fresh("c"), t, ())
        text = ("true" if x else "false") if t is PRED else _literal(t, x)
        return self.emit(comp, v, f"constant({text})")

    def companion(
        self, comp: _Computation, dims: tuple[int, ...], text: str, t: str = "f64"
    ) -> str:
        """A value of ``comp`` that only bounds read (later ops do not draw it)."""
        name = self.fresh("mag")
        shape = f"{t}[{','.join(map(str, dims))}]"
        comp.lines.append(f"  {name} = {shape} {text}")
        self.companions[name] = shape
        return name

    def magnitude(self, comp: _Computation, v: Value) -> str:
        """``|convert<f64>(v)|``."""
        wide = self.companion(comp, v.dims, f"convert({v.name})")
        return self.companion(comp, v.dims, f"abs({wide})")

    def f64_constant(self, comp: _Computation, x: float, dims: tuple[int, ...]) -> str:
        scalar = self.companion(comp, (), f"constant({x!r})")
        if not dims:
            return scalar
        return self.companion(comp, dims, f"broadcast({scalar}), dimensions={{}}")

    def scalar_computation(self, kind: str, t: ElementType) -> str:
        """A reducer/comparator computation named ``kind`` over scalars of ``t``."""
        name = self.fresh(kind.replace("-", "_"))
        s = f"{t.name}[]"
        if kind == "lt":
            compare = "compare(a, b), direction=LT" + (", type=TOTALORDER" if t.is_float else "")
            body = f"  ROOT r = pred[] {compare}"
        else:
            body = f"  ROOT r = {s} {kind}(a, b)"
        self.computations.append(
            f"{name} {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n{body}\n}}\n"
        )
        return name


def _literal(t: ElementType, x: float | int) -> str:
    if t.is_float:
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(float(np.asarray(x).astype(t.numpy)))
    return str(int(x))


# ---- values -------------------------------------------------------------------------------------


def _specials(t: ElementType) -> list[object]:
    if t is PRED:
        return [True, False]
    if t.is_float:
        info = ml_dtypes.finfo(t.numpy)
        tiny = float(info.smallest_subnormal)
        big = float(info.max)
        return [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, math.nan, math.inf, -math.inf, tiny, -tiny,
                big, -big, float(info.tiny), 3.0, 7.0, -100.0]  # fmt: skip
    info = ml_dtypes.iinfo(t.numpy)
    values = [0, 1, -1, int(info.min), int(info.max), 2, 3, t.bits - 1, t.bits, t.bits + 1, 64]
    span = 1 << t.bits
    return [(x - int(info.min)) % span + int(info.min) for x in values]  # wrapped into range


@st.composite
def arrays(draw: st.DrawFn, t: ElementType, dims: tuple[int, ...]) -> np.ndarray:
    """An array of type ``t``: corners of the type and random bit patterns."""
    n = math.prod(dims)
    specials = _specials(t)
    picks = draw(st.lists(st.integers(0, len(specials) + 3), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    out = np.empty(n, t.numpy)
    for i, p in enumerate(picks):
        if p < len(specials):
            out[i] = np.asarray(specials[p]).astype(t.numpy) if t.is_float else specials[p]
        elif t is PRED:
            out[i] = bool(rng.integers(0, 2))
        elif t.is_float and p == len(specials):  # random bits (any class of float)
            bits = rng.integers(0, (1 << t.bits) - 1, endpoint=True, dtype=np.uint64)
            out[i] = np.array(bits, f"u{max(t.bits, 8) // 8}").view(t.numpy)
        elif t.is_float:
            out[i] = np.float64(rng.normal() * 10.0 ** rng.integers(-3, 4)).astype(t.numpy)
        else:
            info = ml_dtypes.iinfo(t.numpy)
            wide = np.uint64 if t.is_unsigned else np.int64
            out[i] = int(rng.integers(int(info.min), int(info.max), endpoint=True, dtype=wide))
    return out.reshape(dims)


# ---- ops ----------------------------------------------------------------------------------------


def _pick(b: _Builder, comp: _Computation) -> Value:
    return b.draw(st.sampled_from(comp.values))


def _same(b: _Builder, comp: _Computation, v: Value, entry: bool) -> Value:
    """Another value of ``v``'s type and dims: an existing one or a new parameter."""
    like = [w for w in comp.values if w.type is v.type and w.dims == v.dims]
    if entry and b.draw(st.booleans()):
        return b.param(comp, v.type, v.dims, entry)
    return b.draw(st.sampled_from(like))


def _unary(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if v.type is PRED:
        return b.emit(comp, Value(b.fresh("not"), PRED, v.dims, v.moved), f"not({v.name})")
    ops = FLOAT_UNARY if v.type.is_float else INT_UNARY
    if v.type.is_unsigned:
        ops = tuple(o for o in ops if o not in ("abs", "sign"))
    op = b.draw(st.sampled_from(ops))
    bound = bounds.after_op(op, v.type, [v.bound])
    return b.emit(
        comp, Value(b.fresh(op), v.type, v.dims, bound, nan_bits=False), f"{op}({v.name})"
    )


def _binary(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    w = _same(b, comp, v, entry)
    ops = PRED_BINARY if v.type is PRED else FLOAT_BINARY if v.type.is_float else INT_BINARY
    op = b.draw(st.sampled_from(ops))
    bound = bounds.after_op(op, v.type, [v.bound, w.bound])
    out = Value(b.fresh(op), v.type, v.dims, bound, nan_bits=False)
    return b.emit(comp, out, f"{op}({v.name}, {w.name})")


def _compare(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    w = _same(b, comp, v, entry)
    d = b.draw(st.sampled_from(DIRECTIONS))
    kind = ""
    if v.type.is_float and v.nan_bits and w.nan_bits and b.draw(st.booleans()):
        kind = ", type=TOTALORDER"
    out = Value(b.fresh("cmp"), PRED, v.dims, bounds.after_op("compare", PRED, [v.bound, w.bound]))
    return b.emit(comp, out, f"compare({v.name}, {w.name}), direction={d}{kind}")


def _select(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    w = _same(b, comp, v, entry)
    preds = [p for p in comp.values if p.type is PRED and p.dims in (v.dims, ())]
    if preds:
        p = b.draw(st.sampled_from(preds))
    elif entry:
        p = b.param(comp, PRED, v.dims, entry)
    else:
        p = b.emit(comp, Value(b.fresh("cmp"), PRED, v.dims,
                               bounds.after_op("compare", PRED, [v.bound, w.bound])),
                   f"compare({v.name}, {w.name}), direction=LT")  # fmt: skip
    if p.dims != v.dims:
        p = b.emit(comp, Value(b.fresh("bp"), PRED, v.dims, p.bound),
                   f"broadcast({p.name}), dimensions={{}}")  # fmt: skip
    out = Value(
        b.fresh("sel"),
        v.type,
        v.dims,
        bounds.join(v.type, v.moved, w.moved) if p.exact else bounds.degraded(v.type),
        nan_bits=v.nan_bits and w.nan_bits,
    )
    return b.emit(comp, out, f"select({p.name}, {v.name}, {w.name})")


def _clamp(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    lo, hi = _same(b, comp, v, entry), _same(b, comp, v, entry)
    bound = bounds.after_op("clamp", v.type, [lo.bound, v.bound, hi.bound])
    out = Value(b.fresh("clamp"), v.type, v.dims, bound, nan_bits=False)
    return b.emit(comp, out, f"clamp({lo.name}, {v.name}, {hi.name})")


def _convert(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    t = b.draw(st.sampled_from(TYPES))
    return b.emit(
        comp,
        Value(b.fresh("cvt"), t, v.dims, bounds.converted(v.type, t, v.moved), nan_bits=False),
        f"convert({v.name})",
    )


def _bitcast(b: _Builder, comp: _Computation, entry: bool) -> Value:
    """Same-width types keep the dims; a narrower type adds a minor dim of the width ratio,
    a wider one consumes a minor dim of that size (types of 8 bits or more)."""
    v = _pick(b, comp)
    if v.type is PRED or (v.type.is_float and not v.nan_bits):
        return _convert(b, comp, entry)
    fits = [t for t in TYPES if t is not PRED and t.bits == v.type.bits]
    if v.type.bits >= 8:
        fits += [t for t in TYPES if t is not PRED and 8 <= t.bits < v.type.bits]
        if v.dims:
            fits += [
                t for t in TYPES if t.bits > v.type.bits and t.bits == v.type.bits * v.dims[-1]
            ]
    t = b.draw(st.sampled_from(fits))
    dims = v.dims
    if t.bits < v.type.bits:
        dims = (*v.dims, v.type.bits // t.bits)
    elif t.bits > v.type.bits:
        dims = v.dims[:-1]
    return b.emit(
        comp,
        Value(b.fresh("bc"), t, dims, BITS if v.exact else bounds.degraded(t), nan_bits=v.nan_bits),
        f"bitcast-convert({v.name})",
    )


def _broadcast(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if len(v.dims) >= 3:
        return _reverse(b, comp, entry)
    at = b.draw(st.integers(0, len(v.dims)))
    size = b.draw(st.sampled_from(DIMS))
    dims = (*v.dims[:at], size, *v.dims[at:])
    mapping = [i for i in range(len(dims)) if i != at]
    out = Value(b.fresh("bcast"), v.type, dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"broadcast({v.name}), dimensions={{{','.join(map(str, mapping))}}}"
    )


def _reshape(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    n = math.prod(v.dims)
    options = [(n,), (1, n), (n, 1)]
    options += [(d, n // d) for d in (2, 3, 5) if n and n % d == 0]
    if n == 0:
        options += [(0, 3), (2, 0, 1)]
    if n == 1:
        options += [(), (1, 1, 1)]
    dims = b.draw(st.sampled_from(options))
    out = Value(b.fresh("rs"), v.type, dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(comp, v, out, f"reshape({v.name})")


def _transpose(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    perm = b.draw(st.permutations(range(len(v.dims))))
    dims = tuple(v.dims[p] for p in perm)
    out = Value(b.fresh("tr"), v.type, dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"transpose({v.name}), dimensions={{{','.join(map(str, perm))}}}"
    )


def _slice(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    parts, dims = [], []
    for d in v.dims:
        start = b.draw(st.integers(0, d))
        limit = b.draw(st.integers(start, d))
        stride = b.draw(st.integers(1, 3))
        parts.append(f"[{start}:{limit}:{stride}]")
        dims.append(-(-(limit - start) // stride))
    out = Value(b.fresh("sl"), v.type, tuple(dims), v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(comp, v, out, f"slice({v.name}), slice={{{', '.join(parts)}}}")


def _concatenate(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if not v.dims:
        return _broadcast(b, comp, entry)
    d = b.draw(st.integers(0, len(v.dims) - 1))
    extra = b.draw(st.sampled_from(DIMS))
    w_dims = (*v.dims[:d], extra, *v.dims[d + 1 :])
    like = [u for u in comp.values if u.type is v.type and u.dims == w_dims]
    w = b.draw(st.sampled_from(like)) if like else b.param(comp, v.type, w_dims, entry)
    dims = (*v.dims[:d], v.dims[d] + extra, *v.dims[d + 1 :])
    out = Value(
        b.fresh("cat"),
        v.type,
        dims,
        bounds.join(v.type, v.moved, w.moved),
        nan_bits=v.nan_bits and w.nan_bits,
    )
    return b.emit(comp, out, f"concatenate({v.name}, {w.name}), dimensions={{{d}}}")


def _pad(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    x = b.draw(st.sampled_from(_specials(v.type)))
    pv = b.constant(comp, v.type, x)  # type: ignore[arg-type]
    parts, dims = [], []
    for d in v.dims:
        interior = b.draw(st.integers(0, 2)) if d else 0
        size = d + max(d - 1, 0) * interior
        lo = b.draw(st.integers(-size, 2))
        hi = b.draw(st.integers(-(size + lo), 2)) if size + lo >= 0 else 0
        if size + lo < 0:
            lo = -size
        parts.append(f"{lo}_{hi}" + (f"_{interior}" if interior else ""))
        dims.append(size + lo + hi)
    if not parts:
        return _unary(b, comp, entry)
    out = Value(b.fresh("pad"), v.type, tuple(dims), v.moved, nan_bits=v.nan_bits)
    return b.emit(comp, out, f"pad({v.name}, {pv.name}), padding={'x'.join(parts)}")


def _reverse(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    axes = sorted(b.draw(st.sets(st.integers(0, max(len(v.dims) - 1, 0)))) if v.dims else [])
    out = Value(b.fresh("rev"), v.type, v.dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"reverse({v.name}), dimensions={{{','.join(map(str, axes))}}}"
    )


def _reducer(b: _Builder, t: ElementType) -> tuple[str, object, str]:
    """(computation, init value, kind) of a drawn reduction over ``t``."""
    if t is PRED:
        kind = b.draw(st.sampled_from(("and", "or")))
        return b.scalar_computation(kind, t), kind == "and", kind
    kind = b.draw(st.sampled_from(("add", "maximum", "minimum", "multiply")))
    init = {"add": 0, "multiply": 1}.get(kind)
    if init is None:
        init = -math.inf if kind == "maximum" else math.inf
        if t.is_integer:
            info = ml_dtypes.iinfo(t.numpy)
            init = int(info.min) if kind == "maximum" else int(info.max)
    return b.scalar_computation(kind, t), init, kind


def _reduced_bound(
    b: _Builder,
    comp: _Computation,
    v: Value,
    kind: str,
    terms: int,
    dims: tuple[int, ...],
    opcode: str,
    where: str,
) -> Bound:
    """The bound of a reduction (``opcode``: reduce or reduce-window) of ``v`` by ``kind`` over
    ``terms`` elements each (``where``: the op's attributes, e.g. ``dimensions={0}``, for the
    companions reducing magnitudes the same way): float sums and products reassociate on
    cpu."""
    if not v.type.is_float:
        return v.moved if v.exact else bounds.degraded(v.type)
    if kind in ("maximum", "minimum"):
        return bounds.join(v.type, v.moved)
    if v.bound.kind not in bounds.PRESERVING:
        return bounds.degraded(v.type)
    mag = b.magnitude(comp, v)
    if kind == "add":
        zero = b.f64_constant(comp, 0.0, ())
        add = b.scalar_computation("add", dtypes.F64)
        total = b.companion(comp, dims, f"{opcode}({mag}, {zero}), {where}, to_apply={add}")
        return bounds.accumulated("sum", v.type, terms, v.bound, (total,))
    one, ones = b.f64_constant(comp, 1.0, ()), b.f64_constant(comp, 1.0, v.dims)
    zeros = b.f64_constant(comp, 0.0, v.dims)
    multiply = b.scalar_computation("multiply", dtypes.F64)
    high = b.companion(comp, v.dims, f"maximum({mag}, {ones})")
    low = b.companion(comp, v.dims, f"minimum({mag}, {ones})")
    pv = b.companion(comp, v.dims, f"compare({mag}, {zeros}), direction=EQ", "pred")
    low = b.companion(comp, v.dims, f"select({pv}, {ones}, {low})")
    scales = tuple(
        b.companion(comp, dims, f"{opcode}({x}, {one}), {where}, to_apply={multiply}")
        for x in (high, low)
    )
    return bounds.accumulated("product", v.type, terms, v.bound, scales)


def _reduce(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    axes = sorted(b.draw(st.sets(st.integers(0, max(len(v.dims) - 1, 0)))) if v.dims else [])
    reducer, init, kind = _reducer(b, v.type)
    c = b.constant(comp, v.type, init)  # type: ignore[arg-type]
    dims = tuple(d for i, d in enumerate(v.dims) if i not in axes)
    where = f"dimensions={{{','.join(map(str, axes))}}}"
    terms = math.prod(v.dims[i] for i in axes) + 1
    bound = _reduced_bound(b, comp, v, kind, terms, dims, "reduce", where)
    out = Value(b.fresh("red"), v.type, dims, bound, nan_bits=False)
    return b.emit(comp, out, f"reduce({v.name}, {c.name}), {where}, to_apply={reducer}")


def _reduce_window(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if not v.dims:
        return _reduce(b, comp, entry)
    reducer, init, kind = _reducer(b, v.type)
    c = b.constant(comp, v.type, init)  # type: ignore[arg-type]
    sizes, strides, pads, dims = [], [], [], []
    for d in v.dims:
        lo, hi = b.draw(st.integers(0, 2)), b.draw(st.integers(0, 2))
        size = b.draw(st.integers(1, max(1, d + lo + hi)))
        stride = b.draw(st.integers(1, 3))
        sizes.append(size)
        strides.append(stride)
        pads.append(f"{lo}_{hi}")
        span = d + lo + hi - size
        dims.append(span // stride + 1 if span >= 0 else 0)
    window = (f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} "
              f"pad={'x'.join(pads)}")  # fmt: skip
    terms = math.prod(sizes) + 1
    where = f"window={{{window}}}"
    bound = _reduced_bound(b, comp, v, kind, terms, tuple(dims), "reduce-window", where)
    out = Value(b.fresh("rw"), v.type, tuple(dims), bound, nan_bits=False)
    text = f"reduce-window({v.name}, {c.name}), window={{{window}}}, to_apply={reducer}"
    return b.emit(comp, out, text)


def _dot(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if v.type is PRED or len(v.dims) != 2 or v.type.bits < 8:
        return _binary(b, comp, entry)
    n = b.draw(st.sampled_from(DIMS))
    w_dims = (v.dims[1], n)
    like = [u for u in comp.values if u.type is v.type and u.dims == w_dims]
    w = b.draw(st.sampled_from(like)) if like else b.param(comp, v.type, w_dims, entry)
    dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
    operands = bounds.join(v.type, v.moved, w.moved)
    if v.type.is_float and operands.kind in bounds.PRESERVING:
        size = f"dot({b.magnitude(comp, v)}, {b.magnitude(comp, w)}), {dims}"
        scale = b.companion(comp, (v.dims[0], n), size)
        bound = bounds.accumulated("dot", v.type, v.dims[1], operands, (scale,))
    else:
        bound = operands if operands.exact else bounds.degraded(v.type)
    out = Value(b.fresh("dot"), v.type, (v.dims[0], n), bound, nan_bits=False)
    return b.emit(comp, out, f"dot({v.name}, {w.name}), {dims}")


def _iota(b: _Builder, comp: _Computation, entry: bool) -> Value:
    t = b.draw(st.sampled_from(TYPES[:-1]))
    rank = b.draw(st.integers(1, 3))
    dims = tuple(b.draw(st.sampled_from(DIMS)) for _ in range(rank))
    d = b.draw(st.integers(0, rank - 1))
    return b.emit(comp, Value(b.fresh("iota"), t, dims), f"iota(), iota_dimension={d}")


def _indices(b: _Builder, comp: _Computation, rank: int, entry: bool) -> list[Value]:
    t = b.draw(st.sampled_from((dtypes.S32, dtypes.S64, dtypes.U32, dtypes.S8)))
    out = []
    for _ in range(rank):
        if entry and b.draw(st.booleans()):
            out.append(b.param(comp, t, (), entry))
        else:
            low = 0 if t.is_unsigned else -3
            out.append(b.constant(comp, t, b.draw(st.integers(low, 6))))
    return out


def _dynamic_slice(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    sizes = tuple(b.draw(st.integers(0, d)) for d in v.dims)
    idx = _indices(b, comp, len(v.dims), entry)
    names = ", ".join([v.name, *(i.name for i in idx)])
    out = Value(b.fresh("ds"), v.type, sizes, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"dynamic-slice({names}), dynamic_slice_sizes={{{','.join(map(str, sizes))}}}"
    )


def _dynamic_update_slice(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    sizes = tuple(b.draw(st.integers(0, d)) for d in v.dims)
    like = [u for u in comp.values if u.type is v.type and u.dims == sizes]
    u = b.draw(st.sampled_from(like)) if like else b.param(comp, v.type, sizes, entry)
    idx = _indices(b, comp, len(v.dims), entry)
    names = ", ".join([v.name, u.name, *(i.name for i in idx)])
    out = Value(
        b.fresh("dus"),
        v.type,
        v.dims,
        bounds.join(v.type, v.moved, u.moved),
        nan_bits=v.nan_bits and u.nan_bits,
    )
    return b.emit(comp, out, f"dynamic-update-slice({names})")


def _sort(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if not v.dims or v.type is PRED or (v.type.is_float and not v.nan_bits):
        return _reverse(b, comp, entry)
    d = b.draw(st.integers(0, len(v.dims) - 1))
    lt = b.scalar_computation("lt", v.type)
    # the j-th smallest of values each within k ulps of the interpreter's is within k ulps
    bound = bounds.join(v.type, v.moved)
    out = Value(b.fresh("sort"), v.type, v.dims, bound, nan_bits=v.nan_bits)
    return b.emit(comp, out, f"sort({v.name}), dimensions={{{d}}}, is_stable=true, to_apply={lt}")


def _row_indices(b: _Builder, comp: _Computation, entry: bool) -> Value:
    """``s32[n,1]`` start rows (any values: out-of-range ones clamp or are skipped)."""
    n = b.draw(st.sampled_from(DIMS))
    t = b.draw(st.sampled_from((dtypes.S32, dtypes.S64, dtypes.U8)))
    return b.param(comp, t, (n, 1), entry)


def _gather(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if not v.dims or not v.dims[0] or not entry:
        return _reverse(b, comp, entry)
    idx = _row_indices(b, comp, entry)
    rest = v.dims[1:]
    offsets = ",".join(str(k) for k in range(1, len(v.dims)))
    sizes = ",".join(map(str, (1, *rest)))
    out = Value(b.fresh("gather"), v.type, (idx.dims[0], *rest), v.bound, nan_bits=v.nan_bits)
    text = (f"gather({v.name}, {idx.name}), offset_dims={{{offsets}}}, "
            f"collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, "
            f"slice_sizes={{{sizes}}}")  # fmt: skip
    return b.emit_moved(comp, v, out, text)


def _scatter(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    if not v.dims or not entry or v.type is PRED:
        return _reverse(b, comp, entry)
    idx = _row_indices(b, comp, entry)
    rest = v.dims[1:]
    updates = b.param(comp, v.type, (idx.dims[0], *rest), entry)
    kind = b.draw(st.sampled_from(("add", "maximum", "minimum")))
    combiner = b.scalar_computation(kind, v.type)
    windows = ",".join(str(k) for k in range(1, len(v.dims)))
    where = (f"update_window_dims={{{windows}}}, inserted_window_dims={{0}}, "
             f"scatter_dims_to_operand_dims={{0}}, index_vector_dim=1")  # fmt: skip
    # duplicate rows combine in an unspecified order: exact for integers only
    if not v.type.is_float:
        bound = v.moved if v.exact else bounds.degraded(v.type)
    elif not v.exact:
        bound = bounds.degraded(v.type)
    elif kind == "add":
        add = b.scalar_computation("add", dtypes.F64)
        total = b.companion(comp, v.dims, f"scatter({b.magnitude(comp, v)}, {idx.name}, "
                            f"{b.magnitude(comp, updates)}), {where}, to_apply={add}")  # fmt: skip
        bound = bounds.accumulated("sum", v.type, idx.dims[0] + 1, v.bound, (total,))
    else:
        bound = Bound("unordered")
    out = Value(b.fresh("scatter"), v.type, v.dims, bound, nan_bits=False)
    text = f"scatter({v.name}, {idx.name}, {updates.name}), {where}, to_apply={combiner}"
    return b.emit(comp, out, text)


def _window_update(b: _Builder, comp: _Computation, i: str) -> Value:
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


def _body_ops(b: _Builder, comp: _Computation, steps: int) -> Value:
    """``steps`` elementwise/data-movement ops over ``comp``'s values (no new parameters);
    the last one is of the first parameter's type and dims."""
    first = comp.params[0]
    ops = [_unary, _binary, _compare, _select, _convert, _reverse]
    if b.depth < MAX_DEPTH:
        ops += [_while, _conditional]
    b.depth += 1
    for _ in range(steps):
        op = b.draw(st.sampled_from(ops))
        op(b, comp, False)
    b.depth -= 1
    like = [w for w in comp.values if w.type is first.type and w.dims == first.dims]
    return b.draw(st.sampled_from(like[::-1]))


def _while(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
    trips = b.draw(st.sampled_from((0, 1, 2, 7)))
    state = f"(s32[], {v.shape})"
    cond = b.fresh("cond")
    b.computations.append(
        f"{cond} {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
        f"  n = s32[] constant({trips})\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}\n"
    )
    body = _Computation(b.fresh("body"))
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


def _conditional(b: _Builder, comp: _Computation, entry: bool) -> Value:
    v = _pick(b, comp)
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
        branch = _Computation(b.fresh("branch"))
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


RNG_TYPES = tuple(dtypes.from_name(n) for n in ("u8", "u16", "u32", "u64"))


def _rng_bit_generator(b: _Builder, comp: _Computation, entry: bool) -> Value:
    """Random bits from a state argument (ThreeFry: u64[2], Philox: u64[2] or u64[3]): the
    same bits on both platforms."""
    if not entry:
        return _unary(b, comp, entry)
    algorithm = b.draw(st.sampled_from(("rng_three_fry", "rng_philox", "rng_default")))
    state = b.param(
        comp, dtypes.U64, (3 if algorithm == "rng_philox" and b.draw(st.booleans()) else 2,), entry
    )
    t = b.draw(st.sampled_from(RNG_TYPES))
    rank = b.draw(st.integers(0, 3))
    dims = tuple(b.draw(st.sampled_from((*DIMS, 7, 17))) for _ in range(rank))
    out = Value(b.fresh("bits"), t, dims)
    shape = f"({state.shape}, {out.shape})"
    rng = b.fresh("rng")
    comp.lines.append(f"  {rng} = {shape} rng-bit-generator({state.name}), algorithm={algorithm}")
    if b.draw(st.booleans()):
        new_state = Value(b.fresh("state"), dtypes.U64, state.dims)
        b.emit(comp, new_state, f"get-tuple-element({rng}), index=0")
    return b.emit(comp, out, f"get-tuple-element({rng}), index=1")


OPS = (
    _unary, _unary, _binary, _binary, _binary, _compare, _select, _clamp, _convert, _bitcast,
    _broadcast, _reshape, _transpose, _slice, _concatenate, _pad, _reverse, _reduce,
    _reduce_window, _dot, _iota, _dynamic_slice, _dynamic_update_slice, _sort, _while,
    _conditional, _gather, _scatter, _rng_bit_generator,
)  # fmt: skip


@st.composite
def programs(draw: st.DrawFn, max_steps: int = 8) -> Program:
    """A random well-typed module: 1-3 parameters, then 1-``max_steps`` ops; the root is a
    tuple of the last few values and up to three earlier ones (then the companion values of
    their bounds)."""
    b = _Builder(draw)
    entry = _Computation("main")
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


def _donations(b: _Builder, entry: _Computation, outs: list[Value]) -> dict[int, int | None]:
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
