"""slice, concatenate, pad (negative edges, interior), reverse, dynamic-slice and
dynamic-update-slice (start clamping, scalar or vector start indices).

Values from OPS.md examples and the conformance files; numpy and jax as oracles.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator
from xlapy.ir import HloInstruction, HloModule, Opcode
from xlapy.ir.attrs import PaddingConfig, SliceDimension, SliceSpec
from xlapy.literal import shape_of
from xlapy.shape import Shape

A = np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32)
B = np.arange(12, dtype=np.float32).reshape(4, 3)


def evaluate(opcode, dims, values, attrs=None, element_type=None):
    """Evaluates one instruction on ``values``; the result has ``dims`` and the element type
    of the first value (or ``element_type``)."""
    values = [np.asarray(v) for v in values]
    params = [
        HloInstruction(Opcode.PARAMETER, shape_of(v), attrs={"parameter_number": i})
        for i, v in enumerate(values)
    ]
    t = element_type or dtypes.from_numpy(values[0].dtype)
    instr = HloInstruction(opcode, Shape.array(t, dims), params, attrs, name=f"{opcode.value}.1")
    return Evaluator(HloModule("m")).evaluate(instr, values)


def assert_same(got, want):
    __tracebackhide__ = True
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.tobytes() == want.tobytes(), f"got {got!r}, expected {want!r}"


def slice_attrs(*triples):
    return {"slice": SliceSpec(tuple(SliceDimension(*t) for t in triples))}


# ---- slice ---------------------------------------------------------------------------------


def test_slice_ops_md_examples():
    assert_same(evaluate(Opcode.SLICE, [2], [A], slice_attrs((2, 4, 1))), A[2:4])
    got = evaluate(Opcode.SLICE, [2, 2], [B], slice_attrs((2, 4, 1), (1, 3, 1)))
    assert_same(got, np.array([[7.0, 8.0], [10.0, 11.0]], np.float32))
    seven = np.arange(7, dtype=np.int64)
    assert_same(evaluate(Opcode.SLICE, [3], [seven], slice_attrs((1, 6, 2))), [1, 3, 5])


def test_slice_strided_shape_of_seed_004():
    x = np.zeros((10, 20, 50), np.int8)
    got = evaluate(Opcode.SLICE, [5, 3, 25], [x], slice_attrs((5, 10, 1), (3, 20, 7), (0, 50, 2)))
    assert got.shape == (5, 3, 25)


def test_slice_limit_past_the_dimension_is_an_error():
    with pytest.raises(InvalidArgument, match=r"slice .* \[C3\]: dimension 0 needs"):
        evaluate(Opcode.SLICE, [2], [A], slice_attrs((4, 6, 1)))


# ---- concatenate ---------------------------------------------------------------------------


def test_concatenate_ops_md_examples():
    parts = [np.array([2, 3], np.int32), np.array([4, 5], np.int32), np.array([6, 7], np.int32)]
    got = evaluate(Opcode.CONCATENATE, [6], parts, {"dimensions": (0,)})
    assert_same(got, np.arange(2, 8, dtype=np.int32))
    a = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    b = np.array([[7, 8]], np.int32)
    got = evaluate(Opcode.CONCATENATE, [4, 2], [a, b], {"dimensions": (0,)})
    assert_same(got, np.arange(1, 9, dtype=np.int32).reshape(4, 2))


def test_concatenate_mismatched_dimensions_is_an_error():
    with pytest.raises(InvalidArgument, match=r"concatenate .* \[C2\]: .*input 1"):
        evaluate(
            Opcode.CONCATENATE,
            [4, 2],
            [np.zeros((3, 2), np.int8), np.zeros((1, 3), np.int8)],
            {"dimensions": (0,)},
        )


# ---- pad -----------------------------------------------------------------------------------


def pad(x, value, *triples):
    x = np.asarray(x)
    config = PaddingConfig.make(triples)
    dims = [
        lo + hi + n + max(n - 1, 0) * it for (lo, hi, it), n in zip(triples, x.shape, strict=True)
    ]
    return evaluate(Opcode.PAD, dims, [x, np.asarray(value, x.dtype)], {"padding": config})


def test_pad_ops_md_examples():
    x = np.array([1, 2, 3], np.int32)
    assert_same(pad(x, 0, (1, 2, 1)), np.array([0, 1, 0, 2, 0, 3, 0, 0], np.int32))
    assert_same(pad(x, 0, (-1, -1, 1)), np.array([0, 2, 0], np.int32))
    got = pad(np.array([[1, 2], [3, 4]], np.int32), 0, (1, 0, 0), (0, 1, 1))
    assert_same(got, np.array([[0, 0, 0, 0], [1, 0, 2, 0], [3, 0, 4, 0]], np.int32))


def test_pad_conformance_values():
    """interpret/pad.mlir: low [1, -1], high [1, -1], interior [0, 1], padding value -1."""
    x = np.array([[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0], [0, 0, 0, 0]], np.int64)
    got = pad(x, -1, (1, 1, 0), (-1, -1, 1))
    want = [
        [-1, -1, -1, -1, -1],
        [-1, 0, -1, 0, -1],
        [-1, 1, -1, 2, -1],
        [-1, 3, -1, 4, -1],
        [-1, 5, -1, 6, -1],
        [-1, 0, -1, 0, -1],
        [-1, -1, -1, -1, -1],
    ]
    assert_same(got, np.array(want, np.int64))


def test_pad_keeps_bits_of_the_padding_value():
    got = pad(np.array([1.0], np.float32), np.float32(-0.0), (1, 1, 0))
    assert got.view(np.uint32).tolist() == [0x80000000, 0x3F800000, 0x80000000]


def test_pad_negative_size_is_an_error():
    with pytest.raises(InvalidArgument, match=r"pad .* \[C4\]: result dimensions must be >= 0"):
        evaluate(
            Opcode.PAD,
            [0],
            [np.zeros(2, np.int8), np.int8(0)],
            {"padding": PaddingConfig.make([(-2, -1, 0)])},
        )


def test_pad_matches_numpy_reference():
    rng = np.random.default_rng(1)
    for _ in range(40):
        x = rng.integers(-9, 9, size=tuple(rng.integers(0, 4, size=2))).astype(np.int16)
        triples = [
            (int(rng.integers(-3, 3)), int(rng.integers(-3, 3)), int(rng.integers(0, 3)))
            for _ in range(2)
        ]
        sizes = [
            lo + hi + n + max(n - 1, 0) * it
            for (lo, hi, it), n in zip(triples, x.shape, strict=True)
        ]
        if min(sizes) < 0:
            continue
        # Reference: interior-pad, then edge-pad with a large positive pad, then crop.
        interior = np.full(
            [n + max(n - 1, 0) * it for (_, _, it), n in zip(triples, x.shape, strict=True)],
            7,
            np.int16,
        )
        interior[tuple(slice(None, None, it + 1) for (_, _, it) in triples)] = x
        big = np.pad(interior, [(3, 3)] * 2, constant_values=7)
        want = big[
            tuple(
                slice(3 - lo, 3 + m + hi)
                for (lo, hi, _), m in zip(triples, interior.shape, strict=True)
            )
        ]
        assert_same(pad(x, 7, *triples), want)


# ---- reverse -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dims", "want"),
    [
        ((1,), [[3, 2, 1], [6, 5, 4]]),
        ((0,), [[4, 5, 6], [1, 2, 3]]),
        ((0, 1), [[6, 5, 4], [3, 2, 1]]),
    ],
)
def test_reverse_ops_md_examples(dims, want):
    x = np.array([[1, 2, 3], [4, 5, 6]], np.uint8)
    assert_same(
        evaluate(Opcode.REVERSE, [2, 3], [x], {"dimensions": dims}), np.array(want, np.uint8)
    )


# ---- dynamic-slice -------------------------------------------------------------------------


def dynamic_slice(x, starts, sizes):
    return evaluate(
        Opcode.DYNAMIC_SLICE, sizes, [x, *starts], {"dynamic_slice_sizes": tuple(sizes)}
    )


def test_dynamic_slice_ops_md_examples():
    assert_same(dynamic_slice(A, [np.int32(2)], [2]), A[2:4])
    got = dynamic_slice(B, [np.int64(2), np.int64(1)], [2, 2])
    assert_same(got, np.array([[7.0, 8.0], [10.0, 11.0]], np.float32))


@pytest.mark.parametrize(
    ("start", "want"),
    [(np.int32(4), [3.0, 4.0]), (np.int32(-1), [0.0, 1.0]), (np.uint64(2**64 - 1), [3.0, 4.0])],
)
def test_dynamic_slice_clamps_the_start(start, want):
    assert_same(dynamic_slice(A, [start], [2]), np.array(want, np.float32))


def test_dynamic_slice_takes_one_index_vector():
    got = dynamic_slice(B, [np.array([3, 1], np.int32)], [2, 2])
    assert_same(got, np.array([[7.0, 8.0], [10.0, 11.0]], np.float32))


def test_dynamic_slice_wrong_index_count_is_an_error():
    with pytest.raises(InvalidArgument, match=r"dynamic-slice .* \[C2\]: start_indices must be 2"):
        dynamic_slice(B, [np.int32(1)], [2, 2])


# ---- dynamic-update-slice ------------------------------------------------------------------


def test_dynamic_update_slice_ops_md_examples():
    u = np.array([5.0, 6.0], np.float32)
    got = evaluate(Opcode.DYNAMIC_UPDATE_SLICE, [5], [A, u, np.int32(2)])
    assert_same(got, np.array([0.0, 1.0, 5.0, 6.0, 4.0], np.float32))
    u2 = np.arange(12, 18, dtype=np.float32).reshape(3, 2)
    got = evaluate(Opcode.DYNAMIC_UPDATE_SLICE, [4, 3], [B, u2, np.int32(1), np.int32(1)])
    want = B.copy()
    want[1:4, 1:3] = u2
    assert_same(got, want)


def test_dynamic_update_slice_clamps_and_does_not_mutate():
    before = A.copy()
    u = np.array([5.0, 6.0], np.float32)
    got = evaluate(Opcode.DYNAMIC_UPDATE_SLICE, [5], [A, u, np.int64(4)])
    assert_same(got, np.array([0.0, 1.0, 2.0, 5.0, 6.0], np.float32))
    assert_same(A, before)


# ---- against jax ---------------------------------------------------------------------------


def _oracle():
    pytest.importorskip("jax")  # the oracle module needs it; skip cleanly without
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "property"))
    import oracle

    return oracle


def test_against_jax():
    oracle = _oracle()
    lax = oracle.jax.lax
    x = (np.arange(60, dtype=np.float32).reshape(3, 4, 5) - 20) / 3
    i = np.array([2, -1, 7], np.int32)
    oracle.check(lambda x: lax.slice(x, (0, 1, 1), (3, 4, 5), (2, 2, 3)), [x])
    oracle.check(lambda x: lax.pad(x, np.float32(-1), [(1, -1, 1), (0, 2, 0), (-2, 1, 2)]), [x])
    oracle.check(lambda x: lax.rev(x, (0, 2)), [x])
    oracle.check(lambda x: lax.concatenate([x, x[:, :1], x[:, 2:]], 1), [x])
    oracle.check(lambda x, i: lax.dynamic_slice(x, (i[0], i[1], i[2]), (2, 3, 2)), [x, i])
    oracle.check(
        lambda x, i: lax.dynamic_update_slice(x, x[:2, :2, :2] * 2, (i[0], i[2], i[1])), [x, i]
    )
