"""Inclusive integer intervals ``[lower, upper]`` and their arithmetic (range analysis).

Python integers never overflow, so unlike XLA's ``Interval`` no saturation is needed.
An interval with ``lower > upper`` is infeasible (empty).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Interval:
    """The integers ``lower <= x <= upper``; printed ``[lower, upper]``.

    >>> Interval(0, 9) + Interval(1, 1)
    Interval(lower=1, upper=10)
    >>> str(Interval(-3, 4).floordiv(2))
    '[-2, 2]'
    """

    lower: int
    upper: int

    @staticmethod
    def point(value: int) -> Interval:
        return Interval(value, value)

    @property
    def is_feasible(self) -> bool:
        return self.lower <= self.upper

    @property
    def is_point(self) -> bool:
        return self.lower == self.upper

    @property
    def size(self) -> int:
        """Number of integers in the interval (0 when infeasible)."""
        return max(0, self.upper - self.lower + 1)

    def contains(self, other: int | Interval) -> bool:
        """True when ``other`` (a value or a whole feasible interval) lies inside."""
        if isinstance(other, Interval):
            return self.lower <= other.lower and other.upper <= self.upper
        return self.lower <= other <= self.upper

    def intersect(self, other: Interval) -> Interval:
        return Interval(max(self.lower, other.lower), min(self.upper, other.upper))

    def union(self, other: Interval) -> Interval:
        """The smallest interval containing both (the convex hull)."""
        return Interval(min(self.lower, other.lower), max(self.upper, other.upper))

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.lower + other.lower, self.upper + other.upper)

    def __sub__(self, other: Interval) -> Interval:
        return Interval(self.lower - other.upper, self.upper - other.lower)

    def __neg__(self) -> Interval:
        return Interval(-self.upper, -self.lower)

    def __mul__(self, other: Interval) -> Interval:
        products = [a * b for a in (self.lower, self.upper) for b in (other.lower, other.upper)]
        return Interval(min(products), max(products))

    def floordiv(self, divisor: int) -> Interval:
        """``{x floordiv divisor}`` for a non-zero constant divisor."""
        a, b = self.lower // divisor, self.upper // divisor
        return Interval(min(a, b), max(a, b))

    def __str__(self) -> str:
        return f"[{self.lower}, {self.upper}]"
