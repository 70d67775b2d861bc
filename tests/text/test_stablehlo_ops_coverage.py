"""Every StableHLO / CHLO / func op the front end accepts, in pretty and generic form, parsed,
lowered and run: the self-checking programs under ``data/stablehlo_ops`` (one test function
per op form, ``check.*`` ops assert the values, taken from the StableHLO reference
interpreter, numpy or the spec), plus JAX-printed programs with their expected results."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.cli.interpret_cmd import run_text
from xlapy.errors import EvaluationError
from xlapy.ir.opcode import Opcode
from xlapy.text.stablehlo_parser import parse_stablehlo, parse_stablehlo_tests

DATA = Path(__file__).parent / "data" / "stablehlo_ops"
FILES = sorted(DATA.glob("*.mlir"))


def _cases() -> list[tuple[Path, str]]:
    cases = []
    for path in FILES:
        for case in parse_stablehlo_tests(path.read_text(), str(path)):
            cases.append((path, case.name))
    return cases


_RESULTS: dict[Path, dict[str, tuple[str, str]]] = {}


def _results(path: Path) -> dict[str, tuple[str, str]]:
    """{test name: (status, message)} for one data file (run once)."""
    if path not in _RESULTS:
        with contextlib.redirect_stdout(io.StringIO()):
            outcomes = run_text(path.read_text(), str(path))
        _RESULTS[path] = {r.name: (r.status, r.message) for r in outcomes}
    return _RESULTS[path]


@pytest.mark.parametrize(("path", "name"), _cases(), ids=lambda v: getattr(v, "stem", v))
def test_op_program(path: Path, name: str) -> None:
    status, message = _results(path)[name]
    assert status == "pass", message


def test_every_data_file_has_pretty_and_generic_forms() -> None:
    assert FILES
    for path in FILES:
        names = [name for p, name in _cases() if p == path]
        assert names, path
        assert any(n.endswith("_generic") for n in names), path


# ---- JAX-printed programs --------------------------------------------------------------------

_TRSM = """
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> (tensor<2x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
"""


def test_ffi_custom_call_takes_its_options_from_mhlo_backend_config() -> None:
    # jax.ffi calls carry their attributes in ``mhlo.backend_config``; XLA makes that the
    # typed-FFI backend config. Here: unit diagonal ('U' = 85), lower, left side.
    module = parse_stablehlo(_TRSM)
    call = module.entry.root
    assert call.opcode is Opcode.CUSTOM_CALL
    assert "diag = 85" in call.backend_config
    a = np.array([[2.0, 0.0], [3.0, 4.0]], np.float32)
    b = np.array([[1.0, 2.0], [5.0, 6.0]], np.float32)
    (x,) = xlapy.run(module, a, b, platform="interpreter")
    # Forward substitution with the unit lower triangle [[1, 0], [3, 1]]: exact in f32.
    assert x.tolist() == [[1.0, 2.0], [2.0, 0.0]]


def test_quantized_ops_lower_to_their_opcodes() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
      %1 = stablehlo.uniform_dequantize %0 : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2xf32>
      return %1 : tensor<2xf32>
    }"""
    module = parse_stablehlo(text)
    dequantize = module.entry.root
    assert dequantize.opcode is Opcode.UNIFORM_DEQUANTIZE
    quantize = dequantize.operands[0]
    assert quantize.opcode is Opcode.UNIFORM_QUANTIZE
    assert quantize.shape.to_mlir() == "tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>"


# ---- JAX 0.10 output (jit lowering and jax.export with symbolic shapes) ------------------------

JAX_DATA = Path(__file__).parent / "data" / "stablehlo_jax"
JAX_FILES = sorted(JAX_DATA.glob("*.mlir"))


def _jax_case(path: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    with np.load(path.with_suffix(".npz")) as data:
        args = [data[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in data.files))]
        outs = [data[f"out{i}"] for i in range(sum(k.startswith("out") for k in data.files))]
    return args, outs


@pytest.mark.parametrize("path", JAX_FILES, ids=lambda p: p.stem)
def test_jax_program_matches_xla_cpu(path: Path) -> None:
    """Programs printed by JAX 0.10 (LAPACK FFI calls, ApproxTopK, shape assertions,
    StableHLO's dynamic_* custom calls), run with the inputs JAX ran them on."""
    args, expected = _jax_case(path)
    got = xlapy.run(xlapy.load(path.read_text()), *args, platform="interpreter")
    assert len(got) == len(expected)
    for actual, want in zip(got, expected, strict=True):
        assert actual.dtype == want.dtype
        assert actual.shape == want.shape
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(actual, want, rtol=2e-5, atol=2e-6)
        else:
            np.testing.assert_array_equal(actual, want)


def test_shape_assertion_failure_names_the_dimension() -> None:
    path = JAX_DATA / "poly_reshape_shape_assertion.mlir"
    module = xlapy.load(path.read_text())
    with pytest.raises(EvaluationError, match="Expected value >= 1 for dimension variable 'b'"):
        xlapy.run(module, np.zeros((0, 4), np.float32), platform="interpreter")
