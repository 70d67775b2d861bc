"""Shape ops: constant, iota (every type), tuple/get-tuple-element, broadcast, reshape,
transpose, bitcast (layout-aware), opt-barrier/domain/add-dependency/after-all.

Values from OPS.md examples and the conformance files; jax (through tests/property/oracle.py)
as a property oracle.
"""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.literal import TOKEN, Literal, shape_of
from xlapy.shape import Shape


def run_hlo(text, *args):
    """Runs an HLO module; returns its single result (or the list of results)."""
    results = xlapy.run(xlapy.load(text), *args, platform="interpreter")
    return results[0] if len(results) == 1 else results


def evaluate(opcode, shape, values, attrs=None):
    """Evaluates one instruction directly on ``values`` (operands are parameters)."""
    params = [
        HloInstruction(Opcode.PARAMETER, shape_of(v), attrs={"parameter_number": i})
        for i, v in enumerate(values)
    ]
    instr = HloInstruction(opcode, shape, params, attrs, name=f"{opcode.value}.1")
    return Evaluator(HloModule("m")).evaluate(instr, list(values))


def assert_same(got, want):
    __tracebackhide__ = True
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.tobytes() == want.tobytes(), f"got {got!r}, expected {want!r}"


# ---- constant, iota ------------------------------------------------------------------------


def test_constant_returns_the_literal():
    literal = Literal.from_numpy(np.array([[1.5, -0.0], [np.inf, 2.0]], np.float32))
    got = evaluate(Opcode.CONSTANT, literal.shape, [], {"literal": literal})
    assert_same(got, literal.value)


def test_iota_ops_md_examples():
    got0 = run_hlo("HloModule m\nENTRY e { ROOT i = s32[4,8] iota(), iota_dimension=0 }")
    got1 = run_hlo("HloModule m\nENTRY e { ROOT i = s32[4,8] iota(), iota_dimension=1 }")
    assert_same(got0, np.repeat(np.arange(4, dtype=np.int32)[:, None], 8, axis=1))
    assert_same(got1, np.tile(np.arange(8, dtype=np.int32), (4, 1)))


@pytest.mark.parametrize("t", dtypes.ARRAY_TYPES, ids=str)
def test_iota_every_type(t):
    """Iota of every element type equals a convert of the s64 iota (integers wrap, floats
    round to nearest even, pred is index != 0)."""
    got = evaluate(Opcode.IOTA, Shape.array(t, [3, 20]), [], {"iota_dimension": 1})
    positions = np.arange(20)
    if t.is_pred:
        want = np.tile(positions != 0, (3, 1))
    elif t.is_integer:
        want = np.tile(np.array([wrap(int(i), t) for i in positions]).astype(t.numpy), (3, 1))
    else:
        want = np.tile(positions.astype(np.float64).astype(t.numpy), (3, 1))
    assert_same(got, want)


def wrap(i, t):
    """``i`` modulo ``2**bits``, read as signed for signed types."""
    v = i % (1 << t.bits)
    return v - (1 << t.bits) if t.is_signed and v >= 1 << (t.bits - 1) else v


def test_iota_bf16_rounds_to_nearest_even():
    got = evaluate(Opcode.IOTA, Shape.array(dtypes.BF16, [260]), [], {"iota_dimension": 0})
    # 257 is a tie between 256 and 258 in bf16 (8 significant bits): rounds to even 256.
    assert float(got[257]) == 256.0
    assert float(got[259]) == 260.0
    assert got.dtype == ml_dtypes.bfloat16


# ---- tuples and pass-through ops ----------------------------------------------------------


def test_tuple_and_get_tuple_element():
    got = run_hlo(
        """HloModule m
ENTRY e {
  v = f32[10] parameter(0)
  s = s32[] parameter(1)
  t = (f32[10], s32[]) tuple(v, s)
  ROOT e1 = s32[] get-tuple-element(t), index=1
}""",
        np.arange(10, dtype=np.float32),
        np.int32(5),
    )
    assert_same(got, np.int32(5))


def test_get_tuple_element_out_of_range_is_an_error():
    shape = Shape.scalar(dtypes.S32)
    with pytest.raises(InvalidArgument, match=r"get-tuple-element .* \[C1\]: index 2"):
        evaluate(Opcode.GET_TUPLE_ELEMENT, shape, [(np.int32(1), np.int32(2))], {"index": 2})


def test_pass_through_ops():
    x = np.array([1.0, -0.0, np.nan], np.float32)
    f32 = shape_of(x)
    assert_same(evaluate(Opcode.OPTIMIZATION_BARRIER, f32, [x]), x)
    pair = (x, np.int32(3))
    assert evaluate(Opcode.OPTIMIZATION_BARRIER, shape_of(pair), [pair]) is pair
    assert_same(evaluate(Opcode.ADD_DEPENDENCY, f32, [x, TOKEN]), x)
    assert evaluate(Opcode.AFTER_ALL, Shape.token(), [TOKEN, TOKEN]) is TOKEN


# ---- broadcast -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operand", "dims", "out", "want"),
    [
        (np.float32(2.0), (), [2, 3], np.full((2, 3), 2.0, np.float32)),
        ([1, 2, 3], (1,), [2, 3], [[1, 2, 3], [1, 2, 3]]),
        ([1, 2, 3], (0,), [3, 2], [[1, 1], [2, 2], [3, 3]]),
        ([[7, 8]], (0, 1), [3, 2], [[7, 8], [7, 8], [7, 8]]),
        # StableHLO allows unsorted broadcast_dimensions: a transpose.
        ([[1, 2, 3], [4, 5, 6]], (1, 0), [3, 2], [[1, 4], [2, 5], [3, 6]]),
    ],
)
def test_broadcast_ops_md_examples(operand, dims, out, want):
    operand = np.asarray(operand, np.float32)
    got = evaluate(Opcode.BROADCAST, Shape.array(dtypes.F32, out), [operand], {"dimensions": dims})
    assert_same(got, np.asarray(want, np.float32))


def test_broadcast_rejects_a_mismatched_dimension():
    with pytest.raises(InvalidArgument, match=r"broadcast .* \[C5\]: operand dimension 0"):
        evaluate(
            Opcode.BROADCAST,
            Shape.array(dtypes.S32, [4, 2]),
            [np.arange(3, dtype=np.int32)],
            {"dimensions": (0,)},
        )


# ---- reshape, transpose --------------------------------------------------------------------

V = np.array(
    [
        [[10, 11, 12], [15, 16, 17]],
        [[20, 21, 22], [25, 26, 27]],
        [[30, 31, 32], [35, 36, 37]],
        [[40, 41, 42], [45, 46, 47]],
    ],
    np.float32,
)


def test_reshape_ops_md_examples():
    flat = evaluate(Opcode.RESHAPE, Shape.array(dtypes.F32, [24]), [V])
    assert flat.tolist() == [10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35,
                             36, 37, 40, 41, 42, 45, 46, 47]  # fmt: skip
    v83 = evaluate(Opcode.RESHAPE, Shape.array(dtypes.F32, [8, 3]), [V])
    assert v83.tolist()[3] == [25, 26, 27]
    # The old three-argument form: Reshape(v, {1,2,0}, {8,3}) = Reshape(Transpose(v), {8,3}).
    transposed = evaluate(
        Opcode.TRANSPOSE, Shape.array(dtypes.F32, [2, 3, 4]), [V], {"dimensions": (1, 2, 0)}
    )
    v021_83 = evaluate(Opcode.RESHAPE, Shape.array(dtypes.F32, [8, 3]), [transposed])
    assert v021_83.tolist()[:2] == [[10, 20, 30], [40, 11, 21]]
    five = evaluate(Opcode.RESHAPE, Shape.scalar(dtypes.F32), [np.array([[5]], np.float32)])
    assert five.shape == ()
    assert five == 5
    back = evaluate(Opcode.RESHAPE, Shape.array(dtypes.F32, [1, 1]), [np.float32(5)])
    assert back.tolist() == [[5]]


def test_reshape_element_count_mismatch_is_an_error():
    with pytest.raises(InvalidArgument, match=r"reshape .* \[C1\]: the result must have"):
        evaluate(Opcode.RESHAPE, Shape.array(dtypes.F32, [5]), [V])


def test_transpose_ops_md_example_and_rule():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    got = evaluate(Opcode.TRANSPOSE, Shape.array(dtypes.S8, [3, 2]), [x], {"dimensions": (1, 0)})
    assert_same(got, np.array([[1, 4], [2, 5], [3, 6]], np.int8))
    rng = np.random.default_rng(0)
    y = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    perm = (0, 2, 3, 1)
    got = evaluate(
        Opcode.TRANSPOSE, Shape.array(dtypes.F32, [2, 4, 5, 3]), [y], {"dimensions": perm}
    )
    # result_index[d] = operand_index[permutation[d]]
    for index in [(1, 2, 3, 0), (0, 3, 4, 2)]:
        operand_index = [0] * 4
        for d, p in enumerate(perm):
            operand_index[p] = index[d]
        assert got[index] == y[tuple(operand_index)]


def test_transpose_rejects_a_non_permutation():
    with pytest.raises(InvalidArgument, match=r"transpose .* \[C2\]: permutation"):
        evaluate(
            Opcode.TRANSPOSE,
            Shape.array(dtypes.S8, [2, 2]),
            [np.zeros((2, 2), np.int8)],
            {"dimensions": (0, 0)},
        )


# ---- bitcast -------------------------------------------------------------------------------


def test_bitcast_with_default_layouts_is_a_reshape():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = run_hlo(
        "HloModule m\nENTRY e { p = s32[2,3]{1,0} parameter(0)\n ROOT b = s32[3,2]{1,0} bitcast(p) }",
        x,
    )
    assert_same(got, x.reshape(3, 2))


def test_bitcast_reads_the_physical_layout():
    """s32[2,3]{0,1} is stored column-major; as s32[6]{0} its elements come in that order."""
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    got = run_hlo(
        "HloModule m\nENTRY e { p = s32[2,3]{0,1} parameter(0)\n ROOT b = s32[6]{0} bitcast(p) }",
        x,
    )
    assert_same(got, np.array([1, 4, 2, 5, 3, 6], np.int32))
    # A layout-changing bitcast back to row-major is a transpose in logical terms.
    got = run_hlo(
        "HloModule m\nENTRY e { p = s32[2,3]{0,1} parameter(0)\n ROOT b = s32[3,2]{1,0} bitcast(p) }",
        x,
    )
    assert_same(got, x.T.copy())


def test_bitcast_changes_element_types_bit_for_bit():
    got = run_hlo(
        "HloModule m\nENTRY e { p = f32[] parameter(0)\n ROOT b = s32[] bitcast(p) }",
        np.float32(1.0),
    )
    assert_same(got, np.int32(1065353216))
    # Two u32 words in memory order are one little-endian u64.
    got = run_hlo(
        "HloModule m\nENTRY e { p = u32[2]{0} parameter(0)\n ROOT b = u64[] bitcast(p) }",
        np.array([0x89ABCDEF, 0x01234567], np.uint32),
    )
    assert_same(got, np.uint64(0x0123456789ABCDEF))


# ---- against jax ---------------------------------------------------------------------------


def _oracle():
    pytest.importorskip("jax")  # the oracle module needs it; skip cleanly without
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "property"))
    import oracle

    return oracle


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: jax_lax().broadcast_in_dim(x, (2, 3, 4), (0, 2)),
        lambda x: x.reshape(4, 2, 1).transpose(2, 0, 1),
        lambda x: jax_lax().iota(np.float16, 9) + x.sum().astype(np.float16),
        lambda x: jax_lax().expand_dims(x, (0, 3)).squeeze(0),
    ],
    ids=["broadcast_in_dim", "reshape_transpose", "iota", "expand_squeeze"],
)
def test_against_jax(fn):
    oracle = _oracle()
    x = np.arange(8, dtype=np.float32).reshape(2, 4) - 3.5
    oracle.check(fn, [x])


def jax_lax():
    jax = pytest.importorskip("jax")
    return jax.lax


def test_elided_constant_is_refused():
    import xlapy

    m = xlapy.load("HloModule m\nENTRY e {\n  ROOT c = f32[3,4] constant({...})\n}\n")
    with pytest.raises(xlapy.InvalidArgument, match=r"constant c: the program text elides"):
        xlapy.run(m, platform="interpreter")
