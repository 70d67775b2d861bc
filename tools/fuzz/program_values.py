"""The values of fuzzed programs (``programs.py``): element types and shapes drawn, argument
arrays mixing each type's corners with random bits, the ``Value`` records (with the bound the
cpu must keep, ``bounds.Bound``), the drawn ``Program`` and the ``Builder`` that writes HLO
instructions and the companion values bounds read."""

from __future__ import annotations

import math
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
    "round-nearest-afz", "round-nearest-even", "sign", "cosh", "sinh", "erf", "erfc",
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
        companion values of its own shape: only ``Builder.emit_moved`` moves them along)."""
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
class Computation:
    """An HLO computation being built: its instructions and values."""

    name: str
    lines: list[str] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    params: list[Value] = field(default_factory=list)


class Builder:
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

    def emit(self, comp: Computation, value: Value, text: str) -> Value:
        comp.lines.append(f"  {value.name} = {value.shape} {text}")
        comp.values.append(value)
        return value

    def emit_moved(self, comp: Computation, v: Value, out: Value, text: str) -> Value:
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

    def param(self, comp: Computation, t: ElementType, dims: tuple[int, ...], entry: bool) -> Value:
        """A new parameter of ``comp`` (with a drawn argument in the entry computation)."""
        v = Value(self.fresh("p"), t, dims)
        comp.lines.append(f"  {v.name} = {v.shape} parameter({len(comp.params)})")
        comp.params.append(v)
        comp.values.append(v)
        if entry:
            self.args.append(self.draw(arrays(t, dims)))
        return v

    def constant(self, comp: Computation, t: ElementType, x: float | int | bool) -> Value:
        v = Value(self.fresh("c"), t, ())
        text = ("true" if x else "false") if t is PRED else literal(t, x)
        return self.emit(comp, v, f"constant({text})")

    def companion(self, comp: Computation, dims: tuple[int, ...], text: str, t: str = "f64") -> str:
        """A value of ``comp`` that only bounds read (later ops do not draw it)."""
        name = self.fresh("mag")
        shape = f"{t}[{','.join(map(str, dims))}]"
        comp.lines.append(f"  {name} = {shape} {text}")
        self.companions[name] = shape
        return name

    def magnitude(self, comp: Computation, v: Value) -> str:
        """``|convert<f64>(v)|``."""
        wide = self.companion(comp, v.dims, f"convert({v.name})")
        return self.companion(comp, v.dims, f"abs({wide})")

    def f64_constant(self, comp: Computation, x: float, dims: tuple[int, ...]) -> str:
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


def literal(t: ElementType, x: float | int) -> str:
    if t.is_float:
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(float(np.asarray(x).astype(t.numpy)))
    return str(int(x))


# ---- values -------------------------------------------------------------------------------------


def specials(t: ElementType) -> list[object]:
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
    corners = specials(t)
    picks = draw(st.lists(st.integers(0, len(corners) + 3), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    out = np.empty(n, t.numpy)
    for i, p in enumerate(picks):
        if p < len(corners):
            out[i] = np.asarray(corners[p]).astype(t.numpy) if t.is_float else corners[p]
        elif t is PRED:
            out[i] = bool(rng.integers(0, 2))
        elif t.is_float and p == len(corners):  # random bits (any class of float)
            bits = rng.integers(0, (1 << t.bits) - 1, endpoint=True, dtype=np.uint64)
            out[i] = np.array(bits, f"u{max(t.bits, 8) // 8}").view(t.numpy)
        elif t.is_float:
            out[i] = np.float64(rng.normal() * 10.0 ** rng.integers(-3, 4)).astype(t.numpy)
        else:
            info = ml_dtypes.iinfo(t.numpy)
            wide = np.uint64 if t.is_unsigned else np.int64
            out[i] = int(rng.integers(int(info.min), int(info.max), endpoint=True, dtype=wide))
    return out.reshape(dims)
