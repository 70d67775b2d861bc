"""Ctrl-C during ``xlapy run``: the run stops within a second, names the instruction and the
loop iteration it was in, prints no traceback and exits with 130 (issue #14); an endless loop
runs until then on both platforms, a compiled one included (issue #20: it returned a value)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.terminal import open_terminal

DATA = Path(__file__).parent / "data"

ENDLESS = """HloModule endless
forever_cond {
  i = s32[] parameter(0)
  ROOT yes = pred[] constant(true)
}
forever_body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(i, one)
}
ENTRY main {
  zero = s32[] constant(0)
  ROOT endless_loop = s32[] while(zero), condition=forever_cond, body=forever_body
}
"""


def _interrupted(command: list[str], running: bytes) -> tuple[int, str, float]:
    """Runs ``xlapy COMMAND`` on a pseudo-terminal, where the status line says when the run
    has started (after imports and compilation, seconds on a busy machine); sends Ctrl-C 2 s
    after ``running`` appears. Its exit status, everything it printed, and how long it took
    to stop."""
    leader, follower = open_terminal()
    env = {**os.environ, "TERM": "xterm", "XLAPY_PROGRESS_DELAY": "0.2"}
    process = subprocess.Popen(
        [sys.executable, "-m", "xlapy", *command],
        stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env,
    )  # fmt: skip
    os.close(follower)
    received, sent = b"", None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if sent is None and running in received:
            time.sleep(2)
            assert process.poll() is None, received  # (issue #20: an endless loop returned)
            process.send_signal(signal.SIGINT)
            sent = time.monotonic()
        ready, _, _ = select.select([leader], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    if sent is None:
        process.kill()
    code = process.wait(timeout=30)
    assert sent is not None, received
    return code, received.decode(errors="replace"), time.monotonic() - sent


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_ctrl_c_in_a_long_loop_stops_and_names_the_place(tmp_path: Path, platform: str) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.ones(4, np.float32))
    command = ["run", str(DATA / "endless_loop.hlo"), "--inputs", str(inputs)]
    code, text, took = _interrupted([*command, "--platform", platform], b"running forever")
    assert took < 6  # about 0.3 s on an idle machine, 2-3 s at a load of 13 on 2 cores
    assert code == 130, text
    assert "Traceback" not in text
    assert "out0" not in text
    assert re.search(r"\rinterrupted in \S+ \S+ \(while w, iteration \d+\)\r\n$", text), text


@pytest.mark.parametrize("platform", ["cpu", "interpreter"])
def test_an_endless_loop_runs_until_ctrl_c(tmp_path: Path, platform: str) -> None:
    program = tmp_path / "endless.hlo"
    program.write_text(ENDLESS)
    command = ["run", str(program), "--platform", platform]
    code, text, took = _interrupted(command, b"running endless")
    assert took < 6
    assert code == 130, text
    assert "Traceback" not in text
    assert "out0" not in text
    # the innermost instruction: the loop on cpu (one kernel), the one of its body or
    # condition that was running on the interpreter
    where = r"\rinterrupted in \S+ \S+ \(while endless_loop, iteration \d+\)\r\n$"
    assert re.search(where, text), text
