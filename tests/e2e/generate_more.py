"""Regenerates the extra end-to-end programs in ``tests/e2e/data/`` with JAX (CPU): control flow
(while loops with tuple state, switch, cond inside scan, composites) and random numbers
(rng-bit-generator for every algorithm and bit width, jax.random distributions, including the
rejection loops of gamma).

Same files as ``examples/generate.py``: ``<name>.hlo``, ``<name>.opt.hlo``, ``<name>.mlir``,
``<name>.inputs.npz`` (``arg0, ...``) and ``<name>.outputs.npz`` (``out0, ...``, flattened).
Run ``python tests/e2e/generate_more.py [name ...]`` (needs jax; not part of xlapy).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jaxlib import _hlo

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)

HERE = Path(__file__).resolve().parent / "data"
RNG = np.random.default_rng(20260814)


def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# ---- control flow ---------------------------------------------------------------------------


def while_tuple(n, x):
    """A data-dependent while loop with a tuple state: Collatz steps of ``n`` (s32) while a
    float accumulator follows along; returns the step count, the final n and the accumulator."""

    def cond(state):
        steps, value, _ = state
        return (value != 1) & (steps < 200)

    def body(state):
        steps, value, acc = state
        value = jnp.where(value % 2 == 0, value // 2, 3 * value + 1)
        return steps + 1, value, acc * 0.75 + jnp.cos(x * steps.astype(jnp.float32))

    return lax.while_loop(cond, body, (jnp.int32(0), n, jnp.zeros_like(x)))


def switch(index, x):
    """lax.switch with three branches, for the given index and for out-of-range ones (JAX clamps
    them), and a cond returning a tuple."""
    branches = (lambda v: v * 2.0, lambda v: jnp.sin(v) - 1.0, lambda v: v[::-1] + 0.5)
    picks = [lax.switch(i, branches, x) for i in (index, index - 7, index + 9)]
    pair = lax.cond(index > 0, lambda v: (v.sum(), v.max()), lambda v: (v.min(), v.mean()), x)
    return (*picks, *pair)


def scan_with_cond(xs, h0):
    """scan whose body branches (cond) and loops (fori_loop) on the carried state."""

    def step(h, x):
        h = lax.cond(x.sum() > 0, lambda a: a + x, lambda a: a * 0.5 - x, h)
        h = lax.fori_loop(0, 3, lambda i, a: a * 0.9 + 0.1 * i, h)
        return h, jnp.tanh(h)

    return lax.scan(step, h0, xs)


def composite(x, y):
    """A composite (call with is_composite=true) around a small decomposition."""
    fma = lax.composite(lambda a, b: a * b + 1.0, name="xlapy.test.fma")
    return fma(x, y), fma(y, x) * 2.0


# ---- random numbers -------------------------------------------------------------------------

_ALGORITHMS = {
    "threefry": lax.RandomAlgorithm.RNG_THREE_FRY,
    "philox": lax.RandomAlgorithm.RNG_PHILOX,
    "default": lax.RandomAlgorithm.RNG_DEFAULT,
}


def rng_bits(state):
    """rng-bit-generator for each algorithm and unsigned width, on odd and even shapes; the
    state threads through all of them."""
    outputs = []
    for algorithm in _ALGORITHMS.values():
        for dtype, shape in (
            (jnp.uint8, (3, 5)),
            (jnp.uint16, (2, 3, 3)),
            (jnp.uint32, (7,)),
            (jnp.uint32, (4, 6)),
            (jnp.uint64, (3, 3)),
            (jnp.uint64, ()),
        ):
            state, bits = lax.rng_bit_generator(state, shape, dtype, algorithm=algorithm)
            outputs.append(bits)
    return (*outputs, state)


def random_distributions(key_data):
    """jax.random samplers on a threefry key (threefry2x32 written in HLO by JAX): normal,
    bernoulli, randint, categorical, truncated_normal, exponential and gamma (rejection
    sampling in a while loop)."""
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    keys = jax.random.split(key, 8)
    logits = jnp.log(jnp.array([0.1, 0.2, 0.3, 0.4], jnp.float32))
    return (
        jax.random.normal(keys[0], (4, 3), jnp.float32),
        jax.random.bernoulli(keys[1], 0.3, (10,)),
        jax.random.randint(keys[2], (8,), -5, 17, jnp.int32),
        jax.random.categorical(keys[3], logits, shape=(6,)),
        jax.random.truncated_normal(keys[4], -1.0, 2.0, (5,), jnp.float32),
        jax.random.exponential(keys[5], (5,), jnp.float32),
        jax.random.gamma(keys[7], jnp.array([0.5, 1.0, 3.0], jnp.float32)),
    )


def random_permutation(key_data):
    """jax.random.permutation and choice without replacement (random keys, then a sort)."""
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    k1, k2 = jax.random.split(key)
    return (
        jax.random.permutation(k1, 10),
        jax.random.choice(k2, jnp.arange(20), (5,), replace=False),
    )


def random_rbg_bits(key_data):
    """The rbg key implementation: rng-bit-generator under jax.random.bits/uniform/split."""
    key = jax.random.wrap_key_data(key_data, impl="rbg")
    k1, k2 = jax.random.split(key)
    return (
        jax.random.bits(k1, (3, 7), jnp.uint32),
        jax.random.bits(k2, (5,), jnp.uint8),
        jax.random.uniform(k2, (2, 2), jnp.float64),
        jax.random.bits(key, (4,), jnp.uint64),
    )


EXAMPLES: dict[str, tuple[Callable[..., object], Callable[[], list[np.ndarray]]]] = {
    "while_tuple": (while_tuple, lambda: [np.int32(27), normal(5)]),
    "switch": (switch, lambda: [np.int32(1), normal(6)]),
    "scan_with_cond": (scan_with_cond, lambda: [normal(6, 4), normal(4)]),
    "composite": (composite, lambda: [normal(5), normal(5)]),
    "rng_bits": (rng_bits, lambda: [np.array([0x12345678, 2**64 - 5], np.uint64)]),
    "random_distributions": (random_distributions, lambda: [np.array([7, 2026], np.uint32)]),
    "random_permutation": (random_permutation, lambda: [np.array([3, 14], np.uint32)]),
    "random_rbg_bits": (random_rbg_bits, lambda: [np.array([9, 8, 7, 6], np.uint32)]),
}


# Metadata (op names, source lines) is most of the optimized text; the program does not need it.
_METADATA = re.compile(r", metadata=\{[^{}]*\}")


def generate(name: str) -> None:
    fn, make_inputs = EXAMPLES[name]
    args = make_inputs()
    lowered = jax.jit(fn).lower(*args)
    hlo_module = lowered.compiler_ir("hlo").as_hlo_module()
    HERE.mkdir(exist_ok=True)
    (HERE / f"{name}.hlo").write_text(hlo_module.to_string(_hlo.HloPrintOptions.short_parsable()))
    optimized = _METADATA.sub("", lowered.compile().as_text())
    (HERE / f"{name}.opt.hlo").write_text(optimized)
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
