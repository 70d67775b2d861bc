"""The f32 transcendentals that kernels call (``fast_math.exp_f32``...) are inlined wherever
they are called: LLVM's inliner, left to its cost model, once kept a call in one unrolled
copy of a row reduction's loop, which then ran scalar. The wrappers return the bits of the
functions they wrap."""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

from xlapy.backend.cpu.codegen import fast_math

U = np.uint64


@numba.njit("void(float32[::1], float32[::1], float32[::1])", error_model="numpy")
def _softmax_sums(x: np.ndarray, sums: np.ndarray, out: np.ndarray) -> None:
    """The generated row reduction of attention 4x64x32 (sum of exp over rows of 64)."""
    for i0 in range(4):
        for i1 in range(64):
            total = np.float32(0.0)
            for r0 in range(64):
                e = np.float32(fast_math.exp_f32(x[U(i0 * 4096 + i1 * 64 + r0)]))
                total = np.float32(fast_math.add_reassoc(total, e))
                out[U(i0 * 4096 + i1 * 64 + r0)] = e
            sums[U(i0 * 64 + i1)] = total


def test_exp_is_inlined_in_every_unrolled_copy_of_a_row_reduction() -> None:
    llvm = _softmax_sums.inspect_llvm(_softmax_sums.signatures[0])
    kernel = llvm[llvm.index("define") : llvm.index("\n}\n", llvm.index("define"))]
    assert not re.search(r"call .*exp_f32", kernel)
    assert "<16 x float>" in kernel or "<8 x float>" in kernel  # the reduction vectorized


@pytest.mark.parametrize("name", ["exp_f32", "log_f32", "tanh_f32", "logistic_f32"])
def test_wrappers_return_the_bits_of_the_wrapped_functions(name: str) -> None:
    wrapper, wrapped = getattr(fast_math, name), getattr(fast_math, f"_{name}")

    @numba.njit
    def apply(values: np.ndarray, out: np.ndarray) -> None:
        for i in range(values.size):
            out[i] = wrapper(values[i])

    rng = np.random.default_rng(3)
    values = np.concatenate(
        [
            rng.standard_normal(500).astype(np.float32) * np.float32(30.0),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 100.0, -110.0], np.float32),
        ]
    )
    got = np.empty_like(values)
    apply(values, got)
    want = np.array([wrapped(v) for v in values], np.float32)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_exp_f32_underflow_to_zero_and_subnormals():
    """Below -104 e^x rounds to +0 (multiplied by zero, without an underflowing product);
    just above it the gradual underflow gives the correctly rounded subnormals within 1 ulp;
    -inf gives +0 and NaN stays NaN."""
    xs = np.array(
        [-np.inf, -3e38, -1e4, -104.5, -104.0, -103.98, -103.9, -100.0, -95.0, -88.0, -87.0],
        np.float32,
    )
    got = np.array([fast_math._exp_f32(x) for x in xs], np.float32)
    want = np.exp(xs.astype(np.float64)).astype(np.float32)
    assert np.all(got[:5] == 0)
    assert not np.signbit(got[:5]).any()
    assert np.all(np.abs(got.view(np.int32) - want.view(np.int32)) <= 1)
    assert np.isnan(fast_math._exp_f32(np.float32(np.nan)))
