"""Mesh-form replica groups in HLO text: parsing (quoted or bare names, device ids as a list
or an iota, sub-axes), expansion into XLA's groups, printing, and the errors."""

from __future__ import annotations

import pytest

from xlapy.errors import ParseError
from xlapy.ir import attrs as A
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import print_hlo


def _module(groups: str) -> str:
    return f"""HloModule m, num_partitions=8

add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}

ENTRY main {{
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), channel_id=1, replica_groups={groups}, use_global_device_ids=true, to_apply=add
}}
"""


def _groups(text: str) -> A.ReplicaGroups:
    return parse_hlo(_module(text)).entry.root.attrs.replica_groups


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mesh['axis_0'=4,'axis_1'=1,'axis_2'=2] {'axis_0'}", ((0, 2, 4, 6), (1, 3, 5, 7))),
        ("mesh['axis_0'=4,'axis_1'=1,'axis_2'=2]{'axis_2'}", ((0, 1), (2, 3), (4, 5), (6, 7))),
        # Grouped axes follow the mesh order, whatever order they are written in.
        ("mesh['a'=4,'b'=2] {'b','a'}", ((0, 1, 2, 3, 4, 5, 6, 7),)),
        ("mesh[a=2,b=4] {b}", ((0, 1, 2, 3), (4, 5, 6, 7))),
        # Sub-axes: (pre_size)size is the part of the axis at stride 8 / (pre_size * size).
        ("mesh['a'=8] {'a':(1)2}", ((0, 4), (1, 5), (2, 6), (3, 7))),
        ("mesh['a'=8] {'a':(2)4}", ((0, 1, 2, 3), (4, 5, 6, 7))),
        ("mesh['a'=8] {'a':(4)2,'a':(1)2}", ((0, 4, 1, 5), (2, 6, 3, 7))),
        # Explicit device order on the mesh, as a list or an iota.
        # (the mesh is [[0, 4, 1, 5], [2, 6, 3, 7]])
        ("mesh['a'=2,'b'=4], device_ids=(0,4,1,5,2,6,3,7) {'a'}",
         ((0, 2), (4, 6), (1, 3), (5, 7))),
        ("mesh['a'=2,'b'=4], device_ids=([2,4]<=[4,2]T(1,0)) {'b'}",
         ((0, 2, 4, 6), (1, 3, 5, 7))),
    ],
)  # fmt: skip
def test_expansion(text: str, expected: tuple[tuple[int, ...], ...]) -> None:
    assert _groups(text).groups() == expected


def test_printed_as_xla_prints_it() -> None:
    module = parse_hlo(_module("mesh[a=2,b=4], device_ids=( [2,4]<=[4,2]T(1,0) ) {b}"))
    assert "replica_groups=mesh['a'=2,'b'=4], device_ids=([2,4]<=[4,2]T(1,0)) {'b'}" in print_hlo(
        module
    )
    again = parse_hlo(print_hlo(module)).entry.root.attrs.replica_groups
    assert again == module.entry.root.attrs.replica_groups


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mesh['a'=8] {'c'}", r"'c' is not an axis of mesh\[a\]"),
        ("mesh['a'=8,'a'=1] {'a'}", "mesh axis 'a' appears twice"),
        ("mesh['a'=8] {'a','a':(1)2}", "overlaps another one"),
        ("mesh['a'=8] {'a':(1)3}", "pre-size \\* size dividing the axis size 8"),
        ("mesh['a'=4], device_ids=(0,1,1,2) {'a'}", "device_ids must be a permutation of 0..3"),
        ("mesh['a'=4] {}", "name at least one axis"),
    ],
)
def test_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        _groups(text)
