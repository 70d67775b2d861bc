"""Regression tests for the crashes fuzzing found (``scripts/fuzz.sh``, issue #14): each is the
minimal input of one finding, and each must now raise an ``XlaError`` naming the place (or
work), never another exception."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.errors import InvalidArgument, ParseError
from xlapy.indexing.text import parse_indexing_map


def _hlo(body: str, header: str = "HloModule m") -> str:
    return f"{header}\nENTRY e {{\n{body}\n}}\n"


def _mlir(body: str, result: str = "tensor<i32>") -> str:
    return f"func.func @main() -> {result} {{\n{body}\n}}\n"


# ---- HLO text ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["pé", "p٣", "p²"])
def test_hlo_non_ascii_letter_in_a_name_is_located(name):
    # The lexer took 'é' for a letter (str.isalpha) and then failed its ASCII-only pattern.
    with pytest.raises(ParseError, match=r"<string>:3:9: error: unexpected character") as info:
        xlapy.load(_hlo(f"  ROOT {name} = f32[] parameter(0)"))
    assert (info.value.line, info.value.column) == (3, 9)


# ---- StableHLO text ---------------------------------------------------------------------------


def test_mlir_dense_integer_with_leading_zeros():
    # int('0001', 0) refused the decimal MLIR writes with leading zeros.
    text = _mlir(
        "  %0 = stablehlo.constant dense<[0001, -0x10]> : tensor<2xi32>\n"
        "  return %0 : tensor<2xi32>",
        "tensor<2xi32>",
    )
    (result,) = xlapy.run(xlapy.load(text))
    np.testing.assert_array_equal(result, np.array([1, -16], np.int32))


# ---- builder ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [ops.MaxValue, ops.MinValue, ops.MaxFiniteValue, ops.MinFiniteValue])
@pytest.mark.parametrize("type_", ["token", "tuple", "opaque", "c64"])
def test_builder_limits_of_types_without_them(fn, type_):
    # MaxValue of a token asserted that the type had a numpy dtype.
    with pytest.raises(InvalidArgument, match=rf"^{fn.__name__}: type has no .* value; got"):
        fn(xlapy.XlaBuilder("m"), type_)


@pytest.mark.parametrize("value", [[[1, 2], [3]], "abc", [object()]])
def test_builder_constant_from_array_refuses_ragged_and_non_numbers(value):
    # A ragged list reached numpy's ValueError.
    with pytest.raises(InvalidArgument, match=r"^ConstantFromArray: value must be a number"):
        ops.ConstantFromArray(xlapy.XlaBuilder("m"), value)


def test_builder_constant_from_array_keeps_the_dtype():
    b = xlapy.XlaBuilder("m")
    (result,) = xlapy.run(b.build(ops.ConstantFromArray(b, np.array([1, 2], np.int8))))
    np.testing.assert_array_equal(result, np.array([1, 2], np.int8))


# ---- deep nesting -----------------------------------------------------------------------------

_DEEP = 100_000


@pytest.mark.parametrize(
    ("what", "text"),
    [
        ("hlo tuple shape", _hlo(f"  ROOT p = {'(' * _DEEP}f32[]{')' * _DEEP} parameter(0)")),
        ("hlo literal", _hlo(f"  ROOT c = f32[1] constant({'{' * _DEEP}1{'}' * _DEEP})")),
        (
            "mlir dense",
            _mlir(f"  %0 = stablehlo.constant dense<{'[' * _DEEP}1{']' * _DEEP}> : tensor<i32>"),
        ),
        (
            "mlir tuple type",
            "func.func @main(%a: " + "tuple<" * _DEEP + "tensor<f32>" + ">" * _DEEP + ") {\n}\n",
        ),
        (
            "mlir attribute",
            "func.func @main() attributes {x = " + "[" * _DEEP + "]" * _DEEP + "} {\n}\n",
        ),
    ],
)
def test_deep_nesting_is_a_located_parse_error(what, text):
    # The recursive-descent parsers exhausted Python's recursion limit (RecursionError).
    with pytest.raises(ParseError, match=r"brackets nested more than 128 levels deep") as info:
        xlapy.load(text)
    assert info.value.line in (1, 2, 3)
    assert info.value.column > 128


def test_deep_nesting_of_an_indexing_map_is_a_located_parse_error():
    text = "(d0) -> (" + "(" * _DEEP + "d0" + ")" * _DEEP + "), domain: d0 in [0, 3]"
    with pytest.raises(ParseError, match=r"<m>:1:137: error: brackets nested more than 128"):
        parse_indexing_map(text, "<m>")


def test_a_long_chain_of_unary_minus_in_an_indexing_map():
    # One recursion per '-' exhausted the recursion limit; the chain is now a loop.
    odd = parse_indexing_map("(d0) -> (" + "-" * 5001 + "d0), domain: d0 in [0, 3]")
    even = parse_indexing_map("(d0) -> (" + "-" * 5000 + "d0), domain: d0 in [0, 3]")
    assert str(odd) == str(parse_indexing_map("(d0) -> (-d0), domain: d0 in [0, 3]"))
    assert str(even) == str(parse_indexing_map("(d0) -> (d0), domain: d0 in [0, 3]"))


def test_nesting_below_the_bound_still_parses_and_runs():
    # 60 nested stablehlo.case regions (two brackets each): well within the bound.
    inner = "stablehlo.return %a : tensor<f32>"
    for i in range(60):
        inner = (
            f'%r{i} = "stablehlo.case"(%i) ({{\n{inner}\n}}) : (tensor<i32>) -> tensor<f32>\n'
            f"stablehlo.return %r{i} : tensor<f32>"
        )
    body = inner.replace("stablehlo.return %r59", "func.return %r59")
    text = f"func.func @main(%i: tensor<i32>, %a: tensor<f32>) -> tensor<f32> {{\n{body}\n}}\n"
    (result,) = xlapy.run(xlapy.load(text), np.int32(0), np.float32(2.5))
    assert result == np.float32(2.5)
