"""fft: OPS.md test vectors, every FftType over 1-3 dimensions, complex64 within ULPs of XLA."""

import subprocess
import sys

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.ir.attrs import FftType
from xlapy.shape import Shape


def param(shape, number):
    return HloInstruction(Opcode.PARAMETER, shape, attrs={"parameter_number": number})


def evaluate(opcode, shape, values, attrs, *, flush_denormals=False):
    """Evaluates one instruction whose operands are ``values``."""
    values = [np.asarray(v) for v in values]
    operands = [
        param(Shape.array(dtypes.from_numpy(v.dtype), v.shape), i) for i, v in enumerate(values)
    ]
    instr = HloInstruction(opcode, shape, operands, attrs)
    options = EvalOptions(flush_denormals=flush_denormals)
    return Evaluator(HloModule("m"), options).evaluate(instr, values)


def fft(x, fft_type, lengths, element_type, out_dims):
    return evaluate(
        Opcode.FFT,
        Shape.array(element_type, out_dims),
        [x],
        {"fft_type": fft_type, "fft_length": tuple(lengths)},
    )


def test_fft_spec_vectors():
    x = np.array([1, 2, 3, 4], np.complex64)
    spectrum = np.array([10, -2 + 2j, -2, -2 - 2j], np.complex64)
    np.testing.assert_allclose(fft(x, FftType.FFT, [4], dtypes.C64, [4]), spectrum, atol=1e-6)
    np.testing.assert_allclose(fft(spectrum, FftType.IFFT, [4], dtypes.C64, [4]), x, atol=1e-6)
    got = fft(np.array([1, 2, 3, 4], np.float32), FftType.RFFT, [4], dtypes.C64, [3])
    np.testing.assert_allclose(got, spectrum[:3], atol=1e-6)
    got = fft(spectrum[:3], FftType.IRFFT, [4], dtypes.F32, [4])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [1, 2, 3, 4], atol=1e-6)


def ulp_distance(a, b):
    a = np.ascontiguousarray(a).view(np.int32).astype(np.int64)
    b = np.ascontiguousarray(b).view(np.int32).astype(np.int64)
    a = np.where(a < 0, -(a & 0x7FFFFFFF), a)
    b = np.where(b < 0, -(b & 0x7FFFFFFF), b)
    return np.abs(a - b)


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("fft_type", list(FftType))
def test_fft_matches_numpy_double_rounded_once(rank, fft_type):
    rng = np.random.default_rng(rank)
    lengths = [6, 5, 8][-rank:]
    shape = [2, *lengths]
    if fft_type is FftType.IRFFT:
        x = (
            rng.standard_normal([2, *lengths[:-1], lengths[-1] // 2 + 1])
            + 1j * rng.standard_normal([2, *lengths[:-1], lengths[-1] // 2 + 1])
        ).astype(np.complex128)
    elif fft_type is FftType.RFFT:
        x = rng.standard_normal(shape)
    else:
        x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    axes = tuple(range(1, 1 + rank))
    reference = {
        FftType.FFT: lambda: np.fft.fftn(x, axes=axes),
        FftType.IFFT: lambda: np.fft.ifftn(x, axes=axes),
        FftType.RFFT: lambda: np.fft.rfftn(x, axes=axes),
        FftType.IRFFT: lambda: np.fft.irfftn(x, s=lengths, axes=axes),
    }[fft_type]()
    element_type = dtypes.F64 if fft_type is FftType.IRFFT else dtypes.C128
    got = fft(x, fft_type, lengths, element_type, reference.shape)
    np.testing.assert_allclose(got, reference, rtol=1e-13, atol=1e-13)


def test_complex64_fft_is_close_to_xla():
    jnp = pytest.importorskip("jax.numpy")
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((4, 16, 17)) + 1j * rng.standard_normal((4, 16, 17))).astype(
        np.complex64
    )
    expected = np.asarray(jnp.fft.fftn(x, axes=(1, 2)))
    got = fft(x, FftType.FFT, [16, 17], dtypes.C64, [4, 16, 17])
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got, expected, atol=scale * 1e-6)


def test_zero_length_fft_gives_zeros():
    got = fft(np.zeros((3, 0), np.complex64), FftType.FFT, [0], dtypes.C64, [3, 0])
    assert got.shape == (3, 0)


@pytest.mark.parametrize("lengths", [[1024], [7], [97], [6, 10], [4, 5, 9]])
@pytest.mark.parametrize("fft_type", list(FftType))
@pytest.mark.parametrize("complex_type", [np.complex64, np.complex128])
def test_fft_gives_scipy_fft_bits(lengths, fft_type, complex_type):
    """The transforms call scipy.fft's pocketfft extension directly: the same bits as
    scipy.fft's functions, in single and double precision, on a strided operand too."""
    import scipy.fft

    rng = np.random.default_rng(len(lengths))
    real_type = np.float32 if complex_type == np.complex64 else np.float64
    inner = [*lengths[:-1], lengths[-1] // 2 + 1] if fft_type is FftType.IRFFT else lengths
    wide = rng.standard_normal([3, *inner[:-1], 2 * inner[-1]])
    if fft_type is not FftType.RFFT:
        wide = wide + 1j * rng.standard_normal(wide.shape)
    x = wide.astype(real_type if fft_type is FftType.RFFT else complex_type)[..., ::2]
    axes = tuple(range(1, 1 + len(lengths)))
    want = {
        FftType.FFT: lambda: scipy.fft.fftn(x, axes=axes),
        FftType.IFFT: lambda: scipy.fft.ifftn(x, axes=axes),
        FftType.RFFT: lambda: scipy.fft.rfftn(x, s=lengths, axes=axes),
        FftType.IRFFT: lambda: scipy.fft.irfftn(x, s=lengths, axes=axes),
    }[fft_type]()
    element_type = dtypes.from_numpy(want.dtype)
    got = fft(x, fft_type, lengths, element_type, want.shape)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


def test_fft_does_not_import_scipy_fft():
    """An fft loads pocketfft's extension alone (importing scipy.fft takes 0.2-0.4 s); a later
    ``import scipy.fft`` works beside it, with the same bits."""
    code = """
import sys
import numpy as np
from xlapy.interpreter.evals import fft
from xlapy.ir.attrs import FftType
x = np.arange(8, dtype=np.complex64)
got = fft.transform(x, FftType.FFT, [8], np.complex64, (8,))
assert "scipy.fft" not in sys.modules, sorted(m for m in sys.modules if "scipy" in m)
import scipy.fft
assert np.array_equal(got.view(np.uint64), scipy.fft.fft(x).view(np.uint64))
assert np.array_equal(scipy.fft.fft(x), fft.pocketfft().c2c(x, (0,), True, 0, None, 1))
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
