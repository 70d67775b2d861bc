"""reduce-window and select-and-scatter: OPS.md examples and XLA through jax."""

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.interpreter.evaluator import EVALUATORS, Evaluator, load_evaluators
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir.attrs import ComparisonDirection, Window
from xlapy.shape import Shape

F32, S32, S64 = dtypes.F32, dtypes.S32, dtypes.S64


def _ensure_body_ops():
    """Variadic bodies end in ``tuple``: until its evaluator lands in its own module,
    register a stand-in (a no-op once the real one exists)."""
    load_evaluators()
    EVALUATORS.setdefault(Opcode.TUPLE, lambda ctx, instr, ops: tuple(ops))


_ensure_body_ops()


def param(shape, number):
    return HloInstruction(Opcode.PARAMETER, shape, attrs={"parameter_number": number})


def evaluate(opcode, shape, values, attrs):
    """Evaluates one instruction whose operands are ``values``."""
    values = [np.asarray(v) for v in values]
    operands = [
        param(Shape.array(dtypes.from_numpy(v.dtype), v.shape), i) for i, v in enumerate(values)
    ]
    instr = HloInstruction(opcode, shape, operands, attrs)
    return Evaluator(HloModule("m")).evaluate(instr, values)


def binary(opcode, element_type):
    """``(p0, p1) -> opcode(p0, p1)`` on scalars."""
    comp = HloComputation(f"{opcode.value}_{element_type}")
    s = Shape.scalar(element_type)
    a = comp.add_instruction(param(s, 0))
    b = comp.add_instruction(param(s, 1))
    comp.add_instruction(HloInstruction(opcode, s, [a, b]), root=True)
    return comp


def argmax_body(value_type, index_type):
    """OPS.md Reduce variadic example: ``f(max, argmax, value, index)`` keeps the new pair
    when ``value >= max``."""
    comp = HloComputation("argmax")
    v, i = Shape.scalar(value_type), Shape.scalar(index_type)
    run_v = comp.add_instruction(param(v, 0))
    run_i = comp.add_instruction(param(i, 1))
    val = comp.add_instruction(param(v, 2))
    idx = comp.add_instruction(param(i, 3))
    pred = Shape.scalar(dtypes.PRED)
    ge = comp.add_instruction(
        HloInstruction(Opcode.COMPARE, pred, [val, run_v], {"direction": ComparisonDirection.GE})
    )
    out_v = comp.add_instruction(HloInstruction(Opcode.SELECT, v, [ge, val, run_v]))
    out_i = comp.add_instruction(HloInstruction(Opcode.SELECT, i, [ge, idx, run_i]))
    comp.add_instruction(
        HloInstruction(Opcode.TUPLE, Shape.tuple_of([v, i]), [out_v, out_i]), root=True
    )
    return comp


def reduce_window(x, init, comp, element_type, out_dims, **window):
    return evaluate(
        Opcode.REDUCE_WINDOW,
        Shape.array(element_type, out_dims),
        [x, init],
        {"window": Window.make(**window), "to_apply": comp},
    )


def test_reduce_window_max_spec_example():
    x = np.arange(1, 25, dtype=np.float32).reshape(4, 6)
    got = reduce_window(
        x,
        np.float32(np.finfo(np.float32).min),
        binary(Opcode.MAXIMUM, F32),
        F32,
        [2, 2],
        size=[2, 3],
        stride=[2, 3],
    )
    np.testing.assert_array_equal(got, [[9, 12], [21, 24]])


@pytest.mark.parametrize(("padding", "expected"), [([(0, 0)], [100, 1]), ([(1, 1)], [1000, 10, 1])])
def test_reduce_window_min_padding_spec_example(padding, expected):
    x = np.array([10000, 1000, 100, 10, 1], np.float32)
    got = reduce_window(
        x,
        np.float32(np.finfo(np.float32).max),
        binary(Opcode.MINIMUM, F32),
        F32,
        [len(expected)],
        size=[3],
        stride=[2],
        padding=padding,
    )
    np.testing.assert_array_equal(got, expected)


def test_reduce_window_dilation_spec_example():
    # OPS.md ReduceWindow example 2 (StableHLO reduce_window): holes skipped, padding = init.
    x = np.array([[1, 2], [3, 4], [5, 6]], np.int64)
    got = reduce_window(
        x,
        np.int64(0),
        binary(Opcode.ADD, S64),
        S64,
        [2, 2],
        size=[2, 1],
        stride=[4, 1],
        padding=[(2, 1), (0, 0)],
        base_dilation=[2, 1],
        window_dilation=[3, 1],
    )
    np.testing.assert_array_equal(got, [[0, 0], [3, 4]])
    got = reduce_window(
        x,
        np.int64(0),
        binary(Opcode.ADD, S64),
        S64,
        [1, 2],
        size=[3, 1],
        stride=[4, 1],
        padding=[(2, 1), (0, 0)],
        base_dilation=[2, 1],
        window_dilation=[3, 1],
    )
    np.testing.assert_array_equal(got, [[5, 6]])


def test_reduce_window_padding_holds_init_value():
    # Padding cells hold init_value (OPS.md): with a non-identity init it is counted.
    x = np.array([1, 2, 3], np.int32)
    got = reduce_window(
        x, np.int32(10), binary(Opcode.ADD, S32), S32, [3], size=[2], padding=[(1, 0)]
    )
    np.testing.assert_array_equal(got, [10 + 10 + 1, 10 + 1 + 2, 10 + 2 + 3])


def test_variadic_reduce_window_argmax():
    v = np.array([3, 9, 1, 9, 2], np.float32)
    k = np.arange(5, dtype=np.int32)
    shape = Shape.tuple_of([Shape.array(F32, [4]), Shape.array(S32, [4])])
    values, indices = evaluate(
        Opcode.REDUCE_WINDOW,
        shape,
        [v, k, np.float32(-np.inf), np.int32(0)],
        {"window": Window.make([2]), "to_apply": argmax_body(F32, S32)},
    )
    np.testing.assert_array_equal(values, [9, 9, 9, 9])
    np.testing.assert_array_equal(indices, [1, 1, 3, 3])


@pytest.mark.parametrize(
    ("strides", "padding", "base", "window"),
    [
        ((1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
        ((2, 1), ((1, 2), (0, 1)), (1, 1), (1, 1)),
        ((1, 2), ((2, 0), (1, 1)), (2, 1), (1, 2)),
        ((3, 1), ((0, 0), (-1, 2)), (1, 3), (2, 1)),
    ],
)
def test_reduce_window_matches_jax(strides, padding, base, window):
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 8)).astype(np.float32)
    expected = np.asarray(
        jax.lax.reduce_window(x, -np.inf, jax.lax.max, (2, 3), strides, padding, base, window)
    )
    got = reduce_window(
        x,
        np.float32(-np.inf),
        binary(Opcode.MAXIMUM, F32),
        F32,
        expected.shape,
        size=[2, 3],
        stride=strides,
        padding=padding,
        base_dilation=base,
        window_dilation=window,
    )
    np.testing.assert_array_equal(got, expected)


def select_and_scatter(operand, source, window):
    return evaluate(
        Opcode.SELECT_AND_SCATTER,
        Shape.array(dtypes.from_numpy(operand.dtype), operand.shape),
        [operand, source, np.zeros((), operand.dtype)],
        {"window": window, "select": compare_body(F32), "scatter": binary(Opcode.ADD, F32)},
    )


def compare_body(element_type):
    comp = HloComputation("ge")
    s = Shape.scalar(element_type)
    a = comp.add_instruction(param(s, 0))
    b = comp.add_instruction(param(s, 1))
    comp.add_instruction(
        HloInstruction(
            Opcode.COMPARE, Shape.scalar(dtypes.PRED), [a, b], {"direction": ComparisonDirection.GE}
        ),
        root=True,
    )
    return comp


def test_select_and_scatter_spec_examples():
    got = select_and_scatter(
        np.array([1, 9, 3, 4, 2, 8], np.float32),
        np.array([10, 20, 30], np.float32),
        Window.make([2], [2]),
    )
    np.testing.assert_array_equal(got, [0, 10, 0, 20, 0, 30])
    got = select_and_scatter(
        np.array([1, 9, 3], np.float32), np.array([2, 6], np.float32), Window.make([2], [1])
    )
    np.testing.assert_array_equal(got, [0, 8, 0])


def test_select_and_scatter_ties_keep_first_and_padding_is_never_selected():
    got = select_and_scatter(
        np.array([5, 5, -1], np.float32),
        np.array([1, 2], np.float32),
        Window.make([2], [2], [(0, 1)]),
    )
    # window 0 = [5, 5] keeps index 0; window 1 = [-1, pad] selects -1 (padding never wins).
    np.testing.assert_array_equal(got, [1, 0, 2])


def test_select_and_scatter_matches_jax_max_pool_gradient():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 7)).astype(np.float32)

    def pool(x):
        return jax.lax.reduce_window(x, -np.inf, jax.lax.max, (3, 2), (2, 1), ((1, 1), (0, 1)))

    y, vjp = jax.vjp(pool, x)
    g = rng.standard_normal(y.shape).astype(np.float32)
    (expected,) = vjp(g)
    got = select_and_scatter(x, g, Window.make([3, 2], [2, 1], [(1, 1), (0, 1)]))
    np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-6)


def test_reduce_window_with_dynamic_result_dims():
    import xlapy

    m = xlapy.load(
        """func.func public @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    )
    (got,) = xlapy.run(m, np.array([1, 2, 3, 4], np.float32), platform="interpreter")
    np.testing.assert_array_equal(got, np.array([3, 5, 7], np.float32))
