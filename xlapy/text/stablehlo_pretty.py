"""Pretty (custom assembly) forms of StableHLO, CHLO, check, interpreter, func and sdy ops
(STABLEHLO_SYNTAX.md §6-§11), parsed into the same ``Op`` as the generic form.

Most ops follow one shape, handled by ``_universal``: comma separated items (operands,
``keyword = value`` pairs, bare enum values such as compare's ``LT``, a positional ``dense<...>``
for constants and ``*_const`` checks), an optional attribute dict, then ``: types``. Keyword names
are renamed to the generic attribute names (``dims`` -> ``broadcast_dimensions``...). Ops with
their own syntax (reduce, while, convolution, slice, custom_call, ...) have a parser each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.mlir_ast import Block, MlirType, Op, Region, SymbolRef
from xlapy.text.mlir_lexer import Tok, int_value
from xlapy.text.mlir_parser import MlirParser, symbol_name

KNOWN_DIALECTS = ("stablehlo", "chlo", "check", "interpreter", "func", "sdy", "tensor", "arith")

_KEYWORDS: dict[str, dict[str, str]] = {
    "stablehlo.broadcast_in_dim": {"dims": "broadcast_dimensions"},
    "stablehlo.dynamic_broadcast_in_dim": {"dims": "broadcast_dimensions"},
    "stablehlo.broadcast": {"sizes": "broadcast_sizes"},
    "stablehlo.transpose": {"dims": "permutation"},
    "stablehlo.reverse": {"dims": "dimensions"},
    "stablehlo.dynamic_slice": {"sizes": "slice_sizes"},
    "stablehlo.concatenate": {"dim": "dimension"},
    "stablehlo.pad": {
        "low": "edge_padding_low",
        "high": "edge_padding_high",
        "interior": "interior_padding",
    },
    "stablehlo.iota": {"dim": "iota_dimension"},
    "stablehlo.dynamic_iota": {"dim": "iota_dimension"},
    "stablehlo.get_dimension_size": {"dim": "dimension"},
    "stablehlo.set_dimension_size": {"dim": "dimension"},
    "stablehlo.dot": {"precision": "precision_config"},
    "stablehlo.dot_general": {"precision": "precision_config"},
    "stablehlo.fft": {"type": "fft_type", "length": "fft_length"},
    "stablehlo.rng": {"distribution": "rng_distribution"},
    "stablehlo.rng_bit_generator": {"algorithm": "rng_algorithm"},
    "stablehlo.einsum": {"config": "einsum_config"},
    "stablehlo.unary_einsum": {"config": "einsum_config"},
    "chlo.scan": {},
}
_POSITIONAL: dict[str, tuple[str, ...]] = {
    "stablehlo.compare": ("comparison_direction", "compare_type"),
}
_ALIASES = {"return": "func.return", "call": "func.call"}

PrettyParser = Callable[[MlirParser, str, list[str], int], Op]


def parse_pretty_op(p: MlirParser, results: list[str], offset: int) -> Op:
    """Parses the op at ``p`` (its name is the current token) in pretty form."""
    name_tok = p.advance()
    name = _ALIASES.get(name_tok.text, name_tok.text)
    special = _SPECIAL.get(name)
    if special is not None:
        return special(p, name, results, offset)
    if name.split(".", 1)[0] in KNOWN_DIALECTS and "." in name:
        return _universal(p, name, results, offset)
    raise p.error(f"unknown operation '{name_tok.text}'", name_tok.start)


def _op(name: str, results: list[str], operands: list[str], attrs: dict[str, Any],
        result_types: list[MlirType], offset: int, regions: list[Region] | None = None,
        raw: dict[str, str] | None = None, operand_types: list[MlirType] | None = None) -> Op:  # fmt: skip
    return Op(
        name, results, operands, attrs, regions or [], result_types, offset, raw or {},
        operand_types or [],
    )  # fmt: skip


def _keyword_value(p: MlirParser) -> Any:
    """A value after ``keyword =``: never takes a ``: type`` suffix (that is the op's type)."""
    tok = p.tok
    if tok.kind is Tok.INT:
        p.advance()
        return int_value(tok.text)
    if tok.kind is Tok.FLOAT:
        p.advance()
        return float(tok.text)
    if p.at("<"):
        p.advance()
        fields: dict[str, Any] = {}
        while not p.accept(">"):
            key = p.expect_kind(Tok.ID, "a field name").text
            p.expect("=")
            fields[key] = _keyword_value(p)
            if not p.at(">"):
                p.expect(",")
        return fields
    value = p.parse_attr()
    if isinstance(value, list) and p.tok.kind is Tok.ID and p.tok.text == "x":
        p.advance()
        return (value, p.parse_attr())
    return value


def _types(p: MlirParser, name: str, n_results: int, offset: int
           ) -> tuple[list[MlirType], list[MlirType] | None]:  # fmt: skip
    """``: (T...) -> R``, ``: T1, T2 -> R`` or ``: T...``; returns (operand types, result
    types). Operand types are those the signature names (the first two forms); a bare list
    (SameOperandsAndResultType, or a result list such as ``stablehlo.tuple``'s) names none."""
    if p.at("("):
        return p.parse_function_type()
    listed = [p.parse_type()]
    while p.accept(","):
        listed.append(p.parse_type())
    if p.accept("->"):
        return listed, p.parse_result_types()
    if n_results == 0:
        return [], []
    if n_results == 1:
        return [], [listed[-1]]
    if n_results == len(listed):
        return [], list(listed)
    raise p.error(f"{name}: cannot tell the types of its {n_results} results", offset)


def _universal(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    operands: list[str] = []
    attrs: dict[str, Any] = {}
    raw: dict[str, str] = {}
    positional: list[str] = []
    keywords = _KEYWORDS.get(name, {})
    while True:
        tok = p.tok
        if tok.kind is Tok.SSA:
            operands.append(p.advance().text)
        elif tok.kind is Tok.ID and tok.text == "dense":
            attrs["value"] = p.parse_dense()
        elif tok.kind is Tok.ID and p.lex.token_at(tok.end).text == "=":
            p.advance()
            p.advance()
            key = tok.text
            value = _keyword_value(p)
            _set_keyword(p, name, key, value, attrs, keywords, tok.start)
        elif tok.kind is Tok.ID and name in _POSITIONAL:
            positional.append(p.advance().text)
        else:
            break
        if not p.accept(","):
            break
    for key, value in zip(_POSITIONAL.get(name, ()), positional, strict=False):
        attrs[key] = value
    if p.at("{"):
        more, mraw = p.parse_attr_dict()
        attrs.update(more)
        raw.update(mraw)
    operand_types: list[MlirType] = []
    result_types: list[MlirType] | None = []
    if p.accept(":"):
        operand_types, result_types = _types(p, name, len(results), offset)
    elif results and isinstance(attrs.get("value"), Literal):
        result_types = [attrs["value"].shape] * len(results)
    elif results:
        got = p.tok.text or "end of input"
        raise p.error(f"expected ',' or ':' and the type of {name}; got '{got}'")
    return _op(name, results, operands, attrs, result_types or [], offset, None, raw,
               operand_types)  # fmt: skip


def _set_keyword(p: MlirParser, name: str, key: str, value: Any, attrs: dict[str, Any],
                 keywords: dict[str, str], offset: int) -> None:  # fmt: skip
    if name == "stablehlo.reduce_precision" and key == "format":
        text = str(value)
        try:
            exp, mant = text[1:].split("m")
            attrs["exponent_bits"], attrs["mantissa_bits"] = int(exp), int(mant)
        except ValueError:
            raise p.error(
                f"reduce_precision format must look like e5m10; got {text}", offset
            ) from None
        return
    if name == "stablehlo.dot_general" and key in ("batching_dims", "contracting_dims"):
        if not isinstance(value, tuple):
            raise p.error(f"{key} must look like [..] x [..]", offset)
        kind = "batching" if key == "batching_dims" else "contracting"
        attrs[f"lhs_{kind}_dimensions"], attrs[f"rhs_{kind}_dimensions"] = value
        return
    attrs[keywords.get(key, key)] = value


# ---- ops with their own syntax ----------------------------------------------------------------


def _slice(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    operand = p.expect_kind(Tok.SSA, "the sliced operand").text
    p.expect("[")
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    while not p.accept("]"):
        starts.append(p.expect_int())
        p.expect(":")
        limits.append(p.expect_int())
        strides.append(p.expect_int() if p.accept(":") else 1)
        if not p.at("]"):
            p.expect(",")
    attrs: dict[str, Any] = {
        "start_indices": tuple(starts),
        "limit_indices": tuple(limits),
        "strides": tuple(strides),
    }
    if p.at("{"):
        attrs.update(p.parse_attr_dict()[0])
    p.expect(":")
    _operand_types, result_types = _types(p, name, len(results), offset)
    return _op(name, results, [operand], attrs, result_types or [], offset)


def _get_tuple_element(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    operand = p.expect_kind(Tok.SSA).text
    p.expect("[")
    index = p.expect_int("a tuple index")
    p.expect("]")
    attrs: dict[str, Any] = {"index": index}
    if p.at("{"):
        attrs.update(p.parse_attr_dict()[0])
    p.expect(":")
    _, result_types = _types(p, name, len(results), offset)
    return _op(name, results, [operand], attrs, result_types or [], offset)


def _custom_call(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    target = symbol_name(p.expect_kind(Tok.SYMBOL, "a custom-call target").text)
    p.expect("(")
    operands = p.parse_ssa_list(")")
    attrs: dict[str, Any] = {}
    raw: dict[str, str] = {}
    if p.at("{"):
        attrs, raw = p.parse_attr_dict()
    attrs["call_target_name"] = target
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    return _op(name, results, operands, attrs, result_types, offset, None, raw, operand_types)


def _composite(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    from xlapy.text.mlir_lexer import unescape_string

    comp_name = unescape_string(p.expect_kind(Tok.STRING, "the composite name").text)
    operands: list[str] = []
    while p.tok.kind is Tok.SSA:
        operands.append(p.advance().text)
        if not p.accept(","):
            break
    attrs, raw = p.parse_attr_dict()
    attrs["name"] = comp_name
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    return _op(name, results, operands, attrs, result_types, offset, None, raw, operand_types)


def _call(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    callee = symbol_name(p.expect_kind(Tok.SYMBOL, "a callee").text)
    p.expect("(")
    operands = p.parse_ssa_list(")")
    if p.at("{"):
        p.parse_attr_dict()
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    attrs = {"callee": SymbolRef(callee)}
    return _op(name, results, operands, attrs, result_types, offset, None, None, operand_types)


def _reduce(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    inputs: list[str] = []
    inits: list[str] = []
    while True:
        p.expect("(")
        inputs.append(p.expect_kind(Tok.SSA, "a reduce input").text)
        p.expect("init")
        p.expect(":")
        inits.append(p.expect_kind(Tok.SSA, "a reduce init value").text)
        p.expect(")")
        if not p.accept(","):
            break
    body_op = ""
    if p.accept("applies"):
        body_op = p.expect_kind(Tok.ID, "the reducer op").text
    p.expect("across")
    p.expect("dimensions")
    p.expect("=")
    start = p.tok.start
    dimensions = p.parse_attr()
    if not isinstance(dimensions, list | tuple):
        raise p.error("expected a dimension list like [0, 1]", start)
    attrs: dict[str, Any] = {"dimensions": tuple(dimensions)}
    if p.at("{"):
        attrs.update(p.parse_attr_dict()[0])
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    n = len(inputs)
    if body_op:
        init_type = operand_types[n] if len(operand_types) > n else None
        if not isinstance(init_type, Shape):
            raise p.error("reduce: cannot tell the element type of the compact reducer", offset)
        scalar = Shape.scalar(init_type.element_type)
        body = Block(
            [("%lhs", scalar), ("%rhs", scalar)],
            [
                _op(body_op, ["%r"], ["%lhs", "%rhs"], {}, [scalar], offset),
                _op("stablehlo.return", [], ["%r"], {}, [], offset),
            ],
        )
        region = Region([body])
    else:
        p.expect("reducer")
        firsts: list[tuple[str, MlirType]] = []
        seconds: list[tuple[str, MlirType]] = []
        for _ in range(n):
            p.expect("(")
            for group in (firsts, seconds):
                arg = p.expect_kind(Tok.SSA, "a reducer argument").text
                p.expect(":")
                group.append((arg, p.parse_type()))
                if group is firsts:
                    p.expect(",")
            p.expect(")")
        region = p.parse_region(firsts + seconds)
    return _op(name, results, inputs + inits, attrs, result_types, offset, [region])


def _while(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    p.expect("(")
    names: list[str] = []
    operands: list[str] = []
    while not p.accept(")"):
        names.append(p.expect_kind(Tok.SSA, "an iteration argument").text)
        p.expect("=")
        operands.append(p.expect_kind(Tok.SSA, "an initial value").text)
        if not p.at(")"):
            p.expect(",")
    types: list[MlirType] = []
    if p.accept(":"):
        types = [p.parse_type()]
        while p.accept(","):
            types.append(p.parse_type())
    if len(types) != len(names):
        raise p.error(f"while has {len(names)} operands but {len(types)} types", offset)
    attrs: dict[str, Any] = {}
    if p.accept("attributes"):
        attrs = p.parse_attr_dict()[0]
    args = list(zip(names, types, strict=True))
    p.expect("cond")
    cond = p.parse_region(args)
    p.expect("do")
    body = p.parse_region(args)
    return _op(name, results, operands, attrs, list(types), offset, [cond, body])


def _convolution(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    p.expect("(")
    operands = p.parse_ssa_list(")")
    p.expect("dim_numbers")
    p.expect("=")
    start = p.tok.start
    from xlapy.errors import InvalidArgument
    from xlapy.ir.attrs import ConvolutionDimensionNumbers

    labels = p.parse_conv_labels()
    try:
        attrs: dict[str, Any] = {
            "dimension_numbers": ConvolutionDimensionNumbers.from_labels(labels)
        }
    except InvalidArgument as err:
        raise p.error(str(err), start) from None
    p.expect(",")
    p.expect("window")
    p.expect("=")
    window = p.parse_attr_dict()[0]
    keys = {
        "stride": "window_strides",
        "pad": "padding",
        "lhs_dilate": "lhs_dilation",
        "rhs_dilate": "rhs_dilation",
        "reverse": "window_reversal",
    }
    for key, value in window.items():
        if key not in keys:
            raise p.error(f"unknown convolution window entry '{key}'", start)
        attrs[keys[key]] = value
    if p.at("{"):
        attrs.update(p.parse_attr_dict()[0])
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    return _op(name, results, operands, attrs, result_types, offset, None, None, operand_types)


def _scan(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    p.expect("(")
    inputs = p.parse_ssa_list(")")
    p.expect("inits")
    p.expect("(")
    inits = p.parse_ssa_list(")")
    attrs: dict[str, Any] = {}
    while p.tok.kind is Tok.ID and p.tok.text != "attributes":
        key = p.advance().text
        p.expect("=")
        attrs[key] = _keyword_value(p)
    if p.accept("attributes"):
        attrs.update(p.parse_attr_dict()[0])
    region = p.parse_region()
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    attrs["num_inits"] = len(inits)
    return _op(name, results, inputs + inits, attrs, result_types, offset, [region], None,
               operand_types)  # fmt: skip


def _top_k(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    p.expect("(")
    operand = p.expect_kind(Tok.SSA).text
    attrs: dict[str, Any] = {}
    while p.accept(","):
        key = p.expect_kind(Tok.ID).text
        p.expect("=")
        attrs[key] = _keyword_value(p)
    p.expect(")")
    if p.at("{"):
        attrs.update(p.parse_attr_dict()[0])
    p.expect(":")
    _, result_types = _types(p, name, len(results), offset)
    return _op(name, results, [operand], attrs, result_types or [], offset)


def _optimization_barrier(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    if p.at("(") and p.lex.token_at(p.tok.end).text == ")":
        p.advance()
        p.advance()
        return _op(name, results, [], {}, [], offset)
    return _universal(p, name, results, offset)


def _sharding_constraint(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    operand = p.expect_kind(Tok.SSA).text
    attrs: dict[str, Any] = {"sharding": p.balanced_angle_text()}
    if p.at("{"):
        attrs.update(p.parse_attr_dict()[0])
    p.expect(":")
    _, result_types = _types(p, name, len(results), offset)
    return _op(name, results, [operand], attrs, result_types or [], offset)


def _sharding_group(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    """``sdy.sharding_group %x group_id=N : T`` (``jax.experimental.shard_alike``)."""
    operand = p.expect_kind(Tok.SSA).text
    p.expect("group_id")
    p.expect("=")
    group = int(p.expect_kind(Tok.INT, "a sharding group id").text)
    p.expect(":")
    operand_type = p.parse_type()
    return _op(
        name, results, [operand], {"group_id": group}, [], offset, None, None, [operand_type]
    )


def _manual_computation(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    """``sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...] manual_axes={...}
    (%arg: T) { ... sdy.return ... } : (...) -> ...``; attrs ``in_shardings``,
    ``out_shardings`` (``[<@mesh, ...>, ...]``) and ``manual_axes`` (``{"a", ...}``) as text."""
    p.expect("(")
    operands = p.parse_ssa_list(")")
    attrs: dict[str, Any] = {}
    while not (p.at("(") and p.lex.token_at(p.tok.end).kind is Tok.SSA):
        if p.tok.kind is Tok.EOF:
            raise p.error("expected the block arguments of sdy.manual_computation")
        key = p.advance().text
        if key not in ("in_shardings", "out_shardings", "manual_axes"):
            raise p.error(f"unexpected {key!r} in sdy.manual_computation")
        p.expect("=")
        start = p.tok.start
        close = "]" if p.at("[") else "}"
        depth = 0
        while True:
            tok = p.advance()
            if tok.kind is Tok.EOF:
                raise p.error(f"unterminated {key} of sdy.manual_computation")
            depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(tok.text, 0)
            if depth == 0 and tok.text == close:
                break
        attrs[key] = p.text[start : p.prev_end]
    p.expect("(")
    args: list[tuple[str, MlirType]] = []
    while not p.accept(")"):
        arg = p.expect_kind(Tok.SSA, "a block argument").text
        p.expect(":")
        args.append((arg, p.parse_type()))
        if not p.at(")"):
            p.expect(",")
    region = p.parse_region(args)
    p.expect(":")
    operand_types, result_types = p.parse_function_type()
    return _op(name, results, operands, attrs, result_types, offset, [region], None, operand_types)


def _tensor_cast(p: MlirParser, name: str, results: list[str], offset: int) -> Op:
    operand = p.expect_kind(Tok.SSA).text
    p.expect(":")
    source = p.parse_type()
    p.expect("to")
    return _op(name, results, [operand], {}, [p.parse_type()], offset, None, None, [source])


_SPECIAL: dict[str, PrettyParser] = {
    "stablehlo.slice": _slice,
    "stablehlo.get_tuple_element": _get_tuple_element,
    "stablehlo.custom_call": _custom_call,
    "stablehlo.composite": _composite,
    "func.call": _call,
    "stablehlo.reduce": _reduce,
    "stablehlo.while": _while,
    "stablehlo.convolution": _convolution,
    "chlo.scan": _scan,
    "chlo.top_k": _top_k,
    "stablehlo.optimization_barrier": _optimization_barrier,
    "sdy.sharding_constraint": _sharding_constraint,
    "sdy.sharding_group": _sharding_group,
    "sdy.manual_computation": _manual_computation,
    "tensor.cast": _tensor_cast,
}
