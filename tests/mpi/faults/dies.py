"""Replica 1 stops (SIGSTOP: hangs) or kills (SIGKILL) its own process between two
all-reduces; run by test_mpi.py as `python -m mpi4py dies.py TIMEOUT SIGNAL`."""

import os
import signal
import sys
from pathlib import Path

import numpy as np

import xlapy


@xlapy.custom_call_target("test.die_on_replica_1")
def die(ctx, instr, operands):
    if ctx.device.replica_id == 1:
        os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    return operands[0]


module = xlapy.load(Path(__file__).with_name("dies.hlo"))
xlapy.run(
    module,
    np.arange(4, dtype=np.int32),
    runtime="mpi",
    timeout=float(sys.argv[1]),
    platform="interpreter",
)
