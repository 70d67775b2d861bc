"""gather and scatter: full dimension numbers (batching dims, index_vector_dim == rank),
gather clamping, scatter's skipped out-of-bounds windows, repeated indices in index order,
variadic scatter, fast paths equal to the general path.

Values from the conformance files and OPS.md; numpy loops and jax as oracles.
"""

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgument
from xlapy.text.hlo_parser import parse_hlo

OPERAND = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
START_INDICES = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], np.int64)
BATCHED_OPERAND = np.arange(1, 49, dtype=np.int64).reshape(2, 3, 4, 2)
BATCHED_INDICES = np.array(
    [
        [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
        [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]],
    ],
    np.int64,
)


def run_hlo(text, *args):
    # Syntax-only parsing: these tests reach the evaluator's own checks (xlapy.load would
    # already reject an ill-typed program with the same constraint label).
    results = xlapy.run(parse_hlo(text), *args, platform="interpreter")
    return results[0] if len(results) == 1 else results


def gather(operand, indices, result_dims, dimension_numbers, slice_sizes):
    o = f"{xlapy.dtypes.from_numpy(operand.dtype)}[{','.join(map(str, operand.shape))}]"
    i = f"{xlapy.dtypes.from_numpy(indices.dtype)}[{','.join(map(str, indices.shape))}]"
    r = f"{xlapy.dtypes.from_numpy(operand.dtype)}[{','.join(map(str, result_dims))}]"
    sizes = ",".join(map(str, slice_sizes))
    text = f"""HloModule m
ENTRY e {{
  p = {o} parameter(0)
  i = {i} parameter(1)
  ROOT g = {r} gather(p, i), {dimension_numbers}, slice_sizes={{{sizes}}}
}}"""
    return run_hlo(text, operand, indices)


def assert_same(got, want):
    __tracebackhide__ = True
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.tobytes() == want.tobytes(), f"got {got!r}, expected {want!r}"


# ---- gather --------------------------------------------------------------------------------


def test_gather_conformance_with_clamping():
    """interpret/gather.mlir: index [0, 9] is clamped to the last valid start."""
    got = gather(
        OPERAND,
        START_INDICES,
        [2, 3, 2, 2],
        "offset_dims={2,3}, collapsed_slice_dims={0}, start_index_map={1,0}, index_vector_dim=2",
        [1, 2, 2],
    )
    want = [
        [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
        [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]],
    ]
    assert_same(got, np.array(want, np.int64))


def test_gather_conformance_with_batching_dims():
    got = gather(
        BATCHED_OPERAND,
        BATCHED_INDICES,
        [2, 2, 3, 2, 2],
        "offset_dims={3,4}, collapsed_slice_dims={1}, start_index_map={2,1}, "
        "operand_batching_dims={0}, start_indices_batching_dims={1}, index_vector_dim=3",
        [1, 1, 2, 2],
    )
    want = [
        [
            [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
            [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]],
        ],
        [
            [[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
            [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]],
        ],
    ]
    assert_same(got, np.array(want, np.int64))


def test_gather_ops_md_examples():
    x = np.arange(9, dtype=np.int32).reshape(3, 3)
    got = gather(
        x,
        np.array([[0, 1], [1, 0]], np.int32),
        [2, 2, 2],
        "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1",
        [2, 2],
    )
    assert_same(got, np.array([[[1, 2], [4, 5]], [[3, 4], [6, 7]]], np.int32))
    got = gather(
        x,
        np.array([[2], [0]], np.int32),
        [2, 3],
        "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1",
        [1, 3],
    )
    assert_same(got, np.array([[6, 7, 8], [0, 1, 2]], np.int32))


def test_gather_index_vector_dim_equal_to_rank():
    """start_indices s32[2,2] with index_vector_dim=2 reads as s32[2,2,1] (gather_nd rows)."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = gather(
        x,
        np.array([[3, 0], [1, 1]], np.uint8),
        [2, 2, 3],
        "offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2",
        [1, 3],
    )
    assert_same(got, x[np.array([[3, 0], [1, 1]])])


def test_gather_matches_a_per_element_loop():
    """operand_index = clamp(full_start_index) + full_offset_index, element by element."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 100, size=(5, 4, 6)).astype(np.int16)
    indices = rng.integers(-3, 8, size=(3, 2, 2)).astype(np.int32)
    slice_sizes = (2, 1, 3)
    got = gather(
        x,
        indices,
        [3, 2, 3, 2],
        "offset_dims={1,2}, collapsed_slice_dims={1}, start_index_map={2,0}, index_vector_dim=1",
        slice_sizes,
    )
    for b0, b1, o0, o2 in itertools.product(range(3), range(2), range(2), range(3)):
        start = [0, 0, 0]
        start[2] = int(np.clip(indices[b0, 0, b1], 0, 6 - 3))
        start[0] = int(np.clip(indices[b0, 1, b1], 0, 5 - 2))
        assert got[b0, o0, o2, b1] == x[start[0] + o0, start[1], start[2] + o2]


def test_gather_collapsed_slice_dims_must_have_size_one():
    with pytest.raises(InvalidArgument, match=r"gather .* \[C9/C12\]: collapsed"):
        gather(
            OPERAND,
            START_INDICES,
            [2, 3, 2, 2],
            "offset_dims={2,3}, collapsed_slice_dims={0}, start_index_map={1,0}, "
            "index_vector_dim=2",
            [2, 2, 2],
        )


# ---- scatter -------------------------------------------------------------------------------


def scatter(inputs, indices, updates, dimension_numbers, body="add", result_type=None):
    """Scatter with a scalar body: ``add``/``maximum``/... or a full computation text."""
    inputs = inputs if isinstance(inputs, list) else [inputs]
    updates = updates if isinstance(updates, list) else [updates]

    def shape(a):
        return f"{xlapy.dtypes.from_numpy(a.dtype)}[{','.join(map(str, a.shape))}]"

    t = xlapy.dtypes.from_numpy(inputs[0].dtype)
    if body in ("add", "multiply", "maximum", "minimum", "and", "or", "subtract"):
        body = (
            f"body {{ a = {t}[] parameter(0)\n b = {t}[] parameter(1)\n"
            f" ROOT r = {t}[] {body}(a, b) }}"
        )
    n = len(inputs)
    params = [
        f"p{i} = {shape(a)} parameter({i})" for i, a in enumerate([*inputs, indices, *updates])
    ]
    names = ", ".join(f"p{i}" for i in range(2 * n + 1))
    result = result_type or (
        shape(inputs[0]) if n == 1 else "(" + ", ".join(shape(a) for a in inputs) + ")"
    )
    text = f"""HloModule m
{body}
ENTRY e {{
  {chr(10).join(params)}
  ROOT s = {result} scatter({names}), {dimension_numbers}, to_apply=body
}}"""
    return run_hlo(text, *inputs, indices, *updates)


def test_scatter_conformance():
    got = scatter(
        OPERAND,
        np.array([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]], np.int64),
        np.ones((2, 3, 2, 2), np.int64),
        "update_window_dims={2,3}, inserted_window_dims={0}, scatter_dims_to_operand_dims={1,0}, "
        "index_vector_dim=2",
    )
    want = [
        [[1, 2], [5, 6], [7, 8], [7, 8]],
        [[10, 11], [12, 13], [14, 15], [16, 17]],
        [[18, 19], [20, 21], [21, 22], [23, 24]],
    ]
    assert_same(got, np.array(want, np.int64))
    assert_same(OPERAND, np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2))


def test_scatter_conformance_with_batching_dims():
    got = scatter(
        BATCHED_OPERAND,
        BATCHED_INDICES,
        np.ones((2, 2, 3, 2, 2), np.int64),
        "update_window_dims={3,4}, inserted_window_dims={1}, input_batching_dims={0}, "
        "scatter_indices_batching_dims={1}, scatter_dims_to_operand_dims={2,1}, index_vector_dim=3",
    )
    want = [
        [
            [[3, 4], [6, 7], [6, 7], [7, 8]],
            [[9, 10], [11, 12], [15, 16], [17, 18]],
            [[17, 18], [19, 20], [22, 23], [24, 25]],
        ],
        [
            [[25, 26], [28, 29], [30, 31], [31, 32]],
            [[35, 36], [38, 39], [38, 39], [39, 40]],
            [[41, 42], [44, 45], [46, 47], [47, 48]],
        ],
    ]
    assert_same(got, np.array(want, np.int64))


def test_scatter_ops_md_examples():
    got = scatter(
        np.zeros(5, np.float32),
        np.array([[1], [3], [1]], np.int32),
        np.array([10, 20, 30], np.float32),
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1",
    )
    assert_same(got, np.array([0, 40, 0, 20, 0], np.float32))
    got = scatter(
        np.zeros((3, 3), np.float32),
        np.array([[1]], np.int32),
        np.array([[1, 2, 3]], np.float32),
        "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1",
    )
    assert_same(got, np.array([[0, 0, 0], [1, 2, 3], [0, 0, 0]], np.float32))


WINDOWS_1D = (
    "update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, "
    "index_vector_dim=1"
)


def test_scatter_skips_windows_that_do_not_fit():
    """As XLA: a window starting at 4 (size 2, operand 5) or at -1 is dropped entirely."""
    got = scatter(
        np.zeros(5, np.int32),
        np.array([[3], [4], [-1], [1]], np.int32),
        np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int32),
        WINDOWS_1D,
    )
    assert_same(got, np.array([0, 7, 8, 1, 2], np.int32))


def test_scatter_applies_repeated_indices_in_index_order():
    """A non-commutative body sees updates in scatter-index order: (((x - 1) - 2) - 3)."""
    got = scatter(
        np.array([100, 0], np.int32),
        np.array([[0], [1], [0], [0]], np.int32),
        np.array([1, 5, 2, 3], np.int32),
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1",
        body="subtract",
    )
    assert_same(got, np.array([94, -5], np.int32))
    # Floats: the additions happen in order, so rounding is that of the sequential sum.
    updates = np.array([1.0, 1e8, -1e8, 1.0], np.float32)
    got = scatter(
        np.zeros(1, np.float32),
        np.zeros((4, 1), np.int32),
        updates,
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1",
    )
    total = np.float32(0)
    for u in updates:
        total = np.float32(total + u)
    assert_same(got, np.array([total], np.float32))


def test_scatter_replace_keeps_the_last_update():
    body = "body { a = f32[] parameter(0)\n ROOT b = f32[] parameter(1) }"
    got = scatter(
        np.zeros(3, np.float32),
        np.array([[2], [0], [2], [2]], np.int32),
        np.array([1, 2, 3, -0.0], np.float32),
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1",
        body=body,
    )
    assert_same(got, np.array([2, 0, -0.0], np.float32))


def test_scatter_variadic():
    """Two inputs and a tuple body (sum, and the max of the second)."""
    body = """body {
  a0 = s32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = f32[] parameter(3)
  s = s32[] add(a0, b0)
  m = f32[] maximum(a1, b1)
  ROOT t = (s32[], f32[]) tuple(s, m)
}"""
    got = scatter(
        [np.zeros(3, np.int32), np.full(3, -1.0, np.float32)],
        np.array([[1], [1], [2]], np.int32),
        [np.array([1, 2, 3], np.int32), np.array([0.5, 2.5, -4.0], np.float32)],
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1",
        body=body,
    )
    assert_same(got[0], np.array([0, 3, 3], np.int32))
    assert_same(got[1], np.array([-1.0, 2.5, -1.0], np.float32))


@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "minimum", "and", "or"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.bool_])
def test_scatter_fast_path_equals_general_path(op, dtype):
    """A body ``op(a, b)`` takes the numpy ``ufunc.at`` path; the same op behind a
    ``select(true, ...)`` is not recognised and takes the general path (rounds of body calls):
    both equal the sequential definition, out-of-bounds rows skipped."""
    if dtype is np.bool_ and op in ("add", "multiply"):
        pytest.skip("pred add/multiply are not fast-path ops")
    rng = np.random.default_rng(3)
    operand = rng.integers(0, 120, size=(6, 4)).astype(dtype)
    indices = rng.integers(-1, 7, size=(30, 1)).astype(np.int32)
    updates = rng.integers(0, 120, size=(30, 4)).astype(dtype)
    dims = (
        "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    fast = scatter(operand, indices, updates, dims, body=op)
    t = xlapy.dtypes.from_numpy(np.dtype(dtype))
    general_body = f"""body {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  c = pred[] constant(true)
  r = {t}[] {op}(a, b)
  ROOT s = {t}[] select(c, r, a)
}}"""
    general = scatter(operand, indices, updates, dims, body=general_body)
    assert_same(fast, general)
    # And both equal the sequential definition.
    want = operand.copy()
    ufunc = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
             "and": np.bitwise_and, "or": np.bitwise_or}[op]  # fmt: skip
    for k, i in enumerate(indices[:, 0]):
        if 0 <= i < 6:
            want[i] = ufunc(want[i], updates[k])
    assert_same(fast, want)


def test_scatter_wrong_update_shape_is_an_error():
    with pytest.raises(InvalidArgument, match=r"scatter .* \[C4\]"):
        scatter(np.zeros(5, np.int32), np.zeros((3, 1), np.int32), np.zeros((2,), np.int32),
                "update_window_dims={}, inserted_window_dims={0}, "
                "scatter_dims_to_operand_dims={0}, index_vector_dim=1")  # fmt: skip


# ---- against jax ---------------------------------------------------------------------------


def _oracle():
    pytest.importorskip("jax")  # the oracle module needs it; skip cleanly without
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "property"))
    import oracle

    return oracle


def test_gather_against_jax():
    oracle = _oracle()
    jnp, lax = oracle.jax.numpy, oracle.jax.lax
    x = (np.arange(120, dtype=np.float32).reshape(4, 5, 6) - 50) / 7
    i = np.array([[3, 1], [0, 4], [-2, 9], [1, 1]], np.int32)
    oracle.check(lambda x, i: x[i[:, 0], :, i[:, 1]], [x, i])
    oracle.check(lambda x, i: jnp.take_along_axis(x, jnp.abs(i[:, :1, None]) % 5, axis=1), [x, i])
    dn = lax.GatherDimensionNumbers(
        offset_dims=(1,),
        collapsed_slice_dims=(1,),
        start_index_map=(1,),
        operand_batching_dims=(0,),
        start_indices_batching_dims=(0,),
    )
    oracle.check(
        lambda x, i: lax.gather(x, i[:, :1], dn, (1, 1, 6), mode=lax.GatherScatterMode.CLIP),
        [x, i],
    )


def test_scatter_against_jax():
    oracle = _oracle()
    x = np.zeros((6, 3), np.float32)
    i = np.array([0, 5, 2, 5, 5, 1, 0], np.int32)
    u = (np.arange(21, dtype=np.float32).reshape(7, 3) - 9) / 3
    oracle.check(lambda x, i, u: x.at[i].add(u), [x, i, u])
    oracle.check(lambda x, i, u: x.at[i].max(u), [x, i, u])
    oracle.check(lambda x, i, u: x.at[i].set(u, unique_indices=False), [x, i, u])
    xi = np.arange(18, dtype=np.int32).reshape(6, 3)
    ui = np.arange(21, dtype=np.int32).reshape(7, 3) * 1000003
    oracle.check(lambda x, i, u: x.at[i].mul(u), [xi, i, ui])
    oracle.check(lambda x, i, u: x.at[i, i % 3].add(u[:, 0]), [xi, i, ui])
