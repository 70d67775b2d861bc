"""The process heap the ``cpu`` kernels allocate from: memory freed by one call is kept for
the next instead of going back to the operating system.

Every kernel returns fresh numpy arrays. glibc serves allocations above its mmap threshold
(128 KB, raised dynamically up to the size of the largest block freed so far) with fresh
``mmap`` pages and unmaps them when freed, so every call of a program faults each page of its
large intermediates in again: 6200 page faults and 16 of 41 ms of CPU per call of a linen CNN
training step (measured on this 2-core VM, where a fault and the zeroing of its page cost
about 3 us). XLA reuses its buffers across calls; here a fixed mmap threshold of 32 MB (glibc's
largest on 64-bit systems) and a trim threshold of 512 MB let freed blocks be reused from the
heap: 0.7 faults and 24 ms per call. The cost is that the process keeps up to
``TRIM_THRESHOLD`` of freed memory and arrays below ``MMAP_THRESHOLD`` come from one heap.

Only glibc has ``mallopt``; a user's own ``MALLOC_*_`` or ``GLIBC_TUNABLES`` settings win.
"""

from __future__ import annotations

import ctypes
import os
import sys

MMAP_THRESHOLD = 32 << 20
"""Allocations from this size on get their own mapping (and their pages faulted per call)."""
TRIM_THRESHOLD = 512 << 20
"""Free memory at the top of the heap beyond this goes back to the operating system."""

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
_M_MMAP_THRESHOLD = -3
_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")
_applied: bool | None = None


def retain_freed_memory() -> bool:
    """Sets glibc's thresholds once per process (see the module docstring); True when they
    are in effect, False on other C libraries or when the user configured malloc."""
    global _applied
    if _applied is None:
        _applied = _apply()
    return _applied


def _apply() -> bool:
    if not sys.platform.startswith("linux") or any(k in os.environ for k in _USER_SETTINGS):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
