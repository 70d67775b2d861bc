"""The compiled ``fft`` kernel and the whole-array complex elementwise kernels against the
interpreter, bit for bit: JAX's lowerings of fft/ifft/rfft2/irfft2 and complex arithmetic in
complex64 and complex128, an empty batch, NaN and infinite inputs, with and without flushing;
the report shows no interpreter eval for the fft or the complex ops. The transforms run on one
thread and, however small, on three (``threads``): the same bits."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from op_kernels_util import assert_outputs_same

import xlapy


def _complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _power_spectrum(re, im):
    return jnp.abs(jnp.fft.fft(jax.lax.complex(re, im))) ** 2


def _spectral_conv(x, k):
    shape = x.shape[-2:]
    return jnp.fft.irfft2(jnp.fft.rfft2(x) * jnp.fft.rfft2(k, s=shape), s=shape)


def _complex_math(z, w):
    return jnp.real(z * w + jnp.exp(z)), jnp.imag(z - w / (w + 1)), jnp.fft.ifft(z)


def _rfft3(x):
    return jnp.fft.rfftn(x, axes=(-3, -2, -1))


PROGRAMS = {
    "power_spectrum": (_power_spectrum, lambda r, c, f, b: [r(f, (*b, 64)), r(f, (*b, 64))]),
    "spectral_conv": (_spectral_conv, lambda r, c, f, b: [r(f, (*b, 8, 8)), r(f, (3, 3))]),
    "complex_math": (_complex_math, lambda r, c, f, b: [c(c_, (*b, 16)) for c_ in (0, 1)]),
    "rfft3": (_rfft3, lambda r, c, f, b: [r(f, (*b, 4, 6, 8))]),
}


def _args(name, dtype, batch, seed=0):
    rng = np.random.default_rng(seed)
    real = np.float32 if dtype == np.complex64 else np.float64

    def r(f, shape):
        return rng.standard_normal(shape).astype(real)

    def c(_, shape):
        return _complex(rng, shape, dtype)

    return PROGRAMS[name][1](r, c, real, batch)


@pytest.fixture(params=[1, 3])
def threads(request, monkeypatch):
    """How many threads every fft kernel compiled in the test runs on."""
    from xlapy.backend.cpu.kernels import blas, fft

    if request.param > 1:
        monkeypatch.setattr(fft, "_SPLIT_WORK", 0.0)
        monkeypatch.setattr(blas, "spare_core", lambda: True)
        monkeypatch.setattr(blas, "workers", lambda: request.param)
    return request.param


def _compare(fn, args, flush=False, threads=1):
    with jax.enable_x64(True):  # c128 arguments stay wide; no other test sees the flag
        text = jax.jit(fn).lower(*args).as_text()
    module = xlapy.load(text)
    exe = xlapy.compile(module, platform="cpu", flush_denormals=flush, tiered=False)
    report = exe.report()
    fallbacks = [line for line in report.splitlines() if " fallback " in f" {line} "]
    assert not fallbacks, report
    ffts = [line for line in report.splitlines() if " scipy.fft " in line]
    assert ffts, report
    split = [line for line in ffts if " 3 threads when a core is idle" in line]
    assert len(split) == (len(ffts) if threads > 1 else 0), report
    got = exe(*args)
    want = xlapy.run(module, *args, platform="interpreter", flush_denormals=flush)
    return assert_outputs_same(got, want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft_programs_match_the_interpreter(name, dtype, threads):
    fn, _ = PROGRAMS[name]
    args = _args(name, dtype, (3,))
    want = _compare(fn, args, threads=threads)
    with jax.enable_x64(True):
        xla = fn(*args)
    xla = xla if isinstance(xla, tuple) else (xla,)
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    for w, x in zip(want, xla, strict=True):
        np.testing.assert_allclose(w, np.asarray(x), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fft_programs_empty_batch(name):
    fn, _ = PROGRAMS[name]
    _compare(fn, _args(name, np.complex64, (0,)))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fft_programs_nan_inf_and_flushing(name, threads):
    fn, _ = PROGRAMS[name]
    args = _args(name, np.complex64, (2,), seed=5)
    flat = args[0].reshape(-1)
    flat[0] = np.nan
    flat[1] = np.inf
    flat[2] = 1e-40  # subnormal in f32
    args[-1].reshape(-1)[3] = -1e-41
    _compare(fn, args, threads=threads)
    _compare(fn, args, flush=True, threads=threads)
