"""The loop emitter: the frames (loops and branches) of one generated kernel, the element
cache, kernel arguments and the rendering of the kernel's source.

An element generator (``GENERATORS``, one per op family, registered with ``@generates``)
turns ``(instruction, index)`` into a ``Val``: a variable of the generated code holding that
element. An index is a tuple of affine expressions over the kernel's *index symbols* (loop
variables and clamped runtime offsets); an operand's index is the op's indexing map
(``xlapy.indexing.per_op.output_to_input``) applied to it. Every statement is placed in the
innermost frame its inputs depend on (loop-invariant code lands outside the loops that do
not change it), and the same instruction at the same index is generated once per frame path.
"""

from __future__ import annotations

import builtins
import contextlib
import keyword
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from xlapy.backend.cpu.codegen import fast_math, narrow, no_alias, numba_types, scalar_ops
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType
from xlapy.indexing.affine import AffineExpr, ExprKind, constant, symbol
from xlapy.indexing.indexing_map import IndexingMap, Variable
from xlapy.indexing.interval import Interval
from xlapy.indexing.per_op import OperandIndexing, output_to_input
from xlapy.indexing.simplify import RangeEvaluator, simplify_expr
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

Index = tuple[AffineExpr, ...]


@dataclass(eq=False)
class Frame:
    """A block of generated code: the function body, a loop or a branch of an ``if``.

    Attributes:
        header: the line opening the block (``for i0 in range(8):``); None for the body.
        parent: the enclosing frame.
        branch: True for the blocks of an ``if``: nothing generated inside moves out.
        items: statements and nested frames, in order.
    """

    header: str | None
    parent: Frame | None
    branch: bool = False
    items: list[str | Frame] = field(default_factory=list)
    depth: int = field(init=False)

    def __post_init__(self) -> None:
        self.depth = 0 if self.parent is None else self.parent.depth + 1

    def path(self) -> list[Frame]:
        """The frames from the function body down to this one."""
        frames: list[Frame] = []
        frame: Frame | None = self
        while frame is not None:
            frames.append(frame)
            frame = frame.parent
        return frames[::-1]

    def render(self, indent: int, out: list[str]) -> None:
        """Appends the block's source lines, indented ``indent`` levels, to ``out``."""
        pad = "    " * indent
        if self.header is not None:
            out.append(pad + self.header)
            indent += 1
            pad += "    "
        if not self.items:
            out.append(pad + "pass")
        for item in self.items:
            if isinstance(item, Frame):
                item.render(indent, out)
            else:
                out.append(pad + item)


@dataclass(frozen=True, eq=False)
class Val:
    """A value of the generated code: a variable name or a literal, its element type and the
    frame it is defined in."""

    text: str
    type: ElementType
    frame: Frame


@dataclass(frozen=True)
class IndexSymbol:
    """An index symbol ``s<k>``: the name it has in the source, its bounds and the frame that
    defines it."""

    name: str
    bounds: Interval
    frame: Frame


@dataclass(frozen=True)
class KernelArg:
    """A kernel argument: a flat C-contiguous array.

    Attributes:
        name: its name in the source (``p0``, ``c0``, ``out0``).
        type: its element type.
        source: ``("operand", k)``, ``("constant", instr)`` or ``("output", k)``.
    """

    name: str
    type: ElementType
    source: tuple[str, object]


@dataclass(frozen=True)
class Output:
    """One output array of a kernel: result ``position`` of ``instr`` (0 for arrays), stored
    flat in argument ``arg``."""

    instr: HloInstruction
    position: int
    arg: KernelArg

    @property
    def dims(self) -> tuple[int, ...]:
        shape = self.instr.shape
        return (shape.tuple_shapes[self.position] if shape.is_tuple else shape).dims

    @property
    def type(self) -> ElementType:
        shape = self.instr.shape
        return (shape.tuple_shapes[self.position] if shape.is_tuple else shape).element_type


Generator = Callable[["KernelEmitter", HloInstruction, Index], "Val | tuple[Val, ...]"]
GENERATORS: dict[Opcode, Generator] = {}


def generates(*opcodes: Opcode) -> Callable[[Generator], Generator]:
    """Registers the decorated element generator for ``opcodes``."""

    def register(fn: Generator) -> Generator:
        for opcode in opcodes:
            GENERATORS[opcode] = fn
        return fn

    return register


PARALLEL_MIN_EXTENT = 16
"""Iterations the parallel loop needs at least (leading dimensions are collapsed)."""

_RESERVED = frozenset(
    {"np", "numba", "math", "U", *dir(builtins)}
    | {
        name
        for m in (fast_math, narrow, no_alias, scalar_ops)
        for name in dir(m)
        if not name.startswith("_")
    }
)
"""Names generated code uses besides its variables: modules, builtins, helpers."""


class KernelEmitter:
    """Builds one kernel function: frames, statements, arguments and the element cache."""

    def __init__(self, name: str) -> None:
        self.name = _identifier(name)
        self.top = Frame(None, None)
        self.current = self.top
        self._path: list[Frame] = [self.top]
        self.symbols: list[IndexSymbol] = []
        self.args: list[KernelArg] = []
        self.helpers: set[tuple[str, str]] = set()  # (module, name) imported by the source
        self.bindings: dict[int, Callable[[Index], Val | tuple[Val, ...]]] = {}
        self.tuple_bindings: dict[int, Sequence[Callable[[Index], Val]]] = {}
        self.aliases: dict[int, HloInstruction] = {}
        self.cache: dict[tuple[int, int, Index], tuple[Val, ...] | Val] = {}
        self.scopes: dict[int, int] = {}
        self.parallel = False
        self.no_alias = False  # see mark_no_alias
        self.exact = True
        self.flush_denormals = False  # XLA:CPU's FTZ/DAZ in the generated code (elemental)
        self.flushed: set[str] = set()  # variables holding already flushed values
        self._names: set[str] = set(_RESERVED) | {self.name}
        self._maps: dict[int, list[list[OperandIndexing]]] = {}
        self._scope_counter = 0
        self._call_scopes: dict[tuple[int, int, Index], int] = {}
        self._expressions: dict[tuple[str, ElementType], Val] = {}
        self._runtime_symbols: dict[str, AffineExpr] = {}
        self.reads: dict[str, set[str]] = {}  # operand argument -> offsets it is read at
        self.stores: dict[str, list[str]] = {}  # output argument -> offsets stored

    # ---- names, helpers, arguments ------------------------------------------------------
    def fresh(self, hint: str) -> str:
        """A new variable name derived from ``hint`` (an HLO name: ``add.3`` -> ``add_3``)."""
        base = _identifier(hint)
        name, n = base, 1
        while name in self._names:
            n += 1
            name = f"{base}_v{n}"
        self._names.add(name)
        return name

    def canonical_names(self, text: str) -> dict[str, str]:
        """Canonical names (``k``, ``v1``, ``v2``, ...) for the function and the variables this
        emitter named, numbered in order of first use in ``text``: kernels that differ only
        in the HLO names they were generated from get one cache entry."""
        own = self._names - _RESERVED - _NUMBA_OPTIONS
        renames = {self.name: "k", f"{self.name}_in_place": "k_in_place"}
        for match in _NAME.finditer(text):
            word = match.group(0)
            if word in own and word not in renames:
                renames[word] = f"v{len(renames) - 1}"
        return renames

    def helper(self, module: str, name: str) -> str:
        """Imports ``name`` from ``xlapy.backend.cpu.codegen.<module>``; returns the name."""
        self.helpers.add((module, name))
        self._names.add(name)
        return name

    def add_arg(self, name: str, t: ElementType, source: tuple[str, object]) -> KernelArg:
        """A new array argument; arguments are ordered operands, constants, outputs."""
        arg = KernelArg(self.fresh(name), t, source)
        self.args.append(arg)
        order = {"operand": 0, "constant": 1, "output": 2}
        self.args.sort(key=lambda a: order[a.source[0]])
        return arg

    def constant_arg(self, instr: HloInstruction, t: ElementType) -> KernelArg:
        """The argument holding array constant ``instr`` (added once)."""
        for arg in self.args:
            if arg.source == ("constant", instr):
                return arg
        count = sum(1 for a in self.args if a.source[0] == "constant")
        return self.add_arg(f"c{count}", t, ("constant", instr))

    def scratch(self, hint: str, t: ElementType, size: int) -> KernelArg:
        """A temporary array of ``size`` values allocated at the start of the kernel (f16 and
        bf16 values stay f32 there)."""
        name = self.fresh(hint)
        self.top.items.append(f"{name} = np.empty({size}, {numba_types.ctor(t)})")
        return KernelArg(name, t, ("scratch", name))

    def load(self, arg: KernelArg, offset: str) -> str:
        """Source reading ``arg[offset]`` as a value (f16/bf16 patterns widened to f32)."""
        text = f"{arg.name}[{offset}]"
        if arg.source[0] == "operand":
            self.reads.setdefault(arg.name, set()).add(offset)
        if arg.type in numba_types.NARROW and arg.source[0] != "scratch":
            return f"{self.helper('narrow', f'{arg.type.name}_to_f32')}({text})"
        return text

    def store_text(self, arg: KernelArg, offset: str, value: str) -> str:
        """The statement ``arg[offset] = value`` (f16/bf16 values stored as patterns)."""
        if arg.type in numba_types.NARROW and arg.source[0] != "scratch":
            store = "bf16_bits" if arg.type.name == "bf16" else "f32_to_f16"  # exact
            value = f"{self.helper('narrow', store)}({value})"
        return f"{arg.name}[{offset}] = {value}"

    # ---- frames -------------------------------------------------------------------------
    def on_path(self, frame: Frame) -> bool:
        """True when ``frame`` encloses the current frame (its values are visible here)."""
        depth = frame.depth
        return depth < len(self._path) and self._path[depth] is frame

    @contextlib.contextmanager
    def enter(self, frame: Frame) -> Iterator[Frame]:
        """Makes ``frame`` the current frame for the duration of the block."""
        saved, saved_path = self.current, self._path
        self.current, self._path = frame, frame.path()
        try:
            yield frame
        finally:
            self.current, self._path = saved, saved_path

    @contextlib.contextmanager
    def loop(
        self,
        parent: Frame,
        hint: str,
        extent: int,
        *,
        parallel: bool = False,
        start: str | None = None,
        stop: str | None = None,
    ) -> Iterator[AffineExpr]:
        """A loop over ``[0, extent)`` (or ``range(start, stop)``, values inside
        ``[0, extent)``) nested in ``parent``; yields its index symbol. The loop is appended
        to ``parent`` when the block ends, after whatever was hoisted out of it. A serial
        loop of one iteration is no loop: the index is 0 and the code stays in ``parent``."""
        if extent == 1 and not parallel and start is None:
            yield constant(0)  # no loop: one iteration, its code goes into ``parent``
            return
        var = self.fresh(hint)
        bounds = f"{start}, {stop}" if start is not None else str(extent)
        kind = "numba.prange" if parallel else "range"
        frame = Frame(f"for {var} in {kind}({bounds}):", parent)
        self.parallel |= parallel
        expr = self.new_symbol(var, Interval(0, extent - 1), frame)
        with self.enter(frame):
            yield expr
        parent.items.append(frame)

    @contextlib.contextmanager
    def output_loops(self, dims: Sequence[int], parallel: bool, hint: str = "i") -> Iterator[Index]:
        """Nested loops over ``dims`` in the current frame; yields the index. With
        ``parallel``, the outer loop is a ``prange``, over leading dimensions collapsed until
        it has at least ``PARALLEL_MIN_EXTENT`` iterations."""
        with contextlib.ExitStack() as stack:
            index: list[AffineExpr] = []
            position = 0
            if parallel and dims:
                collapsed = 1
                while position < len(dims) and collapsed < PARALLEL_MIN_EXTENT:
                    collapsed *= dims[position]
                    position += 1
                s = stack.enter_context(
                    self.loop(self.current, f"{hint}{0}", collapsed, parallel=True)
                )
                inner = collapsed
                for n in dims[:position]:
                    inner //= n
                    index.append((s // inner) % n if inner > 1 else s % n)
            for d in range(position, len(dims)):
                index.append(stack.enter_context(self.loop(self.current, f"{hint}{d}", dims[d])))
            yield self.simplify(index)

    @contextlib.contextmanager
    def flat_loop(self, dims: Sequence[int], hint: str = "j") -> Iterator[Index]:
        """One serial loop over every element of ``dims`` in row-major order, in the current
        frame; yields the index of ``dims`` it walks (the loop's counter unraveled, which
        ``flat_index`` folds back into the counter). A copy between two arrays of ``dims``
        then is one loop LLVM turns into a memory copy: in nested loops numba's code copied
        an s32[16,32] element by element (0.7 us, 0.05 us flat)."""
        size = math.prod(dims)
        if size == 0:  # no element: no unraveling (and no division by a zero extent)
            with self.output_loops(dims, False, hint) as index:
                yield index
            return
        with self.loop(self.current, f"{hint}0", size) as flat:
            index: list[AffineExpr] = []
            inner = size
            for n in dims:
                inner //= n
                index.append((flat // inner) % n if inner > 1 else flat % n)
            yield self.simplify(index)

    def store(self, frame: Frame, output: Output, index: Index, value: Val) -> None:
        """``out[offset] = value`` in ``frame``."""
        offset = self.flat_index(index, output.dims)
        self.stores.setdefault(output.arg.name, []).append(offset)
        self.emit_in(frame, self.store_text(output.arg, offset, value.text))

    def remember(self, instr: HloInstruction, index: Index, value: Val | tuple[Val, ...]) -> None:
        """Makes ``value`` the element of ``instr`` at ``index`` (computed by a loop plan)."""
        scope = self.scopes.get(id(instr.parent), 0)
        self.cache[(scope, id(instr), self.simplify(index))] = value

    def new_symbol(self, name: str, bounds: Interval, frame: Frame) -> AffineExpr:
        """A new index symbol named ``name`` in the source, defined in ``frame``."""
        self.symbols.append(IndexSymbol(name, bounds, frame))
        return symbol(len(self.symbols) - 1)

    def floor(self) -> Frame:
        """The innermost branch frame of the current path (code in a branch stays there)."""
        for frame in reversed(self._path):
            if frame.branch:
                return frame
        return self.top

    def home(self, vals: Sequence[Val] = (), index: Sequence[AffineExpr] = ()) -> Frame:
        """The innermost frame among those defining ``vals`` and the symbols of ``index``
        (never above the current branch)."""
        best = self.floor()
        for frame in [v.frame for v in vals] + [
            self.symbols[s].frame for e in index for s in e.used_symbols()
        ]:
            if not self.on_path(frame):
                raise AssertionError(f"value defined outside the current path: {frame.header}")
            if frame.depth > best.depth:
                best = frame
        return best

    # ---- statements -----------------------------------------------------------------------
    def emit(
        self,
        hint: str,
        expr: str,
        t: ElementType,
        vals: Sequence[Val] = (),
        index: Sequence[AffineExpr] = (),
    ) -> Val:
        """``<name> = <expr>`` in the home frame of its inputs; returns the new value. An
        expression without array accesses that is already computed on the current path is
        reused (value numbering: two ops computing the same thing share one variable)."""
        frame = self.home(vals, index)
        pure = "[" not in expr
        if pure:
            known = self._expressions.get((expr, t))
            if known is not None and self.on_path(known.frame):
                return known
        name = self.fresh(hint)
        frame.items.append(f"{name} = {expr}")
        value = Val(name, t, frame)
        if pure:
            self._expressions[(expr, t)] = value
        return value

    def emit_in(self, frame: Frame, statement: str) -> None:
        """Appends ``statement`` to ``frame`` as it is (no placement, no value numbering)."""
        frame.items.append(statement)

    # ---- index expressions ----------------------------------------------------------------
    def _domain_map(self, results: Sequence[AffineExpr]) -> IndexingMap:
        variables = [Variable(s.bounds) for s in self.symbols]
        return IndexingMap(list(results), [], variables)

    def simplify(self, exprs: Sequence[AffineExpr]) -> tuple[AffineExpr, ...]:
        """Simplifies index expressions with the bounds of the index symbols."""
        if not exprs or all(e.kind in (ExprKind.SYMBOL, ExprKind.CONSTANT) for e in exprs):
            return tuple(exprs)
        if any(not s.bounds.is_feasible for s in self.symbols):
            return tuple(exprs)  # an empty loop: its body never runs
        domain = self._domain_map(exprs)
        return tuple(simplify_expr(e, domain) for e in exprs)

    def range_of(self, expr: AffineExpr) -> Interval:
        """The values ``expr`` can take given the bounds of the index symbols."""
        return RangeEvaluator(self._domain_map([expr])).range(expr)

    def render(self, expr: AffineExpr) -> str:
        """Python source of an index expression (``//`` and ``%`` floor like affine maps)."""
        return _render(expr, [s.name for s in self.symbols], False)

    def flat_index(self, index: Index, dims: Sequence[int]) -> str:
        """The row-major offset of ``index`` in an array of ``dims``, as ``U(...)`` source
        (unsigned, so numba emits no negative-index wraparound and the loops vectorize)."""
        offset: AffineExpr | int = 0
        stride = 1
        for e, n in zip(reversed(index), reversed(dims), strict=True):
            offset = e * stride + offset
            stride *= n
        flat = offset if isinstance(offset, AffineExpr) else None
        if flat is None:
            return "0"
        (flat,) = self.simplify([flat])
        if flat.is_constant:
            return str(flat.value)
        return f"U({self.render(flat)})"

    def condition(self, expr: AffineExpr, bounds: Interval) -> str | None:
        """Source testing ``expr in bounds`` (None when the index bounds already imply it;
        ``"False"`` when they exclude it)."""
        (expr,) = self.simplify([expr])
        have = self.range_of(expr)
        low = bounds.lower if have.lower < bounds.lower else None
        high = bounds.upper if have.upper > bounds.upper else None
        if have.lower > bounds.upper or have.upper < bounds.lower:
            return "False"
        text = self.render(expr)
        if low is not None and high is not None:
            return f"{text} == {low}" if low == high else f"{low} <= {text} <= {high}"
        if low is not None:
            return f"{text} >= {low}"
        if high is not None:
            return f"{text} <= {high}"
        return None

    # ---- elements ---------------------------------------------------------------------------
    def maps(self, instr: HloInstruction) -> list[list[OperandIndexing]]:
        """The output->input maps of ``instr`` per operand (computed once)."""
        cached = self._maps.get(id(instr))
        if cached is None:
            cached = output_to_input(instr).maps
            self._maps[id(instr)] = cached
        return cached

    def element(self, instr: HloInstruction, index: Index) -> Val | tuple[Val, ...]:
        """The element of ``instr`` at ``index`` (generated once per index and frame path)."""
        index = self.simplify(index)
        scope = self.scopes.get(id(instr.parent), 0)
        key = (scope, id(instr), index)
        cached = self.cache.get(key)
        if cached is not None:
            frames = [v.frame for v in cached] if isinstance(cached, tuple) else [cached.frame]
            if all(self.on_path(f) for f in frames):
                return cached
        binding = self.bindings.get(id(instr))
        if binding is not None:
            value: Val | tuple[Val, ...] = binding(index)
        else:
            generator = GENERATORS.get(instr.opcode)
            if generator is None:
                raise NoKernel(f"{instr.opcode.value} {instr.name}: no element generator")
            value = generator(self, instr, index)
        self.cache[key] = value
        return value

    def scalar(self, instr: HloInstruction, index: Index) -> Val:
        """``element`` for instructions with one array result."""
        value = self.element(instr, index)
        if isinstance(value, tuple):
            raise NoKernel(f"{instr.opcode.value} {instr.name}: a tuple where an array is used")
        return value

    def operand_index(self, instr: HloInstruction, k: int, index: Index) -> Index:
        """The index of operand ``k`` read for output ``index``: the op's single map, its
        runtime variables (dynamic offsets) read, clamped to their bounds and bound to new
        symbols."""
        indexings = self.maps(instr)[k]
        if len(indexings) != 1:
            raise NoKernel(
                f"{instr.opcode.value} {instr.name}: operand {k} has {len(indexings)} maps"
            )
        indexing = indexings[0]
        m = indexing.map
        if m.is_undefined or m.range_vars:
            raise NoKernel(f"{instr.opcode.value} {instr.name}: no pointwise map for operand {k}")
        runtime = [
            self.runtime_symbol(instr, rt.instruction, rt.map, m.rt_vars[j].bounds, index)
            for j, rt in enumerate(indexing.rt_vars)
        ]
        return tuple(r.replace(dims=index, symbols=runtime) for r in m.results)

    def runtime_symbol(
        self,
        instr: HloInstruction,
        source: HloInstruction,
        rt_map: IndexingMap,
        bounds: Interval,
        index: Index,
    ) -> AffineExpr:
        """A symbol for ``source`` read at ``rt_map(index)``, clamped into ``bounds``."""
        value = self.scalar(source, tuple(e.replace(dims=index) for e in rt_map.results))
        if not value.type.is_integer:
            raise NoKernel(f"{instr.opcode.value} {instr.name}: non-integer offset {value.type}")
        if value.type.is_unsigned:
            limit = f"{numba_types.ctor(value.type)}({bounds.upper})"
            read = f"np.int64(min({value.text}, {limit}))"
        else:
            read = f"np.int64({value.text})"
        clamped = self.emit(
            f"{instr.name}_offset",
            f"min(max({read}, {bounds.lower}), {bounds.upper})",
            value.type,
            [value],
        )
        known = self._runtime_symbols.get(clamped.text)
        if known is not None and self.on_path(clamped.frame):
            return known  # the same clamped offset as another op's: the same symbol
        symbol_expr = self.new_symbol(clamped.text, bounds, clamped.frame)
        self._runtime_symbols[clamped.text] = symbol_expr
        return symbol_expr

    def operand(self, instr: HloInstruction, k: int, index: Index) -> Val:
        """The element of operand ``k`` that output ``index`` reads."""
        return self.scalar(instr.operands[k], self.operand_index(instr, k, index))

    @contextlib.contextmanager
    def scope(
        self,
        instructions: Sequence[HloInstruction],
        caller: HloInstruction | None = None,
        index: Index = (),
    ) -> Iterator[None]:
        """A fresh element cache for the computations of ``instructions`` (a region body
        generated again for another reduction). With ``caller``, the computation ``caller``
        calls at ``index``: the cache of an earlier call of it at the same index in the same
        scope is kept (the results of a multi-output fusion read one by one share its
        elements; values on frames off the current path are generated again)."""
        number = None
        if caller is not None:
            key = (self.scopes.get(id(caller.parent), 0), id(caller), self.simplify(index))
            number = self._call_scopes.get(key)
        if number is None:
            self._scope_counter += 1
            number = self._scope_counter
            if caller is not None:
                self._call_scopes[key] = number
        comps = {id(i.parent) for i in instructions}
        saved = {c: self.scopes.get(c) for c in comps}
        for c in comps:
            self.scopes[c] = number
        try:
            yield
        finally:
            for c, value in saved.items():
                if value is None:
                    self.scopes.pop(c, None)
                else:
                    self.scopes[c] = value

    # ---- source -----------------------------------------------------------------------------
    def signature(self) -> str:
        """The numba signature of the kernel (``void(float32[::1], ...)``)."""
        return "void(" + ", ".join(numba_types.array_type(a.type) for a in self.args) + ")"

    def function_source(self) -> str:
        """The ``@numba.njit`` kernel function."""
        options = f'"{self.signature()}", cache=True, error_model="numpy", nogil=True'
        if self.parallel:
            options += ", parallel=True"
        options += self.no_alias_option()
        lines = [f"@numba.njit({options})"]
        lines.append(f"def {self.name}({', '.join(a.name for a in self.args)}):")
        body: list[str] = []
        self.top.render(1, body)
        return "\n".join(lines + body)

    def mark_no_alias(self) -> None:
        """Compiles the kernel with ``no_alias.NoAliasCompiler``: for callers that never pass
        an argument overlapping a written one."""
        self.no_alias = True
        self.helper("no_alias", "NoAliasCompiler")

    def no_alias_option(self) -> str:
        """The decorator keyword of ``mark_no_alias`` kernels, else ''."""
        return ", pipeline_class=NoAliasCompiler" if self.no_alias else ""

    def imports(self) -> list[str]:
        """The import lines of the helpers the kernel calls."""
        modules: dict[str, list[str]] = {}
        for module, name in sorted(self.helpers):
            modules.setdefault(module, []).append(name)
        return [
            f"from xlapy.backend.cpu.codegen.{module} import {', '.join(names)}"
            for module, names in sorted(modules.items())
        ]


# Keywords of the ``numba.njit`` decorators in generated code (a variable of that name keeps it).
_NUMBA_OPTIONS = frozenset(
    {"cache", "parallel", "nogil", "error_model", "fastmath", "inline", "pipeline_class"}
)
# A name in generated code, not an attribute (``np.float32``) or part of a longer name.
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def rename(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with every name in ``renames`` (not attributes) replaced."""
    return _NAME.sub(lambda m: renames.get(m.group(0), m.group(0)), text)


def _identifier(hint: str) -> str:
    name = re.sub(r"\W", "_", hint)
    if not name or name[0].isdigit():
        name = "v_" + name
    if keyword.iskeyword(name) or name in _RESERVED:
        name += "_"
    return name


def _render(expr: AffineExpr, names: Sequence[str], parens: bool) -> str:
    kind = expr.kind
    if kind is ExprKind.CONSTANT:
        text = str(expr.value)
        return f"({text})" if parens and expr.value < 0 else text
    if kind is ExprKind.SYMBOL:
        return names[expr.value]
    if kind is ExprKind.DIM:
        raise AssertionError("index expressions are over symbols only")
    assert expr.lhs is not None
    assert expr.rhs is not None
    if kind is ExprKind.ADD:
        text = _render_sum(expr.summands(), names)
    elif kind is ExprKind.MUL:
        text = f"{_render(expr.lhs, names, True)} * {_render(expr.rhs, names, True)}"
    elif kind is ExprKind.FLOORDIV:
        text = f"{_render(expr.lhs, names, True)} // {_render(expr.rhs, names, True)}"
    else:
        text = f"{_render(expr.lhs, names, True)} % {_render(expr.rhs, names, True)}"
    return f"({text})" if parens else text


def _render_sum(terms: Sequence[AffineExpr], names: Sequence[str]) -> str:
    """``a + b - c * 2 - 3``: added terms first, then the subtracted ones."""
    added: list[str] = []
    subtracted: list[str] = []
    for term in terms:
        factor = term.constant_rhs(ExprKind.MUL)
        if term.is_constant and term.value < 0:
            subtracted.append(str(-term.value))
        elif factor is not None and factor < 0:
            assert term.lhs is not None
            base = _render(term.lhs, names, True)
            subtracted.append(base if factor == -1 else f"{base} * {-factor}")
        else:
            added.append(_render(term, names, False))
    text = " + ".join(added) if added else f"-{subtracted.pop(0)}"
    return text + "".join(f" - {t}" for t in subtracted)
