"""Progress bars for long commands, on a terminal only: a thin wrapper on ``tqdm``.

The bar goes to stderr, and only when stderr is a TTY (and there is more than one step):
piped or redirected output gets nothing extra, byte for byte. While a bar is shown, lines
printed to stdout lift the bar (tqdm clears it), print, and redraw it, so that results and
bar never share a screen line.
"""

from __future__ import annotations

import io
import sys
from types import TracebackType
from typing import Never, TextIO

from tqdm import tqdm


def is_terminal(stream: TextIO) -> bool:
    """True when ``stream`` is an interactive terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams
        return False


class _LinesAboveBar(io.TextIOBase):
    """Stands for stdout while a bar is shown: complete lines go out with the bar lifted
    (tqdm's ``clear``, then ``refresh``); a partial line waits for its end, or ``finish``."""

    def __init__(self, target: TextIO, bar: tqdm[Never]) -> None:
        super().__init__()
        self.target = target
        self.bar = bar
        self.pending = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return is_terminal(self.target)

    def write(self, text: str) -> int:
        lines, newline, self.pending = (self.pending + text).rpartition("\n")
        if newline:
            self.bar.clear()
            self.target.write(lines + newline)
            self.target.flush()
            self.bar.refresh()
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def finish(self) -> None:
        if self.pending:
            self.target.write(self.pending)
            self.pending = ""
        self.target.flush()


class Progress:
    """A bar of ``done/total`` steps, with a status (e.g. passes and failures so far), the
    rate and the ETA, on stderr when it is a terminal; otherwise it does nothing.

    Use as a context manager; call ``advance()`` after each step::

        with Progress("interpret", len(files), unit="file") as progress:
            for path in files:
                ...
                progress.advance(f"{passed} passed, {failed} failed")
    """

    def __init__(self, description: str, total: int, *, unit: str = "it",
                 stream: TextIO | None = None) -> None:  # fmt: skip
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = total > 1 and is_terminal(self.stream)
        self.description = description
        self.total = total
        self.unit = unit
        self.bar: tqdm[Never] | None = None
        self.saved_stdout: TextIO | None = None
        self.lines: _LinesAboveBar | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            bar: tqdm[Never] = tqdm(
                total=self.total,
                desc=self.description,
                unit=self.unit,
                file=self.stream,
                dynamic_ncols=True,
                leave=False,
            )
            self.bar = bar
            self.saved_stdout = sys.stdout
            self.lines = _LinesAboveBar(sys.stdout, bar)
            sys.stdout = self.lines
        return self

    def advance(self, status: str = "", steps: int = 1) -> None:
        """Counts ``steps`` more as done and shows ``status`` after the bar. Redraws at once:
        steps are files or programs, slow enough that every one can be seen."""
        if self.bar is not None:
            self.bar.set_postfix_str(status, refresh=False)
            self.bar.update(steps)
            self.bar.refresh()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.saved_stdout is not None and self.lines is not None:
            sys.stdout = self.saved_stdout
            self.lines.finish()
            self.saved_stdout = self.lines = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None
