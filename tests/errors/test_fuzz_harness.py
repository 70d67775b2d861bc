"""The fuzzing harness (``tools/fuzz``) catches what it is meant to: other exceptions, internal
errors and unlocated messages, hangs outside the evaluator (but not long runs), runaway memory
and dead workers, with the input that did it. Targets that misbehave on purpose are added to
the target table before the worker forks."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.fuzz.campaign import (  # noqa: E402
    Campaign,
    Pool,
    confirm_hang,
    execute,
    fuzz,
    minimize,
    save,
)
from tools.fuzz.judge import Finding, judge  # noqa: E402
from tools.fuzz.sandbox import Limits  # noqa: E402
from tools.fuzz.targets import TARGETS, Case, Target  # noqa: E402
from xlapy.errors import EvaluationError, InvalidArgument, ParseError  # noqa: E402


def _target(name: str, behaviour):  # type: ignore[no-untyped-def]
    def run(case: Case, stage) -> None:  # type: ignore[no-untyped-def]
        stage(case.data.split(":")[0])
        behaviour(case.data)

    TARGETS[name] = Target(name, "txt", run)
    return name


def _raise(error: BaseException):  # type: ignore[no-untyped-def]
    def behaviour(data: str) -> None:
        raise error

    return behaviour


def _allocate(data: str) -> None:
    block = np.ones(600 << 20, np.uint8)  # touched: resident
    time.sleep(2)
    del block


@pytest.fixture(scope="module")
def pool():  # type: ignore[no-untyped-def]
    _target("t-index", _raise(IndexError("list index out of range")))
    _target("t-internal", _raise(EvaluationError("add a: internal error while evaluating: x")))
    _target("t-unlocated", _raise(InvalidArgument("something is wrong")))
    _target("t-located", _raise(InvalidArgument("add a [C1]: rule; got 3")))
    _target("t-sleep", lambda data: time.sleep(30))
    _target("t-starved", lambda data: time.sleep(1.5))  # as a case starved of the CPU
    TARGETS["t-slow-draw"] = Target("t-slow-draw", "txt", lambda case, stage: None, _slow_draw)
    _target("t-memory", _allocate)
    _target("t-die", lambda data: os._exit(7))
    _target("t-needle", _needle)
    pool = Pool(Limits(case_seconds=1.0, grace_seconds=1.0, memory_bytes=400 << 20))
    yield pool
    pool.close()


@pytest.mark.parametrize(
    ("target", "data", "kind", "summary"),
    [
        ("t-index", "load", "exception", "IndexError: list index out of range"),
        ("t-internal", "run", "internal-error", "EvaluationError: add a: internal error"),
        ("t-unlocated", "load", "unlocated", "InvalidArgument: something is wrong"),
        ("t-sleep", "parse", "hang", "no result after 1 s"),
        ("t-die", "load", "crash", "the worker died: crash (exit code 7)"),
    ],
)
def test_each_kind_of_finding_is_reported_with_its_input(pool, target, data, kind, summary):
    finding = execute(pool, Case(target, "test", data))
    assert finding is not None
    assert (finding.kind, finding.stage) == (kind, data)
    assert finding.summary.startswith(summary)
    assert finding.repro == data


def test_runaway_memory_is_reported_with_its_input(pool):
    # Its own time limit: touching 600 MiB can take more than 1 s on a loaded machine, and
    # the case must meet the memory limit before the time limit.
    roomy = Pool(Limits(case_seconds=30.0, grace_seconds=5.0, memory_bytes=400 << 20))
    try:
        finding = execute(roomy, Case("t-memory", "test", "load"))
    finally:
        roomy.close()
    assert finding is not None
    assert (finding.kind, finding.stage, finding.repro) == ("memory", "load", "load")
    assert finding.summary.startswith("resident memory above 400 MiB")


def test_located_errors_and_long_runs_are_not_findings(pool):
    assert execute(pool, Case("t-located", "test", "load")) is None
    assert execute(pool, Case("t-sleep", "test", "run")) is None  # the evaluator may be slow
    assert (
        execute(
            pool, Case("hlo", "test", "HloModule m\nENTRY e {\n ROOT c = f32[] constant(1)\n}\n")
        )
        is None
    )


def test_a_finding_keeps_the_program_its_input_is_for(pool, tmp_path):
    # npz findings reported by the worker lost their program: the replay command had no
    # --program and the minimizer and the hang confirmation ran the archive against nothing.
    finding = execute(pool, Case("t-index", "test", "load", program="examples/mlp.hlo"))
    assert finding is not None
    assert finding.label == "test [program examples/mlp.hlo]"
    ((_, path, command),) = save(Campaign(findings=[finding]), tmp_path)
    assert command.endswith(f"--replay {path} --target t-index --program examples/mlp.hlo")


def test_a_hang_is_confirmed_with_more_time(pool):
    limits = pool.limits
    starved = execute(pool, Case("t-starved", "test", "parse"))
    assert starved is not None
    assert starved.kind == "hang"
    assert not confirm_hang(limits, starved, "")  # done in 4 x 1 s: not a hang
    stuck = Finding("t-sleep", "hang", "no result after 1 s", stage="parse", repro="parse")
    assert confirm_hang(limits, stuck, "")
    structured = Finding("builder", "hang", "no result after 1 s", stage="build", repro="x")
    assert confirm_hang(limits, structured, "")  # kept as source: not re-run


def _slow_draw(rng: object) -> Case:
    time.sleep(3)  # as hypothesis drawing an input on a loaded machine
    return Case("t-slow-draw", "drawn", "load")


def test_time_between_cases_is_not_a_hang(pool):
    # A worker slow to start or to draw its next input was reported as a hang of no input.
    limits = Limits(case_seconds=1.0, grace_seconds=1.0, between_cases_seconds=1.5)
    campaign = fuzz(["t-slow-draw"], seconds=4.0, seed=1, limits=limits)
    assert campaign.findings == []
    assert any("stalled" in note for note in campaign.notes), campaign.notes


def _needle(data: str) -> None:
    if "needle" in data:
        raise KeyError("needle")


def test_minimization_keeps_the_finding(pool):
    data = "load: " + " ".join(f"word{i}" for i in range(40)) + " needle " + "tail " * 20
    finding = execute(pool, Case("t-needle", "test", data))
    assert finding is not None
    smaller = minimize(pool, finding, "", budget_seconds=30)
    assert "needle" in smaller
    assert len(smaller) < 20


def test_parse_errors_without_a_line_are_unlocated():
    assert judge(ParseError("bad", line=0, column=0), "hlo", "load") is not None
    assert judge(ParseError("bad", line=2, column=5), "hlo", "load") is None
