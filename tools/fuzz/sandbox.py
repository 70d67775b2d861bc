"""Cases run in a forked worker process, bounded in time and memory.

The worker (``_serve``) takes commands from the supervising process: ``fuzz`` (generate and
run cases of one target until a case count or a deadline) or ``exec`` (run one given case).
Before each case it sends the case, then each stage the case enters, then any finding.

Bounds:

* time: the worker interrupts its own case after ``Limits.case_seconds`` (an interval timer
  raising ``CaseTimeout``); when that does not come back (a loop inside C code), the
  supervisor kills the worker ``grace_seconds`` later. Out of time outside the ``run`` stage
  is a ``hang`` finding; a long run is only counted as slow. The time between cases (the
  worker starting, hypothesis drawing the next input) is the fuzzer's, not a case's: past
  ``between_cases_seconds`` the worker is replaced with a note, never a finding.
* memory: the supervisor reads the worker's resident size every 50 ms and kills it above
  ``Limits.memory_bytes``: a ``memory`` finding (runs are given ``max_memory`` well below, so
  only an allocation the static check does not foresee gets there).
* crashes: a worker that dies is a ``crash`` finding.

A killed worker is replaced by a fresh fork, which continues the command with what is left.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from tools.fuzz.judge import SLOW_STAGES, Finding, judge
from tools.fuzz.targets import TARGETS, Case, RoundTripError


class CaseTimeout(BaseException):
    """Raised in the worker when a case outlives ``Limits.case_seconds`` (a BaseException, so
    that no ``except Exception`` in the code under test swallows it)."""


@dataclass(frozen=True)
class Limits:
    """Per-case bounds: seconds before the worker interrupts a case, seconds more before the
    supervisor kills it, the worker's resident-memory limit, and the seconds the worker may
    take between cases."""

    case_seconds: float = 5.0
    grace_seconds: float = 5.0
    memory_bytes: int = 2 << 30
    between_cases_seconds: float = 60.0


def repro_of(case: Case) -> str | bytes:
    """What reproduces ``case``: its text or bytes, or a structured case's Python source."""
    if isinstance(case.data, str | bytes):
        return case.data
    source = getattr(case.data, "source", None)
    return source() if callable(source) else repr(case.data)


class _Reporter:
    """The worker's side of the pipe."""

    def __init__(self, conn: Connection, limits: Limits) -> None:
        self.conn = conn
        self.limits = limits
        self.stage = "start"
        self.exit_after_case = False

    def set_stage(self, name: str) -> None:
        self.stage = name
        self.conn.send(("stage", name))

    def execute(self, case: Case) -> tuple[str, Finding | None]:
        """Runs ``case`` under the time limit; returns its outcome (``ok``, ``error``,
        ``slow`` or ``finding``) and the finding, if any (not yet sent)."""
        self.conn.send(("case", case.target, case.label, case.program, repro_of(case)))
        self.stage = "start"
        target = TARGETS[case.target]
        finding: Finding | None = None
        outcome = "ok"
        signal.setitimer(signal.ITIMER_REAL, self.limits.case_seconds)
        try:
            target.run(case, self.set_stage)
        except CaseTimeout:
            if self.stage in SLOW_STAGES:
                outcome = "slow"
            else:
                summary = f"no result after {self.limits.case_seconds:g} s"
                finding = Finding(case.target, "hang", summary, stage=self.stage)
            # Device threads of an interrupted run may still be going: start afresh.
            self.exit_after_case = threading.active_count() > 1
        except RoundTripError as err:
            finding = Finding(case.target, "round-trip", str(err), stage=self.stage)
        except BaseException as err:
            finding = judge(err, case.target, self.stage)
            outcome = "error"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if finding is not None:
            finding.label = case.label
            if case.program:  # what the replay command and the minimizer run it with
                finding.label += f" [program {case.program}]"
            finding.repro = repro_of(case)
            outcome = "finding"
        self.conn.send(("outcome", outcome))
        return outcome, finding


def _on_alarm(signum: int, frame: object) -> None:
    raise CaseTimeout


def _fuzz_text(reporter: _Reporter, target: str, seed: int, cases: int, deadline: float) -> None:
    import random

    generate = TARGETS[target].generate
    assert generate is not None
    rng = random.Random(seed)
    for _ in range(cases):
        if time.time() >= deadline or reporter.exit_after_case:
            return
        _, finding = reporter.execute(generate(rng))
        if finding is not None:
            reporter.conn.send(("finding", finding))


def _serve(conn: Connection, limits: Limits) -> None:
    """The worker's loop: one command at a time until ``quit`` or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the supervisor's to handle
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # what programs print (check ops, custom calls) is not the report
    os.dup2(devnull, 2)
    signal.signal(signal.SIGALRM, _on_alarm)
    # xlapy's default budgets (80% of the memory available) are taken against the worker's
    # share, so a load or run that the budget admits stays below the worker's limit.
    from xlapy.ir import memory

    memory.available_memory = lambda: limits.memory_bytes // 2
    reporter = _Reporter(conn, limits)
    while True:
        try:
            command = conn.recv()
        except EOFError:
            return
        if command[0] == "quit":
            return
        if command[0] == "fuzz":
            _, target, seed, cases, deadline = command
            if TARGETS[target].generate is not None:
                _fuzz_text(reporter, target, seed, cases, deadline)
            else:
                from tools.fuzz.structured import fuzz_structured

                fuzz_structured(reporter, target, seed, cases, deadline)
        elif command[0] == "exec":
            _, finding = reporter.execute(command[1])
            conn.send(("result", finding))
        conn.send(("done",))
        if reporter.exit_after_case:
            os._exit(0)


def _resident_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Worker:
    """The supervisor's handle on one forked worker."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        context = multiprocessing.get_context("fork")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, limits), daemon=True)
        self.process.start()
        child.close()

    def close(self) -> None:
        """Stops the worker (a kill: it holds nothing worth a clean exit)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()

    def request(self, command: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        """Sends ``command`` and yields the worker's messages up to ``("done",)``. When the
        worker must be killed or dies, yields ``("killed", kind, case, stage)`` last (kind:
        ``hang``, ``memory`` or ``crash``; ``case`` is the last ``case`` message or None) and
        the worker is unusable; a worker stalled between cases yields a note and
        ``("restart",)``."""
        self.conn.send(command)
        case: tuple[Any, ...] | None = None
        stage = "start"
        started = time.monotonic()
        in_case = False
        while True:
            if self.conn.poll(0.05):
                try:
                    message = self.conn.recv()
                except (EOFError, OSError):
                    yield self._dead(case, stage)
                    return
                if message[0] == "case":
                    case, stage, started, in_case = message, "start", time.monotonic(), True
                elif message[0] == "outcome":
                    started, in_case = time.monotonic(), False
                elif message[0] == "stage":
                    stage = message[1]
                yield message
                if message[0] == "done":
                    return
                continue
            if not self.process.is_alive():
                yield self._dead(case, stage)
                return
            waited = time.monotonic() - started
            if in_case and waited > self.limits.case_seconds + self.limits.grace_seconds:
                self.close()
                yield ("killed", "hang", case, stage)
                return
            if not in_case and waited > self.limits.between_cases_seconds:
                self.close()
                yield ("note", f"a worker stalled {waited:.0f} s between cases; replaced")
                yield ("restart",)
                return
            if _resident_bytes(self.process.pid or 0) > self.limits.memory_bytes:
                self.close()
                yield ("killed", "memory", case, stage)
                return

    def _dead(self, case: tuple[Any, ...] | None, stage: str) -> tuple[Any, ...]:
        self.process.join(5)
        code = self.process.exitcode
        self.conn.close()
        if code == 0:  # it left on purpose (threads of an interrupted run)
            return ("restart",)
        return ("killed", f"crash (exit code {code})", case, stage)
