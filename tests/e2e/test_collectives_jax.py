"""SPMD programs that JAX compiled for 8 CPU devices (shard_map: psum, pmax, all_gather,
ppermute, all_to_all, psum_scatter, axis_index, 2-D meshes) give XLA's per-device results.

Data made by ``generate_collectives.py``; run here on the in-process runtime.
"""

from pathlib import Path

import numpy as np
import pytest

import xlapy

DATA = Path(__file__).parent / "collectives"
PROGRAMS = sorted(p.stem for p in DATA.glob("*.hlo"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_xla_per_device(name):
    module = xlapy.load(DATA / f"{name}.hlo")
    data = np.load(DATA / f"{name}.npz")
    devices = module.config.replica_count * module.config.num_partitions
    assert devices == 8
    num_args = len(module.entry.parameters)
    args = [[data[f"arg{i}.dev{d}"] for d in range(devices)] for i in range(num_args)]
    results = xlapy.run(module, *args, platform="interpreter")
    for d, outs in enumerate(results):
        for i, got in enumerate(outs):
            want = data[f"out{i}.dev{d}"]
            assert got.dtype == want.dtype
            where = f"{name}: out{i} on device {d}"
            if np.issubdtype(want.dtype, np.floating):
                # tanh and dot may differ from XLA:CPU in the last bits.
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=where)
            else:
                np.testing.assert_array_equal(got, want, err_msg=where)
