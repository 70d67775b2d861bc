"""Tile assignments: which device holds each tile of a sharded array (XLA's ``TileAssignment``).

A tile assignment is an N-d array of device ids. XLA keeps it either as an explicit array
(printed ``devices=[2,2]0,2,1,3``) or in the compact *iota* form ``devices=[2,2]<=[4]`` /
``devices=[4,2]<=[2,4]T(1,0)``: the devices ``0..n-1`` laid out as ``reshape_dims``,
transposed by ``perm`` and reshaped to ``dims``. The iota form is kept (and printed) whenever
the assignment was built as one and every operation preserved it, as XLA does; its
``reshape_dims``/``perm`` are canonical (size-1 dims dropped, runs of dims that stay in order
after the transpose merged), so ``[4]<=[2,2]T(0,1)`` is ``[4]<=[4]``.

Equality compares the device arrays (two spellings of the same assignment are equal).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np


def canonical_iota(
    reshape_dims: Sequence[int], perm: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """XLA's canonical ``(reshape_dims, perm)``: repeatedly drop size-1 dims and merge
    consecutive reshape dims that the transpose keeps adjacent and in order, until stable."""
    dims = list(reshape_dims)
    order = list(perm)
    if len(dims) != len(order) or sorted(order) != list(range(len(order))):
        raise ValueError(f"iota transpose {tuple(perm)} is not a permutation of {len(dims)} dims")
    while True:
        keep = [i for i, d in enumerate(dims) if d != 1]
        if len(keep) != len(dims):
            renumber = {old: new for new, old in enumerate(keep)}
            order = [renumber[p] for p in order if p in renumber]
            dims = [dims[i] for i in keep]
        changed = False
        base = 0
        for i in range(1, len(dims)):
            if order[base] + (i - base) == order[i]:
                dims[order[base]] *= dims[order[i]]
                dims[order[i]] = 1
                changed = True
            else:
                base = i
        if not changed:
            break
    if not dims:
        return (1,), (0,)
    return tuple(dims), tuple(order)


def _transpose_kind(dims: Sequence[int], perm: Sequence[int]) -> str:
    """``noop`` (same array), ``reshape`` (only size-1 dims move) or ``transpose``."""
    kind = "noop"
    prev = -1
    for i, d in enumerate(perm):
        if dims[d] == 1:
            if d != i and dims[i] != 1:
                kind = "reshape"
            continue
        if d <= prev:
            return "transpose"
        prev = d
    return kind


class TileAssignment:
    """An immutable N-d array of device ids, stored as iota parameters or explicitly."""

    __slots__ = ("_array", "_positions", "dims", "iota")

    dims: tuple[int, ...]
    iota: tuple[tuple[int, ...], tuple[int, ...]] | None
    _array: np.ndarray | None
    _positions: dict[int, tuple[int, ...]] | None

    def __init__(
        self,
        dims: Sequence[int],
        iota: tuple[Sequence[int], Sequence[int]] | None = None,
        array: np.ndarray | None = None,
    ) -> None:
        self.dims = tuple(int(d) for d in dims)
        if iota is not None:
            reshape_dims, perm = canonical_iota(*iota)
            if prod(reshape_dims) != prod(self.dims):
                raise ValueError(
                    f"iota tile assignment [{','.join(map(str, self.dims))}]<="
                    f"[{','.join(map(str, iota[0]))}] has a different number of devices"
                )
            self.iota = (reshape_dims, perm)
            self._array = None
        else:
            if array is None:
                raise ValueError("a tile assignment needs iota parameters or an array")
            arr = np.array(array, dtype=np.int64).reshape(self.dims)
            arr.setflags(write=False)
            self.iota = None
            self._array = arr
        self._positions = None

    # ---- constructors -----------------------------------------------------------------
    @staticmethod
    def from_iota(
        dims: Sequence[int],
        reshape_dims: Sequence[int] | None = None,
        perm: Sequence[int] | None = None,
    ) -> TileAssignment:
        """``devices=[dims]<=[reshape_dims]T(perm)``; defaults: ``<=[prod(dims)]``."""
        if reshape_dims is None:
            reshape_dims = (prod(dims),)
        if perm is None:
            perm = tuple(range(len(reshape_dims)))
        return TileAssignment(dims, iota=(tuple(reshape_dims), tuple(perm)))

    @staticmethod
    def from_array(array: np.ndarray | Sequence) -> TileAssignment:
        arr = np.asarray(array, dtype=np.int64)
        return TileAssignment(arr.shape, array=arr)

    # ---- queries -----------------------------------------------------------------------
    @property
    def array(self) -> np.ndarray:
        """The device ids as a read-only ``int64`` array of shape ``dims``."""
        if self._array is None:
            assert self.iota is not None
            reshape_dims, perm = self.iota
            full = np.arange(prod(reshape_dims), dtype=np.int64).reshape(reshape_dims)
            full = np.ascontiguousarray(full.transpose(perm)).reshape(self.dims)
            full.setflags(write=False)
            self._array = full
        return self._array

    @property
    def ndim(self) -> int:
        return len(self.dims)

    @property
    def num_elements(self) -> int:
        return prod(self.dims)

    def dim(self, i: int) -> int:
        return self.dims[i]

    def __call__(self, *index: int) -> int:
        return int(self.array[index])

    def position_of(self, device: int) -> tuple[int, ...]:
        """The index of ``device`` in the array (KeyError if it is not assigned)."""
        if self._positions is None:
            arr = self.array
            self._positions = {int(d): tuple(int(i) for i in idx) for idx, d in np.ndenumerate(arr)}
        return self._positions[device]

    def uses_device(self, device: int) -> bool:
        if self.iota is not None:
            return 0 <= device < self.num_elements
        return bool((self.array == device).any())

    def is_iota_array(self) -> bool:
        """True when the devices, read in order, are 0, 1, ..., n-1."""
        if self.iota is not None and self.iota[1] == tuple(range(len(self.iota[1]))):
            return True
        return bool((self.array.reshape(-1) == np.arange(self.num_elements)).all())

    # ---- transformations (iota kept where XLA keeps it) --------------------------------
    def reshape(self, new_dims: Sequence[int]) -> TileAssignment:
        new_dims = tuple(int(d) for d in new_dims)
        if prod(new_dims) != self.num_elements:
            raise ValueError(f"cannot reshape a tile assignment of {self.dims} to {new_dims}")
        if self.iota is not None:
            return TileAssignment(new_dims, iota=self.iota)
        return TileAssignment(new_dims, array=self.array.reshape(new_dims))

    def transpose(self, perm: Sequence[int]) -> TileAssignment:
        perm = tuple(int(p) for p in perm)
        if sorted(perm) != list(range(self.ndim)):
            raise ValueError(f"{perm} is not a permutation of {self.ndim} tile dims")
        kind = _transpose_kind(self.dims, perm)
        if kind == "noop":
            return self
        new_dims = tuple(self.dims[p] for p in perm)
        if self.iota is not None:
            iota = self._iota_transpose(perm, kind, new_dims)
            if iota is not None:
                return TileAssignment(new_dims, iota=iota)
        return TileAssignment(new_dims, array=self.array.transpose(perm))

    def _iota_transpose(
        self, perm: tuple[int, ...], kind: str, new_dims: tuple[int, ...]
    ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The iota parameters of the transposed assignment when XLA keeps it an iota."""
        assert self.iota is not None
        reshape_dims, tperm = self.iota
        if kind == "reshape":
            return self.iota
        if len(reshape_dims) == 1:
            return self.dims, perm
        non_one: list[int] = []
        to_non_one: list[int] = []
        pure = True
        for d in self.dims:
            if d == 1:
                to_non_one.append(-1)
                continue
            if len(non_one) >= len(reshape_dims) or reshape_dims[tperm[len(non_one)]] != d:
                pure = False
            to_non_one.append(len(non_one))
            non_one.append(d)
        if not pure:
            return None
        new_perm = [tperm[to_non_one[p]] for p in perm if self.dims[p] != 1]
        return reshape_dims, tuple(new_perm)

    # ---- value semantics ---------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TileAssignment):
            return NotImplemented
        if self.dims != other.dims:
            return False
        if self.iota is not None and other.iota is not None and self.iota == other.iota:
            return True
        return bool(np.array_equal(self.array, other.array))

    def __hash__(self) -> int:
        return hash((self.dims, self.array.tobytes()))

    def __repr__(self) -> str:
        return f"TileAssignment({self})"

    def __str__(self) -> str:
        head = "devices=[" + ",".join(map(str, self.dims)) + "]"
        if self.iota is not None:
            reshape_dims, perm = self.iota
            text = head + "<=[" + ",".join(map(str, reshape_dims)) + "]"
            if len(reshape_dims) > 1:
                text += "T(" + ",".join(map(str, perm)) + ")"
            return text
        return head + ",".join(str(int(d)) for d in self.array.reshape(-1))
