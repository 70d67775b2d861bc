"""How far one platform's results are from another's, per output, as XLA's
``run_hlo_module --reference_platform`` reports it: max abs difference, max relative
difference, and the largest distance in ulp (units in the last place of the element type).

NaN against NaN counts as equal; NaN against a number, or infinities of different sign, is
an infinite difference. Complex outputs compare their real and imaginary parts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from xlapy import dtypes
from xlapy.literal import Value, shape_of


@dataclass(frozen=True)
class Difference:
    """The difference of one output.

    Attributes:
        type: the output's type in HLO syntax (the reference's when they disagree).
        mismatch: why the two cannot be compared element by element (type or shape), or "".
        differing: number of elements whose bits differ.
        elements: number of elements of the output.
        max_abs: largest absolute difference (floats and integers).
        max_rel: largest difference relative to the reference's magnitude (where it is not
            zero).
        max_ulp: largest distance in ulp (floats only; None for other types).
    """

    type: str
    mismatch: str = ""
    differing: int = 0
    elements: int = 0
    max_abs: float = 0.0
    max_rel: float = 0.0
    max_ulp: float | None = None

    @property
    def identical(self) -> bool:
        return not self.mismatch and self.differing == 0

    def describe(self) -> str:
        """One line: ``bit-identical``, or the differences."""
        if self.mismatch:
            return self.mismatch
        if self.identical:
            return "bit-identical"
        text = (
            f"{self.differing} of {self.elements} elements differ; max abs diff "
            f"{self.max_abs:.6g}, "
            f"max rel diff {self.max_rel:.6g}"
        )
        if self.max_ulp is not None:
            ulp = "inf" if math.isinf(self.max_ulp) else f"{self.max_ulp:.0f}"
            text += f", max ulp distance {ulp}"
        return text


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Sign-magnitude float bit patterns as integers ordered like the floats."""
    bits = bits.astype(np.int64) & ((1 << width) - 1) if width < 64 else bits.astype(np.int64)
    if width == 64:
        magnitude = bits & np.int64(0x7FFF_FFFF_FFFF_FFFF)
        return np.where(bits < 0, -magnitude, magnitude)
    sign = (bits >> (width - 1)) & 1
    magnitude = bits & ((1 << (width - 1)) - 1)
    return np.where(sign == 1, -magnitude, magnitude)


def _float_parts(got: np.ndarray, want: np.ndarray) -> tuple[float, float, float]:
    """(max abs, max rel, max ulp) of two real float arrays of one dtype."""
    width = dtypes.from_numpy(want.dtype).bits
    wide_got = got.astype(np.float64)
    wide_want = want.astype(np.float64)
    both_nan = np.isnan(wide_got) & np.isnan(wide_want)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (wide_got == wide_want) | both_nan
        difference = np.where(same, 0.0, np.abs(wide_got - wide_want))
        difference = np.where(np.isnan(difference), np.inf, difference)
        relative = np.where(wide_want != 0, difference / np.abs(wide_want), 0.0)
        relative = np.where(np.isnan(relative), np.inf, relative)
    unsigned = f"u{want.dtype.itemsize}"
    got_bits = np.ascontiguousarray(got).view(unsigned)
    want_bits = np.ascontiguousarray(want).view(unsigned)
    ordered_got, ordered_want = _ordered(got_bits, width), _ordered(want_bits, width)
    same_sign = (ordered_got >= 0) == (ordered_want >= 0)
    with np.errstate(over="ignore"):
        # Exact within one sign; across signs int64 could overflow, and the distance is huge.
        exact = np.abs(np.where(same_sign, ordered_got - ordered_want, 0)).astype(np.float64)
    across = np.abs(ordered_got.astype(np.float64) - ordered_want.astype(np.float64))
    distance = np.where(same_sign, exact, across)
    nan_mismatch = np.isnan(wide_got) != np.isnan(wide_want)
    distance = np.where(both_nan, 0.0, np.where(nan_mismatch, np.inf, distance))
    return (
        float(difference.max(initial=0.0)),
        float(relative.max(initial=0.0)),
        float(distance.max(initial=0.0)),
    )


def compare(got: Value, want: Value) -> Difference:
    """The difference of an output ``got`` from the reference ``want`` (arrays; tokens and
    tuples are compared by type only)."""
    want_type = shape_of(want).to_hlo(layout=False)
    got_type = shape_of(got).to_hlo(layout=False)
    if got_type != want_type:
        return Difference(want_type, mismatch=f"type {got_type}, reference {want_type}")
    if not isinstance(want, np.ndarray) or not isinstance(got, np.ndarray):
        return Difference(want_type)
    etype = dtypes.from_numpy(want.dtype)
    unsigned = f"u{want.dtype.itemsize}"
    differing = int(
        np.count_nonzero(
            np.ascontiguousarray(got).view(unsigned) != np.ascontiguousarray(want).view(unsigned)
        )
    )
    if differing == 0:
        return Difference(want_type, max_ulp=0.0 if etype.is_float or etype.is_complex else None)
    if etype.is_float or etype.is_complex:
        if etype.is_complex:
            parts = [
                _float_parts(np.real(got).copy(), np.real(want).copy()),
                _float_parts(np.imag(got).copy(), np.imag(want).copy()),
            ]
        else:
            parts = [_float_parts(got, want)]
        return Difference(
            want_type,
            differing=differing,
            elements=want.size,
            max_abs=max(p[0] for p in parts),
            max_rel=max(p[1] for p in parts),
            max_ulp=max(p[2] for p in parts),
        )
    wide_got = got.astype(np.float64)
    wide_want = want.astype(np.float64)
    difference = np.abs(wide_got - wide_want)
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.where(wide_want != 0, difference / np.abs(wide_want), 0.0)
    return Difference(
        want_type,
        differing=differing,
        elements=want.size,
        max_abs=float(difference.max(initial=0.0)),
        max_rel=float(relative.max(initial=0.0)),
    )
