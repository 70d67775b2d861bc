"""Regression tests for fuzzing findings about attribute values (``scripts/fuzz.sh``, issue #14;
``test_fuzz_regressions.py`` holds the earlier ones): each input must now raise an ``XlaError``
naming the place, or work and print text that loads again."""

from __future__ import annotations

import pytest

import xlapy
from xlapy import ops
from xlapy.builder.config import ResultAccuracy
from xlapy.errors import InvalidArgument, ParseError
from xlapy.shape import Shape
from xlapy.text.hlo_printer import print_hlo


def _cosine(accuracy: str) -> str:
    return (
        "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
        f"  ROOT c = f32[] cosine(p), result_accuracy={accuracy}\n}}\n"
    )


@pytest.mark.parametrize(
    ("accuracy", "message"),
    [
        # int(1e30) loaded, and the printed 'ulps=1000000000000000019884624838656' did not.
        ("{tolerance={atol=0,rtol=0,ulps=1e30}}", "expected an integer, found float '1e+30'"),
        ("{tolerance={atol=0,rtol=0,ulps=1.5}}", "expected an integer, found float '1.5'"),
        # float() of the lexer's NaN token was a TypeError.
        ("{tolerance={atol=nan,rtol=0,ulps=0}}", "expected a number, found float"),
        ("{tolerance={atol=0,rtol=0,ulps=nan}}", "expected an integer, found float"),
        # 1e400 is inf, printed as 'inf', which does not load.
        ("{tolerance={atol=1e400,rtol=0,ulps=0}}", "atol must be a finite number >= 0; got inf"),
        ("{tolerance={atol=0,rtol=-0.5,ulps=0}}", "rtol must be a finite number >= 0; got -0.5"),
        ("{tolerance={atol=0,rtol=0,ulps=-3}}", "ulps must be a non-negative 64-bit integer"),
        ("{mode=weird}", "mode must be default, highest or tolerance; got 'weird'"),
    ],
)
def test_hlo_result_accuracy_values_are_checked_where_written(accuracy: str, message: str) -> None:
    with pytest.raises(ParseError, match=r"<string>:4:") as info:
        xlapy.load(_cosine(accuracy))
    assert message in str(info.value)


def test_hlo_result_accuracy_tolerance_round_trips() -> None:
    text = print_hlo(
        xlapy.load(_cosine("{tolerance={atol=0.001,rtol=0,ulps=9223372036854775807}}"))
    )
    assert "ulps=9223372036854775807" in text
    assert print_hlo(xlapy.load(text)) == text


@pytest.mark.parametrize(
    ("accuracy", "message"),
    [
        # Found by the builder target: Acos(x, ResultAccuracy(ulps=10**20)) printed HLO that
        # did not load ('integer 100000000000000000000 is out of the 64-bit range').
        (ResultAccuracy(mode="default", ulps=10**20), "ulps must be a non-negative 64-bit int"),
        (ResultAccuracy(ulps=-1), "ulps must be a non-negative 64-bit integer; got -1"),
        (ResultAccuracy(ulps=2.0), "ulps must be an int; got 2.0"),  # type: ignore[arg-type]
        (ResultAccuracy(atol=float("nan")), "atol must be a finite number >= 0; got nan"),
        (ResultAccuracy(mode="bogus"), "mode must be default, highest or tolerance"),
    ],
)
def test_builder_result_accuracy_is_checked_at_the_call(
    accuracy: ResultAccuracy, message: str
) -> None:
    b = xlapy.XlaBuilder("b")
    x = ops.Parameter(b, 0, Shape.scalar(xlapy.dtypes.F32), "x")
    with pytest.raises(InvalidArgument, match=r"^acos: result_accuracy: ") as info:
        ops.Acos(x, accuracy)
    assert message in str(info.value)
    ops.Acos(x, ResultAccuracy(atol=0.5, ulps=2**63 - 1))
    text = print_hlo(b.build())
    assert print_hlo(xlapy.load(text)) == text


def _mlir_cosine(accuracy: str) -> str:
    return (
        "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
        f"  %0 = stablehlo.cosine %x {{result_accuracy = #stablehlo.result_accuracy<{accuracy}>}}"
        " : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    )


TOLERANCE = "mode = #stablehlo.result_accuracy_mode<TOLERANCE>"


@pytest.mark.parametrize(
    ("accuracy", "message"),
    [
        # Loaded, and the printed HLO ('ulps=100000000000000000000') did not.
        (f"atol = 1.0, rtol = 0.0, ulps = 100000000000000000000, {TOLERANCE}",
         "ulps must be a non-negative 64-bit integer; got 100000000000000000000"),
        # float('x') was a ValueError.
        (f'atol = "x", rtol = 0.0, ulps = 1, {TOLERANCE}', "atol must be a number; got 'x'"),
        (f"atol = 0x7FC00000 : f32, rtol = 0.0, ulps = 1, {TOLERANCE}",
         "atol must be a finite number >= 0; got nan"),
        ("mode = #stablehlo.result_accuracy_mode<BOGUS>", "mode must be default, highest or"),
    ],
)  # fmt: skip
def test_stablehlo_result_accuracy_values_are_located(accuracy: str, message: str) -> None:
    with pytest.raises(InvalidArgument, match=r"^<string>:2:3: error: stablehlo.cosine: ") as info:
        xlapy.load(_mlir_cosine(accuracy))
    assert f"result_accuracy: {message}" in str(info.value)


def test_stablehlo_result_accuracy_tolerance_loads_and_prints() -> None:
    module = xlapy.load(_mlir_cosine(f"atol = 1.0e-3, rtol = 0.0, ulps = 2, {TOLERANCE}"))
    assert module.entry.root.attrs.result_accuracy == ResultAccuracy("tolerance", 1e-3, 0.0, 2)
    text = print_hlo(module)
    assert print_hlo(xlapy.load(text)) == text


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        # Found by the builder target: the message named no op ('dim_labels must look like').
        ("bad", "convolution: dim_labels must look like b01f_01io->b01f; got 'bad'"),
        ("b01f_01io->b01", "convolution: dim_labels 'b01f_01io->b01': 'b01' must contain"),
    ],
)
def test_builder_convolution_dim_labels_name_the_op(labels: str, message: str) -> None:
    b = xlapy.XlaBuilder("b")
    x = ops.Parameter(b, 0, Shape.array(xlapy.dtypes.F32, (1, 1, 4, 4)), "x")
    w = ops.Parameter(b, 1, Shape.array(xlapy.dtypes.F32, (1, 1, 2, 2)), "w")
    with pytest.raises(InvalidArgument) as info:
        ops.ConvGeneralDilated(x, w, [1, 1], [(0, 0), (0, 0)], dimension_numbers=labels)
    assert str(info.value).startswith(message)
