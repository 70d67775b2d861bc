"""MLIR text -> ``MlirModule`` syntax trees: modules, ``func.func``, regions and blocks, generic
ops, types and attributes (STABLEHLO_SYNTAX.md §1-§5). Pretty op forms are parsed by
``xlapy.text.stablehlo_pretty``, which builds the same ``Op`` the generic form gives.
"""

from __future__ import annotations

import re
from typing import Any

from xlapy import dtypes
from xlapy.errors import InvalidArgument, ParseError
from xlapy.ir.attrs import ConvolutionDimensionNumbers
from xlapy.literal import Literal
from xlapy.shape import UNBOUNDED, Shape
from xlapy.text.limits import MLIR_BRACKETS, array_size_problem, check_nesting
from xlapy.text.mlir_ast import (
    Block,
    DialectAttr,
    EnumAttr,
    FuncOp,
    MlirModule,
    MlirType,
    Op,
    Region,
    SymbolRef,
)
from xlapy.text.mlir_lexer import Lexer, Tok, Token, int_value, unescape_string

_SIMPLE_TENSOR = re.compile(r"tensor<((?:(?:\d+|\?)x)*)([a-z][A-Za-z0-9]*|complex<f(?:32|64)>)>")
_TYPE_CACHE: dict[str, Shape] = {}
_DIMS = re.compile(r"\s*((?:(?:\d+|\?)\s*x\s*)*)")
_DIALECT_ENUM = re.compile(r"#(stablehlo|chlo|mhlo)$")


def simple_tensor_type(m: re.Match[str]) -> Shape | None:
    """The shape of a ``_SIMPLE_TENSOR`` match (``tensor<2x?xf32>``), one object per spelling;
    None when the element type is unknown or the array too large (``parse_tensor_type`` then
    reports it)."""
    text = m.group()
    shape = _TYPE_CACHE.get(text)
    if shape is None and m.group(2) in dtypes.BY_MLIR:
        dims = [UNBOUNDED if d == "?" else int(d) for d in m.group(1).split("x")[:-1]]
        if array_size_problem(dtypes.BY_MLIR[m.group(2)], dims):
            return None
        shape = Shape.array(dtypes.BY_MLIR[m.group(2)], dims)
        _TYPE_CACHE[text] = shape
    return shape


def tensor_type(text: str) -> Shape | None:
    """``simple_tensor_type`` of a type's whole text, or None when it is not a simple one."""
    shape = _TYPE_CACHE.get(text)
    if shape is None:
        m = _SIMPLE_TENSOR.fullmatch(text)
        shape = None if m is None else simple_tensor_type(m)
    return shape


class MlirParser:
    """Recursive-descent parser over one chunk ``text[start:end]`` of a file."""

    def __init__(self, text: str, filename: str = "<string>", start: int = 0, end: int = -1):
        self.lex = Lexer(text, filename, start, end)
        check_nesting(text, filename, MLIR_BRACKETS, start=start, end=self.lex.end)
        self.text = text
        self.tok: Token = self.lex.token_at(start)
        self.prev_end = start
        self.aliases: dict[str, Any] = {}

    # ---- token helpers ----------------------------------------------------------------
    def error(self, message: str, offset: int | None = None) -> ParseError:
        return self.lex.error(self.tok.start if offset is None else offset, message)

    def advance(self) -> Token:
        tok = self.tok
        self.prev_end = tok.end
        self.tok = self.lex.token_at(tok.end)
        return tok

    def reset(self, pos: int) -> None:
        """Continues lexing at raw position ``pos``."""
        self.prev_end = pos
        self.tok = self.lex.token_at(pos)

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in (Tok.PUNCT, Tok.ID)

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.advance()
            return True
        return False

    def expect(self, text: str, what: str = "") -> Token:
        if not self.at(text):
            got = self.tok.text or "end of input"
            raise self.error(f"expected '{text}'{' ' + what if what else ''}; got '{got}'")
        return self.advance()

    def expect_kind(self, kind: Tok, what: str = "") -> Token:
        if self.tok.kind is not kind:
            got = self.tok.text or "end of input"
            raise self.error(f"expected {what or kind.value}; got '{got}'")
        return self.advance()

    def expect_int(self, what: str = "an integer") -> int:
        return int_value(self.expect_kind(Tok.INT, what).text)

    # ---- chunk / module / func ----------------------------------------------------------
    def parse_chunk(self) -> MlirModule:
        """A whole chunk: one ``module {...}`` or bare top-level items."""
        offset = self.tok.start
        module: MlirModule | None = None
        bare = MlirModule("", {}, {}, offset)
        while self.tok.kind is not Tok.EOF:
            if self.at("module") or (
                self.tok.kind is Tok.STRING and self.tok.text == '"builtin.module"'
            ):
                if module is not None or bare.functions:
                    raise self.error("one module per chunk; separate modules with '// -----'")
                module = self.parse_module()
            else:
                self.parse_top_level_item(bare)
        if module is None:
            return bare
        return module

    def parse_module(self) -> MlirModule:
        offset = self.tok.start
        if self.tok.kind is Tok.STRING:
            return self.parse_generic_module()
        self.expect("module")
        name = ""
        if self.tok.kind is Tok.SYMBOL:
            name = symbol_name(self.advance().text)
        attrs: dict[str, Any] = {}
        if self.accept("attributes"):
            attrs = self.parse_attr_dict()[0]
        module = MlirModule(name, {}, attrs, offset)
        self.expect("{", "to open the module body")
        while not self.accept("}"):
            if self.tok.kind is Tok.EOF:
                raise self.error("missing '}' at the end of the module", offset)
            self.parse_top_level_item(module)
        return module

    def parse_generic_module(self) -> MlirModule:
        """``"builtin.module"() <{sym_name = "m"}> ({ "func.func"() ... }) {attrs} : () -> ()``."""
        op = self.parse_op()
        name = op.attrs.get("sym_name", "")
        attrs = {k: v for k, v in op.attrs.items() if k not in ("sym_name", "sym_visibility")}
        module = MlirModule(str(name), {}, attrs, op.offset)
        if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
            raise self.error('"builtin.module" needs a body of one block', op.offset)
        for item in op.regions[0].blocks[0].ops:
            if item.name == "func.func":
                self.add_function(module, self.generic_func(item))
            elif item.name == "sdy.mesh":
                mesh = item.attrs.get("mesh")
                if isinstance(item.attrs.get("sym_name"), str) and isinstance(mesh, DialectAttr):
                    module.meshes[item.attrs["sym_name"]] = mesh.opaque
            else:
                raise self.error(f"expected a function in the module; got {item.name}", item.offset)
        return module

    def parse_top_level_item(self, module: MlirModule) -> None:
        tok = self.tok
        if tok.kind is Tok.HASH or tok.kind is Tok.BANG:
            self.parse_alias_definition()
        elif self.at("func.func"):
            func = self.parse_func()
            self.add_function(module, func)
        elif tok.kind is Tok.STRING and tok.text == '"func.func"':
            func = self.parse_generic_func()
            self.add_function(module, func)
        elif self.at("sdy.mesh"):
            self.advance()
            name = symbol_name(self.expect_kind(Tok.SYMBOL, "a mesh name").text)
            self.expect("=")
            module.meshes[name] = self.balanced_angle_text()
            if self.at("{"):
                self.parse_attr_dict()
        else:
            raise self.error(
                f"expected 'func.func' or 'module'; got '{tok.text or 'end of input'}'"
            )

    def add_function(self, module: MlirModule, func: FuncOp) -> None:
        if func.name in module.functions:
            raise self.error(f"redefinition of function @{func.name}", func.offset)
        module.functions[func.name] = func

    def parse_alias_definition(self) -> None:
        name_tok = self.advance()
        self.expect("=")
        if name_tok.kind is Tok.BANG:
            self.aliases[name_tok.text] = self.parse_type()
            return
        # '#locN = loc(...)' leaves nothing after '=' (the lexer skips loc(...) as trivia).
        if "loc" in self.text[self.prev_end : self.tok.start]:
            return
        self.aliases[name_tok.text] = self.parse_attr()

    def parse_func(self) -> FuncOp:
        offset = self.expect("func.func").start
        visibility = "public"
        if self.tok.kind is Tok.ID and self.tok.text in ("public", "private", "nested"):
            visibility = self.advance().text
        name = symbol_name(self.expect_kind(Tok.SYMBOL, "a function name").text)
        self.expect("(")
        arg_names: list[str] = []
        arg_types: list[MlirType] = []
        arg_attrs: list[dict[str, Any]] = []
        while not self.accept(")"):
            arg_names.append(self.expect_kind(Tok.SSA, "an argument name").text)
            self.expect(":")
            arg_types.append(self.parse_type())
            arg_attrs.append(self.parse_attr_dict()[0] if self.at("{") else {})
            if not self.at(")"):
                self.expect(",")
        result_types: list[MlirType] = []
        result_attrs: list[dict[str, Any]] = []
        if self.accept("->"):
            if self.accept("("):
                while not self.accept(")"):
                    result_types.append(self.parse_type())
                    result_attrs.append(self.parse_attr_dict()[0] if self.at("{") else {})
                    if not self.at(")"):
                        self.expect(",")
            else:
                result_types.append(self.parse_type())
                result_attrs.append({})
        if self.accept("attributes"):
            self.parse_attr_dict()
        body = None
        if self.at("{"):
            body = self.parse_region(list(zip(arg_names, arg_types, strict=True)))
        return FuncOp(
            name, visibility, arg_types, result_types, body, offset, arg_attrs, result_attrs
        )

    def parse_generic_func(self) -> FuncOp:
        return self.generic_func(self.parse_op())

    def generic_func(self, op: Op) -> FuncOp:
        """The function of a generic ``"func.func"() <{function_type, sym_name}> ({...})`` op."""
        ftype = op.attrs.get("function_type")
        name = op.attrs.get("sym_name")
        if not isinstance(ftype, tuple) or not isinstance(name, str) or len(op.regions) != 1:
            raise self.error('"func.func" needs function_type, sym_name and a body', op.offset)
        visibility = op.attrs.get("sym_visibility", "public")
        return FuncOp(name, str(visibility), ftype[0], ftype[1], op.regions[0], op.offset)

    # ---- regions and ops ----------------------------------------------------------------
    def parse_region(self, entry_args: list[tuple[str, MlirType]] | None = None) -> Region:
        """``{ [^bb0(args):] ops ... }``; ``entry_args`` names the header-less entry block's args."""
        start = self.expect("{").start
        blocks: list[Block] = []
        args = list(entry_args or [])
        if self.tok.kind is Tok.BLOCK:
            args = self.parse_block_header()
        ops: list[Op] = []
        while not self.at("}"):
            if self.tok.kind is Tok.EOF:
                raise self.error("missing '}' at the end of the region", start)
            if self.tok.kind is Tok.BLOCK:
                blocks.append(Block(args, ops))
                args, ops = self.parse_block_header(), []
                continue
            ops.append(self.parse_op())
        self.advance()
        blocks.append(Block(args, ops))
        return Region(blocks)

    def parse_block_header(self) -> list[tuple[str, MlirType]]:
        self.expect_kind(Tok.BLOCK)
        args: list[tuple[str, MlirType]] = []
        if self.accept("("):
            while not self.accept(")"):
                name = self.expect_kind(Tok.SSA, "a block argument").text
                self.expect(":")
                args.append((name, self.parse_type()))
                if not self.at(")"):
                    self.expect(",")
        self.expect(":", "after the block header")
        return args

    def parse_result_names(self) -> list[str]:
        """``%a, %b =`` or ``%x:3 =`` (expanded to ``%x#0``...) or nothing."""
        names: list[str] = []
        if self.tok.kind is not Tok.SSA:
            return names
        while True:
            name = self.expect_kind(Tok.SSA, "a result name").text
            if self.at(":"):
                self.advance()
                count_tok = self.tok
                count = self.expect_int("a result count")
                if not 0 < count <= len(self.text):  # each result needs a type in the text
                    raise self.error(f"bad result count {count} for {name}", count_tok.start)
                names.extend(f"{name}#{i}" for i in range(count))
            else:
                names.append(name)
            if not self.accept(","):
                break
        self.expect("=", "after the result names")
        return names

    def parse_op(self) -> Op:
        from xlapy.text.stablehlo_fast import parse_fast_op
        from xlapy.text.stablehlo_pretty import parse_pretty_op

        offset = self.tok.start
        if self.tok.kind is Tok.SSA:
            fast = parse_fast_op(self)
            if fast is not None:
                return fast
        results = self.parse_result_names()
        if self.tok.kind is Tok.STRING:
            op = self.parse_generic_op(results, offset)
        elif self.tok.kind is Tok.ID:
            op = parse_pretty_op(self, results, offset)
        else:
            raise self.error(f"expected an operation; got '{self.tok.text or 'end of input'}'")
        if len(op.result_types) != len(op.results):
            raise self.error(
                f"{op.name} defines {len(op.results)} results but its type lists "
                f"{len(op.result_types)}",
                offset,
            )
        return op

    def parse_generic_op(self, results: list[str], offset: int) -> Op:
        name = unescape_string(self.advance().text)
        self.expect("(")
        operands = self.parse_ssa_list(")")
        attrs: dict[str, Any] = {}
        raw: dict[str, str] = {}
        if self.at("<"):
            self.advance()
            props, praw = self.parse_attr_dict()
            attrs.update(props)
            raw.update(praw)
            self.expect(">", "to close the properties")
        regions: list[Region] = []
        if self.at("("):
            self.advance()
            while True:
                regions.append(self.parse_region())
                if not self.accept(","):
                    break
            self.expect(")", "after the regions")
        if self.at("{"):
            more, mraw = self.parse_attr_dict()
            attrs.update(more)
            raw.update(mraw)
        self.expect(":", f"and the type of {name}")
        operand_types, result_types = self.parse_function_type()
        return Op(name, results, operands, attrs, regions, result_types, offset, raw, operand_types)

    def parse_ssa_list(self, close: str) -> list[str]:
        """SSA names separated by commas up to ``close`` (consumed)."""
        names: list[str] = []
        while not self.accept(close):
            names.append(self.expect_kind(Tok.SSA, "an operand").text)
            if not self.at(close):
                self.expect(",")
        return names

    # ---- types ----------------------------------------------------------------------------
    def parse_function_type(self) -> tuple[list[MlirType], list[MlirType]]:
        """``(T, ...) -> R`` or ``(T, ...) -> (R, ...)``."""
        self.expect("(", "to open a function type")
        args = self.parse_type_list(")")
        self.expect("->")
        return args, self.parse_result_types()

    def parse_result_types(self) -> list[MlirType]:
        if self.accept("("):
            return self.parse_type_list(")")
        return [self.parse_type()]

    def parse_type_list(self, close: str) -> list[MlirType]:
        types: list[MlirType] = []
        while not self.accept(close):
            types.append(self.parse_type())
            if not self.at(close):
                self.expect(",")
        return types

    def parse_type(self) -> MlirType:
        tok = self.tok
        if tok.kind is Tok.ID and tok.text == "tensor":
            m = _SIMPLE_TENSOR.match(self.text, tok.start)
            if m is not None:
                shape = simple_tensor_type(m)
                if shape is not None:
                    self.reset(m.end())
                    return shape
            return self.parse_tensor_type()  # which reports what is wrong with it
        if tok.kind is Tok.ID and tok.text == "tuple":
            self.advance()
            self.expect("<")
            return Shape.tuple_of(self._shapes(self.parse_type_list(">"), tok.start))
        if tok.kind is Tok.BANG:
            if tok.text == "!stablehlo.token":
                self.advance()
                return Shape.token()
            if tok.text == "!stablehlo.future":  # async_start's results, as a tuple
                self.advance()
                self.expect("<")
                return Shape.tuple_of(self._shapes(self.parse_type_list(">"), tok.start))
            if tok.text == "!quant.uniform":
                return Shape.scalar(self.parse_quantized_element())
            if tok.text in self.aliases:
                self.advance()
                return self.aliases[tok.text]  # type: ignore[no-any-return]
            raise self.error(f"unsupported type {tok.text}")
        if tok.kind is Tok.ID:
            elem = self.parse_element_type()
            return Shape.scalar(elem)
        raise self.error(f"expected a type; got '{tok.text or 'end of input'}'")

    def _shapes(self, types: list[MlirType], offset: int) -> list[Shape]:
        return list(types)

    def parse_element_type(self) -> dtypes.ElementType:
        tok = self.expect_kind(Tok.ID, "an element type")
        name = tok.text
        if name == "complex":
            self.expect("<")
            inner = self.expect_kind(Tok.ID, "a complex component type").text
            self.expect(">")
            name = f"complex<{inner}>"
        if name == "index":
            return dtypes.S64
        try:
            return dtypes.from_mlir(name)
        except InvalidArgument:
            raise self.error(f"unknown element type '{name}'", tok.start) from None

    def parse_tensor_type(self) -> MlirType:
        start = self.advance().start  # tensor
        lt = self.expect("<")
        m = _DIMS.match(self.text, lt.end)
        assert m is not None
        dims_text = re.sub(r"\s", "", m.group(1))
        dims = [UNBOUNDED if d == "?" else int(d) for d in dims_text.split("x")[:-1]]
        self.reset(m.end())
        elem: dtypes.ElementType
        if self.tok.kind is Tok.BANG and self.tok.text == "!quant.uniform":
            elem = self.parse_quantized_element()
        else:
            elem = self.parse_element_type()
        dynamic = [d == UNBOUNDED for d in dims]
        if self.accept(","):
            bounds = self.parse_bounds_encoding()
            if len(bounds) != len(dims):
                raise self.error(f"bounds list {bounds} does not match rank {len(dims)}", start)
            for i, b in enumerate(bounds):
                if b is not None and dims[i] == UNBOUNDED:
                    dims[i] = b
        self.expect(">", "to close the tensor type")
        problem = array_size_problem(elem, dims)
        if problem is not None:
            raise self.error(problem, start)
        if isinstance(elem, dtypes.QuantizedType):
            self.check_quantized_dims(elem, dims, start)
        return Shape.array(elem, dims, dynamic=dynamic)

    def check_quantized_dims(
        self, elem: dtypes.QuantizedType, dims: list[int], offset: int
    ) -> None:
        """A per-axis quantized tensor has its quantization dimension, of one entry per scale
        (StableHLO spec, QuantizedTensorType C1-C2)."""
        d = elem.quantization_dimension
        if d is None:
            return
        if d >= len(dims):
            raise self.error(
                f"quantization dimension {d} is out of range for a tensor of rank {len(dims)}",
                offset,
            )
        if dims[d] != UNBOUNDED and dims[d] != len(elem.scales):
            raise self.error(
                f"quantization dimension {d} has size {dims[d]} but the type has "
                f"{len(elem.scales)} scales",
                offset,
            )

    def parse_bounds_encoding(self) -> list[int | None]:
        tok = self.expect_kind(Tok.HASH, "a tensor encoding")
        self.expect("<")
        if tok.text == "#stablehlo.type_extensions":
            self.expect("bounds")
            self.expect("=")
            self.expect("[")
            close = "]"
        elif tok.text == "#stablehlo.bounds":
            close = ">"
        else:
            raise self.error(f"unsupported tensor encoding {tok.text}", tok.start)
        bounds: list[int | None] = []
        while not self.accept(close):
            if self.accept("?"):
                bounds.append(None)
            else:
                bounds.append(self.expect_int("a bound"))
            if not self.at(close):
                self.expect(",")
        if close == "]":
            self.expect(">")
        return bounds

    def parse_quantized_element(self) -> dtypes.QuantizedType:
        """``!quant.uniform<i8[<min:max>]:f32[:dim], scale[:zero_point]>``, per axis with
        ``{scale[:zero_point], ...}``; storage ``i<N>`` or ``u<N>`` (``ui<N>`` accepted)."""
        start = self.advance().start  # !quant.uniform
        self.expect("<")
        tok = self.expect_kind(Tok.ID, "a storage type (i8, u8, ...)")
        m = re.fullmatch(r"(i|ui|u)(\d+)", tok.text)
        name = None if m is None else ("s" if m.group(1) == "i" else "u") + m.group(2)
        if name not in dtypes.BY_NAME:
            raise self.error(
                f"quantized storage type must be i<N> or u<N>; got '{tok.text}'", tok.start
            )
        storage = dtypes.BY_NAME[name]
        bounds: list[int | None] = [None, None]
        if self.accept("<"):
            bounds[0] = self.expect_int("the storage minimum")
            self.expect(":")
            bounds[1] = self.expect_int("the storage maximum")
            self.expect(">")
        self.expect(":")
        expressed = self.parse_element_type()
        dimension = self.expect_int("a quantization dimension") if self.accept(":") else None
        self.expect(",")
        params: list[tuple[float, int]] = []
        if self.accept("{"):
            params.append(self.parse_scale_zero_point())
            while self.accept(","):
                params.append(self.parse_scale_zero_point())
            self.expect("}")
        else:
            params.append(self.parse_scale_zero_point())
        self.expect(">", "to close !quant.uniform")
        try:
            return dtypes.uniform_quantized(
                storage, expressed, [p[0] for p in params], [p[1] for p in params],
                dimension, bounds[0], bounds[1],
            )  # fmt: skip
        except InvalidArgument as err:
            raise self.error(str(err), start) from None

    def parse_scale_zero_point(self) -> tuple[float, int]:
        tok = self.tok
        if tok.kind not in (Tok.FLOAT, Tok.INT):
            raise self.error(f"expected a quantization scale; got '{tok.text}'")
        self.advance()
        scale = float(int_value(tok.text)) if tok.kind is Tok.INT else float(tok.text)
        zero_point = self.expect_int("a zero point") if self.accept(":") else 0
        return scale, zero_point

    def balanced_angle_text(self) -> str:
        """Skips ``<...>`` (as ``skip_balanced_angle``) and returns its source text."""
        start = self.tok.start
        self.skip_balanced_angle()
        return self.text[start : self.prev_end]

    def skip_balanced_angle(self) -> None:
        """Skips ``<...>`` with nesting (strings respected)."""
        start = self.expect("<").start
        depth = 1
        while depth:
            tok = self.tok
            if tok.kind is Tok.EOF:
                raise self.error("unbalanced '<'", start)
            if tok.kind is Tok.PUNCT and tok.text == "<":
                depth += 1
            elif tok.kind is Tok.PUNCT and tok.text == ">":
                depth -= 1
            elif tok.kind is Tok.PUNCT and tok.text == "->":
                pass
            self.advance()

    # ---- attributes -----------------------------------------------------------------------
    def parse_attr_dict(self) -> tuple[dict[str, Any], dict[str, str]]:
        """``{a = 1 : i64, b, "c.d" = ...}`` -> (values, source texts of the values)."""
        self.expect("{")
        values: dict[str, Any] = {}
        raw: dict[str, str] = {}
        while not self.accept("}"):
            key_tok = self.tok
            if key_tok.kind is Tok.STRING:
                key = unescape_string(self.advance().text)
            elif key_tok.kind is Tok.ID:
                key = self.advance().text
            else:
                raise self.error(f"expected an attribute name; got '{key_tok.text}'")
            if self.accept("="):
                start = self.tok.start
                values[key] = self.parse_attr()
                raw[key] = self.text[start : self.prev_end]
            else:
                values[key] = True
                raw[key] = "unit"
            if not self.at("}"):
                self.expect(",", "between attributes")
        return values, raw

    def parse_attr(self) -> Any:
        tok = self.tok
        kind = tok.kind
        if kind is Tok.INT:
            self.advance()
            value = int_value(tok.text)
            if self.at(":"):
                self.advance()
                t = self.parse_type()
                if isinstance(t, Shape) and t.element_type.is_float:
                    from xlapy.text.dense import float_literals  # (see parse_dense)

                    try:
                        bits = float_literals([tok.text], t.element_type)
                    except InvalidArgument as err:
                        raise self.error(str(err), tok.start) from None
                    return float(bits[0])
            return value
        if kind is Tok.FLOAT:
            self.advance()
            if self.at(":"):
                self.advance()
                self.parse_type()
            return float(tok.text)
        if kind is Tok.STRING:
            self.advance()
            return unescape_string(tok.text)
        if kind is Tok.SYMBOL:
            self.advance()
            name = symbol_name(tok.text)
            while self.accept("::"):
                name += "::" + symbol_name(self.expect_kind(Tok.SYMBOL).text)
            return SymbolRef(name)
        if kind is Tok.PUNCT:
            if tok.text == "[":
                self.advance()
                items = []
                while not self.accept("]"):
                    items.append(self.parse_attr())
                    if not self.at("]"):
                        self.expect(",")
                return items
            if tok.text == "{":
                return self.parse_attr_dict()[0]
            if tok.text == "(":
                return self.parse_function_type()
        if kind is Tok.HASH:
            return self.parse_hash_attr()
        if kind is Tok.BANG:
            return self.parse_type()
        if kind is Tok.ID:
            text = tok.text
            if text in ("true", "false"):
                self.advance()
                return text == "true"
            if text == "unit":
                self.advance()
                return True
            if text == "dense":
                return self.parse_dense()
            if text == "array":
                return self.parse_dense_array()
            if text in ("tensor", "tuple"):
                return self.parse_type()
            if text in ("dense_resource", "sparse", "affine_map", "opaque"):
                raise self.error(f"{text}<...> attributes are not supported")
            self.advance()
            return text
        raise self.error(f"expected an attribute value; got '{tok.text or 'end of input'}'")

    def parse_dense(self) -> Literal:
        start = self.advance().start  # dense
        lt = self.expect("<")
        close = self.text.find(">", lt.end)
        if close < 0:
            raise self.error("unterminated dense<", start)
        body = self.text[lt.end : close]
        self.reset(close + 1)
        self.expect(":", "and the type of the dense literal")
        type_start = self.tok.start
        shape = self.parse_type()
        if not shape.is_array:
            raise self.error("a dense literal must have a tensor type", type_start)
        if not shape.is_static:
            raise self.error("a dense literal must have a static shape", type_start)
        etype = shape.element_type
        if isinstance(etype, dtypes.QuantizedType):
            etype = etype.storage  # a quantized literal holds its storage integers
        # Imported with the first literal: a program without any (JAX's top_k alone) does
        # without its import (~0.4-0.9 ms in a fresh process).
        from xlapy.text.dense import parse_dense_body

        try:
            value = parse_dense_body(body, etype, shape.dims)
        except InvalidArgument as err:
            raise self.error(f"{err}", lt.end) from None
        return Literal(shape, value)

    def parse_dense_array(self) -> tuple[Any, ...]:
        self.advance()  # array
        self.expect("<")
        elem = self.parse_element_type()
        values: list[Any] = []
        if self.accept(":"):
            while True:
                v = self.parse_attr()
                values.append(bool(v) if elem.is_pred else v)
                if not self.accept(","):
                    break
        self.expect(">", "to close the array")
        if elem.is_float:
            return tuple(float(v) for v in values)
        return tuple(values)

    def parse_hash_attr(self) -> Any:
        tok = self.advance()
        name = tok.text
        if not self.at("<"):
            if name in self.aliases:
                return self.aliases[name]
            raise self.error(f"undefined attribute alias {name}", tok.start)
        if _DIALECT_ENUM.match(name):
            self.expect("<")
            kind = self.expect_kind(Tok.ID, "an enum kind").text
            value = self.expect_kind(Tok.ID, f"a {kind} value").text
            self.expect(">")
            return EnumAttr(kind, value)
        if name == "#stablehlo.conv":
            return self.parse_conv_dims()
        if not (name.startswith("#stablehlo.") or name.startswith("#chlo.")):
            start = self.tok.start
            self.skip_balanced_angle()
            return DialectAttr(name[1:], {}, self.text[start : self.prev_end])
        self.expect("<")
        fields: dict[str, Any] = {}
        if self.tok.kind is Tok.ID and self.lex.token_at(self.tok.end).text == ">":
            value = self.advance().text
            self.expect(">")
            return EnumAttr(name[len("#stablehlo.") :] if "stablehlo" in name else name, value)
        while not self.accept(">"):
            key = self.expect_kind(Tok.ID, "a field name").text
            self.expect("=")
            fields[key] = self.parse_attr()
            if not self.at(">"):
                self.expect(",")
        return DialectAttr(name[1:], fields)

    def parse_conv_dims(self) -> ConvolutionDimensionNumbers:
        """``<[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]>`` or ``<raw input_batch_dimension = ...>``."""
        self.expect("<")
        if self.accept("raw"):
            fields: dict[str, Any] = {}
            while not self.accept(">"):
                key = self.expect_kind(Tok.ID).text
                self.expect("=")
                fields[key] = self.parse_attr()
                if not self.at(">"):
                    self.expect(",")
            return conv_dims_from_fields(fields)
        start = self.tok.start
        labels = self.parse_conv_labels()
        self.expect(">", "to close #stablehlo.conv")
        try:
            return ConvolutionDimensionNumbers.from_labels(labels)
        except InvalidArgument as err:
            raise self.error(str(err), start) from None

    def parse_conv_labels(self) -> str:
        """``[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]`` as HLO ``b01f_01io->b01f``."""

        def side() -> str:
            self.expect("[")
            labels = []
            while not self.accept("]"):
                labels.append(self.advance().text)
                if not self.at("]"):
                    self.expect(",")
            return "".join(labels)

        lhs = side()
        x = self.expect_kind(Tok.ID, "'x'")
        if x.text != "x":
            raise self.error("expected 'x' between the lhs and rhs dimension labels", x.start)
        rhs = side()
        self.expect("->")
        out = side()
        return f"{lhs}_{rhs}->{out}"


def conv_dims_from_fields(fields: dict[str, Any]) -> ConvolutionDimensionNumbers:
    def ints(key: str) -> tuple[int, ...]:
        return tuple(int(v) for v in fields.get(key, ()))

    return ConvolutionDimensionNumbers(
        int(fields.get("input_batch_dimension", 0)),
        int(fields.get("input_feature_dimension", 0)),
        ints("input_spatial_dimensions"),
        int(fields.get("kernel_input_feature_dimension", 0)),
        int(fields.get("kernel_output_feature_dimension", 0)),
        ints("kernel_spatial_dimensions"),
        int(fields.get("output_batch_dimension", 0)),
        int(fields.get("output_feature_dimension", 0)),
        ints("output_spatial_dimensions"),
    )


def symbol_name(text: str) -> str:
    """``@name`` or ``@"quoted"`` -> the name."""
    body = text[1:]
    return unescape_string(body) if body.startswith('"') else body
