"""Helpers for the elementwise eval tests: run one instruction on numpy operands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.literal import shape_of
from xlapy.shape import Shape

_MODULE = HloModule("elementwise_test")


def run_op(
    opcode: Opcode,
    operands: Sequence[Any],
    result_type: str | dtypes.ElementType,
    attrs: Mapping[str, Any] | None = None,
    dims: Sequence[int] | None = None,
    flush_denormals: bool = False,
) -> Any:
    """Evaluates ``opcode`` on ``operands`` (numpy arrays) with the given result type."""
    arrays = [np.asarray(a) if not isinstance(a, tuple) else a for a in operands]
    params = [
        HloInstruction(Opcode.PARAMETER, shape_of(a), attrs={"parameter_number": i})
        for i, a in enumerate(arrays)
    ]
    if isinstance(result_type, str):
        result_type = dtypes.from_name(result_type)
    if dims is None:
        shapes = [np.shape(a) for a in arrays if isinstance(a, np.ndarray)]
        dims = np.broadcast_shapes(*shapes)
    instr = HloInstruction(opcode, Shape.array(result_type, dims), params, attrs, name="op.1")
    evaluator = Evaluator(_MODULE, EvalOptions(flush_denormals=flush_denormals))
    return evaluator.evaluate(instr, list(arrays))


def bits(array: np.ndarray) -> np.ndarray:
    """The bit patterns of an array (for bitwise comparisons of floats)."""
    array = np.ascontiguousarray(array)
    return array.view(f"u{array.dtype.itemsize}")


def assert_bitwise_equal(got: np.ndarray, expected: np.ndarray, what: str = "") -> None:
    __tracebackhide__ = True
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    if not np.array_equal(bits(got), bits(expected)):
        raise AssertionError(f"{what}: got {got!r}, expected {expected!r}")
