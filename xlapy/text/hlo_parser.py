"""The HLO text parser (HLO_TEXT.md §2-§7): text -> ``HloModule``.

Attributes are parsed through each opcode's schema (``xlapy.ir.opdefs``) and the per-kind
parsers of ``hlo_attr_text``; unknown attributes are kept verbatim. Errors are ``ParseError``
with ``file:line:col``, the source line and a caret.
"""

from __future__ import annotations

import re
from typing import Any

from xlapy import dtypes
from xlapy.errors import InvalidArgument, ShapeCheckError
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import (
    MAX_DEVICE_COUNT,
    FileLocation,
    HloModule,
    ModuleConfig,
    StackFrame,
    StackFrameIndex,
)
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY, AttrKind, AttrSpec, OpDef
from xlapy.shape import UNBOUNDED, Layout, Shape, SplitConfig, Tile
from xlapy.shape_inference.check import check_instruction
from xlapy.text import hlo_attr_text as T
from xlapy.text.hlo_lexer import KEYWORDS, TYPE_NAMES, Tok, Token
from xlapy.text.limits import HLO_BRACKETS, array_size_problem, check_nesting
from xlapy.text.literal_text import parse_literal_at

_OPCODES = {op.value: op for op in Opcode}
_GENERIC = frozenset(
    {
        "sharding",
        "frontend_attributes",
        "metadata",
        "backend_config",
        "control-predecessors",
        "statistics",
        "origin",
    }
)
# Ops whose to_apply XLA's canonical printing spells calls=.
_CALLS_SPELLING = frozenset({Opcode.REDUCE_SCATTER, Opcode.SCAN})
_ASYNC_SUFFIXES = {"-start": Opcode.ASYNC_START, "-update": Opcode.ASYNC_UPDATE,
                   "-done": Opcode.ASYNC_DONE}  # fmt: skip


def parse_hlo(text: str, filename: str = "<string>", *, check_shapes: bool = False) -> HloModule:
    """Parses HLO module text (``HloModule ... ENTRY ...``) into an HloModule.

    Args:
        text: the module text.
        filename: the name errors give the text.
        check_shapes: also type-check every instruction as it is parsed (its op's shape rules
            and its declared result, ``shape_inference.check``), as ``xlapy.load`` does. Off,
            the module is what XLA calls unverified: syntax only.

    Raises:
        ParseError: with ``file:line:col``, the source line and a caret.
    """
    return HloParser(text, filename, check_shapes=check_shapes).parse_module()


def parse_shape(text: str) -> Shape:
    """Parses a shape: ``f32[2,3]{1,0}``, ``(s32[], f32[<=4])``, ``token[]``."""
    parser = HloParser(text)
    shape = parser.parse_shape()
    if parser.peek().kind is not Tok.EOF:
        raise parser.expected("end of the shape")
    return shape


_SIMPLE_SHAPE = re.compile(r"[a-z][a-z0-9]*\[[0-9,]*\](\{[0-9,]*\})?")
"""A shape with static sizes and a plain layout (or none): most shapes of a module."""
_SHAPES: dict[str, Shape] = {}
"""Shapes the token parser built, by their exact text (a ``_SIMPLE_SHAPE`` match)."""
_MAX_SHAPES = 1 << 14


class _Scope:
    """Instructions of the computation being parsed, by the name written in the text."""

    def __init__(self, comp: HloComputation) -> None:
        self.comp = comp
        self.names: dict[str, HloInstruction] = {}
        self.root: HloInstruction | None = None


class HloParser(T.AttrParser):
    """Recursive-descent parser over a ``Cursor``; ``parse_module`` is the entry point."""

    def __init__(self, text: str, filename: str = "<string>", *, check_shapes: bool = False
                 ) -> None:  # fmt: skip
        check_nesting(text, filename, HLO_BRACKETS)
        super().__init__(text, filename)
        self.check_shapes = check_shapes
        self.module = HloModule("")
        self.computations: dict[str, HloComputation] = {}
        self.scopes: list[_Scope] = []
        self._anon = 0

    # ---- module -------------------------------------------------------------------------
    def parse_module(self) -> HloModule:
        module = self.module
        if self.accept_ident("HloModule"):
            tok = self.next()
            if tok.kind not in (Tok.IDENT, Tok.NAME, Tok.STRING):
                raise self.expected("the module name", tok)
            module.name = str(tok.value)
            while self.accept_punct(","):
                self._parse_module_attr(module.config)
        if self.peek().is_ident("FileNames"):
            module.stack_frame_index = self._parse_stack_frame_index()
        entry: HloComputation | None = None
        while self.peek().kind is not Tok.EOF:
            comp, is_entry = self._parse_computation()
            if is_entry:
                if entry is not None:
                    raise self.error(self.pos, "more than one ENTRY computation")
                entry = comp
        if not module.computations:
            raise self.expected("a computation")
        module.entry = entry or module.computations[-1]
        if module.config.entry_computation_layout is None:
            # As XLA: the layout defaults to the entry's parameter and root shapes.
            params = tuple(p.shape for p in module.entry.parameters)
            module.config.entry_computation_layout = (params, module.entry.root.shape)
        if not module.name:
            module.name = "module_" + module.entry.name if module.entry.name else "module"
        return module

    def _parse_module_attr(self, config: ModuleConfig) -> None:
        tok = self.expect(Tok.ATTR, "a module attribute like entry_computation_layout=")
        name = str(tok.value)
        if name == "is_scheduled":
            config.is_scheduled = T.parse_bool(self, name)
        elif name == "alias_passthrough_params":
            config.alias_passthrough_params = T.parse_bool(self, name)
        elif name in ("replica_count", "num_partitions"):
            value = self.peek()
            count = self.expect_int(f"an integer for {name}")
            if not 1 <= count <= MAX_DEVICE_COUNT:
                raise self.error(
                    value.start, f"{name} must be in [1, {MAX_DEVICE_COUNT}]; got {count}"
                )
            setattr(config, name, count)
        elif name == "entry_computation_layout":
            self.expect_punct("{")
            params = self.parse_shape()
            if not params.is_tuple:
                raise self.error(tok.start, "entry_computation_layout needs (params)->result")
            self.expect(Tok.ARROW, "'->'")
            result = self.parse_shape()
            self.expect_punct("}")
            config.entry_computation_layout = (params.tuple_shapes, result)
        elif name == "input_output_alias":
            config.input_output_alias = T.parse_input_output_alias(self)
        elif name == "buffer_donor":
            config.buffer_donor = T.parse_buffer_donor(self)
        elif name in (
            "allow_spmd_sharding_propagation_to_parameters",
            "allow_spmd_sharding_propagation_to_output",
        ):
            if self.at_punct("{"):
                values = T._parse_list(self, lambda: T.parse_bool(self, name), name)
            else:
                values = (T.parse_bool(self, name),)
            setattr(config, name, values)
        elif name == "frontend_attributes":
            config.frontend_attributes = T.parse_frontend_attributes(self)
        elif name == "origin_recovery_table":
            config.origin_recovery_table = A.RawAttribute(self.raw_braced())
        else:
            raise self.error(tok.start, f"unknown module attribute {name!r}")

    def _parse_stack_frame_index(self) -> StackFrameIndex:
        index = StackFrameIndex()
        sections = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
        for section in sections:
            if not self.accept_ident(section):
                raise self.expected(f"the {section} section")
            while self.peek().kind is Tok.INT:
                self.next()
                if section == "FileNames":
                    index.file_names.append(str(self.expect(Tok.STRING, "a file name").value))
                elif section == "FunctionNames":
                    name = self.expect(Tok.STRING, "a function name")
                    index.function_names.append(str(name.value))
                else:
                    fields = self._parse_index_fields(section)
                    if section == "FileLocations":
                        index.file_locations.append(FileLocation(**fields))
                    else:
                        index.stack_frames.append(StackFrame(**fields))
        return index

    def _parse_index_fields(self, section: str) -> dict[str, int]:
        required = (
            ("file_name_id", "function_name_id", "line", "end_line", "column", "end_column")
            if section == "FileLocations"
            else ("file_location_id", "parent_frame_id")
        )
        start = self.expect_punct("{").start
        fields: dict[str, int] = {}
        while not self.accept_punct("}"):
            self.accept_punct(",")
            tok = self.expect(Tok.ATTR, f"a {section} field")
            if tok.value not in required:
                raise self.error(tok.start, f"unknown {section} field {tok.value!r}")
            fields[str(tok.value)] = self.expect_int()
        missing = [f for f in required if f not in fields]
        if missing:
            raise self.error(start, f"{section} entry is missing {', '.join(missing)}")
        return fields

    # ---- computations -------------------------------------------------------------------
    def _parse_computation(self) -> tuple[HloComputation, bool]:
        is_entry = self.accept_ident("ENTRY")
        tok = self.peek()
        name = ""
        if tok.kind in (Tok.NAME, Tok.IDENT) and not tok.is_punct("{"):
            self.next()
            name = str(tok.value)
        elif not tok.is_punct("{") and not tok.is_punct("("):
            raise self.expected("a computation name", tok)
        if name in self.computations:
            raise self.error(tok.start, f"computation {name!r} is already defined")
        result_shape = None
        result_tok = tok
        if self.at_punct("("):
            self._parse_param_list()
            self.expect(Tok.ARROW, "'->' after the parameter list")
            result_tok = self.peek()
            result_shape = self.parse_shape()
        comp = self._parse_body(name or ("main" if is_entry else "computation"))
        if result_shape is not None and not result_shape.compatible(comp.root.shape):
            raise self.error(
                result_tok.start,
                f"computation {name} declares result {result_shape.to_hlo(layout=False)} but "
                f"its root {comp.root.name} has shape {comp.root.shape.to_hlo(layout=False)}",
            )
        if self.at_punct(",") and self.peek2().kind is Tok.ATTR:
            self.next()
            attr = self.next()
            if attr.value != "execution_thread":
                raise self.error(attr.start, f"unknown computation attribute {attr.value!r}")
            comp.execution_thread = str(self.expect(Tok.STRING, "a thread name").value)
        self.computations[name] = comp
        self.module.add_computation(comp)
        return comp, is_entry

    def _parse_param_list(self) -> None:
        self.expect_punct("(")
        first = True
        while not self.accept_punct(")"):
            if not first:
                self.expect_punct(",", "or ')' in the parameter list")
            first = False
            tok = self.expect(Tok.NAME, "a parameter 'name: shape'")
            if self.text[tok.end - 1] != ":":
                self.expect_punct(":")
            self.parse_shape()

    def _parse_body(self, name: str) -> HloComputation:
        comp = HloComputation(name)
        scope = _Scope(comp)
        self.scopes.append(scope)
        open_tok = self.expect_punct("{", "to start the computation body")
        while not self.accept_punct("}"):
            if self.peek().kind is Tok.EOF:
                raise self.error(open_tok.start, "computation body is not closed with '}'")
            self._parse_instruction(scope)
        self.scopes.pop()
        if not comp.instructions:
            raise self.error(open_tok.start, f"computation {name} has no instructions")
        if scope.root is not None:
            comp.root = scope.root
        return comp

    def parse_computation_ref(self) -> HloComputation:
        tok = self.peek()
        if tok.is_punct("{"):
            comp = self._parse_body("_")
            self.module.add_computation(comp)
            return comp
        if tok.kind not in (Tok.NAME, Tok.IDENT):
            raise self.expected("a computation name", tok)
        self.next()
        found = self.computations.get(str(tok.value))
        if found is None:
            raise self.error(tok.start, f"computation {tok.value!r} is not defined (before use)")
        return found

    # ---- shapes -------------------------------------------------------------------------
    def parse_shape(self) -> Shape:
        """A shape; one spelled ``f32[2,3]{1,0}`` (sizes, a plain layout or none) is read
        with one regex and looked up among those the token parser built before."""
        start = self.lexer.skip_space(self.pos)
        simple = _SIMPLE_SHAPE.match(self.text, start)
        if simple is not None:
            shape = _SHAPES.get(simple.group())
            if shape is not None and (
                simple.group(1) is not None
                or not self.text.startswith("{", self.lexer.skip_space(simple.end()))
            ):
                self.pos = simple.end()
                return shape
        shape = self._parse_shape()
        if simple is not None and self.pos == simple.end():  # the same text, nothing more
            if len(_SHAPES) >= _MAX_SHAPES:
                _SHAPES.clear()
            _SHAPES[simple.group()] = shape
        return shape

    def _parse_shape(self) -> Shape:
        tok = self.peek()
        if tok.is_punct("("):
            self.next()
            shapes: list[Shape] = []
            while not self.accept_punct(")"):
                if shapes:
                    self.expect_punct(",", "or ')' in the tuple shape")
                shapes.append(self.parse_shape())
            return Shape.tuple_of(shapes)
        if tok.kind is not Tok.IDENT or tok.value not in TYPE_NAMES:
            raise self.expected("a shape", tok)
        self.next()
        etype = dtypes.BY_NAME[str(tok.value)]
        self.expect_punct("[", "after the element type")
        dims: list[int] = []
        dynamic: list[bool] = []
        while not self.accept_punct("]"):
            if dims:
                self.expect_punct(",", "or ']' in the dimensions")
            if self.accept_punct("?"):
                dims.append(UNBOUNDED)
                dynamic.append(True)
            elif self.peek().kind is Tok.LEQ:
                self.next()
                dims.append(self.expect_int("a dimension bound"))
                dynamic.append(True)
            else:
                d = self.expect_int("a dimension size")
                if d < 0:
                    raise self.error(self.pos, f"dimension size must be >= 0; got {d}")
                dims.append(d)
                dynamic.append(False)
        if not etype.is_array:
            if dims:
                raise self.error(tok.start, f"{etype.name} shapes have no dimensions")
            return Shape(etype)
        problem = array_size_problem(etype, dims)
        if problem is not None:
            raise self.error(tok.start, problem)
        layout = None
        if self.at_punct("{") and (self.peek2().kind is Tok.INT or self.peek2().is_punct(":")):
            layout = self._parse_layout(len(dims))
        return Shape(etype, tuple(dims), tuple(dynamic), layout)

    def _parse_layout(self, rank: int) -> Layout:
        start = self.expect_punct("{").start
        minor_to_major: list[int] = []
        while self.peek().kind is Tok.INT:
            minor_to_major.append(self.expect_int())
            if not self.accept_punct(","):
                break
        if sorted(minor_to_major) != list(range(rank)):
            raise self.error(
                start,
                f"layout {{{','.join(map(str, minor_to_major))}}} is not a permutation of the "
                f"{rank} dimensions",
            )
        fields: dict[str, Any] = {}
        if self.accept_punct(":"):
            fields = self._parse_layout_suffix()
        self.expect_punct("}", "to close the layout")
        return Layout(tuple(minor_to_major), **fields)

    def _parenthesized_int(self) -> int:
        self.expect_punct("(")
        value = self.expect_int()
        self.expect_punct(")")
        return value

    def _parse_layout_suffix(self) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        while not self.at_punct("}"):
            tok = self.next()
            key = tok.value if tok.kind in (Tok.IDENT, Tok.PUNCT) else None
            if key == "D":
                self.expect_punct("(")
                levels: list[str] = []
                while not self.accept_punct(")"):
                    if levels:
                        self.expect_punct(",")
                    level = str(self.expect(Tok.IDENT, "a dim level type").value)
                    while self.at_punct("+") or self.at_punct("~"):
                        level += str(self.next().value)
                    levels.append(level)
                fields["dim_level_types"] = tuple(levels)
            elif key == "T":
                tiles = []
                while self.at_punct("("):
                    self.next()
                    dims: list[int] = []
                    while not self.accept_punct(")"):
                        if dims:
                            self.expect_punct(",")
                        dims.append(Tile.COMBINE if self.accept_punct("*") else self.expect_int())
                    tiles.append(Tile(tuple(dims)))
                fields["tiles"] = tuple(tiles)
            elif key == "L":
                fields["tail_padding_alignment_in_elements"] = self._parenthesized_int()
            elif key in ("#", "*"):
                self.expect_punct("(")
                t = self.expect(Tok.IDENT, "an unsigned integer type")
                self.expect_punct(")")
                field = "index_primitive_type" if key == "#" else "pointer_primitive_type"
                fields[field] = dtypes.BY_NAME.get(str(t.value))
            elif key == "E":
                fields["element_size_in_bits"] = self._parenthesized_int()
            elif key == "S":
                fields["memory_space"] = self._parenthesized_int()
            elif key == "SC":
                configs = []
                while self.at_punct("("):
                    self.next()
                    dim = self.expect_int()
                    self.expect_punct(":")
                    indices = [self.expect_int()]
                    while self.accept_punct(","):
                        indices.append(self.expect_int())
                    self.expect_punct(")")
                    configs.append(SplitConfig(dim, tuple(indices)))
                fields["split_configs"] = tuple(configs)
            elif key == "P":
                self.expect_punct("(")
                fields["physical_shape"] = self.parse_shape()
                self.expect_punct(")")
            elif key == "M":
                fields["dynamic_shape_metadata_prefix_bytes"] = self._parenthesized_int()
            else:
                raise self.expected("a layout item (T, L, E, S, SC, D, P, M, #, *)", tok)
        return fields

    # ---- instructions -------------------------------------------------------------------
    def _parse_instruction(self, scope: _Scope) -> HloInstruction:
        is_root = self.accept_ident("ROOT")
        tok = self.next()
        if tok.kind is Tok.ATTR:
            name = str(tok.value)  # "x=f32[] ..." with no space before '='
        elif tok.kind in (Tok.NAME, Tok.IDENT):
            name = str(tok.value)
            if tok.kind is Tok.IDENT and (name in TYPE_NAMES or name in KEYWORDS):
                raise self.error(
                    tok.start, f"illegal instruction name: {name}; suggest renaming to: {name}_"
                )
            self.expect_punct("=", "after the instruction name")
        else:
            raise self.expected("an instruction name", tok)
        if name in scope.names:
            raise self.error(tok.start, f"instruction {name!r} is already defined")
        instr = self._parse_instruction_rhs(scope, name, tok)
        if self.at_punct(","):
            raise self.expected("an attribute like name=value after ','", self.peek2())
        scope.names[name] = instr
        if is_root:
            if scope.root is not None:
                raise self.error(tok.start, "a computation may have only one ROOT")
            scope.root = instr
        return instr

    def _parse_instruction_rhs(self, scope: _Scope, name: str, name_tok: Token) -> HloInstruction:
        shape = None
        if self._at_shape():
            shape = self.parse_shape()
        op_tok = self.expect(Tok.IDENT, "an opcode")
        text = str(op_tok.value)
        if shape is None:
            raise self.error(op_tok.start, f"expected the result shape of {name} before {text}")
        opcode = _OPCODES.get(text)
        if opcode is None:
            return self._parse_async_sugar(scope, name, shape, op_tok)
        return self._parse_op(scope, name, shape, opcode, op_tok)

    def _at_shape(self) -> bool:
        tok = self.peek()
        if tok.is_punct("("):
            return True
        return tok.kind is Tok.IDENT and tok.value in TYPE_NAMES and self.peek2().is_punct("[")

    def _parse_op(
        self, scope: _Scope, name: str, shape: Shape, opcode: Opcode, op_tok: Token
    ) -> HloInstruction:
        values: dict[str, Any] = {}
        operands: list[HloInstruction] = []
        if opcode is Opcode.PARAMETER:
            self.expect_punct("(", "after parameter")
            values["parameter_number"] = self.expect_int("the parameter number")
            self.expect_punct(")", "after the parameter number")
        elif opcode is Opcode.CONSTANT:
            self.expect_punct("(", "after constant")
            if self._at_shape() and not self.at_punct("("):
                written = self.parse_shape()
                if not written.compatible(shape):
                    raise self.expected(f"literal of shape {shape}", self.peek())
            literal, self.pos = parse_literal_at(self.text, self.pos, shape, self.lexer.filename)
            values["literal"] = literal
            self.expect_punct(")", "to close the constant")
        else:
            operands = self._parse_operands(scope)
        instr = self._finish(scope, name, shape, opcode, operands, values, op_tok)
        return instr

    def _parse_operands(self, scope: _Scope) -> list[HloInstruction]:
        self.expect_punct("(", "to start the operand list")
        operands: list[HloInstruction] = []
        while not self.accept_punct(")"):
            if operands:
                self.expect_punct(",", "or ')' in the operand list")
            written = None
            shape_tok = self.peek()
            if self._at_shape():
                written = self.parse_shape()
            tok = self.peek()
            if tok.kind is Tok.IDENT and self.peek2().is_punct("(") and tok.value in _OPCODES:
                # A nested anonymous instruction: add(f32[] negate(p), p).
                self.next()
                if written is None:
                    raise self.expected("the shape of the nested instruction", tok)
                self._anon += 1
                operand = self._parse_op(
                    scope, f"{tok.value}.anon", written, _OPCODES[str(tok.value)], tok
                )
                operands.append(operand)
                continue
            if tok.kind not in (Tok.NAME, Tok.IDENT):
                raise self.expected("an operand name", tok)
            self.next()
            defined = scope.names.get(str(tok.value))
            if defined is None:
                raise self.error(
                    tok.start, f"instruction {tok.value!r} is not defined (before this use)"
                )
            if written is not None and not written.compatible(defined.shape):
                raise self.error(
                    shape_tok.start,
                    f"operand {tok.value} is written with shape {written.to_hlo(layout=False)} "
                    f"but has shape {defined.shape.to_hlo(layout=False)}",
                )
            operands.append(defined)
        return operands

    def _parse_attributes(
        self, opdef: OpDef | None, shape: Shape, extra: dict[str, AttrSpec] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, A.RawAttribute]]]:
        """Parses ``, name=value`` pairs: (schema attrs, generic attrs, unknown attrs)."""
        values: dict[str, Any] = {}
        generic: dict[str, Any] = {}
        unknown: list[tuple[str, A.RawAttribute]] = []
        seen: set[str] = set()
        while self.at_punct(","):
            tok = self.peek2()
            if tok.kind is not Tok.ATTR:
                if tok.kind is Tok.IDENT and self.lexer.lex(tok.end).is_punct("="):
                    raise self.error(
                        tok.end, f"no space is allowed before '=' in an attribute: {tok.value}="
                    )
                break  # a ',' of an enclosing operand list
            self.next()
            tok = self.next()
            key = str(tok.value)
            if key == "calls" and opdef is not None and opdef.opcode in _CALLS_SPELLING:
                key = "to_apply"  # canonical printing spells it calls=
            if key in seen:
                raise self.error(tok.start, f"attribute {key!r} is given more than once")
            seen.add(key)
            spec = (extra or {}).get(key) or (opdef.attr(key) if opdef else None)
            if spec is not None:
                values[key] = T.parse_attr(self, spec)
            elif key in _GENERIC:
                generic[key] = self._parse_generic(key, shape)
            else:
                unknown.append((key, T.parse_raw(self)))
        return values, generic, unknown

    def _parse_generic(self, key: str, shape: Shape) -> Any:
        if key == "sharding":
            return T.parse_sharding(self, shape)
        if key == "frontend_attributes":
            return T.parse_frontend_attributes(self)
        if key == "metadata":
            return T.parse_metadata(self)
        if key == "backend_config":
            return T.parse_string_or_blob(self, "backend_config")
        if key == "control-predecessors":
            scope = self.scopes[-1]
            self.expect_punct("{")
            preds: list[HloInstruction] = []
            while not self.accept_punct("}"):
                if preds:
                    self.expect_punct(",")
                tok = self.next()
                pred = scope.names.get(str(tok.value))
                if tok.kind not in (Tok.NAME, Tok.IDENT) or pred is None:
                    raise self.error(
                        tok.start, f"control predecessor {tok.value!r} is not defined before use"
                    )
                preds.append(pred)
            return preds
        return A.RawAttribute(self.raw_braced(single_quotes=True))  # statistics, origin

    def _finish(
        self,
        scope: _Scope,
        name: str,
        shape: Shape,
        opcode: Opcode,
        operands: list[HloInstruction],
        values: dict[str, Any],
        op_tok: Token,
    ) -> HloInstruction:
        opdef = REGISTRY[opcode]
        extra = None
        if opcode is Opcode.CUSTOM_CALL:
            extra = {"to_apply": AttrSpec("to_apply", AttrKind.COMPUTATION)}
        parsed, generic, unknown = self._parse_attributes(opdef, shape, extra)
        if "to_apply" in parsed and opcode is Opcode.CUSTOM_CALL:
            if "called_computations" in parsed:
                raise self.error(op_tok.start, "custom-call takes to_apply or called_computations")
            parsed["called_computations"] = (parsed.pop("to_apply"),)
        values.update(parsed)
        _canonicalize(opcode, values, operands)
        if opcode in (Opcode.ASYNC_UPDATE, Opcode.ASYNC_DONE) and operands:
            # update/done belong to their start: same computation and thread.
            for key in ("calls", "async_execution_thread"):
                if key not in values and operands[0].attrs.is_set(key):
                    values[key] = operands[0].attrs[key]
        if opcode is Opcode.ASYNC_START and values.get("calls") is not None:
            # The wrapped computation runs on the async thread (XLA sets it on the callee).
            thread = values.get("async_execution_thread", "main")
            values["calls"].execution_thread = thread
        return self._make(scope, name, shape, opcode, operands, values, generic, unknown, op_tok)

    def _make(
        self,
        scope: _Scope,
        name: str,
        shape: Shape,
        opcode: Opcode,
        operands: list[HloInstruction],
        values: dict[str, Any],
        generic: dict[str, Any],
        unknown: list[tuple[str, A.RawAttribute]],
        op_tok: Token,
    ) -> HloInstruction:
        try:
            instr = HloInstruction(
                opcode,
                shape,
                operands,
                values,
                name=name,
                metadata=generic.get("metadata"),
                sharding=generic.get("sharding"),
                frontend_attributes=generic.get("frontend_attributes"),
                backend_config=generic.get("backend_config", ""),
                control_predecessors=generic.get("control-predecessors", ()),
                statistics=generic.get("statistics"),
                origin=generic.get("origin"),
                unknown_attributes=unknown,
            )
        except InvalidArgument as err:
            message = str(err).replace(f"{opcode.value}: ", f"{opcode.value} {name}: ", 1)
            raise self.error(op_tok.start, message) from None
        if self.check_shapes:
            try:
                check_instruction(instr)
            except InvalidArgument as err:
                lexer = self.lexer
                raise ShapeCheckError.at(
                    lexer.text, op_tok.start, str(err), lexer.filename
                ) from None
        scope.comp.add_instruction(instr)
        return instr

    # ---- async sugar (HLO_TEXT.md §7.7) ---------------------------------------------------
    def _parse_async_sugar(
        self, scope: _Scope, name: str, shape: Shape, op_tok: Token
    ) -> HloInstruction:
        text = str(op_tok.value)
        found = [
            (op, _OPCODES[text[: -len(sfx)]])
            for sfx, op in _ASYNC_SUFFIXES.items()
            if text.endswith(sfx) and text[: -len(sfx)] in _OPCODES
        ]
        if not found:
            raise self.error(op_tok.start, f"unknown opcode {text!r}")
        async_op, wrapped_op = found[0]
        operands = self._parse_operands(scope)
        if async_op is not Opcode.ASYNC_START:
            if len(operands) != 1 or operands[0].opcode not in (
                Opcode.ASYNC_START,
                Opcode.ASYNC_UPDATE,
            ):
                raise self.error(
                    op_tok.start, f"{text} needs one operand: the {wrapped_op.value}-start/-update"
                )
            called = operands[0].attrs.calls
            async_spec = REGISTRY[async_op]
            values, generic, unknown = self._parse_attributes(async_spec, shape)
            values.setdefault("calls", called)
            values.setdefault("async_execution_thread", operands[0].attrs.async_execution_thread)
            return self._make(
                scope, name, shape, async_op, operands, values, generic, unknown, op_tok
            )
        if not shape.is_tuple or len(shape.tuple_shapes) < 2:
            raise self.error(
                op_tok.start,
                f"{text}: the result must be a tuple ((operands), result, state...); got {shape}",
            )
        wrapped_def = REGISTRY[wrapped_op]
        async_extra = {
            "async_execution_thread": AttrSpec("async_execution_thread", AttrKind.STRING),
            "calls": AttrSpec("calls", AttrKind.COMPUTATION),
        }
        values, generic, unknown = self._parse_attributes(wrapped_def, shape, async_extra)
        thread = values.pop("async_execution_thread", "main")
        calls = values.pop("calls", None)
        if calls is None:
            calls = HloComputation(f"{name}.wrapped_computation", thread)
            wrapped_scope = _Scope(calls)
            params = [
                self._make(
                    wrapped_scope,
                    f"{name}.param_{i}",
                    op.shape,
                    Opcode.PARAMETER,
                    [],
                    {"parameter_number": i},
                    {},
                    [],
                    op_tok,
                )
                for i, op in enumerate(operands)
            ]
            root = self._make(
                wrapped_scope,
                f"{name}.wrapped",
                shape.tuple_shapes[1],
                wrapped_op,
                params,
                values,
                {},
                [],
                op_tok,
            )
            calls.root = root
            self.module.add_computation(calls)
        return self._make(
            scope,
            name,
            shape,
            Opcode.ASYNC_START,
            operands,
            {"calls": calls, "async_execution_thread": thread},
            generic,
            unknown,
            op_tok,
        )


def default_comparison_type(etype: dtypes.ElementType) -> A.ComparisonType:
    """The compare ``type=`` implied by the operand type (XLA DefaultComparisonType)."""
    if etype.is_float or etype.is_complex:
        return A.ComparisonType.FLOAT
    if etype.is_signed:
        return A.ComparisonType.SIGNED
    return A.ComparisonType.UNSIGNED


def _canonicalize(opcode: Opcode, values: dict[str, Any], operands: list[HloInstruction]) -> None:
    """Stores the attributes whose default depends on the operands the way XLA's parser does,
    so that printing and re-parsing gives the same module."""
    if opcode is Opcode.COMPARE and operands and values.get("type") is not None:
        if values["type"] is default_comparison_type(operands[0].shape.element_type):
            del values["type"]
    elif opcode is Opcode.MAP and "dimensions" not in values and operands:
        values["dimensions"] = tuple(range(operands[0].shape.rank))
    elif opcode is Opcode.RESHAPE and values.get("inferred_dimension") == -1:
        del values["inferred_dimension"]  # -1 means "none"
    elif opcode is Opcode.OUTFEED and "outfeed_shape" not in values and operands:
        values["outfeed_shape"] = operands[0].shape
