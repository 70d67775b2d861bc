"""Resharding between two shardings (``custom-call Sharding``: a value's sharding changes)
gives back the same global value, for even and uneven shards, through each strategy: local
slice, all-to-all, all-gather; and the strategy each pair takes sends what it should."""

import numpy as np
import pytest

import xlapy
from xlapy.sharding.comm import collective_bytes
from xlapy.sharding.spmd_pipeline import partition

PAIRS = [
    ("{replicated}", "{devices=[4,2]<=[8]}", 0),
    ("{devices=[8,1]<=[8]}", "{replicated}", 1),
    ("{devices=[8,1]<=[8]}", "{devices=[1,8]<=[8]}", 1),  # all-to-all
    ("{devices=[2,4]<=[8]}", "{devices=[4,2]<=[2,4]T(1,0)}", 1),
    ("{devices=[2,1,4]<=[8] last_tile_dim_replicate}", "{devices=[2,4]<=[8]}", 0),
    ("{devices=[2,4]<=[8]}", "{devices=[2,1,4]<=[8] last_tile_dim_replicate}", 1),
    ("{devices=[4,2]<=[8]}", "{devices=[8,1]<=[8]}", 1),
    ("{devices=[8,1]<=[8]}", "{devices=[8,1]7,6,5,4,3,2,1,0}", 1),
    ("{maximal device=3}", "{devices=[1,8]<=[8]}", 0),
]


def _program(rows: int, cols: int, src: str, dst: str) -> str:
    return f"""HloModule reshard, num_partitions=8

ENTRY main {{
  p = s32[{rows},{cols}] parameter(0), sharding={src}
  ROOT c = s32[{rows},{cols}] custom-call(p), custom_call_target="Sharding", sharding={dst}
}}
"""


@pytest.mark.parametrize(("rows", "cols"), [(16, 8), (10, 11)])
@pytest.mark.parametrize(("src", "dst", "moves"), PAIRS)
def test_reshard_keeps_the_global_value(src, dst, moves, rows, cols):
    module = xlapy.load(_program(rows, cols, src, dst))
    value = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    (got,) = xlapy.compile(module, platform="interpreter")(value)
    np.testing.assert_array_equal(got, value)
    spmd, _ = partition(module)
    assert (collective_bytes(spmd) > 0) == bool(moves), (src, dst)


def test_all_to_all_moves_a_tile_axis_between_dims():
    spmd, _ = partition(xlapy.load(_program(16, 8, "{devices=[8,1]<=[8]}", "{devices=[1,8]<=[8]}")))
    ops = {i.opcode.value for i in spmd.entry.instructions}
    assert "all-to-all" in ops
    assert "all-gather" not in ops
    # Each device keeps 1/8 of its 16x8/8 piece and sends the rest.
    assert collective_bytes(spmd) == 7 / 8 * 16 * 4
