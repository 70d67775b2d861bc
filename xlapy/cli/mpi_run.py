"""``xlapy run ... --runtime mpi``: one rank of ``mpirun -n N xlapy run PROGRAM ...``.

Each rank reads only its own devices' inputs (``argI``, or ``argI.devD`` for each device D it
runs; ranks may be given different ``--inputs`` files) and its own ``--infeed``, runs its
devices on ``xlapy.interpreter.mpi_runtime``, and either sends its results to rank 0, which
writes ``--outputs`` (``outI.devD``; what the program's outfeed pushed goes to rank 0's
``--outfeed``, in rank order) or prints them, or writes them itself with
``--outputs-per-rank DIR`` (``DIR/rank<r>.npz``, with ``outfeedI`` too). A global-view
program is partitioned on every rank; each reads the global ``argI`` and keeps its devices'
pieces, and rank 0 assembles the global ``outJ`` (``xlapy.cli.global_run``). Errors are printed
by every rank, prefixed with its number; in a job of several ranks, a rank that printed an
error waits briefly for the others to print theirs (``farewell``) and leaves without
``MPI_Finalize`` (``os._exit``), so that the launcher ends the job instead of a hang.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from xlapy.cli.files import as_argument, load_npz, save_npz
from xlapy.cli.global_run import assemble_gathered, partitioned, write_or_print
from xlapy.errors import InvalidArgument, XlaError
from xlapy.interpreter.evals.checks import format_value
from xlapy.interpreter.mpi_runtime import placement, world
from xlapy.interpreter.run import run
from xlapy.ir.module import HloModule
from xlapy.literal import Value
from xlapy.loader import load
from xlapy.sharding.global_view import is_global_program

FAREWELL_WAIT = 10.0
"""Seconds, at most, that a rank which failed waits for the others to print their errors."""


def read_local_inputs(path: str | None, module: HloModule, devices: tuple[int, ...]) -> list[Any]:
    """One entry per parameter for this rank's ``devices``: an array (``argI``), a list of
    one array per device (``argI.devD``), or None for tokens; raises naming what is missing."""
    params = module.entry.parameters
    needed = [i for i, p in enumerate(params) if not p.shape.is_token]
    if not needed:
        return [None] * len(params)
    if path is None:
        raise InvalidArgument(f"the entry computation takes {len(params)} arguments; pass --inputs")
    data = load_npz(path, "--inputs")
    args: list[Any] = [None] * len(params)
    missing = []
    for i in needed:
        shape = params[i].shape
        if f"arg{i}" in data:
            args[i] = as_argument(data[f"arg{i}"], shape, f"arg{i}", path)
        elif all(f"arg{i}.dev{d}" in data for d in devices):
            args[i] = [
                as_argument(data[f"arg{i}.dev{d}"], shape, f"arg{i}.dev{d}", path) for d in devices
            ]
        else:
            absent = [f"arg{i}.dev{d}" for d in devices if f"arg{i}.dev{d}" not in data]
            missing.append(f"arg{i} (or {', '.join(absent)})")
    if missing:
        raise InvalidArgument(
            f"--inputs {path} lacks {'; '.join(missing)}; it holds "
            f"{', '.join(sorted(data)) or 'nothing'}"
        )
    return args


def run_on_mpi(args: argparse.Namespace) -> int:
    """Runs this rank's part of the job; returns the exit status (2 after an error)."""
    mpi = world()
    try:
        return _run(args, mpi.rank, mpi.size)
    except XlaError as err:
        print(f"error: rank {mpi.rank}: {err}", file=sys.stderr)
        sys.stderr.flush()
        if mpi.size > 1:
            mpi.farewell(min(args.timeout, FAREWELL_WAIT))
            sys.stdout.flush()
            os._exit(2)  # never MPI_Finalize after an error: see _World.farewell
        return 2


def _run(args: argparse.Namespace, rank: int, size: int) -> int:
    if args.reference_platform:
        raise InvalidArgument(
            "--reference-platform runs with --runtime local only; compare two --outputs files"
        )
    module = load(Path(args.file))
    signature = None
    if is_global_program(module):  # each rank splits the global inputs, keeps its pieces
        module, signature, global_inputs = partitioned(args, module)
        pieces = signature.split_arguments(global_inputs)
    replicas = args.replicas or module.config.replica_count
    partitions = args.partitions or module.config.num_partitions
    devices = placement(replicas * partitions, rank, size)
    if signature is None:
        inputs = read_local_inputs(args.inputs, module, devices)
    else:
        inputs = [None if p is None else [p[d] for d in devices] for p in pieces]
    infeed: list[Value] = []
    if args.infeed:
        data = load_npz(args.infeed, "--infeed")
        while f"infeed{len(infeed)}" in data:
            infeed.append(data[f"infeed{len(infeed)}"])
    outfeed: list[Value] = []
    results = run(
        module,
        *inputs,
        platform=args.platform,
        flush_denormals=args.flush_denormals,
        replicas=replicas,
        partitions=partitions,
        infeed=infeed,
        outfeed=outfeed,
        timeout=args.timeout,
        max_memory=args.max_memory,
        runtime="mpi",
        max_while_iterations=args.max_while_iterations,
    )
    single = replicas * partitions == 1
    local = [results] if single else results
    named = {
        f"out{i}" + ("" if single else f".dev{d}"): value
        for d, outs in zip(devices, local, strict=True)
        for i, value in enumerate(outs)
    }
    if args.outputs_per_rank:
        folder = Path(args.outputs_per_rank)
        folder.mkdir(parents=True, exist_ok=True)
        feeds = {f"outfeed{i}": v for i, v in enumerate(outfeed)}
        _save(str(folder / f"rank{rank}.npz"), "--outputs-per-rank", named | feeds)
        return 0
    if single:  # every rank ran the whole program: rank 0 reports it
        everything, feeds = (named, outfeed) if rank == 0 else (None, None)
    else:
        gathered = world().gather(list(named.items()), args.timeout)
        everything = None if gathered is None else dict(gathered)
        feeds = world().gather(outfeed, args.timeout)
    if everything is None or feeds is None:
        return 0
    if signature is not None:
        write_or_print(args, assemble_gathered(signature, everything))
        return 0
    if args.outfeed:
        _save(args.outfeed, "--outfeed", {f"outfeed{i}": v for i, v in enumerate(feeds)})
    if args.outputs:
        _save(args.outputs, "--outputs", everything)
        return 0
    for d in range(replicas * partitions):
        if not single:
            print(f"device {d}:")
        for name, value in everything.items():
            if single or name.endswith(f".dev{d}"):
                shown = name.split(".")[0]
                print(f"{'' if single else '  '}{shown} = {format_value(value)}")
    return 0


def _save(path: str, what: str, arrays: dict[str, Value]) -> None:
    save_npz(path, what, {k: np.asarray(v) for k, v in arrays.items() if isinstance(v, np.ndarray)})
