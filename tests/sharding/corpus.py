"""The global-view programs of ``data/`` (made by ``generate.py``) and how to check a result
against XLA's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import xlapy
from xlapy.ir.module import HloModule

DATA = Path(__file__).parent / "data"
NAMES = sorted(p.name[len("part_") : -len(".hlo")] for p in DATA.glob("part_*.hlo")
               if not p.name.endswith(".xla_spmd.hlo"))  # fmt: skip
XLA_BYTES: dict[str, float] = json.loads((DATA / "comm_xla.json").read_text())


def load(name: str) -> tuple[HloModule, list[np.ndarray], list[np.ndarray]]:
    """The global module, its global inputs and XLA's global outputs."""
    module = xlapy.load(DATA / f"part_{name}.hlo")
    data = np.load(DATA / f"part_{name}.npz")
    args = [data[f"arg{i}"] for i in range(len(module.entry.parameters))]
    outs = [data[f"out{j}"] for j in range(sum(1 for k in data.files if k.startswith("out")))]
    return module, args, outs


def assert_matches_xla(got: list[np.ndarray], want: list[np.ndarray], name: str) -> None:
    """Equal shapes and dtypes; integers exactly, floats within reduction-order tolerance."""
    assert len(got) == len(want), name
    for j, (g, w) in enumerate(zip(got, want, strict=True)):
        g = np.asarray(g)
        assert g.shape == w.shape, (name, j, g.shape, w.shape)
        assert g.dtype == w.dtype, (name, j, g.dtype, w.dtype)
        if np.issubdtype(w.dtype, np.floating):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=f"{name} out{j}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{name} out{j}")
