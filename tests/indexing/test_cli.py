"""The ``xlapy indexing`` command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.indexing.conftest import squash
from xlapy.cli import main

HLO = """HloModule m
f {
  p0 = f32[1000, 1000] parameter(0)
  transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
  ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)
}
ENTRY e {
  p0 = f32[1000,1000] parameter(0)
  ROOT fusion = f32[1000,1000] fusion(p0), kind=kLoop, calls=f
}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(["indexing", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_fusion_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(HLO)
    rc, out, _ = run(capsys, str(path))
    assert rc == 0
    assert squash(out) == squash(
        """operand id = 0
             (d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]
             (d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]"""
    )


def test_named_instruction_input_to_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(HLO)
    rc, out, _ = run(capsys, str(path), "--instruction", "transpose_p0", "--input-to-output")
    assert rc == 0
    assert squash(out) == squash(
        "operand id = 0 (d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]"
    )
    rc, out, _ = run(capsys, str(path), "--instruction", "transpose_p0", "--physical-layout")
    assert squash(out) == squash(
        "operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]"
    )


def test_simplify_flag(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(
        capsys,
        "--simplify",
        "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
    )
    assert rc == 0
    assert squash(out) == squash("(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]")


def test_errors_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "--simplify", "(d0) -> (d7), domain: d0 in [0, 1]")
    assert rc == 2
    assert "1:10" in err
    path = tmp_path / "m.hlo"
    path.write_text(HLO)
    rc, _, err = run(capsys, str(path), "--instruction", "nope")
    assert rc == 2
    assert "no instruction named 'nope'" in err
    rc, _, err = run(capsys, str(path), "--input-to-output", "--operand", "3")
    assert rc == 2
    assert "--operand 3" in err
