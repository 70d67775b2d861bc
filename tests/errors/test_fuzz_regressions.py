"""Regression tests for the crashes fuzzing found (``scripts/fuzz.sh``, issue #14): each is the
minimal input of one finding, and each must now raise an ``XlaError`` naming the place (or
work), never another exception."""

from __future__ import annotations

import re
import zipfile

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.cli.files import load_npz
from xlapy.errors import (
    EvaluationError,
    InvalidArgument,
    ParseError,
    VerificationError,
    XlaError,
)
from xlapy.indexing.per_op import output_to_input
from xlapy.indexing.text import parse_indexing_map
from xlapy.text.hlo_printer import print_hlo
from xlapy.text.stablehlo_printer import print_stablehlo


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
    (result,) = xlapy.run(xlapy.load(text), platform="interpreter")
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
    (result,) = xlapy.run(
        b.build(ops.ConstantFromArray(b, np.array([1, 2], np.int8))), platform="interpreter"
    )
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
    (result,) = xlapy.run(xlapy.load(text), np.int32(0), np.float32(2.5), platform="interpreter")
    assert result == np.float32(2.5)


# ---- .npz inputs ------------------------------------------------------------------------------


def _npy(header: dict, body: bytes = b"") -> bytes:
    """A version 1.0 .npy member with ``header`` written as given (true or not)."""
    text = repr(header).encode()
    pad = 64 - (10 + len(text) + 1) % 64
    size = (len(text) + pad + 1).to_bytes(2, "little")
    return b"\x93NUMPY\x01\x00" + size + text + b" " * pad + b"\n" + body


def _npz(tmp_path, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> str:
    path = tmp_path / "inputs.npz"
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return str(path)


def _f32(shape: object, body: bytes = b"") -> bytes:
    return _npy({"descr": "<f4", "fortran_order": False, "shape": shape}, body)


@pytest.mark.parametrize(
    ("member", "message"),
    [
        # 10^20 elements: numpy's element count overflowed (OverflowError).
        (
            _f32((10**20,)),
            r"entry 'a' is corrupt: its header claims float32\[100000000000000000000\]",
        ),
        # 373 GiB claimed by a 128-byte entry: numpy allocated it before reading.
        (
            _f32((100_000, 1_000_000)),
            r"claims float32\[100000, 1000000\] \(400000000000 bytes\) "
            r"but it holds 0 bytes",
        ),
        (_f32((4,), b"\0" * 8), r"claims float32\[4\] \(16 bytes\) but it holds 8 bytes"),
        (_f32((-3,)), r"entry 'a' has a negative dimension: \[-3\]"),
        (_npy({"descr": "|V0", "fortran_order": False, "shape": (10**20,)}), r"holds no bytes"),
        (_npy({"descr": "|O", "fortran_order": False, "shape": (1,)}, b"\x80\x04N."), "pickled"),
        (
            _npy({"descr": [("x", "<f4")], "fortran_order": False, "shape": (1,)}, b"\0" * 4),
            r"has dtype \[\('x', '<f4'\)\], not a numeric type",
        ),
        (
            _npy({"descr": "|b1", "fortran_order": False, "shape": (2,)}, b"\x01\x07"),
            "a bool array holding bytes other than 0 and 1",
        ),
        (b"hello", r"entry 'a' is not a numpy array"),
    ],
)
def test_npz_entry_headers_are_checked_before_reading(tmp_path, member, message):
    path = _npz(tmp_path, {"a.npy": member})
    with pytest.raises(InvalidArgument, match=rf"^--inputs {re.escape(path)}: .*{message}"):
        load_npz(path, "--inputs")


def test_npz_arrays_above_the_memory_budget_are_refused_unread(tmp_path):
    path = _npz(tmp_path, {"a.npy": _f32((4,), b"\0" * 16), "b.npy": _f32((4,), b"\0" * 16)})
    assert set(load_npz(path, "--inputs", max_bytes=32)) == {"a", "b"}
    with pytest.raises(
        InvalidArgument,
        match=r"entry 'b' \(float32\[4\], 16 bytes\) takes the "
        r"arrays past the memory budget of 24 bytes",
    ):
        load_npz(path, "--inputs", max_bytes=24)


def test_npz_corrupt_zip_bytes(tmp_path):
    # Flipped bytes of a deflated archive gave NotImplementedError (an unknown compression
    # method), zlib.error or a CRC failure from inside numpy.
    good = np.arange(64, dtype=np.float64)
    path = tmp_path / "good.npz"
    np.savez_compressed(path, a=good)
    data = path.read_bytes()
    np.testing.assert_array_equal(load_npz(str(path), "--inputs")["a"], good)
    method = data.index(b"PK\x01\x02") + 10  # the central directory's compression method
    for offset, byte in [(method, 0x63), (len(data) // 3, 0xFF), (len(data) // 3, 0x01)]:
        bad = bytearray(data)
        bad[offset] ^= byte
        path.write_bytes(bytes(bad))
        with pytest.raises(InvalidArgument, match=r"^--inputs .*good\.npz: "):
            load_npz(str(path), "--inputs")
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidArgument, match=r"not an \.npz archive of numpy arrays"):
        load_npz(str(path), "--inputs")


def test_npz_entry_named_twice(tmp_path):
    member = _f32((1,), b"\0" * 4)
    path = _npz(tmp_path, {"a.npy": member, "a": member})
    with pytest.raises(InvalidArgument, match=r"entry 'a' appears twice in the archive"):
        load_npz(path, "--inputs")


# ---- device counts and replica groups ---------------------------------------------------------

_ALL_REDUCE = """HloModule m{header}
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}}
ENTRY e {{
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={groups}, to_apply=add
}}
"""


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (", replica_count=2147483648", r"1:28: error: replica_count must be in \[1, 2147483647\]"),
        (", replica_count=0", r"1:28: error: replica_count must be in \[1, 2147483647\]; got 0"),
        (", num_partitions=18446744073709551615", r"1:29: error: num_partitions must be in"),
    ],
)
def test_hlo_module_header_device_counts_are_range_checked(header, message):
    # replicas=2**31 was accepted and hung building per-device lists.
    with pytest.raises(ParseError, match=message):
        xlapy.load(_ALL_REDUCE.format(header=header, groups="{}"))


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        # 2^62 ids: numpy refused the array (ValueError); 2^31 ids hung expanding the list.
        ("[2147483648,2147483648]<=[4611686018427387904]", r"4611686018427387904 ids; at most"),
        ("[1,2147483648]<=[2147483648]", r"2147483648 ids; at most 1048576 are allowed"),
        ("[1,1]<=[1]T(5)", r"T\(5\) is not a permutation of the 1 reshape dims"),  # AxisError
        ("[2,2]<=[3]", r"2 x 2 ids do not match the 3 ids of the reshape dims"),
        ("[-1,-4]<=[4]", r"sizes must not be negative"),
        ("mesh['a'=4294967296,'b'=4294967296] {'a'}", r"the mesh has 18446744073709551616 devices"),
        ("mesh['a'=2,'b'=2], device_ids=([2,2]<=[-2,-2]) {'a'}", r"iota .* is inconsistent"),
    ],
)
def test_hlo_replica_group_lists_are_checked_before_expansion(groups, message):
    with pytest.raises(ParseError, match=rf"<string>:9:\d+: error: .*{message}"):
        xlapy.load(_ALL_REDUCE.format(header="", groups=groups))


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ("mhlo.num_replicas = 18446744073709551616 : i64", r"mhlo.num_replicas must be in \[1, "),
        (
            "mhlo.num_partitions = 0 : i32",
            r"mhlo.num_partitions must be in \[1, 2147483647\]; got 0",
        ),
        ('mhlo.num_replicas = "two"', r"mhlo.num_replicas must be an integer; got 'two'"),
    ],
)
def test_mlir_module_device_counts_are_range_checked(attrs, message):
    # An out-of-range count hung in per-device lists; a bad one was silently ignored.
    text = (
        f"module @m attributes {{{attrs}}} {{\n"
        "  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
        "    return %a : tensor<f32>\n  }\n}\n"
    )
    with pytest.raises(ParseError, match=rf"<string>:1:1: error: module attribute {message}"):
        xlapy.load(text)


_MLIR_ALL_REDUCE = """func.func @main(%a: tensor<f32>) -> tensor<f32> {{
  %0 = "stablehlo.all_reduce"(%a) ({{
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{{attrs}}} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}}
"""


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        # A rank-0 replica_groups tensor: IndexError in the all_reduce lowering.
        ("replica_groups = dense<0> : tensor<i64>", r"replica_groups .*; got tensor<i64>"),
        ("replica_groups = dense<0> : tensor<1x1x1xi64>", r"replica_groups .*; got tensor<1x1"),
        ("replica_groups = 3", r"replica_groups must be a 2-D integer tensor .*; got 3"),
        # A non-integer channel handle: ValueError from int().
        (
            'channel_handle = #stablehlo.channel_handle<handle = "x", type = 0>',
            r"channel_handle handle must be an integer; got 'x'",
        ),
        ("channel_handle = 5", r"channel_handle must be #stablehlo.channel_handle<handle = N"),
    ],
)
def test_mlir_collective_attributes_are_checked(attrs, message):
    with pytest.raises(
        InvalidArgument, match=rf"<string>:2:3: error: stablehlo.all_reduce: {message}"
    ):
        xlapy.load(_MLIR_ALL_REDUCE.format(attrs=attrs))


def test_mlir_replica_groups_padding_is_only_minus_one():
    text = _MLIR_ALL_REDUCE.format(attrs="replica_groups = dense<[[0, -5]]> : tensor<1x2xi64>")
    with pytest.raises(
        InvalidArgument, match=r"the ids of replica_groups must be 0\.\.1; got \{\{0,-5\}\}"
    ):
        xlapy.load(text)
    padded = _MLIR_ALL_REDUCE.format(attrs="replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>")
    assert xlapy.run(xlapy.load(padded), np.float32(3), platform="interpreter") == [np.float32(3)]


# ---- indexing analysis ------------------------------------------------------------------------

_CALL_OF_CONDITIONAL = _hlo(
    "  x = f32[2] parameter(0)\n  ROOT c = f32[2] call(x), to_apply=f",
    """HloModule m
br {
  p = () parameter(0)
  ROOT c = f32[2] constant({1, 2})
}
f {
  a = f32[2] parameter(0)
  i = s32[] constant(0)
  t = () tuple()
  ROOT r = f32[2] conditional(i, t, t), branch_computations={br, br}
}""",
)


def test_indexing_through_a_tuple_read_whole():
    # Composing a call's maps asked the empty tuple for its element 0 (IndexError): a tuple
    # operand read whole (not through get-tuple-element) reaches everything undefined.
    call = xlapy.load(_CALL_OF_CONDITIONAL).entry.root
    assert output_to_input(call, 0).to_string() == "operand id = 0"  # x is never read
    conditional = call.attrs.to_apply.root
    assert output_to_input(conditional, 0).to_string().count("unknown indexing") == 3


# ---- found by scripts/fuzz.sh -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ("f32[18446744073709551615]", r"3:12: error: dimension 18446744073709551615 is out of"),
        ("f32[4294967296,4294967296]", r"has 2\^63 bytes or more"),
        ("f32[<=9223372036854775808]", r"dimension 9223372036854775808 is out of the int64"),
    ],
)
def test_hlo_array_sizes_beyond_int64_are_located(shape, message):
    with pytest.raises(ParseError, match=message):
        xlapy.load(_hlo(f"  ROOT p = {shape} parameter(0)"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # OverflowError from numpy's product of the dims of a 10^20-element splat.
        (
            "%0 = stablehlo.constant dense<1.0> : tensor<100000000000000000000xf64>",
            r"dimension 100000000000000000000 is out of the int64 range",
        ),
        # A 373 GiB splat was allocated while the text was read.
        (
            "%0 = stablehlo.constant dense<1.0> : tensor<100000000000xf32>",
            r"dense splat: a literal of f32\[100000000000\] takes 400000000000 bytes, above",
        ),
        (
            '%0 = stablehlo.constant dense<"0x0000803F"> : tensor<100000000000xf32>',
            r"dense splat: a literal of f32\[100000000000\] takes 400000000000 bytes",
        ),
        # An integer for a float attribute: an InvalidArgument naming no place.
        (
            '%0 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>, n = 1 : f64}'
            " : () -> tensor<f32>",
            r"unexpected decimal integer literal 1 for a floating point",
        ),
    ],
)
def test_mlir_literals_and_types_are_bounded_and_located(text, message):
    program = _mlir(
        f"  {text}\n  %1 = stablehlo.constant dense<1> : tensor<i32>\n  return %1 : tensor<i32>"
    )
    with pytest.raises(ParseError, match=rf"<string>:2:\d+: error: {message}"):
        xlapy.load(program)


def test_hlo_elided_constant_too_large_to_hold():
    with pytest.raises(ParseError, match=r"3:39: error: elided constant: a literal of "):
        xlapy.load(_hlo("  ROOT c = f32[100000000000] constant({...})"))


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        (
            "split_dimension = 5 : i64, concat_dimension = 0 : i64, split_count = 1 : i64",
            r"\[C1\] split_dimension must be a dimension of the operand tensor<4xf32>; got 5",
        ),
        (
            "split_dimension = 0 : i64, concat_dimension = -1 : i64, split_count = 1 : i64",
            r"\[C3\] concat_dimension must be a dimension of the operand",
        ),
        (
            "split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 0 : i64",
            r"\[C4\] split_count must be positive; got 0",
        ),
    ],
)
def test_mlir_all_to_all_dimensions_are_checked(attrs, message):
    # An out-of-range split_dimension was an IndexError in the lowering.
    text = (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        f'  %0 = "stablehlo.all_to_all"(%a) {{{attrs}}} : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    with pytest.raises(
        InvalidArgument, match=rf"<string>:2:3: error: stablehlo.all_to_all: {message}"
    ):
        xlapy.load(text)


def test_names_that_hlo_text_cannot_hold_are_sanitized_and_round_trip():
    # A function @"<lambda>" (or a builder named 'a b<c>') printed HLO that did not load.
    b = xlapy.XlaBuilder("a b<c>")
    x = ops.Parameter(b, 0, "f32[]", name="x y")
    module = b.build(ops.Neg(x))
    text = print_hlo(module)
    assert text.startswith('HloModule "a b<c>", ')
    assert "ENTRY %a_b_c_ (x_y: f32[]) -> f32[]" in text
    again = xlapy.load(text)
    assert again.name == "a b<c>"
    assert print_hlo(again) == text
    mlir = (
        'func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = func.call @"<lambda>"(%a)'
        " : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n"
        'func.func private @"<lambda>"(%a: tensor<f32>) -> tensor<f32> {\n'
        "  %0 = stablehlo.negate %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    )
    lowered = print_hlo(xlapy.load(mlir))
    assert "to_apply=%_lambda_" in lowered
    assert xlapy.run(xlapy.load(lowered), np.float32(2), platform="interpreter") == [np.float32(-2)]


def test_async_start_of_an_op_with_its_own_start_op_prints_generically():
    # Sugar printed async-start{all-reduce} as 'all-reduce-start', which loads as that op.
    text = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
wrapped {
  x = f32[6] parameter(0)
  ROOT r = f32[6] all-reduce(x), replica_groups={}, to_apply=add
}
ENTRY e {
  p = f32[6] parameter(0)
  s = ((f32[6]), f32[6], s32[]) async-start(p), calls=wrapped
  ROOT d = f32[6] async-done(s)
}
"""
    printed = print_hlo(xlapy.load(text))
    assert "async-start(%p), calls=%wrapped" in printed
    value = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(
        xlapy.run(xlapy.load(printed), value, platform="interpreter")[0], value
    )


@pytest.mark.parametrize(
    "op",
    [
        "f32[24] all-gather(p), replica_groups={}, dimensions={0}",
        "(f32[8], f32[24]) all-gather-start(p), replica_groups={}, dimensions={0}",
        "f32[2] reduce-scatter(p), replica_groups={}, dimensions={0}, to_apply=add",
    ],
)
def test_collective_sized_for_other_groups_is_a_clear_error(op):
    # Declared for groups of 3 or 4, run on 1 device: "internal error: the evaluator produced".
    text = _ALL_REDUCE.format(header="", groups="{}").replace(
        "  p = f32[] parameter(0)\n  ROOT r = f32[] all-reduce(p), replica_groups={}, to_apply=add",
        f"  p = f32[8] parameter(0)\n  ROOT r = {op}",
    )
    with pytest.raises(
        EvaluationError,
        match=r"r: the declared result .* is sized for groups "
        r"of another size; this run's group \[0\] gives f32\[8\]",
    ):
        xlapy.run(xlapy.load(text), np.ones(8, np.float32), platform="interpreter")


def test_builder_errors_name_the_function():
    b = xlapy.XlaBuilder("m")
    x = ops.Parameter(b, 0, "f32[]")
    with pytest.raises(InvalidArgument, match=r"^AfterAll: tokens\[1\] must be an XlaOp; got"):
        ops.AfterAll(x, b)
    with pytest.raises(InvalidArgument, match=r"^Neg: operand must be a XlaOp; got int 3"):
        ops.Neg(3)


def test_run_with_too_few_arguments_names_run():
    b = xlapy.XlaBuilder("m")
    module = b.build(ops.Neg(ops.Parameter(b, 0, "f32[]")))
    with pytest.raises(InvalidArgument, match=r"^run: m takes 1 arguments \(f32\[\]\); got 0"):
        xlapy.run(module, platform="interpreter")


def test_int_attributes_beyond_int64_are_refused_where_they_are_made():
    # Recv(builder, shape, 10**20) printed a channel_id no parser reads back.
    b = xlapy.XlaBuilder("m")
    with pytest.raises(InvalidArgument, match=r"recv: attribute channel_id must hold 64-bit"):
        ops.Recv(b, "f32[]", 10**20)
    text = _hlo(
        "  p = f32[2] parameter(0)\n"
        "  ROOT t = f32[2] transpose(p), dimensions={18446744073709551615}"
    )
    with pytest.raises(ParseError, match=r"4:19: error: transpose t: attribute dimensions must"):
        xlapy.load(text)


def test_indexing_constant_mod_and_floordiv_by_negative_fold_as_evaluated():
    # '1 mod -2' stayed unfolded and simplification dropped its unsatisfiable constraint:
    # the simplified map had a point where the original had none.
    text = "(){rt0} -> (), domain: rt0 in [0, 0], (1 mod -2) in [0, 0]"
    original = parse_indexing_map(text)
    assert original.image() == set()
    assert original.simplify().remove_unused_symbols().is_known_empty
    assert str(
        parse_indexing_map("(d0) -> (7 floordiv -2, 7 mod -2), domain: d0 in [0, 0]")
    ) == str(parse_indexing_map("(d0) -> (-4, -1), domain: d0 in [0, 0]"))


def test_hlo_literal_far_smaller_than_its_shape_is_refused_without_building_its_skeleton():
    # s32[4294967296] constant({1, 2, 3, 4}) built a 4 GiB skeleton string to compare with.
    with pytest.raises(
        ParseError, match=r"3:48: error: expected 4294967296 elements in the literal"
    ):
        xlapy.load(_hlo("  ROOT z = s32[4294967296] constant({1, 2, 3, 4})"))


@pytest.mark.parametrize(("string", "column"), [(r'"\lo"', 51), (r'"a\q"', 52)])
def test_mlir_unknown_string_escape_is_located(string, column):
    # '\lo' reached int('lo', 16) (ValueError) when the string was unescaped.
    text = (
        f"func.func @main() -> tensor<f32> attributes {{x = {string}}} {{\n"
        "  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    )
    with pytest.raises(ParseError, match=rf"<string>:1:{column}: error: unknown escape"):
        xlapy.load(text)
    good = text.replace(string, r'"a\\b\"\n\t\41"')
    assert xlapy.run(xlapy.load(good), platform="interpreter") == [np.float32(1)]


def test_builder_reduce_window_and_sort_of_no_operands():
    # An empty operand list was an IndexError (inputs[0]).
    b = xlapy.XlaBuilder("m")
    x = ops.Parameter(b, 0, "f32[]")
    with pytest.raises(InvalidArgument, match=r"^ReduceWindow: operands must hold at least one"):
        ops.ReduceWindow([], x, lambda p, q: ops.Add(p, q), [], [], [])
    with pytest.raises(InvalidArgument, match=r"^Sort: operands must hold at least one XlaOp"):
        ops.Sort([])
    with pytest.raises(InvalidArgument, match=r"^Scatter: operands must hold at least one XlaOp"):
        ops.Scatter([], x, x, lambda p, q: p, ops.ScatterDimensionNumbers([], [], [], 0))


def test_builder_parameter_number_far_out_of_order_is_refused_cheaply():
    # Build listed every missing number up to 2^31 (a runaway allocation).
    b = xlapy.XlaBuilder("m")
    ops.Parameter(b, 2**31, "f32[]")
    with pytest.raises(
        InvalidArgument, match=r"numbers must be 0..0; missing \[0\], got 2147483648"
    ):
        b.build()


def test_builder_computation_argument_error_names_the_function():
    b = xlapy.XlaBuilder("m")
    x = ops.Parameter(b, 0, "f32[]")
    with pytest.raises(InvalidArgument, match=r"^CompositeCall: computation must be an "):
        ops.CompositeCall(b, x, name="c")


def test_typed_ffi_backend_config_that_is_no_mlir_dictionary():
    # Printed verbatim into mhlo.backend_config, it made StableHLO that did not load.
    text = _hlo(
        "  p = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(p), "
        'custom_call_target="f", api_version=API_VERSION_TYPED_FFI, '
        "backend_config={mode = 86 : f8e4m3fn}"
    )
    module = xlapy.load(text)
    with pytest.raises(
        InvalidArgument,
        match=r"custom-call c: its typed-FFI backend_config is "
        r"not an MLIR attribute dictionary: backend_config:1:14: error: unknown",
    ):
        print_stablehlo(module)
    fixed = xlapy.load(text.replace("f8e4m3fn", "ui8"))
    assert "mhlo.backend_config = {mode = 86 : ui8}" in print_stablehlo(fixed)


@pytest.mark.parametrize("count", ["0", "9223372036854775807"])
def test_mlir_result_count_is_bounded(count):
    # '%r:9223372036854775807 = ...' listed that many result names (a runaway allocation).
    text = (
        "func.func @main(%t: !stablehlo.token) -> !stablehlo.token {\n"
        f'  %r:{count} = "stablehlo.after_all"(%t) : (!stablehlo.token) -> !stablehlo.token\n'
        "  return %t : !stablehlo.token\n}\n"
    )
    with pytest.raises(ParseError, match=rf"<string>:2:6: error: bad result count {count} for %r"):
        xlapy.load(text)


def _call_chain(levels: int) -> str:
    """An entry calling c<levels-1>, which calls ... c0 (``levels + 1`` computations)."""
    text = "HloModule m\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n"
    for i in range(1, levels):
        text += (
            f"c{i} {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{i - 1}\n}}\n"
        )
    return (
        text
        + f"ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{levels - 1}\n}}\n"
    )


def test_nested_calls_are_bounded_at_load_and_run():
    # A chain of 1500 calls was a RecursionError in the verifier, the memory estimate and the
    # evaluator.
    assert xlapy.run(xlapy.load(_call_chain(63)), np.float32(2), platform="interpreter") == [
        np.float32(-2)
    ]
    with pytest.raises(
        VerificationError,
        match=r"\[call-depth\]: calls computations nested 64 "
        r"deep; xlapy evaluates at most 64 levels of nested calls",
    ):
        xlapy.load(_call_chain(64))
    unverified = xlapy.load(_call_chain(1500), verify=False)
    with pytest.raises(VerificationError, match=r"\[call-depth\]"):
        xlapy.run(unverified, np.float32(2), platform="interpreter")


def test_non_positive_channel_id_means_no_channel_in_shape_inference_too():
    # channel_id=-8 made inference trust the declared size (a cross-partition group), while
    # the evaluator and StableHLO read it as no channel: the printed StableHLO did not load.
    text = _ALL_REDUCE.format(header=", replica_count=4", groups="{}").replace(
        "  p = f32[] parameter(0)\n  ROOT r = f32[] all-reduce(p), replica_groups={}, to_apply=add",
        "  p = f32[6] parameter(0)\n  ROOT r = (f32[6], f32[24]) all-gather-start(p), "
        "channel_id=-8, replica_groups={{1,0},{3,2}}, dimensions={0}",
    )
    with pytest.raises(
        ParseError, match=r"all-gather-start %r: declares .* give \(f32\[6\], f32\[12\]\)"
    ):
        xlapy.load(text)


def test_dynamic_pad_sizes_are_checked_before_padding():
    # edge_padding_high = 2^31 allocated 112 GiB ('device failed: MemoryError').
    text = _mlir(
        "  %x = stablehlo.constant dense<1> : tensor<2xi64>\n"
        "  %v = stablehlo.constant dense<0> : tensor<i64>\n"
        "  %lo = stablehlo.constant dense<[1]> : tensor<1xi64>\n"
        "  %hi = stablehlo.constant dense<[2147483648]> : tensor<1xi64>\n"
        "  %in = stablehlo.constant dense<[0]> : tensor<1xi64>\n"
        "  %r = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<2xi64>, tensor<i64>, "
        "tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>\n"
        "  return %r : tensor<4xi64>",
        "tensor<4xi64>",
    )
    with pytest.raises(
        XlaError,
        match=r"the padded sizes must be >= 0 and match the result shape"
        r" .*; got \[2147483651\]",
    ):
        xlapy.run(xlapy.load(text), platform="interpreter")


def test_builder_refuses_results_beyond_int64():
    # Broadcast(x, [2^63]) built a module whose printed HLO did not load.
    b = xlapy.XlaBuilder("m")
    x = ops.Parameter(b, 0, "f32[]")
    with pytest.raises(
        InvalidArgument,
        match=r"^broadcast: the result f32\[9223372036854775808\]"
        r"\{0\} is too large: dimension 9223372036854775808 is out of the int64",
    ):
        ops.Broadcast(x, [2**63])
    with pytest.raises(InvalidArgument, match=r"^Call: computation is the builder 'm', which "):
        ops.Call(b, b)


def test_lapack_character_options_out_of_range():
    # uplo = 10^30 reached chr() (OverflowError, an 'internal error').
    text = _hlo(
        "  a = f32[2,2] parameter(0)\n  ROOT c = (f32[2,2], s32[]) custom-call(a), "
        'custom_call_target="lapack_spotrf_ffi", api_version=API_VERSION_TYPED_FFI, '
        "backend_config={uplo = 1000000000000000000000000000000 : ui8}"
    )
    with pytest.raises(
        InvalidArgument,
        match=r"custom-call c: backend_config uplo must be an "
        r"ASCII character code \(76 for 'L'\); got 10{30}",
    ):
        xlapy.run(xlapy.load(text), np.eye(2, dtype=np.float32), platform="interpreter")


def test_mlir_dense_unterminated_bracket():
    # Found by the atheris harness: 'dense<[>' indexed past the pieces (IndexError).
    text = _mlir(
        "  %0 = stablehlo.constant dense<[> : tensor<1xi32>\n  return %0 : tensor<1xi32>",
        "tensor<1xi32>",
    )
    with pytest.raises(ParseError, match=r"<string>:2:33: error: unterminated '\[' in dense"):
        xlapy.load(text)


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            '%r = "stablehlo.slice"(%x) {start_indices = array<i64: 0>, limit_indices = '
            "array<i64: 1, 1>, strides = array<i64: 1>} : (tensor<2xi32>) -> tensor<1xi32>",
            r"\[C2\] start_indices, limit_indices, strides must have the same size; got "
            r"start_indices=\[0\], limit_indices=\[1, 1\], strides=\[1\]",
        ),
        (
            '%r = "stablehlo.pad"(%x, %v) {edge_padding_low = array<i64: 0>, edge_padding_high'
            " = array<i64: 1, 1>, interior_padding = array<i64: 0>} : (tensor<2xi32>, "
            "tensor<i32>) -> tensor<1xi32>",
            r"\[C2\] edge_padding_low, edge_padding_high, interior_padding must have the same",
        ),
    ],
)
def test_mlir_slice_and_pad_attribute_lists_of_different_sizes(op, message):
    # Found by the atheris harness: zip(strict=True) raised ValueError in the lowering.
    text = _mlir(
        f"  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
        f"  %v = stablehlo.constant dense<0> : tensor<i32>\n  {op}\n"
        "  return %r : tensor<1xi32>",
        "tensor<1xi32>",
    )
    with pytest.raises(InvalidArgument, match=rf"<string>:4:3: error: stablehlo\.\w+: {message}"):
        xlapy.load(text)


def test_builder_domain_text_must_read_back():
    # Domain(x, 'é') printed HLO that did not load.
    b = xlapy.XlaBuilder("m")
    x = ops.Parameter(b, 0, "f32[]")
    with pytest.raises(InvalidArgument, match=r"^Domain: domain must be HLO attribute text"):
        ops.Domain(x, "é")
    domain = '{kind="sharding", entry={maximal device=0}, exit={maximal device=1}}'
    module = b.build(ops.Domain(x, domain))
    assert xlapy.load(print_hlo(module)).entry.root.attrs.domain.text == domain


def test_async_start_of_a_constant_prints_generically():
    # Sugar printed 'constant-start()' without the literal, which did not load.
    b = xlapy.XlaBuilder("m")
    ops.Parameter(b, 0, "f32[]")
    done = ops.AsyncDone(ops.AsyncStart(b, [], lambda: 2.5))
    text = print_hlo(b.build(done))
    assert "async-start(), calls=" in text
    assert xlapy.run(xlapy.load(text), np.float32(0), platform="interpreter") == [np.float32(2.5)]


def test_composite_version_must_be_an_integer():
    # composite.version="/*0" reached int() (ValueError) when printing StableHLO.
    text = """HloModule m
fma {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY e {
  x = f32[] parameter(0)
  ROOT c = f32[] call(x), to_apply=fma, is_composite=true, frontend_attributes={composite.name="my.fma",composite.attributes={},composite.version="/*0"}
}
"""
    with pytest.raises(
        InvalidArgument,
        match=r"call c: a composite's frontend attribute "
        r"composite.version must be an integer; got '/\*0'",
    ):
        print_stablehlo(xlapy.load(text))
    printed = print_stablehlo(xlapy.load(text.replace('"/*0"', '"2"')))
    assert "version = 2 : i32" in printed


_MLIR_COLLECTIVE = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %r = "stablehlo.{op}"(%a) {regions}{{{attrs}}} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}}
"""
_ADD_REGION = """({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) """
_GROUPS = "replica_groups = dense<[[0]]> : tensor<1x1xi64>"


@pytest.mark.parametrize(
    ("op", "regions", "attrs", "message"),
    [
        # Collectives with a reducer and no region: IndexError in _all_reduce (issue #20).
        ("all_reduce", "", _GROUPS, r"stablehlo.all_reduce needs 1 region\(s\); got 0"),
        ("collective_reduce", "", _GROUPS, r"needs 1 region\(s\); got 0"),
        ("reduce_scatter", "", f"scatter_dimension = 0 : i64, {_GROUPS}", r"needs 1 region"),
        (
            "reduce_scatter",
            _ADD_REGION.rstrip()[:-1] + ", " + _ADD_REGION[1:],
            f"scatter_dimension = 0 : i64, {_GROUPS}",
            r"needs 1 region\(s\); got 2",
        ),
        # A reducer of the wrong arity: the verifier's rule, located.
        (
            "all_reduce",
            _ADD_REGION.replace("%y: tensor<f32>", "%y: tensor<f32>, %z: tensor<f32>"),
            _GROUPS,
            r"computation must have type \(f32\[\], f32\[\]\) -> f32\[\]",
        ),
        # source_target_pairs of 3 columns: ValueError from a reshape to pairs.
        (
            "collective_permute",
            "",
            "source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>",
            r"source_target_pairs must be an Nx2 integer tensor .*; got tensor<1x3xi64>",
        ),
        (
            "collective_permute",
            "",
            "source_target_pairs = dense<[0, 1]> : tensor<2xi64>",
            r"source_target_pairs must be an Nx2 integer tensor .*; got tensor<2xi64>",
        ),
    ],
)
def test_mlir_collectives_with_malformed_regions_or_pairs_are_located(op, regions, attrs, message):
    text = _MLIR_COLLECTIVE.format(op=op, regions=regions, attrs=attrs)
    with pytest.raises(XlaError, match=rf"<string>:2:3: error: stablehlo.{op}: .*{message}"):
        xlapy.load(text)


def test_mlir_scan_without_a_region_is_located():
    text = _MLIR_COLLECTIVE.format(op="scan", regions="", attrs="dimension = 0 : i64")
    with pytest.raises(XlaError, match=r"<string>:2:3: error: chlo.scan: chlo.scan needs 1 reg"):
        xlapy.load(text.replace('"stablehlo.scan"', '"chlo.scan"'))
