"""The HLO text printer: ``HloModule`` -> XLA's canonical text (HLO_TEXT.md §4.1, §9).

``PrintOptions`` mirrors XLA's ``HloPrintOptions`` and its presets: ``default()`` (what
``compile().as_text()`` and XLA dumps use: ``%`` sigils, parameter lists, metadata),
``short_parsable()`` (``as_hlo_text()`` with large constants printed) and ``canonical()``
(``tmp_N`` names, operand shapes, called computations inline). Attributes are printed in
schema order (``xlapy.ir.opdefs``) by the per-kind formatters of ``hlo_attr_text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from xlapy.errors import Unimplemented
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule, StackFrameIndex
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import AttrKind, AttrSpec, PrintPolicy
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text import hlo_attr_text as T
from xlapy.text.literal_text import format_literal


@dataclass(frozen=True)
class PrintOptions:
    """What to print (XLA HloPrintOptions). The default equals ``PrintOptions.default()``."""

    print_percent: bool = True
    print_program_shape: bool = True
    print_metadata: bool = True
    print_backend_config: bool = True
    print_operand_shape: bool = False
    print_large_constants: bool = False
    include_layout_in_shapes: bool = True
    print_control_dependencies: bool = True
    print_stack_frame_index: bool = True
    canonicalize_instruction_names: bool = False
    print_called_computations_inline: bool = False
    syntax_sugar_async_ops: bool = True
    operand_index_annotation_interval: int = 5
    indent_amount: int = 0

    @staticmethod
    def default() -> PrintOptions:
        """``compile().as_text()`` / XLA dump style."""
        return PrintOptions()

    @staticmethod
    def short_parsable() -> PrintOptions:
        """``as_hlo_text()`` style (no ``%``, no metadata), but with large constants."""
        return PrintOptions(
            print_percent=False,
            print_program_shape=False,
            print_metadata=False,
            print_control_dependencies=False,
            print_large_constants=True,
            operand_index_annotation_interval=0,
        )

    @staticmethod
    def as_hlo_text() -> PrintOptions:
        """Exactly what JAX's ``as_hlo_text()`` prints (large constants elided)."""
        return replace(PrintOptions.short_parsable(), print_large_constants=False)

    @staticmethod
    def canonical() -> PrintOptions:
        """XLA's canonical form: ``tmp_N`` names, operand shapes, computations inline."""
        return PrintOptions(
            print_percent=False,
            print_program_shape=False,
            print_metadata=False,
            print_backend_config=False,
            print_operand_shape=True,
            print_control_dependencies=False,
            canonicalize_instruction_names=True,
            print_called_computations_inline=True,
            operand_index_annotation_interval=0,
        )


# ---- ordering ---------------------------------------------------------------------------


def instruction_post_order(comp: HloComputation) -> list[HloInstruction]:
    """XLA's MakeInstructionPostOrder: a DFS from every instruction without users, in
    definition order; operands first (in order), control predecessors before them."""
    users: set[int] = set()
    for instr in comp.instructions:
        users.update(id(o) for o in instr.operands)
    order: list[HloInstruction] = []
    state: dict[int, int] = {}  # 1 = visiting, 2 = done
    for start in comp.instructions:
        if id(start) in users or id(start) in state:
            continue
        stack = [start]
        while stack:
            node = stack[-1]
            mark = state.get(id(node))
            if mark == 2:
                stack.pop()
                continue
            if mark == 1:
                state[id(node)] = 2
                order.append(node)
                stack.pop()
                continue
            state[id(node)] = 1
            for operand in reversed(node.operands):
                if state.get(id(operand)) is None:
                    stack.append(operand)
            for pred in node.control_predecessors:
                if state.get(id(pred)) is None:
                    stack.append(pred)
    return order


def _called(instr: HloInstruction) -> list[HloComputation]:
    comps = instr.called_computations()
    if instr.opcode is Opcode.WHILE:
        comps = [instr.attrs.body, instr.attrs.condition]  # XLA: body is called_computations[0]
    return comps


def scheduled_computations(module: HloModule) -> set[int]:
    """Computations whose instruction order is the schedule (a scheduled module's
    non-fusion computations); the others print in post order."""
    if not module.config.is_scheduled:
        return set()
    fused = {
        id(instr.attrs.calls)
        for comp in module.computations
        for instr in comp.instructions
        if instr.opcode is Opcode.FUSION
    }
    return {id(c) for c in module.computations if id(c) not in fused}


def computation_post_order(module: HloModule) -> list[HloComputation]:
    """XLA's MakeComputationPostOrder: callees before callers, roots in module order."""
    called: set[int] = set()
    for comp in module.computations:
        for instr in comp.instructions:
            called.update(id(c) for c in _called(instr))
    order: list[HloComputation] = []
    added: set[int] = set()

    scheduled = scheduled_computations(module)

    def embedded(comp: HloComputation) -> None:
        # A scheduled computation lists its callees in schedule (text) order.
        instrs = comp.instructions if id(comp) in scheduled else instruction_post_order(comp)
        for instr in instrs:
            for callee in _called(instr):
                if id(callee) not in added:
                    embedded(callee)
                    if id(callee) not in added:
                        added.add(id(callee))
                        order.append(callee)

    for comp in module.computations:
        if id(comp) in called:
            continue
        embedded(comp)
        added.add(id(comp))
        order.append(comp)
    return order


_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_ASYNC_OPS = frozenset({Opcode.ASYNC_START, Opcode.ASYNC_UPDATE, Opcode.ASYNC_DONE})
_OPCODE_NAMES = frozenset(op.value for op in Opcode)


def is_sugared_async(instr: HloInstruction) -> bool:
    """True when an async op's wrapped computation is parameters plus one root op whose
    operands are those parameters in order (XLA prints it as ``<op>-start``)."""
    if instr.opcode not in (Opcode.ASYNC_START, Opcode.ASYNC_UPDATE, Opcode.ASYNC_DONE):
        return False
    comp = instr.attrs.calls
    if comp is None:
        return False
    root = comp.root
    params = [i for i in comp.instructions if i.opcode is Opcode.PARAMETER]
    if root.opcode in (Opcode.PARAMETER, Opcode.CONSTANT, Opcode.ASYNC_START,
                       Opcode.ASYNC_UPDATE, Opcode.ASYNC_DONE):  # fmt: skip
        return False  # (a constant's literal is no attribute: 'constant-start' cannot hold it)
    if f"{root.opcode.value}-start" in _OPCODE_NAMES:
        return False  # 'all-reduce-start' names its own op: sugar would read back as that
    if len(comp.instructions) != len(params) + 1:
        return False
    return len(root.operands) == len(params) and all(
        o.opcode is Opcode.PARAMETER and o.parameter_number == i
        for i, o in enumerate(root.operands)
    )


# ---- printer ----------------------------------------------------------------------------


class _Printer:
    def __init__(self, options: PrintOptions, module: HloModule | None) -> None:
        self.o = options
        self.names: dict[int, str] = {}
        self.scheduled = scheduled_computations(module) if module is not None else set()

    # ---- names and shapes -------------------------------------------------------------
    def sigil(self, name: str) -> str:
        return ("%" if self.o.print_percent else "") + name

    def instr_name(self, instr: HloInstruction) -> str:
        return self.sigil(self.names.get(id(instr), instr.name))

    def comp_name(self, comp: HloComputation) -> str:
        return self.sigil(comp.name)

    def shape(self, shape: Shape) -> str:
        return shape.to_hlo(layout=self.o.include_layout_in_shapes)

    # ---- module ---------------------------------------------------------------------
    def module(self, module: HloModule) -> str:
        out = [self.header(module), "\n\n"]
        index = module.stack_frame_index
        if (
            index is not None
            and self.o.print_stack_frame_index
            and self.o.print_metadata
            and index.file_names
        ):
            out.append(format_stack_frame_index(index))
            out.append("\n")
        hidden = self.hidden_computations(module)
        for comp in computation_post_order(module):
            if id(comp) in hidden:
                continue
            out.append(self.computation(comp, entry=comp is module.entry))
            out.append("\n\n")
        return "".join(out)

    def hidden_computations(self, module: HloModule) -> set[int]:
        """Wrapped computations of sugared async ops are not printed on their own (unless
        something else calls them too)."""
        if not self.o.syntax_sugar_async_ops:
            return set()
        sugared: set[int] = set()
        other: set[int] = set()
        for comp in module.computations:
            for instr in comp.instructions:
                for callee in _called(instr):
                    is_async = instr.opcode in _ASYNC_OPS and is_sugared_async(instr)
                    (sugared if is_async else other).add(id(callee))
        return sugared - other

    def header(self, module: HloModule) -> str:
        config = module.config
        name = module.name
        if not _MODULE_NAME.fullmatch(name):
            name = T.format_string(name)  # the parser reads a quoted name back
        parts = [f"HloModule {name}"]
        if config.is_scheduled:
            parts.append("is_scheduled=true")
        if config.input_output_alias is not None and str(config.input_output_alias) != "{}":
            parts.append(f"input_output_alias={config.input_output_alias}")
        if config.buffer_donor is not None and str(config.buffer_donor) != "{}":
            parts.append(f"buffer_donor={config.buffer_donor}")
        if config.alias_passthrough_params:
            parts.append("alias_passthrough_params=true")
        parts.append(f"entry_computation_layout={{{entry_layout_text(module)}}}")
        for key in (
            "allow_spmd_sharding_propagation_to_parameters",
            "allow_spmd_sharding_propagation_to_output",
        ):
            values = getattr(config, key)
            if values and any(values):
                parts.append(f"{key}={{{','.join(T.format_bool(v) for v in values)}}}")
        if config.replica_count != 1:
            parts.append(f"replica_count={config.replica_count}")
        if config.num_partitions != 1:
            parts.append(f"num_partitions={config.num_partitions}")
        if config.frontend_attributes:
            parts.append(
                f"frontend_attributes={T.format_frontend_attributes(config.frontend_attributes)}"
            )
        if config.origin_recovery_table is not None:
            parts.append(f"origin_recovery_table={config.origin_recovery_table}")
        return ", ".join(parts)

    # ---- computations -------------------------------------------------------------------
    def computation(self, comp: HloComputation, *, entry: bool = False) -> str:
        head = ("ENTRY " if entry else "") + self.comp_name(comp)
        if self.o.print_program_shape:
            params = ", ".join(f"{p.name}: {p.shape.to_hlo(layout=False)}" for p in comp.parameters)
            head += f" ({params}) -> {comp.root.shape.to_hlo(layout=False)}"
        text = head + " " + self.body(comp, self.o.indent_amount, top_level=True)
        if comp.execution_thread != "main":
            text += f", execution_thread={T.format_string(comp.execution_thread)}"
        return text

    def body(self, comp: HloComputation, indent: int, *, top_level: bool = False) -> str:
        scheduled = top_level and id(comp) in self.scheduled
        order = comp.instructions if scheduled else instruction_post_order(comp)
        saved = self.names
        if self.o.canonicalize_instruction_names:
            self.names = {**saved, **{id(instr): f"tmp_{i}" for i, instr in enumerate(order)}}
        pad = " " * (indent + 2)
        lines = ["{"]
        root = comp.root
        for instr in order:
            lines.append(pad + self.instruction(instr, is_root=instr is root, indent=indent + 2))
        lines.append(" " * indent + "}")
        self.names = saved
        return "\n".join(lines)

    # ---- instructions -------------------------------------------------------------------
    def instruction(self, instr: HloInstruction, *, is_root: bool = False, indent: int = 0) -> str:
        _no_quantized(instr)
        text = ("ROOT " if is_root else "") + self.instr_name(instr) + " = "
        text += self.shape(instr.shape) + " "
        opcode, attrs = self.opcode_text(instr, indent)
        text += opcode + "(" + self.operands(instr) + ")"
        for name, value in attrs + self.generic_attributes(instr, indent):
            text += f", {name}={value}"
        return text

    def operands(self, instr: HloInstruction) -> str:
        if instr.opcode is Opcode.PARAMETER:
            return str(instr.attrs.parameter_number)
        if instr.opcode is Opcode.CONSTANT:
            literal: Literal = instr.attrs.literal
            return format_literal(literal, elide=not self.o.print_large_constants)
        parts = []
        for i, operand in enumerate(instr.operands):
            shape = self.shape(operand.shape) + " " if self.o.print_operand_shape else ""
            every = self.o.operand_index_annotation_interval
            index = f"/*index={i}*/" if every and i and i % every == 0 else ""
            parts.append(index + shape + self.instr_name(operand))
        return ", ".join(parts)

    def opcode_text(self, instr: HloInstruction, indent: int) -> tuple[str, list[tuple[str, str]]]:
        """The opcode spelling and its specific attributes (async sugar applied)."""
        if self.o.syntax_sugar_async_ops and is_sugared_async(instr):
            wrapped = instr.attrs.calls.root
            suffix = {
                Opcode.ASYNC_START: "-start",
                Opcode.ASYNC_UPDATE: "-update",
                Opcode.ASYNC_DONE: "-done",
            }[instr.opcode]
            attrs: list[tuple[str, str]] = []
            if instr.opcode is Opcode.ASYNC_START:
                thread = instr.attrs.async_execution_thread
                if thread != "main":
                    attrs.append(("async_execution_thread", T.format_string(thread)))
                if self.o.print_called_computations_inline:
                    attrs.append(("calls", self.inline(instr.attrs.calls, indent)))
                attrs += self.schema_attributes(wrapped, indent)
            return wrapped.opcode.value + suffix, attrs
        return instr.opcode.value, self.schema_attributes(instr, indent)

    def schema_attributes(self, instr: HloInstruction, indent: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for spec in instr.opdef.attrs:
            if instr.opcode is Opcode.CONSTANT or spec.name == "parameter_number":
                continue
            value = instr.attrs[spec.name]
            if not _should_print(spec, value):
                continue
            key = spec.name
            if self.o.print_called_computations_inline and instr.opcode in _CALLS_INLINE:
                key = "calls" if key == "to_apply" else key
            out.append((key, self.attr_value(spec, value, indent)))
        out += [(name, str(raw)) for name, raw in instr.unknown_attributes]
        return out

    def attr_value(self, spec: AttrSpec, value: Any, indent: int) -> str:
        if self.o.print_called_computations_inline:
            if spec.kind is AttrKind.COMPUTATION:
                return self.inline(value, indent)
            if spec.kind is AttrKind.COMPUTATIONS:
                return "{" + ",".join(self.inline(c, indent) for c in value) + "\n}"
        return T.format_attr(spec, value, self.comp_name)

    def inline(self, comp: HloComputation, indent: int) -> str:
        text = "\n" + " " * indent + self.body(comp, indent)
        if comp.execution_thread != "main":
            text += f", execution_thread={T.format_string(comp.execution_thread)}"
        return text

    def generic_attributes(self, instr: HloInstruction, indent: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if instr.sharding is not None:
            out.append(("sharding", instr.sharding.to_string(self.o.print_metadata)))
        if instr.frontend_attributes:
            out.append(
                ("frontend_attributes", T.format_frontend_attributes(instr.frontend_attributes))
            )
        if instr.control_predecessors and self.o.print_control_dependencies:
            names = ", ".join(self.instr_name(p) for p in instr.control_predecessors)
            out.append(("control-predecessors", "{" + names + "}"))
        if instr.statistics is not None:
            out.append(("statistics", str(instr.statistics)))
        if instr.origin is not None:
            out.append(("origin", str(instr.origin)))
        if self.o.print_metadata and instr.metadata is not None and not instr.metadata.is_empty:
            out.append(("metadata", T.format_metadata(instr.metadata)))
        if self.o.print_backend_config and instr.backend_config:
            out.append(("backend_config", T.format_string_or_blob(instr.backend_config)))
        return out


# Ops whose to_apply XLA prints as "calls=" when bodies are printed inline (canonical).
_CALLS_INLINE = frozenset({Opcode.REDUCE_SCATTER, Opcode.SCAN})


def _no_quantized(instr: HloInstruction) -> None:
    """HLO text has no quantized element types (XLA's HLO has none): raise naming the op."""
    for shape in (instr.shape, *(o.shape for o in instr.operands)):
        for leaf in shape.leaves():
            if leaf.element_type.is_quantized:
                raise Unimplemented(
                    f"{instr.opcode.value} %{instr.name}: HLO text has no quantized element types "
                    f"(XLA's HLO has none); got {leaf.to_mlir()}. Print the module as StableHLO "
                    "(xlapy.text.stablehlo_printer.print_stablehlo) instead"
                )


def _should_print(spec: AttrSpec, value: Any) -> bool:
    """XLA omits default-valued attributes, except those its printer always writes."""
    if spec.print_policy is PrintPolicy.NEVER:
        return False
    if spec.print_policy is PrintPolicy.ALWAYS or spec.required:
        return value is not None
    if value is None or value == spec.default:
        return False
    if spec.kind is AttrKind.ENUM and spec.default is None and spec.enum is not None:
        return bool(value is not next(iter(spec.enum)))  # DEFAULT/UNSET/INVALID
    if spec.kind is AttrKind.ENUMS and spec.enum is not None:
        return any(v is not next(iter(spec.enum)) for v in value)  # {default,default}
    if spec.kind is AttrKind.RESULT_ACCURACY:
        return bool(value != A.ResultAccuracy())
    return True


def entry_layout_text(module: HloModule) -> str:
    """``(param shapes)->result`` of the entry computation, with layouts."""
    layout = module.config.entry_computation_layout
    if layout is not None:
        params, result = layout
    else:
        entry = module.entry
        params = tuple(p.shape for p in entry.parameters)
        result = entry.root.shape
    return Shape.tuple_of(params).to_hlo() + "->" + result.to_hlo()


def format_stack_frame_index(index: StackFrameIndex) -> str:
    """The FileNames / FunctionNames / FileLocations / StackFrames sections."""
    lines = ["FileNames"]
    lines += [f"{i} {T.format_string(n)}" for i, n in enumerate(index.file_names, 1)]
    lines += ["", "FunctionNames"]
    lines += [f"{i} {T.format_string(n)}" for i, n in enumerate(index.function_names, 1)]
    lines += ["", "FileLocations"]
    lines += [
        f"{i} {{file_name_id={f.file_name_id} function_name_id={f.function_name_id} "
        f"line={f.line} end_line={f.end_line} column={f.column} end_column={f.end_column}}}"
        for i, f in enumerate(index.file_locations, 1)
    ]
    lines += ["", "StackFrames"]
    lines += [
        f"{i} {{file_location_id={f.file_location_id} parent_frame_id={f.parent_frame_id}}}"
        for i, f in enumerate(index.stack_frames, 1)
    ]
    return "\n".join(lines) + "\n\n"


def print_hlo(module: HloModule, *, options: PrintOptions | None = None) -> str:
    """The module's HLO text (XLA's ``HloModule::ToString(options)``)."""
    return _Printer(options or PrintOptions(), module).module(module)


def print_computation(comp: HloComputation, *, options: PrintOptions | None = None) -> str:
    """One computation's text (with ``ENTRY`` if it is its module's entry)."""
    entry = comp.parent is not None and comp.parent.entry is comp
    return _Printer(options or PrintOptions(), comp.parent).computation(comp, entry=entry)


def print_instruction(instr: HloInstruction, *, options: PrintOptions | None = None) -> str:
    """One instruction's text, e.g. ``%add.1 = f32[2]{0} add(%x, %y)``."""
    comp = instr.parent
    is_root = comp is not None and comp.instructions and comp.root is instr
    module = comp.parent if comp is not None else None
    return _Printer(options or PrintOptions(), module).instruction(instr, is_root=bool(is_root))
