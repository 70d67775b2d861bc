"""OPS.md worked examples of contractions, convolutions, FFT, linear algebra, batch norm and
the computation-taking ops (Map, Reduce, ReduceWindow, SelectAndScatter, Sort, TopK, Scan)."""

import numpy as np
import pytest
from spec_util import S, assert_close, assert_equal, run

from xlapy import XlaBuilder, ops
from xlapy.builder.config import DotDimensionNumbers, Padding, RaggedDotDimensionNumbers


def _comp(name, fn, *dtypes):
    sub = XlaBuilder(name)
    fn(*[ops.Parameter(sub, i, S(f"{d}[]"), f"p{i}") for i, d in enumerate(dtypes)])
    return sub.build()


ADD_F32 = _comp("add", ops.Add, "f32", "f32")
ADD_S32 = _comp("add", ops.Add, "s32", "s32")
MAX_F32 = _comp("max", ops.Max, "f32", "f32")
MIN_F32 = _comp("min", ops.Min, "f32", "f32")


def _c(b, value, dtype=np.float32):
    return ops.Constant(b, np.asarray(value, dtype))


# ---- Dot / DotGeneral --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lhs", "rhs", "want"),
    [
        ([1, 2, 3], [4, 5, 6], 32),
        ([[1, 2], [3, 4]], [5, 6], [17, 39]),
        ([[1, 2], [3, 4]], [[5, 6], [7, 8]], [[19, 22], [43, 50]]),
    ],
)
def test_dot_examples(lhs, rhs, want):
    b = XlaBuilder("dot")
    out = ops.Dot(_c(b, lhs), _c(b, rhs))
    assert out.shape.dims == np.shape(want)
    assert_equal(run(b.build())[0], np.array(want, np.float32))


def test_dot_general_contracting_example():
    b = XlaBuilder("dot")
    lhs = _c(b, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    rhs = _c(b, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    ops.DotGeneral(lhs, rhs, DotDimensionNumbers([1], [1]))
    assert_equal(run(b.build())[0], np.array([[6.0, 12.0], [15.0, 30.0]], np.float32))


def test_dot_general_batch_example():
    b = XlaBuilder("dot")
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], np.float32)
    eye = np.array([np.eye(2), np.eye(2)], np.float32)
    out = ops.DotGeneral(_c(b, lhs), _c(b, eye), DotDimensionNumbers([2], [1], [0], [0]))
    assert out.shape == S("f32[2,2,2]")
    assert_equal(run(b.build())[0], lhs)


def test_dot_general_table_shapes_and_preferred_type():
    b = XlaBuilder("dot")
    x = ops.Parameter(b, 0, S("f32[3,4,5]"), "x")
    y = ops.Parameter(b, 1, S("f32[3,5,6]"), "y")
    assert ops.DotGeneral(x, y, DotDimensionNumbers([2], [1], [0], [0])).shape == S("f32[3,4,6]")
    x4 = ops.Parameter(b, 2, S("f32[2,3,4,5]"), "x4")
    y4 = ops.Parameter(b, 3, S("f32[2,3,5,6]"), "y4")
    dn = DotDimensionNumbers([3], [2], [0, 1], [0, 1])
    assert ops.DotGeneral(x4, y4, dn).shape == S("f32[2,3,4,6]")
    i8 = ops.Parameter(b, 4, S("s8[2,3]"), "i8")
    assert ops.Dot(i8, ops.Transpose(i8, [1, 0]), None, "s32").shape == S("s32[2,2]")


def test_ragged_dot_common_mode():
    b = XlaBuilder("ragged")
    lhs = np.arange(8, dtype=np.float32).reshape(4, 2)
    rhs = np.stack([np.eye(2), 2 * np.eye(2)]).astype(np.float32)
    dn = RaggedDotDimensionNumbers(DotDimensionNumbers([1], [1]), [0], [0])
    out = ops.RaggedDot(_c(b, lhs), _c(b, rhs), _c(b, [1, 3], np.int32), dn)
    assert out.shape == S("f32[4,2]")
    want = np.concatenate([lhs[:1], 2 * lhs[1:]])
    assert_equal(run(b.build())[0], want)


def test_scaled_dot_shape():
    b = XlaBuilder("scaled")
    lhs = ops.Parameter(b, 0, S("f32[4,32]"), "lhs")
    lhs_scale = ops.Parameter(b, 1, S("f32[4,1]"), "lhs_scale")
    rhs = ops.Parameter(b, 2, S("f32[32,8]"), "rhs")
    rhs_scale = ops.Parameter(b, 3, S("f32[1,8]"), "rhs_scale")
    out = ops.ScaledDot(lhs, lhs_scale, rhs, rhs_scale, DotDimensionNumbers([1], [0]))
    assert out.shape == S("f32[4,8]")


# ---- convolution -------------------------------------------------------------------------

LHS_1D = np.array([[[1, 2, 3, 4, 5]]], np.float32)
RHS_1D = np.array([[[1, 1]]], np.float32)


@pytest.mark.parametrize(
    ("kwargs", "want"),
    [
        ({"window_strides": [1], "padding": [(0, 0)]}, [3, 5, 7, 9]),
        ({"window_strides": [2], "padding": [(0, 0)]}, [3, 7]),
        ({"window_strides": [1], "padding": [(1, 1)]}, [1, 3, 5, 7, 9, 5]),
        (
            {"window_strides": [1], "padding": [(0, 0)], "lhs_dilation": [2]},
            [1, 2, 2, 3, 3, 4, 4, 5],
        ),
        ({"window_strides": [1], "padding": [(0, 0)], "rhs_dilation": [2]}, [4, 6, 8]),
        ({"window_strides": [1], "padding": [(-1, 0)]}, [5, 7, 9]),
    ],
)
def test_conv_1d_vectors(kwargs, want):
    b = XlaBuilder("conv")
    out = ops.ConvGeneralDilated(_c(b, LHS_1D), _c(b, RHS_1D), **kwargs)
    assert out.shape == S(f"f32[1,1,{len(want)}]")
    assert_equal(run(b.build())[0], np.array([[want]], np.float32))


def test_conv_family_shapes():
    b = XlaBuilder("conv")
    lhs = ops.Parameter(b, 0, S("f32[1,2,5,5]"), "lhs")
    rhs = ops.Parameter(b, 1, S("f32[3,2,3,3]"), "rhs")
    assert ops.Conv(lhs, rhs, [1, 1], Padding.SAME).shape == S("f32[1,3,5,5]")
    assert ops.Conv(lhs, rhs, [2, 2], "valid").shape == S("f32[1,3,2,2]")
    assert ops.ConvWithGeneralPadding(lhs, rhs, [1, 1], [(1, 1), (0, 0)]).shape == S("f32[1,3,5,3]")
    nhwc = ops.Parameter(b, 2, S("f32[1,5,5,2]"), "nhwc")
    hwio = ops.Parameter(b, 3, S("f32[3,3,2,4]"), "hwio")
    labels = "b01f_01io->b01f"
    assert ops.ConvWithGeneralDimensions(nhwc, hwio, [1, 1], Padding.kSame, labels).shape == S(
        "f32[1,5,5,4]"
    )
    assert ops.ConvGeneral(nhwc, hwio, [1, 1], [(0, 0), (0, 0)], labels).shape == S("f32[1,3,3,4]")
    grouped = ops.Parameter(b, 4, S("f32[4,1,3,3]"), "grouped")
    assert ops.Conv(lhs, grouped, [1, 1], "same", feature_group_count=2).shape == S("f32[1,4,5,5]")


def test_conv_same_padding_with_stride():
    b = XlaBuilder("conv")
    x = _c(b, np.arange(1, 6, dtype=np.float32).reshape(1, 1, 5))
    ops.Conv(x, _c(b, np.ones((1, 1, 3), np.float32)), [2], "same")
    assert_equal(run(b.build())[0], np.array([[[3, 9, 9]]], np.float32))


# ---- fft and linear algebra --------------------------------------------------------------


@pytest.mark.parametrize(
    ("fft_type", "value", "dtype", "length", "want"),
    [
        ("FFT", [1, 2, 3, 4], np.complex64, [4], [10, -2 + 2j, -2, -2 - 2j]),
        ("RFFT", [1, 2, 3, 4], np.float32, [4], [10, -2 + 2j, -2]),
        ("IRFFT", [10, -2 + 2j, -2], np.complex64, [4], [1, 2, 3, 4]),
        ("IFFT", [10, -2 + 2j, -2, -2 - 2j], np.complex64, [4], [1, 2, 3, 4]),
    ],
)
def test_fft_vectors(fft_type, value, dtype, length, want):
    b = XlaBuilder("fft")
    out = ops.Fft(_c(b, value, dtype), fft_type, length)
    assert out.shape.dims == (len(want),)
    assert_close(run(b.build())[0], np.array(want), atol=1e-5)


def test_cholesky_example():
    b = XlaBuilder("cholesky")
    a = _c(b, [[4, 12, -16], [12, 37, -43], [-16, -43, 98]], np.float64)
    ops.Cholesky(a, lower=True)
    got = np.tril(run(b.build())[0])
    assert_close(got, [[2, 0, 0], [6, 1, 0], [-8, 5, 3]], atol=1e-12)


@pytest.mark.parametrize(("unit_diagonal", "want"), [(False, [[1], [2]]), (True, [[2], [1]])])
def test_triangular_solve_vectors(unit_diagonal, want):
    b = XlaBuilder("solve")
    a = _c(b, [[2, 0], [1, 1]], np.float64)
    rhs = _c(b, [[2], [3]], np.float64)
    out = ops.TriangularSolve(a, rhs, True, True, unit_diagonal, "NO_TRANSPOSE")
    assert out.shape == S("f64[2,1]")
    assert_close(run(b.build())[0], want, atol=1e-12)


def test_batch_norm_training_example():
    b = XlaBuilder("bn")
    out = ops.BatchNormTraining(_c(b, [[1, 2], [3, 4]]), _c(b, [1, 1]), _c(b, [0, 0]), 0.0, 1)
    assert out.shape == S("(f32[2,2], f32[2], f32[2])")
    got = run(b.build())
    assert_close(got[0], [[-1, -1], [1, 1]])
    assert_close(got[1], [2, 3])
    assert_close(got[2], [1, 1])


def test_batch_norm_inference_and_grad_follow_the_formulas():
    x = np.array([[1.0, 2.0], [3.0, 5.0]], np.float64)
    mean, var, scale, offset, eps = (
        x.mean(0),
        x.var(0),
        np.array([2.0, 3.0]),
        np.array([1.0, -1.0]),
        0.5,
    )
    b = XlaBuilder("bn")
    out = ops.BatchNormInference(_c(b, x, np.float64), _c(b, scale, np.float64),
                                 _c(b, offset, np.float64), _c(b, mean, np.float64),
                                 _c(b, var, np.float64), eps, 1)  # fmt: skip
    assert out.shape == S("f64[2,2]")
    assert_close(run(b.build())[0], scale * (x - mean) / np.sqrt(var + eps) + offset, atol=1e-12)
    dy = np.array([[0.5, -1.0], [2.0, 1.5]])
    b = XlaBuilder("bn_grad")
    out = ops.BatchNormGrad(_c(b, x, np.float64), _c(b, scale, np.float64), _c(b, mean, np.float64),
                            _c(b, var, np.float64), _c(b, dy, np.float64), eps, 1)  # fmt: skip
    assert out.shape == S("(f64[2,2], f64[2], f64[2])")
    c = (dy * (x - mean) / (var + eps)).mean(0)
    d = dy.mean(0)
    dx = scale / np.sqrt(var + eps) * (dy - d - c * (x - mean))
    got = run(b.build())
    assert_close(got[0], dx, atol=1e-12)
    assert_close(got[1], (dy * (x - mean) / np.sqrt(var + eps)).sum(0), atol=1e-12)
    assert_close(got[2], dy.sum(0), atol=1e-12)


# ---- Map, Reduce, ReduceWindow, SelectAndScatter -----------------------------------------


def test_map_example():
    b = XlaBuilder("map")
    three = _comp("f", lambda x, y, z: ops.Add(ops.Mul(x, y), z), "s32", "s32", "s32")
    args = [_c(b, [1, 2], np.int32), _c(b, [3, 4], np.int32), _c(b, [5, 6], np.int32)]
    out = ops.Map(b, args, three, [0])
    assert out.shape == S("s32[2]")
    assert_equal(run(b.build())[0], np.array([8, 14], np.int32))


@pytest.mark.parametrize(("dims", "want"), [([0], [5, 7, 9]), ([1], [6, 15])])
def test_reduce_2d(dims, want):
    b = XlaBuilder("reduce")
    out = ops.Reduce(_c(b, [[1, 2, 3], [4, 5, 6]], np.int32), ops.ConstantR0(b, 0), ADD_S32, dims)
    assert out.shape.dims == (len(want),)
    assert_equal(run(b.build())[0], np.array(want, np.int32))


@pytest.mark.parametrize(
    ("dims", "want"),
    [
        ([0], [[4, 8, 12], [16, 20, 24]]),
        ([2], [[6, 15]] * 4),
        ([0, 1], [20, 28, 36]),
        ([0, 1, 2], 84),
    ],
)
def test_reduce_3d(dims, want):
    b = XlaBuilder("reduce")
    value = np.tile(np.array([[1, 2, 3], [4, 5, 6]], np.int32), (4, 1, 1))
    out = ops.Reduce(b, [_c(b, value, np.int32)], [ops.ConstantR0(b, 0)], ADD_S32, dims)
    assert out.shape.dims == np.shape(want)
    assert_equal(run(b.build())[0], np.array(want, np.int32))


@pytest.mark.parametrize(("values", "want"), [([1, 5, 3], (5, 1)), ([2, 7, 7], (7, 2))])
def test_variadic_reduce_argmax(values, want):
    sub = XlaBuilder("argmax")
    m, i = ops.Parameter(sub, 0, S("f32[]"), "max"), ops.Parameter(sub, 1, S("s32[]"), "argmax")
    v, k = ops.Parameter(sub, 2, S("f32[]"), "value"), ops.Parameter(sub, 3, S("s32[]"), "index")
    take = ops.Ge(v, m)
    ops.Tuple(sub, [ops.Select(take, v, m), ops.Select(take, k, i)])
    b = XlaBuilder("reduce")
    out = ops.Reduce(b, [_c(b, values), ops.Iota(b, S("s32[3]"), 0)],
                     [ops.ConstantR0(b, -np.inf), ops.ConstantR0(b, 0)], sub, [0])  # fmt: skip
    assert out.shape == S("(f32[], s32[])")
    got = run(b.build())
    assert (float(got[0]), int(got[1])) == want


def test_reduce_window_example_1():
    b = XlaBuilder("reduce_window_2x3")
    x = ops.Parameter(b, 0, S("f32[4,6]"), "input")
    out = ops.ReduceWindow(x, ops.MinValue(b, "f32"), MAX_F32, [2, 3], [2, 3], Padding.kValid)
    assert out.shape == S("f32[2,2]")
    got = run(b.build(), np.arange(1, 25, dtype=np.float32).reshape(4, 6))
    assert_equal(got[0], np.array([[9, 12], [21, 24]], np.float32))


@pytest.mark.parametrize(
    ("padding", "want"), [(Padding.kValid, [100, 1]), (Padding.kSame, [1000, 10, 1])]
)
def test_reduce_window_padding_example(padding, want):
    b = XlaBuilder("rw")
    x = _c(b, [10000, 1000, 100, 10, 1])
    out = ops.ReduceWindow(x, ops.MaxFiniteValue(b, "f32"), MIN_F32, [3], [2], padding)
    assert out.shape.dims == (len(want),)
    assert_equal(run(b.build())[0], np.array(want, np.float32))


def test_reduce_window_example_2_with_dilations():
    b = XlaBuilder("rw")
    x = _c(b, [[1, 2], [3, 4], [5, 6]], np.int32)
    out = ops.ReduceWindowWithGeneralPadding(x, ops.ConstantR0(b, 0), ADD_S32, [2, 1], [4, 1],
                                             [2, 1], [3, 1], [(2, 1), (0, 0)])  # fmt: skip
    assert out.shape == S("s32[2,2]")
    assert_equal(run(b.build())[0], np.array([[0, 0], [3, 4]], np.int32))


@pytest.mark.parametrize(
    ("operand", "window", "stride", "source", "want"),
    [
        ([1, 9, 3, 4, 2, 8], 2, 2, [10, 20, 30], [0, 10, 0, 20, 0, 30]),
        ([1, 9, 3], 2, 1, [2, 6], [0, 8, 0]),
    ],
)
def test_select_and_scatter_vectors(operand, window, stride, source, want):
    b = XlaBuilder("sas")
    ge = _comp("ge", ops.Ge, "f32", "f32")
    out = ops.SelectAndScatter(_c(b, operand), ge, [window], [stride], Padding.kValid, _c(b, source),
                               ops.ConstantR0(b, 0.0), ADD_F32)  # fmt: skip
    assert out.shape.dims == (len(operand),)
    assert_equal(run(b.build())[0], np.array(want, np.float32))


# ---- Sort, TopK, Scan --------------------------------------------------------------------


def test_sort_three_operands_on_the_first():
    b = XlaBuilder("sort")
    cmp = _comp("lt", lambda a, c, *_: ops.Lt(a, c), "s32", "s32", "s32", "s32", "f32", "f32")
    out = ops.Sort([_c(b, [3, 1], np.int32), _c(b, [42, 50], np.int32), _c(b, [-3.0, 1.1])], cmp)
    assert out.shape == S("(s32[2], s32[2], f32[2])")
    got = run(b.build())
    assert_equal(got[0], np.array([1, 3], np.int32))
    assert_equal(got[1], np.array([50, 42], np.int32))
    assert_equal(got[2], np.array([1.1, -3.0], np.float32))


@pytest.mark.parametrize(("dimension", "want"), [(0, [[2, 1], [3, 4]]), (1, [[1, 3], [2, 4]])])
def test_sort_along_a_dimension(dimension, want):
    b = XlaBuilder("sort")
    ops.Sort(_c(b, [[3, 1], [2, 4]], np.int32), lambda x, y: ops.Lt(x, y), dimension)
    assert_equal(run(b.build())[0], np.array(want, np.int32))


def test_stable_sort_and_default_comparator():
    b = XlaBuilder("sort")
    out = ops.Sort([_c(b, [2, 1, 2, 1], np.int32), _c(b, [10, 20, 30, 40], np.int32)],
                   dimension=0, is_stable=True)  # fmt: skip
    got = run(b.build(out))
    assert_equal(got[0], np.array([1, 1, 2, 2], np.int32))
    assert_equal(got[1], np.array([20, 40, 10, 30], np.int32))


@pytest.mark.parametrize(
    ("largest", "values", "indices"), [(True, [3, 3], [1, 3]), (False, [1, 2], [0, 2])]
)
def test_topk_vectors(largest, values, indices):
    b = XlaBuilder("topk")
    out = ops.TopK(_c(b, [1, 3, 2, 3]), 2, largest)
    assert out.shape == S("(f32[2], s32[2])")
    got = run(b.build())
    assert_equal(got[0], np.array(values, np.float32))
    assert_equal(got[1], np.array(indices, np.int32))


@pytest.mark.parametrize(("reverse", "want"), [(False, [1, 3, 6]), (True, [6, 5, 3])])
def test_scan_cumulative_sum(reverse, want):
    b = XlaBuilder("scan")

    def step(x, c):
        s = ops.Add(x, c)
        return s, s

    out = ops.Scan([_c(b, [1, 2, 3], np.int32)], [ops.ConstantR0(b, 0)], step, 0, reverse)
    assert out.shape == S("(s32[3], s32[])")
    got = run(b.build())
    assert_equal(got[0], np.array(want, np.int32))
    assert_equal(got[1], np.int32(6))
