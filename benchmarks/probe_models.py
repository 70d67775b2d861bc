"""Models outside the benchmark suite (``model_zoo.MODELS``), written in plain JAX to probe
how xlapy does on programs the suite was not tuned on: a wider transformer with the exact
(erfc) GELU, an MLP training step with plain SGD, an LSTM scan with its gradient, a VGG-style
convolution and pooling stack, an embedding with dropout (threefry bits), mixed-precision
bf16 attention, and data ops (sort, searchsorted, cumprod, segment_max).

``model_zoo.get`` finds them too, so ``models_ab.py`` measures them::

    python3 benchmarks/models_ab.py wide_gpt,lstm_grad --rounds 15

They are not part of ``models.py``'s targets; ``models.md`` keeps their last measurement.
"""

from __future__ import annotations

import itertools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from model_zoo import Built, Model, _normal


def _layer_norm(x: jax.Array, gain: jax.Array) -> jax.Array:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    return centred * lax.rsqrt((centred**2).mean(-1, keepdims=True) + 1e-5) * gain


def _wide_gpt() -> Built:
    """Two pre-LN blocks, d=256, 4 heads, causal, exact GELU; 4 sequences of 128."""
    d, heads, t, b = 256, 4, 128, 4
    params = [
        {
            "wqkv": _normal(10 * i, d, 3 * d, scale=d**-0.5),
            "wo": _normal(10 * i + 1, d, d, scale=d**-0.5),
            "w1": _normal(10 * i + 2, d, 4 * d, scale=d**-0.5),
            "w2": _normal(10 * i + 3, 4 * d, d, scale=(4 * d) ** -0.5),
            "g1": jnp.ones(d),
            "g2": jnp.ones(d),
        }
        for i in range(2)
    ]
    x = _normal(99, b, t, d)

    def fn(params: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
        mask = jnp.tril(jnp.ones((t, t), bool))
        for p in params:
            q, k, v = jnp.split(_layer_norm(x, p["g1"]) @ p["wqkv"], 3, -1)
            q, k, v = (a.reshape(b, t, heads, d // heads) for a in (q, k, v))
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / (d // heads) ** 0.5
            weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), -1)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, t, d) @ p["wo"]
            hidden = jax.nn.gelu(_layer_norm(x, p["g2"]) @ p["w1"], approximate=False)
            x = x + hidden @ p["w2"]
        return x

    return fn, (params, x)


def _mlp_sgd() -> Built:
    """784-1024-1024-10 ReLU MLP, softmax cross-entropy, one SGD step on 128 examples."""
    sizes = [784, 1024, 1024, 10]
    params = [
        (_normal(i, a, b, scale=a**-0.5), jnp.zeros(b))
        for i, (a, b) in enumerate(itertools.pairwise(sizes))
    ]
    x = _normal(50, 128, 784)
    y = jnp.asarray(np.random.default_rng(1).integers(0, 10, 128))

    def loss(params: list[tuple[jax.Array, jax.Array]], x: jax.Array, y: jax.Array) -> jax.Array:
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        logits = jax.nn.log_softmax(x @ w + b)
        return -jnp.mean(jnp.take_along_axis(logits, y[:, None], 1))

    def fn(params: Any, x: jax.Array, y: jax.Array) -> Any:
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    return fn, (params, x, y)


def _lstm_grad() -> Built:
    """An LSTM (hidden 256, inputs 64, batch 32) over 64 steps with lax.scan, and the
    gradient of the mean square of its outputs with respect to its weights."""
    hidden, inputs, batch, steps = 256, 64, 32, 64
    w = _normal(1, inputs + hidden, 4 * hidden, scale=(inputs + hidden) ** -0.5)
    bias = jnp.zeros(4 * hidden)
    xs = _normal(2, steps, batch, inputs)

    def run(w: jax.Array, bias: jax.Array, xs: jax.Array) -> jax.Array:
        def cell(carry: tuple[jax.Array, jax.Array], x: jax.Array) -> Any:
            h, c = carry
            i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + bias, 4, -1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        zeros = jnp.zeros((batch, hidden))
        _, hs = lax.scan(cell, (zeros, zeros), xs)
        return jnp.mean(hs**2)

    def fn(w: jax.Array, bias: jax.Array, xs: jax.Array) -> Any:
        return jax.value_and_grad(run, argnums=(0, 1))(w, bias, xs)

    return fn, (w, bias, xs)


def _conv_pool() -> Built:
    """Three 3x3 SAME convolutions with ReLU and 2x2 max pooling, global average, dense;
    16 images of 32x32x3."""
    channels = [(3, 32), (32, 64), (64, 128)]
    kernels = [_normal(i, 3, 3, a, b, scale=(9 * a) ** -0.5) for i, (a, b) in enumerate(channels)]
    dense = _normal(9, 128, 10, scale=128**-0.5)
    x = _normal(10, 16, 32, 32, 3)

    def fn(kernels: list[jax.Array], dense: jax.Array, x: jax.Array) -> jax.Array:
        for k in kernels:
            x = lax.conv_general_dilated(
                x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )
            x = lax.reduce_window(
                jax.nn.relu(x), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
            )
        return x.mean((1, 2)) @ dense

    return fn, (kernels, dense, x)


def _dropout_embed() -> Built:
    """Embedding lookup, dropout from a threefry key, layer norm, tied output logits; the
    loss and its gradient for 16x64 tokens of a 4096-word vocabulary."""
    vocab, d = 4096, 128
    table = _normal(3, vocab, d, scale=0.02)
    tokens = jnp.asarray(np.random.default_rng(4).integers(0, vocab, (16, 64)))
    key = jax.random.PRNGKey(0)

    def loss(table: jax.Array, tokens: jax.Array, key: jax.Array) -> jax.Array:
        x = table[tokens]
        x = jnp.where(jax.random.bernoulli(key, 0.9, x.shape), x / 0.9, 0)
        logits = jax.nn.log_softmax(_layer_norm(x, jnp.ones(d)) @ table.T)
        return -jnp.mean(jnp.take_along_axis(logits, tokens[..., None], -1))

    def fn(table: jax.Array, tokens: jax.Array, key: jax.Array) -> Any:
        return jax.value_and_grad(loss)(table, tokens, key)

    return fn, (table, tokens, key)


def _attention_bf16() -> Built:
    """Mixed precision: bf16 projections and attention with f32 accumulation, 8x256x128."""
    x = _normal(5, 8, 256, 128).astype(jnp.bfloat16)
    w = _normal(6, 128, 384, scale=128**-0.5).astype(jnp.bfloat16)

    def fn(x: jax.Array, w: jax.Array) -> jax.Array:
        qkv = jnp.einsum("btd,de->bte", x, w, preferred_element_type=jnp.float32)
        q, k, v = jnp.split(qkv, 3, -1)
        weights = jax.nn.softmax(jnp.einsum("bqd,bkd->bqk", q, k) / 8.0, -1)
        return jnp.einsum(
            "bqk,bkd->bqd",
            weights.astype(jnp.bfloat16),
            v.astype(jnp.bfloat16),
            preferred_element_type=jnp.float32,
        )

    return fn, (x, w)


def _data_ops() -> Built:
    """Row sort, vmapped searchsorted, cumprod along rows, segment_max: 64x2048 f32."""
    x = _normal(7, 64, 2048)
    ids = jnp.asarray(np.random.default_rng(8).integers(0, 100, 64 * 2048))

    def fn(x: jax.Array, ids: jax.Array) -> Any:
        ordered = jnp.sort(x, -1)
        positions = jax.vmap(jnp.searchsorted)(ordered, x[:, :16])
        products = jnp.cumprod(1 + 1e-3 * x, axis=1)
        return ordered, positions, products, jax.ops.segment_max(x.reshape(-1), ids, 100)

    return fn, (x, ids)


PROBES: list[Model] = [
    Model("wide_gpt", _wide_gpt, "2 pre-LN blocks, d=256, 4x128 tokens, exact GELU"),
    Model("mlp_sgd", _mlp_sgd, "784-1024-1024-10 MLP, one SGD step, batch 128"),
    Model("lstm_grad", _lstm_grad, "LSTM h=256, 64-step lax.scan, batch 32, value_and_grad"),
    Model("conv_pool", _conv_pool, "3 conv3x3 + maxpool, 16x32x32x3, forward"),
    Model("dropout_embed", _dropout_embed, "embedding + dropout + tied logits, loss and grad"),
    Model("attention_bf16", _attention_bf16, "bf16 attention, f32 accumulation, 8x256x128"),
    Model("data_ops", _data_ops, "sort, searchsorted, cumprod, segment_max on 64x2048"),
]
