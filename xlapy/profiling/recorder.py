"""``Profile``: the time of every instruction of the calls it observes, on both platforms, per
device; and ``profile()``, the block whose calls a profile records.

Two ways to profile::

    prof = xlapy.Profile()
    xlapy.run(module, x, platform="cpu", profile=prof)

    with xlapy.profile() as prof:         # every xlapy.run, Executable and jit call inside
        exe(x)
        exe(y)

    print(prof.table())                   # time per instruction, longest first
    prof.write_trace("trace.json")        # Chrome trace: one track per device

A profiled call runs observed code (``xlapy.profiling.observer``): on ``interpreter`` each
instruction's eval is timed, on ``cpu`` each kernel call of the plans (generated again with a
clock read around every step; kernels are not compiled again). Steps a plan pastes inline
(tuples, get-tuple-element, views) cost nothing and are not recorded. A whole while loop
compiled into one kernel is one event: its iterations are not seen.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from xlapy.errors import InvalidArgument
from xlapy.profiling.active import ACTIVE_PROFILE
from xlapy.profiling.observer import RunObserver
from xlapy.profiling.table import ProfileRow, Summary, format_table, summarize
from xlapy.profiling.trace import trace_events, write_trace


class Profile(RunObserver):
    """Records, per device, when every instruction, computation call and wait of the calls it
    observes began and ended. Reuse it over several calls to aggregate them (each call is
    a process of the trace)."""

    timed = True

    def summary(self) -> Summary:
        """The totals and per-instruction rows (``xlapy.profiling.table``)."""
        logs = (log for run in self.runs for log in run.logs)
        return summarize(logs, len(self.runs), self.objects)

    def rows(self) -> list[ProfileRow]:
        """One row per instruction executed, longest self time first."""
        return self.summary().rows

    def table(self, limit: int | None = 40) -> str:
        """The profile as text: totals, then the ``limit`` longest instructions (None: all)
        with count, total, mean, % of the run, bytes touched and achieved GB/s."""
        modules = dict.fromkeys(f"{run.module} on {run.platform}" for run in self.runs)
        title = "profile of " + (", ".join(modules) or "nothing (no call recorded)")
        return format_table(self.summary(), title, limit)

    def trace(self) -> dict[str, Any]:
        """The Chrome trace-event object (``xlapy.profiling.trace``)."""
        return trace_events(self)

    def write_trace(self, path: str | Path) -> None:
        """Writes the Chrome trace-event file (open it in Perfetto or chrome://tracing)."""
        write_trace(self, path)

    def __repr__(self) -> str:
        events = sum(len(log.events or ()) for run in self.runs for log in run.logs)
        return f"<Profile: {len(self.runs)} calls, {events} events>"


def check_profile(value: object) -> Profile:
    """``value`` when it is a Profile; raises InvalidArgument otherwise."""
    if not isinstance(value, Profile):
        raise InvalidArgument(
            f"run: profile must be an xlapy.Profile (or None); got {type(value).__name__}"
        )
    return value


@contextmanager
def profile(into: Profile | None = None) -> Iterator[Profile]:
    """Profiles every call made in the block (``xlapy.run``, ``Executable`` and ``jit``
    calls of this thread or task) into ``into`` or a new Profile, which it yields.

    A call given its own ``profile=`` records there instead. Blocks nest: the innermost
    one records.
    """
    if into is not None:
        check_profile(into)
    recorder = into if into is not None else Profile()
    token = ACTIVE_PROFILE.set(recorder)
    try:
        yield recorder
    finally:
        ACTIVE_PROFILE.reset(token)
