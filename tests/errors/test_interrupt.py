"""Ctrl-C during ``xlapy run``: the run stops within a second, names the instruction and the
loop iteration it was in, prints no traceback and exits with 130 (issue #14)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("platform", ["interpreter"])
def test_ctrl_c_in_a_long_loop_stops_and_names_the_place(tmp_path: Path, platform: str) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.ones(4, np.float32))
    command = [sys.executable, "-m", "xlapy", "run", str(DATA / "endless_loop.hlo")]
    command += ["--inputs", str(inputs), "--platform", platform]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(5)  # imports, load, then well inside the 2e9-iteration loop (on a busy machine)
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=10)
    assert time.monotonic() - sent < 3  # about 0.3 s on an idle machine
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert re.fullmatch(r"interrupted in \S+ \S+ \(while w, iteration \d+\)\n", err), err
