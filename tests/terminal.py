"""``xlapy`` commands run on a pseudo-terminal, for the tests of what is drawn only there."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path


def open_terminal() -> tuple[int, int]:
    """A pseudo-terminal of 40 rows by 120 columns (a new one has a size of 0 x 0): its
    leader and follower file descriptors."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    return leader, follower


def xlapy_on_terminal(
    args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """``xlapy ARGS`` with stdout and stderr on a pseudo-terminal of 40 rows by 120 columns
    (a new one has a size of 0 x 0), ``env`` added to the environment; its exit status and
    everything the terminal received."""
    leader, follower = open_terminal()
    process = subprocess.Popen(
        [sys.executable, "-m", "xlapy", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "xterm", **(env or {})},
        cwd=cwd,
    )
    os.close(follower)
    received = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            process.kill()
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    return process.wait(timeout=60), received.decode(errors="replace")
