"""batch-norm-training/inference/grad: OPS.md formulas and example, against numpy and jax."""

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
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


def test_batch_norm_training_spec_example():
    x = np.array([[1, 2], [3, 4]], np.float32)
    shape = Shape.tuple_of(
        [
            Shape.array(dtypes.F32, [2, 2]),
            Shape.array(dtypes.F32, [2]),
            Shape.array(dtypes.F32, [2]),
        ]
    )
    y, mean, var = evaluate(
        Opcode.BATCH_NORM_TRAINING,
        shape,
        [x, np.ones(2, np.float32), np.zeros(2, np.float32)],
        {"epsilon": 0.0, "feature_index": 1},
    )
    np.testing.assert_array_equal(mean, [2, 3])
    np.testing.assert_array_equal(var, [1, 1])
    np.testing.assert_array_equal(y, [[-1, -1], [1, 1]])


def test_batch_norm_inference_formula():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    scale, offset, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    var = rng.random(3).astype(np.float32)
    got = evaluate(
        Opcode.BATCH_NORM_INFERENCE,
        Shape.array(dtypes.F32, x.shape),
        [x, scale, offset, mean, var],
        {"epsilon": 1e-3, "feature_index": 1},
    )
    f = lambda v: v.astype(np.float64)[None, :, None]  # noqa: E731
    expected = f(scale) * (x - f(mean)) / np.sqrt(f(var) + np.float32(1e-3)) + f(offset)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_batch_norm_grad_matches_jax_autodiff():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    scale = rng.standard_normal(3).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    eps = np.float32(1e-2)

    def normalize(x, scale, offset):
        mean = x.mean(axis=(0, 2), keepdims=True)
        var = ((x - mean) ** 2).mean(axis=(0, 2), keepdims=True)
        return scale[None, :, None] * (x - mean) / jnp.sqrt(var + eps) + offset[None, :, None]

    _, vjp = jax.vjp(normalize, x, scale, np.zeros(3, np.float32))
    dx, dscale, doffset = vjp(dy)
    mean = x.astype(np.float64).mean(axis=(0, 2)).astype(np.float32)
    var = x.astype(np.float64).var(axis=(0, 2)).astype(np.float32)
    shapes = [
        Shape.array(dtypes.F32, x.shape),
        Shape.array(dtypes.F32, [3]),
        Shape.array(dtypes.F32, [3]),
    ]
    got = evaluate(
        Opcode.BATCH_NORM_GRAD,
        Shape.tuple_of(shapes),
        [x, scale, mean, var, dy],
        {"epsilon": float(eps), "feature_index": 1},
    )
    np.testing.assert_allclose(got[0], dx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], dscale, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], doffset, rtol=1e-5, atol=1e-5)
