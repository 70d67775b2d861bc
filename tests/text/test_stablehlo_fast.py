"""The one-regex parse of common pretty ops (``xlapy.text.stablehlo_fast``) gives exactly the
``Op`` of the general parser, is taken for the forms JAX prints, and leaves every malformed op
to the general parser (same error, same location)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xlapy.errors import XlaError
from xlapy.text import stablehlo_fast
from xlapy.text.mlir_ast import Op
from xlapy.text.stablehlo_parser import parse_mlir, parse_stablehlo

FAST_OPS = """\
    %c = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c_0 = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi32>
    %c_1 = stablehlo.constant dense<0x7FC00000> : tensor<2xf32>
    %c_2 = stablehlo.constant dense<[[true, false]]> : tensor<1x2xi1>
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x3xf32>
    %1 = stablehlo.compare GE, %0, %arg0, FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %2 = stablehlo.select %1, %0, %arg0 : tensor<4x3xi1>, tensor<4x3xf32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %4 = stablehlo.transpose %2, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %5 = stablehlo.dot_general %2, %4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<4x4xf32>) -> tensor<2x8xf32>
    %7 = chlo.square %6 : tensor<2x8xf32> -> tensor<2x8xf32>
    %8 = stablehlo.iota dim = 0 : tensor<64xi32>
    %9 = stablehlo.convert %8 : (tensor<64xi32>) -> tensor<64xf32>
    %10 = stablehlo.concatenate %9, %9, dim = 0 : (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
    %11 = stablehlo.dot_general %arg1, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %12 = stablehlo.pad %9, %c, low = [1], high = [-1], interior = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
"""
PROGRAM = f"""\
func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<2x3x3xf32>) -> tensor<2x8xf32> {{
{FAST_OPS}    return %7 : tensor<2x8xf32>
}}
"""


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stablehlo_fast, "parse_fast_op", lambda p: None)


def _comparable(op: Op) -> tuple[Any, ...]:
    """Every field; ``Literal`` values compare bitwise."""
    return (op.name, op.results, op.operands, dict(op.attrs), op.result_types,
            op.operand_types, op.raw, op.regions, op.offset)  # fmt: skip


def _ops(text: str) -> list[Op]:
    body = parse_mlir(text).functions["main"].body
    assert body is not None
    return body.blocks[0].ops


def test_fast_ops_are_the_general_parsers_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = stablehlo_fast.parse_fast_op

    def counting(p: Any) -> Op | None:
        op = original(p)
        calls.append("fast" if op is not None else "general")
        return op

    monkeypatch.setattr(stablehlo_fast, "parse_fast_op", counting)
    fast = _ops(PROGRAM)
    assert calls == ["fast"] * FAST_OPS.count("\n")
    _general(monkeypatch)
    general = _ops(PROGRAM)
    assert [_comparable(o) for o in fast] == [_comparable(o) for o in general]
    nan = fast[2].attrs["value"].to_numpy()
    assert np.isnan(nan).all()
    assert nan.view(np.uint32).tolist() == [0x7FC00000] * 2
    assert fast[9].attrs["lhs_contracting_dimensions"] == [1]
    assert fast[9].attrs["precision_config"] == ["DEFAULT", "DEFAULT"]
    assert fast[5].attrs["comparison_direction"] == "GE"


@pytest.mark.parametrize(
    "line",
    [
        "%0 = stablehlo.add %arg0, %arg0 : tensor<4xs128>",  # unknown element type
        "%0 = stablehlo.constant dense<1> : tensor<f32>",  # an integer for a float
        "%0 = stablehlo.constant dense<[1, 2]> : tensor<3xi32>",  # wrong element count
        "%0 = stablehlo.constant dense<1.0> : tensor<?xf32>",  # not static
        "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [0] : "
        "(tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",  # no 'x'
        "%0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xi32>",
        "%0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n    , tensor<4xi32>",  # continued
        "%0 = stablehlo.add %arg0, %arg0 FLOAT : tensor<4xf32>",  # a bare word, not compare
        "%0 = stablehlo.add %arg0, %undefined : tensor<4xf32>",
        "%0 = stablehlo.multiply %arg0, %arg0 : tensor<5xf32>",  # shape check
        "%0 = stablehlo.slice %arg0 : tensor<4xf32>",  # an op with its own syntax
    ],
)
def test_malformed_ops_fail_as_in_the_general_parser(
    line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = f"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {{\n    {line}\n" \
        "    return %arg0 : tensor<4xf32>\n}\n"  # fmt: skip
    with pytest.raises(XlaError) as fast:
        parse_stablehlo(text)
    _general(monkeypatch)
    with pytest.raises(XlaError) as general:
        parse_stablehlo(text)
    assert type(fast.value) is type(general.value)
    assert str(fast.value) == str(general.value)
    assert ":2:" in str(fast.value) or ":3:" in str(fast.value)  # located
