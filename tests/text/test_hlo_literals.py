"""HLO literal syntax for every element type: exact printing (xla/util.cc RoundTripFpToString),
parsing with XLA's range rules, nesting, elision and tuples; checked against jaxlib."""

from __future__ import annotations

import math
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from xlapy import dtypes
from xlapy.errors import ParseError
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.literal_text import (
    ElidedLiteral,
    format_elements,
    format_literal,
    format_value,
    parse_literal,
)


def fmt(values, type_name: str) -> list[str]:
    etype = dtypes.from_name(type_name)
    return format_elements(np.array(values, dtype=np.float64).astype(etype.numpy), etype)


def parse(text: str, shape: str) -> np.ndarray:
    from xlapy.text.hlo_parser import parse_shape

    return parse_literal(text, parse_shape(shape)).value


@pytest.mark.parametrize(
    ("type_name", "value", "text"),
    [
        ("f32", 0.1, "0.1"),
        ("f32", 1e10, "1e+10"),
        ("f32", 3.4028234663852886e38, "3.40282347e+38"),
        ("f32", 1.401298464324817e-45, "1.4013e-45"),
        ("f32", 16777217.0, "16777216"),
        ("f64", 1e10, "10000000000"),
        ("f64", -0.00013871931833623122, "-0.00013871931833623122"),
        ("f64", 0.1, "0.1"),
        ("f16", 0.1, "0.099976"),
        ("bf16", 0.1, "0.1001"),
        ("bf16", 1e-7, "1.001e-07"),
        ("f8e4m3fn", 0.1, "0.102"),
        ("f8e5m2", 0.1, "0.094"),
        ("f8e3m4", 0.1, "0.0938"),
        ("f8e8m0fnu", 0.1, "0.12"),
        ("f4e2m1fn", 7.0, "6"),
        ("f6e2m3fn", 0.1, "0.125"),
        ("f6e3m2fn", 0.1, "0.12"),
        ("f32", -0.0, "-0"),
        ("f32", 2.0, "2"),
        ("f32", math.inf, "inf"),
        ("f32", -math.inf, "-inf"),
        ("f32", math.nan, "nan"),
        ("f8e4m3fnuz", math.nan, "-nan"),
        ("f8e8m0fnu", math.nan, "nan"),
        ("f8e4m3fn", math.inf, "nan"),
    ],
)
def test_float_printing(type_name: str, value: float, text: str):
    assert fmt([value], type_name) == [text]


@pytest.mark.parametrize(
    ("type_name", "bits", "text"),
    [
        ("f32", 0x7F801234, "nan(0x1234)"),
        ("f32", 0xFFC00000, "-nan"),
        ("f32", 0xFF800003, "-nan(0x3)"),
        ("f64", 0x7FF0000000000001, "nan(0x1)"),
        ("f16", 0x7C01, "nan(0x1)"),
        ("bf16", 0x7F81, "nan(0x1)"),
        ("f8e5m2", 0x7D, "nan(0x1)"),
        ("f8e5m2", 0x7E, "nan"),
    ],
)
def test_nan_payloads_print_and_parse(type_name: str, bits: int, text: str):
    etype = dtypes.from_name(type_name)
    array = np.array([bits], dtype=f"u{etype.numpy.itemsize}").view(etype.numpy)
    assert format_elements(array, etype) == [text]
    back = parse("{" + text + "}", f"{type_name}[1]")
    assert back.view(f"u{etype.numpy.itemsize}")[0] == bits


@pytest.mark.parametrize(
    ("shape", "text"),
    [
        ("f32[2,3]", "{ { 1, 2, 3 }, { 4, 5, 6 } }"),
        ("s32[2,2,2]", "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }"),
        ("f32[1,1,1]", "{ { {1} } }"),
        ("c128[2,1]", "{ {(1, 2)}, {(3, 4)} }"),
        ("f32[0]", "{}"),
        ("f32[2,0]", "{ {}, {} }"),
        ("f32[0,3]", "{  }"),
        ("f32[6]", "{1.5, -inf, nan, inf, 0, -0}"),
        ("pred[3]", "{1, 0, 1}"),
        ("pred[]", "true"),
        ("s4[4]", "{-8, -1, 0, 7}"),
        ("u4[2]", "{0, 15}"),
        ("s2[4]", "{-2, -1, 0, 1}"),
        ("u2[2]", "{0, 3}"),
        ("s1[2]", "{-1, 0}"),
        ("u1[2]", "{0, 1}"),
        ("u64[2]", "{0, 18446744073709551615}"),
        ("s64[2]", "{-9223372036854775808, 9223372036854775807}"),
        ("c64[]", "(1.5, -2)"),
        ("f8e4m3b11fnuz[2]", "{0.102, -30}"),
    ],
)
def test_nested_literal_round_trip(shape: str, text: str):
    from xlapy.text.hlo_parser import parse_shape

    parsed_shape = parse_shape(shape)
    literal = parse_literal(text, parsed_shape)
    assert literal.value.dtype == parsed_shape.element_type.numpy
    assert literal.value.shape == tuple(parsed_shape.dims)
    assert format_literal(literal) == text


def test_values_are_exact():
    assert parse("{1, 2, 3}", "s8[3]").tolist() == [1, 2, 3]
    assert parse("{ {1, 2}, {3, 4} }", "f32[2,2]").tolist() == [[1, 2], [3, 4]]
    assert parse("{-1, 5}", "u64[2]").tolist() == [2**64 - 1, 5]  # u64 keeps 64-bit patterns
    assert parse("{true, 0, 1, 2}", "pred[4]").tolist() == [True, False, True, True]
    assert np.signbit(parse("-0", "f32[]"))  # "-0" reads as negative zero
    assert np.signbit(parse("-0.0", "f64[]"))
    assert parse("0.1", "bf16[]") == ml_dtypes.bfloat16(0.1)
    assert parse("65519", "f16[]") == np.float16(65504)  # rounds to the largest finite
    assert parse("464", "f8e4m3fn[]") == ml_dtypes.float8_e4m3fn(448)
    assert parse("100", "f4e2m1fn[]") == ml_dtypes.float4_e2m1fn(6)  # saturates, as XLA
    c = parse("(nan, 1)", "c64[]")
    assert np.isnan(c.real)
    assert np.isnan(c.imag)  # XLA: a NaN real part makes the imaginary part NaN too


# XLA's parser skips every comma, and a lone element where an array belongs sets the first
# element (the rest are zeros): ``bf16[17, 22] constant(1)`` is in XLA's own indexing tests.
LENIENT = [
    ("1", "bf16[3,2]", [[1, 0], [0, 0], [0, 0]]),
    ("true", "pred[2]", [True, False]),
    ("-inf", "f32[2]", [-np.inf, 0]),
    ("7", "s4[1,1,2]", [[[7, 0]]]),
    ("{1 2 3}", "f32[3]", [1, 2, 3]),
    ("{,1,,2,3,}", "s32[3]", [1, 2, 3]),
    ("{ {1, 2}{3, 4}, }", "f32[2,2]", [[1, 2], [3, 4]]),
]


@pytest.mark.parametrize(("text", "shape", "values"), LENIENT)
def test_literal_leniency_of_xla(text: str, shape: str, values: list[object]) -> None:
    got = parse(text, shape)
    assert got.shape == np.asarray(values).shape
    assert got.astype(np.float64).tolist() == np.asarray(values, np.float64).tolist()


def test_constant_of_a_lone_element_in_a_module() -> None:
    import xlapy

    module = xlapy.load("HloModule m\nENTRY e {\n  ROOT c1 = bf16[17, 22] constant(1)\n}\n")
    expected = np.zeros((17, 22), ml_dtypes.bfloat16)
    expected[0, 0] = 1
    got = xlapy.run(module, platform="interpreter")
    assert got[0].dtype == expected.dtype
    assert got[0].tobytes() == expected.tobytes()


@pytest.mark.oracle
def test_literal_leniency_as_xla_reads_it() -> None:
    """XLA reads each lenient literal as we do (it prints the values it read in full)."""
    from xlapy.text.hlo_parser import parse_shape

    texts = [
        f"HloModule m\nENTRY e {{\n  ROOT c = {shape} constant({text})\n}}\n"
        for text, shape, _ in LENIENT
    ]
    proc = subprocess.run([sys.executable, "-c", _XLA], input="\0".join(texts),
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    for (text, shape, _), xla in zip(LENIENT, proc.stdout.split("\0"), strict=True):
        assert format_literal(parse_literal(text, parse_shape(shape))) == xla, (text, shape)


@pytest.mark.parametrize(
    ("text", "shape", "message"),
    [
        ("{8}", "s4[1]", "value 8 is out of range for s4; the range is [-8, 7]"),
        ("{1}", "s1[1]", "out of range for s1"),
        ("{-1}", "u32[1]", "out of range for u32"),
        ("{65520}", "f16[1]", "out of range for f16"),
        ("{61440}", "f8e5m2[1]", "out of range for f8e5m2"),
        ("{1.5}", "s32[1]", "expected an integer for s32"),
        ("{2.5}", "pred[1]", "expected true, false, 1 or 0"),
        ("{true}", "f32[1]", "expected a number for f32"),
        ("{nan(0x1)}", "f8e4m3fn[1]", "does not support NaN payloads"),
        ("{nan(0x80)}", "f8e5m2[1]", "NaN payload 0x80 is out of range"),
        ("{1, 2, 3}", "f32[2]", "expected 2 elements"),
        ("{ {1, 2}, {3} }", "f32[2,2]", "expected 2 elements in the [1]"),
        ("{1}", "c64[1]", "expected a complex element"),
        ("{0}", "f8e8m0fnu[1]", "out of range for f8e8m0fnu"),
        ("{1, 2} x", "f32[2]", "unexpected text after the literal"),
        ("{1, 2, 3, 4}", "f32[2,2]", "expected '{' for the nested array at depth 1"),
        ("{1 x}", "f32[2]", "expected a f32 element, found 'x'"),
        ("1", "f32[0]", "expected '{' to start a literal of shape f32[0]"),
        ("(1, 2)", "c64[2]", "expected '{' to start a literal of shape c64[2]"),
        ("300", "s8[2]", "value 300 is out of range for s8"),
    ],
)
def test_literal_errors(text: str, shape: str, message: str):
    with pytest.raises(ParseError) as info:
        parse(text, shape)
    assert message in info.value.message


def test_elision_and_tuples():
    big = Literal.from_numpy(np.arange(11, dtype=np.int32))
    small = Literal.from_numpy(np.arange(10, dtype=np.int32))
    assert format_literal(big, elide=True) == "{...}"
    assert format_literal(small, elide=True) == "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}"
    shape = Shape.tuple_of([Shape.scalar(dtypes.F32), Shape.array(dtypes.S32, [2])])
    value = (np.array(1.5, np.float32), np.array([1, 2], np.int32))
    assert format_value(value, shape) == "( 1.5, {1, 2} )"
    assert format_value(value, shape, elide=True) == "{...}"
    parsed = parse_literal("( 1.5, {1, 2} )", shape)
    assert parsed == Literal(shape, value)
    elided = parse_literal("{...}", Shape.array(dtypes.F32, [3, 4]))
    assert isinstance(elided, ElidedLiteral)
    assert elided.elided
    assert format_literal(elided) == "{...}"


# ---- against jaxlib -----------------------------------------------------------------------

_XLA = """
import sys, jaxlib._hlo as h
out = []
for text in sys.stdin.read().split("\\0"):
    s = h.hlo_module_from_text(text).to_string(h.HloPrintOptions.short_parsable())
    out.append(s.split("constant(")[1].split(")\\n")[0])
sys.stdout.write("\\0".join(out))
"""


def _random_values(etype: dtypes.ElementType, rng: np.random.Generator, n: int) -> np.ndarray:
    if etype.is_pred:
        return rng.integers(0, 2, n).astype(bool)
    if etype.is_integer:
        if etype.bits == 64:
            return rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True).view(etype.numpy)
        lo, hi = -(1 << (etype.bits - 1)), (1 << (etype.bits - 1)) - 1
        if not etype.is_signed:
            lo, hi = 0, (1 << etype.bits) - 1
        return rng.integers(lo, hi, n, endpoint=True).astype(np.int64).astype(etype.numpy)
    if etype.is_complex:
        scale = 10.0 ** rng.integers(-30, 30, n)
        return (rng.standard_normal(n) * scale + 1j * rng.standard_normal(n)).astype(etype.numpy)
    width = etype.numpy.itemsize
    bits = rng.integers(0, 1 << min(etype.bits, 63), n, dtype=np.uint64).astype(f"u{width}")
    return bits.view(etype.numpy)


@pytest.mark.oracle
def test_every_type_prints_exactly_as_xla():
    """Random bit patterns of every array type: XLA reads our text and prints the same text
    (except that XLA reads "-0" as +0, see HLO_TEXT.md §5), and we read it back bitwise."""
    pytest.importorskip("jaxlib")
    rng = np.random.default_rng(7)
    texts, ours = [], []
    types = list(dtypes.ARRAY_TYPES)
    for etype in types:
        values = _random_values(etype, rng, 64)
        items = format_elements(values, etype)
        ours.append(items)
        body = "{" + ", ".join(items) + "}"
        texts.append(f"HloModule m\nENTRY e {{\n  ROOT c = {etype.name}[64] constant({body})\n}}\n")
        back = parse_literal(body, Shape.array(etype, [64]))
        assert format_elements(back.value, etype) == items, etype.name
    proc = subprocess.run([sys.executable, "-c", _XLA], input="\0".join(texts),
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    for etype, items, xla in zip(types, ours, proc.stdout.split("\0"), strict=True):
        expected = ["0" if t == "-0" else t for t in items]
        expected = [t.replace("(-0,", "(0,").replace(", -0)", ", 0)") for t in expected]
        assert xla == "{" + ", ".join(expected) + "}", etype.name
