"""reduce (variadic, argmax-style), map and scan: OPS.md examples, wrap-around, numpy/jax."""

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.interpreter.evaluator import EVALUATORS, Evaluator, load_evaluators
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir.attrs import ComparisonDirection
from xlapy.shape import Shape

F32, S32 = dtypes.F32, dtypes.S32


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


def binary(opcode, element_type, swapped=False):
    """``(p0, p1) -> opcode(p0, p1)`` on scalars; ``swapped``: ``opcode(p1, p0)`` (a combiner
    must keep the body's operand order)."""
    comp = HloComputation(f"{opcode.value}_{element_type}{'_swapped' if swapped else ''}")
    s = Shape.scalar(element_type)
    a = comp.add_instruction(param(s, 0))
    b = comp.add_instruction(param(s, 1))
    comp.add_instruction(HloInstruction(opcode, s, [b, a] if swapped else [a, b]), root=True)
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


def reduce(x, init, dims, comp, element_type):
    out_dims = [d for axis, d in enumerate(x.shape) if axis not in dims]
    return evaluate(
        Opcode.REDUCE,
        Shape.array(element_type, out_dims),
        [x, init],
        {"dimensions": tuple(dims), "to_apply": comp},
    )


SPEC_4x2x3 = np.tile(np.array([[1, 2, 3], [4, 5, 6]], np.float32), (4, 1, 1))


@pytest.mark.parametrize(
    ("dims", "expected"),
    [
        ((0,), [[4, 8, 12], [16, 20, 24]]),
        ((2,), [[6, 15]] * 4),
        ((0, 1), [20, 28, 36]),
        ((0, 1, 2), 84),
    ],
)
def test_reduce_spec_examples(dims, expected):
    got = reduce(SPEC_4x2x3, np.float32(0), dims, binary(Opcode.ADD, F32), F32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array(expected, np.float32))


def test_reduce_2d_spec_example():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    add = binary(Opcode.ADD, F32)
    np.testing.assert_array_equal(reduce(x, np.float32(0), (0,), add, F32), [5, 7, 9])
    np.testing.assert_array_equal(reduce(x, np.float32(0), (1,), add, F32), [6, 15])


@pytest.mark.parametrize(
    ("values", "expected"), [([1, 5, 3], (5, 1)), ([2, 7, 7], (7, 2)), ([4, 1, 4, 2, 4], (4, 4))]
)
def test_variadic_argmax_spec_example(values, expected):
    v = np.array(values, np.float32)
    k = np.arange(len(values), dtype=np.int32)
    shape = Shape.tuple_of([Shape.scalar(F32), Shape.scalar(S32)])
    got = evaluate(
        Opcode.REDUCE,
        shape,
        [v, k, np.float32(-np.inf), np.int32(0)],
        {"dimensions": (0,), "to_apply": argmax_body(F32, S32)},
    )
    assert isinstance(got, tuple)
    assert (float(got[0]), int(got[1])) == expected
    assert got[0].dtype == np.float32
    assert got[1].dtype == np.int32


def test_integer_add_wraps_in_element_type():
    x = np.full((3, 40), 100, np.int8)
    got = reduce(x, np.int8(7), (1,), binary(Opcode.ADD, dtypes.S8), dtypes.S8)
    expected = ((4000 + 7 + 128) % 256) - 128
    np.testing.assert_array_equal(got, np.full(3, expected, np.int8))


def test_integer_fast_path_equals_tree_order():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2**32, size=(5, 33), dtype=np.uint32)
    fast = reduce(x, np.uint32(3), (1,), binary(Opcode.MULTIPLY, dtypes.U32), dtypes.U32)
    expected = np.ones(5, np.uint64) * 3
    for column in x.T:
        expected = (expected * column.astype(np.uint64)) & np.uint64(0xFFFFFFFF)
    np.testing.assert_array_equal(fast, expected.astype(np.uint32))


def test_empty_reduction_gives_init():
    x = np.zeros((3, 0), np.float32)
    got = reduce(x, np.float32(-np.inf), (1,), binary(Opcode.MAXIMUM, F32), F32)
    np.testing.assert_array_equal(got, np.full(3, -np.inf, np.float32))


def test_bf16_sum_rounds_every_step():
    x = np.array([1.0, 2.0**-8, 2.0**-8, 2.0**-8], dtypes.BF16.numpy)
    got = reduce(
        x, np.array(0, dtypes.BF16.numpy), (0,), binary(Opcode.ADD, dtypes.BF16), dtypes.BF16
    )
    # tree: (1 + 2^-8) rounds to 1 (ties to even), (2^-8 + 2^-8) = 2^-7, 1 + 2^-7 exact.
    assert got.dtype == dtypes.BF16.numpy
    assert float(got) == 1.0 + 2.0**-7


def test_reduce_matches_jax_sum():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 7, 5)).astype(np.float32)
    got = reduce(x, np.float32(0), (0, 2), binary(Opcode.ADD, F32), F32)
    expected = np.asarray(jax.lax.reduce(x, np.float32(0), jax.lax.add, (0, 2)))
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


def test_map_applies_computation_elementwise():
    a = np.array([[1, 2], [3, 4]], np.int32)
    b = np.array([[10, 20], [30, 40]], np.int32)
    got = evaluate(
        Opcode.MAP,
        Shape.array(S32, [2, 2]),
        [a, b],
        {"dimensions": (0, 1), "to_apply": binary(Opcode.MULTIPLY, S32)},
    )
    np.testing.assert_array_equal(got, a * b)


def cumsum_body(element_type, shape=()):
    comp = HloComputation("cumsum")
    s = Shape.array(element_type, shape)
    x = comp.add_instruction(param(s, 0))
    c = comp.add_instruction(param(s, 1))
    total = comp.add_instruction(HloInstruction(Opcode.ADD, s, [x, c]))
    comp.add_instruction(
        HloInstruction(Opcode.TUPLE, Shape.tuple_of([s, s]), [total, total]), root=True
    )
    return comp


@pytest.mark.parametrize(("reverse", "expected"), [(False, [1, 3, 6]), (True, [6, 5, 3])])
def test_scan_spec_cumsum(reverse, expected):
    shape = Shape.tuple_of([Shape.array(S32, [3]), Shape.scalar(S32)])
    outputs, carry = evaluate(
        Opcode.SCAN,
        shape,
        [np.array([1, 2, 3], np.int32), np.int32(0)],
        {"dimensions": (0,), "num_carries": 1, "is_reverse": reverse, "to_apply": cumsum_body(S32)},
    )
    np.testing.assert_array_equal(outputs, expected)
    assert int(carry) == 6


def test_scan_along_dimension_one():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    shape = Shape.tuple_of([Shape.array(S32, [2, 3]), Shape.array(S32, [2])])
    outputs, carry = evaluate(
        Opcode.SCAN,
        shape,
        [x, np.zeros(2, np.int32)],
        {"dimensions": (1,), "num_carries": 1, "to_apply": cumsum_body(S32, (2,))},
    )
    np.testing.assert_array_equal(outputs, [[1, 3, 6], [4, 9, 15]])
    np.testing.assert_array_equal(carry, [6, 15])


def test_reduce_over_no_dimensions_of_an_empty_array():
    # oracle_findings.md F11: kept dims with a 0 extent; the result is the (empty) input.
    module = xlapy.load(
        """func.func @main(%arg0: tensor<0x2xi8>) -> tensor<0x2xi8> {
  %c = stablehlo.constant dense<1> : tensor<i8>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.multiply across dimensions = [] : (tensor<0x2xi8>, tensor<i8>) -> tensor<0x2xi8>
  return %0 : tensor<0x2xi8>
}"""
    )
    (out,) = xlapy.run(module, np.zeros((0, 2), np.int8), platform="interpreter")
    assert out.shape == (0, 2)
    assert out.dtype == np.int8


def _edge_values(element_type, shape, rng):
    """Random values with NaNs of both signs and payloads, infinities, signed zeros and
    subnormals mixed in."""
    dtype = element_type.numpy
    if element_type.is_complex:
        out = np.empty(shape, dtype)
        out.real = _edge_values(dtypes.F32, shape, rng)
        out.imag = _edge_values(dtypes.F32, shape, rng)
        return out
    x = np.asarray(rng.standard_normal(shape) * 4)
    specials = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -3e-39, 1e-310, 6e-8]
    mask = np.asarray(rng.random(shape) < 0.15)
    x[mask] = rng.choice(specials, size=int(mask.sum()))
    out = x.astype(dtype)
    if dtype == np.float32:  # a NaN with a payload
        bits = out.view(np.uint32)
        bits[np.asarray(rng.random(shape) < 0.03)] = 0x7FC01234
    return out


@pytest.mark.parametrize("flush", [False, True])
@pytest.mark.parametrize("swapped", [False, True])
@pytest.mark.parametrize(
    ("opcode", "element_type"),
    [(op, t) for op in (Opcode.ADD, Opcode.MULTIPLY, Opcode.MAXIMUM, Opcode.MINIMUM)
     for t in (dtypes.F32, dtypes.F64, dtypes.BF16, dtypes.F16)]
    + [(Opcode.ADD, dtypes.C64), (Opcode.MULTIPLY, dtypes.C128)],
)  # fmt: skip
def test_float_row_reducers_give_the_bits_of_the_body_run_by_the_evaluator(
    opcode, element_type, swapped, flush, monkeypatch
):
    """A one-value float reduce with an ``op(p0, p1)`` body combines whole arrays with the
    row's eval (``reduce._row_combiner``) instead of running the body per tree level: the
    same bits as the body run by the evaluator, NaN payloads and flushing included."""
    from xlapy.interpreter import EvalOptions
    from xlapy.interpreter.evals import reduce as reduce_module

    rng = np.random.default_rng(7)
    x = _edge_values(element_type, (3, 37, 5), rng)
    init = _edge_values(element_type, (), rng)
    body = binary(opcode, element_type, swapped)

    def run():
        operands = [
            param(Shape.array(element_type, x.shape), 0),
            param(Shape.scalar(element_type), 1),
        ]
        instr = HloInstruction(
            Opcode.REDUCE, Shape.array(element_type, [3, 5]), operands,
            {"dimensions": (1,), "to_apply": body},
        )  # fmt: skip
        evaluator = Evaluator(HloModule("m"), EvalOptions(flush_denormals=flush))
        return np.asarray(evaluator.evaluate(instr, [x, np.asarray(init)]))

    assert (
        reduce_module._row_combiner(Evaluator(HloModule("m")), body, [x.reshape(15, 37)])
        is not None
    )
    fast = run()
    monkeypatch.setattr(reduce_module, "_row_combiner", lambda ctx, comp, values: None)
    slow = run()
    assert fast.dtype == slow.dtype == element_type.numpy
    assert fast.tobytes() == slow.tobytes()
