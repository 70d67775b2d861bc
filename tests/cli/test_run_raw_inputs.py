"""``xlapy run --inputs`` takes arrays saved as raw bits (bf16 as numpy saves ml_dtypes arrays,
``|V2``, or as uint16) and refuses other byte sizes naming the entry (issue #15 item 6)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from xlapy.cli import main

PROGRAM = """HloModule double

ENTRY main {
  x = bf16[3] parameter(0)
  ROOT y = bf16[3] add(x, x)
}
"""


@pytest.mark.parametrize("saved_as", ["bf16", "void", "uint16"])
def test_bf16_inputs_as_numpy_saves_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], saved_as: str
) -> None:
    x = np.array([1.5, -2.0, 0.25], ml_dtypes.bfloat16)
    stored = {"bf16": x, "void": x.view("V2"), "uint16": x.view(np.uint16)}[saved_as]
    (tmp_path / "p.hlo").write_text(PROGRAM)
    np.savez(tmp_path / "in.npz", arg0=stored)
    argv = ["run", str(tmp_path / "p.hlo"), "--inputs", str(tmp_path / "in.npz")]
    assert main([*argv, "--platform", "interpreter", "--outputs", str(tmp_path / "o.npz")]) == 0
    with np.load(tmp_path / "o.npz") as out:
        got = out["out0"].view(ml_dtypes.bfloat16)
    assert got.tolist() == [3.0, -4.0, 0.5]


def test_raw_bits_of_another_size_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.hlo").write_text(PROGRAM)
    np.savez(tmp_path / "in.npz", arg0=np.zeros(3, np.uint32))
    argv = ["run", str(tmp_path / "p.hlo"), "--inputs", str(tmp_path / "in.npz")]
    assert main(argv) == 2
    assert "arg0 holds 12 bytes (uint32[3]) but the parameter bf16[3] takes 6" in (
        capsys.readouterr().err
    )
