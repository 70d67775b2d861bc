"""Runs SPMD programs on the MPI runtime and compares them bit for bit with the in-process
runtime; started by ``test_mpi.py`` as ``mpirun -n N python spmd_check.py [--platform P]
FILE...``.

``.hlo`` files run on their module's devices (inputs ``argI.devD`` from the ``.npz`` beside the
file, or seeded random values); every rank passes its own devices' arguments, rank 0 gathers
the results and runs the same program in-process. ``.mlir`` files are StableHLO interpreter
tests whose ``interpreter.run_parallel`` grid is spread over the ranks; the values each
run_parallel returns are recorded and compared with an in-process run (and the file's checks
must pass). Rank 0 prints one JSON line: ``{"compared": [...], "skipped": [...],
"mismatches": [...]}``; the exit status is 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

import xlapy
from xlapy.errors import InvalidArgument, XlaError
from xlapy.interpreter.evaluator import CUSTOM_CALLS, load_evaluators
from xlapy.interpreter.mpi_runtime import placement, world
from xlapy.literal import bits_view
from xlapy.text.stablehlo_parser import parse_stablehlo_tests

RECORDED: list[Any] = []


def _record_run_parallel() -> None:
    load_evaluators()
    original = CUSTOM_CALLS["interpreter.run_parallel"]

    def recorded(ctx: Any, instr: Any, operands: list[Any]) -> Any:
        result = original(ctx, instr, operands)
        RECORDED.append(result)
        return result

    CUSTOM_CALLS["interpreter.run_parallel"] = recorded


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple | list):
        return (
            isinstance(b, tuple | list)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and np.array_equal(bits_view(a), bits_view(b))
        )
    return type(a) is type(b)


def _inputs(path: Path, module: Any, devices: int) -> list[list[np.ndarray]]:
    """argI.devD for every device: from the .npz beside the program, or seeded values."""
    data = path.with_suffix(".npz")
    if data.exists():
        stored = np.load(data)
        return [
            [stored[f"arg{i}.dev{d}"] for d in range(devices)]
            for i in range(len(module.entry.parameters))
        ]
    rng = np.random.default_rng(12)
    args = []
    for p in module.entry.parameters:
        dtype = np.dtype(p.shape.element_type.numpy)
        args.append([_random(rng, dtype, p.shape.dims) for _ in range(devices)])
    return args


def _random(rng: np.random.Generator, dtype: np.dtype, dims: tuple[int, ...]) -> np.ndarray:
    if dtype.kind in "fV":  # floats (bf16 is a V kind): group order shows in the bits
        return (rng.standard_normal(dims) * 100).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, dims).astype(dtype)
    return rng.integers(-50, 50, dims).astype(dtype)


def check_program(path: Path, platform: str, timeout: float, report: dict[str, list]) -> None:
    mpi = world()
    module = xlapy.load(path)
    devices = module.config.replica_count * module.config.num_partitions
    mine = placement(devices, mpi.rank, mpi.size)
    args = _inputs(path, module, devices)
    local = [[arg[d] for d in mine] for arg in args]
    results = xlapy.run(module, *local, platform=platform, runtime="mpi", timeout=timeout)
    gathered = mpi.gather(results, timeout)
    if gathered is None:
        return
    reference = xlapy.run(module, *args, platform=platform, timeout=timeout)
    report["compared"].append(path.stem)
    for d, (got, want) in enumerate(zip(gathered, reference, strict=True)):
        if not _same(got, want):
            report["mismatches"].append(f"{path.stem}: device {d}")


def check_conformance(path: Path, timeout: float, report: dict[str, list]) -> None:
    rank = world().rank
    for n, case in enumerate(parse_stablehlo_tests(path.read_text(), str(path))):
        name = f"{path.stem}#{n}"
        RECORDED.clear()
        try:
            xlapy.run(case.module, runtime="mpi", timeout=timeout, platform="interpreter")
        except InvalidArgument as err:
            if "cannot be spread evenly" not in str(err):
                raise
            report["skipped"].append(name)
            continue
        got = list(RECORDED)
        RECORDED.clear()
        if rank == 0:
            xlapy.run(case.module, timeout=timeout, platform="interpreter")
            report["compared"].append(name)
            if not got or not _same(got, RECORDED):
                report["mismatches"].append(name)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--platform", default="interpreter")
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()
    _record_run_parallel()
    report: dict[str, list] = {"compared": [], "skipped": [], "mismatches": []}
    for file in map(Path, options.files):
        try:
            if file.suffix == ".mlir":
                check_conformance(file, options.timeout, report)
            else:
                check_program(file, options.platform, options.timeout, report)
        except XlaError as err:
            report["mismatches"].append(f"{file.stem}: {type(err).__name__}: {err}")
    if world().rank == 0:
        print(json.dumps(report), flush=True)
    return 1 if report["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
