"""Generates SPMD test programs with JAX on 8 CPU devices (run by hand; needs jax).

For each program: ``<name>.hlo`` (the per-device program XLA:CPU compiled, with its
collectives), ``<name>.npz`` holding per-device inputs ``arg{i}.dev{d}`` and per-device
outputs ``out{i}.dev{d}`` as JAX computed them. Partition d runs on device d of the mesh.
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, shard_map
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

OUT = Path(__file__).parent / "collectives"


def save(name, fn, mesh, in_specs, out_specs, *args):
    g = jax.jit(shard_map(fn, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False))
    placed = [
        jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(args, in_specs, strict=True)
    ]
    compiled = g.lower(*placed).compile()
    (OUT / f"{name}.hlo").write_text(compiled.as_text())
    outs = g(*placed)
    outs = outs if isinstance(outs, tuple) else (outs,)
    arrays = {}
    for i, a in enumerate(placed):
        for shard in a.addressable_shards:
            arrays[f"arg{i}.dev{shard.device.id}"] = np.asarray(shard.data)
    for i, o in enumerate(outs):
        for shard in o.addressable_shards:
            arrays[f"out{i}.dev{shard.device.id}"] = np.asarray(shard.data)
    np.savez(OUT / f"{name}.npz", **arrays)


def main():
    OUT.mkdir(exist_ok=True)
    mesh = jax.make_mesh((8,), ("x",))
    mesh2 = jax.make_mesh((2, 4), ("a", "b"))
    x = np.arange(32, dtype=np.float32).reshape(16, 2) * 0.5
    xi = np.arange(64, dtype=np.int32).reshape(8, 8)
    save("psum", lambda v: lax.psum(v, "x"), mesh, (P("x"),), P(), x)
    save("pmax", lambda v: lax.pmax(v, "x"), mesh, (P("x"),), P(), xi)
    save("all_gather", lambda v: lax.all_gather(v, "x", tiled=True), mesh, (P("x"),), P(), x)
    save("all_gather_stacked", lambda v: lax.all_gather(v, "x"), mesh, (P("x"),), P(None), xi)
    perm = [(i, (i + 1) % 8) for i in range(8)]
    save("ppermute", lambda v: lax.ppermute(v, "x", perm), mesh, (P("x"),), P("x"), x)
    save(
        "ppermute_partial",
        lambda v: lax.ppermute(v, "x", [(0, 3), (3, 5)]),
        mesh,
        (P("x"),),
        P("x"),
        xi,
    )
    save(
        "all_to_all",
        lambda v: lax.all_to_all(v, "x", 1, 0, tiled=True),
        mesh,
        (P("x"),),
        P("x"),
        np.arange(8 * 16, dtype=np.float32).reshape(8, 16),
    )
    save(
        "psum_scatter",
        lambda v: lax.psum_scatter(v, "x", tiled=True),
        mesh,
        (P(None),),
        P("x"),
        np.arange(16, dtype=np.float32),
    )
    save("axis_index", lambda v: v + lax.axis_index("x"), mesh, (P("x"),), P("x"), xi)
    save("psum_2d_axis", lambda v: lax.psum(v, "b"), mesh2, (P("a", "b"),), P("a"), xi)
    save(
        "all_gather_2d",
        lambda v: lax.all_gather(v, "a", tiled=True),
        mesh2,
        (P("a", "b"),),
        P(None, "b"),
        xi,
    )
    save(
        "mean_grad",
        lambda w, v: lax.pmean(jax.grad(lambda w: jnp.tanh(v @ w).sum())(w), "x"),
        mesh,
        (P(), P("x")),
        P(),
        np.ones((2, 3), np.float32),
        x,
    )


if __name__ == "__main__":
    main()
