"""``mpirun -n N xlapy run PROGRAM ...`` as a user types it, without ``--runtime``: the launcher
is detected and the ranks share the devices (before, each rank ran a full copy of every
device). Each rank gets its own ``--inputs`` file in which only its own devices' arrays are
real and the others' are poisoned (NaN, garbage), bf16 arrays saved as numpy saves them
(raw bits, ``|V2``); rank 0's ``--outputs`` equal the in-process runtime's results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from spmd_check import _inputs  # the seeded or stored arguments of an SPMD program
from test_mpi import CLI, E2E, PROGRAMS, _launch

import xlapy
from xlapy.cli.launcher import default_runtime, launcher_ranks
from xlapy.errors import InvalidArgument

pytest.importorskip("mpi4py")

EVERY = [*PROGRAMS, *E2E]
FOUR_RANKS = ["all_reduce_types", "psum", "all_gather_2d"]
"""Programs also run on 4 ranks (bf16 among them); every program runs on 2."""


def _poison(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind in "fcV":  # floats; bf16 is a V kind
        return np.full_like(array, np.nan)
    return np.full_like(array, 0x5A)


def _check(path: Path, ranks: int, tmp_path: Path) -> None:
    module = xlapy.load(path)
    devices = module.config.replica_count * module.config.num_partitions
    args = _inputs(path, module, devices)
    k = devices // ranks
    commands = []
    for rank in range(ranks):
        mine = range(rank * k, rank * k + k)
        arrays = {
            f"arg{i}.dev{d}": (arg[d] if d in mine else _poison(arg[d]))
            for i, arg in enumerate(args)
            for d in range(devices)
        }
        np.savez(tmp_path / f"in{rank}.npz", **arrays)
        options = ["--inputs", str(tmp_path / f"in{rank}.npz"), "--platform", "interpreter"]
        commands.append([*CLI, "run", str(path), *options, "--outputs", str(tmp_path / "o.npz")])
    run = _launch(*commands)
    assert run.returncode == 0, run.stdout + run.stderr
    want = xlapy.run(module, *args, platform="interpreter")
    got = np.load(tmp_path / "o.npz")
    for d in range(devices):
        for j, value in enumerate(want[d]):
            expected = np.asarray(value)
            stored = got[f"out{j}.dev{d}"]
            assert stored.tobytes() == expected.tobytes(), (path.stem, d, j)


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.stem)
def test_plain_mpirun_on_two_ranks(path: Path, tmp_path: Path) -> None:
    _check(path, 2, tmp_path)


@pytest.mark.parametrize("name", FOUR_RANKS)
def test_plain_mpirun_on_four_ranks(name: str, tmp_path: Path) -> None:
    (path,) = [p for p in EVERY if p.stem == name]
    _check(path, 4, tmp_path)


def test_launcher_detection() -> None:
    assert launcher_ranks({}) is None
    assert launcher_ranks({"PMI_SIZE": "1"}) is None
    assert launcher_ranks({"PMI_SIZE": "4", "PMI_RANK": "2"}) == (4, "PMI_SIZE")
    assert launcher_ranks({"OMPI_COMM_WORLD_SIZE": "2"}) == (2, "OMPI_COMM_WORLD_SIZE")
    assert default_runtime({}) == "local"
    assert default_runtime({"PMI_SIZE": "2"}) == "mpi"


def test_launcher_without_mpi4py_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mpi4py" else real(name, *a)
    )
    with pytest.raises(InvalidArgument, match="one of 4 MPI ranks"):
        default_runtime({"OMPI_COMM_WORLD_SIZE": "4"})
