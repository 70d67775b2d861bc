"""Batch normalisation: batch-norm-training, batch-norm-inference and batch-norm-grad.

Spec: OPS.md BatchNormTraining, BatchNormInference, BatchNormGrad. Moments run over every
dimension except ``feature_index``; everything is computed in float64 and rounded once to
the element type. ``epsilon`` is an f32 attribute, used at its f32 value.
"""

from __future__ import annotations

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, evaluates
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value


def _setup(
    op: str, instr: HloInstruction, operand: Array, vectors: list[Array]
) -> tuple[int, tuple[int, ...], list[int], float]:
    """Checks the feature index and 1-D operands; returns (feature, reduce axes, shape of a
    per-feature vector broadcast against the operand, epsilon)."""
    feature = int(instr.attrs.feature_index)
    if not 0 <= feature < operand.ndim:
        raise InvalidArgument(
            f"{op} {instr.name}: feature_index must be in [0, {operand.ndim}); got {feature}"
        )
    size = operand.shape[feature]
    for i, v in enumerate(vectors, start=1):
        if v.shape != (size,):
            raise InvalidArgument(
                f"{op} {instr.name}: operand {i} must be 1-D with the feature size {size}; "
                f"got {list(v.shape)}"
            )
    axes = tuple(d for d in range(operand.ndim) if d != feature)
    shape = [1] * operand.ndim
    shape[feature] = size
    epsilon = float(np.float32(instr.attrs.epsilon))
    return feature, axes, shape, epsilon


def _wide(x: Array) -> Array:
    return np.asarray(x).astype(np.float64)


@evaluates(Opcode.BATCH_NORM_TRAINING)
def batch_norm_training(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``(y, μ, σ²)`` with ``μ = mean(x)``, ``σ² = mean((x - μ)²)`` (biased) and
    ``y = γ (x - μ) / sqrt(σ² + ε) + β`` per feature."""
    operand, scale, offset = (np.asarray(v) for v in operands)
    feature, axes, shape, eps = _setup("batch-norm-training", instr, operand, [scale, offset])
    dtype = operand.dtype
    x = _wide(operand)
    with np.errstate(invalid="ignore", divide="ignore"):
        count = x.size // max(operand.shape[feature], 1)
        mean = x.sum(axis=axes) / count
        centered = x - mean.reshape(shape)
        var = (centered * centered).sum(axis=axes) / count
        y = _wide(scale).reshape(shape) * centered / np.sqrt(var.reshape(shape) + eps)
        y = y + _wide(offset).reshape(shape)
    return (y.astype(dtype), mean.astype(dtype), var.astype(dtype))


@evaluates(Opcode.BATCH_NORM_INFERENCE)
def batch_norm_inference(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``y = γ (x - mean) / sqrt(variance + ε) + β`` per feature."""
    operand, scale, offset, mean, variance = (np.asarray(v) for v in operands)
    _, _, shape, eps = _setup(
        "batch-norm-inference", instr, operand, [scale, offset, mean, variance]
    )
    x = _wide(operand)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = _wide(scale).reshape(shape) * (x - _wide(mean).reshape(shape)) / np.sqrt(
            _wide(variance).reshape(shape) + eps
        ) + _wide(offset).reshape(shape)
    return np.asarray(y).astype(operand.dtype)


@evaluates(Opcode.BATCH_NORM_GRAD)
def batch_norm_grad(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``(∇x, ∇γ, ∇β)`` per OPS.md BatchNormGrad:

    ``c = mean(∇y (x - μ)) / (σ² + ε)``, ``d = mean(∇y)``,
    ``∇x = γ / sqrt(σ² + ε) (∇y - d - c (x - μ))``,
    ``∇γ = sum(∇y (x - μ)) / sqrt(σ² + ε)``, ``∇β = sum(∇y)``.
    """
    operand, scale, mean, variance, grad_output = (np.asarray(v) for v in operands)
    _, axes, shape, eps = _setup("batch-norm-grad", instr, operand, [scale, mean, variance])
    if grad_output.shape != operand.shape:
        raise InvalidArgument(
            f"batch-norm-grad {instr.name}: grad_output must have the operand's shape "
            f"{list(operand.shape)}; got {list(grad_output.shape)}"
        )
    dtype = operand.dtype
    x, dy = _wide(operand), _wide(grad_output)
    count = x.size // max(operand.shape[int(instr.attrs.feature_index)], 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        centered = x - _wide(mean).reshape(shape)
        var_eps = _wide(variance) + eps
        sum_dy = dy.sum(axis=axes)
        sum_dy_centered = (dy * centered).sum(axis=axes)
        c = (sum_dy_centered / count) / var_eps
        d = sum_dy / count
        grad_operand = (_wide(scale) / np.sqrt(var_eps)).reshape(shape) * (
            dy - d.reshape(shape) - c.reshape(shape) * centered
        )
        grad_scale = sum_dy_centered / np.sqrt(var_eps)
    return (grad_operand.astype(dtype), grad_scale.astype(dtype), sum_dy.astype(dtype))
