"""Host values: arrays (numpy with the exact storage dtype), tuples and tokens.

A ``Value`` is what the interpreter passes around; a ``Literal`` is a value with its Shape
(constants in the IR). Text syntax of literals lives in ``xlapy.text``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
import numpy.typing as npt

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.shape import Shape

Array: TypeAlias = npt.NDArray[Any]


class Token:
    """The value of a ``token[]`` (orders side effects; carries no data)."""

    _instance: Token | None = None

    def __new__(cls) -> Token:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TOKEN"


TOKEN = Token()

Value: TypeAlias = "Array | tuple[Value, ...] | Token"


def shape_of(value: Value) -> Shape:
    """The Shape (default layout) of a host value."""
    if isinstance(value, Token):
        return Shape.token()
    if isinstance(value, tuple):
        return Shape.tuple_of([shape_of(v) for v in value])
    return Shape.array(dtypes.from_numpy(value.dtype), value.shape)


def bits_view(array: Array) -> Array:
    """The array's bits as unsigned integers of the same width (sub-byte types: u8 storage;
    16-byte complex: two u8 words per element, along an extra last axis)."""
    itemsize = array.dtype.itemsize
    if itemsize == 16:
        words = np.ascontiguousarray(array).reshape(-1).view("u8")
        return words.reshape((*array.shape, 2))
    return np.ascontiguousarray(array).view(f"u{itemsize}")


def values_equal(a: Value, b: Value) -> bool:
    """Bitwise equality of values (NaN payloads and signed zeros distinguished)."""
    if isinstance(a, Token) or isinstance(b, Token):
        return a is b
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    return (
        a.dtype == b.dtype
        and a.shape == b.shape
        and bool(np.array_equal(bits_view(a), bits_view(b)))
    )


@dataclass(frozen=True, eq=False)
class Literal:
    """A constant: a value together with its shape. Equality is bitwise."""

    shape: Shape
    value: Value
    elided: ClassVar[bool] = False
    """True for a constant whose text was elided (``{...}``): its values are unknown."""

    @staticmethod
    def from_numpy(array: object) -> Literal:
        """Wraps an ndarray (or scalar); the element type comes from its dtype."""
        arr = np.asarray(array)
        if arr.dtype == np.dtype(object):
            raise InvalidArgument("cannot make a literal of an object array")
        return Literal(shape_of(arr), arr)

    def to_numpy(self) -> Array:
        if not isinstance(self.value, np.ndarray):
            raise InvalidArgument(f"literal of shape {self.shape} is not an array")
        return self.value

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Literal)
            and self.shape == other.shape
            and values_equal(self.value, other.value)
        )

    def __hash__(self) -> int:
        return hash(self.shape)
