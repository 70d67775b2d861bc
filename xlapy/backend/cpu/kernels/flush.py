"""XLA:CPU's flush to zero of f32 subnormals for the operands and results of BLAS calls
under ``flush_denormals``, as the interpreter's contraction rules flush them (a subnormal
becomes the zero of its sign): one numba pass per array, the operand copied and flushed, the
result (the kernel's own) flushed in place."""

from __future__ import annotations

import numba
import numpy as np

from xlapy.literal import Array

_TINY_F32 = np.float32(np.finfo(np.float32).tiny)


@numba.njit(cache=True, nogil=True)
def flush_f32(values: Array) -> None:
    """XLA:CPU's flush to zero of f32 subnormals, in place on a flat array (a subnormal ``x``
    becomes ``x * 0``, the zero of its sign; NaN and normal values are kept)."""
    for i in range(values.size):
        if abs(values[i]) < _TINY_F32:
            values[i] = values[i] * np.float32(0.0)


@numba.njit(cache=True, nogil=True)
def _flush_copy_f32(source: Array, target: Array) -> None:
    """``target[i] = source[i]`` with subnormals flushed as ``flush_f32`` (flat arrays)."""
    for i in range(source.size):
        x = source[i]
        target[i] = x * np.float32(0.0) if abs(x) < _TINY_F32 else x


def flushed_f32(x: Array) -> Array:
    """A C-contiguous copy of the f32 array ``x`` with subnormals flushed to zero, copied and
    flushed in one pass (a non-contiguous ``x`` is copied by numpy, then flushed)."""
    copy = np.empty(x.shape, np.float32)
    if x.flags.c_contiguous:
        _flush_copy_f32(x.reshape(-1), copy.reshape(-1))
    else:
        copy[...] = x
        flush_f32(copy.reshape(-1))
    return copy
