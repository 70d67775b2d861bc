"""``xlapy interpret`` and ``xlapy run``: output lines, exit codes, --args, npz inputs/outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xlapy.cli import main

_PASSING = """// RUN: stablehlo-translate --interpret -split-input-file %s
func.func @add_test() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}

// -----

func.func @almost() {
  %0 = stablehlo.constant dense<0.2> : tensor<f32>
  check.expect_almost_eq_const %0, dense<0.19999> : tensor<f32>
  func.return
}
"""

_FAILING = """func.func @bad() {
  %0 = stablehlo.constant dense<0.2> : tensor<f32>
  check.expect_eq_const %0, dense<0.19999> : tensor<f32>
  check.expect_close %0, %0, max_ulp_difference = 0, min_ulp_difference = 1 : tensor<f32>, tensor<f32>
  func.return
}
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_interpret_all_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "ok.mlir", _PASSING)
    assert main(["interpret", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"PASS {path}:add_test", f"PASS {path}:almost", "2 passed, 0 failed"]


def test_interpret_reports_every_failed_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "bad.mlir", _FAILING)
    assert main(["interpret", path]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"FAIL {path}:bad: check.expect_eq")
    assert "actual 0.20000000298023224, expected 0.19999000430107117" in out[0]
    assert "ULP difference outside [1, 0]" in out[0]
    assert out[-1] == "0 passed, 1 failed"


def test_interpret_parse_error_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "broken.mlir", "func.func @f() {\n  %0 = stablehlo.add : \n}\n")
    assert main(["interpret", path]) == 2
    out = capsys.readouterr().out
    assert f"{path}:3:1: error: expected a type" in out
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_interpret_unsupported_op_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "func.func @f() {\n  %c = stablehlo.constant dense<1.0> : tensor<f32>\n"
        '  %0 = "stablehlo.frobnicate"(%c) : (tensor<f32>) -> tensor<f32>\n'
        "  return\n}\n"
    )
    path = _write(tmp_path, "u.mlir", text)
    assert main(["interpret", path]) == 2
    assert "unsupported operation stablehlo.frobnicate" in capsys.readouterr().out


def test_interpret_args(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = """func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
      %0 = stablehlo.add %a, %b : tensor<2xi32>
      return %0 : tensor<2xi32>
    }"""
    path = _write(tmp_path, "args.mlir", text)
    args = "--args=[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]"
    assert main(["interpret", path, args, "--print-results"]) == 0
    out = capsys.readouterr().out
    assert "tensor<2xi32> {\n  [3, 3]\n}" in out
    assert main(["interpret", path, "--args=not_array"]) == 2
    assert "expected array attribute" in capsys.readouterr().err


def test_run_npz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = """func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<i1>) {
      %0 = stablehlo.multiply %a, %a : tensor<2xf32>
      %t = stablehlo.constant dense<true> : tensor<i1>
      return %0, %t : tensor<2xf32>, tensor<i1>
    }"""
    path = _write(tmp_path, "p.mlir", text)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.array([1.5, -2.0], np.float32))
    outputs = tmp_path / "out.npz"
    assert main(["run", path, "--inputs", str(inputs), "--outputs", str(outputs)]) == 0
    with np.load(outputs) as data:
        np.testing.assert_array_equal(data["out0"], np.array([2.25, 4.0], np.float32))
        assert bool(data["out1"])
    assert main(["run", path, "--inputs", str(inputs)]) == 0
    assert "out0 = tensor<2xf32> {\n  [2.250000e+00, 4.000000e+00]\n}" in capsys.readouterr().out
    assert main(["run", path]) == 2
    assert "pass --inputs" in capsys.readouterr().err


def test_run_hlo_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hlo = "HloModule m\nENTRY e {\n  ROOT c = s32[2] constant({4, 5})\n}\n"
    path = _write(tmp_path, "m.hlo", hlo)
    assert main(["run", path]) == 0
    assert capsys.readouterr().out == "out0 = tensor<2xi32> {\n  [4, 5]\n}\n"


_PROBE = """func.func @probed() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %1 = interpreter.probe %0, probe_id = "a/b" : tensor<2xi64>
  %2 = stablehlo.add %1, %1 : tensor<2xi64>
  %3 = interpreter.probe %2, probe_id = "a/b" : tensor<2xi64>
  check.expect_serialized_eq %3, probe_id = "a/b", iter = 1 : tensor<2xi64>
  func.return
}
"""


def test_interpret_probe_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "probe.mlir", _PROBE)
    probes = tmp_path / "probes"
    assert main(["interpret", path, "--probe-dir", str(probes)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"
    np.testing.assert_array_equal(np.load(probes / "a_b_0.npy"), [1, 2])
    np.testing.assert_array_equal(np.load(probes / "a_b_1.npy"), [2, 4])
    assert (probes / "index.csv").read_text().splitlines() == [
        "a/b,0,tensor<2xi64>,a_b_0.npy",
        "a/b,1,tensor<2xi64>,a_b_1.npy",
    ]


def test_interpret_runs_files_as_their_run_lines_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A round-trip test (no --interpret RUN line) with arguments is parsed and lowered only.
    text = """// RUN: stablehlo-opt %s > %t.1
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %arg1, %arg1 : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    path = _write(tmp_path, "dyn.mlir", text)
    assert main(["interpret", path]) == 0
    assert capsys.readouterr().out.splitlines() == [f"PASS {path}:main", "1 passed, 0 failed"]
    # Interpreted, the same program needs its arguments.
    path = _write(
        tmp_path, "dyn2.mlir", text.replace("stablehlo-opt", "stablehlo-translate --interpret")
    )
    assert main(["interpret", path]) == 2
