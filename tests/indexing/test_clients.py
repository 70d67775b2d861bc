"""Operand utilization, memory coalescing and tile propagation (INDEXING.md §2)."""

from __future__ import annotations

import pytest

from tests.indexing.conftest import parse_root
from xlapy.indexing.clients import Tile, is_coalesced, operand_utilization, propagate_tile
from xlapy.indexing.per_op import output_to_input
from xlapy.indexing.text import parse_indexing_map


def maps_of(hlo: str, operand: int = 0):  # type: ignore[no-untyped-def]
    root = parse_root(hlo)
    return output_to_input(root).maps[operand], list(root.operands[operand].shape.dims)


def test_utilization_of_a_strided_slice() -> None:
    maps, dims = maps_of(
        "ENTRY e { p = f32[10, 20] parameter(0)\n ROOT s = f32[5, 10] slice(p), slice={[0:10:2], [0:20:2]} }"
    )
    assert operand_utilization(maps, dims) == pytest.approx(0.25)


def test_utilization_of_reduce_and_pad() -> None:
    maps, dims = maps_of(
        "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
        "ENTRY e { p = f32[4, 6] parameter(0)\n c = f32[] constant(0)\n"
        " ROOT r = f32[4] reduce(p, c), dimensions={1}, to_apply=add }"
    )
    assert operand_utilization(maps, dims) == 1.0
    maps, dims = maps_of(
        "ENTRY e { p = f32[8] parameter(0)\n v = f32[] parameter(1)\n ROOT r = f32[4] pad(p, v), padding=-2_-2 }"
    )
    assert operand_utilization(maps, dims) == 0.5


def test_utilization_of_fusion_with_two_paths() -> None:
    maps, dims = maps_of(
        """f { p0 = f32[8] parameter(0)
          a = f32[4] slice(p0), slice={[0:4]}
          b = f32[4] slice(p0), slice={[6:8:1]}
          ROOT r = f32[4] add(a, a) }
        ENTRY e { p = f32[8] parameter(0)\n ROOT r = f32[4] fusion(p), kind=kLoop, calls=f }"""
    )
    assert operand_utilization(maps, dims) == 0.5


def test_coalescing() -> None:
    identity = parse_indexing_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]")
    transposed = parse_indexing_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 9], d1 in [0, 19]")
    broadcast = parse_indexing_map("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 19]")
    assert is_coalesced(identity, [10, 20])
    assert not is_coalesced(transposed, [20, 10])
    assert is_coalesced(broadcast, [10])
    # A column-major operand makes the transpose coalesced and the identity not.
    assert is_coalesced(transposed, [20, 10], minor_to_major=[0, 1])
    assert not is_coalesced(identity, [10, 20], minor_to_major=[0, 1])
    strided = parse_indexing_map("(d0) -> (d0 * 2), domain: d0 in [0, 9]")
    assert not is_coalesced(strided, [20])
    assert not is_coalesced(
        parse_indexing_map("(d0) -> (d0), domain: d0 in [0, 9]").undefined(), [10]
    )


def test_tile_propagation() -> None:
    slice_map = parse_indexing_map(
        "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]"
    )
    got = propagate_tile(slice_map, Tile((1, 0, 4), (2, 3, 5), (1, 1, 2)))
    assert got == Tile((6, 3, 8), (2, 3, 5), (1, 7, 4))
    reduce_map = parse_indexing_map(
        "(d0, d1)[s0, s1] -> (d0, s0, d1, s1), domain: d0 in [0, 149], d1 in [0, 9], "
        "s0 in [0, 19], s1 in [0, 49]"
    )
    got = propagate_tile(reduce_map, Tile((8, 2), (4, 3), (1, 1)))
    assert got == Tile((8, 0, 2, 0), (4, 20, 3, 50), (1, 1, 1, 1))
    transpose_map = parse_indexing_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 9], d1 in [0, 19]")
    assert propagate_tile(transpose_map, Tile((2, 4), (3, 5), (1, 2))) == Tile(
        (4, 2), (5, 3), (2, 1)
    )
