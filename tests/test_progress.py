"""Progress bars: shown on a terminal (a pseudo-terminal here), absent from pipes."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.terminal import xlapy_on_terminal
from xlapy.progress import Progress

PASSING = """func.func @main() {
  %0 = stablehlo.constant dense<2> : tensor<i32>
  %1 = stablehlo.add %0, %0 : tensor<i32>
  check.expect_eq_const %1, dense<4> : tensor<i32>
  func.return
}
"""
FAILING = PASSING.replace("dense<4>", "dense<5>")


def write_tests(tmp_path: Path) -> list[str]:
    files = []
    for k in range(4):
        path = tmp_path / f"t{k}.mlir"
        path.write_text(FAILING if k == 2 else PASSING)
        files.append(str(path))
    return files


def test_interpret_shows_progress_on_a_terminal(tmp_path: Path) -> None:
    files = write_tests(tmp_path)
    status, screen = xlapy_on_terminal(["interpret", *files])
    assert status == 1
    # The bar (tqdm's format): description, done/total, the status after it, an ETA.
    assert "interpret:" in screen
    assert "4/4" in screen
    assert "2 passed, 1 failed" in screen  # the status after the third file
    assert re.search(r"\| 1/4 \[\d\d:\d\d<\d\d:\d\d, ", screen)  # elapsed<ETA after one
    # Each result line reaches the screen whole, on its own line, with the bar lifted.
    assert re.search(r"\r +\rPASS [^\r]*t1.mlir:main\r\n", screen)
    # Results still arrive whole, one per line, and the summary is the last line.
    lines = [line.strip() for line in screen.replace("\r", "\n").split("\n") if line.strip()]
    assert lines[-1] == "3 passed, 1 failed"
    for k in range(4):
        verdict = "FAIL" if k == 2 else "PASS"
        assert any(line.startswith(f"{verdict} {files[k]}:main") for line in lines)


def test_interpret_in_a_pipe_prints_results_only(tmp_path: Path) -> None:
    files = write_tests(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "xlapy", "interpret", *files],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == ""
    expected = [f"{'FAIL' if k == 2 else 'PASS'} {files[k]}:main" for k in range(4)] + [
        "3 passed, 1 failed"
    ]
    got = [line.split(": ")[0] if line.startswith("FAIL") else line
           for line in result.stdout.splitlines()]  # fmt: skip
    assert got == expected


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_lines_above_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal, stdout lines pass above the bar whole; a partial line is kept until
    the bar closes; stdout is restored afterwards."""
    terminal, out = FakeTerminal(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    with Progress("work", 3, unit="file", stream=terminal) as progress:
        assert progress.enabled
        print("first")
        print("second", end="")
        progress.advance("1 passed, 0 failed")
        assert out.getvalue() == "first\n"
        assert progress.bar is not None
        bar = str(progress.bar)  # what tqdm draws (it redraws at most every 0.1 s)
        assert bar.startswith("work:  33%|")
        assert "| 1/3 [" in bar
        assert bar.endswith(", 1 passed, 0 failed]")
        assert "1/3" in terminal.getvalue()  # redrawn at once
    assert sys.stdout is out
    assert out.getvalue() == "first\nsecond"
    assert terminal.getvalue().startswith("\rwork:   0%|")  # drawn, then cleared when closed


def test_no_progress_off_a_terminal_or_for_one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    for stream, total in ((io.StringIO(), 5), (FakeTerminal(), 1)):
        with Progress("work", total, stream=stream) as progress:
            assert not progress.enabled
            assert sys.stdout is out
            progress.advance("x")
        assert stream.getvalue() == ""
