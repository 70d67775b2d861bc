"""Fixed-seed fuzzing of every input path: the campaign of ``scripts/fuzz.sh``
(``tools/fuzz``), bounded by a case count per target instead of a time, so that it is the
same run on every machine (about 20 s in all).

Each case is a mutation of a real program (``examples/``, ``tests/``, the conformance
corpus), of an ``.npz`` archive or of an indexing map, or a hypothesis-drawn builder program,
``xlapy.run`` call or indexing map; it runs in a forked worker bounded in time and memory.
Every case must work or raise an ``XlaError`` naming the place; a finding fails the test with
its minimized input and the command that replays it. ``XLAPY_FUZZ_SEED`` explores other seeds.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.fuzz.campaign import fuzz, report  # noqa: E402
from tools.fuzz.sandbox import Limits  # noqa: E402

SEED = int(os.environ.get("XLAPY_FUZZ_SEED", "20260813"))
CASES = {
    "hlo": 250,
    "mlir": 250,
    "npz": 150,
    "indexing": 800,
    "builder": 100,
    "run-args": 250,
    "indexing-maps": 300,
}


@pytest.mark.parametrize("target", list(CASES))
def test_fixed_seed_fuzzing_finds_nothing(target, tmp_path):
    campaign = fuzz(
        [target],
        seconds=240,
        seed=SEED,
        cases_per_target=CASES[target],
        limits=Limits(case_seconds=8.0),
        minimize_seconds=10.0,
    )
    assert not campaign.findings, f"seed {SEED}:\n{report(campaign, tmp_path)}"
    assert campaign.cases(target) >= CASES[target]
