"""Generates the global-view sharded programs of ``tests/sharding/data/`` with JAX on 8 host
CPU devices (run by hand: ``python tests/sharding/generate.py [NAME...]``; needs jax).

Each program is a ``jax.jit`` with ``in_shardings``/``out_shardings`` (and
``with_sharding_constraint`` inside some) over a mesh of 8 devices (8, 2x4 or 4x2; ``uneven``
uses 4). It is lowered twice, with ``jax_use_shardy_partitioner`` on (``part_<name>``) and
off (``part_<name>_gspmd``), and saved as:

- ``part_<name>.hlo``: the global program as JAX lowers it (HLO text with shardings),
- ``part_<name>.mlir``: the same as StableHLO (Shardy or ``mhlo.sharding`` attributes),
- ``part_<name>.npz``: the global inputs ``argI`` and XLA's global outputs ``outJ``,
- ``part_<name>.xla_spmd.hlo``: XLA's partitioned, optimized per-device module
  (``jax.jit(...).lower(...).compile().as_text()``).

``data/comm_xla.json`` maps each program to the collective bytes per device of XLA's module
(``xlapy.sharding.comm.collective_bytes``: what each device sends, by a ring algorithm).
Device d of the mesh (``jax.devices()`` order, the identity device assignment) is partition d.
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import json
import sys
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from xlapy.loader import load
from xlapy.sharding.comm import collective_bytes

OUT = Path(__file__).parent / "data"
RNG = np.random.default_rng(22)


def normal(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


PROGRAMS: dict[str, Callable[[], tuple]] = {}
"""name -> () -> (fn, mesh shape, axis names, in specs, out specs, args)"""


def program(fn: Callable[[], tuple]) -> Callable[[], tuple]:
    PROGRAMS[fn.__name__] = fn
    return fn


@program
def mlp_megatron():
    def f(x, w1, w2):
        return jax.nn.relu(x @ w1) @ w2

    return (
        f,
        (2, 4),
        ("data", "model"),
        (P("data", None), P(None, "model"), P("model", None)),
        P("data", None),
        (normal(8, 16), normal(16, 32), normal(32, 16)),
    )


def _loss(params, x, y):
    h = jnp.tanh(x @ params[0] + params[1])
    return jnp.mean((h @ params[2] - y) ** 2)


def _sgd(params, x, y):
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    return tuple(p - 0.1 * g for p, g in zip(params, grads, strict=True)), loss


@program
def dp_step():
    params = (normal(8, 16), normal(16), normal(16, 4))
    rep = (P(), P(), P())
    return (
        _sgd,
        (8,),
        ("data",),
        (rep, P("data"), P("data")),
        (rep, P()),
        (params, normal(32, 8), normal(32, 4)),
    )


@program
def fsdp_step():
    params = (normal(8, 16), normal(16), normal(16, 8))
    fsdp = (P("data", None), P("data"), P("data", None))
    return (
        _sgd,
        (8,),
        ("data",),
        (fsdp, P("data"), P("data")),
        (fsdp, P()),
        (params, normal(32, 8), normal(32, 8)),
    )


@program
def attention():
    def f(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 2.0
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, axis=-1), v)

    spec = P("batch", None, "heads", None)
    return (
        f,
        (2, 4),
        ("batch", "heads"),
        (spec, spec, spec),
        spec,
        (normal(4, 8, 8, 4), normal(4, 8, 8, 4), normal(4, 8, 8, 4)),
    )


@program
def constraint_reshard():
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("x",))

    def f(x):
        y = jnp.sin(x)
        y = lax.with_sharding_constraint(y, NamedSharding(mesh, P(None, "x")))
        return y * 2.0, y.sum(axis=1)

    return f, (8,), ("x",), (P("x", None),), (P(None, "x"), P()), (normal(16, 16),)


@program
def uneven():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))

    def f(x, w):
        y = lax.with_sharding_constraint(x[:10], NamedSharding(mesh, P("x", None)))
        y = jnp.exp(y) * 2.0
        z = lax.with_sharding_constraint(y @ w, NamedSharding(mesh, P("x", None)))
        return y, y.sum(axis=0), jnp.max(y, axis=0), z.sum(axis=0), jnp.argmax(y, axis=0)

    return (
        f,
        (4,),
        ("x",),
        (P("x", None), P()),
        (P(), P(), P(), P(), P()),
        (normal(12, 6), normal(6, 7)),
    )


@program
def reductions():
    def f(x):
        return x.sum(axis=0), x.max(axis=0), jnp.argmax(x, axis=0), x.sum(), x.min(axis=1)

    return (
        f,
        (2, 4),
        ("a", "b"),
        (P("a", "b"),),
        (P("b"), P(), P(), P(), P("a")),
        (normal(16, 8),),
    )


@program
def embedding():
    def f(table, ids):
        return jnp.take(table, ids, axis=0)

    ids = RNG.integers(0, 64, (4, 6)).astype(np.int32)
    return f, (8,), ("x",), (P("x", None), P()), P(), (normal(64, 16), ids)


@program
def embedding_step():
    """An embedding table split on the vocabulary, trained by SGD: its gradient is a
    scatter-add into the table."""

    def loss(table, head, ids, y):
        h = jnp.take(table, ids, axis=0).mean(axis=1)
        return jnp.mean((h @ head - y) ** 2)

    def step(table, head, ids, y):
        value, (g_table, g_head) = jax.value_and_grad(loss, argnums=(0, 1))(table, head, ids, y)
        return table - 0.5 * g_table, head - 0.5 * g_head, value

    ids = RNG.integers(0, 64, (8, 5)).astype(np.int32)
    return (
        step,
        (8,),
        ("x",),
        (P("x", None), P(), P(), P()),
        (P("x", None), P(), P()),
        (normal(64, 16), normal(16, 4), ids, normal(8, 4)),
    )


@program
def shard_map_inside():
    """``shard_map`` inside jit: a manual region (its own psum and ppermute) between
    partitioned ops."""
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ("a", "b"))

    def local(x, w):
        y = jnp.tanh(x @ w)
        ring = [(i, (i + 1) % 4) for i in range(4)]
        return lax.psum(y + lax.ppermute(y, "b", ring), "b")

    def f(x, w):
        h = jax.shard_map(
            local, mesh=mesh, in_specs=(P("a", "b"), P("b", None)), out_specs=P("a", None)
        )(x * 2.0, w)
        return jnp.exp(h).sum(axis=0)

    return (
        f,
        (2, 4),
        ("a", "b"),
        (P("a", "b"), P("b", None)),
        P(),
        (normal(8, 16), normal(16, 8) * 0.3),
    )


@program
def conv():
    def f(x, k):
        return lax.conv_general_dilated(
            x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    return (
        f,
        (2, 4),
        ("a", "b"),
        (P("a", "b", None, None), P()),
        P("a", "b", None, None),
        (normal(4, 16, 8, 3), normal(3, 3, 3, 5)),
    )


@program
def scan_carry():
    def f(h, xs, w):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum(axis=1)

        return lax.scan(step, h, xs)

    return (
        f,
        (8,),
        ("x",),
        (P("x", None), P(None, "x", None), P()),
        (P("x", None), P(None, "x")),
        (normal(16, 8), normal(5, 16, 8), normal(8, 8) * 0.5),
    )


@program
def reshape_transpose():
    def f(x):
        y = x.reshape(8, 3, 4).transpose(2, 0, 1)
        return y * 3.0, x.T + 1.0, x.reshape(96)

    return (
        f,
        (4, 2),
        ("a", "b"),
        (P("a", "b"),),
        (P(None, "a", None), P("b", "a"), P("a")),
        (normal(8, 12),),
    )


@program
def sort_cumsum():
    def f(x):
        return jnp.sort(x, axis=0), jnp.cumsum(x, axis=0), jnp.sort(x, axis=1)

    return (
        f,
        (8,),
        ("x",),
        (P("x", None),),
        (P("x", None), P("x", None), P("x", None)),
        (normal(16, 4),),
    )


@program
def train_step():
    """A 9-block Megatron MLP trained with Adam on a 2x4 mesh (~1,000 HLO instructions): the
    program ``benchmarks/sharding_comm.py`` times partitioning on."""
    blocks = 9
    params = [(normal(16, 32) * 0.2, normal(32) * 0.1, normal(32, 16) * 0.2) for _ in range(blocks)]
    specs = [(P(None, "model"), P("model"), P("model", None)) for _ in range(blocks)]

    def loss(params, x, y):
        for w1, b1, w2 in params:
            x = x + jax.nn.gelu(x @ w1 + b1) @ w2
        return jnp.mean((x - y) ** 2)

    def step(params, m, v, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
        params = jax.tree.map(lambda p, m, v: p - 0.01 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
        return params, m, v, value

    zeros = jax.tree.map(np.zeros_like, params)
    data = P("data", None)
    return (
        step,
        (2, 4),
        ("data", "model"),
        (specs, specs, specs, data, data),
        (specs, specs, specs, P()),
        (params, zeros, zeros, normal(16, 16), normal(16, 16)),
    )


def _shardings(mesh, specs):
    return jax.tree.map(lambda s: NamedSharding(mesh, s), specs, is_leaf=lambda s: isinstance(s, P))


def generate(name: str, shardy: bool, comm: dict[str, float]) -> None:
    jax.config.update("jax_use_shardy_partitioner", shardy)
    fn, mesh_shape, axes, in_specs, out_specs, args = PROGRAMS[name]()
    devices = np.array(jax.devices()[: int(np.prod(mesh_shape))]).reshape(mesh_shape)
    mesh = jax.sharding.Mesh(devices, axes)
    jitted = jax.jit(
        fn, in_shardings=_shardings(mesh, in_specs), out_shardings=_shardings(mesh, out_specs)
    )
    lowered = jitted.lower(*args)
    stem = f"part_{name}" + ("" if shardy else "_gspmd")
    (OUT / f"{stem}.hlo").write_text(lowered.as_text(dialect="hlo"))
    (OUT / f"{stem}.mlir").write_text(lowered.as_text())
    spmd = lowered.compile().as_text()
    (OUT / f"{stem}.xla_spmd.hlo").write_text(spmd)
    flat_args = jax.tree.leaves(args)
    flat_outs = jax.tree.leaves(jitted(*args))
    arrays = {f"arg{i}": np.asarray(a) for i, a in enumerate(flat_args)}
    arrays |= {f"out{i}": np.asarray(o) for i, o in enumerate(flat_outs)}
    np.savez(OUT / f"{stem}.npz", **arrays)
    comm[stem] = collective_bytes(load(spmd))
    print(f"{stem}: {len(flat_args)} args, {len(flat_outs)} outs, {comm[stem]:.0f} B/device")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    names = sys.argv[1:] or list(PROGRAMS)
    path = OUT / "comm_xla.json"
    comm = json.loads(path.read_text()) if path.exists() else {}
    for name in names:
        for shardy in (True, False):
            generate(name, shardy, comm)
    path.write_text(json.dumps(dict(sorted(comm.items())), indent=1) + "\n")


if __name__ == "__main__":
    main()
