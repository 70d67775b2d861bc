"""The numba side of ``sort``'s compiled tier: a stable LSD radix argsort on encoded integer
keys, an in-place radix sort of one-to-one keys, and ``topk``'s per-row selection (the quick
tier sorts the same keys with numpy: ``sort_keys.argsort_numpy``)."""

from __future__ import annotations

import numba
import numpy as np

from xlapy.backend.cpu.kernels.sort_keys import SIGNED, TOTAL_ORDER
from xlapy.backend.cpu.kernels.typed_args import read_only
from xlapy.backend.cpu.launch_lock import guarded
from xlapy.literal import Array

# ---- stable radix argsort ------------------------------------------------------------------

# Rows shorter than this are insertion-sorted (a radix pass costs 256 buckets).
_INSERTION = 24


@numba.njit(cache=True, inline="always")
def _encoded(
    raw: np.uint64, sign: np.uint64, full: np.uint64, mode: int, descending: bool
) -> np.uint64:
    """The order-preserving unsigned key of one raw bit pattern (see the key encodings):
    signed integers flip the sign bit; floats in total order flip every bit when negative and
    the sign bit otherwise; a descending key is complemented (a stable reversal)."""
    k = raw & full
    if mode == SIGNED:
        k ^= sign
    elif mode == TOTAL_ORDER:
        k = (k ^ full) if (k & sign) else (k ^ sign)
    if descending:
        k ^= full
    return k


@numba.njit(cache=True)
def _encode_into(bits: Array, out: Array, width: int, mode: int, descending: bool) -> None:
    """``out`` (2-D, an unsigned dtype) := the encoded key of every raw bit pattern in ``bits``
    (same shape; ``out`` may be ``bits`` itself)."""
    rows, n = bits.shape
    sign = np.uint64(1) << np.uint64(width - 1)
    full = (sign - np.uint64(1)) | sign
    for r in range(rows):
        for i in range(n):
            out[r, i] = _encoded(np.uint64(bits[r, i]), sign, full, mode, descending)


def _encode(bits: Array, width: int, mode: int, descending: bool) -> Array:
    """The encoded keys of the raw bit patterns ``bits`` (2-D, an unsigned dtype), a new array."""
    out = np.empty_like(bits)
    _encode_into(bits, out, width, mode, descending)
    return out


@numba.njit(cache=True)
def _decode(keys: Array, width: int, mode: int, descending: bool) -> None:
    """The inverse of ``_encode_into``, in place: every encoded key back to its raw bits."""
    rows, n = keys.shape
    sign = np.uint64(1) << np.uint64(width - 1)
    full = (sign - np.uint64(1)) | sign
    for r in range(rows):
        for i in range(n):
            k = np.uint64(keys[r, i])
            if descending:
                k ^= full
            if mode == SIGNED:
                k ^= sign
            elif mode == TOTAL_ORDER:
                k = (k ^ sign) if (k & sign) else (k ^ full)
            keys[r, i] = k


@numba.njit(cache=True)
def _byte_counts(keys: Array, passes: int) -> Array:
    """``counts[p, b]``: how many of the unsigned ``keys`` have ``b`` as byte ``p``. Arithmetic
    shifts of the int64 view agree with logical ones on the low 8 bits, and stay in native
    signed arithmetic for every key width."""
    counts = np.zeros((passes, 256), np.int64)
    for i in range(keys.size):
        k = np.int64(keys[i])
        for p in range(passes):
            counts[p, (k >> (8 * p)) & 255] += 1
    return counts


@numba.njit(cache=True)
def _pass_offsets(counts: Array, p: int, first: int, n: int, offsets: Array) -> bool:
    """Whether radix pass ``p`` moves anything (not when all ``n`` keys share the byte of the
    key ``first``); if so, ``offsets`` is set to where each byte value's keys start."""
    if counts[p, (np.int64(first) >> (8 * p)) & 255] == n:
        return False
    total = 0
    for d in range(256):
        offsets[d] = total
        total += counts[p, d]
    return True


@numba.njit(cache=True)
def _argsort_row(keys: Array, passes: int, order: Array, buf_keys: Array, buf_idx: Array) -> None:
    """Stable ascending argsort of one row of unsigned ``keys`` into ``order``: LSD radix sort
    by bytes (``passes`` of them), skipping bytes every key shares; insertion sort when short.
    ``keys`` is scratch (left permuted); ``order`` and the buffers are the only index rows."""
    n = keys.size
    if n <= _INSERTION:
        for i in range(n):
            order[i] = i
        for i in range(1, n):
            moving = order[i]
            k = keys[moving]
            j = i - 1
            while j >= 0 and keys[order[j]] > k:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = moving
        return
    counts = _byte_counts(keys, passes)
    src_k = keys
    src_i = order
    for i in range(n):
        src_i[i] = i
    dst_k = buf_keys
    dst_i = buf_idx
    in_buf = False
    offsets = np.empty(256, np.int64)
    for p in range(passes):
        if not _pass_offsets(counts, p, src_k[0], n, offsets):
            continue
        shift = 8 * p
        for i in range(n):
            k = src_k[i]
            d = (np.int64(k) >> shift) & 255
            at = offsets[d]
            dst_k[at] = k
            dst_i[at] = src_i[i]
            offsets[d] = at + 1
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
        in_buf = not in_buf
    if in_buf:
        order[:] = src_i


@numba.njit(cache=True)
def _argsort_one(keys: Array, order: Array) -> None:
    """Stable argsort of the one row of ``keys`` into ``order``."""
    _argsort_row(keys[0], keys.itemsize, order[0], np.empty_like(keys[0]), np.empty_like(order[0]))


@guarded
@numba.njit(cache=True, parallel=True)
def _argsort_rows(keys: Array, order: Array) -> None:
    """Stable argsort of every row of a 2-D unsigned key array into ``order`` (rows in
    parallel)."""
    rows = keys.shape[0]
    passes = keys.itemsize
    for r in numba.prange(rows):
        _argsort_row(keys[r], passes, order[r], np.empty_like(keys[r]), np.empty_like(order[r]))


@numba.njit(cache=True)
def _sort_keys_row(keys: Array, buf: Array) -> None:
    """Ascending sort of one row of unsigned ``keys`` in place (``buf`` a scratch row of the
    same size): LSD radix sort by bytes, skipping bytes every key shares; insertion sort when
    short."""
    n = keys.size
    if n <= _INSERTION:
        for i in range(1, n):
            k = keys[i]
            j = i - 1
            while j >= 0 and keys[j] > k:
                keys[j + 1] = keys[j]
                j -= 1
            keys[j + 1] = k
        return
    passes = keys.itemsize
    counts = _byte_counts(keys, passes)
    src, dst = keys, buf
    in_buf = False
    offsets = np.empty(256, np.int64)
    for p in range(passes):
        if not _pass_offsets(counts, p, src[0], n, offsets):
            continue
        shift = 8 * p
        for i in range(n):
            k = src[i]
            d = (np.int64(k) >> shift) & 255
            at = offsets[d]
            dst[at] = k
            offsets[d] = at + 1
        src, dst = dst, src
        in_buf = not in_buf
    if in_buf:
        keys[:] = src


@numba.njit(cache=True)
def _sort_keys_one(keys: Array) -> None:
    """Sort the one row of ``keys`` in place."""
    _sort_keys_row(keys[0], np.empty_like(keys[0]))


@guarded
@numba.njit(cache=True, parallel=True)
def _sort_keys_rows(keys: Array) -> None:
    """Sort every row of a 2-D unsigned key array in place (rows in parallel)."""
    for r in numba.prange(keys.shape[0]):
        _sort_keys_row(keys[r], np.empty_like(keys[r]))


def sort_bits(bits: Array, width: int, mode: int, descending: bool) -> Array:
    """The raw bit patterns ``bits`` (2-D, an unsigned dtype) sorted along the last axis by
    their encoded keys, a new array and the only one allocated beside one scratch row: keys
    are encoded into it, sorted in place and decoded back. Exact as a stable sort whenever
    equal keys have equal bits (the encodings are one-to-one)."""
    bits = read_only(bits)
    out = np.empty_like(bits)
    _encode_into(bits, out, width, mode, descending)
    (_sort_keys_one if bits.shape[0] == 1 else _sort_keys_rows)(out)
    _decode(out, width, mode, descending)
    return out


def stable_argsort(bits: Array, width: int, mode: int, descending: bool) -> Array:
    """The stable argsort (int32 when it fits, else int64) along the last axis of a 2-D array
    of raw key bits (an unsigned dtype of the key's storage width)."""
    order = np.empty(bits.shape, np.int32 if bits.shape[1] < 2**31 else np.int64)
    keys = _encode(read_only(bits), width, mode, descending)
    (_argsort_one if bits.shape[0] == 1 else _argsort_rows)(keys, order)
    return order


def type_calls(dtype: np.dtype, rows: int) -> None:
    """Types now (compiles, or loads from numba's cache) the kernels that ``stable_argsort``
    and ``sort_bits`` call on ``rows`` rows of raw bits of the unsigned ``dtype`` (shorter
    than 2^31), by calling them on a small array: one row and more rows take different
    kernels; inputs are read-only views (``typed_args``), so their types are these."""
    bits = np.zeros((min(rows, 2), 2 * _INSERTION), dtype)
    width = 8 * bits.dtype.itemsize
    stable_argsort(bits, width, TOTAL_ORDER, False)
    sort_bits(bits, width, TOTAL_ORDER, False)


# ---- topk ----------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def select_rows(bits: Array, width: int, mode: int, descending: bool, k: int, order: Array) -> None:
    """The indices of the ``k`` smallest encoded keys of the raw bit patterns ``bits`` (2-D,
    an unsigned dtype) in every row, smallest first, equal keys by lower index (a sorted
    buffer: a later element enters only when strictly smaller than the buffer's last, and
    goes behind the equal keys already there). Keys are encoded a row at a time."""
    rows, n = bits.shape
    sign = np.uint64(1) << np.uint64(width - 1)
    full = (sign - np.uint64(1)) | sign
    keys = np.empty(n, bits.dtype)
    best = np.empty(k, bits.dtype)
    for r in range(rows):
        for i in range(n):
            keys[i] = _encoded(np.uint64(bits[r, i]), sign, full, mode, descending)
        count = 0
        for i in range(n):
            key = keys[i]
            if count < k:
                j = count
                count += 1
            elif key < best[k - 1]:
                j = k - 1
            else:
                continue
            while j > 0 and best[j - 1] > key:
                best[j] = best[j - 1]
                order[r, j] = order[r, j - 1]
                j -= 1
            best[j] = key
            order[r, j] = i
