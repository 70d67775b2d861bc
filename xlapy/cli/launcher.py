"""Whether ``xlapy run`` was started by an MPI launcher (``mpirun -n N``, ``mpiexec``,
``srun --mpi``), read from the environment the launchers give each rank, as
``jax.distributed`` detects its cluster: then ``run`` uses the MPI runtime by itself, or
refuses when MPI is not available, instead of running every device in every rank.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping

from xlapy.errors import InvalidArgument

WORLD_SIZE_VARIABLES = (
    "OMPI_COMM_WORLD_SIZE",  # Open MPI
    "PMI_SIZE",  # MPICH, Intel MPI, MVAPICH (PMI-1/PMI-2, Hydra)
    "PMIX_SIZE",  # PMIx launchers
    "MV2_COMM_WORLD_SIZE",  # MVAPICH2
)
"""Variables holding the number of ranks of the job, in the order they are read."""


def launcher_ranks(environ: Mapping[str, str] | None = None) -> tuple[int, str] | None:
    """``(ranks, variable)`` when a launcher started this process as one of several ranks;
    None otherwise (no launcher, or a job of one rank)."""
    environ = os.environ if environ is None else environ
    for name in WORLD_SIZE_VARIABLES:
        value = environ.get(name, "").strip()
        if value.isdigit() and int(value) > 1:
            return int(value), name
    return None


def default_runtime(environ: Mapping[str, str] | None = None) -> str:
    """``mpi`` under a launcher of more than one rank, else ``local``; raises when a launcher
    started several ranks but mpi4py cannot be imported (each rank would otherwise run a
    full copy of the program)."""
    found = launcher_ranks(environ)
    if found is None:
        return "local"
    ranks, name = found
    if importlib.util.find_spec("mpi4py") is None:
        raise InvalidArgument(
            f"run: started as one of {ranks} MPI ranks ({name}={ranks}) but mpi4py is not "
            "installed, so the ranks cannot share the program's devices; install it "
            "(pip install 'xlapy[mpi]'), or pass --runtime local to run every device in "
            "every rank"
        )
    return "mpi"
