"""Fast Fourier transforms: FFT, IFFT, RFFT and IRFFT over the innermost 1-3 dimensions.

Spec: OPS.md Fft. Forward ``X[k] = sum_n x[n] e^(-2 pi i kn/N)`` (unnormalised), inverse
scaled by 1/N. Computed with ``scipy.fft`` (pocketfft, of the same DUCC family as XLA:CPU's
FFT) in the element type's own precision: complex64 transforms run in single precision, as
XLA's do, and reproduce its results (a double-precision result rounded once can be many ULPs
away from XLA's on outputs that cancel).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.attrs import FftType
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value


@evaluates(Opcode.FFT)
def fft(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Fft(operand, fft_type, fft_length) over the last ``len(fft_length)`` dimensions.

    FFT/IFFT keep the shape. RFFT takes real input whose innermost transformed dimensions
    equal ``fft_length`` and shrinks the innermost one to ``fft_length[-1] // 2 + 1``.
    IRFFT takes complex input and grows the innermost one to ``fft_length[-1]``, inferring
    the part past the Nyquist frequency by Hermitian symmetry (the imaginary parts of the
    DC and Nyquist terms are ignored).
    """
    (x,) = (np.asarray(v) for v in operands)
    fft_type: FftType = instr.attrs.fft_type
    lengths = check_fft(instr, x.shape)
    return transform(x, fft_type, lengths, instr.shape.element_type.numpy, instr.shape.dims)


def check_fft(instr: HloInstruction, shape: Sequence[int]) -> list[int]:
    """The instruction's ``fft_length``, checked against an operand of ``shape``."""
    fft_type: FftType = instr.attrs.fft_type
    lengths = [int(n) for n in instr.attrs.fft_length]
    rank = len(lengths)
    ndim = len(shape)
    if not 1 <= rank <= 3 or rank > ndim:
        raise InvalidArgument(
            f"fft {instr.name}: fft_length must name 1 to 3 innermost dimensions of the "
            f"rank-{ndim} operand; got fft_length={lengths}"
        )
    inner = [int(d) for d in shape[ndim - rank :]]
    if fft_type in (FftType.FFT, FftType.IFFT, FftType.RFFT) and inner != lengths:
        raise InvalidArgument(
            f"fft {instr.name}: the transformed dimensions {inner} must equal "
            f"fft_length={lengths} for {fft_type.value}"
        )
    if fft_type is FftType.IRFFT and (
        inner[:-1] != lengths[:-1] or inner[-1] != (lengths[-1] // 2 + 1 if lengths[-1] else 0)
    ):
        raise InvalidArgument(
            f"fft {instr.name}: IRFFT input dimensions {inner} must be fft_length[:-1] and "
            f"fft_length[-1] // 2 + 1; got fft_length={lengths}"
        )
    return lengths


def transform(
    x: Array, fft_type: FftType, lengths: list[int], dtype: Any, dims: Sequence[int]
) -> Array:
    """The transform of checked operand ``x`` as a new array of ``dtype`` and ``dims``."""
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if x.size == 0 or 0 in lengths:
        return np.zeros(dims, dtype=dtype)
    import scipy.fft  # on first use: scipy.fft costs ~0.5 s to import

    result: Array
    complex_type = np.complex64 if dtype in (np.complex64, np.float32) else np.complex128
    real_type = np.float32 if complex_type == np.complex64 else np.float64
    if fft_type is FftType.FFT:
        result = scipy.fft.fftn(x.astype(complex_type, copy=False), axes=axes)
    elif fft_type is FftType.IFFT:
        result = scipy.fft.ifftn(x.astype(complex_type, copy=False), axes=axes)
    elif fft_type is FftType.RFFT:
        result = scipy.fft.rfftn(x.astype(real_type, copy=False), s=lengths, axes=axes)
    else:
        result = scipy.fft.irfftn(x.astype(complex_type, copy=False), s=lengths, axes=axes)
    return np.asarray(result).astype(dtype, copy=False)
