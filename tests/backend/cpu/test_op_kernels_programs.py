"""Whole JAX programs on the ``cpu`` platform that reach the data-heavy op kernels (sort,
gather, scatter, convolution, pooling reduce-windows (fused), select-and-scatter, dot, dynamic
slices in a loop, rng-bit-generator): the report names the kernel, and the results equal the
interpreter's (bit for bit where the kernel is exact)."""

import numpy as np
import pytest
from op_kernels_util import assert_close, assert_same

import xlapy

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax


def lowered(fn, *args):
    return xlapy.load(jax.jit(fn).lower(*args).compiler_ir("hlo").as_hlo_text(True))


def kernel_lines(exe, opcode):
    return [
        line
        for line in exe.report().splitlines()
        if line.split()[1:2] == [opcode] and " kernel " in f" {line} "
    ]


R = np.random.default_rng(0)
X = R.standard_normal((4, 9, 8, 3)).astype(np.float32)
X[0, 0, 0, 0] = np.nan
V = R.standard_normal(1000).astype(np.float32)
V[::50] = np.nan
V[1::50] = -0.0
IDX = R.integers(-20, 1020, 3000).astype(np.int32)
UPD = R.standard_normal(3000).astype(np.float32)

PROGRAMS = [
    ("sort", jnp.sort, [V], "sort", True),
    ("argsort", lambda v: jnp.argsort(v, stable=True), [V], "sort", True),
    ("sort2", lambda a, b: lax.sort((a, b), num_keys=2), [V, IDX[:1000]], "sort", True),
    ("scatter_add", lambda b, i, u: b.at[i].add(u, mode="drop"), [V, IDX, UPD], "scatter", True),
    ("scatter_max", lambda b, i, u: b.at[i].max(u, mode="drop"), [V, IDX, UPD], "scatter", True),
    ("gather", lambda t, i: t[jnp.clip(i, 0, 999)], [V, IDX], "gather", True),
    (
        "conv",
        lambda x, k: lax.conv_general_dilated(
            x, k, (2, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        ),
        [np.nan_to_num(X), R.standard_normal((3, 3, 3, 5)).astype(np.float32)],
        "convolution",
        False,
    ),
    (
        "maxpool",
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
        [X],
        "fusion",  # a pooling window is fused with its init (the reduce-window generator)
        True,
    ),
    (
        "maxpool_grad",
        jax.grad(
            lambda x: lax.reduce_window(
                x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"
            ).sum()
        ),
        [np.nan_to_num(X)],
        "select-and-scatter",
        True,
    ),
    (
        "dot",
        lambda a, b: a @ b,
        [np.nan_to_num(X).reshape(36, 24), X[1:].reshape(24, 27)],
        "dot",
        False,
    ),
    (
        "int_dot",
        lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.int32),
        [IDX[:600].reshape(20, 30).astype(np.int8), IDX[600:1200].reshape(30, 20).astype(np.int8)],
        "dot",
        True,
    ),
    (
        "dus",
        lambda v, u, i: lax.dynamic_update_slice(v, u, (i,)),
        [V, UPD[:7], np.int32(995)],
        "dynamic-update-slice",
        True,
    ),
]


@pytest.mark.parametrize(
    ("fn", "args", "opcode", "exact"),
    [p[1:] for p in PROGRAMS],
    ids=[p[0] for p in PROGRAMS],
)
def test_program_runs_op_kernel_like_the_interpreter(fn, args, opcode, exact):
    module = lowered(fn, *args)
    exe = xlapy.compile(module, platform="cpu")
    assert kernel_lines(exe, opcode), exe.report()
    got = exe(*args)
    want = xlapy.run(module, *args, platform="interpreter")
    for g, w in zip(got, want, strict=True):
        if exact:
            assert_same(np.asarray(g), np.asarray(w))
        else:
            assert_close(np.asarray(g), np.asarray(w), rtol=1e-5)


def test_rng_bit_generator_program():
    text = """HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  r = (u64[2], u32[3,5]) rng-bit-generator(s), algorithm=rng_three_fry
  n = u64[2] get-tuple-element(r), index=0
  b = u32[3,5] get-tuple-element(r), index=1
  r2 = (u64[2], f32[7]) rng-bit-generator(n), algorithm=rng_philox
  b2 = f32[7] get-tuple-element(r2), index=1
  ROOT t = (u32[3,5], f32[7]) tuple(b, b2)
}"""
    module = xlapy.load(text)
    exe = xlapy.compile(module, platform="cpu")
    assert len(kernel_lines(exe, "rng-bit-generator")) == 2, exe.report()
    state = np.array([5, 2**64 - 3], np.uint64)
    for g, w in zip(exe(state), xlapy.run(module, state, platform="interpreter"), strict=True):
        assert_same(np.asarray(g), np.asarray(w))
