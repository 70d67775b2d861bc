"""Real JAX programs (jaxlib 0.10): the HLO text JAX prints for them, before and after XLA's CPU
optimizations, parses, verifies, round-trips to an equal module, and XLA reads our text as it
reads the original; without metadata our text is exactly XLA's.

Each program is lowered in a subprocess (running this file as a script) so that the 4 fake CPU
devices needed by shard_map/pmap do not leak into other tests.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

QUICK = ["shard_map", "pmap", "while", "scatter_more", "random_more", "callback"]  # fmt: skip


def _programs():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def f32(*s):
        return np.random.default_rng(0).standard_normal(s).astype(np.float32)

    def i32(*s):
        return np.arange(np.prod(s), dtype=np.int32).reshape(s)

    progs = {
        "svd": (lambda a: jnp.linalg.svd(a), [f32(4, 3)]),
        "solve": (lambda a, b: jnp.linalg.solve(a + 4 * jnp.eye(4), b), [f32(4, 4), f32(4, 2)]),
        "inv_det": (
            lambda a: (
                jnp.linalg.inv(a + 4 * jnp.eye(4)),
                jnp.linalg.det(a),
                jnp.linalg.slogdet(a),
            ),
            [f32(4, 4)],
        ),
        "eig": (lambda a: jnp.linalg.eigvals(a), [f32(3, 3)]),
        "lu": (lambda a: jax.scipy.linalg.lu(a), [f32(4, 4)]),
        "nn": (
            lambda x: (
                jax.nn.gelu(x),
                jax.nn.silu(x),
                jax.nn.softplus(x),
                jax.nn.one_hot(jnp.argmax(x, -1), 4),
                jax.nn.logsumexp(x),
            ),
            [f32(3, 4)],
        ),
        "conv_t": (
            lambda x, k: lax.conv_transpose(
                x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            ),
            [f32(1, 5, 5, 2), f32(3, 3, 2, 3)],
        ),
        "grouped_conv": (
            lambda x, k: lax.conv_general_dilated(
                x, k, (1,), "VALID", feature_group_count=2, rhs_dilation=(2,)
            ),
            [f32(2, 4, 9), f32(4, 2, 3)],
        ),
        "einsum": (
            lambda a, b: jnp.einsum("bij,bjk->bik", a, b, precision=lax.Precision.HIGHEST),
            [f32(2, 3, 4), f32(2, 4, 5)],
        ),
        "reductions": (
            lambda x: (
                jnp.argmax(x, 0),
                jnp.argmin(x, 1),
                jnp.any(x > 0),
                jnp.all(x > -5),
                jnp.prod(x),
                jnp.std(x),
                jnp.cumprod(x, 1),
                lax.cummax(x, 0),
                lax.cumlogsumexp(x, 1),
            ),
            [f32(4, 5)],
        ),
        "bits": (
            lambda a, b: (
                a & b,
                a | b,
                a ^ b,
                ~a,
                lax.shift_right_logical(a, 2),
                jnp.left_shift(a, 1),
                a.astype(jnp.int8),
                a.astype(jnp.uint16),
                lax.bitcast_convert_type(a, jnp.float32),
            ),
            [i32(6), i32(6) * 7],
        ),
        "complex": (
            lambda x: (jnp.exp(x * 1j), jnp.sqrt(x.astype(jnp.complex64)), jnp.conj(x + 1j)),
            [f32(5)],
        ),
        "fft_more": (
            lambda x: (
                jnp.fft.irfft(jnp.fft.rfft(x)),
                jnp.fft.fftn(x.astype(jnp.complex64)),
                jnp.fft.ifft2(x),
            ),
            [f32(4, 8)],
        ),
        "random_more": (
            lambda k: (
                jax.random.gamma(jax.random.wrap_key_data(k), 2.0, (3,)),
                jax.random.categorical(jax.random.wrap_key_data(k), jnp.zeros((2, 5))),
                jax.random.permutation(jax.random.wrap_key_data(k), 6),
                jax.random.bernoulli(jax.random.wrap_key_data(k), 0.3, (4,)),
            ),
            [np.array([0, 1], np.uint32)],
        ),
        "while": (
            lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, x)),
            [f32(3)],
        ),
        "switch": (
            lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x),
            [np.int32(1), f32(3)],
        ),
        "scan_unroll": (
            lambda x: lax.scan(lambda c, v: (c + v, c * v), 0.0, x, unroll=2),
            [f32(6)],
        ),
        "dus": (
            lambda x, u, i: (
                lax.dynamic_update_slice(x, u, (i, 0)),
                lax.dynamic_slice(x, (i, i), (2, 2)),
            ),
            [f32(5, 5), f32(2, 5), np.int32(1)],
        ),
        "scatter_more": (
            lambda x, i, u: (x.at[i].set(u), x.at[i].max(u), x.at[i].mul(u), x.at[::2].get()),
            [f32(6), np.array([1, 3], np.int32), f32(2)],
        ),
        "gather_batch": (
            lambda x, i: jax.vmap(lambda a, b: a[b])(x, i),
            [f32(3, 5), np.array([0, 2, 4], np.int32)],
        ),
        "precision": (
            lambda x: (
                lax.reduce_precision(x, 5, 10),
                jnp.round(x),
                jnp.floor(x),
                lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
                jnp.nextafter(x, 1.0),
                lax.erf_inv(x / 10),
                lax.lgamma(jnp.abs(x) + 1),
                lax.digamma(jnp.abs(x) + 1),
                lax.igamma(2.0, jnp.abs(x)),
            ),
            [f32(5)],
        ),
        "types": (
            lambda x: (
                x.astype(jnp.float8_e4m3fn),
                x.astype(jnp.float8_e5m2),
                x.astype(jnp.int4),
                x.astype(jnp.uint4),
                x.astype(jnp.float16),
                x.astype(jnp.bfloat16),
                x.astype(jnp.float64) if jax.config.jax_enable_x64 else x,
                x.astype(bool),
            ),
            [f32(4)],
        ),
        "custom_vjp_grad": (
            jax.grad(lambda x: jnp.sum(jnp.tanh(x) ** 2 + jax.nn.sigmoid(x))),
            [f32(4)],
        ),
        "hessian": (jax.hessian(lambda x: jnp.sum(jnp.sin(x) * x**3)), [f32(3)]),
        "pool_grad": (
            jax.grad(
                lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID"))
            ),
            [f32(4, 4)],
        ),
        "sort_keys": (lambda x, y: lax.sort((x, y), num_keys=2), [f32(6), i32(6)]),
        "top_k_min": (
            lambda x: (lax.top_k(-x, 2), jnp.argsort(x), jnp.sort(x, axis=0), jnp.median(x)),
            [f32(4, 5)],
        ),
        "pad_concat": (
            lambda x: (
                jnp.pad(x, ((1, 2), (0, 3)), mode="reflect"),
                jnp.concatenate([x, x], 1),
                jnp.tile(x, (2, 1)),
                jnp.roll(x, 2, 1),
                jnp.flip(x),
            ),
            [f32(3, 4)],
        ),
        "clamp_select": (
            lambda x: (
                jnp.clip(x, -0.5, 0.5),
                lax.select_n(jnp.int32(1), x, -x),
                jnp.where(x > 0, x, 0.0),
                jnp.nan_to_num(x / 0),
            ),
            [f32(4)],
        ),
        "big_const": (lambda x: x + jnp.arange(30.0).reshape(5, 6), [f32(5, 6)]),
        "iota_eye": (
            lambda: (jnp.eye(4), jnp.tri(3), jnp.arange(10) % 3, jnp.linspace(0, 1, 7)),
            [],
        ),
        "callback": (
            lambda x: jax.pure_callback(
                lambda v: np.asarray(v) * 2, jax.ShapeDtypeStruct((3,), jnp.float32), x
            ),
            [f32(3)],
        ),
        "checkpoint": (
            jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda v: jnp.sin(jnp.sin(v)))(x))),
            [f32(4)],
        ),
        "cond_tuple": (
            lambda p, x: lax.cond(p, lambda a: (a, a * 2), lambda a: (a * 3, a), x),
            [np.bool_(True), f32(2)],
        ),
    }
    devs = np.array(jax.devices()[:4]).reshape(2, 2)
    mesh = Mesh(devs, ("x", "y"))

    def smap(x):
        return jax.shard_map(
            lambda a: (
                lax.psum(a, "x")
                + lax.all_gather(a, "y", tiled=True)[: a.shape[0]]
                + lax.ppermute(a, "x", [(0, 1), (1, 0)])
            ),
            mesh=mesh,
            in_specs=P("x", "y"),
            out_specs=P("x", "y"),
        )(x)

    progs["shard_map"] = (smap, [f32(4, 4)])
    progs["sharded_jit"] = (
        jax.jit(
            lambda x: jnp.sin(x) @ x.T,
            in_shardings=NamedSharding(mesh, P("x", "y")),
            out_shardings=NamedSharding(mesh, P("x")),
        ),
        [f32(4, 4)],
    )
    progs["pmap"] = (
        jax.pmap(lambda x: lax.psum(x, "i") * lax.axis_index("i"), axis_name="i"),
        [f32(4, 3)],
    )
    return progs


def _check(name: str) -> None:
    import difflib

    import jax
    import jaxlib._hlo as h

    sys.path.insert(0, os.path.dirname(__file__))
    from test_hlo_roundtrip import module_differences, resolve_stack_frames

    from xlapy.ir.verifier import verify
    from xlapy.text.hlo_parser import parse_hlo
    from xlapy.text.hlo_printer import PrintOptions, print_hlo

    fn, args = _programs()[name]
    lowered = (fn if hasattr(fn, "lower") else jax.jit(fn)).lower(*args)
    short = h.HloPrintOptions.short_parsable()
    texts = [
        lowered.compiler_ir("hlo").as_hlo_module().to_string(short),
        lowered.compile().as_text(),
    ]
    presets = {
        "default": (h.HloPrintOptions(), PrintOptions()),
        "short_parsable": (short, PrintOptions.short_parsable()),
        "canonical": (h.HloPrintOptions.canonical(), PrintOptions.canonical()),
    }
    lossless = PrintOptions(print_large_constants=True)
    for text in texts:
        module = parse_hlo(text, name)
        verify(module)
        printed = print_hlo(module, options=lossless)
        again = parse_hlo(printed)
        diffs = module_differences(module, again)
        assert not diffs, diffs[:5]
        assert print_hlo(again, options=lossless) == printed, "printing is not a fixpoint"
        for preset, (xla_options, ours) in presets.items():
            xla_original = h.hlo_module_from_text(text).to_string(xla_options)
            xla_ours = h.hlo_module_from_text(printed).to_string(xla_options)
            assert resolve_stack_frames(xla_original) == resolve_stack_frames(xla_ours), preset
            if preset != "default":
                mine = print_hlo(module, options=ours)
                diff = difflib.unified_diff(xla_original.splitlines(), mine.splitlines())
                assert mine == xla_original, preset + "\n" + "\n".join(list(diff)[:20])


def _run(names: list[str]) -> None:
    pytest.importorskip("jax")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4",
               JAX_PLATFORMS="cpu")  # fmt: skip
    proc = subprocess.run([sys.executable, __file__, *names], capture_output=True, text=True,
                          env=env, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.mark.oracle
def test_quick_programs():
    _run(QUICK)


@pytest.mark.oracle
@pytest.mark.slow
def test_all_programs():
    _run([])


if __name__ == "__main__":
    failures = []
    for program in sys.argv[1:] or list(_programs()):
        try:
            _check(program)
            print("ok", program)
        except Exception as err:  # report every failing program, then fail
            failures.append(program)
            print("FAIL", program, type(err).__name__, str(err)[:3000])
    sys.exit(1 if failures else 0)
