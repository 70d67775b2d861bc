"""A status line on the terminal while a long call compiles or runs (``run(progress=True)``,
``xlapy run``).

The line appears on stderr only when it is a terminal, and only once the call has taken
``delay`` seconds (2 s; ``$XLAPY_PROGRESS_DELAY`` overrides it); piped or redirected output
gets nothing, byte for byte, and such calls run unobserved. It is redrawn four times a
second from a thread of its own and erased when the call ends:

    compiling model: 14 passes, 230 kernels, now %fusion.12 [00:05]
    running model: 1,234,567 instructions, while loop.3 iteration 6,443 [00:12]

Compiling reports through ``CompileProgress`` (the pass pipeline's ``on_pass`` and the plan
builder); running reads the counts of the call's observer (``RunObserver``: a profile, or a
counting observer made for the display).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Never, Protocol, TextIO

from tqdm import tqdm

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.passes.pass_manager import Pass
from xlapy.profiling.active import COMPILE_PROGRESS
from xlapy.profiling.observer import RunObserver
from xlapy.progress import is_terminal

DELAY_SECONDS = 2.0
"""How long a call runs before its status line appears."""

REFRESH_SECONDS = 0.25


class ObservedCall(Protocol):
    """A call about to run (``interpreter.run.PreparedCall``): its observer may be set."""

    observer: RunObserver | None


def progress_delay() -> float:
    """``$XLAPY_PROGRESS_DELAY`` (seconds) when it is a number >= 0, else ``DELAY_SECONDS``."""
    try:
        delay = float(os.environ.get("XLAPY_PROGRESS_DELAY", DELAY_SECONDS))
    except ValueError:
        return DELAY_SECONDS
    return delay if delay >= 0 else DELAY_SECONDS


class CompileProgress:
    """Counts what the ``cpu`` compiler has done: passes run (and the last one), kernels built,
    instructions left to the interpreter, and the instruction it is building a kernel for."""

    def __init__(self) -> None:
        self.passes = 0
        self.last_pass = ""
        self.kernels = 0
        self.fallbacks = 0
        self.current = ""

    def pass_done(self, done: Pass, module: HloModule, changed: bool) -> None:
        """``Pipeline.on_pass``: one more pass ran."""
        self.passes += 1
        self.last_pass = done.name

    def kernel_started(self, instr: HloInstruction) -> None:
        """The plan builder looks for a kernel for ``instr``."""
        self.current = f"%{instr.name}"

    def kernel_done(self, compiled: bool) -> None:
        """The plan builder chose how the instruction runs: a kernel, or the interpreter's
        eval."""
        if compiled:
            self.kernels += 1
        else:
            self.fallbacks += 1

    @property
    def started(self) -> bool:
        return bool(self.passes or self.current)

    def status(self) -> str:
        """``N passes (last P)`` while passes run, then ``N passes, K kernels, now %I``."""
        if not self.current:
            return f"{self.passes} passes (last {self.last_pass})"
        text = f"{self.passes} passes, {self.kernels} kernels"
        if self.fallbacks:
            text += f", {self.fallbacks} interpreted"
        return f"{text}, now {self.current}"


class StatusLine:
    """A line on ``stream`` showing ``describe()`` (and the time elapsed), drawn by a thread
    after ``delay`` seconds and redrawn until ``stop()``, which erases it."""

    def __init__(self, stream: TextIO, describe: Callable[[], str], delay: float) -> None:
        self.stream = stream
        self.describe = describe
        self.delay = delay
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._draw, name="xlapy-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _draw(self) -> None:
        if self._stop.wait(self.delay):
            return
        bar: tqdm[Never] = tqdm(
            file=self.stream,
            bar_format="{desc} [{elapsed}]",
            desc=self.describe(),
            dynamic_ncols=True,
            leave=False,
        )
        try:
            while not self._stop.wait(REFRESH_SECONDS):
                bar.set_description_str(self.describe(), refresh=True)
        finally:
            bar.close()


@contextmanager
def show_progress(
    module: HloModule, call: ObservedCall, platform: str, stream: TextIO | None = None
) -> Iterator[None]:
    """Shows the status line of ``call`` while the block runs it, when ``stream`` (stderr)
    is a terminal; gives the call a counting observer when it has none."""
    stream = stream if stream is not None else sys.stderr
    if not is_terminal(stream):
        yield
        return
    observer = call.observer
    if observer is None:
        observer = call.observer = RunObserver()
    earlier = len(observer.runs)  # a profile reused over calls: only this call counts
    compiling = CompileProgress()
    name = module.name

    def describe() -> str:
        if len(observer.runs) > earlier:
            return f"running {name} on {platform}: {observer.status()}"
        if compiling.started:
            return f"compiling {name}: {compiling.status()}"
        return f"starting {name} on {platform}"

    line = StatusLine(stream, describe, progress_delay())
    token = COMPILE_PROGRESS.set(compiling)
    line.start()
    try:
        yield
    finally:
        COMPILE_PROGRESS.reset(token)
        line.stop()
