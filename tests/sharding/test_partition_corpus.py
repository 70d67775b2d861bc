"""Every global-view program of the corpus (JAX on 8 host devices, Shardy and GSPMD
lowerings) partitions, and its global results on xlapy's devices equal XLA's."""

import numpy as np
import pytest

import xlapy
from tests.sharding.corpus import DATA, NAMES, assert_matches_xla, load
from xlapy.sharding.comm import collective_bytes
from xlapy.sharding.global_io import GlobalExecutable


def _slow_if_big(names: list[str], big: set[str]) -> list:
    """The 1,000-instruction training step takes 5-15 s a run: those cases are ``slow``."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in big else n for n in names]


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
@pytest.mark.parametrize("name", _slow_if_big(NAMES, {"train_step_gspmd"}))
def test_global_results_equal_xla(name, platform):
    module, args, want = load(name)
    exe = xlapy.compile(module, platform=platform)
    assert isinstance(exe, GlobalExecutable)
    assert exe.module.config.num_partitions == exe.num_partitions > 1
    assert_matches_xla(exe(*args), want, name)


@pytest.mark.parametrize("name", _slow_if_big(NAMES, {"train_step", "train_step_gspmd"}))
def test_stablehlo_lowering_gives_the_same_results(name):
    """The same programs as JAX prints them in StableHLO (Shardy or mhlo.sharding)."""
    _, args, want = load(name)
    module = xlapy.load(DATA / f"part_{name}.mlir")
    exe = xlapy.compile(module, platform="interpreter")
    assert isinstance(exe, GlobalExecutable)
    assert_matches_xla(exe(*args), want, name)


def test_per_device_module_has_per_device_shapes():
    module, args, _ = load("mlp_megatron")
    exe = xlapy.compile(module, platform="interpreter")
    params = exe.module.entry.parameters
    # x [8,16] over data=2, w1 [16,32] over model=4, w2 [32,16] over model=4.
    assert [tuple(p.shape.dims) for p in params] == [(4, 16), (16, 8), (8, 16)]
    assert collective_bytes(exe.module) > 0
    np.testing.assert_equal(len(exe(*args)), 1)
