"""HLO -> StableHLO text: ``print_stablehlo(module)``, the inverse of the StableHLO parser.

The module prints as ``module @name attributes {mhlo.num_partitions, mhlo.num_replicas}`` with
``func.func public @main`` for the entry computation and a private function for every
computation that is called by name (``call``, composites, ``custom-call`` called
computations). The other computations become regions: reduction, comparator and scatter bodies
(block arguments = the parameters), ``while`` condition and body, ``conditional`` branches
(inlined, capturing the branch operand), and ``fusion`` computations (inlined at the fusion).

Tuples are flattened, as XLA's HLO -> StableHLO conversion does: a tuple-shaped HLO value is
carried as the list of its leaves (``Pack``), so function signatures, ``while`` state,
``if``/``case`` results and multi-result ops use plain tensors and tokens;
``stablehlo.tuple`` / ``get_tuple_element`` appear only where a single tuple-typed value is
needed (a tuple operand of a custom call). Layouts are dropped except where they carry meaning:
``bitcast`` becomes the transposes and reshape that its layouts imply, custom-call layout
constraints become ``operand_layouts``/``result_layouts``.

The per-op emitters live in ``stablehlo_print_ops`` (elementwise, data movement, contractions),
``stablehlo_print_regions`` (ops with regions, control flow, calls) and
``stablehlo_print_extra`` (custom calls, collectives, communication, CHLO and dynamic ops);
literals in ``stablehlo_print_dense``. An instruction with no StableHLO form raises
``Unimplemented`` naming its opcode and name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xlapy.errors import Unimplemented
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape

# ---- values -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ssa:
    """One MLIR value: its name (``%3``, ``%4#1``, ``%arg0``) and type."""

    name: str
    shape: Shape


@dataclass(frozen=True, slots=True, eq=False)
class Pack:
    """A tuple-shaped HLO value carried as its elements (no MLIR value of its own)."""

    items: tuple[Value, ...]

    @property
    def shape(self) -> Shape:
        return Shape.tuple_of([item.shape for item in self.items])


@dataclass(frozen=True, slots=True)
class Opaque:
    """An HLO value with no StableHLO counterpart (the ``u32[]`` context of send/recv); it
    may be carried in a tuple but not used."""

    shape: Shape
    what: str


Value = Ssa | Pack | Opaque

Emitter = Callable[["Scope", HloInstruction, list[Value]], Value]
EMITTERS: dict[Opcode, Emitter] = {}


def emits(*opcodes: Opcode) -> Callable[[Emitter], Emitter]:
    """Registers the decorated function as the StableHLO emitter of ``opcodes``."""

    def register(fn: Emitter) -> Emitter:
        for opcode in opcodes:
            EMITTERS[opcode] = fn
        return fn

    return register


def unsupported(instr: HloInstruction, rule: str, got: object) -> Unimplemented:
    """``<opcode> <name> [stablehlo]: <rule>; got <got>``."""
    return Unimplemented(f"{instr.opcode.value} {instr.name} [stablehlo]: {rule}; got {got}")


def unflatten(shape: Shape, leaves: Iterator[Ssa]) -> Value:
    """The value of ``shape`` built from its leaves, in order (a Pack for each tuple)."""
    if shape.is_tuple:
        return Pack(tuple(unflatten(s, leaves) for s in shape.tuple_shapes))
    return next(leaves)


def result_shapes(shape: Shape) -> list[Shape]:
    """The results of a multi-result op: the elements of a tuple shape, else the shape."""
    return list(shape.tuple_shapes) if shape.is_tuple else [shape]


def types(values: Sequence[Ssa | Shape]) -> str:
    """``T1, T2`` of values or shapes."""
    return ", ".join((v.shape if isinstance(v, Ssa) else v).to_mlir() for v in values)


def function_type(operands: Sequence[Ssa | Shape], results: Sequence[Shape]) -> str:
    """``(T1, T2) -> R`` or ``(T1) -> (R1, R2)``."""
    result = results[0].to_mlir() if len(results) == 1 else f"({types(results)})"
    return f"({types(operands)}) -> {result}"


def names(values: Sequence[Ssa]) -> str:
    return ", ".join(v.name for v in values)


def generic(name: str, operands: Sequence[Ssa], results: Sequence[Shape],
            properties: Sequence[str] = (), regions: Sequence[str] = (),
            attributes: Sequence[str] = ()) -> str:  # fmt: skip
    """The generic form ``"name"(operands) <{properties}> (regions) {attributes} : (types) ->
    (results)``, properties and attributes sorted as MLIR prints them."""
    text = f'"{name}"({names(operands)})'
    if properties:
        text += f" <{{{', '.join(sorted(properties))}}}>"
    if regions:
        text += f" ({', '.join(regions)})"
    if attributes:
        text += f" {{{', '.join(sorted(attributes))}}}"
    return f"{text} : {function_type(operands, results)}"


_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*$")


def symbol(name: str) -> str:
    """``@name``, quoted when ``name`` is not a bare MLIR identifier."""
    from xlapy.text.stablehlo_print_dense import mlir_string

    return f"@{name}" if _BARE_SYMBOL.match(name) else f"@{mlir_string(name)}"


# ---- scopes: one block being written ---------------------------------------------------------


class FunctionState:
    """Name counters of one ``func.func`` (SSA names are unique in the whole function)."""

    def __init__(self) -> None:
        self.values = 0
        self.args = 0

    def value(self) -> str:
        self.values += 1
        return f"%{self.values - 1}"

    def arg(self) -> str:
        self.args += 1
        return f"%arg{self.args - 1}"


class Scope:
    """The ops of one block (a function body or a region), written at one indentation.

    Values materialized for a Pack (``stablehlo.tuple``) or an Ssa tuple
    (``get_tuple_element``) are cached per block; a nested block sees the caches of the
    blocks around it, never the other way.
    """

    def __init__(self, printer: ModulePrinter, fn: FunctionState, indent: int,
                 parent: Scope | None = None) -> None:  # fmt: skip
        self.printer = printer
        self.fn = fn
        self.indent = indent
        self.parent = parent
        self.lines: list[str] = []
        self._cache: dict[tuple[int, int], tuple[object, Value]] = {}

    @property
    def pad(self) -> str:
        return " " * self.indent

    def child(self) -> Scope:
        """A scope for a region of an op written in this scope."""
        return Scope(self.printer, self.fn, self.indent + 2, self)

    # ---- writing ops ------------------------------------------------------------------------
    def reserve(self) -> str:
        """A fresh result name (taken before an op's regions are written, as MLIR numbers)."""
        return self.fn.value()

    def define(self, base: str, text: str, shapes: Sequence[Shape]) -> list[Ssa]:
        """Writes ``base = text`` (``base:N`` for N results) and returns the results."""
        if not shapes:
            self.lines.append(self.pad + text)
            return []
        if len(shapes) == 1:
            self.lines.append(f"{self.pad}{base} = {text}")
            return [Ssa(base, shapes[0])]
        self.lines.append(f"{self.pad}{base}:{len(shapes)} = {text}")
        return [Ssa(f"{base}#{i}", s) for i, s in enumerate(shapes)]

    def op(self, text: str, shapes: Sequence[Shape]) -> list[Ssa]:
        return self.define(self.reserve() if shapes else "", text, shapes)

    def op1(self, text: str, shape: Shape) -> Ssa:
        return self.op(text, [shape])[0]

    def terminate(self, values: Sequence[Ssa], op: str = "stablehlo.return") -> None:
        """The block's terminator (``stablehlo.return`` / ``return``)."""
        suffix = f" {names(values)} : {types(values)}" if values else ""
        self.lines.append(f"{self.pad}{op}{suffix}")

    # ---- values -----------------------------------------------------------------------------
    def _cached(self, key: tuple[int, int]) -> Value | None:
        scope: Scope | None = self
        while scope is not None:
            hit = scope._cache.get(key)
            if hit is not None:
                return hit[1]
            scope = scope.parent
        return None

    def ssa(self, value: Value, what: str = "value") -> Ssa:
        """The single MLIR value of ``value`` (a Pack becomes ``stablehlo.tuple``)."""
        if isinstance(value, Ssa):
            return value
        if isinstance(value, Opaque):
            raise Unimplemented(f"{value.what} has no StableHLO form; it is used as the {what}")
        key = (id(value), -1)
        hit = self._cached(key)
        if isinstance(hit, Ssa):
            return hit
        items = [self.ssa(item, what) for item in value.items]
        shape = Shape.tuple_of([i.shape for i in items])
        result = self.op1(f"stablehlo.tuple {names(items)} : {shape.to_mlir()}", shape)
        self._cache[key] = (value, result)
        return result

    def element(self, value: Value, index: int) -> Value:
        """Element ``index`` of a tuple value."""
        if isinstance(value, Pack):
            return value.items[index]
        if isinstance(value, Opaque):
            raise Unimplemented(f"{value.what} has no StableHLO form")
        key = (id(value), index)
        hit = self._cached(key)
        if hit is not None:
            return hit
        shape = value.shape.tuple_shapes[index]
        text = (
            f"stablehlo.get_tuple_element {value.name}[{index}] : {function_type([value], [shape])}"
        )
        result = self.op1(text, shape)
        self._cache[key] = (value, result)
        return result

    def leaves(self, value: Value) -> list[Ssa]:
        """Every non-tuple value inside ``value``, depth first."""
        if isinstance(value, Ssa) and not value.shape.is_tuple:
            return [value]
        if isinstance(value, Opaque):
            raise Unimplemented(f"{value.what} has no StableHLO form")
        count = len(value.items) if isinstance(value, Pack) else len(value.shape.tuple_shapes)
        out: list[Ssa] = []
        for i in range(count):
            out.extend(self.leaves(self.element(value, i)))
        return out

    # ---- computations -----------------------------------------------------------------------
    def emit_computation(self, comp: HloComputation, params: Sequence[Value]) -> Value:
        """Writes the instructions of ``comp`` into this block, its parameters bound to
        ``params``; returns the value of its root."""
        env: dict[int, Value] = {}
        parameters = comp.parameters
        if len(parameters) != len(params):
            raise Unimplemented(
                f"computation {comp.name} takes {len(parameters)} parameters; "
                f"got {len(params)} values"
            )
        for param, value in zip(parameters, params, strict=True):
            env[id(param)] = value
        for instr in comp.post_order():
            if instr.opcode is Opcode.PARAMETER:
                continue
            emitter = EMITTERS.get(instr.opcode)
            if emitter is None:
                raise unsupported(instr, "this opcode has no StableHLO form", instr.shape)
            operands = [env[id(o)] for o in instr.operands]
            env[id(instr)] = emitter(self, instr, operands)
        return env[id(comp.root)]

    def region(self, comp: HloComputation) -> str:
        """``{ ^bb0(params): body; stablehlo.return root }`` for an isolated region whose
        block arguments are the (non-tuple) parameters of ``comp``."""
        inner = self.child()
        args: list[Ssa] = []
        for param in comp.parameters:
            if param.shape.is_tuple:
                raise Unimplemented(
                    f"computation {comp.name}: a region parameter cannot be a tuple; got "
                    f"{param.name} of {param.shape}"
                )
            args.append(Ssa(self.fn.arg(), param.shape))
        root = inner.emit_computation(comp, args)
        inner.terminate(inner.leaves(root))
        header = ", ".join(f"{a.name}: {a.shape.to_mlir()}" for a in args)
        return self.block_text(inner, f"^bb0({header}):" if args else "")

    def region_with(self, comp: HloComputation, params: Sequence[Value]) -> str:
        """A region without block arguments running ``comp`` on ``params`` (values of the
        enclosing blocks): the branches of ``if``/``case``."""
        inner = self.child()
        root = inner.emit_computation(comp, params)
        inner.terminate(inner.leaves(root))
        return self.block_text(inner, "")

    def block_text(self, inner: Scope, header: str) -> str:
        """``{``, the block header, ``inner``'s lines, ``}`` (closing at this indent)."""
        lines = ["{"]
        if header:
            lines.append(self.pad + header)
        lines.extend(inner.lines)
        lines.append(self.pad + "}")
        return "\n".join(lines)


# ---- the module -------------------------------------------------------------------------------


class ModulePrinter:
    """Prints one module: ``@main`` first, then each function in order of first use."""

    def __init__(self, module: HloModule) -> None:
        self.module = module
        self._names: dict[int, str] = {}
        self._taken: set[str] = set()
        self._queue: list[HloComputation] = []

    def function_name(self, comp: HloComputation) -> str:
        """The symbol of ``comp`` as a function (printed once, after the current one)."""
        name = self._names.get(id(comp))
        if name is not None:
            return name
        name = comp.name
        n = 0
        while name in self._taken:
            n += 1
            name = f"{comp.name}_{n}"
        self._names[id(comp)] = name
        self._taken.add(name)
        self._queue.append(comp)
        return name

    def print(self) -> str:
        entry = self.module.entry
        self._names[id(entry)] = "main"
        self._taken.add("main")
        self._queue.append(entry)
        functions: list[str] = []
        done = 0
        while done < len(self._queue):
            comp = self._queue[done]
            functions.append(self.function(comp, public=comp is entry))
            done += 1
        config = self.module.config
        attrs = (
            f"mhlo.num_partitions = {config.num_partitions} : i32, "
            f"mhlo.num_replicas = {config.replica_count} : i32"
        )
        body = "\n".join(functions)
        return f"module {symbol(self.module.name)} attributes {{{attrs}}} {{\n{body}\n}}\n"

    def function(self, comp: HloComputation, public: bool) -> str:
        """``func.func`` of ``comp``: tuple parameters and results flattened to leaves."""
        fn = FunctionState()
        scope = Scope(self, fn, 4)
        params: list[Value] = []
        args: list[Ssa] = []
        arg_shardings: list[str] = []
        for param in comp.parameters:
            leaves = [Ssa(fn.arg(), s) for s in param.shape.leaves()]
            args.extend(leaves)
            params.append(unflatten(param.shape, iter(leaves)))
            arg_shardings += _leaf_shardings(param, len(leaves), public)
        if public:
            arg_shardings = _with_donations(self.module, arg_shardings)
        root = scope.emit_computation(comp, params)
        results = scope.leaves(root)
        scope.terminate(results, "return")
        result_shardings = _leaf_shardings(comp.root, len(results), public)
        signature = ", ".join(
            f"{a.name}: {a.shape.to_mlir()}{s}" for a, s in zip(args, arg_shardings, strict=True)
        )
        returns = ""
        if len(results) == 1 and not result_shardings[0]:
            returns = f" -> {results[0].shape.to_mlir()}"
        elif results:
            typed = (
                f"{r.shape.to_mlir()}{s}" for r, s in zip(results, result_shardings, strict=True)
            )
            returns = f" -> ({', '.join(typed)})"
        visibility = "public" if public else "private"
        head = f"  func.func {visibility} {symbol(self._names[id(comp)])}({signature}){returns} {{"
        return "\n".join([head, *scope.lines, "  }"])


def _leaf_shardings(instr: HloInstruction, count: int, public: bool) -> list[str]:
    """`` {mhlo.sharding = "..."}`` per leaf of an entry parameter or result (XLA's
    HLO -> StableHLO export), else empty strings."""
    from xlapy.text.stablehlo_print_dense import mlir_string

    if not public or instr.sharding is None or count == 0:
        return [""] * count
    leaves = instr.sharding.leaf_shardings(instr.shape)
    if len(leaves) != count:
        return [""] * count
    return [f" {{mhlo.sharding = {mlir_string(s.to_string(False))}}}" for s in leaves]


_ALIAS = re.compile(r"\{(\d*)\}: \((\d+), \{\}")
_DONOR = re.compile(r"\((\d+), \{\}\)")


def _with_donations(module: HloModule, leaf_attrs: list[str]) -> list[str]:
    """``leaf_attrs`` of the entry's arguments with the module's donations as JAX writes them
    (the inverse of the importer): an ``input_output_alias`` ``{k}: (i, {})`` becomes
    ``tf.aliasing_output = k`` on argument ``i``, a ``buffer_donor`` ``(i, {})``
    ``jax.buffer_donor = true``. Only array parameters and outputs of a tuple of arrays (or
    one array) have such an argument and result number; other aliases are not printed."""
    config = module.config
    entry = module.entry
    if not all(p.shape.is_array for p in entry.parameters):
        return leaf_attrs
    root = entry.root.shape
    outputs = root.tuple_shapes if root.is_tuple else (root,)
    if not all(o.is_array for o in outputs):
        return leaf_attrs
    extra: dict[int, list[str]] = {}
    for out, param in _ALIAS.findall(str(config.input_output_alias or "")):
        if (out == "") == root.is_tuple or int(param) >= len(leaf_attrs):
            continue
        extra.setdefault(int(param), []).append(f"tf.aliasing_output = {int(out or 0)} : i32")
    for param in _DONOR.findall(str(config.buffer_donor or "")):
        if int(param) < len(leaf_attrs):
            extra.setdefault(int(param), []).append("jax.buffer_donor = true")
    attrs = list(leaf_attrs)
    for i, entries in extra.items():
        inner = attrs[i].strip()[1:-1] if attrs[i] else ""
        attrs[i] = " {" + ", ".join([*([inner] if inner else []), *entries]) + "}"
    return attrs


def print_stablehlo(module: HloModule) -> str:
    """The StableHLO (MLIR) text of ``module``; raises Unimplemented for an instruction that
    has no StableHLO form, naming its opcode and name."""
    from xlapy.text import (  # noqa: F401  (register the emitters)
        stablehlo_print_extra,
        stablehlo_print_ops,
        stablehlo_print_regions,
    )

    return ModulePrinter(module).print()
