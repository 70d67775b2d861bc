"""The f32 transcendentals that kernels call (``fast_math.exp_f32``...) are inlined wherever
they are called: LLVM's inliner, left to its cost model, once kept a call in one unrolled
copy of a row reduction's loop, which then ran scalar. The wrappers return the bits of the
functions they wrap. The float helpers of ``scalar_ops`` (maximum, minimum, flush) are inlined
into numba's IR and keep their NaN and signed-zero rules."""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

from xlapy.backend.cpu.codegen import fast_math, scalar_ops

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


@pytest.mark.parametrize(
    "name", ["exp_f32", "log_f32", "tanh_f32", "logistic_f32", "erf_f32", "erfc_f32"]
)
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


@pytest.mark.parametrize("name", ["maximum_float", "minimum_float", "flush_f32", "flush_f64"])
def test_float_helpers_are_inlined_into_numba_ir(name: str) -> None:
    """maximum, minimum and flush are inlined into the caller's numba IR: called as functions,
    they left the loop of a fused bias + relu + 2x2 average pool (200K outputs) 6x slower
    (0.56 vs 0.09 ms)."""
    assert getattr(scalar_ops, name).targetoptions.get("inline") == "always"


def test_inlined_maximum_and_minimum_keep_nan_and_signed_zero_rules() -> None:
    @numba.njit
    def apply(a: np.ndarray, b: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> None:
        for i in range(a.size):
            hi[i] = scalar_ops.maximum_float(a[i], b[i])
            lo[i] = scalar_ops.minimum_float(a[i], b[i])

    nan1 = np.array([0x7FC00001], np.uint32).view(np.float32)[0]
    nan2 = np.array([0xFFC00002], np.uint32).view(np.float32)[0]
    a = np.array([0.0, -0.0, 1.0, nan1, 2.0, nan1, -np.inf], np.float32)
    b = np.array([-0.0, 0.0, nan2, 3.0, 2.0, nan2, 5.0], np.float32)
    hi, lo = np.empty_like(a), np.empty_like(a)
    apply(a, b, hi, lo)
    want_hi = np.array([0.0, 0.0, nan2, nan1, 2.0, nan1, 5.0], np.float32)
    want_lo = np.array([-0.0, -0.0, nan2, nan1, 2.0, nan1, -np.inf], np.float32)
    assert np.array_equal(hi.view(np.uint32), want_hi.view(np.uint32))
    assert np.array_equal(lo.view(np.uint32), want_lo.view(np.uint32))
