"""The status line of long calls: drawn on a terminal (a stream that says it is one, or a
pseudo-terminal for the CLI) while compiling or running, never on pipes."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xlapy
from tests.profile.programs import loop_text
from tests.terminal import xlapy_on_terminal
from xlapy.profiling import live
from xlapy.profiling.active import COMPILE_PROGRESS
from xlapy.profiling.live import CompileProgress, progress_delay


class Terminal(io.StringIO):
    """A stderr that says it is a terminal and keeps what was drawn."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line drawn at once and redrawn every 10 ms: a loop of a few tenths of a second is
    seen running however fast the machine is."""
    monkeypatch.setenv("XLAPY_PROGRESS_DELAY", "0")
    monkeypatch.setattr(live, "REFRESH_SECONDS", 0.01)


def test_delay_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLAPY_PROGRESS_DELAY", raising=False)
    assert progress_delay() == 2.0
    for text, want in (("0.5", 0.5), ("0", 0.0), ("-1", 2.0), ("soon", 2.0)):
        monkeypatch.setenv("XLAPY_PROGRESS_DELAY", text)
        assert progress_delay() == want


@pytest.mark.usefixtures("no_delay")
def test_running_loop_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    module = xlapy.load(loop_text(2500))
    x = np.ones(4, np.float32)
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    got = xlapy.run(module, x, progress=True, platform="interpreter")
    monkeypatch.undo()
    np.testing.assert_array_equal(got[0], xlapy.run(module, x, platform="interpreter")[0])
    drawn = screen.getvalue()
    assert "running loop on interpreter: " in drawn
    # 10 instructions per iteration (3 in the condition, 7 in the body), counted as they run.
    assert " instructions, while w iteration " in drawn
    assert drawn.endswith("\r")  # the line is erased at the end


@pytest.mark.usefixtures("no_delay")
def test_running_python_loop_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    module = xlapy.load(loop_text(1500, custom_call=True))
    x = np.ones(4, np.float32)
    xlapy.run(module, x, platform="cpu")  # compiled (and cached) before the screen is watched
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    xlapy.run(module, x, platform="cpu", progress=True)
    monkeypatch.undo()
    assert "running loop on cpu: " in screen.getvalue()
    assert ", while w iteration " in screen.getvalue()


def test_nothing_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch, no_delay: None) -> None:
    module = xlapy.load(loop_text(500))
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    xlapy.run(module, np.ones(4, np.float32), progress=True, platform="interpreter")
    monkeypatch.undo()
    assert pipe.getvalue() == ""


def test_compile_progress_counts_passes_and_kernels(tmp_path: Path) -> None:
    module = xlapy.load(loop_text(3, custom_call=True))
    progress = CompileProgress()
    token = COMPILE_PROGRESS.set(progress)
    try:
        # An empty cache: with the optimized module of an earlier run cached, no pass runs.
        exe = xlapy.compile(module, cache_dir=tmp_path)
    finally:
        COMPILE_PROGRESS.reset(token)
    assert progress.passes > 0
    assert progress.last_pass
    program = exe._program
    assert program is not None
    records = [r for plan in program.plans.values() for r in plan.records]
    assert progress.kernels == sum(r.kind == "kernel" for r in records)
    assert progress.fallbacks == sum(r.kind == "fallback" for r in records) == 1  # the custom call
    assert progress.status().startswith(f"{progress.passes} passes, {progress.kernels} kernels")
    assert ", 1 interpreted, now %" in progress.status()


def test_cli_run_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    (tmp_path / "loop.hlo").write_text(loop_text(3000))
    np.savez(tmp_path / "in.npz", arg0=np.ones(4, np.float32))
    args = ["run", "loop.hlo", "--inputs", "in.npz", "--platform", "interpreter"]
    status, screen = xlapy_on_terminal(args, tmp_path, {"XLAPY_PROGRESS_DELAY": "0.2"})
    assert status == 0
    assert "running loop on interpreter: " in screen
    assert ", while w iteration " in screen
    assert "out0 = tensor<4xf32>" in screen
    piped = subprocess.run(
        [sys.executable, "-m", "xlapy", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "XLAPY_PROGRESS_DELAY": "0"},
        check=True,
    )
    assert piped.stderr == ""
    assert piped.stdout.startswith("out0 = tensor<4xf32> {")
