"""The benchmark programs: JAX functions written as a user writes them, with their inputs.

Three groups: ``LEGACY`` (the 16 small-to-medium programs of the first benchmark), ``ISSUE``
(the 13 float32 programs of issue #10, whose geometric mean is the platform's target) and
``SCANS`` (cumulative reductions, issue #19: JAX lowers them to reduce-windows spanning the
axis). Inputs come from a fixed seed, so every process that builds them gets the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


@dataclass(frozen=True)
class Program:
    """One benchmark program: a name, the JAX function and a factory for its inputs."""

    name: str
    fn: Callable[..., object]
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    issue: bool


def _f32(r: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return (r.standard_normal(shape, dtype=np.float32) * np.float32(scale)).astype(np.float32)


# ---- the first benchmark's 16 programs --------------------------------------------------------


def _mlp_small(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def _mlp_grad(x, w1, w2):
    return jax.grad(lambda a, b: (jnp.tanh(x @ a) @ b).sum(), argnums=(0, 1))(w1, w2)


def _cnn(x, k):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return lax.reduce_window(jax.nn.relu(y), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def _attention_small(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


def _rnn_small(xs, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h

    return lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)[1]


def _random_bits(key):
    return jax.random.bits(jax.random.wrap_key_data(key), (256, 256))


def _legacy() -> list[Program]:
    programs: list[Program] = []
    for n in (64, 1024, 1 << 20):
        programs.append(
            Program(
                f"elementwise n={n}",
                lambda x: jnp.exp(x) * 2 + jnp.sin(x),
                lambda r, n=n: [_f32(r, n)],
                False,
            )
        )
        programs.append(
            Program(f"reduce-sum n={n}", lambda x: x.sum(), lambda r, n=n: [_f32(r, n)], False)
        )
    programs += [
        Program(
            "mlp 128x256x10",
            _mlp_small,
            lambda r: [_f32(r, 128, 256), _f32(r, 256, 256), _f32(r, 256, 10)],
            False,
        ),
        Program(
            "mlp grad",
            _mlp_grad,
            lambda r: [_f32(r, 128, 256), _f32(r, 256, 256), _f32(r, 256, 10)],
            False,
        ),
        Program(
            "cnn 8x32x32x3", _cnn, lambda r: [_f32(r, 8, 32, 32, 3), _f32(r, 3, 3, 3, 16)], False
        ),
        Program(
            "attention 4x64x32",
            _attention_small,
            lambda r: [_f32(r, 4, 64, 32), _f32(r, 4, 64, 32), _f32(r, 4, 64, 32)],
            False,
        ),
        # The weights are scaled so that the recurrence contracts (not chaotic).
        Program(
            "rnn scan 64 steps",
            _rnn_small,
            lambda r: [_f32(r, 64, 16, 32), _f32(r, 32, 32, scale=0.1)],
            False,
        ),
        Program("sort 1M", jnp.sort, lambda r: [_f32(r, 1 << 20)], False),
        Program(
            "top_k 1024x1024 k=8", lambda x: lax.top_k(x, 8), lambda r: [_f32(r, 1024, 1024)], False
        ),
        Program(
            "gather/scatter-add",
            lambda t, i: t.at[i].add(1.0)[i],
            lambda r: [_f32(r, 1000, 64), r.integers(0, 1000, 4096).astype(np.int32)],
            False,
        ),
        Program(
            "threefry bits 256x256",
            _random_bits,
            lambda r: [np.array([0, 42], np.uint32)],
            False,
        ),
        Program(
            "fft 256x256", lambda x: jnp.fft.fft2(x).real, lambda r: [_f32(r, 256, 256)], False
        ),
    ]
    return programs


# ---- the 13 programs of issue #10 -------------------------------------------------------------


def mlp(x, w1, b1, w2, b2, w3, b3):
    h = jax.nn.relu(x @ w1 + b1)
    h = jax.nn.relu(h @ w2 + b2)
    return h @ w3 + b3


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def layernorm(x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean(jnp.square(x - m), axis=-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def gelu(x):
    return jax.nn.gelu(x, approximate=True)


def conv2d(x, k):
    return lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def maxpool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")


def attention(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)


def sort(x):
    return jnp.sort(x)


def scatter_add(b, idx, u):
    return b.at[idx].add(u)


def gather(table, ids):
    return table[ids]


def while_loop(c):
    return lax.fori_loop(0, 10000, lambda i, c: c * 0.999 + 1.0, c)


def scan_rnn(xs, h0, wx, wh, b):
    def step(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h

    return lax.scan(step, h0, xs)


def reduce_sum(x):
    return jnp.sum(x)


def _issue() -> list[Program]:
    def f32(*shape: int, scale: float = 1.0) -> Callable[[np.random.Generator], np.ndarray]:
        return lambda r: _f32(r, *shape, scale=scale)

    def of(*makers: Callable[[np.random.Generator], np.ndarray]):
        return lambda r: [m(r) for m in makers]

    s784, s512, s256 = 784**-0.5, 512**-0.5, 256**-0.5
    return [
        Program(
            "mlp",
            mlp,
            of(
                f32(256, 784),
                f32(784, 512, scale=s784),
                f32(512, scale=0.1),
                f32(512, 512, scale=s512),
                f32(512, scale=0.1),
                f32(512, 10, scale=s512),
                f32(10, scale=0.1),
            ),
            True,
        ),
        Program("softmax", softmax, of(f32(1024, 4096)), True),
        Program("layernorm", layernorm, of(f32(4096, 1024), f32(1024), f32(1024)), True),
        Program("gelu", gelu, of(f32(1 << 24)), True),
        Program(
            "conv2d", conv2d, of(f32(32, 64, 64, 32), f32(3, 3, 32, 64, scale=288**-0.5)), True
        ),
        Program("maxpool", maxpool, of(f32(32, 64, 64, 64)), True),
        Program(
            "attention",
            attention,
            of(f32(8, 8, 512, 64), f32(8, 8, 512, 64), f32(8, 8, 512, 64)),
            True,
        ),
        Program("sort", sort, of(f32(1 << 20)), True),
        Program(
            "scatter_add",
            scatter_add,
            lambda r: [
                np.zeros(1 << 16, np.float32),
                r.integers(0, 1 << 16, 1 << 20).astype(np.int32),
                _f32(r, 1 << 20),
            ],
            True,
        ),
        Program(
            "gather",
            gather,
            lambda r: [_f32(r, 50000, 256), r.integers(0, 50000, 65536).astype(np.int32)],
            True,
        ),
        Program("while_loop", while_loop, lambda r: [np.float32(0.5)], True),
        # Contractive weights (scale 0.5/sqrt(256)), so 200 steps stay far from chaos.
        Program(
            "scan_rnn",
            scan_rnn,
            of(
                f32(200, 32, 256),
                f32(32, 256),
                f32(256, 256, scale=0.5 * s256),
                f32(256, 256, scale=0.5 * s256),
                f32(256, scale=0.1),
            ),
            True,
        ),
        Program("reduce_sum", reduce_sum, of(f32(1 << 26)), True),
    ]


# ---- cumulative reductions (issue #19) ---------------------------------------------------------


def _scans() -> list[Program]:
    # Sums of positive weights (a CDF), so that the float sums are well conditioned and
    # the platforms' summation orders agree to a few ulp.
    def weights(*shape: int) -> Callable[[np.random.Generator], list[np.ndarray]]:
        return lambda r: [r.random(shape, dtype=np.float32)]

    def f32(*shape: int) -> Callable[[np.random.Generator], list[np.ndarray]]:
        return lambda r: [_f32(r, *shape)]

    return [
        Program("cumsum 64x4096", lambda x: jnp.cumsum(x, axis=1), weights(64, 4096), False),
        Program(
            "cumsum reverse 64x4096",
            lambda x: lax.cumsum(x, axis=1, reverse=True),
            weights(64, 4096),
            False,
        ),
        Program("cumsum axis 0 4096x64", lambda x: jnp.cumsum(x, axis=0), weights(4096, 64), False),
        Program(
            "cumsum int32 64x4096",
            lambda x: jnp.cumsum(x, axis=1),
            lambda r: [r.integers(-1000, 1000, (64, 4096)).astype(np.int32)],
            False,
        ),
        Program(
            "cumprod 64x4096",
            lambda x: jnp.cumprod(x, axis=1),
            lambda r: [1 + _f32(r, 64, 4096, scale=0.01)],
            False,
        ),
        Program("cummax 64x4096", lambda x: lax.cummax(x, axis=1), f32(64, 4096), False),
        Program(
            "cumlogsumexp 64x4096", lambda x: lax.cumlogsumexp(x, axis=1), f32(64, 4096), False
        ),
    ]


PROGRAMS: list[Program] = _legacy() + _issue() + _scans()


def make_inputs(program: Program) -> list[np.ndarray]:
    """The program's inputs, from a seed derived from its name (same bits in every process)."""
    seed = int.from_bytes(program.name.encode()[:8].ljust(8, b"\0"), "little")
    return program.inputs(np.random.default_rng(seed))


def hlo_text(program: Program, inputs: list[np.ndarray]) -> str:
    """The program's HLO text as jax lowers it (``jax.jit(fn).lower(...)``)."""
    return jax.jit(program.fn).lower(*inputs).compiler_ir("hlo").as_hlo_text(True)
