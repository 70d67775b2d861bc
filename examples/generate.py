"""Regenerates the example programs in this directory with JAX (CPU).

For every example ``<name>`` it writes:

* ``<name>.hlo``      ``lower(...).compiler_ir('hlo')`` printed short-parsable (as ``as_hlo_text()``
                      but with large constants in full, so the program is complete),
* ``<name>.opt.hlo``  ``lower(...).compile().as_text()`` (CPU-optimized, with metadata),
* ``<name>.mlir``     the StableHLO ``lower(...).as_text()``,
* ``<name>.inputs.npz``  ``arg0, arg1, ...`` and ``<name>.outputs.npz`` ``out0, out1, ...``
  (outputs flattened), computed by JAX on CPU.

Run ``python examples/generate.py`` (needs jax; not part of the xlapy package).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jaxlib import _hlo

jax.config.update("jax_platforms", "cpu")

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(20260813)


def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# ---- the programs -------------------------------------------------------------------------


def mlp_train_step(w1, b1, w2, b2, x, y):
    """One SGD step of a 2-layer MLP with softmax cross-entropy; returns new params and loss."""

    def loss_fn(params):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.sum(logp * y, axis=-1))

    params = (w1, b1, w2, b2)
    loss, grads = jax.value_and_grad(loss_fn)(params)
    new = tuple(p - 0.1 * g for p, g in zip(params, grads, strict=True))
    return (*new, loss)


def cnn(x, k1, k2, w):
    """conv -> relu -> max-pool -> conv -> mean-pool -> dense."""
    dn = ("NHWC", "HWIO", "NHWC")
    h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
    h = jax.nn.relu(h)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = lax.conv_general_dilated(h, k2, (2, 2), ((1, 1), (1, 1)), dimension_numbers=dn)
    h = jnp.mean(h, axis=(1, 2))
    return jax.nn.softmax(h @ w)


def transformer_block(x, wq, wk, wv, wo, w1, w2, gamma, beta):
    """Pre-norm single-head attention + GELU MLP with a causal mask."""

    def layer_norm(v):
        mean = jnp.mean(v, -1, keepdims=True)
        var = jnp.var(v, -1, keepdims=True)
        return (v - mean) * lax.rsqrt(var + 1e-5) * gamma + beta

    h = layer_norm(x)
    q, k, v = h @ wq, h @ wk, h @ wv
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1]).astype(x.dtype)
    n = x.shape[1]
    mask = jnp.tril(jnp.ones((n, n), bool))
    scores = jnp.where(mask, scores, -1e9)
    attn = jax.nn.softmax(scores, axis=-1)
    x = x + jnp.einsum("bqk,bkd->bqd", attn, v) @ wo
    return x + jax.nn.gelu(layer_norm(x) @ w1) @ w2


def rnn(h0, xs, wx, wh, b):
    """An Elman RNN over time with lax.scan; returns the final state and all outputs."""

    def step(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h

    return lax.scan(step, h0, xs)


def sort_example(x, y):
    """Multi-operand sort along the last axis, plus a stable argsort."""
    sx, sy = lax.sort((x, y), dimension=1, num_keys=1)
    return sx, sy, jnp.argsort(x, axis=0, stable=True)


def top_k(x):
    return lax.top_k(x, 3)


def gather_scatter(table, ids, updates):
    """Embedding lookup (gather) and a scatter-add of updates into the table."""
    emb = table[ids]
    return emb, table.at[ids].add(updates), jnp.take_along_axis(table[:5], ids[:, None] % 4, 1)


def random_threefry(key_data):
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (3, 4)), jax.random.uniform(k2, (5,))


def random_rbg(key_data):
    key = jax.random.wrap_key_data(key_data, impl="rbg")
    return jax.random.uniform(key, (4, 3)), jax.random.bits(key, (6,))


def random_philox(key_data):
    key = jax.random.wrap_key_data(key_data, impl="unsafe_rbg")
    return (jax.random.bits(key, (2, 5)),)


def fft_example(x, z):
    return jnp.fft.rfft(x), jnp.fft.ifft(z), jnp.fft.fft2(z).real


def linalg(a, b):
    """Cholesky, triangular solve, QR and eigh (LAPACK custom calls on CPU)."""
    spd = a @ a.T + 4 * jnp.eye(a.shape[0], dtype=a.dtype)
    chol = jnp.linalg.cholesky(spd)
    sol = jax.scipy.linalg.solve_triangular(chol, b, lower=True)
    q, r = jnp.linalg.qr(a)
    w, v = jnp.linalg.eigh(spd)
    return chol, sol, q, r, w, jnp.abs(v)


def control_flow(x, n):
    """fori_loop, cond, cumsum and a dynamic slice."""
    y = lax.fori_loop(0, 5, lambda i, v: v * 0.5 + jnp.sin(v + i), x)
    z = lax.cond(n > 2, lambda v: v + 1.0, lambda v: v * 2.0, y)
    return jnp.cumsum(z), lax.dynamic_slice(z, (n,), (3,)), lax.clamp(-1.0, z, 1.0)


def integer_ops(a, b):
    """Integer wrap-around, shifts, division, bit ops, conversions and comparisons."""
    s = a * b + (a << 3) - (b >> 1)
    d = lax.div(a, jnp.where(b == 0, 1, b))
    r = lax.rem(a, jnp.where(b == 0, 1, b))
    bits = lax.population_count(a) + lax.clz(b) + (a ^ b) + (a & ~b)
    return s, d, r, bits, a.astype(jnp.float32) / 3.0, (a > b), a.astype(jnp.uint8)


def dtypes_mix(x):
    """bf16/f16/f64/complex arithmetic and conversions."""
    xb = x.astype(jnp.bfloat16)
    xh = x.astype(jnp.float16)
    c = lax.complex(x, -x)
    return (
        (xb * xb + 1).astype(jnp.float32),
        jnp.exp(xh).astype(jnp.float32),
        jnp.abs(c * c),
        jnp.angle(c),
        jnp.float32(0.1) * x,
    )


EXAMPLES: dict[str, tuple[Callable[..., object], Callable[[], list[np.ndarray]]]] = {
    "mlp": (
        mlp_train_step,
        lambda: [
            normal(8, 16, scale=0.3),
            normal(16, scale=0.1),
            normal(16, 4, scale=0.3),
            normal(4, scale=0.1),
            normal(5, 8),
            np.eye(4, dtype=np.float32)[RNG.integers(0, 4, 5)],
        ],
    ),
    "cnn": (
        cnn,
        lambda: [
            normal(2, 8, 8, 3),
            normal(3, 3, 3, 4, scale=0.3),
            normal(3, 3, 4, 6, scale=0.3),
            normal(6, 5),
        ],
    ),
    "transformer": (
        transformer_block,
        lambda: [
            normal(2, 6, 8),
            *[normal(8, 8, scale=0.3) for _ in range(4)],
            normal(8, 16, scale=0.3),
            normal(16, 8, scale=0.3),
            1 + normal(8, scale=0.1),
            normal(8, scale=0.1),
        ],
    ),
    "rnn": (
        rnn,
        lambda: [
            normal(4),
            normal(7, 3),
            normal(3, 4, scale=0.5),
            normal(4, 4, scale=0.5),
            normal(4, scale=0.1),
        ],
    ),
    "sort": (sort_example, lambda: [normal(4, 6), RNG.integers(-50, 50, (4, 6)).astype(np.int32)]),
    "top_k": (top_k, lambda: [normal(3, 7)]),
    "gather_scatter": (
        gather_scatter,
        lambda: [normal(10, 4), np.array([3, 1, 3, 9, 0], np.int32), normal(5, 4)],
    ),
    "random_threefry": (random_threefry, lambda: [np.array([0, 42], np.uint32)]),
    "random_rbg": (random_rbg, lambda: [np.array([1, 2, 3, 4], np.uint32)]),
    "random_philox": (random_philox, lambda: [np.array([5, 6, 7, 8], np.uint32)]),
    "fft": (
        fft_example,
        lambda: [normal(3, 8), (normal(4, 4) + 1j * normal(4, 4)).astype(np.complex64)],
    ),
    "linalg": (linalg, lambda: [normal(4, 4), normal(4, 2)]),
    "control_flow": (control_flow, lambda: [normal(8), np.int32(3)]),
    "integer_ops": (
        integer_ops,
        lambda: [
            RNG.integers(-(2**31), 2**31 - 1, 12).astype(np.int32),
            RNG.integers(-100, 100, 12).astype(np.int32),
        ],
    ),
    "dtypes_mix": (dtypes_mix, lambda: [normal(6)]),
}


def generate(name: str) -> None:
    fn, make_inputs = EXAMPLES[name]
    args = make_inputs()
    lowered = jax.jit(fn).lower(*args)
    hlo_module = lowered.compiler_ir("hlo").as_hlo_module()
    (HERE / f"{name}.hlo").write_text(hlo_module.to_string(_hlo.HloPrintOptions.short_parsable()))
    (HERE / f"{name}.opt.hlo").write_text(lowered.compile().as_text())
    (HERE / f"{name}.mlir").write_text(lowered.as_text())
    np.savez(HERE / f"{name}.inputs.npz", **{f"arg{i}": np.asarray(a) for i, a in enumerate(args)})
    outputs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    np.savez(
        HERE / f"{name}.outputs.npz", **{f"out{i}": np.asarray(o) for i, o in enumerate(outputs)}
    )
    print(f"wrote {name}: {len(args)} inputs, {len(outputs)} outputs")


if __name__ == "__main__":
    for example in sys.argv[1:] or EXAMPLES:
        generate(example)
