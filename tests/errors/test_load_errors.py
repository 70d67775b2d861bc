"""``xlapy.load``: bad paths, binary/empty/non-program files and ill-typed programs (HLO text
and StableHLO) fail with an XlaError naming the op, the rule, the values and line:col."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.errors import (
    InvalidArgument,
    ParseError,
    ShapeCheckError,
    VerificationError,
    XlaError,
)

HLO = """HloModule m

ENTRY e {{
  p = f32[2] parameter(0)
  q = f32[3] parameter(1)
  ROOT r = {root}
}}
"""

MLIR = """func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {{
  %0 = {op}
  return %0 : tensor<2xf32>
}}
"""


def test_missing_file_directory_and_bad_argument_types(tmp_path: Path):
    with pytest.raises(InvalidArgument, match=r"nope\.hlo: no such file"):
        xlapy.load(str(tmp_path / "nope.hlo"))
    with pytest.raises(InvalidArgument, match="is a directory, not a program file"):
        xlapy.load(tmp_path)
    with pytest.raises(InvalidArgument, match=r"expected a path or program text .*got int"):
        xlapy.load(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="got bytes: decode it"):
        xlapy.load(b"HloModule m")  # type: ignore[arg-type]


def test_binary_file_is_located_without_printing_it(tmp_path: Path):
    path = tmp_path / "blob.hlo"
    path.write_bytes(b"HloModule m\n\x89PNG\x00")
    with pytest.raises(ParseError) as info:
        xlapy.load(path)
    assert (info.value.line, info.value.column) == (2, 1)
    assert "not a text file (offset 12: byte 0x89 is not UTF-8)" in str(info.value)
    path.write_bytes(b"HloModule m\nENTRY\x00")
    with pytest.raises(ParseError, match="it contains a NUL byte"):
        xlapy.load(path)


def test_empty_and_non_program_text(tmp_path: Path):
    path = tmp_path / "empty.mlir"
    path.write_text("  \n")
    with pytest.raises(ParseError, match="empty program: expected HLO text"):
        xlapy.load(path)
    with pytest.raises(ParseError, match="1:1: error: neither HLO text nor StableHLO"):
        xlapy.load("hello world")


@pytest.mark.parametrize(
    ("root", "column", "fragments"),
    [
        ("f32[3] add(p, p)", 19,
         ["add %r: declares result f32[3] but its operands and attributes give f32[2]",
          "operands: f32[2], f32[2]"]),
        ("f32[2] add(p, q)", 19, ["add %r [C1]", "f32[2]", "f32[3]"]),
        ("f32[2] slice(q), slice={[0:3]}", 19,
         ["slice %r: declares result f32[2] but its operands and attributes give f32[3]"]),
        ("f32[2] transpose(p), dimensions={1}", 19, ["transpose %r [C2]", "{1}"]),
        ("s32[2] convert(p)", 0, []),  # valid: convert's result type is declared
    ],
)  # fmt: skip
def test_ill_typed_hlo_is_rejected_at_line_and_column(root, column, fragments):
    text = HLO.format(root=root)
    if not fragments:
        xlapy.load(text)
        return
    with pytest.raises(ShapeCheckError) as info:
        xlapy.load(text)
    err = info.value
    assert isinstance(err, InvalidArgument)  # the builder raises InvalidArgument for the same
    assert (err.line, err.column) == (6, column)
    for fragment in fragments:
        assert fragment in err.message


def test_ill_typed_stablehlo_is_rejected_at_the_op():
    text = MLIR.format(op="stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>")
    with pytest.raises(ShapeCheckError) as info:
        xlapy.load(text)
    assert (info.value.line, info.value.column) == (2, 3)
    assert "stablehlo.add: add" in info.value.message
    assert "f32[3]" in info.value.message


def test_wrong_declared_stablehlo_result_type():
    text = MLIR.format(op="stablehlo.negate %a : (tensor<2xf32>) -> tensor<2xi32>")
    with pytest.raises(ShapeCheckError, match=r"2:3: error: stablehlo.negate: negate"):
        xlapy.load(text)


def test_operand_types_the_signature_lists_must_be_the_operands_types():
    # MLIR resolves each operand with the type its signature writes: f32 %a written as i32
    text = MLIR.format(op="stablehlo.add %a, %a : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>")
    with pytest.raises(XlaError) as info:
        xlapy.load(text)
    assert str(info.value).startswith("<string>:2:3: error: stablehlo.add: operand 1 (%a) is ")
    assert "tensor<2xf32> but the op's type lists tensor<2xi32>" in str(info.value)
    arrow = MLIR.format(
        op="stablehlo.multiply %a, %a : tensor<2xf32>, tensor<2xf16> -> tensor<2xf32>"
    )
    with pytest.raises(XlaError, match=r"operand 1 \(%a\) is tensor<2xf32> but .* tensor<2xf16>"):
        xlapy.load(arrow)
    # the bare form names results only (stablehlo.tuple's type is its result's)
    ok = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %t = stablehlo.tuple %a : tuple<tensor<2xf32>>
  %0 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
    assert xlapy.run(xlapy.load(ok), np.array([1.5, -2.0], np.float32), platform="interpreter")[
        0
    ].tolist() == [
        1.5,
        -2.0,
    ]


def test_run_parallel_results_must_match_the_programs():
    text = """func.func @f(%a : tensor<4xi64>) -> tensor<4xi64> {
  return %a : tensor<4xi64>
}
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %r:2 = "interpreter.run_parallel"(%0, %0) {programs=[[@f], [@f]]}
    : (tensor<4xi64>, tensor<4xi64>) -> (tensor<2xi64>, tensor<4xi64>)
  func.return
}
"""
    with pytest.raises(ParseError) as info:
        xlapy.load(text)
    assert info.value.line == 6
    assert "the results must be the programs' results in order" in info.value.message
    assert "got (tensor<2xi64>, tensor<4xi64>)" in info.value.message


def test_structural_errors_are_verified_at_load():
    text = "HloModule m\n\nENTRY e {\n  ROOT p = f32[2] parameter(3)\n}\n"
    with pytest.raises(VerificationError, match=r"parameter numbers must be 0..0.*got \[3\]"):
        xlapy.load(text)
    text = "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] add(p)\n}\n"
    with pytest.raises(VerificationError, match=r"add n \[arity\]: takes 2 operand\(s\); got 1"):
        xlapy.load(text)


def test_unverified_load_keeps_syntax_only():
    module = xlapy.load(HLO.format(root="f32[3] add(p, p)"), verify=False)
    assert module.entry.root.shape.dims == (3,)


def test_every_example_loads_verified():
    root = Path(__file__).resolve().parents[2] / "examples"
    files = sorted([*root.glob("*.hlo"), *root.glob("*.mlir")])
    assert files
    for path in files:
        xlapy.load(path)
