"""Generates the ``read_*`` programs of ``tests/sharding/data/`` (run by hand:
``python tests/sharding/generate_read.py``; needs jax): JAX programs over 8 host CPU devices
with ``in_shardings``/``out_shardings``, ``with_sharding_constraint`` and ``shard_map``, each
lowered with ``jax_use_shardy_partitioner`` on and off, saved as

- ``read_<name>.sdy.mlir`` / ``read_<name>.sdy.hlo``: StableHLO with Shardy attributes and the
  HLO text JAX prints for it (``xla.sdy.*`` custom calls and frontend attributes);
- ``read_<name>.gspmd.mlir`` / ``read_<name>.gspmd.hlo``: ``mhlo.sharding`` strings and the HLO
  text XLA converted them to (the reference GSPMD form);
- ``read_<name>.npz``: the global inputs ``argI`` and JAX's global outputs ``outJ``;
- ``read_<name>.propagated.hlo``: XLA's module after its ``sharding-propagation`` pass (GSPMD),
  from ``--xla_dump_hlo_pass_re=sharding-propagation``;
- ``prop_<name>.propagated.hlo``: the same for each program of the partitioner corpus
  (``generate.py``), whose input is its ``part_<name>_gspmd.hlo``.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

DUMP = tempfile.mkdtemp(prefix="read_dump_")
os.environ["XLA_FLAGS"] = (
    "--xla_force_host_platform_device_count=8 "
    f"--xla_dump_to={DUMP} --xla_dump_hlo_pass_re=sharding-propagation"
)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

OUT = Path(__file__).parent / "data"


def mesh(shape, names, order=None):
    devices = np.array(jax.devices())
    if order is not None:
        devices = devices[order]
    return Mesh(devices.reshape(shape), names)


def mlp_shmap():
    m = mesh((2, 4), ("data", "model"))

    def f(x, w1, w2):
        h = jnp.tanh(x @ w1)
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P("data", "model")))

        def body(a):
            return a * 2 + jax.lax.psum(a.sum(), "model")

        h = jax.shard_map(body, mesh=m, in_specs=P(None, "model"), out_specs=P(None, "model"))(h)
        y = h @ w2
        y = jax.lax.with_sharding_constraint(y, NamedSharding(m, P(None, P.UNCONSTRAINED)))
        return y, y.sum()

    ins = (P("data", None), P(None, "model"), P("model", None))
    outs = (P("data"), P())
    args = (jnp.ones((8, 16)), jnp.ones((16, 32)), jnp.ones((32, 16)))
    return f, m, ins, outs, args


def partial_manual():
    m = mesh((4, 2), ("a", "b"), [0, 2, 4, 6, 1, 3, 5, 7])

    def f(x):
        y = jax.shard_map(
            lambda a: a * 2, mesh=m, in_specs=P("b"), out_specs=P("b"), axis_names={"b"}
        )(x)
        return jax.lax.with_sharding_constraint(y, NamedSharding(m, P(("b", "a"))))

    return f, m, (P("a"),), P(None, "b"), (jnp.ones((8, 16)),)


def many_results():
    m = mesh((8,), ("x",))

    def f(a, b):
        return tuple(a * i + b for i in range(7))

    outs = tuple([P("x")] * 6 + [P(None, "x")])
    return f, m, (P("x"), P()), outs, (jnp.ones((8, 8)), jnp.ones((8, 8)))


def mesh4x2_dots():
    m = mesh((4, 2), ("x", "y"))

    def f(x, w, b):
        h = jnp.einsum("bsd,df->bsf", x, w) + b
        h = jax.nn.relu(h)
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P("x", None, "y")))
        return h.sum(axis=1), jnp.transpose(h, (2, 0, 1)).reshape(16, -1)

    ins = (P("x", None, None), P(None, "y"), P("y"))
    outs = (P("x"), P())
    args = (jnp.ones((8, 4, 16)), jnp.ones((16, 16)), jnp.ones((16,)))
    return f, m, ins, outs, args


def gather_scatter():
    m = mesh((2, 4), ("b", "f"))

    def f(table, idx, upd, base):
        emb = jnp.take(table, idx, axis=0)
        return jnp.tanh(emb), base.at[idx].add(upd)

    ins = (P(None, "f"), P("b"), P(None, "f"), P())
    outs = (P("b", "f"), P(None, "f"))
    idx = jnp.arange(8, dtype=jnp.int32) * 3
    args = (jnp.ones((64, 16)), idx, jnp.ones((8, 16)), jnp.zeros((64, 16)))
    return f, m, ins, outs, args


def shard_alike():
    from jax.experimental.shard_alike import shard_alike as alike

    m = mesh((2, 4), ("x", "y"))

    def f(a, b):
        c, d = alike(jnp.sin(a), jnp.cos(b))
        return c + 1, d * 2

    return f, m, (P("x", "y"), None), None, (jnp.ones((8, 8)), jnp.ones((8, 8)))


def misc_ops():
    m = mesh((4, 2), ("x", "y"))

    def f(x, y, k):
        a = jnp.flip(x, axis=1)
        b = jnp.pad(a, ((0, 0), (2, 2)))
        c = jnp.concatenate([b, b[:, :4]], axis=1)
        d = jax.lax.dynamic_slice_in_dim(c, k, 8, axis=1)
        e = jnp.sort(d, axis=0) + jnp.cumsum(d, axis=1)
        g = jax.lax.cond(k > 2, lambda t: t * 2, lambda t: t - 1, e)
        h = jnp.argmax(g, axis=1)
        i = g + jnp.arange(8, dtype=jnp.float32)[None, :]
        j = y @ i
        return j, h, x[::2, 1:5]

    ins = (P("x", "y"), P(None, "x"), P())
    args = (jnp.ones((16, 12)), jnp.ones((4, 16)), jnp.int32(3))
    return f, m, ins, None, args


PROGRAMS = [
    mlp_shmap,
    partial_manual,
    many_results,
    mesh4x2_dots,
    gather_scatter,
    shard_alike,
    misc_ops,
]


def randomized(args):
    """The program's float arguments replaced by normal samples (integers kept)."""
    rng = np.random.default_rng(22)

    def sample(a):
        if jnp.issubdtype(a.dtype, jnp.floating):
            return jnp.asarray(rng.standard_normal(a.shape), a.dtype)
        return a

    return jax.tree.map(sample, args)


def named(m, spec):
    if spec is None:
        return None
    if isinstance(spec, tuple):
        return tuple(None if s is None else NamedSharding(m, s) for s in spec)
    return NamedSharding(m, spec)


def _dump_propagation(lowered, target: Path) -> None:
    shutil.rmtree(DUMP, ignore_errors=True)
    Path(DUMP).mkdir()
    lowered.compile()
    after = sorted(Path(DUMP).rglob("*after_sharding-propagation*.txt"))
    if after:
        target.write_text(after[0].read_text())


def corpus() -> None:
    """``prop_<name>.propagated.hlo`` for the partitioner corpus (GSPMD lowering)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import generate  # the corpus generator; its XLA_FLAGS are set before any device exists

    os.environ["XLA_FLAGS"] += f" --xla_dump_to={DUMP} --xla_dump_hlo_pass_re=sharding-propagation"
    jax.config.update("jax_use_shardy_partitioner", False)
    for name, make in generate.PROGRAMS.items():
        fn, mesh_shape, axes, in_specs, out_specs, args = make()
        devices = np.array(jax.devices()[: int(np.prod(mesh_shape))]).reshape(mesh_shape)
        m = Mesh(devices, axes)
        jitted = jax.jit(
            fn,
            in_shardings=generate._shardings(m, in_specs),
            out_shardings=generate._shardings(m, out_specs),
        )
        _dump_propagation(jitted.lower(*args), OUT / f"prop_{name}.propagated.hlo")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    if sys.argv[1:] == ["--corpus"]:
        corpus()
        shutil.rmtree(DUMP, ignore_errors=True)
        return
    for program in PROGRAMS:
        for shardy, tag in ((True, "sdy"), (False, "gspmd")):
            jax.config.update("jax_use_shardy_partitioner", shardy)
            f, m, ins, outs_spec, args = program()
            args = randomized(args)
            jitted = jax.jit(f, in_shardings=named(m, ins), out_shardings=named(m, outs_spec))
            lowered = jitted.lower(*args)
            base = f"read_{program.__name__}.{tag}"
            (OUT / f"{base}.mlir").write_text(lowered.as_text())
            (OUT / f"{base}.hlo").write_text(lowered.as_text(dialect="hlo"))
            if not shardy:
                _dump_propagation(lowered, OUT / f"read_{program.__name__}.propagated.hlo")
                outs = jax.tree.leaves(jitted(*args))
                arrays = {f"arg{i}": np.asarray(a) for i, a in enumerate(jax.tree.leaves(args))}
                arrays |= {f"out{j}": np.asarray(o) for j, o in enumerate(outs)}
                np.savez(OUT / f"read_{program.__name__}.npz", **arrays)
    shutil.rmtree(DUMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
