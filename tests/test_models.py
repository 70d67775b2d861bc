"""Real models from the benchmark (``benchmarks/model_zoo.py``, written as equinox and Flax
linen document them) run through ``xlapy.jit`` give XLA:CPU's outputs, by the benchmark's
agreement rule (``benchmarks/measure.py``: integers equal, floats within 1e-3 relative to
their magnitude, NaNs at the same places). The two smallest models: an equinox GRU scan and
per-example gradients (``vmap(grad)``) of a linen MLP; and two probe models on the compiled
tier."""

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


@pytest.mark.parametrize("name", ["wide_gpt", "lstm_grad"])
def test_probe_model_on_the_compiled_tier_matches_xla(name: str) -> None:
    """Two models outside the suite (``benchmarks/probe_models.py``) on the compiled tier:
    a transformer whose exact GELU runs ``erfc`` kernels, and an LSTM whose loop writes 14
    arrays per step (a vectorized loop that LLVM's default overlap-check limit kept scalar)."""
    fn, args = get(name).build()
    want = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    ours = xlapy.jit(fn)
    ours(*args)
    ours.wait_compiled()
    agreement = compare(jax.tree_util.tree_leaves(ours(*args)), want)
    assert agreement.ok, f"{name}: xlapy's compiled tier vs XLA: {agreement.text}"
