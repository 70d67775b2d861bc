"""Lowering of the MLIR syntax tree to HLO, the way XLA's StableHLO -> HLO conversion does.

* ``func.func`` -> HloComputation (lowered on demand, so one test function of a chunk does
  not depend on the others); several results -> tuple root; none -> empty tuple.
* Regions -> computations whose parameters are the block arguments.
* Multi-result ops -> one tuple-shaped instruction and a ``get-tuple-element`` per result.
* Implicit captures (a region using a value defined outside it): captured constants are
  cloned into the region's computation; other captured values are passed as extra operands
  for ``while`` (extra loop state, passed through unchanged) and ``if``/``case`` (the branch
  operand: the single captured value, or a tuple of them). Any other region capturing a
  non-constant value is an error, as in XLA.

The per-op mapping table lives in ``xlapy.text.stablehlo_ops``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from xlapy.errors import InvalidArgument, ParseError, ShapeCheckError, Unimplemented, XlaError
from xlapy.ir.attrs import RawAttribute
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import MAX_DEVICE_COUNT, HloModule, ModuleConfig
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.shape_inference.check import agrees, check_instruction
from xlapy.text.mlir_ast import Block, MlirModule, MlirType, Op, Region

if TYPE_CHECKING:  # the sharding readers (~4 ms to import) load only for sharded programs
    from xlapy.sharding.read import ManualContext
    from xlapy.sharding.sdy import Mesh

_SHARDING_ATTRS = ("mhlo.sharding", "sdy.sharding")

LowerFn = Callable[["Builder", Op], "Sequence[HloInstruction] | None"]
LOWERINGS: dict[str, LowerFn] = {}

_RESULT_INDEX = re.compile(r"#\d+$")


def lowers(*names: str) -> Callable[[LowerFn], LowerFn]:
    """Registers the decorated function as the lowering of the MLIR ops ``names``."""

    def register(fn: LowerFn) -> LowerFn:
        for name in names:
            LOWERINGS[name] = fn
        return fn

    return register


def _rare_lowering(name: str) -> LowerFn | None:
    """The lowering of op ``name`` among those of ``stablehlo_ops_extra`` (custom calls,
    collectives, send/recv/feeds, the check and interpreter test ops) and
    ``stablehlo_ops_legacy`` (ops removed from StableHLO or expanded by XLA's legalizations:
    einsum, torch_index_select, async, trace), those modules imported on first use: most JAX
    programs print none of these ops, and every process loading StableHLO would pay their
    import (~1.3 ms)."""
    from xlapy.text import (  # noqa: F401  (register their lowerings)
        stablehlo_ops_extra,
        stablehlo_ops_legacy,
    )

    return LOWERINGS.get(name)


class ModuleLowering:
    """Lowers the functions of one ``MlirModule`` into one ``HloModule``."""

    def __init__(self, ast: MlirModule, text: str, filename: str) -> None:
        self.ast = ast
        self.text = text
        self.filename = filename
        config = ModuleConfig()
        config.replica_count = self._device_count("mhlo.num_replicas")
        config.num_partitions = self._device_count("mhlo.num_partitions")
        self.hlo = HloModule(ast.name or "main", config)
        self.meshes: dict[str, Mesh] = {}
        if ast.meshes:
            from xlapy.sharding.sdy import parse_mesh

            self.meshes = {name: parse_mesh(text) for name, text in ast.meshes.items()}
        self.functions: dict[str, HloComputation] = {}
        self._lowering: set[str] = set()
        self._regions = 0

    def error(self, offset: int, message: str) -> ParseError:
        return ParseError.at(self.text, offset, message, self.filename)

    def _device_count(self, name: str) -> int:
        """The module attribute ``name`` (1 when absent): an integer in [1, 2^31 - 1]."""
        value = self.ast.attrs.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(
                self.ast.offset, f"module attribute {name} must be an integer; got {value!r:.60}"
            )
        if not 1 <= value <= MAX_DEVICE_COUNT:
            raise self.error(
                self.ast.offset,
                f"module attribute {name} must be in [1, {MAX_DEVICE_COUNT}]; got {value}",
            )
        return value

    def unsupported(self, offset: int, message: str) -> Unimplemented:
        """An Unimplemented error located at ``offset`` (``file:line:col: error: ...``)."""
        return Unimplemented(str(self.error(offset, message)))

    def region_name(self) -> str:
        self._regions += 1
        return f"region_{self._regions - 1}"

    def lower_entry(self, name: str) -> HloModule:
        """The module whose entry computation is function ``name``."""
        if name not in self.ast.functions:
            raise self.error(self.ast.offset, f"no function named @{name}")
        func = self.ast.functions[name]
        entry = self.function(name, func.offset)
        if any(key in attrs for attrs in (*func.arg_attrs, *func.result_attrs)
               for key in _SHARDING_ATTRS):  # fmt: skip
            from xlapy.sharding.read import apply_function_shardings

            try:
                apply_function_shardings(entry, func.arg_attrs, func.result_attrs, self.meshes)
            except XlaError as err:
                raise self.error(func.offset, f"@{name}: {err}") from None
        self._donations(func.arg_attrs)
        self.hlo.entry = entry
        return self.hlo

    def _donations(self, arg_attrs: list[dict[str, Any]]) -> None:
        """The entry's donated arguments as XLA's module config records them: an argument's
        ``tf.aliasing_output = k`` becomes ``input_output_alias`` ``{k}: (i, {}, may-alias)``
        and ``jax.buffer_donor = true`` a ``buffer_donor`` ``(i, {})`` (JAX's lowering with
        ``donate_argnums``)."""
        aliases, donors = [], []
        for i, attrs in enumerate(arg_attrs):
            output = attrs.get("tf.aliasing_output")
            if isinstance(output, int) and not isinstance(output, bool):
                aliases.append(f"{{{output}}}: ({i}, {{}}, may-alias)")
            if attrs.get("jax.buffer_donor") is True:
                donors.append(f"({i}, {{}})")
        if aliases:
            self.hlo.config.input_output_alias = RawAttribute("{ " + ", ".join(aliases) + " }")
        if donors:
            self.hlo.config.buffer_donor = RawAttribute("{ " + ", ".join(donors) + " }")

    def function(self, name: str, offset: int) -> HloComputation:
        """The computation of function ``name`` (lowered once, callees first)."""
        comp = self.functions.get(name)
        if comp is not None:
            return comp
        func = self.ast.functions.get(name)
        if func is None:
            raise self.error(offset, f"call to undefined function @{name}")
        if name in self._lowering:
            raise self.unsupported(offset, f"recursive call to @{name} cannot be lowered to HLO")
        if func.body is None:
            raise self.error(func.offset, f"function @{name} has no body")
        self._lowering.add(name)
        try:
            builder = Builder(self, name, None)
            comp = builder.build(func.body, func.offset, None)
            self._check_results(func.result_types, comp, name, func.offset)
        finally:
            self._lowering.discard(name)
        self.hlo.add_computation(comp)
        self.functions[name] = comp
        return comp

    def _check_results(
        self, declared: Sequence[MlirType], comp: HloComputation, name: str, offset: int
    ) -> None:
        """The values ``return`` gives match the function's declared result types."""
        want = list(declared)
        root = comp.root.shape
        got = [root] if len(want) == 1 else list(root.tuple_shapes) if root.is_tuple else [root]
        if len(got) != len(want) or not all(agrees(g, w) for g, w in zip(got, want, strict=True)):
            raise self.error(
                offset,
                f"function @{name} returns ({', '.join(g.to_mlir() for g in got)}) but declares "
                f"results ({', '.join(w.to_mlir() for w in want)})",
            )


class Builder:
    """Builds one computation: an SSA environment and the instructions added so far."""

    def __init__(self, module: ModuleLowering, name: str, parent: Builder | None) -> None:
        self.module = module
        self.comp = HloComputation(name)
        self.parent = parent
        self.env: dict[str, HloInstruction] = {}
        self.manual: ManualContext | None = parent.manual if parent is not None else None
        """Inside an ``sdy.manual_computation``: its mesh and manual axes."""

    # ---- values ---------------------------------------------------------------------------
    def add(
        self,
        opcode: Opcode,
        shape: Shape,
        operands: Sequence[HloInstruction] = (),
        attrs: dict[str, Any] | None = None,
        **fields: Any,
    ) -> HloInstruction:
        instr = HloInstruction(opcode, shape, operands, attrs, **fields)
        return self.comp.add_instruction(instr)

    def find(self, key: str) -> tuple[HloInstruction | None, Builder | None]:
        """The instruction of ``key`` in the nearest enclosing scope, and that scope."""
        builder: Builder | None = self
        while builder is not None:
            found = builder.env.get(key)
            if found is None and key.endswith("#0"):
                found = builder.env.get(key[:-2])
            if found is not None:
                return found, builder
            builder = builder.parent
        return None, None

    def lookup(self, key: str, offset: int) -> HloInstruction:
        """The instruction of SSA value ``key``; captured constants are cloned in."""
        found, owner = self.find(key)
        if found is None:
            raise self.module.error(offset, f"use of undefined value {key}")
        if owner is self:
            return found
        if found.opcode is Opcode.CONSTANT:
            clone = self.add(Opcode.CONSTANT, found.shape, (), {"literal": found.attrs.literal})
            self.env[key] = clone
            return clone
        raise self.module.unsupported(
            offset,
            f"{key} is defined outside this region and is not a constant; only while, if and "
            "case regions may capture such values",
        )

    def operands(self, op: Op) -> list[HloInstruction]:
        return [self.lookup(k, op.offset) for k in op.operands]

    def shape(self, t: MlirType, offset: int) -> Shape:
        return t

    def result_shape(self, op: Op, i: int = 0) -> Shape:
        if i >= len(op.result_types):
            raise self.module.error(op.offset, f"{op.name} needs a result type")
        return self.shape(op.result_types[i], op.offset)

    def result_shapes(self, op: Op) -> list[Shape]:
        return [self.shape(t, op.offset) for t in op.result_types]

    def multi(
        self,
        op: Op,
        opcode: Opcode,
        operands: Sequence[HloInstruction],
        attrs: dict[str, Any] | None = None,
        *,
        always_tuple: bool = False,
        **fields: Any,
    ) -> list[HloInstruction]:
        """One instruction for a multi-result op: tuple-shaped with a get-tuple-element per
        result when it has several results (or ``always_tuple``), else the plain result."""
        shapes = self.result_shapes(op)
        if len(shapes) == 1 and not always_tuple:
            return [self.add(opcode, shapes[0], operands, attrs, **fields)]
        instr = self.add(opcode, Shape.tuple_of(shapes), operands, attrs, **fields)
        return self.unpack(instr)

    def unpack(self, instr: HloInstruction, count: int | None = None) -> list[HloInstruction]:
        """A get-tuple-element for each of the first ``count`` elements of a tuple value."""
        shapes = instr.shape.tuple_shapes
        n = len(shapes) if count is None else count
        return [
            self.add(Opcode.GET_TUPLE_ELEMENT, shapes[i], [instr], {"index": i}) for i in range(n)
        ]

    def tuple(self, values: Sequence[HloInstruction]) -> HloInstruction:
        return self.add(Opcode.TUPLE, Shape.tuple_of([v.shape for v in values]), values)

    def pack(self, values: Sequence[HloInstruction]) -> HloInstruction:
        """The single value itself, or a tuple of several (or none)."""
        return values[0] if len(values) == 1 else self.tuple(values)

    # ---- blocks and regions ---------------------------------------------------------------
    def build(
        self, region: Region, offset: int, param_shapes: list[Shape] | None
    ) -> HloComputation:
        """Lowers a single-block region into this builder's computation: one parameter per
        block argument (``param_shapes`` overrides their types), root from the terminator."""
        block = self.single_block(region, offset)
        for i, (name, t) in enumerate(block.args):
            shape = param_shapes[i] if param_shapes is not None else self.shape(t, offset)
            param = self.add(Opcode.PARAMETER, shape, (), {"parameter_number": i}, name=f"Arg_{i}")
            self.env[name] = param
        values = self.lower_ops(block)
        root = self.pack(values)
        self.comp.root = root
        return self.comp

    def single_block(self, region: Region, offset: int) -> Block:
        if len(region.blocks) != 1:
            raise self.module.unsupported(
                offset, f"regions with {len(region.blocks)} blocks cannot be lowered to HLO"
            )
        return region.blocks[0]

    def lower_ops(self, block: Block) -> list[HloInstruction]:
        """Lowers every op of ``block``; returns the terminator's operands."""
        for op in block.ops:
            if op.name in ("func.return", "stablehlo.return", "sdy.return"):
                return self.operands(op)
            self.lower_op(op)
        raise self.module.error(
            block.ops[-1].offset if block.ops else 0, "block does not end with a return"
        )

    def lower_op(self, op: Op) -> None:
        fn = LOWERINGS.get(op.name) or _rare_lowering(op.name)
        if fn is None:
            raise self.module.unsupported(op.offset, f"unsupported operation {op.name}")
        if op.operand_types and len(op.operand_types) == len(op.operands):
            self._check_operand_types(op)
        first = len(self.comp.instructions)
        try:
            results = list(fn(self, op) or [])
        except ParseError:
            raise
        except XlaError as err:
            if str(err).startswith(self.module.filename + ":"):
                raise
            raise type(err)(str(self.module.error(op.offset, f"{op.name}: {err}"))) from None
        for instr in self.comp.instructions[first:]:
            try:
                check_instruction(instr)
            except InvalidArgument as err:
                m = self.module
                raise ShapeCheckError.at(
                    m.text, op.offset, f"{op.name}: {err}", m.filename
                ) from None
        if len(results) != len(op.results):
            raise self.module.error(
                op.offset, f"{op.name} produces {len(results)} values; {len(op.results)} named"
            )
        if "sdy.sharding" in op.attrs or str(op.attrs.get("mhlo.sharding", "") or "").strip():
            self._set_op_sharding(op, results, first)
        for name, instr in zip(op.results, results, strict=True):
            self.env[name] = instr

    def _check_operand_types(self, op: Op) -> None:
        """The tensor types an op's signature lists for its operands are their types (MLIR
        resolves each operand with the type written for it: a mismatch is an error there).
        Futures, tuples and tokens are lowered to HLO's own forms and not compared here."""
        for i, (key, declared) in enumerate(zip(op.operands, op.operand_types, strict=True)):
            value = self.lookup(key, op.offset)
            plain = isinstance(declared, Shape) and declared.is_array and value.shape.is_array
            if plain and not agrees(value.shape, declared):
                raise self.module.error(
                    op.offset,
                    f"{op.name}: operand {i} ({key}) is {value.shape.to_mlir()} but the op's "
                    f"type lists {declared.to_mlir()}",
                )

    def _set_op_sharding(self, op: Op, results: list[HloInstruction], first: int) -> None:
        """An op's ``mhlo.sharding`` (a tuple sharding gives one element per result) or
        ``sdy.sharding`` (``#sdy.sharding_per_value<[...]>``, one per result) on the
        instructions it created for its results."""
        from xlapy.sharding.read import op_shardings

        new = {id(i) for i in self.comp.instructions[first:]}
        try:
            shardings = op_shardings(op.attrs, [r.shape for r in results], self.module.meshes,
                                     self.manual)  # fmt: skip
        except XlaError as err:
            attr = "mhlo.sharding" if "mhlo.sharding" in op.attrs else "sdy.sharding"
            raise self.module.error(op.offset, f"{op.name}: {attr}: {err}") from None
        for r, s in zip(results, shardings, strict=True):
            if id(r) in new and r.sharding is None:
                r.sharding = s

    def region(
        self,
        region: Region,
        offset: int,
        param_shapes: list[Shape] | None = None,
        name: str = "",
    ) -> HloComputation:
        """A computation for an isolated region (reduce bodies, comparators, ...)."""
        child = Builder(self.module, name or self.module.region_name(), self)
        comp = child.build(region, offset, param_shapes)
        self.module.hlo.add_computation(comp)
        return comp

    def captures(self, regions: Sequence[Region], offset: int) -> list[str]:
        """Values used in ``regions`` but defined outside them that are not constants."""
        keys: list[str] = []
        for region in regions:
            for key in free_values(region):
                found, _ = self.find(key)
                if found is None:
                    raise self.module.error(offset, f"use of undefined value {key}")
                if key not in keys and found.opcode is not Opcode.CONSTANT:
                    keys.append(key)
        return keys

    def region_with_state(
        self,
        region: Region,
        offset: int,
        state: list[Shape],
        arg_count: int,
        captured: list[str],
        finish: Callable[[Builder, list[HloInstruction], list[HloInstruction]], HloInstruction],
    ) -> HloComputation:
        """A computation taking the packed ``state`` (one value, or a tuple): its first
        ``arg_count`` elements are the block arguments, the rest the ``captured`` values.
        ``finish(builder, returned, captured_values)`` builds the root."""
        child = Builder(self.module, self.module.region_name(), self)
        block = child.single_block(region, offset)
        param_shape = state[0] if len(state) == 1 else Shape.tuple_of(state)
        param = child.add(Opcode.PARAMETER, param_shape, (), {"parameter_number": 0}, name="Arg_0")
        elements = [param] if len(state) == 1 else child.unpack(param)
        # (no state: an empty-tuple parameter with no elements)
        if len(block.args) != arg_count:
            raise self.module.error(
                offset, f"region has {len(block.args)} arguments; expected {arg_count}"
            )
        for (name, _), value in zip(block.args, elements[:arg_count], strict=True):
            child.env[name] = value
        for key, value in zip(captured, elements[arg_count:], strict=True):
            child.env[key] = value
        returned = child.lower_ops(block)
        child.comp.root = finish(child, returned, elements[arg_count:])
        self.module.hlo.add_computation(child.comp)
        return child.comp


def free_values(region: Region) -> list[str]:
    """SSA values used inside ``region`` (nested regions included) but not defined in it."""
    defined: set[str] = set()
    used: list[str] = []

    def visit(r: Region) -> None:
        for block in r.blocks:
            defined.update(name for name, _ in block.args)
            for op in block.ops:
                for key in op.operands:
                    used.append(key)
                for res in op.results:
                    defined.add(res)
                    defined.add(_RESULT_INDEX.sub("", res))
                for sub in op.regions:
                    visit(sub)

    visit(region)
    seen: set[str] = set()
    free: list[str] = []
    for key in used:
        base = _RESULT_INDEX.sub("", key)
        if key in defined or (key.endswith("#0") and base in defined) or key in seen:
            continue
        seen.add(key)
        free.append(key)
    return free


def iter_ops(region: Region) -> Iterator[Op]:
    for block in region.blocks:
        for op in block.ops:
            yield op
            for sub in op.regions:
                yield from iter_ops(sub)
