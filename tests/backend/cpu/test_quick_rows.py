"""The quick tier's float row kernels (``kernels/complex_elementwise.py``): every elementwise
row op of float types runs the interpreter's row kernel on whole arrays (no per-op dispatch
through the evaluator), with the interpreter's bits: compute dtypes, one rounding, NaNs,
signed zeros, subnormals flushed or kept. The compiled tier leaves real types to numba."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same, build, root_of, shape_text

from xlapy.backend.cpu.kernel import CompileOptions, NoKernel, RunContext, generated_kernels
from xlapy.interpreter.evaluator import EvalOptions, Evaluator
from xlapy.text.hlo_parser import parse_hlo

UNARY = ["negate", "abs", "exponential", "log", "sqrt", "rsqrt", "tanh", "logistic", "sine",
         "exponential-minus-one", "log-plus-one", "floor", "round-nearest-even", "sign", "cbrt"]  # fmt: skip
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "atan2",
          "remainder"]  # fmt: skip
TYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]


def _values(rng: np.random.Generator, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """Normal values with NaNs, infinities, signed zeros and f32 subnormals mixed in."""
    x = rng.standard_normal(shape) * 3
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -2e-39, 1e-310, 6e-8, 0.5, -2.5]
    mask = rng.random(shape) < 0.2
    x[mask] = rng.choice(specials, size=int(mask.sum()))
    return x.astype(dtype)


def _run(op: str, dtype: type, operands: list[np.ndarray], flush: bool) -> None:
    shape = shape_text(operands[0])
    params = "\n".join(f"  p{i} = {shape} parameter({i})" for i in range(len(operands)))
    names = ", ".join(f"p{i}" for i in range(len(operands)))
    text = f"HloModule m\nENTRY e {{\n{params}\n  ROOT r = {shape} {op}({names})\n}}"
    module = parse_hlo(text)
    options = CompileOptions(flush_denormals=flush)
    with generated_kernels(False):
        kernel = build(root_of(module), options)
    assert kernel.how.startswith("numpy whole-array"), kernel.how
    evaluator = Evaluator(module, EvalOptions(flush_denormals=flush))
    want = evaluator.evaluate(root_of(module), [np.copy(a) for a in operands])
    given = [np.copy(a) for a in operands]
    got = kernel.run(given, RunContext(evaluator.device, evaluator, evaluator.call, frozenset()))
    assert_same(got, want)
    for before, after in zip(operands, given, strict=True):
        assert_same(after, before)  # operands untouched


@pytest.mark.parametrize("flush", [False, True])
@pytest.mark.parametrize("dtype", TYPES)
def test_unary_rows_give_the_interpreters_bits(dtype: type, flush: bool) -> None:
    rng = np.random.default_rng(3)
    for op in UNARY:
        _run(op, dtype, [_values(rng, dtype, (7, 9))], flush)


@pytest.mark.parametrize("flush", [False, True])
@pytest.mark.parametrize("dtype", TYPES)
def test_binary_rows_give_the_interpreters_bits(dtype: type, flush: bool) -> None:
    rng = np.random.default_rng(4)
    for op in BINARY:
        _run(op, dtype, [_values(rng, dtype, (7, 9)), _values(rng, dtype, (7, 9))], flush)


def test_the_compiled_tier_leaves_real_types_to_its_generated_kernels() -> None:
    from xlapy.backend.cpu.kernels.complex_elementwise import complex_row_kernel

    module = parse_hlo(
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] negate(p)\n}"
    )
    with pytest.raises(NoKernel, match="no complex operand"):
        complex_row_kernel(root_of(module), CompileOptions())
    with generated_kernels(False):
        assert complex_row_kernel(root_of(module), CompileOptions()).how.startswith("numpy")
