"""``xlapy run GLOBAL --inputs IN.npz``: a global-view program (values tiled over devices,
as ``jax.jit`` with shardings lowers it) is partitioned (``xlapy.sharding.spmd_pipeline``)
over ``--partitions`` or the count its module or shardings give, the global inputs ``argI``
are split into each device's piece, every device runs the per-device module, and the
global results ``outJ`` are assembled (written to --outputs, or printed).

Under ``mpirun -n N ... --runtime mpi`` each rank reads the global inputs, keeps its own
devices' pieces, and rank 0 assembles the results (``xlapy.cli.mpi_run``).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from xlapy.cli.files import save_npz
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evals.checks import format_value
from xlapy.interpreter.run import run
from xlapy.ir.module import HloModule
from xlapy.sharding.global_io import GlobalSignature
from xlapy.sharding.spmd_pipeline import partition


def partitioned(
    args: argparse.Namespace, module: HloModule
) -> tuple[HloModule, GlobalSignature, list[Any]]:
    """The per-device module, its signature and the global inputs (``argI`` of --inputs)."""
    from xlapy.cli.run_cmd import read_inputs

    if args.replicas not in (None, 1):
        raise InvalidArgument("a global program runs on partitions: --replicas must be 1")
    if args.infeed or args.outfeed:
        raise InvalidArgument("--infeed and --outfeed are for per-device programs")
    spmd, signature = partition(module, args.partitions)
    inputs = read_inputs(args.inputs, module, 1)
    return spmd, signature, inputs


def run_global(args: argparse.Namespace, module: HloModule) -> int:
    """``xlapy run`` of a global program on the in-process runtime; returns the status."""
    from xlapy.cli.run_cmd import print_differences
    from xlapy.profiling import Profile

    spmd, signature, inputs = partitioned(args, module)
    pieces = signature.split_arguments(inputs)
    profile = Profile() if args.profile or args.trace else None

    def run_on(platform: str, profile: Profile | None = None) -> list[Any]:
        results = run(
            spmd,
            *pieces,
            platform=platform,
            flush_denormals=args.flush_denormals,
            partitions=signature.num_devices,
            timeout=args.timeout,
            max_memory=args.max_memory,
            max_while_iterations=args.max_while_iterations,
            profile=profile,
            progress=True,
        )
        return signature.assemble_results(results)

    outs = run_on(args.platform, profile)
    write_or_print(args, outs)
    if profile is not None and args.profile:
        print(profile.table(limit=None))
    if profile is not None and args.trace:
        profile.write_trace(args.trace)
    if not args.reference_platform:
        return 0
    return print_differences([outs], [run_on(args.reference_platform)], args)


def write_or_print(args: argparse.Namespace, outs: list[Any]) -> None:
    if args.outputs:
        arrays = {f"out{j}": np.asarray(v) for j, v in enumerate(outs)}
        save_npz(args.outputs, "--outputs", arrays)
        return
    for j, value in enumerate(outs):
        print(f"out{j} = {format_value(value)}")


def assemble_gathered(signature: GlobalSignature, named: dict[str, Any]) -> list[Any]:
    """The global results from the ``outI.devD`` pieces every device sent to rank 0."""
    per_device = [
        [named[f"out{j}.dev{d}"] for j in range(len(signature.results))]
        for d in range(signature.num_devices)
    ]
    return signature.assemble_results(per_device)
