"""sort (variadic, any comparator, fast path = merge-sort path) and topk.

Values from OPS.md and the conformance files; numpy and jax as oracles.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.text.hlo_parser import parse_hlo


def shape_text(a):
    return f"{dtypes.from_numpy(a.dtype)}[{','.join(map(str, a.shape))}]"


def comparator(types, root, extra=""):
    """A comparator over ``types`` (one per operand) whose root is ``root``."""
    params = "\n".join(
        f"  p{2 * k + j} = {t}[] parameter({2 * k + j})"
        for k, t in enumerate(types)
        for j in (0, 1)
    )
    return f"cmp {{\n{params}\n{extra}  ROOT r = pred[] {root}\n}}"


def less_than(t, k=0, direction="LT", ctype=""):
    """``compare(p[2k], p[2k+1])``, the fast-path form."""
    suffix = f", type={ctype}" if ctype else ""
    return f"compare(p{2 * k}, p{2 * k + 1}), direction={direction}{suffix}"


def sort(inputs, dimension, root, extra="", is_stable=True, flush=False):
    inputs = [np.asarray(x) for x in inputs]
    types = [dtypes.from_numpy(x.dtype) for x in inputs]
    params = "\n".join(f"  x{i} = {shape_text(x)} parameter({i})" for i, x in enumerate(inputs))
    names = ", ".join(f"x{i}" for i in range(len(inputs)))
    result = (
        shape_text(inputs[0])
        if len(inputs) == 1
        else "(" + ", ".join(shape_text(x) for x in inputs) + ")"
    )
    stable = ", is_stable=true" if is_stable else ""
    text = f"""HloModule m
{comparator(types, root, extra)}
ENTRY e {{
{params}
  ROOT s = {result} sort({names}), dimensions={{{dimension}}}{stable}, to_apply=cmp
}}"""
    # Syntax-only parsing: these tests reach the evaluator's own checks (xlapy.load would
    # already reject an ill-typed program with the same constraint label).
    return xlapy.run(parse_hlo(text), *inputs, flush_denormals=flush, platform="interpreter")


def assert_same(got, want):
    __tracebackhide__ = True
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.tobytes() == want.tobytes(), f"got {got!r}, expected {want!r}"


# A comparator the fast path does not recognise: the same LT, reached through a select.
def indirect(t, direction="LT", ctype=""):
    suffix = f", type={ctype}" if ctype else ""
    extra = (
        f"  c = pred[] compare(p0, p1), direction={direction}{suffix}\n"
        "  f = pred[] constant(false)\n"
    )
    return "select(c, c, f)", extra


# ---- sort ----------------------------------------------------------------------------------


def test_sort_ops_md_three_operands():
    got = sort(
        [
            np.array([3, 1], np.int32),
            np.array([42, 50], np.int32),
            np.array([-3.0, 1.1], np.float32),
        ],
        0,
        less_than("s32"),
    )
    assert_same(got[0], np.array([1, 3], np.int32))
    assert_same(got[1], np.array([50, 42], np.int32))
    assert_same(got[2], np.array([1.1, -3.0], np.float32))


@pytest.mark.parametrize(("dimension", "want"), [(0, [[2, 1], [3, 4]]), (1, [[1, 3], [2, 4]])])
def test_sort_ops_md_dimensions(dimension, want):
    (got,) = sort([np.array([[3, 1], [2, 4]], np.int64)], dimension, less_than("s64"))
    assert_same(got, np.array(want, np.int64))


@pytest.mark.parametrize("general", [False, True])
def test_sort_is_stable(general):
    keys, values = np.array([2, 1, 2, 1], np.int32), np.array([10, 20, 30, 40], np.int32)
    root, extra = indirect("s32") if general else (less_than("s32"), "")
    got = sort([keys, values], 0, root, extra)
    assert_same(got[0], np.array([1, 1, 2, 2], np.int32))
    assert_same(got[1], np.array([20, 40, 10, 30], np.int32))


def test_sort_conformance_stable_gt():
    got = sort(
        [np.array([[1, 2, 3], [3, 2, 1]], np.int64), np.array([[3, 2, 1], [1, 2, 3]], np.int64)],
        0,
        less_than("s64", direction="GT"),
    )
    assert_same(got[0], np.array([[3, 2, 3], [1, 2, 1]], np.int64))
    assert_same(got[1], np.array([[1, 2, 1], [3, 2, 3]], np.int64))


@pytest.mark.parametrize("general", [False, True])
def test_sort_conformance_issue_2440(general):
    x = np.array(
        [
            [0, 1, 1, -3, -3, -2, 0],
            [4, -1, 3, 0, 4, 0, -3],
            [1, 0, 0, 0, 0, 2, 3],
            [-3, -4, -4, -2, 0, 3, 3],
            [0, 5, 2, -2, 0, -2, 0],
        ],
        np.int64,
    )
    root, extra = indirect("s64") if general else (less_than("s64", ctype="SIGNED"), "")
    (got,) = sort([x], 0, root, extra, is_stable=False)
    assert_same(got, np.sort(x, axis=0))


def test_general_comparator_lexicographic_matches_lexsort():
    """Two keys (first ascending, ties by the second descending) through the merge sort."""
    rng = np.random.default_rng(4)
    a = rng.integers(0, 4, size=(3, 37)).astype(np.uint8)
    b = rng.integers(-3, 3, size=(3, 37)).astype(np.int16)
    c = np.tile(np.arange(37, dtype=np.int32), (3, 1))
    extra = (
        "  lt = pred[] compare(p0, p1), direction=LT\n"
        "  eq = pred[] compare(p0, p1), direction=EQ\n"
        "  gt2 = pred[] compare(p2, p3), direction=GT\n"
        "  tie = pred[] and(eq, gt2)\n"
    )
    got = sort([a, b, c], 1, "or(lt, tie)", extra)
    for row in range(3):
        order = np.lexsort((c[row], -b[row].astype(np.int64), a[row]))
        assert_same(got[0][row], a[row][order])
        assert_same(got[1][row], b[row][order])
        assert_same(got[2][row], c[row][order])


SPECIALS = np.array(
    [1.0, np.nan, -0.0, 0.0, -np.inf, 3.0, -np.nan, np.inf, 0.0, -0.0, 1e-45, -2.0], np.float32
)


def total_order_sorted(x):
    """The stable sort of ``x`` by ``-NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN``."""
    bits = x.view(np.int32).astype(np.int64)
    key = np.where(bits < 0, -(bits & 0x7FFFFFFF) - 1, bits)
    return x[np.argsort(key, kind="stable")]


@pytest.mark.parametrize("general", [False, True])
def test_sort_totalorder_places_nans_and_signed_zeros(general):
    root, extra = indirect("f32", ctype="TOTALORDER") if general else (
        less_than("f32", ctype="TOTALORDER"), ""
    )  # fmt: skip
    (got,) = sort([SPECIALS], 0, root, extra)
    assert_same(got, total_order_sorted(SPECIALS))


def test_sort_float_lt_without_nans_keeps_equal_zeros_in_order():
    x = np.array([0.0, -1.0, -0.0, 2.0, 0.0], np.float32)
    for root, extra in [(less_than("f32"), ""), indirect("f32")]:
        (got,) = sort([x], 0, root, extra)
        assert (
            got.view(np.uint32).tolist()
            == np.array([-1.0, 0.0, -0.0, 0.0, 2.0], np.float32).view(np.uint32).tolist()
        )


def test_sort_float_lt_with_nans_returns_a_permutation():
    """LT is not a strict weak order with NaN; the result is still a permutation."""
    x = np.array([3.0, np.nan, 1.0, np.nan, 2.0, 0.5], np.float32)
    (got,) = sort([x], 0, less_than("f32"))
    assert sorted(got.view(np.uint32).tolist()) == sorted(x.view(np.uint32).tolist())


def test_sort_flushes_subnormal_keys_like_xla():
    """With flush_denormals, a subnormal key compares equal to zero (stable order kept)."""
    x = np.array([1e-45, 0.0, -1e-45, -0.0], np.float32)
    for root, extra in [(less_than("f32"), ""), indirect("f32")]:
        (got,) = sort([x], 0, root, extra, flush=True)
        assert_same(got, x)


def test_sort_inputs_of_different_shapes_is_an_error():
    with pytest.raises(InvalidArgument, match=r"sort .* \[C3\]: inputs must have equal"):
        sort([np.zeros(3, np.int32), np.zeros(2, np.int32)], 0, less_than("s32"))


# ---- topk ----------------------------------------------------------------------------------


def topk(x, k, largest=True):
    t = shape_text(x)
    out = shape_text(np.zeros((*x.shape[:-1], k), x.dtype))
    idx = shape_text(np.zeros((*x.shape[:-1], k), np.int32))
    text = f"""HloModule m
ENTRY e {{
  x = {t} parameter(0)
  ROOT t = ({out}, {idx}) topk(x), k={k}, largest={"true" if largest else "false"}
}}"""
    return xlapy.run(xlapy.load(text), x, platform="interpreter")


def test_topk_ops_md_examples():
    x = np.array([1, 3, 2, 3], np.int32)
    values, indices = topk(x, 2)
    assert_same(values, np.array([3, 3], np.int32))
    assert_same(indices, np.array([1, 3], np.int32))
    values, indices = topk(x, 2, largest=False)
    assert_same(values, np.array([1, 2], np.int32))
    assert_same(indices, np.array([0, 2], np.int32))


def test_topk_floats_as_xla():
    """XLA's top_k (a stable sort with a total-order GT): +NaN first, -NaN last, +0 before -0."""
    x = np.array([1.0, np.nan, -0.0, 0.0, 3.0, -np.nan, np.inf, 0.0, -0.0], np.float32)
    values, indices = topk(x, 9)
    assert indices.tolist() == [1, 6, 4, 0, 3, 7, 2, 8, 5]
    assert_same(values, x[indices])


def test_topk_rows():
    rng = np.random.default_rng(5)
    x = rng.integers(-5, 5, size=(4, 3, 10)).astype(np.int8)
    values, indices = topk(x, 4)
    order = np.argsort(-x.astype(np.int64), axis=-1, kind="stable")[..., :4]
    assert_same(indices, order.astype(np.int32))
    assert_same(values, np.take_along_axis(x, order, axis=-1))


# ---- against jax ---------------------------------------------------------------------------


def _oracle():
    pytest.importorskip("jax")  # the oracle module needs it; skip cleanly without
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "property"))
    import oracle

    return oracle


def test_sort_against_jax():
    oracle = _oracle()
    jnp, lax = oracle.jax.numpy, oracle.jax.lax
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 33)).astype(np.float32)
    x[0, :6] = [np.nan, -0.0, 0.0, 1e-40, -1e-40, -np.nan]
    x[1] = np.round(x[1])
    # The StableHLO reference interpreter orders NaNs differently under TOTALORDER (conformance
    # README); XLA puts +NaN last, as the total order says.
    xla = ("xla", "stablehlo")
    oracle.check(lambda x: jnp.sort(x, axis=1), [x], oracles=xla)
    oracle.check(lambda x: jnp.sort(x, axis=0, descending=True), [x], oracles=xla)
    oracle.check(lambda x: jnp.argsort(x, axis=1), [x], oracles=xla)
    keys = rng.integers(0, 3, size=(5, 20)).astype(np.int32)
    oracle.check(
        lambda k, x: lax.sort((k, x[:, :20] if x.shape[0] == 5 else x), num_keys=2),
        [keys, np.round(rng.standard_normal((5, 20)).astype(np.float32))],
    )
    c = (rng.standard_normal(30) + 1j * np.round(rng.standard_normal(30))).astype(np.complex64)
    oracle.check(lambda c: jnp.sort(c), [c])


def test_topk_against_jax():
    oracle = _oracle()
    lax = oracle.jax.lax
    rng = np.random.default_rng(7)
    x = np.round(rng.standard_normal((3, 17)) * 2).astype(np.float32)
    x[0, :4] = [np.nan, -0.0, 0.0, -np.nan]
    # The StableHLO reference interpreter's sort misorders NaN and signed zeros; XLA is the
    # oracle for floats.
    oracle.check(lambda x: lax.top_k(x, 5), [x], oracles=("xla", "stablehlo"))
    oracle.check(lambda x: lax.top_k(x, 6), [np.nan_to_num(x).astype(np.int16)])


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 31, 64, 100])
def test_merge_sort_matches_a_stable_argsort(n):
    """The merge-sort path on every run-length pattern (ragged last runs included)."""
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(n // 3, 2), size=(2, n)).astype(np.int32)
    positions = np.tile(np.arange(n, dtype=np.int32), (2, 1))
    root, extra = indirect("s32")
    got_keys, got_positions = sort([keys, positions], 1, root, extra)
    order = np.argsort(keys, axis=1, kind="stable")
    assert_same(got_positions, order.astype(np.int32))
    assert_same(got_keys, np.take_along_axis(keys, order, axis=1))


def test_xla_cpu_topk_custom_call():
    """XLA:CPU rewrites topk into custom-call "TopK" with a (values, indices) comparator."""
    import xlapy

    m = xlapy.load(
        """HloModule m

gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT c = pred[] compare(a, b), direction=GT, type=TOTALORDER
}

ENTRY main {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,2], s32[2,2]) custom-call(x), custom_call_target="TopK", called_computations={gt}
}
"""
    )
    x = np.array([[1, 5, 3, 5, 0], [-1, -2, np.nan, 7, 7]], np.float32)
    values, indices = xlapy.run(m, x, platform="interpreter")
    np.testing.assert_array_equal(values, np.array([[5, 5], [np.nan, 7]], np.float32))
    assert indices.tolist() == [[1, 3], [2, 3]]


@pytest.mark.parametrize("dims", [(0,), (3, 0), (0, 4)])
def test_sort_of_an_empty_dimension_returns_the_empty_operand(dims):
    """An empty array sorts to itself, whether the sorted dimension or a batch one is empty."""
    shape = ",".join(map(str, dims))
    module = parse_hlo(
        "HloModule s\ncmp { a = f32[] parameter(0)  b = f32[] parameter(1)\n"
        "  ROOT lt = pred[] compare(a, b), direction=LT }\n"
        f"ENTRY e {{ p = f32[{shape}] parameter(0)\n"
        f"  ROOT s = f32[{shape}] sort(p), dimensions={{{len(dims) - 1}}}, to_apply=cmp }}\n"
    )
    (got,) = xlapy.run(module, np.zeros(dims, np.float32), platform="interpreter")
    assert got.shape == dims
    assert got.dtype == np.float32
