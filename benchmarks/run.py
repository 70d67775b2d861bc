"""Side-by-side timing of xlapy and XLA:CPU on the same programs (needs jax; not part of the
package).

  python3 benchmarks/run.py [--repeat N] [--filter TEXT]

Each program is a JAX function: it is lowered to HLO text once, loaded with ``xlapy.load`` and
run with ``xlapy.run``; XLA:CPU runs the jitted function (warmed up, ``block_until_ready``).
Reported: the median of N runs of each, their ratio (xlapy / XLA), and whether the outputs
agree (integers exactly, floats within 1e-4 relative). Writes a markdown table to stdout and
``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import xlapy

HERE = Path(__file__).parent


def _mlp(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def _mlp_grad(x, w1, w2):
    return jax.grad(lambda a, b: (jnp.tanh(x @ a) @ b).sum(), argnums=(0, 1))(w1, w2)


def _cnn(x, k):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return lax.reduce_window(jax.nn.relu(y), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def _attention(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


def _rnn(xs, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h

    return lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)[1]


def _random_bits(key):
    return jax.random.bits(jax.random.wrap_key_data(key), (256, 256))


def _programs() -> list[tuple[str, Callable[..., object], list[np.ndarray]]]:
    r = np.random.default_rng(0)

    def f32(*shape: int) -> np.ndarray:
        return r.standard_normal(shape).astype(np.float32)

    programs: list[tuple[str, Callable[..., object], list[np.ndarray]]] = []
    for n in (64, 1024, 1 << 20):
        programs.append((f"elementwise n={n}", lambda x: jnp.exp(x) * 2 + jnp.sin(x), [f32(n)]))
        programs.append((f"reduce-sum n={n}", lambda x: x.sum(), [f32(n)]))
    programs += [
        ("mlp 128x256x10", _mlp, [f32(128, 256), f32(256, 256), f32(256, 10)]),
        ("mlp grad", _mlp_grad, [f32(128, 256), f32(256, 256), f32(256, 10)]),
        ("cnn 8x32x32x3", _cnn, [f32(8, 32, 32, 3), f32(3, 3, 3, 16)]),
        ("attention 4x64x32", _attention, [f32(4, 64, 32), f32(4, 64, 32), f32(4, 64, 32)]),
        (
            "rnn scan 64 steps",
            _rnn,
            [f32(64, 16, 32), f32(32, 32) * 0.1],
        ),  # contractive: not chaotic
        ("sort 1M", jnp.sort, [f32(1 << 20)]),
        ("top_k 1024x1024 k=8", lambda x: lax.top_k(x, 8), [f32(1024, 1024)]),
        (
            "gather/scatter-add",
            lambda t, i: t.at[i].add(1.0)[i],
            [f32(1000, 64), r.integers(0, 1000, 4096).astype(np.int32)],
        ),
        ("threefry bits 256x256", _random_bits, [np.array([0, 42], np.uint32)]),
        ("fft 256x256", lambda x: jnp.fft.fft2(x).real, [f32(256, 256)]),
    ]
    return programs


def _median_seconds(fn: Callable[[], object], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _agree(ours: list[np.ndarray], theirs: list[np.ndarray]) -> bool:
    for a, b in zip(ours, theirs, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if np.issubdtype(b.dtype, np.floating):
            if not np.allclose(
                a, b, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(b).max(initial=0)))
            ):
                return False
        elif not np.array_equal(a, b):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    rows = ["| program | xlapy | XLA:CPU | ratio | outputs agree |", "|---|---:|---:|---:|---|"]
    print(rows[0], rows[1], sep="\n", flush=True)
    for name, fn, inputs in _programs():
        if args.filter not in name:
            continue
        jitted = jax.jit(fn)
        module = xlapy.load(jitted.lower(*inputs).compiler_ir("hlo").as_hlo_text(True))
        theirs = [np.asarray(o) for o in jax.tree_util.tree_leaves(jitted(*inputs))]
        ours = xlapy.run(module, *inputs)
        t_xla = _median_seconds(
            lambda f=jitted, a=inputs: jax.block_until_ready(f(*a)), args.repeat
        )
        t_ours = _median_seconds(lambda m=module, a=inputs: xlapy.run(m, *a), args.repeat)
        row = (
            f"| {name} | {t_ours * 1e3:.2f} ms | {t_xla * 1e3:.3f} ms | "
            f"{t_ours / t_xla:.0f}x | {'yes' if _agree(ours, theirs) else 'NO'} |"
        )
        rows.append(row)
        print(row, flush=True)
    (HERE / "results.md").write_text(
        f"# xlapy vs XLA:CPU (jax {jax.__version__}, median of {args.repeat})\n\n"
        + "\n".join(rows)
        + "\n"
    )


if __name__ == "__main__":
    main()
