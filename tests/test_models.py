"""Real models from the benchmark (``benchmarks/model_zoo.py``, written as equinox and Flax
linen document them) run through ``xlapy.jit`` give XLA:CPU's outputs, by the benchmark's
agreement rule (``benchmarks/measure.py``: integers equal, floats within 1e-3 relative to
their magnitude, NaNs at the same places). The two smallest models: an equinox GRU scan and
per-example gradients (``vmap(grad)``) of a linen MLP."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("equinox")
pytest.importorskip("flax")

import xlapy  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from measure import compare  # noqa: E402
from model_zoo import get  # noqa: E402


@pytest.mark.parametrize("name", ["gru_scan", "per_example_grads"])
def test_model_matches_xla(name: str) -> None:
    fn, args = get(name).build()
    expected = jax.jit(fn)(*args)
    got = xlapy.jit(fn)(*args)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(expected)
    want = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(expected)]
    leaves = jax.tree_util.tree_leaves(got)
    assert all(isinstance(leaf, np.ndarray) for leaf in leaves)
    agreement = compare(leaves, want)
    assert agreement.ok, f"{name}: xlapy vs XLA: {agreement.text}"
