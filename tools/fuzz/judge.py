"""What counts as a finding: the property every input path must keep.

An input either works or raises an ``XlaError`` whose message names the place: a
``ParseError`` with a line and column, any other error with a ``<place>: <rule>`` first line
(an op and instruction, a function, ``argument 0 (x)``, ``--inputs file``...). Findings are:

* ``exception``: any other exception (``RecursionError``, ``IndexError``, ``MemoryError``...);
* ``internal-error``: an ``XlaError`` wrapping an internal failure (``internal error``,
  ``device failed: IndexError``), which is a bug and not a clear error;
* ``unlocated``: an ``XlaError`` whose message names no place;
* ``hang``: a case still running after the time limit outside the evaluator (a long-running
  program is legitimate: XLA does not bound loops either);
* ``memory``: the worker's memory grew past its limit (a runaway allocation);
* ``crash``: the worker died (a segmentation fault, an abort);
* ``round-trip``: a module's printed text does not load again.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from xlapy.errors import ParseError, XlaError

_PLACE = re.compile(r"^[^\s:][^\n]{0,240}?: \S")
_INTERNAL = ("internal error", "device failed:")
SLOW_STAGES = frozenset({"run"})
"""Stages in which running out of time is not a finding: the evaluator running a long
program (a mutated loop bound, a large iteration space)."""


@dataclass
class Finding:
    """One failure of the property.

    Attributes:
        target: the input path (``hlo``, ``mlir``, ``npz``, ``run-args``, ``builder``,
            ``indexing``).
        kind: ``exception``, ``internal-error``, ``unlocated``, ``hang``, ``memory``, ``crash``
            or ``round-trip``.
        summary: the exception type and message (first line, shortened).
        where: the innermost ``file:line`` of the traceback inside xlapy ('' if none).
        stage: what the case was doing (``load``, ``print``, ``run``...).
        label: where the input came from (a seed and its mutations, a strategy).
        repro: the input (text, bytes or, for structured cases, Python source).
        traceback: the formatted traceback, when there is one.
    """

    target: str
    kind: str
    summary: str
    where: str = ""
    stage: str = ""
    label: str = ""
    repro: str | bytes = ""
    traceback: str = field(default="", repr=False)

    @property
    def signature(self) -> tuple[str, str, str, str]:
        """Findings with one signature are one bug: target, kind, exception type and place."""
        head = self.summary.split(":", 1)[0] if self.kind != "unlocated" else self.summary[:60]
        return (self.target, self.kind, head, self.where or self.stage)


def innermost_xlapy_frame(err: BaseException) -> str:
    """``path:line`` of the innermost traceback frame in xlapy (else the innermost frame)."""
    frames = traceback.extract_tb(err.__traceback__)
    inside = [f for f in frames if "/xlapy/" in f.filename] or frames
    if not inside:
        return ""
    frame = inside[-1]
    path = Path(frame.filename)
    parts = path.parts
    name = "/".join(parts[parts.index("xlapy") :]) if "xlapy" in parts else path.name
    return f"{name}:{frame.lineno}"


def _short(text: str, limit: int = 300) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= limit else first[: limit - 3] + "..."


def judge(err: BaseException, target: str, stage: str) -> Finding | None:
    """The finding ``err`` (raised by a case of ``target`` in ``stage``) is, or None when it
    is a clear, located ``XlaError``."""
    trace = "".join(traceback.format_exception(err))
    if isinstance(err, XlaError):
        message = str(err)
        kind = ""
        if any(mark in message for mark in _INTERNAL):
            kind = "internal-error"
        elif isinstance(err, ParseError):
            kind = "" if err.line >= 1 and err.column >= 1 else "unlocated"
        elif not _PLACE.match(message):
            kind = "unlocated"
        if not kind:
            return None
        return Finding(target, kind, f"{type(err).__name__}: {_short(message)}",
                       innermost_xlapy_frame(err), stage, traceback=trace)  # fmt: skip
    summary = f"{type(err).__name__}: {_short(str(err))}"
    return Finding(target, "exception", summary, innermost_xlapy_frame(err), stage,
                   traceback=trace)  # fmt: skip
