"""The MPI runtime under ``mpirun -n 2`` and ``-n 4`` (loopback, started as subprocesses):
SPMD programs and conformance files bit-identical to the in-process runtime on both
platforms, the ``xlapy run --runtime mpi`` command, and faults that end as errors on every
rank (a failing rank, a missing participant, one that never comes, mismatched shapes, a
killed rank) instead of hangs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xlapy

pytest.importorskip("mpi4py")

HERE = Path(__file__).parent
TESTS = HERE.parent
CONFORMANCE = TESTS.parents[1] / "shared" / "conformance" / "stablehlo" / "interpret"
COLLECTIVE_FILES = [
    "all_reduce",
    "all_gather",
    "all_to_all",
    "collective_permute",
    "collective_broadcast",
    "reduce_scatter",
    "collective_reduce",
    "send_recv",
    "infeed",
    "outfeed",
    "replica_id",
    "partition_id",
]
PROGRAMS = sorted((HERE / "programs").glob("*.hlo"))
E2E = sorted((TESTS / "e2e" / "collectives").glob("*.hlo"))
E2E += sorted((TESTS / "e2e" / "mesh_groups").glob("*.hlo"))
FAULTS = HERE / "faults"
CLI = [sys.executable, "-c", "import sys; from xlapy.cli import main; sys.exit(main())"]


def _mpirun() -> str:
    found = shutil.which("mpirun", path=str(Path(sys.executable).parent)) or shutil.which("mpirun")
    if found is None:
        pytest.fail("mpirun not found: pip install -e '.[mpi]' installs MPICH's")
    return found


def _launch(*parts: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``mpirun -n 1 A : -n 1 B ...`` for one command per rank, or ``mpirun ARGS`` for one
    argument list starting with ``-n``."""
    command = [_mpirun()]
    if len(parts) == 1:
        command += parts[0]
    else:
        for i, part in enumerate(parts):
            command += ([":"] if i else []) + ["-n", "1", *part]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=HERE)


def _report(run: subprocess.CompletedProcess[str]) -> dict[str, list[str]]:
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    assert run.returncode == 0, run.stdout + run.stderr
    assert lines, run.stdout + run.stderr
    report: dict[str, list[str]] = json.loads(lines[-1])
    return report


@pytest.mark.parametrize("ranks", [2, 4])
def test_spmd_programs_and_conformance_match_in_process(ranks):
    # The corpus sits beside the checkout (../shared/conformance), as for tests/conformance.
    corpus = (
        [CONFORMANCE / f"{name}.mlir" for name in COLLECTIVE_FILES] if CONFORMANCE.is_dir() else []
    )
    files = [*E2E, *PROGRAMS, *corpus]
    run = _launch(["-n", str(ranks), sys.executable, "spmd_check.py", *map(str, files)])
    report = _report(run)
    assert report["mismatches"] == []
    for path in [*E2E, *PROGRAMS]:
        assert path.stem in report["compared"]
    cases = [name for name in report["compared"] if "#" in name]
    # 2 ranks: every case whose grid has an even number of processes; 4: grids of 4 and 8.
    assert len(cases) >= (34 if ranks == 2 else 12)


def test_cpu_platform_matches_in_process():
    files = [TESTS / "e2e" / "collectives" / "psum.hlo", *PROGRAMS]
    run = _launch(
        ["-n", "2", sys.executable, "spmd_check.py", "--platform", "cpu", *map(str, files)]
    )
    report = _report(run)
    assert report["mismatches"] == []
    assert len(report["compared"]) == len(files)


def test_cli_gathers_outputs_to_rank_0(tmp_path):
    program = TESTS / "e2e" / "collectives" / "psum_scatter.hlo"
    inputs = program.with_suffix(".npz")
    out = tmp_path / "out.npz"
    command = [*CLI, "run", str(program), "--inputs", str(inputs), "--outputs", str(out)]
    run = _launch(["-n", "2", *command, "--runtime", "mpi", "--platform", "cpu"])
    assert run.returncode == 0, run.stderr
    module = xlapy.load(program)
    data = np.load(inputs)
    args = [[data[f"arg0.dev{d}"] for d in range(8)]]
    want = xlapy.run(module, *args, platform="cpu")
    got = np.load(out)
    assert sorted(got) == sorted(f"out0.dev{d}" for d in range(8))
    for d in range(8):
        np.testing.assert_array_equal(got[f"out0.dev{d}"], want[d][0])


def test_cli_outputs_per_rank_from_per_rank_inputs(tmp_path):
    program = TESTS / "e2e" / "collectives" / "psum.hlo"
    data = np.load(program.with_suffix(".npz"))
    commands = []
    for rank in range(4):  # each rank is given only its own devices' arrays
        mine = {f"arg0.dev{d}": data[f"arg0.dev{d}"] for d in (2 * rank, 2 * rank + 1)}
        np.savez(tmp_path / f"in{rank}.npz", **mine)
        inputs = ["--inputs", str(tmp_path / f"in{rank}.npz")]
        per_rank = ["--outputs-per-rank", str(tmp_path / "out")]
        options = ["--runtime", "mpi", "--platform", "interpreter", *inputs, *per_rank]
        commands.append([*CLI, "run", str(program), *options])
    run = _launch(*commands)
    assert run.returncode == 0, run.stderr
    want = xlapy.run(
        xlapy.load(program), [data[f"arg0.dev{d}"] for d in range(8)], platform="interpreter"
    )
    for rank in range(4):
        got = np.load(tmp_path / "out" / f"rank{rank}.npz")
        assert sorted(got) == [f"out0.dev{2 * rank}", f"out0.dev{2 * rank + 1}"]
        for d in (2 * rank, 2 * rank + 1):
            np.testing.assert_array_equal(got[f"out0.dev{d}"], want[d][0])


@pytest.fixture(scope="module")
def fault_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Device 0 holds what failing_check.hlo expects, device 1 not."""
    inputs = tmp_path_factory.mktemp("faults") / "inputs.npz"
    device0, device1 = np.array([1, 2, 3, 4], np.int32), np.array([1, 2, 3, 5], np.int32)
    np.savez(inputs, **{"arg0.dev0": device0, "arg0.dev1": device1})
    return inputs


def _fault_run(
    inputs: Path, *programs: str, timeouts: tuple[float, float] = (5, 5)
) -> subprocess.CompletedProcess[str]:
    """One program per rank (2 replicas, one device each), with per-device inputs."""
    common = ["--inputs", str(inputs), "--runtime", "mpi", "--platform", "interpreter"]
    return _launch(
        *[
            [*CLI, "run", str(FAULTS / p), *common, "--timeout", str(t)]
            for p, t in zip(programs, timeouts, strict=True)
        ]
    )


def test_failing_rank_is_reported_on_every_rank(fault_inputs):
    run = _fault_run(fault_inputs, "failing_check.hlo", "failing_check.hlo")
    assert run.returncode != 0
    # The ranks write to one stderr at once, so their lines may run into each other.
    failing = "check.expect_eq cc: values differ"
    assert f"error: rank 1: {failing}" in run.stderr, run.stderr
    assert "error: rank 0: rank 1 (device 1) failed: EvaluationError: " + failing in run.stderr


def test_collective_a_device_never_reaches_names_it(fault_inputs):
    run = _fault_run(fault_inputs, "all_reduce.hlo", "no_collective.hlo")
    assert run.returncode != 0
    assert (
        "error: rank 0: all-reduce ar: devices [1] of group [0, 1] never reached this "
        "collective: device(s) [1] finished their program" in run.stderr
    )
    assert "error: rank 1: rank 0 (device 0) failed" in run.stderr


def test_collective_a_waiting_device_never_reaches_times_out(fault_inputs):
    # Rank 1 waits on a channel nobody sends on; rank 0 gives up first and says why.
    run = _fault_run(fault_inputs, "all_reduce.hlo", "waits_on_channel.hlo", timeouts=(2, 20))
    assert run.returncode != 0
    message = (
        "all-reduce ar: devices [1] of group [0, 1] never reached this collective (waited 2 s)"
    )
    assert f"error: rank 0: {message}" in run.stderr
    # Rank 1 reports rank 0's error too, unless mpirun ends it first (rank 0 exits non-zero
    # while rank 1 is still blocked on its channel): both orders happen on a busy machine.
    for line in run.stderr.splitlines():
        if line.startswith("error: rank 1: "):
            assert f"rank 0 (device 0) failed: EvaluationError: {message}" in line, run.stderr


def test_mismatched_shapes_across_ranks(fault_inputs):
    run = _fault_run(fault_inputs, "all_reduce.hlo", "all_reduce_wider.hlo")
    assert run.returncode != 0
    message = "all-reduce ar: the devices' operands differ; got (s32[4]) on device 0 and (s32[8])"
    assert f"error: rank 0: {message}" in run.stderr
    assert f"error: rank 1: {message}" in run.stderr


@pytest.mark.parametrize("signal", ["SIGKILL", "SIGSTOP"])
def test_killed_or_hung_rank_ends_the_job(signal):
    # mpirun ends the job when a rank dies; a rank that hangs (or dies under a launcher that
    # does not notice) is named by the survivor once the timeout passes, and
    # ``python -m mpi4py`` turns the survivor's error into MPI_Abort for the whole job.
    script = [sys.executable, "-m", "mpi4py", str(FAULTS / "dies.py"), "2", signal]
    run = _launch(["-n", "2", *script], timeout=60)
    assert run.returncode != 0
    if signal == "SIGSTOP":
        assert "all-reduce a2: devices [1] of group [0, 1] never reached this collective" in (
            run.stderr
        )
