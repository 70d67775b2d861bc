"""StableHLO (MLIR text) syntax: lexing, types, dense literals (bit-exact), attributes, pretty
and generic op forms, and located error messages (STABLEHLO_SYNTAX.md)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from xlapy import dtypes
from xlapy.errors import ParseError, Unimplemented
from xlapy.ir.opcode import Opcode
from xlapy.shape import UNBOUNDED
from xlapy.text.dense import parse_dense_body, round_decimals
from xlapy.text.mlir_parser import MlirParser
from xlapy.text.stablehlo_parser import parse_mlir, parse_stablehlo, split_chunks


def _type(text: str) -> Any:
    return MlirParser(text).parse_type()


def _dense(text: str) -> np.ndarray:
    return np.asarray(MlirParser(text).parse_attr().value)


# ---- types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hlo"),
    [
        ("tensor<f32>", "f32[]"),
        ("tensor<2x3xi8>", "s8[2,3]{1,0}"),
        ("tensor<4xui64>", "u64[4]{0}"),
        ("tensor<3xf8E4M3FN>", "f8e4m3fn[3]{0}"),
        ("tensor<2xcomplex<f32>>", "c64[2]{0}"),
        ("tensor<0x5xi1>", "pred[0,5]{1,0}"),
        ("tensor<2xi4>", "s4[2]{0}"),
        ("!stablehlo.token", "token[]"),
        ("tuple<tensor<f32>, tuple<tensor<2xi32>>>", "(f32[], (s32[2]{0}))"),
        ("tuple<>", "()"),
    ],
)
def test_types(text: str, hlo: str) -> None:
    assert _type(text).to_hlo() == hlo


def test_dynamic_and_bounded_dims() -> None:
    t = _type("tensor<?x5xf32>")
    assert t.dims == (UNBOUNDED, 5)
    assert t.dynamic == (True, False)
    b = _type("tensor<?x2xf32, #stablehlo.bounds<5, ?>>")
    assert b.dims == (5, 2)
    assert b.dynamic == (True, False)
    assert _type("tensor<?xi32, #stablehlo.type_extensions<bounds = [7]>>").dims == (7,)


def test_quantized_tensor_types() -> None:
    t = _type("tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.1:-30, 0.5}>>")
    q = t.element_type
    assert isinstance(q, dtypes.QuantizedType)
    assert (q.storage, q.expressed, q.scales, q.zero_points) == (
        dtypes.S8,
        dtypes.F32,
        (0.1, 0.5),
        (-30, 0),
    )
    assert (q.quantization_dimension, q.storage_min, q.storage_max) == (0, -127, 127)
    assert t.dims == (2,)
    assert (
        t.to_mlir()
        == "tensor<2x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01:-30,5.000000e-01}>>"
    )
    # Equal types are one object; unsigned storage prints as u<N>.
    assert _type("tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.1:-30,0.5:0}>>").element_type is q
    u = _type("tensor<!quant.uniform<u4:bf16, 0.0039188104517319626:3>>")
    assert u.to_mlir() == "tensor<!quant.uniform<u4:bf16, 0.0039188104517319626:3>>"
    assert u.element_type.numpy == dtypes.U4.numpy


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tensor<2x!quant.uniform<f8:f32, 0.1>>", "storage type must be i<N> or u<N>"),
        ("tensor<2x!quant.uniform<i8:i32, 0.1>>", "expressed type must be a floating-point"),
        ("tensor<2x!quant.uniform<i8:f32, -0.1>>", "scales must be positive"),
        ("tensor<2x!quant.uniform<i8:f32, 0.1:300>>", "zero points must lie in the storage"),
        ("tensor<2x!quant.uniform<i8<-200:0>:f32, 0.1>>", "storage range must lie inside"),
        ("tensor<2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>", "quantization dimension 1 is out"),
        ("tensor<3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>", "has size 3 but the type has 2"),
    ],
)
def test_quantized_type_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _type(text)


# ---- dense literals --------------------------------------------------------------------------


def test_dense_forms() -> None:
    np.testing.assert_array_equal(_dense("dense<0> : tensor<2x3xi32>"), np.zeros((2, 3), np.int32))
    np.testing.assert_array_equal(
        _dense("dense<[[1, 2], [4, 8]]> : tensor<2x2xui32>"), np.array([[1, 2], [4, 8]], np.uint32)
    )
    assert _dense("dense<> : tensor<0xf32>").shape == (0,)
    assert _dense("dense<[[]]> : tensor<1x0xf32>").shape == (1, 0)
    np.testing.assert_array_equal(
        _dense("dense<[[0], [1], [1]]> : tensor<3x1xi1>"), np.array([[False], [True], [True]])
    )
    assert _dense("dense<18446744073709551615> : tensor<ui64>") == np.uint64(2**64 - 1)
    assert _dense("dense<-9223372036854775808> : tensor<i64>") == np.int64(-(2**63))
    np.testing.assert_array_equal(
        _dense("dense<[-8, 7, 15]> : tensor<3xi4>"),
        np.array([-8, 7, -1], np.int8).astype(ml_dtypes.int4),
    )


def test_dense_float_specials_as_hex_bits() -> None:
    arr = _dense("dense<[0.000000e+00, 0x7FC00000, 0xFF800000, -0.0]> : tensor<4xf32>")
    assert arr.view(np.uint32).tolist() == [0, 0x7FC00000, 0xFF800000, 0x80000000]
    bf = _dense("dense<[0x7F80, 0xFFFF]> : tensor<2xbf16>")
    assert bf.view(np.uint16).tolist() == [0x7F80, 0xFFFF]
    assert _dense("dense<0x7F> : tensor<f8E4M3FN>").view(np.uint8) == 0x7F


def test_dense_complex() -> None:
    arr = _dense("dense<[(1.000000e+00,2.000000e+00), (3.5, -4.0)]> : tensor<2xcomplex<f32>>")
    np.testing.assert_array_equal(arr, np.array([1 + 2j, 3.5 - 4j], np.complex64))
    splat = _dense("dense<(3.140000e+00, 1.0)> : tensor<4xcomplex<f64>>")
    assert splat.shape == (4,)
    assert splat[3] == 3.14 + 1j


def test_hex_blobs() -> None:
    np.testing.assert_array_equal(
        _dense('dense<"0x0000803F00000040"> : tensor<2xf32>'), np.array([1.0, 2.0], np.float32)
    )
    np.testing.assert_array_equal(
        _dense('dense<"0x0000803F"> : tensor<3xf32>'), np.ones(3, np.float32)
    )  # one element's bytes: a splat
    np.testing.assert_array_equal(
        _dense('dense<"0x01000100"> : tensor<4xi1>'), np.array([True, False, True, False])
    )
    np.testing.assert_array_equal(
        _dense('dense<"0x01020F"> : tensor<3xi4>'),
        np.array([1, 2, -1], np.int8).astype(ml_dtypes.int4),
    )
    c = _dense('dense<"0x0000803F00000040"> : tensor<1xcomplex<f32>>')
    assert c[0] == 1 + 2j
    blob = np.arange(-60, 60, dtype=np.int16)
    text = 'dense<"0x' + blob.tobytes().hex().upper() + '"> : tensor<120xi16>'
    np.testing.assert_array_equal(_dense(text), blob)


@pytest.mark.parametrize("elem", [dtypes.BF16, dtypes.F16, dtypes.F32, dtypes.F8E4M3FN])
def test_decimal_rounding_is_single_and_exact(elem: dtypes.ElementType) -> None:
    """Decimal -> element type in one rounding (ties to even), as APFloat does."""
    from fractions import Fraction

    rng = np.random.default_rng(0)
    values = rng.standard_normal(200) * 10.0 ** rng.integers(-3, 3, 200)
    texts = [f"{v:.12e}" for v in values]
    got = round_decimals(texts, elem)
    # Reference: pick the nearest of the two representable neighbours exactly.
    for text, value in zip(texts, got, strict=True):
        exact = Fraction(text)
        here = Fraction(float(value))
        bits = np.array([value]).view(f"u{elem.numpy.itemsize}")
        for step in (-1, 1):
            other = (bits.astype(np.int64) + step).astype(bits.dtype).view(elem.numpy)[0]
            if np.isfinite(float(other)):
                assert abs(Fraction(float(other)) - exact) >= abs(here - exact)


def test_decimal_tie_settled_by_exact_value() -> None:
    # 1 + 2^-8 + 2^-60 is just above the bf16 tie 1 + 2^-8: as f64 it rounds onto the tie.
    text = "1.0039062500000000008673617379884035"
    assert float(text) == 1 + 2**-8
    got = round_decimals([text], dtypes.BF16)[0]
    assert float(got) == 1 + 2**-7


def test_dense_rejects_integer_for_float_and_out_of_range() -> None:
    with pytest.raises(ParseError, match="decimal integer literal"):
        _dense("dense<1> : tensor<f32>")
    with pytest.raises(ParseError, match="does not fit"):
        _dense("dense<256> : tensor<ui8>")
    with pytest.raises(ParseError, match="shape"):
        _dense("dense<[1, 2, 3]> : tensor<2xi32>")
    with pytest.raises(ValueError, match="bytes"):
        parse_dense_body('"0x0102"', dtypes.S32, (3,))


# ---- structure -------------------------------------------------------------------------------

_PROGRAM = """// RUN: stablehlo-translate --interpret %s
#loc1 = loc("x.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {mhlo.sharding = "{replicated}"} loc("a")) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = call @"<lambda>"(%arg0) : (tensor<3xf32>) -> tensor<3xf32> loc(#loc1)
    return %0 : tensor<3xf32>
  } loc(#loc1)
  func.func private @"<lambda>"(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32> loc(callsite(#loc1 at "f"("y.py":1:2)))
  }
} loc(unknown)
#loc = loc(unknown)
"""


def test_module_functions_locations_and_quoted_symbols() -> None:
    ast = parse_mlir(_PROGRAM)
    assert ast.name == "jit_f"
    assert list(ast.functions) == ["main", "<lambda>"]
    assert ast.functions["<lambda>"].visibility == "private"
    module = parse_stablehlo(_PROGRAM)
    assert module.entry.name == "main"
    assert module.entry.root.opcode is Opcode.CALL
    assert module.entry.root.attrs.to_apply.root.opcode is Opcode.MULTIPLY


def test_split_chunks_and_entry_names() -> None:
    text = "func.func @a() {\n  func.return\n}\n// -----\nfunc.func @b() {\n  return\n}\nfunc.func @c() {\n  return\n}\n"
    chunks = split_chunks(text)
    assert len(chunks) == 2
    second = parse_mlir(text, "<t>", *chunks[1])
    assert second.entry_names() == ["b", "c"]


def test_pretty_and_generic_forms_agree() -> None:
    pretty = """func.func @main(%a: tensor<4x5xf32>, %b: tensor<f32>) -> tensor<4xf32> {
      %0 = stablehlo.reduce(%a init: %b) applies stablehlo.maximum across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    generic = """func.func @main(%a: tensor<4x5xf32>, %b: tensor<f32>) -> tensor<4xf32> {
      %0 = "stablehlo.reduce"(%a, %b) <{dimensions = array<i64: 1>}> ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %1 = "stablehlo.maximum"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%1) : (tensor<f32>) -> ()
      }) : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
      "func.return"(%0) : (tensor<4xf32>) -> ()
    }"""
    for text in (pretty, generic):
        root = parse_stablehlo(text).entry.root
        assert root.opcode is Opcode.REDUCE
        assert root.attrs.dimensions == (1,)
        assert root.attrs.to_apply.root.opcode is Opcode.MAXIMUM


# ---- errors ----------------------------------------------------------------------------------


def test_errors_are_located_with_caret() -> None:
    text = "func.func @main() {\n  %0 = stablehlo.add %x, %x : tensor<f32>\n  return\n}\n"
    with pytest.raises(ParseError) as info:
        parse_stablehlo(text, "f.mlir")
    message = str(info.value)
    assert message.startswith("f.mlir:2:")
    assert "undefined value %x" in message
    assert message.splitlines()[-1].strip() == "^"


def test_syntax_error_location() -> None:
    with pytest.raises(ParseError, match=r"<string>:2:25: error: expected"):
        parse_mlir("func.func @main() {\n  %0 = stablehlo.add %a %b : tensor<f32>\n}")


def test_bad_escape_and_unterminated_location_are_located() -> None:
    """The lexer's rare-token errors (their patterns compile on first use) keep their
    line:column."""
    escape = 'func.func @main() {\n  "stablehlo.custom_call"() {call_target_name = "a\\q"}'
    with pytest.raises(ParseError, match=r"<string>:2:51: error: unknown escape"):
        parse_mlir(escape + " : () -> ()\n  return\n}")
    with pytest.raises(ParseError, match=r"<string>:2:3: error: unterminated loc"):
        parse_mlir('func.func @main() {\n  loc("a" (\n')


def test_unknown_op_is_unimplemented() -> None:
    with pytest.raises(Unimplemented, match=r"unsupported operation stablehlo\.frobnicate"):
        parse_stablehlo('func.func @main() {\n  "stablehlo.frobnicate"() : () -> ()\n  return\n}')
