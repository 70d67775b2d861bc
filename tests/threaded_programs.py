"""What the threaded tests of both platforms run: the examples with their inputs and a
4-partition SPMD program (issue #14, concurrency)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import xlapy

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

SPMD = """HloModule spmd, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8] parameter(0)
  id = u32[] partition-id()
  f = f32[] convert(id)
  b = f32[8] broadcast(f), dimensions={}
  y = f32[8] multiply(x, b)
  ROOT r = f32[8] all-reduce(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}
"""


def example(name: str) -> tuple[xlapy.HloModule, list[np.ndarray]]:
    """``examples/NAME.hlo`` loaded, with the arguments of ``NAME.inputs.npz``."""
    with np.load(EXAMPLES / f"{name}.inputs.npz") as data:
        args = [data[f"arg{i}"] for i in range(len(data.files))]
    return xlapy.load(EXAMPLES / f"{name}.hlo"), args


def bits(values: list[object]) -> list[bytes]:
    """The bytes of each value, to compare results bit for bit."""
    return [np.asarray(v).tobytes() for v in values]
