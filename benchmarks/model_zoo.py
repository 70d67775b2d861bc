"""Real models for the benchmarks, written as Flax (linen and NNX), optax and equinox document
them (issue 19): training steps, a transformer, a GRU scan, linear algebra, FFT and data ops.

Import API (other benchmarks reuse these models)::

    sys.path.insert(0, "benchmarks")          # or run from benchmarks/
    from model_zoo import MODELS, get

    for model in MODELS:                      # Model(name, build, describe)
        fn, args = model.build()              # a pure JAX function and its example arguments
        lowered = jax.jit(fn).lower(*args)    # XLA:CPU
        out = xlapy.jit(fn)(*args)            # xlapy's cpu platform
    fn, args = get("gru_scan").build()

``fn`` is un-jitted and pure (NNX and equinox models are split into a static part closed
over by ``fn`` and arrays passed in ``args``, as the libraries' functional APIs do), so both
``jax.jit(fn)`` and ``xlapy.jit(fn)`` take it. ``args`` is a tuple of pytrees of JAX arrays
built from a fixed seed: every process that builds a model gets the same bits. ``build``
imports flax/optax/equinox only for the models that need them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

Built = tuple[Callable[..., Any], tuple[Any, ...]]


@dataclass(frozen=True)
class Model:
    """One benchmark model: a name, a builder of (pure function, example arguments), and a
    one-line description for the table."""

    name: str
    build: Callable[[], Built]
    describe: str


def _normal(seed: int, *shape: int, scale: float = 1.0) -> jax.Array:
    r = np.random.default_rng(seed)
    return jnp.asarray((r.standard_normal(shape) * scale).astype(np.float32))


# ---- linen CNN, one optax.adam step (flax's MNIST example) ------------------------------------


def _cnn_adam() -> Built:
    import optax
    from flax import linen as nn
    from flax.training import train_state

    class CNN(nn.Module):
        """A simple CNN model (flax examples/mnist)."""

        @nn.compact
        def __call__(self, x):
            x = nn.Conv(features=32, kernel_size=(3, 3))(x)
            x = nn.relu(x)
            x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
            x = nn.Conv(features=64, kernel_size=(3, 3))(x)
            x = nn.relu(x)
            x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
            x = x.reshape((x.shape[0], -1))  # flatten
            x = nn.Dense(features=256)(x)
            x = nn.relu(x)
            x = nn.Dense(features=10)(x)
            return x

    cnn = CNN()
    params = cnn.init(jax.random.key(0), jnp.ones([1, 28, 28, 1]))["params"]
    state = train_state.TrainState.create(apply_fn=cnn.apply, params=params, tx=optax.adam(1e-3))

    def train_step(state, images, labels):
        def loss_fn(params):
            logits = state.apply_fn({"params": params}, images)
            one_hot = jax.nn.one_hot(labels, 10)
            loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot))
            return loss, logits

        grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
        (loss, logits), grads = grad_fn(state.params)
        accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
        return state.apply_gradients(grads=grads), loss, accuracy

    images = _normal(1, 32, 28, 28, 1)
    labels = jnp.asarray(np.random.default_rng(2).integers(0, 10, 32).astype(np.int32))
    return train_step, (state, images, labels)


# ---- NNX GPT: 2 blocks, d=128, 8x64 tokens -----------------------------------------------------

VOCAB, D_MODEL, HEADS, LAYERS, BATCH, SEQ = 512, 128, 4, 2, 8, 64


def _gpt() -> Any:
    """A small decoder-only transformer in Flax NNX (pre-LayerNorm blocks, causal mask)."""
    from flax import nnx

    class Block(nnx.Module):
        def __init__(self, d: int, heads: int, *, rngs: nnx.Rngs):
            self.ln1 = nnx.LayerNorm(d, rngs=rngs)
            self.attn = nnx.MultiHeadAttention(
                num_heads=heads, in_features=d, decode=False, rngs=rngs
            )
            self.ln2 = nnx.LayerNorm(d, rngs=rngs)
            self.fc1 = nnx.Linear(d, 4 * d, rngs=rngs)
            self.fc2 = nnx.Linear(4 * d, d, rngs=rngs)

        def __call__(self, x, mask):
            x = x + self.attn(self.ln1(x), mask=mask)
            return x + self.fc2(nnx.gelu(self.fc1(self.ln2(x))))

    class GPT(nnx.Module):
        def __init__(self, *, rngs: nnx.Rngs):
            self.tok = nnx.Embed(VOCAB, D_MODEL, rngs=rngs)
            self.pos = nnx.Embed(SEQ, D_MODEL, rngs=rngs)
            self.blocks = nnx.List([Block(D_MODEL, HEADS, rngs=rngs) for _ in range(LAYERS)])
            self.ln_f = nnx.LayerNorm(D_MODEL, rngs=rngs)
            self.head = nnx.Linear(D_MODEL, VOCAB, rngs=rngs)

        def __call__(self, tokens):
            mask = nnx.make_causal_mask(tokens)
            x = self.tok(tokens) + self.pos(jnp.arange(tokens.shape[-1]))
            for block in self.blocks:
                x = block(x, mask)
            return self.head(self.ln_f(x))

    return GPT(rngs=nnx.Rngs(0))


def _tokens(seed: int) -> jax.Array:
    r = np.random.default_rng(seed)
    return jnp.asarray(r.integers(0, VOCAB, (BATCH, SEQ)).astype(np.int32))


def _gpt_forward() -> Built:
    from flax import nnx

    graphdef, state = nnx.split(_gpt())

    def forward(state, tokens):
        model = nnx.merge(graphdef, state)
        return model(tokens)

    return forward, (state, _tokens(3))


def _gpt_adamw() -> Built:
    import optax
    from flax import nnx

    model = _gpt()
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(3e-4, weight_decay=0.1))
    optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
    graphdef, state = nnx.split((model, optimizer))

    def train_step(state, tokens, targets):
        model, optimizer = nnx.merge(graphdef, state)

        def loss_fn(model):
            logits = model(tokens)
            return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    tokens = _tokens(4)
    targets = jnp.roll(tokens, -1, axis=1)
    return train_step, (state, tokens, targets)


# ---- equinox GRU: 128-step lax.scan, vmapped over 16 -----------------------------------------


def _gru_scan() -> Built:
    import equinox as eqx

    class RNN(eqx.Module):
        cell: eqx.nn.GRUCell
        hidden_size: int = eqx.field(static=True)

        def __init__(self, in_size: int, hidden_size: int, *, key: jax.Array):
            self.cell = eqx.nn.GRUCell(in_size, hidden_size, key=key)
            self.hidden_size = hidden_size

        def __call__(self, xs):
            def step(h, x):
                h = self.cell(x, h)
                return h, h

            _, hs = lax.scan(step, jnp.zeros((self.hidden_size,)), xs)
            return hs

    params, static = eqx.partition(RNN(32, 128, key=jax.random.key(5)), eqx.is_array)

    def run(params, xs):
        model = eqx.combine(params, static)
        return jax.vmap(model)(xs)

    return run, (params, _normal(6, 16, 128, 32))


# ---- linen ResNet stage with BatchNorm: value_and_grad step, mutable batch_stats --------------


def _resnet_bn() -> Built:
    import optax
    from flax import linen as nn
    from flax.training import train_state

    class ResNetBlock(nn.Module):
        """ResNet block (flax examples/imagenet)."""

        filters: int
        strides: tuple[int, int] = (1, 1)

        @nn.compact
        def __call__(self, x, train: bool = True):
            norm = partial(nn.BatchNorm, use_running_average=not train, momentum=0.9, epsilon=1e-5)
            residual = x
            y = nn.Conv(self.filters, (3, 3), self.strides, use_bias=False)(x)
            y = norm()(y)
            y = nn.relu(y)
            y = nn.Conv(self.filters, (3, 3), use_bias=False)(y)
            y = norm(scale_init=nn.initializers.zeros_init())(y)
            if residual.shape != y.shape:
                residual = nn.Conv(self.filters, (1, 1), self.strides, use_bias=False)(residual)
                residual = norm()(residual)
            return nn.relu(residual + y)

    class ResNetStage(nn.Module):
        @nn.compact
        def __call__(self, x, train: bool = True):
            x = nn.Conv(32, (3, 3), use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not train, momentum=0.9, epsilon=1e-5)(x)
            x = nn.relu(x)
            x = ResNetBlock(32)(x, train)
            x = ResNetBlock(64, strides=(2, 2))(x, train)
            x = jnp.mean(x, axis=(1, 2))
            return nn.Dense(10)(x)

    class TrainState(train_state.TrainState):
        batch_stats: Any

    model = ResNetStage()
    variables = model.init(jax.random.key(7), jnp.ones([1, 32, 32, 3]), train=False)
    state = TrainState.create(
        apply_fn=model.apply,
        params=variables["params"],
        batch_stats=variables["batch_stats"],
        tx=optax.sgd(0.1, momentum=0.9),
    )

    def train_step(state, images, labels):
        def loss_fn(params):
            logits, updates = state.apply_fn(
                {"params": params, "batch_stats": state.batch_stats},
                images,
                mutable=["batch_stats"],
            )
            loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
            return loss, updates

        (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        state = state.apply_gradients(grads=grads)
        return state.replace(batch_stats=updates["batch_stats"]), loss

    images = _normal(8, 16, 32, 32, 3)
    labels = jnp.asarray(np.random.default_rng(9).integers(0, 10, 16).astype(np.int32))
    return train_step, (state, images, labels)


# ---- per-example gradients: vmap(grad) of a linen MLP ----------------------------------------


def _per_example_grads() -> Built:
    from flax import linen as nn

    mlp = nn.Sequential([nn.Dense(128), nn.relu, nn.Dense(10)])
    params = mlp.init(jax.random.key(10), jnp.ones([1, 784]))

    def loss(params, x, y):
        logits = mlp.apply(params, x[None])[0]
        return -jax.nn.log_softmax(logits)[y]

    def per_example_grads(params, x, y):
        return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, x, y)

    y = jnp.asarray(np.random.default_rng(12).integers(0, 10, 32).astype(np.int32))
    return per_example_grads, (params, _normal(11, 32, 784), y)


# ---- linear algebra on a small batch ----------------------------------------------------------


def _spd(seed: int, batch: int, n: int) -> jax.Array:
    a = np.random.default_rng(seed).standard_normal((batch, n, n))
    return jnp.asarray((a @ a.transpose(0, 2, 1) / n + np.eye(n)).astype(np.float32))


def _solve() -> Built:
    return jnp.linalg.solve, (_normal(13, 16, 32, 32), _normal(14, 16, 32, 4))


def _cholesky() -> Built:
    def cho(a, b):
        c = jax.scipy.linalg.cho_factor(a, lower=True)
        return jax.scipy.linalg.cho_solve(c, b)

    return cho, (_spd(15, 16, 32), _normal(16, 16, 32, 4))


def _qr() -> Built:
    return jnp.linalg.qr, (_normal(17, 16, 48, 32),)


def _eigh() -> Built:
    return jnp.linalg.eigh, (_spd(18, 16, 32),)


def _svd() -> Built:
    return partial(jnp.linalg.svd, full_matrices=False), (_normal(19, 16, 48, 32),)


# ---- FFT --------------------------------------------------------------------------------------


def _fft_conv() -> Built:
    def spectral_conv(x, k):
        shape = x.shape[-2:]
        return jnp.fft.irfft2(jnp.fft.rfft2(x) * jnp.fft.rfft2(k, s=shape), s=shape)

    return spectral_conv, (_normal(20, 16, 64, 64), _normal(21, 5, 5))


def _fft_c64() -> Built:
    def power_spectrum(re, im):
        return jnp.abs(jnp.fft.fft(lax.complex(re, im), axis=-1)) ** 2

    return power_spectrum, (_normal(22, 64, 1024), _normal(23, 64, 1024))


# ---- data ops ---------------------------------------------------------------------------------


def _argsort() -> Built:
    return partial(jnp.argsort, axis=-1), (_normal(24, 64, 4096),)


def _top_k() -> Built:
    return partial(lax.top_k, k=16), (_normal(25, 64, 4096),)


def _segment_sum() -> Built:
    ids = np.sort(np.random.default_rng(27).integers(0, 1024, 65536)).astype(np.int32)
    fn = partial(jax.ops.segment_sum, num_segments=1024, indices_are_sorted=True)
    return fn, (_normal(26, 65536, 8), jnp.asarray(ids))


def _cumsum() -> Built:
    return partial(jnp.cumsum, axis=1), (_normal(28, 64, 4096),)


def _cummax() -> Built:
    return partial(lax.cummax, axis=1), (_normal(29, 64, 4096),)


MODELS: list[Model] = [
    Model("cnn_adam", _cnn_adam, "linen CNN (MNIST example), one optax.adam step, 32x28x28x1"),
    Model("gpt_forward", _gpt_forward, "NNX 2-block GPT forward, 8x64 tokens, d=128"),
    Model("gpt_adamw", _gpt_adamw, "the same GPT, one adamw step with clip_by_global_norm"),
    Model("gru_scan", _gru_scan, "equinox GRUCell, 128-step lax.scan, vmapped over 16"),
    Model("resnet_bn", _resnet_bn, "linen ResNet stage + BatchNorm, SGD step, 16x32x32x3"),
    Model("per_example_grads", _per_example_grads, "vmap(grad) of a linen MLP, 32x784"),
    Model("solve", _solve, "jnp.linalg.solve, 16 x 32x32 @ 32x4"),
    Model("cholesky", _cholesky, "cho_factor + cho_solve, 16 x 32x32 SPD"),
    Model("qr", _qr, "jnp.linalg.qr, 16 x 48x32"),
    Model("eigh", _eigh, "jnp.linalg.eigh, 16 x 32x32 symmetric"),
    Model("svd", _svd, "jnp.linalg.svd (thin), 16 x 48x32"),
    Model("fft_conv", _fft_conv, "irfft2(rfft2(x) * rfft2(k)), 16x64x64"),
    Model("fft_c64", _fft_c64, "|fft(complex64)|^2, 64x1024"),
    Model("argsort", _argsort, "jnp.argsort, 64x4096 f32"),
    Model("top_k", _top_k, "lax.top_k k=16, 64x4096 f32"),
    Model("segment_sum", _segment_sum, "jax.ops.segment_sum, 65536x8 into 1024 segments"),
    Model("cumsum", _cumsum, "jnp.cumsum axis=1, 64x4096 f32"),
    Model("cummax", _cummax, "lax.cummax axis=1, 64x4096 f32"),
]


def get(name: str) -> Model:
    """The model called ``name``, of ``MODELS`` or of ``probe_models.PROBES`` (KeyError
    naming the known models otherwise)."""
    from probe_models import PROBES

    for model in [*MODELS, *PROBES]:
        if model.name == name:
            return model
    known = ", ".join(m.name for m in [*MODELS, *PROBES])
    raise KeyError(f"no model {name!r}; known: {known}")
