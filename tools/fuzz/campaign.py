"""A fuzzing campaign: targets in turn, in sandboxed workers, for a time or a case count;
findings deduplicated by signature, hangs confirmed, text inputs minimized, reproducers written
to disk.
"""

from __future__ import annotations

import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tools.fuzz.judge import SLOW_STAGES, Finding
from tools.fuzz.sandbox import Limits, Worker
from tools.fuzz.targets import TARGETS, Case

MUTATION_TARGETS = ("hlo", "mlir", "npz", "indexing")
STRUCTURED_TARGETS = ("builder", "run-args", "indexing-maps")


@dataclass
class Campaign:
    """Counts and findings of a campaign (``outcomes``: ok / error / slow / finding per
    target; ``notes``: hypothesis's own complaints, worker restarts)."""

    findings: list[Finding] = field(default_factory=list)
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def cases(self, target: str | None = None) -> int:
        return sum(n for (t, _), n in self.outcomes.items() if target in (None, t))


def _killed(message: tuple[Any, ...], target: str, limits: Limits) -> Finding | None:
    """The finding of a worker killed (or dead) during a case; None for a slow run."""
    _, kind, case, stage = message
    if kind == "hang" and stage in SLOW_STAGES:
        return None
    if kind == "hang":
        summary = f"no result after {limits.case_seconds + limits.grace_seconds:g} s"
    elif kind == "memory":
        summary = f"resident memory above {limits.memory_bytes >> 20} MiB"
    else:
        summary = f"the worker died: {kind}"
    finding = Finding(target, kind.split()[0], summary, stage=stage)
    if case is not None:
        _, _, finding.label, program, finding.repro = case
        finding.target = case[1]
        if program:
            finding.label += f" [program {program}]"
    return finding


class Pool:
    """One supervised worker, replaced whenever it is killed or leaves."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.worker: Worker | None = None

    def request(self, command: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        if self.worker is None or not self.worker.process.is_alive():
            if self.worker is not None:
                self.worker.close()
            self.worker = Worker(self.limits)
        for message in self.worker.request(command):
            if message[0] in ("killed", "restart"):
                self.worker.close()
                self.worker = None
            yield message

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def run_target(
    pool: Pool, target: str, seed: int, cases: int, deadline: float, campaign: Campaign,
    on_finding: Callable[[Finding], None],
) -> None:  # fmt: skip
    """Fuzzes ``target`` for ``cases`` cases or until ``deadline`` (restarting the worker as
    often as needed, each time with a seed derived from the cases done)."""
    done = 0
    restarts = 0
    while done < cases and time.time() < deadline:
        command = ("fuzz", target, seed + 7919 * restarts, cases - done, deadline)
        finished = False
        for message in pool.request(command):
            kind = message[0]
            if kind == "case":
                done += 1
            elif kind == "outcome":
                campaign.outcomes[(target, message[1])] += 1
            elif kind == "finding":
                on_finding(message[1])
            elif kind == "note":
                campaign.notes.append(message[1])
            elif kind == "killed":
                finding = _killed(message, target, pool.limits)
                campaign.outcomes[(target, "finding" if finding else "slow")] += 1
                if finding is not None:
                    on_finding(finding)
            elif kind == "done":
                finished = True
        if finished and pool.worker is not None:
            return
        restarts += 1


def execute(pool: Pool, case: Case) -> Finding | None:
    """Runs one case in the pool's worker; its finding (a killed worker included)."""
    result: Finding | None = None
    for message in pool.request(("exec", case)):
        if message[0] == "result":
            result = message[1]
        elif message[0] == "killed":
            result = _killed(message, case.target, pool.limits)
    return result


# ---- confirmation and minimization -------------------------------------------------------------

CONFIRM_FACTOR = 4
"""A hang is confirmed by running its input again with this many times the time limits."""


def confirm_hang(limits: Limits, finding: Finding, program: str) -> bool:
    """Whether a hang of a text input happens again in a fresh worker given ``CONFIRM_FACTOR``
    times the time: on a busy machine (the campaign runs niced beside other work) a worker
    starved of the CPU misses the limit on an input that takes a fraction of it. Structured
    inputs (kept as source only) are not re-run: their hangs stand."""
    if TARGETS[finding.target].extension == "py" or not isinstance(finding.repro, str | bytes):
        return True
    relaxed = replace(limits, case_seconds=limits.case_seconds * CONFIRM_FACTOR,
                      grace_seconds=limits.grace_seconds * CONFIRM_FACTOR)  # fmt: skip
    pool = Pool(relaxed)
    try:
        again = execute(pool, Case(finding.target, "confirm", finding.repro, program=program))
    finally:
        pool.close()
    return again is not None and again.kind == "hang"


def _chunks(data: str | bytes, pieces: int) -> Iterator[str | bytes]:
    """``data`` with one of ``pieces`` equal runs removed, for each run."""
    size = max(1, len(data) // pieces)
    for start in range(0, len(data), size):
        yield data[:start] + data[start + size :]


def _token_deletions(text: str) -> Iterator[str]:
    import re

    spans = [m.span() for m in re.finditer(r"\w+|\S", text)]
    for start, end in reversed(spans):
        yield text[:start] + text[end:]


def minimize(pool: Pool, finding: Finding, program: str, budget_seconds: float) -> str | bytes:
    """A smaller input with the same signature (lines, then runs of characters, then single
    tokens removed while the finding stays), within ``budget_seconds``."""
    data = finding.repro
    if finding.kind in ("hang", "memory", "crash") or not isinstance(data, str | bytes):
        return data
    if TARGETS[finding.target].extension == "py":
        return data  # a structured case: hypothesis shrank it already
    deadline = time.time() + budget_seconds
    signature = finding.signature

    def keeps(candidate: str | bytes) -> bool:
        if time.time() > deadline:
            return False
        got = execute(pool, Case(finding.target, "minimize", candidate, program=program))
        return got is not None and got.signature == signature

    if isinstance(data, str):
        lines = data.splitlines(keepends=True)
        i = 0
        while i < len(lines) and time.time() < deadline:
            candidate = "".join(lines[:i] + lines[i + 1 :])
            if keeps(candidate):
                lines.pop(i)
            else:
                i += 1
        data = "".join(lines)
    pieces = 2
    while pieces <= len(data) and time.time() < deadline:
        for candidate in _chunks(data, pieces):
            if keeps(candidate):
                data = candidate
                pieces = max(pieces - 1, 2)
                break
        else:
            pieces *= 2
    if isinstance(data, str):
        changed = True
        while changed and time.time() < deadline:
            changed = False
            for candidate in _token_deletions(data):
                if keeps(candidate):
                    data, changed = candidate, True
                    break
    return data


# ---- the campaign ----------------------------------------------------------------------------


def fuzz(
    targets: Sequence[str],
    *,
    seconds: float,
    seed: int,
    cases_per_target: int | None = None,
    limits: Limits | None = None,
    minimize_seconds: float = 20.0,
    log: Callable[[str], None] = lambda _: None,
) -> Campaign:
    """Fuzzes ``targets`` in turn (time slices of a few seconds, or ``cases_per_target``
    cases each in one pass) until ``seconds`` have passed; new findings are minimized."""
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise ValueError(f"unknown fuzz targets {unknown}; known: {sorted(TARGETS)}")
    limits = limits or Limits()
    campaign = Campaign()
    seen: set[tuple[str, str, str, str]] = set()
    start = time.time()
    end = start + seconds
    fuzzing, minimizing = Pool(limits), Pool(limits)

    def on_finding(finding: Finding) -> None:
        if finding.signature in seen:
            return
        seen.add(finding.signature)
        campaign.findings.append(finding)
        log(f"finding {len(campaign.findings)}: {finding.target} {finding.kind}: {finding.summary}")

    try:
        round_index = 0
        while time.time() < end:
            for index, target in enumerate(targets):
                if time.time() >= end:
                    break
                target_seed = zlib.crc32(f"{seed}/{target}/{round_index}".encode())
                if cases_per_target is not None:
                    run_target(fuzzing, target, target_seed, cases_per_target, end, campaign,
                               on_finding)  # fmt: skip
                    continue
                left = len(targets) - index
                share = max(2.0, min(15.0, (end - time.time()) / left))
                run_target(fuzzing, target, target_seed, 10**9, min(end, time.time() + share),
                           campaign, on_finding)  # fmt: skip
            round_index += 1
            if cases_per_target is not None:
                break
        fuzzing.close()
        for finding in [f for f in campaign.findings if f.kind == "hang"]:
            if not confirm_hang(limits, finding, _program_of(finding)):
                campaign.findings.remove(finding)
                campaign.outcomes[(finding.target, "finding")] -= 1
                campaign.outcomes[(finding.target, "slow")] += 1
                log(f"hang of {finding.target} not confirmed (done in {CONFIRM_FACTOR}x the time)")
        # Minimized after the fuzzing, so that every target had its share of the time.
        for finding in campaign.findings:
            before = len(finding.repro)
            finding.repro = minimize(minimizing, finding, _program_of(finding), minimize_seconds)
            if len(finding.repro) < before:
                finding.label += f" (minimized from {before} to {len(finding.repro)} bytes)"
    finally:
        fuzzing.close()
        minimizing.close()
    campaign.seconds = time.time() - start
    return campaign


def _program_of(finding: Finding) -> str:
    """The program an ``npz`` finding's archive is the inputs of ('' for other targets)."""
    if "[program " not in finding.label:
        return ""
    return finding.label.rsplit("[program ", 1)[1].split("]")[0]


# ---- reporting -------------------------------------------------------------------------------


def save(campaign: Campaign, directory: Path) -> list[tuple[Finding, Path, str]]:
    """Writes each finding's input to ``directory``; returns (finding, file, replay command)."""
    directory.mkdir(parents=True, exist_ok=True)
    saved = []
    for number, finding in enumerate(campaign.findings, 1):
        extension = TARGETS[finding.target].extension
        path = directory / f"{number}-{finding.target}.{extension}"
        if isinstance(finding.repro, bytes):
            path.write_bytes(finding.repro)
        else:
            path.write_text(finding.repro)
        if extension == "py":
            command = f".venv/bin/python {path}"
        else:
            program = f" --program {_program_of(finding)}" if _program_of(finding) else ""
            command = (f".venv/bin/python -m tools.fuzz --replay {path} --target "
                       f"{finding.target}{program}")  # fmt: skip
        saved.append((finding, path, command))
    return saved


def report(campaign: Campaign, directory: Path) -> str:
    """The campaign's summary and, per finding, what failed and how to reproduce it."""
    per_target = ", ".join(
        f"{t} {campaign.cases(t)}" for t in dict.fromkeys(t for t, _ in campaign.outcomes)
    )
    slow = sum(n for (_, o), n in campaign.outcomes.items() if o == "slow")
    errors = sum(n for (_, o), n in campaign.outcomes.items() if o == "error")
    lines = [
        f"fuzz: {campaign.cases()} cases in {campaign.seconds:.0f} s ({per_target}); "
        f"{errors} clear errors, {slow} slow runs; {len(campaign.findings)} findings"
    ]
    for number, (finding, path, command) in enumerate(save(campaign, directory), 1):
        where = f" at {finding.where}" if finding.where else ""
        lines.append(f"[{number}] {finding.target}: {finding.kind}{where} (stage {finding.stage})")
        lines.append(f"    {finding.summary}")
        lines.append(f"    input: {path} from {finding.label}")
        lines.append(f"    repro: {command}")
    lines.extend(f"note: {note}" for note in dict.fromkeys(campaign.notes))
    return "\n".join(lines)
