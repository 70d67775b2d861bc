"""Every global-view program of the corpus (JAX on 8 host devices, Shardy and GSPMD
lowerings) partitions, and its global results on xlapy's devices equal XLA's."""

import numpy as np
import pytest

import xlapy
from tests.sharding.corpus import NAMES, assert_matches_xla, load
from xlapy.sharding.comm import collective_bytes
from xlapy.sharding.global_io import GlobalExecutable


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
@pytest.mark.parametrize("name", NAMES)
def test_global_results_equal_xla(name, platform):
    module, args, want = load(name)
    exe = xlapy.compile(module, platform=platform)
    assert isinstance(exe, GlobalExecutable)
    assert exe.module.config.num_partitions == exe.num_partitions > 1
    assert_matches_xla(exe(*args), want, name)


def test_per_device_module_has_per_device_shapes():
    module, args, _ = load("mlp_megatron")
    exe = xlapy.compile(module, platform="interpreter")
    params = exe.module.entry.parameters
    # x [8,16] over data=2, w1 [16,32] over model=4, w2 [32,16] over model=4.
    assert [tuple(p.shape.dims) for p in params] == [(4, 16), (16, 8), (8, 16)]
    assert collective_bytes(exe.module) > 0
    np.testing.assert_equal(len(exe(*args)), 1)
