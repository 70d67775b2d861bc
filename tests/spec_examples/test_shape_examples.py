"""OPS.md worked examples of data-movement ops (Broadcast ... Tuple), built with the builder
and checked against the spec's stated results."""

import numpy as np
import pytest
from spec_util import S, assert_equal, run

from xlapy import XlaBuilder, ops
from xlapy.builder.config import GatherDimensionNumbers, ScatterDimensionNumbers

V = np.array(
    [
        [[10, 11, 12], [15, 16, 17]],
        [[20, 21, 22], [25, 26, 27]],
        [[30, 31, 32], [35, 36, 37]],
        [[40, 41, 42], [45, 46, 47]],
    ],
    np.float32,
)
B = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]], np.float32)


def _one(make):
    b = XlaBuilder("example")
    out = make(b)
    return out, b.build()


def test_broadcast_scalar():
    out, module = _one(lambda b: ops.Broadcast(ops.ConstantR0(b, 2.0), [2, 3]))
    assert out.shape == S("f32[2,3]")
    assert_equal(run(module)[0], np.full((2, 3), 2.0, np.float32))


@pytest.mark.parametrize(
    ("value", "dims", "bdims", "want"),
    [
        ([1, 2, 3], [2, 3], [1], [[1, 2, 3], [1, 2, 3]]),
        ([1, 2, 3], [3, 2], [0], [[1, 1], [2, 2], [3, 3]]),
        ([[7, 8]], [3, 2], [0, 1], [[7, 8], [7, 8], [7, 8]]),
    ],
)
def test_broadcast_in_dim(value, dims, bdims, want):
    out, module = _one(
        lambda b: ops.BroadcastInDim(ops.Constant(b, np.array(value, np.float32)), dims, bdims)
    )
    assert out.shape.dims == tuple(dims)
    assert_equal(run(module)[0], np.array(want, np.float32))


@pytest.mark.parametrize(
    ("dims", "shape", "want"),
    [((0, 1, 2), "f32[24]", V.reshape(24)), ((0, 1), "f32[8,3]", V.reshape(8, 3)),
     ((1, 2), "f32[4,6]", V.reshape(4, 6))],
)  # fmt: skip
def test_collapse(dims, shape, want):
    """The v012 example as stated. [Seed issue, not flagged in OPS.md] the seed prints the
    results of Collapse(v, {0,1}) and Collapse(v, {1,2}) swapped: its own rule (the collapsed
    dimensions are replaced, in place, by one of their product size) and XLA's builder give
    f32[8,3] for {0,1} and f32[4,6] for {1,2}; the values are the seed's, re-paired."""
    out, module = _one(lambda b: ops.Collapse(ops.Constant(b, V), dims))
    assert out.shape == S(shape)
    assert_equal(run(module)[0], want)


def test_concat_examples():
    b = XlaBuilder("concat")
    parts = [ops.Constant(b, np.array(p, np.int32)) for p in ([2, 3], [4, 5], [6, 7])]
    first = ops.ConcatInDim(b, parts, 0)
    a = ops.Constant(b, np.array([[1, 2], [3, 4], [5, 6]], np.int32))
    c = ops.Constant(b, np.array([[7, 8]], np.int32))
    second = ops.ConcatInDim([a, c], 0)
    assert (first.shape, second.shape) == (S("s32[6]"), S("s32[4,2]"))
    ops.Tuple(b, [first, second])
    got = run(b.build())
    assert_equal(got[0], [2, 3, 4, 5, 6, 7])
    assert_equal(got[1], [[1, 2], [3, 4], [5, 6], [7, 8]])


def test_constant_literal():
    from xlapy import Literal

    lit = Literal.from_numpy(np.array([[1, 2], [3, 4]], np.int16))
    out, module = _one(lambda b: ops.ConstantLiteral(b, lit))
    assert out.shape == S("s16[2,2]")
    assert_equal(run(module)[0], lit.value)


@pytest.mark.parametrize(
    ("start", "sizes", "want"),
    [([2], [2], [2.0, 3.0]), ([4], [2], [3.0, 4.0]), ([-1], [2], [0.0, 1.0])],
)
def test_dynamic_slice_1d(start, sizes, want):
    a = np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32)
    out, module = _one(
        lambda b: ops.DynamicSlice(ops.Constant(b, a), [ops.ConstantR0(b, s) for s in start], sizes)
    )
    assert out.shape == S("f32[2]")
    assert_equal(run(module)[0], np.array(want, np.float32))


def test_dynamic_slice_2d():
    _out, module = _one(
        lambda b: ops.DynamicSlice(ops.Constant(b, B), [ops.ConstantR0(b, 2), ops.ConstantR0(b, 1)],
                                   [2, 2])
    )  # fmt: skip
    assert_equal(run(module)[0], np.array([[7.0, 8.0], [10.0, 11.0]], np.float32))


@pytest.mark.parametrize(
    ("start", "want"), [([2], [0.0, 1.0, 5.0, 6.0, 4.0]), ([4], [0.0, 1.0, 2.0, 5.0, 6.0])]
)
def test_dynamic_update_slice_1d(start, want):
    a = np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32)
    u = np.array([5.0, 6.0], np.float32)
    out, module = _one(
        lambda b: ops.DynamicUpdateSlice(ops.Constant(b, a), ops.Constant(b, u),
                                         [ops.ConstantR0(b, s) for s in start])
    )  # fmt: skip
    assert out.shape == S("f32[5]")
    assert_equal(run(module)[0], np.array(want, np.float32))


def test_dynamic_update_slice_2d():
    u = np.array([[12.0, 13.0], [14.0, 15.0], [16.0, 17.0]], np.float32)
    _out, module = _one(
        lambda b: ops.DynamicUpdateSlice(ops.Constant(b, B), ops.Constant(b, u),
                                         [ops.ConstantR0(b, 1), ops.ConstantR0(b, 1)])
    )  # fmt: skip
    want = np.array([[0, 1, 2], [3, 12, 13], [6, 14, 15], [9, 16, 17]], np.float32)
    assert_equal(run(module)[0], want)


OPERAND = np.arange(9, dtype=np.int32).reshape(3, 3)


@pytest.mark.parametrize(
    ("indices", "dnums", "sizes", "shape", "want"),
    [
        ([[0, 1], [1, 0]], GatherDimensionNumbers([1, 2], [], [0, 1], 1), [2, 2], "s32[2,2,2]",
         [[[1, 2], [4, 5]], [[3, 4], [6, 7]]]),
        ([[2], [0]], GatherDimensionNumbers([1], [0], [0], 1), [1, 3], "s32[2,3]",
         [[6, 7, 8], [0, 1, 2]]),
    ],
)  # fmt: skip
def test_gather_vectors(indices, dnums, sizes, shape, want):
    out, module = _one(
        lambda b: ops.Gather(ops.Constant(b, OPERAND), ops.Constant(b, np.array(indices, np.int32)),
                             dnums, sizes)
    )  # fmt: skip
    assert out.shape == S(shape)
    assert_equal(run(module)[0], np.array(want, np.int32))


def test_gather_seed_shapes():
    b = XlaBuilder("gather")
    operand = ops.Parameter(b, 0, S("f32[16,11]"), "operand")
    five = ops.Parameter(b, 1, S("s64[5,2]"), "indices")
    grid = ops.Parameter(b, 2, S("s64[4,5,2]"), "grid")
    dnums = GatherDimensionNumbers([1, 2], [], [0, 1], 1)
    assert ops.Gather(operand, five, dnums, [8, 6]).shape == S("f32[5,8,6]")
    dnums = GatherDimensionNumbers([2, 3], [], [0, 1], 2)
    assert ops.Gather(operand, grid, dnums, [8, 6]).shape == S("f32[4,5,8,6]")
    rows = ops.Parameter(b, 3, S("s64[4,5,1]"), "rows")
    dnums = GatherDimensionNumbers([2], [0], [0], 2)
    assert ops.Gather(operand, rows, dnums, [1, 11]).shape == S("f32[4,5,11]")


def test_get_tuple_element_example():
    b = XlaBuilder("gte")
    v = ops.Constant(b, np.arange(10, dtype=np.float32))
    t = ops.Tuple(b, [v, ops.ConstantR0(b, 5)])
    assert t.shape == S("(f32[10], s32[])")
    element_1 = ops.GetTupleElement(t, 1)
    assert element_1.shape == S("s32[]")
    assert int(run(b.build(element_1))[0]) == 5


def test_get_dimension_size():
    out, module = _one(lambda b: ops.GetDimensionSize(ops.Constant(b, B), 1))
    assert out.shape == S("s32[]")
    assert_equal(run(module)[0], np.int32(3))


def test_iota_examples():
    b = XlaBuilder("iota")
    rows = ops.Iota(b, S("s32[4,8]"), 0)
    cols = ops.Iota(b, S("s32[4,8]"), 1)
    ops.Tuple(b, [rows, cols])
    got = run(b.build())
    assert_equal(got[0], np.repeat(np.arange(4, dtype=np.int32)[:, None], 8, axis=1))
    assert_equal(got[1], np.tile(np.arange(8, dtype=np.int32), (4, 1)))
    vec = ops.Iota(XlaBuilder("v"), "f32", 3)
    assert vec.shape == S("f32[3]")


@pytest.mark.parametrize(
    ("value", "config", "want"),
    [
        ([1, 2, 3], [(1, 2, 1)], [0, 1, 0, 2, 0, 3, 0, 0]),
        ([1, 2, 3], [(-1, -1, 1)], [0, 2, 0]),
        ([[1, 2], [3, 4]], [(1, 0, 0), (0, 1, 1)], [[0, 0, 0, 0], [1, 0, 2, 0], [3, 0, 4, 0]]),
    ],
)
def test_pad_vectors(value, config, want):
    out, module = _one(
        lambda b: ops.Pad(ops.Constant(b, np.array(value, np.int32)), ops.ConstantR0(b, 0), config)
    )
    assert out.shape.dims == np.array(want).shape
    assert_equal(run(module)[0], np.array(want, np.int32))


V021 = V.transpose(1, 2, 0)


@pytest.mark.parametrize(
    ("args", "want"),
    [
        (([24],), V.reshape(24)),
        (([8, 3],), V.reshape(8, 3)),
        (([0, 1, 2], [24]), V.reshape(24)),
        (([0, 1, 2], [8, 3]), V.reshape(8, 3)),
        (([1, 2, 0], [24]), V021.reshape(24)),
        (([1, 2, 0], [8, 3]), V021.reshape(8, 3)),
        (([1, 2, 0], [2, 6, 2]), V021.reshape(2, 6, 2)),
    ],
)
def test_reshape_examples(args, want):
    out, module = _one(lambda b: ops.Reshape(ops.Constant(b, V), *args))
    assert out.shape.dims == want.shape
    assert_equal(run(module)[0], want)


def test_reshape_scalar_round_trip_and_explicit_shape():
    b = XlaBuilder("reshape")
    scalar = ops.Reshape(ops.Constant(b, np.array([[5.0]], np.float32)), [])
    back = ops.Reshape(ops.ConstantR0(b, 5.0), [1, 1])
    explicit = ops.Reshape(S("f32[1,1]"), scalar)
    assert (scalar.shape, back.shape, explicit.shape) == (S("f32[]"), S("f32[1,1]"), S("f32[1,1]"))
    ops.Tuple(b, [scalar, back])
    got = run(b.build())
    assert_equal(got[0], np.float32(5))
    assert_equal(got[1], np.array([[5]], np.float32))


@pytest.mark.parametrize(
    ("dims", "want"),
    [
        ([1], [[3, 2, 1], [6, 5, 4]]),
        ([0], [[4, 5, 6], [1, 2, 3]]),
        ([0, 1], [[6, 5, 4], [3, 2, 1]]),
    ],
)
def test_rev(dims, want):
    _out, module = _one(
        lambda b: ops.Rev(ops.Constant(b, np.array([[1, 2, 3], [4, 5, 6]], np.int32)), dims)
    )
    assert_equal(run(module)[0], np.array(want, np.int32))


def _add(dtype="f32"):
    sub = XlaBuilder("add")
    ops.Add(
        ops.Parameter(sub, 0, S(f"{dtype}[]"), "x"), ops.Parameter(sub, 1, S(f"{dtype}[]"), "y")
    )
    return sub.build()


@pytest.mark.parametrize(
    ("operand", "indices", "updates", "dnums", "want"),
    [
        (np.zeros(5, np.float32), [[1], [3], [1]], [10, 20, 30],
         ScatterDimensionNumbers([], [0], [0], 1), [0, 40, 0, 20, 0]),
        (np.zeros((3, 3), np.float32), [[1]], [[1, 2, 3]],
         ScatterDimensionNumbers([1], [0], [0], 1), [[0, 0, 0], [1, 2, 3], [0, 0, 0]]),
    ],
)  # fmt: skip
def test_scatter_vectors(operand, indices, updates, dnums, want):
    out, module = _one(
        lambda b: ops.Scatter(ops.Constant(b, operand), ops.Constant(b, np.array(indices, np.int32)),
                              ops.Constant(b, np.array(updates, np.float32)), _add(), dnums)
    )  # fmt: skip
    assert out.shape == S(f"f32[{','.join(map(str, operand.shape))}]")
    assert_equal(run(module)[0], np.array(want, np.float32))


def test_scatter_seed_shapes_and_variadic_form():
    b = XlaBuilder("scatter")
    operand = ops.Parameter(b, 0, S("s32[2,3,4,2]"), "input")
    indices = ops.Parameter(b, 1, S("s64[2,2,3,2]"), "scatter_indices")
    updates = ops.Parameter(b, 2, S("s32[2,2,3,1,2]"), "updates")
    dnums = ScatterDimensionNumbers([3, 4], [1], [2, 1], 3, [0], [1])
    out = ops.Scatter(operand, indices, updates, _add("s32"), dnums)
    assert out.shape == S("s32[2,3,4,2]")
    pair = ops.Scatter([operand, operand], indices, [updates, updates],
                       lambda a, c, x, y: (a + x, c * y), dnums)  # fmt: skip
    assert pair.shape == S("(s32[2,3,4,2], s32[2,3,4,2])")


@pytest.mark.parametrize(
    ("value", "args", "want"),
    [
        ([0.0, 1.0, 2.0, 3.0, 4.0], ([2], [4]), [2.0, 3.0]),
        (B, ([2, 1], [4, 3]), [[7.0, 8.0], [10.0, 11.0]]),
        ([0, 1, 2, 3, 4, 5, 6], ([1], [6], [2]), [1, 3, 5]),
    ],
)
def test_slice_examples(value, args, want):
    _out, module = _one(lambda b: ops.Slice(ops.Constant(b, np.array(value, np.float32)), *args))
    assert_equal(run(module)[0], np.array(want, np.float32))


def test_slice_and_transpose_seed_004_shapes():
    b = XlaBuilder("shapes")
    x = ops.Parameter(b, 0, S("f32[10,20,50]"), "x")
    assert ops.Slice(x, [5, 3, 0], [10, 20, 50], [1, 7, 2]).shape == S("f32[5,3,25]")
    y = ops.Parameter(b, 1, S("f32[3,12288,6,128]"), "y")
    assert ops.Transpose(y, [0, 2, 3, 1]).shape == S("f32[3,6,128,12288]")


def test_transpose_vector():
    out, module = _one(
        lambda b: ops.Transpose(ops.Constant(b, np.array([[1, 2, 3], [4, 5, 6]], np.int32)), [1, 0])
    )
    assert out.shape == S("s32[3,2]")
    assert_equal(run(module)[0], np.array([[1, 4], [2, 5], [3, 6]], np.int32))


def test_tuple_example():
    b = XlaBuilder("tuple")
    t = ops.Tuple(b, [ops.Constant(b, np.arange(10, dtype=np.float32)), ops.ConstantR0(b, 5)])
    assert t.shape == S("(f32[10], s32[])")
    got = run(b.build())
    assert_equal(got[0], np.arange(10, dtype=np.float32))
    assert_equal(got[1], np.int32(5))


def test_set_dimension_size_keeps_the_bound_and_limits_reductions():
    b = XlaBuilder("dynamic")
    v = ops.Constant(b, np.arange(1, 11, dtype=np.float32))
    five = ops.SetDimensionSize(v, ops.ConstantR0(b, 5), 0)
    six = ops.SetDimensionSize(v, ops.ConstantR0(b, 6), 0)
    assert five.shape.dims == (10,)
    assert five.shape.dynamic == (True,)
    mul = XlaBuilder("mul")
    ops.Mul(ops.Parameter(mul, 0, S("f32[]"), "x"), ops.Parameter(mul, 1, S("f32[]"), "y"))
    zero, one = ops.ConstantR0(b, 0.0), ops.ConstantR0(b, 1.0)
    ops.Tuple(b, [ops.Reduce(five, zero, _add(), [0]), ops.Reduce(five, one, mul.build(), [0]),
                  ops.Reduce(six, zero, _add(), [0])])  # fmt: skip
    got = run(b.build())
    assert [float(g) for g in got] == [15.0, 120.0, 21.0]
