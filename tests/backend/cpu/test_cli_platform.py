"""The platform flags of the commands: ``xlapy run --platform/--reference-platform``,
``xlapy interpret --platform cpu`` and ``tools/conformance.py --platform cpu``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.backend.cpu.platform_util import assert_agrees
from tests.backend.cpu.test_conformance_sample import conformance_tool
from xlapy.cli import main

ROOT = Path(__file__).resolve().parents[3]
MLP = ROOT / "examples" / "mlp.hlo"

CHECKS = """func.func @main() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = stablehlo.add %0, %0 : tensor<3xi32>
  check.expect_eq_const %1, dense<[2, 4, 6]> : tensor<3xi32>
  func.return
}

// -----

func.func @wrong() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
  check.expect_eq_const %1, dense<[1.0, 5.0]> : tensor<2xf32>
  func.return
}
"""


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main([*argv])
    return code, capsys.readouterr().out


def test_run_on_both_platforms(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    inputs = str(MLP.with_suffix(".inputs.npz"))
    saved = {}
    for platform in ("cpu", "interpreter"):
        path = tmp_path / f"{platform}.npz"
        code, _ = cli(capsys, "run", str(MLP), "--inputs", inputs, "--outputs", str(path),
                      "--platform", platform)  # fmt: skip
        assert code == 0
        with np.load(path) as data:
            saved[platform] = {k: data[k] for k in data.files}
    assert sorted(saved["cpu"]) == sorted(saved["interpreter"])
    for name, want in saved["interpreter"].items():
        assert_agrees(saved["cpu"][name], want, name)
    code, printed = cli(capsys, "run", str(MLP), "--inputs", inputs)
    assert code == 0
    assert printed.startswith("out0 = tensor<8x16xf32> {")


def test_run_with_a_reference_platform_prints_differences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = tmp_path / "out.npz"
    code, out = cli(
        capsys,
        "run",
        str(MLP),
        "--inputs",
        str(MLP.with_suffix(".inputs.npz")),
        "--outputs",
        str(outputs),
        "--reference-platform",
        "interpreter",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "cpu vs reference interpreter:"
    with np.load(outputs) as saved:
        assert len(lines) == 1 + len(saved.files)
    assert lines[1].startswith("  out0 f32[8,16]: ")
    for line in lines[1:]:
        text = line.split(": ", 1)[1]
        assert text == "bit-identical" or "max ulp distance" in text


def test_run_reference_exit_status_for_integer_differences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    calls: list[str] = []

    from xlapy.interpreter.run import PLATFORMS

    def different(module, call, flush):  # type: ignore[no-untyped-def]
        calls.append("cpu")
        return [(np.array([1, 2], np.int32),)]

    program = tmp_path / "p.hlo"
    program.write_text(
        "HloModule m\nENTRY e {\n  ROOT c = (s32[2]) tuple(s32[2] constant({1, 3}))\n}\n"
    )
    saved = PLATFORMS["cpu"]
    PLATFORMS["cpu"] = different
    try:
        code, out = cli(capsys, "run", str(program), "--reference-platform", "interpreter")
    finally:
        PLATFORMS["cpu"] = saved
    assert calls == ["cpu"]
    assert code == 1
    assert "out0 s32[2]: 1 of 2 elements differ; max abs diff 1, max rel diff 0.333333" in out


def test_interpret_runs_check_tests_compiled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "checks.mlir"
    path.write_text(CHECKS)
    code_cpu, cpu = cli(capsys, "interpret", str(path), "--platform", "cpu")
    code_ref, reference = cli(capsys, "interpret", str(path))
    assert code_cpu == code_ref == 1
    assert cpu == reference
    assert cpu.splitlines()[-1] == "1 passed, 1 failed"


def test_conformance_tool_on_cpu(capsys: pytest.CaptureFixture[str]) -> None:
    tool = conformance_tool()
    if tool.corpus_root() is None:
        pytest.skip("conformance corpus not found at ../shared/conformance")
    assert tool.main(["--filter", "interpret/add.mlir", "--platform", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "conformance: 1/1 files pass" in out
    assert out.splitlines()[-1].endswith("on cpu")
