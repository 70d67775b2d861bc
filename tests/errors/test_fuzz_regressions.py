"""Regression tests for the crashes fuzzing found (``scripts/fuzz.sh``, issue #14): each is the
minimal input of one finding, and each must now raise an ``XlaError`` naming the place (or
work), never another exception."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.errors import InvalidArgument, ParseError


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
