"""Sharding propagation against XLA's own ``sharding-propagation`` pass: for JAX programs
(``data/read_*.gspmd.hlo`` and the partitioner corpus ``data/part_*_gspmd.hlo``), the module
XLA dumps after its pass (``*.propagated.hlo``) is the reference on every instruction both
modules have (same name); plus rules checked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

import xlapy
from xlapy.ir.opcode import Opcode
from xlapy.loader import load
from xlapy.passes.pass_manager import make_pass
from xlapy.sharding import HloSharding
from xlapy.sharding.sharding_util import merge_sharding, reshape_sharding
from xlapy.text.hlo_parser import parse_hlo

DATA = Path(__file__).parent / "data"
CASES = sorted(p.name[: -len(".propagated.hlo")] for p in DATA.glob("*.propagated.hlo"))


def _input(case: str) -> Path:
    if case.startswith("prop_"):
        return DATA / f"part_{case[len('prop_') :]}_gspmd.hlo"
    return DATA / f"{case}.gspmd.hlo"


def _propagate(module):
    make_pass("sharding-propagation").run(module)
    return module


def _key(instr) -> str:
    """Instructions by name; the copies constraints become, by what they copy."""
    if instr.opcode is Opcode.COPY and instr.name.startswith("copy"):
        return f"copy({instr.operands[0].name})"
    return instr.name


@pytest.mark.parametrize("case", CASES)
def test_propagated_shardings_match_xla(case):
    ours = _propagate(load(str(_input(case))))
    xla = load(str(DATA / f"{case}.propagated.hlo"))
    by_name = {_key(i): i for c in ours.computations for i in c.instructions}
    compared = 0
    differ = []
    for comp in xla.computations:
        for instr in comp.instructions:
            mine = by_name.get(_key(instr))
            if mine is None or instr.sharding is None or mine.opcode is not instr.opcode:
                continue
            compared += 1
            if mine.sharding != instr.sharding:
                differ.append(f"{instr.name}: ours {mine.sharding} XLA {instr.sharding}")
    assert compared >= 2
    assert not differ, "\n".join(differ)


def test_every_instruction_gets_a_sharding():
    module = _propagate(load(str(DATA / "read_mlp_shmap.sdy.mlir")))
    for comp in module.computations:
        for instr in comp.instructions:
            assert instr.sharding is not None, instr.name
    body = next(c for c in module.computations if c.name.startswith("shmap_body"))
    assert all(i.sharding.is_manual for i in body.instructions if i.shape.is_array)


MLP = """HloModule m, num_partitions=8

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[16,32] parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  w = f32[32,64] parameter(1), sharding={devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  d = f32[16,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[16,64] tanh(d)
  r = f32[16,8,8] reshape(t)
  tr = f32[8,16,8] transpose(r), dimensions={1,0,2}
  c = f32[] constant(0)
  sum = f32[8,16] reduce(tr, c), dimensions={2}, to_apply=add
  bc = f32[8,16,4] broadcast(sum), dimensions={0,1}
  ROOT out = f32[8,16,4] negate(bc)
}
"""


def test_rules_by_hand():
    module = _propagate(parse_hlo(MLP))
    got = {i.name: str(i.sharding) for i in module.entry.instructions}
    # dot: batch-free; x's rows (2) and w's columns (4) merge into [2,4]
    assert got["d"] == "{devices=[2,4]<=[8]}"
    assert got["t"] == "{devices=[2,4]<=[8]}"
    assert got["r"] == "{devices=[2,4,1]<=[8]}"  # 64 = 8x8: the 4 tiles go to the major 8
    assert got["tr"] == "{devices=[4,2,1]<=[2,4]T(1,0)}"
    assert got["sum"] == "{devices=[4,2]<=[2,4]T(1,0)}"
    assert got["bc"] == "{devices=[4,2,1]<=[2,4]T(1,0)}"
    assert got["c"] == "{replicated}"


def test_backward_from_a_constraint_and_open_dims():
    text = """HloModule m, num_partitions=4

ENTRY e {
  p = f32[8,8] parameter(0), sharding={replicated}
  e = f32[8,8] exponential(p)
  s = f32[8,8] custom-call(e), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
  n = f32[8,8] negate(s)
  o = f32[8,8] custom-call(n), custom_call_target="Sharding", sharding={replicated}, backend_config="unspecified_dims=[0]"
  ROOT r = f32[8,8] copy(o), sharding={devices=[4,1]<=[4]}
}
"""
    module = _propagate(parse_hlo(text))
    got = {i.name: str(i.sharding) for i in module.entry.instructions}
    assert got["e"] == "{devices=[4,1]<=[4]}"  # given by the constraint
    assert got["p"] == "{replicated}"  # provided: never replaced
    assert got["n"] == "{devices=[4,1]<=[4]}"
    # The constraints are copies now; the open one's dim 0 took its operand's tiling.
    open_copy = module.entry.root.operands[0]
    assert open_copy.opcode is Opcode.COPY
    assert str(open_copy.sharding) == "{devices=[4,1]<=[4]}"
    assert not any(i.opcode is Opcode.CUSTOM_CALL for i in module.entry.instructions)


def test_while_body_shares_the_loop_sharding():
    text = """HloModule m, num_partitions=2

cond {
  cp = (s32[], f32[8]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(ci, n), direction=LT
}

body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[8] get-tuple-element(p), index=1
  y = f32[8] sine(x)
  ROOT t = (s32[], f32[8]) tuple(j, y)
}

ENTRY e {
  x0 = f32[8] parameter(0), sharding={devices=[2]<=[2]}
  z = s32[] constant(0)
  t0 = (s32[], f32[8]) tuple(z, x0)
  w = (s32[], f32[8]) while(t0), condition=cond, body=body
  ROOT r = f32[8] get-tuple-element(w), index=1
}
"""
    module = _propagate(parse_hlo(text))
    body = module.computation("body")
    want = "{{replicated}, {devices=[2]<=[2]}}"
    assert str(body.instruction("p").sharding) == want
    assert str(body.instruction("y").sharding) == "{devices=[2]<=[2]}"
    assert str(module.computation("cond").instruction("cp").sharding) == want
    assert str(module.entry.instruction("w").sharding) == want


def test_merge_and_reshape_helpers():
    a = HloSharding.parse("{devices=[2,1,4]<=[8] last_tile_dim_replicate}")
    b = HloSharding.parse("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}")
    assert str(merge_sharding(a, b)) == "{devices=[2,4]<=[8]}"
    assert (
        merge_sharding(a, HloSharding.parse("{devices=[4,1,2]<=[8] last_tile_dim_replicate}"))
        is None
    )
    s = HloSharding.parse("{devices=[4,2]<=[2,4]T(1,0)}")
    shape = xlapy.shape("f32[8,6]")
    assert str(reshape_sharding(shape, xlapy.shape("f32[2,4,6]"), s)) == (
        "{devices=[2,2,2]<=[2,4]T(1,0)}"
    )
    # 4 tiles of 2 rows stay contiguous in [48]; the column split cannot: replicated
    assert str(reshape_sharding(shape, xlapy.shape("f32[48]"), s)) == (
        "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
    )
    assert str(reshape_sharding(shape, xlapy.shape("f32[16,3]"), s)) == (
        "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
    )


@pytest.mark.parametrize("form", ["sdy.mlir", "sdy.hlo", "gspmd.mlir", "gspmd.hlo"])
def test_shard_alike_groups(form):
    """``shard_alike(sin(a), cos(b))``: b (no sharding given) and the values of the group take
    a's tiling, whatever form the group came in; the group markers are gone."""
    module = _propagate(load(str(DATA / f"read_shard_alike.{form}")))
    entry = module.entry
    want = HloSharding.iota_tile([2, 4])
    assert entry.parameter(1).sharding == want
    cos = next(i for i in entry.instructions if i.opcode is Opcode.COS)
    assert cos.sharding == want
    assert all(i.opcode is not Opcode.CUSTOM_CALL for i in entry.instructions)
    assert entry.root.sharding == HloSharding.tuple([want, want])
