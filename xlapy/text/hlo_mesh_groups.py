"""Replica groups in XLA's mesh-axes form in HLO text:
``mesh['axis_0'=4,'axis_1'=1,'axis_2'=2] {'axis_0'}``, with optional
``, device_ids=(...)`` (a list of ids or an iota ``[4,2]<=[2,4]T(1,0)``) and sub-axes
``{'axis_0':(1)2}``. Names may be quoted (as XLA prints them) or bare.

The expansion into explicit groups lives with the attribute (``ir.attrs.MeshAxesReplicaGroupList``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np

from xlapy.errors import ParseError
from xlapy.ir.attrs import MeshAxesReplicaGroupList, MeshAxisRef

ErrorAt = Callable[[int, str], ParseError]

_SPACE = re.compile(r"\s*")
_NAME = re.compile(r"'([^'\n]*)'|([A-Za-z_][\w.\-]*)")
_INT = re.compile(r"-?\d+")


class _Scanner:
    """A position in the text with the few token readers the mesh syntax needs."""

    def __init__(self, text: str, pos: int, error: ErrorAt) -> None:
        self.text, self.pos, self.error = text, pos, error

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()

    def accept(self, literal: str) -> bool:
        self.skip()
        if self.text.startswith(literal, self.pos):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str, what: str) -> None:
        if not self.accept(literal):
            raise self.error(self.pos, f"expected '{literal}' {what} in mesh replica groups")

    def name(self, what: str) -> str:
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if m is None:
            raise self.error(self.pos, f"expected {what} in mesh replica groups")
        self.pos = m.end()
        return m.group(1) if m.group(1) is not None else m.group(2)

    def int(self, what: str) -> int:
        self.skip()
        m = _INT.match(self.text, self.pos)
        if m is None:
            raise self.error(self.pos, f"expected {what} in mesh replica groups")
        self.pos = m.end()
        return int(m.group())

    def ints(self, close: str, what: str) -> list[int]:
        values = [self.int(what)]
        while self.accept(","):
            values.append(self.int(what))
        self.expect(close, f"to close the {what} list")
        return values


MAX_IOTA_IDS = 1 << 20
"""The most device ids a mesh or an iota list (``[G,S]<=[dims]``) may describe: both are
expanded to explicit lists (programs for more devices cannot run anyway, ``run`` allows
65536)."""


def parse_mesh_groups(text: str, pos: int, error: ErrorAt) -> tuple[MeshAxesReplicaGroupList, int]:
    """Parses ``mesh[...] {...}`` starting at ``pos`` (the ``mesh`` keyword); returns the
    groups and the position after them. Raises ``error(offset, message)`` on malformed or
    inconsistent text (unknown or repeated axes, overlapping sub-axes, device ids that are not
    a permutation of the mesh's devices)."""
    s = _Scanner(text, pos, error)
    s.expect("mesh", "")
    s.expect("[", "to open the mesh axes")
    names: list[str] = []
    sizes: list[int] = []
    while True:
        start = s.pos
        name = s.name("a mesh axis name")
        s.expect("=", "after a mesh axis name")
        size = s.int("a mesh axis size")
        if name in names:
            raise error(start, f"mesh axis '{name}' appears twice")
        if size < 1:
            raise error(start, f"mesh axis '{name}' must have a positive size; got {size}")
        names.append(name)
        sizes.append(size)
        if not s.accept(","):
            break
    s.expect("]", "to close the mesh axes")
    total = math.prod(sizes)
    if total > MAX_IOTA_IDS:
        raise error(pos, f"the mesh has {total} devices; at most {MAX_IOTA_IDS} are allowed")
    device_ids: tuple[int, ...] = ()
    ids_text = ""
    if s.accept(","):
        s.expect("device_ids", "after the mesh")
        s.expect("=", "after device_ids")
        s.expect("(", "to open device_ids")
        start = s.pos
        device_ids = _device_ids(s)
        ids_text = re.sub(r"\s+", "", text[start : s.pos])
        s.expect(")", "to close device_ids")
        if sorted(device_ids) != list(range(total)):
            raise error(
                start, f"device_ids must be a permutation of 0..{total - 1}; got {ids_text}"
            )
    s.expect("{", "to open the grouped axes")
    axes: list[MeshAxisRef] = []
    while not s.accept("}"):
        if axes:
            s.expect(",", "between grouped axes")
        start = s.pos
        name = s.name("a grouped axis name")
        if name not in names:
            raise error(start, f"'{name}' is not an axis of mesh[{','.join(names)}]")
        axis = names.index(name)
        ref = MeshAxisRef(axis)
        if s.accept(":"):
            s.expect("(", "before a sub-axis pre-size")
            pre = s.int("a sub-axis pre-size")
            s.expect(")", "after a sub-axis pre-size")
            ref = MeshAxisRef(axis, pre, s.int("a sub-axis size"))
            full = sizes[axis]
            if pre < 1 or ref.size < 2 or full % (pre * ref.size) or ref.size >= full:
                raise error(
                    start,
                    f"sub-axis '{name}':({pre}){ref.size} must have pre-size >= 1 and size > 1 "
                    f"with pre-size * size dividing the axis size {full}",
                )
        for other in axes:
            if other.axis == axis and _overlap(other, ref):
                raise error(start, f"grouped axis '{name}' overlaps another one on that axis")
        axes.append(ref)
    if not axes:
        raise error(s.pos, "mesh replica groups name at least one axis")
    return MeshAxesReplicaGroupList(tuple(names), tuple(sizes), tuple(axes), device_ids,
                                    ids_text), s.pos  # fmt: skip


def _device_ids(s: _Scanner) -> tuple[int, ...]:
    """A comma list of ids (optionally in brackets), an iota ``[dims]<=[reshape]T(perm)``, or
    the short iota ``[reshape]T(perm)`` (XLA's form when the dims are the mesh's), flattened
    in mesh order."""
    if not s.accept("["):
        return _plain(s)
    first = s.ints("]", "device id")
    s.skip()
    if s.text.startswith("T(", s.pos):
        reshape = first
        first = [math.prod(reshape)]
    elif not s.accept("<="):
        return tuple(first)
    else:
        s.expect("[", "after '<='")
        reshape = s.ints("]", "iota dimension")
    perm = list(range(len(reshape)))
    if s.accept("T"):
        s.expect("(", "after T")
        perm = s.ints(")", "transpose dimension")
    count = math.prod(reshape)
    if (
        sorted(perm) != list(range(len(reshape)))
        or any(d < 0 for d in (*first, *reshape))
        or math.prod(first) != count
        or count > MAX_IOTA_IDS
    ):
        raise s.error(s.pos, f"device_ids iota [{first}]<=[{reshape}]T({perm}) is inconsistent")
    flat = np.arange(count).reshape(reshape).transpose(perm).reshape(-1)
    return tuple(int(x) for x in flat)


def _plain(s: _Scanner) -> tuple[int, ...]:
    values = [s.int("a device id")]
    while s.accept(","):
        values.append(s.int("a device id"))
    return tuple(values)


def _overlap(a: MeshAxisRef, b: MeshAxisRef) -> bool:
    """Whether two references to one mesh axis cover common devices (a whole axis overlaps
    everything on it; sub-axes ``(pre)size`` cover [pre, pre*size) multiplicatively)."""
    if not a.is_sub_axis or not b.is_sub_axis:
        return True
    return a.pre_size * a.size > b.pre_size and b.pre_size * b.size > a.pre_size
