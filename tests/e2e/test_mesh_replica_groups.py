"""A data-parallel training step whose collectives (all-gather, all-reduce, reduce-scatter,
all-to-all) use mesh-form replica groups, run on 8 partitions against XLA:CPU's per-device
results. Data made by ``generate_mesh_groups.py``."""

from pathlib import Path

import numpy as np

import xlapy
from xlapy.text.hlo_printer import print_hlo

DATA = Path(__file__).parent / "mesh_groups"


def test_train_step_matches_xla_per_device() -> None:
    module = xlapy.load(DATA / "train_step.hlo")
    data = np.load(DATA / "train_step.npz")
    assert module.config.num_partitions == 8
    args = [[data[f"arg{i}.dev{d}"] for d in range(8)] for i in range(len(module.entry.parameters))]
    results = xlapy.run(module, *args, platform="interpreter")
    for d, outs in enumerate(results):
        for i, got in enumerate(outs):
            want = data[f"out{i}.dev{d}"]
            # Float sums and dots may differ from XLA:CPU in the last bits.
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"out{i} on device {d}")  # fmt: skip


def test_mesh_groups_print_back_as_xla_prints_them() -> None:
    text = (DATA / "train_step.hlo").read_text()
    printed = print_hlo(xlapy.load(DATA / "train_step.hlo"))
    for form in ("{'axis_0'}", "{'axis_2'}", "{'axis_0','axis_2'}"):
        line = f"replica_groups=mesh['axis_0'=4,'axis_1'=1,'axis_2'=2] {form}"
        assert line in text
        assert line in printed
