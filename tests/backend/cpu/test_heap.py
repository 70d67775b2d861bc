"""The cpu platform's heap setting: large arrays freed by one call are reused by the next
without faulting their pages in again."""

from __future__ import annotations

import resource

import numpy as np

from xlapy.backend.cpu import heap
from xlapy.backend.cpu.kernel import load_kernels


def _call() -> None:
    """Intermediates of different sizes, alive in overlapping spans, as a program's are."""
    a = np.ones(1 << 20, np.float32)  # 4 MB
    b = np.ones(3 << 19, np.float32)  # 6 MB
    del a
    c = np.ones(5 << 19, np.float32)  # 10 MB
    del b
    d = np.ones(1 << 18, np.float32)  # 1 MB
    del c, d


def _faults_per_call(calls: int = 8) -> float:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        _call()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def test_loading_the_kernels_keeps_freed_arrays_in_the_heap() -> None:
    load_kernels()
    assert heap.retain_freed_memory()  # glibc on Linux (the test machines)
    _faults_per_call(1)  # the heap grows once
    # glibc's defaults: about 1550 faults per call (the 21 MB faulted in again)
    assert _faults_per_call() < 50
