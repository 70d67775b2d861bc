"""``xlapy run --profile`` prints the per-instruction table after the results and ``--trace``
writes a Chrome trace, on both platforms and for an 8-device program (issue #13 item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.profile.programs import ELEMENTWISE, PSUM, PSUM_INPUTS
from xlapy.cli import main


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_profile_table_after_the_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], platform: str
) -> None:
    (tmp_path / "p.hlo").write_text(ELEMENTWISE)
    np.savez(tmp_path / "in.npz", arg0=np.ones(1000, np.float32))
    argv = ["run", str(tmp_path / "p.hlo"), "--inputs", str(tmp_path / "in.npz")]
    assert main([*argv, "--platform", platform, "--profile"]) == 0
    out = capsys.readouterr().out
    results, _, table = out.partition(f"profile of elementwise on {platform}: 1 call")
    assert results.startswith("out0 = tensor<1000xf32>")
    lines = table.splitlines()
    assert lines[1].split()[:6] == ["total", "ms", "mean", "us", "count", "%"]
    rows = {line.split()[-2]: line.split() for line in lines[2:]}
    if platform == "interpreter":
        assert sorted(rows) == ["%a", "%m"]
        assert rows["%a"][2:6] == ["1", rows["%a"][3], "11.7", "KiB"]  # 12000 bytes
    else:
        assert [row[-3] for row in rows.values()] == ["fusion"]


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_trace_of_an_spmd_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], platform: str
) -> None:
    trace = tmp_path / "run.json"
    argv = ["run", str(PSUM), "--inputs", str(PSUM_INPUTS), "--platform", platform]
    assert main([*argv, "--trace", str(trace)]) == 0
    out = capsys.readouterr().out
    assert "device 7:" in out
    assert "profile of" not in out
    events = json.loads(trace.read_text())["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert sorted(names) == list(range(8))
    reduces = [e for e in events if e["ph"] == "X" and e["cat"] == "collective"]
    assert sorted(e["tid"] for e in reduces) == list(range(8))
    assert {e["args"]["op"] for e in reduces} == {"all-reduce"}


def test_profile_needs_the_local_runtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(PSUM), "--inputs", str(PSUM_INPUTS), "--runtime", "mpi", "--profile"]
    assert main(argv) == 2  # a usage error
    assert "--profile and --trace need --runtime local" in capsys.readouterr().err
