"""Property tests: shapes inferred by the builder equal the shapes JAX/XLA give for the same
op (``jax.eval_shape`` of ``lax`` ops) on random valid arguments."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy import InvalidArgument, XlaBuilder, ops
from xlapy.builder.config import DotDimensionNumbers, GatherDimensionNumbers, Padding

jax = pytest.importorskip("jax")
lax = jax.lax
jnp = jax.numpy

S = xlapy.shape
FEW = settings(max_examples=40, deadline=None, derandomize=True)


def _jax_dims(fn, *shapes, dtype=np.float32):
    args = [jax.ShapeDtypeStruct(s, dtype) for s in shapes]
    out = jax.eval_shape(fn, *args)
    return tuple(out.shape)


def _param(b, i, dims, dtype="f32"):
    return ops.Parameter(b, i, S(f"{dtype}[{','.join(map(str, dims))}]"), f"p{i}")


dims_st = st.lists(st.integers(1, 5), min_size=1, max_size=4)


@FEW
@given(dims_st, st.data())
def test_pad(dims, data):
    """Same result shape, and the same verdict when edge padding removes too much."""
    config = [
        (data.draw(st.integers(-2, 2)), data.draw(st.integers(-2, 2)), data.draw(st.integers(0, 2)))
        for _ in dims
    ]
    b = XlaBuilder("pad")
    x = _param(b, 0, dims)
    try:
        # np.float32: other tests in this process may have turned on jax_enable_x64.
        want = _jax_dims(lambda v: lax.pad(v, np.float32(0), config), dims)
    except (TypeError, ValueError) as err:
        if "after padding is not at least 0" not in str(err):
            raise  # jax rejected the program for another reason: show it
        with pytest.raises(InvalidArgument, match=r"pad \[C4\]"):
            ops.Pad(x, ops.ConstantR0(b, 0.0), config)
        return
    assert ops.Pad(x, ops.ConstantR0(b, 0.0), config).shape.dims == want


@FEW
@given(dims_st, st.data())
def test_slice(dims, data):
    starts = [data.draw(st.integers(0, n)) for n in dims]
    limits = [data.draw(st.integers(s, n)) for s, n in zip(starts, dims, strict=True)]
    strides = [data.draw(st.integers(1, 3)) for _ in dims]
    b = XlaBuilder("slice")
    got = ops.Slice(_param(b, 0, dims), starts, limits, strides).shape.dims
    assert got == _jax_dims(lambda x: lax.slice(x, starts, limits, strides), dims)


@FEW
@given(dims_st, st.data())
def test_transpose_and_reverse(dims, data):
    perm = data.draw(st.permutations(range(len(dims))))
    b = XlaBuilder("t")
    x = _param(b, 0, dims)
    assert ops.Transpose(x, perm).shape.dims == _jax_dims(lambda v: lax.transpose(v, perm), dims)
    assert ops.Rev(x, [0]).shape.dims == _jax_dims(lambda v: lax.rev(v, [0]), dims)


@FEW
@given(dims_st, st.integers(1, 3), st.data())
def test_concatenate(dims, count, data):
    dim = data.draw(st.integers(0, len(dims) - 1))
    shapes = []
    for _ in range(count):
        s = list(dims)
        s[dim] = data.draw(st.integers(0, 4))
        shapes.append(s)
    b = XlaBuilder("concat")
    got = ops.ConcatInDim(b, [_param(b, i, s) for i, s in enumerate(shapes)], dim).shape.dims
    assert got == _jax_dims(lambda *xs: lax.concatenate(xs, dim), *shapes)


@FEW
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_broadcast_in_dim(dims, data):
    extra = data.draw(st.integers(0, 2))
    out_rank = len(dims) + extra
    bdims = sorted(data.draw(st.lists(st.integers(0, out_rank - 1), min_size=len(dims),
                                      max_size=len(dims), unique=True)))  # fmt: skip
    out = [data.draw(st.integers(1, 4)) for _ in range(out_rank)]
    operand = [1 if data.draw(st.booleans()) else out[d] for d in bdims]
    b = XlaBuilder("bid")
    got = ops.BroadcastInDim(_param(b, 0, operand), out, bdims).shape.dims
    assert got == _jax_dims(lambda x: lax.broadcast_in_dim(x, out, bdims), operand)


@FEW
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_binary_broadcasting_of_degenerate_dims(dims, data):
    lhs = [1 if data.draw(st.booleans()) else n for n in dims]
    rhs = [1 if data.draw(st.booleans()) else n for n in dims]
    b = XlaBuilder("add")
    got = ops.Add(_param(b, 0, lhs), _param(b, 1, rhs)).shape.dims
    assert got == _jax_dims(lambda x, y: x + y, lhs, rhs)


@FEW
@given(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2), st.integers(1, 3), st.data())
def test_dot_general(batch, contract, free, size, data):
    lb = list(range(batch))
    lc = list(range(batch, batch + contract))
    sizes = [data.draw(st.integers(1, 4)) for _ in range(batch + contract)]
    lhs = sizes + [size] * free
    rhs = sizes + [size + 1] * free
    dn = DotDimensionNumbers(lc, lc, lb, lb)
    b = XlaBuilder("dot")
    got = ops.DotGeneral(_param(b, 0, lhs), _param(b, 1, rhs), dn).shape.dims
    want = _jax_dims(lambda x, y: lax.dot_general(x, y, ((lc, lc), (lb, lb))), lhs, rhs)
    assert got == want


@FEW
@given(st.integers(1, 2), st.data())
def test_conv_general_dilated(spatial, data):
    n, c, o = (
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 3)),
    )
    base = [data.draw(st.integers(1, 6)) for _ in range(spatial)]
    window = [data.draw(st.integers(1, 3)) for _ in range(spatial)]
    strides = [data.draw(st.integers(1, 2)) for _ in range(spatial)]
    padding = [(data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))) for _ in range(spatial)]
    lhs_dil = [data.draw(st.integers(1, 2)) for _ in range(spatial)]
    rhs_dil = [data.draw(st.integers(1, 2)) for _ in range(spatial)]
    lhs, rhs = [n, c, *base], [o, c, *window]
    b = XlaBuilder("conv")
    got = ops.ConvGeneralDilated(_param(b, 0, lhs), _param(b, 1, rhs), strides, padding, lhs_dil,
                                 rhs_dil).shape.dims  # fmt: skip
    want = _jax_dims(
        lambda x, y: lax.conv_general_dilated(x, y, strides, padding, lhs_dil, rhs_dil), lhs, rhs
    )
    assert got == want


@FEW
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3), st.data())
def test_reduce_window(dims, data):
    window = [data.draw(st.integers(1, n)) for n in dims]
    strides = [data.draw(st.integers(1, 3)) for _ in dims]
    padding = data.draw(st.sampled_from(["SAME", "VALID"]))
    b = XlaBuilder("rw")
    got = ops.ReduceWindow(_param(b, 0, dims), ops.ConstantR0(b, 0.0), lambda x, y: x + y, window,
                           strides, Padding(padding.lower())).shape.dims  # fmt: skip
    want = _jax_dims(lambda x: lax.reduce_window(x, 0.0, lax.add, window, strides, padding), dims)
    assert got == want


@FEW
@given(st.lists(st.integers(1, 5), min_size=2, max_size=3), st.data())
def test_gather_rows(dims, data):
    count = data.draw(st.integers(1, 4))
    offset = tuple(range(1, len(dims)))
    dnums = GatherDimensionNumbers(offset, [0], [0], 1)
    sizes = [1, *dims[1:]]
    b = XlaBuilder("gather")
    got = ops.Gather(_param(b, 0, dims), _param(b, 1, [count, 1], "s32"), dnums, sizes).shape.dims
    jdn = lax.GatherDimensionNumbers(
        offset_dims=offset, collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    args = [jax.ShapeDtypeStruct(dims, np.float32), jax.ShapeDtypeStruct((count, 1), np.int32)]
    want = jax.eval_shape(lambda x, i: lax.gather(x, i, jdn, sizes), *args).shape
    assert got == tuple(want)


@FEW
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_reduce_and_topk(dims, data):
    axes = sorted(data.draw(st.sets(st.integers(0, len(dims) - 1))))
    b = XlaBuilder("reduce")
    x = _param(b, 0, dims)
    got = ops.Reduce(x, ops.ConstantR0(b, 0.0), lambda p, q: p + q, axes).shape.dims
    assert got == _jax_dims(lambda v: jnp.sum(v, axis=tuple(axes)), dims)
    k = data.draw(st.integers(0, dims[-1]))
    values, indices = ops.TopK(x, k).shape.tuple_shapes
    want = jax.eval_shape(lambda v: lax.top_k(v, k), jax.ShapeDtypeStruct(dims, np.float32))
    assert (values.dims, indices.dims) == (tuple(want[0].shape), tuple(want[1].shape))
    assert indices.element_type.name == "s32"


@FEW
@given(st.integers(1, 3), st.data())
def test_fft(rank_fft, data):
    dims = [data.draw(st.integers(1, 6)) for _ in range(rank_fft + 1)]
    length = dims[-rank_fft:]
    b = XlaBuilder("fft")
    got = ops.Fft(_param(b, 0, dims), "RFFT", length).shape
    want = jax.eval_shape(lambda v: jnp.fft.rfftn(v, axes=tuple(range(-rank_fft, 0))),
                          jax.ShapeDtypeStruct(dims, np.float32))  # fmt: skip
    assert got.dims == tuple(want.shape)
    assert got.element_type.name == "c64"


@pytest.mark.parametrize(
    ("src", "dst"),
    [("f32", "u8"), ("u8", "f32"), ("u32", "s16"), ("s16", "f16"), ("f32", "s32"), ("s8", "u16")],
)
def test_bitcast_convert_type(src, dst):
    src_t, dst_t = xlapy.dtypes.from_name(src), xlapy.dtypes.from_name(dst)
    dims = [3, 4]
    if dst_t.bits > src_t.bits:
        dims = [3, dst_t.bits // src_t.bits]
    b = XlaBuilder("bitcast")
    got = ops.BitcastConvertType(_param(b, 0, dims, src), dst).shape.dims
    want = jax.eval_shape(lambda v: lax.bitcast_convert_type(v, dst_t.numpy),
                          jax.ShapeDtypeStruct(dims, src_t.numpy))  # fmt: skip
    assert got == tuple(want.shape)
