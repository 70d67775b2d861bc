"""Op by op: a global program partitioned over 4 devices gives what the same program gives
on one device (the interpreter, shardings ignored), on the cases where partitioning is
delicate: uneven pieces (10 rows over 4 devices: padding must never reach a result),
out-of-range gather indices, halos, reducers whose init is not an identity, loops."""

import numpy as np
import pytest

import xlapy
from xlapy.errors import Unimplemented
from xlapy.ir.module import HloModule
from xlapy.sharding.comm import collective_bytes
from xlapy.sharding.spmd_pipeline import partition

ROWS4 = "{devices=[4,1]<=[4]}"
COLS4 = "{devices=[1,4]<=[4]}"
REP = "{replicated}"
ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n"
MAX = (
    "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] maximum(a, b)\n}\n"
)


def _check(text: str, *args: np.ndarray, exact: bool = False) -> HloModule:
    module = xlapy.load(text)
    want = xlapy.run(module, *args, platform="interpreter")
    exe = xlapy.compile(module, platform="interpreter")
    assert exe.num_partitions == 4
    got = exe(*args)
    for g, w in zip(got, want, strict=True):
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    return exe.module


def _f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_reductions_over_uneven_pieces_ignore_padding():
    text = f"""HloModule m
{ADD}{MAX}
ENTRY main {{
  x = f32[10,6] parameter(0), sharding={ROWS4}
  e = f32[10,6] exponential(x)
  z = f32[] constant(0)
  s = f32[6] reduce(e, z), dimensions={{0}}, to_apply=add
  ninf = f32[] constant(-inf)
  m = f32[6] reduce(x, ninf), dimensions={{0}}, to_apply=max
  ROOT t = (f32[6], f32[6]) tuple(s, m), sharding={{{REP}, {REP}}}
}}
"""
    spmd = _check(text, -np.abs(_f32(10, 6)) - 5)  # all negative: padding 0 would win max
    assert "all-reduce" in {i.opcode.value for i in spmd.entry.instructions}


def test_bf16_partial_sums_are_added_in_f32():
    text = f"""HloModule m

ENTRY main {{
  a = bf16[4,64] parameter(0), sharding={COLS4}
  b = bf16[64,3] parameter(1), sharding={ROWS4}
  ROOT d = bf16[4,3] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, sharding={REP}
}}
"""
    bf16 = xlapy.dtypes.BY_NAME["bf16"].numpy
    a, b = _f32(4, 64).astype(bf16), _f32(64, 3, seed=1).astype(bf16)
    spmd = _check(text, a, b)
    (reduce,) = [i for i in spmd.entry.instructions if i.opcode.value == "all-reduce"]
    assert reduce.shape.element_type.name == "f32"


def test_reduce_whose_init_is_not_an_identity_sees_the_dim_whole():
    text = f"""HloModule m
{ADD}
ENTRY main {{
  x = f32[8,4] parameter(0), sharding={ROWS4}
  five = f32[] constant(5)
  ROOT s = f32[4] reduce(x, five), dimensions={{0}}, to_apply=add, sharding={REP}
}}
"""
    _check(text, _f32(8, 4))


def test_dot_with_uneven_tiled_contracting_dims():
    text = f"""HloModule m

ENTRY main {{
  a = f32[3,10] parameter(0), sharding={COLS4}
  b = f32[10,5] parameter(1), sharding={ROWS4}
  e = f32[3,10] exponential(a)
  ROOT d = f32[3,5] dot(e, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, sharding={REP}
}}
"""
    _check(text, _f32(3, 10), _f32(10, 5, seed=1))


@pytest.mark.parametrize("rows", [40, 42])
def test_embedding_lookup_with_out_of_range_ids(rows):
    text = f"""HloModule m

ENTRY main {{
  table = f32[{rows},4] parameter(0), sharding={ROWS4}
  ids = s32[2,3,1] parameter(1), sharding={REP}
  ROOT g = f32[2,3,4] gather(table, ids), offset_dims={{2}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=2, slice_sizes={{1,4}}, sharding={REP}
}}
"""
    ids = np.array([[[0], [rows - 1], [-3]], [[rows + 7], [5], [2]]], np.int32)
    spmd = _check(text, _f32(rows, 4), ids, exact=True)
    ops = {i.opcode.value for i in spmd.entry.instructions}
    assert "all-reduce" in ops
    assert "all-gather" not in ops


@pytest.mark.parametrize("rows", [40, 42])
def test_scatter_add_into_a_table_split_on_rows(rows):
    text = f"""HloModule m
{ADD}
ENTRY main {{
  table = f32[{rows},4] parameter(0), sharding={ROWS4}
  ids = s32[5,1] parameter(1), sharding={REP}
  upd = f32[5,4] parameter(2), sharding={REP}
  ROOT s = f32[{rows},4] scatter(table, ids, upd), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add, sharding={ROWS4}
}}
"""
    ids = np.array([[0], [rows - 1], [-2], [rows + 1], [0]], np.int32)  # repeats, out of range
    spmd = _check(text, _f32(rows, 4), ids, _f32(5, 4, seed=3))
    assert collective_bytes(spmd) == 0


@pytest.mark.parametrize(
    ("height", "pad", "moves"),
    [
        (16, "1_1", "collective-permute"),
        (16, "2_0", "collective-permute"),
        (10, "1_1", "all-gather"),
    ],
)
def test_convolution_halo_exchange(height, pad, moves):
    text = f"""HloModule m

ENTRY main {{
  x = f32[2,{height},5,3] parameter(0), sharding={{devices=[1,4,1,1]<=[4]}}
  k = f32[3,3,3,2] parameter(1), sharding={REP}
  ROOT c = f32[2,{height},5,2] convolution(x, k), window={{size=3x3 pad={pad}x1_1}}, dim_labels=b01f_01io->b01f, sharding={{devices=[1,4,1,1]<=[4]}}
}}
"""
    spmd = _check(text, _f32(2, height, 5, 3), _f32(3, 3, 3, 2, seed=2))
    assert moves in {i.opcode.value for i in spmd.entry.instructions}


@pytest.mark.parametrize(
    ("window", "out", "moves"),
    [
        ("size=1x3x1 pad=0_0x1_1x0_0", 16, "collective-permute"),  # ends padded with -inf
        ("size=1x2x1 stride=1x2x1", 8, None),  # max pooling: no halo
        ("size=1x3x1 stride=1x2x1 pad=0_0x0_1x0_0", 8, "collective-permute"),
    ],
)
def test_reduce_window_halo(window, out, moves):
    text = f"""HloModule m
{MAX}
ENTRY main {{
  x = f32[2,16,3] parameter(0), sharding={{devices=[1,4,1]<=[4]}}
  ninf = f32[] constant(-inf)
  ROOT r = f32[2,{out},3] reduce-window(x, ninf), window={{{window}}}, to_apply=max, sharding={{devices=[1,4,1]<=[4]}}
}}
"""
    spmd = _check(text, -np.abs(_f32(2, 16, 3)) - 1)  # negative: a zero halo would win
    ops = {i.opcode.value for i in spmd.entry.instructions}
    assert "all-gather" not in ops
    if moves:
        assert moves in ops


def test_strided_convolution_halo():
    text = f"""HloModule m

ENTRY main {{
  x = f32[2,16,5,3] parameter(0), sharding={{devices=[1,4,1,1]<=[4]}}
  k = f32[3,3,3,2] parameter(1), sharding={REP}
  ROOT c = f32[2,8,5,2] convolution(x, k), window={{size=3x3 stride=2x1 pad=0_1x1_1}}, dim_labels=b01f_01io->b01f, sharding={{devices=[1,4,1,1]<=[4]}}
}}
"""
    spmd = _check(text, _f32(2, 16, 5, 3), _f32(3, 3, 3, 2, seed=2))
    assert "all-gather" not in {i.opcode.value for i in spmd.entry.instructions}


def test_sort_and_cumulative_sum_along_an_uneven_tiled_dim():
    text = f"""HloModule m
{ADD}
less {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}}

ENTRY main {{
  x = f32[10,3] parameter(0), sharding={ROWS4}
  s = f32[10,3] sort(x), dimensions={{0}}, to_apply=less, sharding={ROWS4}
  z = f32[] constant(0)
  c = f32[10,3] reduce-window(x, z), window={{size=10x1 pad=9_0x0_0}}, to_apply=add, sharding={ROWS4}
  ROOT t = (f32[10,3], f32[10,3]) tuple(s, c)
}}
"""
    _check(text, _f32(10, 3))


def test_shape_ops_on_tiled_dims():
    text = f"""HloModule m

ENTRY main {{
  x = f32[8,6] parameter(0), sharding={{devices=[2,2]<=[4]}}
  t = f32[6,8] transpose(x), dimensions={{1,0}}
  r = f32[48] reshape(x)
  z = f32[] constant(0)
  p = f32[10,6] pad(x, z), padding=1_1x0_0
  v = f32[8,6] reverse(x), dimensions={{0}}
  c = f32[16,6] concatenate(x, v), dimensions={{0}}
  i = s32[] constant(3)
  j = s32[] constant(0)
  d = f32[4,6] dynamic-slice(x, i, j), dynamic_slice_sizes={{4,6}}
  u = f32[8,6] dynamic-update-slice(x, d, j, j)
  o = f32[8,6] iota(), iota_dimension=0, sharding={ROWS4}
  a = f32[8,6] add(u, o)
  b = f32[3,8,6] broadcast(a), dimensions={{1,2}}
  ROOT out = (f32[6,8], f32[48], f32[10,6], f32[16,6], f32[3,8,6]) tuple(t, r, p, c, b), sharding={{{REP}, {{devices=[4]<=[4]}}, {ROWS4}, {COLS4}, {{devices=[1,4,1]<=[4]}}}}
}}
"""
    _check(text, _f32(8, 6), exact=True)


def test_broadcast_expanding_a_size_one_dim():
    # The [1,16] operand is tiled on its size-1 dim; only device 0 holds its row.
    text = f"""HloModule m

ENTRY main {{
  r = f32[1,16] parameter(0), sharding={{devices=[4,1]<=[4]}}
  ROOT b = f32[8,16] broadcast(r), dimensions={{0,1}}, sharding={ROWS4}
}}
"""
    _check(text, _f32(1, 16), exact=True)


@pytest.mark.parametrize(
    ("rows", "start", "limit"), [(16, 3, 11), (16, 0, 8), (13, 5, 13), (10, 1, 9)]
)
def test_slice_of_a_tiled_dim_shifts_rows_between_neighbours(rows, start, limit):
    text = f"""HloModule m

ENTRY main {{
  x = f32[{rows},3] parameter(0), sharding={ROWS4}
  ROOT s = f32[{limit - start},3] slice(x), slice={{[{start}:{limit}], [0:3]}}, sharding={ROWS4}
}}
"""
    spmd = _check(text, _f32(rows, 3), exact=True)
    ops = {i.opcode.value for i in spmd.entry.instructions}
    assert "collective-permute" in ops
    assert "all-gather" not in ops


@pytest.mark.parametrize(("rows", "low", "high"), [(16, 1, 2), (13, 3, 0), (10, -2, 4)])
def test_pad_of_a_tiled_dim_shifts_rows_and_fills(rows, low, high):
    text = f"""HloModule m

ENTRY main {{
  x = f32[{rows},3] parameter(0), sharding={ROWS4}
  z = f32[] constant(-7)
  ROOT s = f32[{rows + low + high},3] pad(x, z), padding={low}_{high}x0_0, sharding={ROWS4}
}}
"""
    spmd = _check(text, _f32(rows, 3), exact=True)
    assert "all-gather" not in {i.opcode.value for i in spmd.entry.instructions}


@pytest.mark.parametrize("sizes", [(16, 16), (13, 3), (6, 2, 8)])
def test_concatenate_along_a_tiled_dim(sizes):
    params = "\n".join(
        f"  x{i} = f32[{m},3] parameter({i}), sharding={ROWS4}" for i, m in enumerate(sizes)
    )
    names = ", ".join(f"x{i}" for i in range(len(sizes)))
    text = f"""HloModule m

ENTRY main {{
{params}
  ROOT c = f32[{sum(sizes)},3] concatenate({names}), dimensions={{0}}, sharding={ROWS4}
}}
"""
    _check(text, *[_f32(m, 3, seed=i) for i, m in enumerate(sizes)], exact=True)


def test_tuple_parameter_is_split_leaf_by_leaf():
    text = f"""HloModule m

ENTRY main {{
  x = (f32[8,3], f32[4]) parameter(0), sharding={{{ROWS4}, {REP}}}
  a = f32[8,3] get-tuple-element(x), index=0
  b = f32[4] get-tuple-element(x), index=1
  e = f32[8,3] exponential(a), sharding={ROWS4}
  ROOT t = (f32[8,3], f32[4]) tuple(e, b)
}}
"""
    _check(text, (_f32(8, 3), _f32(4, seed=1)))


def test_while_loop_with_a_tiled_state():
    text = f"""HloModule m

cond {{
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}}

body {{
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[8,4] tanh(x)
  w = f32[4,4] constant({{{{1,0,0,0}},{{0,2,0,0}},{{0,0,1,0}},{{1,0,0,1}}}})
  z = f32[8,4] dot(y, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  ROOT t = (s32[], f32[8,4]) tuple(j, z)
}}

ENTRY main {{
  x = f32[8,4] parameter(0), sharding={ROWS4}
  zero = s32[] constant(0)
  s = (s32[], f32[8,4]) tuple(zero, x)
  w = (s32[], f32[8,4]) while(s), condition=cond, body=body
  ROOT r = f32[8,4] get-tuple-element(w), index=1, sharding={ROWS4}
}}
"""
    spmd = _check(text, _f32(8, 4))
    assert collective_bytes(spmd) == 0  # rows stay on their device through the loop


def test_conditional_branches_are_partitioned():
    text = f"""HloModule m

on_true {{
  x = f32[8] parameter(0)
  ROOT e = f32[8] exponential(x)
}}

on_false {{
  x = f32[8] parameter(0)
  ROOT n = f32[8] negate(x)
}}

ENTRY main {{
  p = pred[] parameter(0), sharding={REP}
  x = f32[8] parameter(1), sharding={{devices=[4]<=[4]}}
  ROOT c = f32[8] conditional(p, x, x), true_computation=on_true, false_computation=on_false, sharding={{devices=[4]<=[4]}}
}}
"""
    for flag in (True, False):
        _check(text, np.array(flag), _f32(8))


def test_random_numbers_are_refused_by_name():
    text = """HloModule m

ENTRY main {
  x = f32[8] parameter(0), sharding={devices=[4]<=[4]}
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[8] rng(lo, hi), distribution=rng_uniform
  ROOT a = f32[8] add(x, r), sharding={devices=[4]<=[4]}
}
"""
    with pytest.raises(Unimplemented, match=r"rng r cannot be partitioned"):
        partition(xlapy.load(text))
