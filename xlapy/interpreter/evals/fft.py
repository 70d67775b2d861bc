"""Fast Fourier transforms: FFT, IFFT, RFFT and IRFFT over the innermost 1-3 dimensions.

Spec: OPS.md Fft. Forward ``X[k] = sum_n x[n] e^(-2 pi i kn/N)`` (unnormalised), inverse
scaled by 1/N. Computed with ``scipy.fft``'s pocketfft (of the same DUCC family as XLA:CPU's
FFT) in the element type's own precision: complex64 transforms run in single precision, as
XLA's do, and reproduce its results (a double-precision result rounded once can be many ULPs
away from XLA's on outputs that cancel). The transforms call scipy.fft's extension module
``pypocketfft`` directly, with the arguments ``scipy.fft.fftn``/``ifftn``/``rfftn``/``irfftn``
give it (the same bits), without importing ``scipy.fft`` itself (0.2-0.4 s: scipy.special and
the array-API layer; the extension alone loads in about 1 ms).
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
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


_POCKETFFT = "scipy.fft._pocketfft.pypocketfft"


@functools.cache
def pocketfft() -> ModuleType:
    """scipy.fft's extension module ``scipy.fft._pocketfft.pypocketfft`` (the one
    ``scipy.fft``'s functions call), loaded from its file without importing the ``scipy.fft``
    package, under its own name: a later ``import scipy.fft`` loads it as usual (Python keeps
    the extension it loaded per name and file; two threads loading it at once are harmless
    too)."""
    module = sys.modules.get(_POCKETFFT)
    scipy_spec = importlib.util.find_spec("scipy") if module is None else None
    if scipy_spec is not None and scipy_spec.origin is not None:
        folder = Path(scipy_spec.origin).parent / "fft" / "_pocketfft"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / f"pypocketfft{suffix}"
            spec = importlib.util.spec_from_file_location(_POCKETFFT, path)
            if path.is_file() and spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                break
    if module is None:  # an unusual layout: the package's own import finds it
        module = importlib.import_module(_POCKETFFT)
    return module


# pypocketfft's normalisation argument: 0 none (forward), 2 scaled by 1/N (inverse), as
# scipy.fft's default norm="backward" passes it.
_FORWARD, _INVERSE = 0, 2


def transform(
    x: Array,
    fft_type: FftType,
    lengths: list[int],
    dtype: Any,
    dims: Sequence[int],
    threads: int = 1,
) -> Array:
    """The transform of checked operand ``x`` as a new array of ``dtype`` and ``dims``
    (``scipy.fft.fftn``, ``ifftn``, ``rfftn(s=lengths)`` or ``irfftn(s=lengths)`` over the
    innermost ``len(lengths)`` axes) on ``threads`` threads: pocketfft splits the 1-D
    transforms along each axis between them, each computed as on one thread, so the values
    do not depend on ``threads``."""
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if x.size == 0 or 0 in lengths:
        return np.zeros(dims, dtype=dtype)
    pfft = pocketfft()
    result: Array
    complex_type = np.complex64 if dtype in (np.complex64, np.float32) else np.complex128
    real_type = np.float32 if complex_type == np.complex64 else np.float64
    if fft_type is FftType.FFT:
        result = pfft.c2c(x.astype(complex_type, copy=False), axes, True, _FORWARD, None, threads)
    elif fft_type is FftType.IFFT:
        result = pfft.c2c(x.astype(complex_type, copy=False), axes, False, _INVERSE, None, threads)
    elif fft_type is FftType.RFFT:
        result = pfft.r2c(x.astype(real_type, copy=False), axes, True, _FORWARD, None, threads)
    else:
        spectrum = x.astype(complex_type, copy=False)
        result = pfft.c2r(spectrum, axes, lengths[-1], False, _INVERSE, None, threads)
    return np.asarray(result).astype(dtype, copy=False)
