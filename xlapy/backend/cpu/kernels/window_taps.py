"""Where the window positions of a windowed op read their operand (``convolution``, the
windowed ops of ``windows``): one table per dimension, in numpy (no numba: the quick tier's
convolution uses them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy.ir.attrs import Window
from xlapy.literal import Array

PAD, HOLE = -1, -2


def tap_tables(dims: Sequence[int], window: Window, out_dims: Sequence[int]) -> list[Array]:
    """Per dimension, ``table[o, k]``: the operand index of window position ``k`` of output
    ``o`` (PAD in padding, HOLE in a base-dilation hole). OPS.md A.9: ``q = o*stride +
    k*window_dilation - padding_low`` in the padded, base-dilated operand."""
    tables = []
    for n, d, o in zip(dims, window.dimensions, out_dims, strict=True):
        q = np.arange(o)[:, None] * d.stride + np.arange(d.size)[None, :] * d.window_dilation
        q = q - d.padding_low
        dilated = (n - 1) * d.base_dilation + 1 if n else 0
        table = np.where(q % d.base_dilation == 0, q // d.base_dilation, HOLE)
        table = np.where((q < 0) | (q >= dilated), PAD, table)
        tables.append(np.ascontiguousarray(table, dtype=np.int64))
    return tables
