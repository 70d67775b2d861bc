"""XlaBuilder mechanics: building modules, sub-computations, ownership checks, errors at the
call site, Python operators and indexing."""

import numpy as np
import pytest

import xlapy
from xlapy import InvalidArgument, XlaBuilder, ops
from xlapy.ir import Opcode

S = xlapy.shape


def _adder(dtype="f32"):
    b = XlaBuilder("add")
    ops.Add(ops.Parameter(b, 0, S(f"{dtype}[]"), "a"), ops.Parameter(b, 1, S(f"{dtype}[]"), "b"))
    return b.build()


def test_build_puts_callees_first_and_entry_last():
    add = _adder()
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[4]"), "x")
    ops.Reduce(x, ops.ConstantR0(b, 0.0), add, [0])
    module = b.build()
    assert [c.name for c in module.computations] == ["add", "main"]
    assert module.entry.name == "main"
    assert module.entry.root.opcode is Opcode.REDUCE
    assert module.entry.root.attrs.to_apply is module.computations[0]
    assert module.entry.root.shape == S("f32[]")


def test_a_computation_used_twice_is_copied_once():
    add = _adder()
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[4,2]"), "x")
    zero = ops.ConstantR0(b, 0.0)
    ops.Tuple(b, [ops.Reduce(x, zero, add, [0]), ops.Reduce(x, zero, add, [1])])
    module = b.build()
    assert [c.name for c in module.computations] == ["add", "main"]


def test_instruction_names_are_unique_in_the_module():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    ops.Add(ops.Add(x, x), x)
    names = [i.name for i in b.build().instructions()]
    assert len(names) == len(set(names))


def test_root_can_be_chosen():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    y = ops.Neg(x)
    ops.Abs(x)
    assert b.build(y).entry.root.opcode is Opcode.NEGATE


def test_sub_builder_and_python_function_computations():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("s32[5]"), "x")
    sub = b.create_sub_builder("max")
    ops.Max(ops.Parameter(sub, 0, S("s32[]"), "a"), ops.Parameter(sub, 1, S("s32[]"), "b"))
    m = ops.Reduce(x, ops.ConstantR0(b, -100), sub, [0])
    s = ops.Reduce(x, ops.ConstantR0(b, 0), lambda a, c: a + c, [0])
    ops.Tuple(b, [m, s])
    module = b.build()
    assert len(module.computations) == 3
    (result,) = [xlapy.run(module, np.array([3, -1, 7, 2, 0], np.int32), platform="interpreter")]
    assert [int(v) for v in result] == [7, 11]


def test_operands_from_another_builder_are_rejected():
    a, b = XlaBuilder("a"), XlaBuilder("b")
    x = ops.Parameter(a, 0, S("f32[]"), "x")
    y = ops.Parameter(b, 0, S("f32[]"), "y")
    with pytest.raises(InvalidArgument, match="belongs to builder 'b', not to 'a'"):
        ops.Add(x, y)


def test_parameter_numbers_must_be_unique_and_contiguous():
    b = XlaBuilder("main")
    ops.Parameter(b, 0, S("f32[]"), "x")
    with pytest.raises(InvalidArgument, match="parameter number 0 is already used by x"):
        ops.Parameter(b, 0, S("f32[]"), "y")
    ops.Parameter(b, 2, S("f32[]"), "z")
    with pytest.raises(InvalidArgument, match=r"parameter numbers must be 0..1; missing \[1\]"):
        b.build()


def test_errors_are_raised_at_the_call_site():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[2,3,4]"), "x")
    with pytest.raises(InvalidArgument) as info:
        ops.Pad(x, ops.ConstantR0(b, 0.0), [(1, 1, 0), (0, 0, 0)])
    assert (
        str(info.value)
        == "pad [C2]: padding_config has 2 dimensions but operand f32[2,3,4] has rank 3"
    )
    assert info.traceback[0].name == "test_errors_are_raised_at_the_call_site"
    assert len(b.instructions) == 2  # nothing was added for the bad op


def test_python_operators_build_ops():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[2,2]"), "x")
    y = ops.Parameter(b, 1, S("f32[2,2]"), "y")
    ops.Tuple(b, [x + y, x - 1, 2 * x, x / y, -x, abs(x), x @ y, x < y, x >= 1.0, x.T, x**2])
    module = b.build()
    xv = np.array([[1, -2], [3, 4]], np.float32)
    yv = np.array([[2, 2], [1, -1]], np.float32)
    got = xlapy.run(module, xv, yv, platform="interpreter")
    want = [xv + yv, xv - 1, 2 * xv, xv / yv, -xv, abs(xv), xv @ yv, xv < yv, xv >= 1, xv.T, xv**2]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_shift_operator_follows_signedness():
    b = XlaBuilder("main")
    s = ops.Parameter(b, 0, S("s8[]"), "s")
    u = ops.Parameter(b, 1, S("u8[]"), "u")
    assert (s >> 1).instruction.opcode is Opcode.SHIFT_RIGHT_ARITHMETIC
    assert (u >> 1).instruction.opcode is Opcode.SHIFT_RIGHT_LOGICAL


def test_xlaop_has_no_truth_value():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("f32[]"), "x")
    with pytest.raises(TypeError, match="no truth value"):
        bool(x < 1.0)


def test_indexing():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("s32[4,5]"), "x")
    i = ops.Parameter(b, 1, S("s32[]"), "i")
    parts = [x[1], x[:, 2], x[1:3, ::2], x[..., None], x[-1, -2], x[i], x[i, 1:3]]
    assert [p.shape.dims for p in parts] == [(5,), (4,), (2, 3), (4, 5, 1), (), (5,), (2,)]
    ops.Tuple(b, parts)
    xv = np.arange(20, dtype=np.int32).reshape(4, 5)
    got = xlapy.run(b.build(), xv, np.int32(2), platform="interpreter")
    want = [xv[1], xv[:, 2], xv[1:3, ::2], xv[..., None], xv[-1, -2], xv[2], xv[2, 1:3]]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_indexing_errors():
    b = XlaBuilder("main")
    x = ops.Parameter(b, 0, S("s32[4]"), "x")
    with pytest.raises(InvalidArgument, match="index 4 is out of bounds for dimension 0 of size 4"):
        x[4]
    with pytest.raises(InvalidArgument, match="too many indices"):
        x[1, 2]


def test_constants_take_their_element_type_from_the_dtype():
    import ml_dtypes

    b = XlaBuilder("main")
    assert ops.Constant(b, np.array([1, 2], np.uint8)).shape == S("u8[2]")
    assert ops.Constant(b, np.array(1.5, ml_dtypes.bfloat16)).shape == S("bf16[]")
    assert ops.ConstantR0(b, 1.5).shape == S("f32[]")
    assert ops.ConstantR0(b, 3).shape == S("s32[]")
    assert ops.ConstantR1(b, [True, False]).shape == S("pred[2]")
    assert ops.ConstantR2(b, [[1, 2]], "s64").shape == S("s64[1,2]")
    assert ops.MinValue(b, "f32").instruction.attrs.literal.value == -np.inf
    assert ops.MaxValue(b, "s8").instruction.attrs.literal.value == 127


def test_shape_parser_fallback():
    from xlapy.builder.shape_text import parse_shape_text

    assert parse_shape_text("f32[2,3]{0,1}") == S("f32[2,3]{0,1}")
    assert parse_shape_text("(s32[], f32[<=4], token[])") == S("(s32[], f32[<=4], token[])")
    with pytest.raises(InvalidArgument, match="not a shape"):
        parse_shape_text("f32[2")


def test_scaled_dot_builds_and_runs_with_spec_operand_order():
    """ScaledDot(lhs, lhs_scale, rhs, rhs_scale, ...): builder and evaluator agree."""
    import ml_dtypes

    from xlapy.builder.config import DotDimensionNumbers

    lhs = np.arange(8, dtype=np.float32).reshape(2, 4).astype(ml_dtypes.float8_e4m3fn)
    rhs = np.ones((4, 3), ml_dtypes.float8_e4m3fn)
    lhs_scale = np.array([[2.0], [0.5]], ml_dtypes.float8_e8m0fnu)  # one block of 4
    rhs_scale = np.array([[1.0, 2.0, 4.0]], ml_dtypes.float8_e8m0fnu)
    b = XlaBuilder("scaled")
    args = [ops.Constant(b, a) for a in (lhs, lhs_scale, rhs, rhs_scale)]
    ops.ScaledDot(
        *args,
        DotDimensionNumbers(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0]),
        preferred_element_type=xlapy.dtypes.F32,
    )
    (got,) = xlapy.run(b.build(), platform="interpreter")
    expected = (lhs.astype(np.float32) * [[2.0], [0.5]]) @ (rhs.astype(np.float32) * [1, 2, 4])
    np.testing.assert_array_equal(got, expected.astype(np.float32))
