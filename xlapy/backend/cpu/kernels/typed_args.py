"""Arguments of prebuilt numba kernels typed on their first call (``numba.njit`` without a
signature) brought to one numba type. numba types a read-only or non-contiguous array apart
from a writable C-contiguous one, and a call with argument types the kernel has no machine
code for compiles it (or loads it from numba's cache) in the calling process: the very call
that building the kernel typed it for (``lapack_direct.type_calls``, ``radix.type_calls``),
so that the tier worker compiles it and the tier-up thread loads it before the swap."""

from __future__ import annotations

import numpy as np

from xlapy.literal import Array


def read_only(a: Array) -> Array:
    """``a`` as a C-contiguous read-only array (a view when ``a`` is C-contiguous, else a
    copy), whatever its own flags: the one type these kernels' inputs are typed with (an
    input the kernel only reads; nothing writes to the view)."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a
