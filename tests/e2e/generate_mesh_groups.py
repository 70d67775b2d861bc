"""Generates a data-parallel training step on 8 CPU devices (mesh axis_0=4, axis_1=1,
axis_2=2) whose collectives use XLA's mesh-form replica groups (run by hand; needs jax).

jax 0.10's XLA:CPU prints explicit groups (``{{0,2,4,6},{1,3,5,7}}``); newer XLA prints the same
groups as ``mesh['axis_0'=4,'axis_1'=1,'axis_2'=2] {'axis_0'}``. Each explicit list is
rewritten to the mesh form naming the axes whose groups it is (checked against XLA's
expansion rule below), so ``mesh_groups/train_step.hlo`` is the program current XLA prints.
``train_step.npz`` holds per-device inputs ``arg{i}.dev{d}`` and XLA:CPU's per-device outputs
``out{i}.dev{d}``.
"""

import itertools
import os
import re

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, shard_map
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

OUT = Path(__file__).parent / "mesh_groups"
AXES = ("axis_0", "axis_1", "axis_2")
SIZES = (4, 1, 2)


def groups_of(named: tuple[str, ...]) -> str:
    """The explicit groups of the mesh axes ``named``: devices row-major on the mesh, one
    group per position on the other axes."""
    ids = np.arange(8).reshape(SIZES)
    grouped = [AXES.index(a) for a in named]
    others = [i for i in range(3) if i not in grouped]
    rows = ids.transpose([*others, *grouped]).reshape(-1, int(np.prod([SIZES[g] for g in grouped])))
    return "{" + ",".join("{" + ",".join(map(str, r)) + "}" for r in rows) + "}"


def mesh_form(explicit: str) -> str:
    for n in range(1, 4):
        for named in itertools.combinations(AXES, n):
            if groups_of(named) == explicit and 1 not in [SIZES[AXES.index(a)] for a in named]:
                mesh = ",".join(f"'{a}'={s}" for a, s in zip(AXES, SIZES, strict=True))
                return f"mesh[{mesh}] {{{','.join(repr(a) for a in named)}}}"
    raise ValueError(f"no mesh form for {explicit}")


def train_step(x, y, w, b):
    """One SGD step of a linear model: batch over axis_0, features of w over axis_2."""
    xs = lax.all_gather(x, "axis_2", axis=1, tiled=True)  # full features per device
    pred = xs @ lax.all_gather(w, "axis_2", axis=0, tiled=True) + b
    err = pred - y
    loss = lax.pmean(jnp.mean(err * err), "axis_0")
    grad_w = lax.psum(xs.T @ err, "axis_0") / 16.0
    grad_w = lax.psum_scatter(grad_w, "axis_2", scatter_dimension=0, tiled=True) / 2.0
    grad_b = lax.psum(jnp.sum(err, axis=0), ("axis_0", "axis_2")) / 32.0
    swapped = lax.all_to_all(err, "axis_0", split_axis=1, concat_axis=0, tiled=True)
    peak = lax.pmax(jnp.max(jnp.abs(swapped)), ("axis_0", "axis_2"))
    return w - 0.1 * grad_w, b - 0.1 * grad_b, loss, peak


def main():
    OUT.mkdir(exist_ok=True)
    mesh = Mesh(np.array(jax.devices()).reshape(SIZES), AXES)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = rng.standard_normal((16, 4)).astype(np.float32)
    w = rng.standard_normal((4, 4)).astype(np.float32)
    b = rng.standard_normal((4,)).astype(np.float32)
    in_specs = (P("axis_0", "axis_2"), P("axis_0"), P("axis_2"), P())
    out_specs = (P("axis_2"), P(), P(), P())
    g = jax.jit(shard_map(train_step, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                          check_vma=False))  # fmt: skip
    placed = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip((x, y, w, b), in_specs,
                                                                        strict=True)]  # fmt: skip
    text = g.lower(*placed).compile().as_text()
    text = re.sub(r"replica_groups=(\{\{[0-9,{}]*\}\})",
                  lambda m: f"replica_groups={mesh_form(m.group(1))}", text)  # fmt: skip
    assert "replica_groups={" not in text
    (OUT / "train_step.hlo").write_text(text)
    outs = g(*placed)
    arrays = {}
    for i, a in enumerate(placed):
        for shard in a.addressable_shards:
            arrays[f"arg{i}.dev{shard.device.id}"] = np.asarray(shard.data)
    for i, o in enumerate(outs):
        for shard in o.addressable_shards:
            arrays[f"out{i}.dev{shard.device.id}"] = np.asarray(shard.data)
    np.savez(OUT / "train_step.npz", **arrays)


if __name__ == "__main__":
    main()
