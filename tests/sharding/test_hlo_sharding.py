"""HloSharding: XLA's text read and printed as XLA does (XLA itself, through jaxlib's
``HloSharding.from_string``, is the oracle), constructors normalise as XLA's, and the per-device
tile shapes, offsets and replication groups match hand-computed values."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from jax._src.lib import xla_client as xc

import xlapy
from xlapy.errors import ParseError
from xlapy.sharding import HloSharding, TileAssignment
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import print_hlo

ROOT = Path(__file__).resolve().parents[2]

FORMS = [
    "{replicated}",
    "{maximal device=3}",
    "{manual}",
    "{unknown}",
    "{unreduced}",
    "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
    "{devices=[2,2]0,2,1,3}",
    "{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}",
    "{devices=[4,2]<=[2,4]T(1,0)}",
    "{devices=[2,4]<=[2,2,2]T(2,1,0)}",
    "{devices=[4]<=[2,2]T(0,1)}",
    "{devices=[2,1,2]1,0,3,2 last_tile_dim_replicate}",
    "{devices=[1,1,4]<=[4] last_tile_dim_replicate}",
    "{devices=[2,2,1]<=[4] last_tile_dim_replicate}",
    "{devices=[2,1,2,1]<=[4] last_tile_dims={manual, replicated}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={replicated, manual}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={manual, manual}}",
    "{devices=[1,2,2]<=[4] last_tile_dims={manual, manual}}",
    "{devices=[1,4]<=[4] last_tile_dims={manual}}",
    "{devices=[2,2,2]0,1,2,3,4,5,6,7 last_tile_dims={replicated, manual}}",
    "{devices=[2,2]<=[4] shard_as 1}",
    "{devices=[4]<=[2,2]T(1,0) shard_like 3}",
    "{{replicated}, {devices=[2]0,1}}",
    "{{replicated}, {devices=[2]0,1}, {manual}, {manual}, {manual}, {manual}, {maximal device=1}}",
    "{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}",
]


def _xla(text: str) -> str:
    return str(xc.HloSharding.from_string(text))


@pytest.mark.parametrize("text", FORMS)
def test_parse_prints_as_xla(text):
    assert str(HloSharding.parse(text)) == _xla(text)


def _files_shardings() -> list[str]:
    """Every ``sharding={...}`` in the HLO files of tests/ and examples/."""
    found: set[str] = set()
    files = [*ROOT.glob("tests/**/*.hlo"), *ROOT.glob("examples/*.hlo")]
    for path in files:
        text = path.read_text()
        for match in re.finditer(r"sharding=\{", text):
            start = match.end() - 1
            depth = 0
            for i in range(start, len(text)):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                if depth == 0:
                    found.add(text[start : i + 1])
                    break
    return sorted(found)


def test_every_sharding_in_the_repository_round_trips_as_xla():
    texts = _files_shardings()
    assert len(texts) >= 5
    for text in texts:
        ours = HloSharding.parse(text)
        assert ours.to_string(include_metadata=False) == _xla(text), text
        assert HloSharding.parse(str(ours)) == ours


def test_metadata_kept_for_printing_ignored_by_equality():
    a = HloSharding.parse('{devices=[2,2]0,1,2,3 metadata={op_name="b" stack_frame_id=2}}')
    assert str(a) == '{devices=[2,2]0,1,2,3 metadata={op_name="b" stack_frame_id=2}}'
    assert a.to_string(include_metadata=False) == "{devices=[2,2]0,1,2,3}"
    b = HloSharding.iota_tile([2, 2])
    assert a == b
    assert hash(a) == hash(b)
    assert str(b) == "{devices=[2,2]<=[4]}"  # the spelling is kept: explicit vs iota
    assert a.without_metadata().metadata == ""


def test_constructors():
    assert str(HloSharding.tile(np.array([[0, 2], [1, 3]]))) == "{devices=[2,2]0,2,1,3}"
    assert HloSharding.tile(np.array([[0, 2], [1, 3]])) == HloSharding.iota_tile(
        [2, 2], [2, 2], [1, 0]
    )
    assert str(HloSharding.iota_tile([4, 2], [2, 4], [1, 0])) == "{devices=[4,2]<=[2,4]T(1,0)}"
    s = HloSharding.iota_tile([2, 1, 4], replicate_on_last_tile_dim=True)
    assert str(s) == "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"
    m = HloSharding.iota_tile([2, 1, 2, 2], last_tile_dims=("manual", "replicated"))
    assert str(m) == "{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}"
    assert HloSharding.tile(
        np.arange(4).reshape(1, 4), replicate_on_last_tile_dim=True
    ).is_replicated
    t = HloSharding.tuple([HloSharding.replicate(), HloSharding.tile([0, 1])])
    assert str(t) == "{{replicated}, {devices=[2]0,1}}"
    assert HloSharding.from_tuple_elements(t.tuple_elements) == t
    with pytest.raises(AttributeError):
        t.kind = "replicated"  # type: ignore[misc]


def test_queries_of_each_kind():
    r, mx, man = HloSharding.replicate(), HloSharding.maximal(3), HloSharding.manual()
    assert r.is_replicated
    assert r.is_tile_maximal
    assert not r.is_tiled
    assert r.num_devices is None
    assert mx.is_maximal
    assert mx.is_tile_maximal
    assert mx.unique_device() == 3
    assert mx.num_devices == 1
    assert man.is_manual
    assert not man.is_tiled
    s = HloSharding.parse("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}")
    assert s.is_tiled
    assert s.is_manual_subgroup
    assert s.has_partial_replication
    assert (s.tiled_data_rank, s.subgroup_manual_dim, s.subgroup_replication_dim) == (2, 2, 3)
    assert s.num_devices == 8
    assert s.num_tiles() == 2
    assert s.num_tiles(0) == 2
    assert s.total_num_tiles == 8
    np.testing.assert_array_equal(s.tile_assignment, np.arange(8).reshape(2, 1, 2, 2))
    t = HloSharding.parse("{{replicated}, {replicated}}")
    assert t.is_tuple
    assert t.is_replicated
    assert t.extract_single_sharding() == r


def test_tile_shape_offsets_limits_uneven():
    # f32[10,6] over [4,1] tiles with 2 copies each (device d at tile (d // 2, 0)).
    s = HloSharding.parse("{devices=[4,1,2]<=[8] last_tile_dim_replicate}")
    shape = xlapy.shape("f32[10,6]")
    assert s.tile_shape(shape).dims == (3, 6)  # ceil(10 / 4)
    assert s.tile_index_for_device(5) == (2, 0)
    assert s.tile_offset_for_device(shape, 5) == (6, 0)
    assert s.tile_limit_for_device(shape, 5) == (9, 6)
    assert s.tile_offset_for_device(shape, 7) == (9, 0)
    assert s.tile_limit_for_device(shape, 7) == (10, 6)
    assert s.tile_shape(shape, 7).dims == (1, 6)
    assert s.replication_group(5) == [4, 5]
    assert s.devices_for_tile_index((2, 0)) == [4, 5]
    assert s.device_for_tile_index((3, 0)) == 6
    # f32[3] over 4 tiles: ceil = 1, the last device gets an empty piece.
    e = HloSharding.iota_tile([4])
    assert [e.tile_shape(xlapy.shape("f32[3]"), d).dims for d in range(4)] == [
        (1,),
        (1,),
        (1,),
        (0,),
    ]
    assert e.tile_offset_for_device(xlapy.shape("f32[3]"), 3) == (3,)


def test_transposed_iota_positions():
    # <=[2,4]T(1,0) over [4,2]: tile (i, j) holds device j * 4 + i.
    s = HloSharding.iota_tile([4, 2], [2, 4], [1, 0])
    shape = xlapy.shape("f32[8,6]")
    assert s.tile_index_for_device(5) == (1, 1)
    assert s.tile_offset_for_device(shape, 5) == (2, 3)
    assert s.tile_limit_for_device(shape, 6) == (6, 6)
    assert s.tile_shape(shape).dims == (2, 3)


def test_manual_subgroup_replication_group():
    s = HloSharding.parse("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}")
    # device 5 = index (1, 0, 0, 1): same data tile and manual group, both copies.
    assert s.replication_group(5) == [4, 5]
    assert s.devices_for_tile_index((1, 0)) == [4, 5, 6, 7]
    assert HloSharding.replicate().replication_group(2, num_devices=4) == [0, 1, 2, 3]


def test_tuple_sub_shardings():
    shape = xlapy.shape("(f32[4], (f32[2], s32[]), f32[8])")
    s = HloSharding.parse("{{devices=[2]0,1}, {replicated}, {maximal device=0}, {devices=[2]1,0}}")
    assert s.get_sub_sharding(shape, (0,)) == HloSharding.tile([0, 1])
    assert str(s.get_sub_sharding(shape, (1,))) == "{{replicated}, {maximal device=0}}"
    assert s.get_sub_sharding(shape, (1, 1)) == HloSharding.maximal(0)
    assert s.get_sub_sharding(shape, (2,)) == HloSharding.tile([1, 0])
    assert [t.to_hlo(layout=False) for t in s.tile_shape(shape).leaves()] == [
        "f32[2]",
        "f32[2]",
        "s32[]",
        "f32[4]",
    ]
    single = HloSharding.parse("{replicated}", shape)
    assert str(single) == "{{replicated}, {replicated}, {replicated}, {replicated}}"


def test_tile_assignment_transpose_keeps_iota_as_xla():
    ta = TileAssignment.from_iota([2, 4])
    assert str(ta.transpose([1, 0])) == "devices=[4,2]<=[2,4]T(1,0)"
    assert str(ta.transpose([1, 0]).transpose([1, 0])) == "devices=[2,4]<=[8]"
    np.testing.assert_array_equal(ta.transpose([1, 0]).array, np.arange(8).reshape(2, 4).T)
    assert str(TileAssignment.from_iota([2, 1, 4]).transpose([1, 0, 2])) == "devices=[1,2,4]<=[8]"
    three = TileAssignment.from_iota([2, 2, 2], [2, 4], [1, 0])
    np.testing.assert_array_equal(three.transpose([2, 0, 1]).array, three.array.transpose(2, 0, 1))


def test_instruction_sharding_is_an_hlo_sharding():
    module = parse_hlo(
        "HloModule m\n\nENTRY e {\n"
        "  p = f32[8,4]{1,0} parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}\n"
        "  ROOT n = f32[8,4]{1,0} negate(p), sharding={devices=[2,2,2]0,1,2,3,4,5,6,7 "
        "last_tile_dims={replicated, manual}}\n}\n"
    )
    p = module.entry.instruction("p")
    assert isinstance(p.sharding, HloSharding)
    assert p.sharding.tile_shape(p.shape).dims == (4, 4)
    text = print_hlo(module)
    assert "sharding={devices=[2,2,2]0,2,1,3,4,6,5,7 last_tile_dims={manual, replicated}}" in text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{devices=[2,2]0,1,2}", "needs 4 devices"),
        ("{devices=[2]0,0}", "appears twice"),
        ("{devices=[4]<=[3]}", "does not hold"),
        ("{devices=[2,2]<=[2,2]T(0,0)}", "not a permutation"),
        ("{maximal}", "needs device=N"),
        ("{devices=[2,2]<=[4] last_tile_dims={bogus}}", "subgroup type"),
        ("{replicated} x", "end of the sharding"),
    ],
)
def test_errors_are_located(text, message):
    with pytest.raises(ParseError, match=message):
        HloSharding.parse(text)
