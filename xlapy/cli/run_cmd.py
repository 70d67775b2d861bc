"""Run a program (HLO text or StableHLO) on inputs from an .npz file.

  xlapy run FILE [--inputs IN.npz] [--outputs OUT.npz] [--flush-denormals]
                 [--replicas R] [--partitions P] [--infeed FEED.npz] [--outfeed OUT.npz]
                 [--platform cpu|interpreter] [--reference-platform interpreter|cpu]
                 [--runtime local|mpi] [--outputs-per-rank DIR] [--max-while-iterations N]
                 [--profile] [--trace OUT.json]

The entry computation's arguments are ``arg0, arg1, ...`` of IN.npz (numpy arrays of the
parameters' exact dtypes; token parameters need none). Results, tuples flattened, are written
to OUT.npz as ``out0, out1, ...``, or printed (``out0 = tensor<2xf32> {...}``) when no
--outputs is given.

A global-view program (values tiled over devices: what ``jax.jit`` with shardings lowers) is
partitioned first: IN.npz holds the global arguments ``argI`` and OUT.npz gets the global
results ``outJ`` (``xlapy.cli.global_run``); ``--partitions`` overrides the device count.

SPMD programs run on R x P devices (default: the module's replica_count and num_partitions).
An argument is either ``argI`` (the same on every device) or ``argI.devD`` for every device D
(device = replica * P + partition); results are ``outI.devD``. ``--infeed`` holds the values the
program's infeed instructions pop (``infeed0, infeed1, ...`` in order); ``--outfeed`` receives
what its outfeed instructions push (``outfeed0, ...``).

``--platform`` chooses what runs the program: ``cpu`` (compiled, the default) or
``interpreter`` (the exact reference). ``--reference-platform`` runs it on a second platform
too and prints, per output, how far the first is from it (max abs and relative difference,
ulp distance), as XLA's run_hlo_module does; the exit status is 1 when an integer, boolean or
shape result differs.

``--runtime mpi`` runs the devices over the ranks of an MPI job (``mpirun -n N xlapy run ...``;
see ``xlapy.cli.mpi_run``): each rank reads its own devices' inputs; results are gathered to
rank 0 or written per rank with ``--outputs-per-rank DIR``. It is the default when an MPI
launcher started several ranks (``xlapy.cli.launcher``); ``--runtime local`` runs every
device in every rank.

``--profile`` prints, after the results, the time of each instruction (or fusion) over every
device: count, total, mean, % of the run, bytes touched and achieved GB/s, longest first.
``--trace OUT.json`` writes a Chrome trace-event file of the run (one track per device,
collectives and waits visible; open it in https://ui.perfetto.dev or chrome://tracing).
On a terminal, a program still compiling or running after 2 seconds shows a status line on
stderr (passes and kernels compiled; instructions executed, the current while-loop
iteration); piped output gets nothing extra. See ``xlapy.profiling``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from xlapy.backend.cpu.compare import compare
from xlapy.cli.files import as_argument, load_npz, save_npz
from xlapy.cli.global_run import run_global
from xlapy.cli.launcher import default_runtime
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evals.checks import format_value
from xlapy.interpreter.run import run
from xlapy.interpreter.runtime import DEFAULT_TIMEOUT
from xlapy.ir.module import HloModule
from xlapy.literal import Value
from xlapy.loader import load
from xlapy.profiling import Profile
from xlapy.sharding.global_view import is_global_program


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="program: .hlo (HLO text) or .mlir (StableHLO)")
    parser.add_argument("--inputs", help=".npz file with arg0, arg1, ... (or argI.devD)")
    parser.add_argument("--outputs", help="write the results to this .npz (out0, out1, ...)")
    parser.add_argument(
        "--flush-denormals",
        action="store_true",
        help="flush f32/bf16 subnormals to zero as XLA:CPU does",
    )
    parser.add_argument("--replicas", type=int, help="number of replicas (default: the module's)")
    parser.add_argument(
        "--partitions", type=int, help="number of partitions (default: the module's)"
    )
    parser.add_argument("--infeed", help=".npz with infeed0, infeed1, ... for infeed instructions")
    parser.add_argument("--outfeed", help="write what outfeed instructions push to this .npz")
    parser.add_argument(
        "--platform",
        choices=("cpu", "interpreter"),
        default="cpu",
        help="cpu: compiled (default); interpreter: the exact reference",
    )
    parser.add_argument(
        "--reference-platform",
        choices=("interpreter", "cpu"),
        help="also run on this platform and print each output's difference from it",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="seconds a device waits at a collective before failing",
    )
    parser.add_argument(
        "--runtime",
        choices=("local", "mpi"),
        default=None,
        help="local: one thread per device; mpi: devices over the ranks of mpirun (default: "
        "mpi when started by an MPI launcher with several ranks, else local)",
    )
    parser.add_argument(
        "--outputs-per-rank",
        metavar="DIR",
        help="with --runtime mpi: each rank writes its devices' results to DIR/rank<r>.npz",
    )
    parser.add_argument(
        "--max-memory",
        type=_bytes,
        help="refuse a program whose live values need more than this (bytes, or 512M, 8G...); "
        "default: 80%% of the available memory",
    )
    parser.add_argument(
        "--max-while-iterations",
        type=positive_int,
        metavar="N",
        help="fail a while loop whose condition still holds after N iterations, naming the "
        "loop and its state (default: no bound)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="print the time of each instruction (count, total, mean, %% of run, bytes, GB/s)",
    )
    parser.add_argument(
        "--trace",
        metavar="OUT.json",
        help="write a Chrome trace-event file of the run (one track per device)",
    )


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _bytes(text: str) -> int:
    """``--max-memory`` values: a positive number of bytes with an optional K/M/G/T suffix."""
    number, unit = text.strip().upper().rstrip("IB") or "0", ""
    if number and number[-1] in _UNITS:
        number, unit = number[:-1], number[-1]
    try:
        value = int(float(number) * _UNITS[unit])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected bytes such as 1000000, 512M or 8G; got {text!r}"
        ) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive; got {text!r}")
    return value


def positive_int(text: str) -> int:
    """``--max-while-iterations`` values: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive; got {text!r}")
    return value


def _numbered(path: str, prefix: str, what: str) -> list[np.ndarray]:
    data = load_npz(path, what)
    values: list[np.ndarray] = []
    while f"{prefix}{len(values)}" in data:
        values.append(data[f"{prefix}{len(values)}"])
    return values


def read_inputs(path: str | None, module: HloModule, devices: int) -> list[Any]:
    """One entry per parameter: an array, a list of per-device arrays, or None for tokens.

    Raises InvalidArgument naming what is missing.
    """
    params = module.entry.parameters
    needed = [i for i, p in enumerate(params) if not p.shape.is_token]
    if not needed:
        return [None] * len(params)
    if path is None:
        raise InvalidArgument(f"the entry computation takes {len(params)} arguments; pass --inputs")
    args: list[Any] = [None] * len(params)
    data = load_npz(path, "--inputs")
    missing = []
    for i in needed:
        if f"arg{i}" in data:
            args[i] = as_argument(data[f"arg{i}"], params[i].shape, f"arg{i}", path)
        elif devices > 1 and all(f"arg{i}.dev{d}" in data for d in range(devices)):
            args[i] = [
                as_argument(data[f"arg{i}.dev{d}"], params[i].shape, f"arg{i}.dev{d}", path)
                for d in range(devices)
            ]
        else:
            missing.append(f"arg{i}" if devices == 1 else f"arg{i} (or arg{i}.devD)")
    if missing:
        shapes = ", ".join(f"arg{i}: {params[i].shape.to_hlo(layout=False)}" for i in needed)
        raise InvalidArgument(
            f"--inputs {path} lacks {', '.join(missing)}; it holds "
            f"{', '.join(sorted(data)) or 'nothing'} (the program takes {shapes})"
        )
    return args


def _save(path: str, what: str, arrays: dict[str, Value]) -> None:
    save_npz(path, what, {k: np.asarray(v) for k, v in arrays.items() if isinstance(v, np.ndarray)})


def main(args: argparse.Namespace) -> int:
    for flag in ("replicas", "partitions"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise InvalidArgument(f"--{flag} must be >= 1; got {value}")
    if not args.timeout > 0:
        raise InvalidArgument(f"--timeout must be a positive number of seconds; got {args.timeout}")
    if args.runtime is None:
        args.runtime = default_runtime()
    if args.runtime == "mpi" and (args.profile or args.trace):
        raise InvalidArgument("--profile and --trace need --runtime local")
    if args.runtime == "mpi":
        from xlapy.cli.mpi_run import run_on_mpi

        return run_on_mpi(args)
    if args.outputs_per_rank:
        raise InvalidArgument("--outputs-per-rank needs --runtime mpi")
    module = load(Path(args.file))
    if is_global_program(module):
        return run_global(args, module)
    replicas = args.replicas or module.config.replica_count
    partitions = args.partitions or module.config.num_partitions
    devices = replicas * partitions
    inputs = read_inputs(args.inputs, module, devices)
    infeed = _numbered(args.infeed, "infeed", "--infeed") if args.infeed else []
    outfeed: list[Value] = []
    profile = Profile() if args.profile or args.trace else None

    def run_on(platform: str, outfeed: list[Value], profile: Profile | None = None) -> list[Any]:
        return run(
            module,
            *inputs,
            platform=platform,
            flush_denormals=args.flush_denormals,
            replicas=replicas,
            partitions=partitions,
            infeed=infeed,
            outfeed=outfeed,
            timeout=args.timeout,
            max_memory=args.max_memory,
            max_while_iterations=args.max_while_iterations,
            profile=profile,
            progress=True,
        )

    results = run_on(args.platform, outfeed, profile)
    per_device = [results] if devices == 1 else results
    reference = run_on(args.reference_platform, []) if args.reference_platform else None
    if args.outfeed:
        _save(args.outfeed, "--outfeed", {f"outfeed{i}": v for i, v in enumerate(outfeed)})
    if args.outputs:
        if devices == 1:
            _save(args.outputs, "--outputs", {f"out{i}": v for i, v in enumerate(results)})
        else:
            _save(
                args.outputs,
                "--outputs",
                {
                    f"out{i}.dev{d}": v
                    for d, outs in enumerate(per_device)
                    for i, v in enumerate(outs)
                },
            )
    else:
        for d, outs in enumerate(per_device):
            if devices > 1:
                print(f"device {d}:")
            for i, value in enumerate(outs):
                print(f"{'  ' if devices > 1 else ''}out{i} = {format_value(value)}")
    if profile is not None and args.profile:
        print(profile.table(limit=None))
    if profile is not None and args.trace:
        profile.write_trace(args.trace)
    if reference is None:
        return 0
    return print_differences(per_device, [reference] if devices == 1 else reference, args)


def print_differences(
    results: list[list[Value]], reference: list[list[Value]], args: argparse.Namespace
) -> int:
    """Prints ``outI[.devD] TYPE: difference`` per output; 1 when a non-float output (or a
    type) differs."""
    print(f"{args.platform} vs reference {args.reference_platform}:")
    status = 0
    for d, (outs, wants) in enumerate(zip(results, reference, strict=True)):
        for i, (got, want) in enumerate(zip(outs, wants, strict=True)):
            difference = compare(got, want)
            where = f"out{i}" + (f".dev{d}" if len(results) > 1 else "")
            print(f"  {where} {difference.type}: {difference.describe()}")
            if not difference.identical and (difference.mismatch or difference.max_ulp is None):
                status = 1
    return status
