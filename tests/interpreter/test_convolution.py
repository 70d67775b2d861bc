"""convolution and dynamic-conv: OPS.md 1-D test vectors, dim_labels, dilation, padding,
reversal, groups, integer wrap-around, XLA through jax."""

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.ir.attrs import ConvolutionDimensionNumbers, Window
from xlapy.shape import Shape


def param(shape, number):
    return HloInstruction(Opcode.PARAMETER, shape, attrs={"parameter_number": number})


def evaluate(opcode, shape, values, attrs, *, flush_denormals=False):
    """Evaluates one instruction whose operands are ``values``."""
    values = [np.asarray(v) for v in values]
    operands = [
        param(Shape.array(dtypes.from_numpy(v.dtype), v.shape), i) for i, v in enumerate(values)
    ]
    instr = HloInstruction(opcode, shape, operands, attrs)
    options = EvalOptions(flush_denormals=flush_denormals)
    return Evaluator(HloModule("m"), options).evaluate(instr, values)


def conv(lhs, rhs, out_dims, window, labels="bf0_oi0->bf0", element_type=dtypes.F32, fgc=1, bgc=1):
    return evaluate(
        Opcode.CONVOLUTION,
        Shape.array(element_type, out_dims),
        [lhs, rhs],
        {
            "window": window,
            "dim_labels": ConvolutionDimensionNumbers.from_labels(labels),
            "feature_group_count": fgc,
            "batch_group_count": bgc,
        },
    )


LHS_1D = np.array([[[1, 2, 3, 4, 5]]], np.float32)
RHS_1D = np.array([[[1, 1]]], np.float32)


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (Window.make([2]), [3, 5, 7, 9]),
        (Window.make([2], stride=[2]), [3, 7]),
        (Window.make([2], padding=[(1, 1)]), [1, 3, 5, 7, 9, 5]),
        (Window.make([2], base_dilation=[2]), [1, 2, 2, 3, 3, 4, 4, 5]),
        (Window.make([2], window_dilation=[2]), [4, 6, 8]),
        (Window.make([2], padding=[(-1, 0)]), [5, 7, 9]),
    ],
)
def test_conv_spec_1d_vectors(window, expected):
    got = conv(LHS_1D, RHS_1D, [1, 1, len(expected)], window)
    np.testing.assert_array_equal(got[0, 0], expected)


def test_window_reversal_flips_the_kernel():
    rhs = np.array([[[1, 10]]], np.float32)
    got = conv(LHS_1D, rhs, [1, 1, 4], Window.make([2], window_reversal=[True]))
    np.testing.assert_array_equal(got[0, 0], [12, 23, 34, 45])


def test_spec_2d_pseudo_code():
    rng = np.random.default_rng(0)
    lhs = rng.integers(-5, 5, (2, 3, 6, 5)).astype(np.float32)
    rhs = rng.integers(-5, 5, (4, 3, 3, 2)).astype(np.float32)
    stride, pad = (2, 1), (1, 0)
    got = conv(
        lhs, rhs, [2, 4, 3, 4], Window.make([3, 2], stride, [(1, 1), (0, 0)]), "bf01_oi01->bf01"
    )
    expected = np.zeros((2, 4, 3, 4), np.float32)
    for b, oz, oy, ox in np.ndindex(*expected.shape):
        for iz, ky, kx in np.ndindex(3, 3, 2):
            iy, ix = oy * stride[0] + ky - pad[0], ox * stride[1] + kx - pad[1]
            if 0 <= iy < 6 and 0 <= ix < 5:
                expected[b, oz, oy, ox] += lhs[b, iz, iy, ix] * rhs[oz, iz, ky, kx]
    np.testing.assert_array_equal(got, expected)


def test_integer_convolution_wraps():
    lhs = np.full((1, 1, 4), 100, np.int8)
    rhs = np.full((1, 1, 3), 2, np.int8)
    got = conv(lhs, rhs, [1, 1, 2], Window.make([3]), element_type=dtypes.S8)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got[0, 0], [(600 + 128) % 256 - 128] * 2)


@pytest.mark.parametrize(
    ("lhs_shape", "rhs_shape", "labels", "strides", "padding", "lhs_dil", "rhs_dil", "fgc", "bgc"),
    [
        (
            (2, 3, 9, 10),
            (4, 3, 3, 2),
            ("NCHW", "OIHW", "NCHW"),
            (1, 1),
            ((0, 0), (0, 0)),
            (1, 1),
            (1, 1),
            1,
            1,
        ),
        (
            (2, 9, 10, 3),
            (3, 3, 3, 4),
            ("NHWC", "HWIO", "NHWC"),
            (2, 1),
            ((1, 2), (-1, 1)),
            (2, 1),
            (1, 3),
            1,
            1,
        ),
        (
            (2, 6, 9, 10),
            (4, 3, 3, 2),
            ("NCHW", "OIHW", "NHWC"),
            (1, 2),
            ((2, 0), (0, 1)),
            (1, 2),
            (2, 1),
            2,
            1,
        ),
        (
            (4, 3, 9, 10),
            (6, 3, 3, 2),
            ("NCHW", "OIHW", "NCHW"),
            (1, 1),
            ((0, 0), (1, 1)),
            (1, 1),
            (1, 1),
            1,
            2,
        ),
        (
            (4, 9, 10, 3),
            (3, 2, 3, 6),
            ("NHWC", "HWIO", "CNWH"),
            (1, 1),
            ((0, 0), (1, 1)),
            (1, 1),
            (1, 1),
            1,
            2,
        ),
        (
            (1, 4, 7, 5),
            (4, 1, 3, 3),
            ("NCHW", "OIHW", "NCHW"),
            (1, 1),
            ((1, 1), (1, 1)),
            (1, 1),
            (1, 1),
            4,
            1,
        ),
    ],
)
def test_conv_general_dilated_matches_jax(
    lhs_shape, rhs_shape, labels, strides, padding, lhs_dil, rhs_dil, fgc, bgc
):
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(1)
    lhs = rng.standard_normal(lhs_shape).astype(np.float32)
    rhs = rng.standard_normal(rhs_shape).astype(np.float32)
    numbers = jax.lax.conv_dimension_numbers(lhs_shape, rhs_shape, labels)
    expected = np.asarray(
        jax.lax.conv_general_dilated(
            lhs,
            rhs,
            strides,
            padding,
            lhs_dil,
            rhs_dil,
            numbers,
            fgc,
            bgc,
            precision=jax.lax.Precision.HIGHEST,
        )
    )
    table = str.maketrans("NCHWIO", "bf01io")
    text = "{}_{}->{}".format(*(label.translate(table) for label in labels))
    dnums = ConvolutionDimensionNumbers.from_labels(text)
    kernel = [rhs_shape[d] for d in dnums.kernel_spatial_dimensions]
    window = Window.make(kernel, strides, padding, lhs_dil, rhs_dil)
    got = conv(lhs, rhs, expected.shape, window, text, fgc=fgc, bgc=bgc)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_dynamic_conv_takes_padding_from_operand():
    got = evaluate(
        Opcode.DYNAMIC_CONV,
        Shape.array(dtypes.F32, [1, 1, 6]),
        [LHS_1D, RHS_1D, np.array([[1, 1]], np.int64)],
        {
            "window": Window.make([2]),
            "dim_labels": ConvolutionDimensionNumbers.from_labels("bf0_oi0->bf0"),
        },
    )
    np.testing.assert_array_equal(got[0, 0], [1, 3, 5, 7, 9, 5])
