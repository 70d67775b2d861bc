"""Sort keys as unsigned integers in their order, and the quick tier's numpy orders of them,
shared by the ``sort`` and ``topk`` kernels (numpy alone: importing this imports neither numba
nor the interpreter's evals).

A key's raw bits become an unsigned integer of the same width whose order is the key's order
(``radix._encode`` in numba, ``encode_numpy`` here); ties are then broken by index, so every
order computed from these keys is the unique stable one, whichever tier computes it.
"""

from __future__ import annotations

import numpy as np

from xlapy.literal import Array

# Key encodings: how the raw bits of a key become an unsigned integer in the key's order
# (``radix._encoded``).
UNSIGNED, SIGNED, TOTAL_ORDER = 0, 1, 2


def encode_numpy(bits: Array, width: int, mode: int, descending: bool) -> Array:
    """``radix._encode`` in numpy (the quick tier): the order-preserving unsigned keys of the
    raw bit patterns ``bits`` (an unsigned dtype), a new array, computed in it in place (a
    first call faults in fresh pages for each array: fewer arrays, fewer faults). The total
    order flips every bit of a negative key and the sign bit of the others: it XORs
    ``sign | (sign bit) * (full ^ sign)``."""
    kind = bits.dtype.type
    top = kind(width - 1)
    sign = kind(1) << top
    full = kind(sign - kind(1)) | sign
    if mode == TOTAL_ORDER:
        keys = bits >> top
        keys &= kind(1)
        keys *= full ^ sign
        keys |= sign
        keys ^= bits
        keys &= full
    else:
        keys = bits & full
        if mode == SIGNED:
            keys ^= sign
    if descending:
        keys ^= full
    return keys


def argsort_numpy(bits: Array, width: int, mode: int, descending: bool) -> Array:
    """``radix.stable_argsort`` in numpy (the quick tier: nothing to compile): the unique
    stable order of the encoded keys, so the same order. Keys of 17 to 32 bits sort as
    (key, index) pairs (unique: numpy's unstable sort of them is that order, in ~60% of its
    stable argsort's time); narrower keys take its stable argsort (a radix sort), wider ones
    its merge sort."""
    keys = encode_numpy(bits, width, mode, descending)
    if 16 < width <= 32 and keys.shape[1] < 2**32:
        pairs = index_pairs(keys)
        pairs.sort(axis=1)
        return pair_indices(pairs)
    return np.argsort(keys, axis=1, kind="stable")


def index_pairs(keys: Array) -> Array:
    """Encoded keys of up to 32 bits with their index along the row in one uint64 each (the
    key above): unique, ordered as (key, index)."""
    wide = keys.astype(np.uint64)
    wide <<= np.uint64(32)
    wide |= np.arange(keys.shape[1], dtype=np.uint64)
    return wide


def pair_indices(pairs: Array) -> Array:
    """The indices of ``index_pairs``' pairs."""
    return (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64)
