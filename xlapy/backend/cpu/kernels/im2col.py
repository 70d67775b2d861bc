"""The im2col patches of ``convolution``'s compiled tier, as a numba loop (the quick tier
builds the same values with numpy: ``convolution._im2col_numpy``)."""

from __future__ import annotations

import numba

from xlapy.literal import Array


@numba.njit(cache=True, nogil=True)
def im2col(
    x: Array, patches: Array, first: int, out_sizes: Array, t0: Array, t1: Array, t2: Array
) -> None:
    """Row ``r`` of ``patches`` (``(rows, k0, k1, k2, features)``) is the window of output
    position ``first + r`` (flattened ``(b, o0, o1, o2)`` over ``out_sizes``) in
    channels-last ``x`` (``(b, n0, n1, n2, features)``): tap ``k`` of output ``o`` along
    dimension ``d`` reads input index ``t<d>[o, k]`` (``window_taps.tap_tables``: negative in
    the padding and in base-dilation holes, which read as zeros)."""
    rows, k0s, k1s, k2s, features = patches.shape
    o0s, o1s, o2s = out_sizes[0], out_sizes[1], out_sizes[2]
    o2 = first % o2s
    o1 = first // o2s % o1s
    o0 = first // (o1s * o2s) % o0s
    b = first // (o0s * o1s * o2s)
    for r in range(rows):
        for k0 in range(k0s):
            i0 = t0[o0, k0]
            for k1 in range(k1s):
                i1 = t1[o1, k1]
                for k2 in range(k2s):
                    i2 = t2[o2, k2]
                    if i0 >= 0 and i1 >= 0 and i2 >= 0:
                        for f in range(features):
                            patches[r, k0, k1, k2, f] = x[b, i0, i1, i2, f]
                    else:
                        for f in range(features):
                            patches[r, k0, k1, k2, f] = 0
        o2 += 1  # the next position, without divisions
        if o2 == o2s:
            o2 = 0
            o1 += 1
            if o1 == o1s:
                o1 = 0
                o0 += 1
                if o0 == o0s:
                    o0 = 0
                    b += 1
