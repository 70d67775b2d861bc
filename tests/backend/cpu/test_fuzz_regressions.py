"""Regressions of the differential fuzzer's findings (``tools/fuzz/differential.py``, issue
#20): each a minimised program on which ``cpu`` once returned what the ``interpreter`` does
not, with the value the spec gives."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy

INT_MIN = np.iinfo(np.int64).min

REDUCERS = """HloModule m
add {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = s64[] add(a, b)
}
max {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = s64[] maximum(a, b)
}
"""


def _both(text: str, *args: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    module = xlapy.load(text)
    got = xlapy.compile(module, platform="cpu", tiered=False)(*args)
    want = xlapy.run(module, *args, platform="interpreter")
    return list(got), list(want)


@pytest.mark.parametrize(("x", "total"), [(INT_MIN, 0), (INT_MIN + 1, 1), (5, INT_MIN + 5)])
def test_s64_sums_that_overflow_wrap_around(x: int, total: int) -> None:
    """``max(INT_MIN, x) + INT_MIN`` (a padded max-window summed): numba's signed ``add nsw``
    let LLVM fold it to ``x | INT_MIN`` (cpu gave INT_MIN for 0 when x = INT_MIN, seed 27)."""
    text = (
        REDUCERS
        + """ENTRY main {
  p = s64[1] parameter(0)
  low = s64[] constant(-9223372036854775808)
  w = s64[2] reduce-window(p, low), window={size=1 stride=1 pad=0_1}, to_apply=max
  zero = s64[] constant(0)
  ROOT r = s64[] reduce(w, zero), dimensions={0}, to_apply=add
}
"""
    )
    got, want = _both(text, np.array([x], np.int64))
    assert int(want[0]) == total
    assert int(got[0]) == total


def test_s64_elementwise_arithmetic_wraps_around() -> None:
    """Negate, abs, add, subtract and multiply of s64 at the edges wrap as two's complement."""
    text = """HloModule m
ENTRY main {
  a = s64[4] parameter(0)
  b = s64[4] parameter(1)
  n = s64[4] negate(a)
  m = s64[4] abs(a)
  s = s64[4] add(a, b)
  d = s64[4] subtract(a, b)
  p = s64[4] multiply(a, b)
  ROOT t = (s64[4], s64[4], s64[4], s64[4], s64[4]) tuple(n, m, s, d, p)
}
"""
    a = np.array([INT_MIN, INT_MIN, np.iinfo(np.int64).max, -1], np.int64)
    b = np.array([INT_MIN, -1, 1, INT_MIN], np.int64)
    got, want = _both(text, a, b)
    with np.errstate(over="ignore"):
        expected = [-a, np.where(a < 0, -a, a), a + b, a - b, a * b]
    for g, w, e in zip(got, want, expected, strict=True):
        np.testing.assert_array_equal(w, e)
        np.testing.assert_array_equal(g, e)
