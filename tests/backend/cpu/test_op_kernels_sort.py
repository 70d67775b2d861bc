"""The compiled sort kernel (and its quick-tier numpy form) against the interpreter, bit for bit: recognised comparators
(LT/GT, TOTALORDER, jax's NaN/-0 canonicalising key, lexicographic chains, payloads), every
key type, NaNs and signed zeros, sort dimensions, empty arrays; others get no kernel."""

import itertools
import tracemalloc

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same, build, random_array, root_of, run_both, type_name

import xlapy
from xlapy.backend.cpu.kernel import NoKernel, RunContext, generated_kernels
from xlapy.backend.cpu.kernels import sort_keys, topk
from xlapy.backend.cpu.kernels.radix import stable_argsort
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.text.hlo_parser import parse_hlo

JAX_KEY = """  ne.{s} = pred[] compare(p.{s}, p.{s}), direction=NE
  eq.{s} = pred[] compare(p.{s}, zero), direction=EQ
  sel.{s} = {t}[] select(eq.{s}, zero, p.{s})
  key.{s} = {t}[] select(ne.{s}, qnan, sel.{s})"""


def comparator(types, body):
    params = "\n".join(f"  p.{i} = {types[i // 2]}[] parameter({i})" for i in range(2 * len(types)))
    return f"cmp {{\n{params}\n{body}\n}}\n"


def sort_text(arrays, body, dimension=-1, extra=""):
    types = [type_name(a) for a in arrays]
    shape = ",".join(map(str, arrays[0].shape))
    dim = dimension % arrays[0].ndim
    params = "\n".join(f"  a{i} = {t}[{shape}] parameter({i})" for i, t in enumerate(types))
    names = ", ".join(f"a{i}" for i in range(len(arrays)))
    if len(arrays) == 1:
        result = f"{types[0]}[{shape}]"
    else:
        result = "(" + ", ".join(f"{t}[{shape}]" for t in types) + ")"
    return f"""HloModule m
{comparator(types, body + extra)}
ENTRY e {{
{params}
  ROOT s = {result} sort({names}), dimensions={{{dim}}}, is_stable=true, to_apply=cmp
}}"""


def special_floats(rng, dtype, shape):
    x = random_array(rng, dtype, shape)
    flat = x.reshape(-1)
    picks = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, 1.0], np.float64)
    where = rng.integers(0, flat.size, flat.size // 3 + 1) if flat.size else []
    for i in where:
        flat[i] = picks[rng.integers(0, len(picks))]
    if dtype in (np.float32, np.float64) and flat.size:
        # NaNs with other payloads and signs
        bits = flat.view(f"u{flat.itemsize}")
        nan = ~np.uint64(0) >> np.uint64(64 - 8 * flat.itemsize)
        bits[0] = bits.dtype.type(nan)
    return x


LT = "  ROOT r = pred[] compare(p.0, p.1), direction=LT"
GT = "  ROOT r = pred[] compare(p.0, p.1), direction=GT"
LT_SWAPPED = "  ROOT r = pred[] compare(p.1, p.0), direction=LT"
LT_TOTAL = "  ROOT r = pred[] compare(p.0, p.1), direction=LT, type=TOTALORDER"
GT_TOTAL = "  ROOT r = pred[] compare(p.0, p.1), direction=GT, type=TOTALORDER"


def jax_body(t, direction="LT"):
    consts = f"  zero = {t}[] constant(0)\n  qnan = {t}[] constant(nan)\n"
    keys = JAX_KEY.format(s=0, t=t) + "\n" + JAX_KEY.format(s=1, t=t)
    root = f"  ROOT r = pred[] compare(key.0, key.1), direction={direction}, type=TOTALORDER"
    return consts + keys + "\n" + root


def check(text, *arrays, dimension=-1):
    """Kernel == interpreter, bit for bit. An empty sort dimension is compared with the
    operands themselves: the interpreter's eval fails on it (reshape(-1, 0))."""
    if arrays[0].ndim and arrays[0].shape[dimension] == 0:
        module = parse_hlo(text)
        got = build(module.entry.root).run(list(arrays), None)
        want = arrays[0] if len(arrays) == 1 else tuple(arrays)
        assert_same(got, want)
        return
    got, want, kernel = run_both(text, *arrays)
    assert kernel.exact
    assert_same(got, want)
    with generated_kernels(False):  # the quick tier: numpy's stable argsort, the same bits
        got, want, kernel = run_both(text, *arrays)
    assert kernel.how.startswith("numpy stable argsort")
    assert_same(got, want)


FLOATS = [np.float32, np.float64, ml_dtypes.bfloat16, np.float16]
INTS = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.bool_]
SHAPES = [(0,), (1,), (7,), (40,), (300,), (3, 50), (4, 0, 3), (2, 3, 33)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("body", [LT_TOTAL, GT_TOTAL, "jax", "jax_gt"])
def test_sort_float_total_order(dtype, body):
    rng = np.random.default_rng(0)
    t = np.dtype(dtype).name
    t = {"float32": "f32", "float64": "f64", "bfloat16": "bf16", "float16": "f16"}[t]
    text_body = {"jax": jax_body(t), "jax_gt": jax_body(t, "GT")}.get(body, body)
    for shape in SHAPES:
        x = special_floats(rng, dtype, shape)
        for dimension in range(len(shape)):
            check(sort_text([x], text_body, dimension), x, dimension=dimension)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("body", [LT, GT, LT_SWAPPED])
def test_sort_integers_with_payload(dtype, body):
    rng = np.random.default_rng(1)
    for shape in SHAPES:
        keys = random_array(rng, dtype, shape)
        if keys.size and dtype != np.bool_:
            keys.reshape(-1)[: keys.size // 2] %= 5  # many ties: stability matters
        payload = random_array(rng, np.float32, shape)
        for dimension in range(len(shape)):
            text = sort_text([keys, payload], body, dimension)
            check(text, keys, payload, dimension=dimension)


def test_sort_key_is_second_operand():
    rng = np.random.default_rng(2)
    values = random_array(rng, np.int32, (5, 64))
    keys = rng.integers(0, 4, (5, 64)).astype(np.int16)
    body = "  ROOT r = pred[] compare(p.2, p.3), direction=LT"
    text = sort_text([values, keys], body)
    got, want, _ = run_both(text, values, keys)
    assert_same(got, want)


def test_sort_float_compare_without_nan_and_with_nan_falls_back():
    rng = np.random.default_rng(3)
    x = random_array(rng, np.float32, (1000,))
    x[::7] = 0.0
    x[::11] = -0.0
    got, want, _ = run_both(sort_text([x], LT), x)
    assert_same(got, want)
    x[5] = np.nan  # not a strict weak order: the kernel runs the interpreter's eval
    got, want, _ = run_both(sort_text([x], LT), x)
    assert_same(got, want)


@pytest.mark.parametrize(("first", "second"), list(itertools.product(["LT", "GT"], ["LT", "GT"])))
def test_sort_lexicographic_two_keys(first, second):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, (4, 100)).astype(np.float32)
    a[0, :5] = np.nan
    b = rng.integers(-5, 5, (4, 100)).astype(np.int32)
    c = random_array(rng, np.uint8, (4, 100))
    body = f"""  lt0 = pred[] compare(p.0, p.1), direction={first}, type=TOTALORDER
  eq0 = pred[] compare(p.0, p.1), direction=EQ, type=TOTALORDER
  lt1 = pred[] compare(p.2, p.3), direction={second}
  and0 = pred[] and(eq0, lt1)
  ROOT r = pred[] or(lt0, and0)"""
    got, want, kernel = run_both(sort_text([a, b, c], body), a, b, c)
    assert "2 key(s)" in kernel.how
    assert_same(got, want)


@pytest.mark.parametrize(
    "body",
    [
        "  ROOT r = pred[] compare(p.0, p.1), direction=LE",
        "  ROOT r = pred[] compare(p.0, p.2), direction=LT",
        "  neg = f32[] negate(p.0)\n  ROOT r = pred[] compare(neg, p.1), direction=LT",
        "  ROOT r = pred[] compare(p.0, p.0), direction=LT",
    ],
)
def test_sort_unrecognised_comparators_have_no_kernel(body):
    x = np.zeros(4, np.float32)
    module = parse_hlo(sort_text([x, x], body))
    with pytest.raises(NoKernel, match="comparator"):
        build(module.entry.root)


def test_sort_complex_key_has_no_kernel():
    x = np.zeros(4, np.complex64)
    text = sort_text([x], "  ROOT r = pred[] compare(p.0, p.1), direction=LT")
    with pytest.raises(NoKernel, match="complex"):
        build(parse_hlo(text).entry.root)


@pytest.mark.parametrize(
    ("index", "n", "iota_dimension"),
    [("s32", 300, 1), ("u8", 256, 1), ("s8", 300, 1), ("s32", 300, 0)],
    ids=str,
)
def test_argsort_of_an_iota_payload(index, n, iota_dimension):
    """jax's argsort sorts (x, iota along the dimension): the sorted iota is the order itself
    when it holds every index (an s8 iota of 300 wraps and one along another dimension
    repeats: those are gathered), on both tiers, with ties and NaNs."""
    rng = np.random.default_rng(n + iota_dimension)
    x = special_floats(rng, np.float32, (4, n))
    x[:, ::4] = x[:, 1::4]  # ties: the lower index first
    text = f"""HloModule m
{comparator(["f32", index], jax_body("f32"))}
ENTRY e {{
  a0 = f32[4,{n}] parameter(0)
  a1 = {index}[4,{n}] iota(), iota_dimension={iota_dimension}
  ROOT s = (f32[4,{n}], {index}[4,{n}]) sort(a0, a1), dimensions={{1}}, is_stable=true, to_apply=cmp
}}"""
    module = parse_hlo(text)
    iota = Evaluator(module, device=DeviceState()).evaluate(module.entry.root.operands[1], [])
    for generated in (True, False):
        with generated_kernels(generated):
            got, want, _ = run_both(text, x, iota)
        assert_same(got, want)
    order = np.argsort(x, axis=1, kind="stable")  # NaNs last, -0 == +0: jax's key order
    assert_same(want[1], np.take_along_axis(iota, order, axis=1))


def test_stable_argsort_long_rows_all_widths():
    rng = np.random.default_rng(5)
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        bits = rng.integers(0, np.iinfo(dtype).max, (3, 5000), dtype=dtype, endpoint=True)
        bits[:, ::3] = bits[:, 0:1]  # ties
        width = 8 * np.dtype(dtype).itemsize
        order = stable_argsort(bits, width, 0, False)
        np.testing.assert_array_equal(order, np.argsort(bits, axis=1, kind="stable"))
        order = stable_argsort(bits[:1], width, 0, True)
        np.testing.assert_array_equal(order[0], np.argsort(~bits[0], kind="stable"))


def topk_text(x, k, largest, index_type="s32"):
    shape = ",".join(map(str, x.shape))
    out = ",".join(map(str, (*x.shape[:-1], k)))
    t = type_name(x)
    return f"""HloModule m
ENTRY e {{
  a = {t}[{shape}] parameter(0)
  ROOT r = ({t}[{out}], {index_type}[{out}]) topk(a), k={k}, largest={str(largest).lower()}
}}"""


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int8, np.int32,
              np.uint16, np.uint64, np.int64, np.bool_]
)  # fmt: skip
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [0, 1, 5, 40, 200])
def test_topk_matches_the_interpreter(dtype, largest, k):
    rng = np.random.default_rng(k + 7 * largest)
    if np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16:
        x = special_floats(rng, dtype, (6, 200))
    else:
        x = random_array(rng, dtype, (6, 200))
        x[:, ::3] = x[:, 1::3][:, : x[:, ::3].shape[1]]  # repeated values: ties by index
    got, want, kernel = run_both(topk_text(x, k, largest), x)
    assert_same(got, want)
    assert ("selection" in kernel.how) == (k <= 128)
    with generated_kernels(False):
        got, want, kernel = run_both(topk_text(x, k, largest), x)
    assert_same(got, want)
    assert kernel.how.startswith("numpy selection")


@pytest.mark.parametrize("largest", [True, False])
def test_quick_topk_candidates_and_partition(largest):
    """The quick tier's two selections give the interpreter's bits: a row's few candidates
    (random rows with NaNs of both signs, signed zeros, ties) and the partition they leave
    to (sorted rows and all-equal rows have no few candidates)."""
    rng = np.random.default_rng(11)
    spread = rng.standard_normal((5, 1000)).astype(np.float32)
    spread[:, 100:110] = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 0, -0.0]
    spread[:, 500:600] = spread[:, 0:100]  # ties, decided by index
    ascending = np.sort(rng.standard_normal((3, 1000)).astype(np.float32), axis=1)
    cases = [(spread, True), (ascending, False), (np.full((2, 1000), 2.5, np.float32), False)]
    for x, few in cases:
        keys = sort_keys.encode_numpy(x.view(np.uint32), 32, sort_keys.TOTAL_ORDER, largest)
        for k in (1, 7, 20):
            if k > 1:  # (one candidate a row when k=1 on any row whose least key is unique)
                assert (topk._candidates(keys, k) is not None) == few
            with generated_kernels(False):
                got, want, _ = run_both(topk_text(x, k, largest), x)
            assert_same(got, want)


def test_topk_rank_three_and_many_ties():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, (2, 3, 50)).astype(np.float32)
    x[0, 0, 7] = -0.0
    got, want, _ = run_both(topk_text(x, 9, True), x)
    assert_same(got, want)
    got, want, _ = run_both(topk_text(x, 9, False), x)
    assert_same(got, want)


def test_topk_descending_input_fills_the_whole_buffer():
    x = np.arange(300, 0, -1, dtype=np.int32).reshape(1, 300)
    got, want, _ = run_both(topk_text(x, 128, False), x)
    assert_same(got, want)
    assert got[1][0, 0] == 299


@pytest.mark.parametrize("dtype", [*INTS, np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_sort_without_payload_sorts_the_keys_in_place(dtype, direction):
    """One operand, one-to-one keys: the keys are sorted themselves (no argsort); jax's key
    on data with no NaN and no -0 is the identity and takes the same path."""
    rng = np.random.default_rng(6)
    is_float = np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16
    for shape in [(5,), (300,), (3, 50), (2, 3, 33)]:
        x = random_array(rng, dtype, shape)
        if is_float:
            x[x == 0] = 1.0
            body = jax_body(type_name(x), direction)
        else:
            body = LT if direction == "LT" else GT
        for dimension in range(len(shape)):
            got, want, kernel = run_both(sort_text([x], body, dimension), x)
            assert "in place" in kernel.how
            assert_same(got, want)


def test_sort_1m_float32_peak_memory_is_about_its_result():
    """A compiled 1M-element f32 jnp.sort allocates its result and one scratch row of keys:
    the traced peak of a call stays under 2x the result (+ 256 KB), the key function being
    checked a chunk at a time."""
    x = np.random.default_rng(7).standard_normal(1 << 20).astype(np.float32)
    exe = xlapy.compile(xlapy.load(sort_text([x], jax_body("f32"))), platform="cpu")
    exe(x)  # warm
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        (got,) = exe(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(np.asarray(got), np.sort(x))
    assert peak < 2 * x.nbytes + (256 << 10), f"traced peak {peak} for a {x.nbytes}-byte result"


@pytest.mark.parametrize(
    ("text", "x"),
    [
        (sort_text([np.zeros((3, 50), np.float32)], LT_TOTAL), np.float32),
        (sort_text([np.zeros((1, 60), np.float64)] * 2, jax_body("f64")), np.float64),
        (sort_text([np.zeros((50, 3), np.int16)] * 2, LT, dimension=0), np.int16),
        (topk_text(np.zeros((6, 200), np.float32), 5, True), np.float32),
        (topk_text(np.zeros((6, 200), ml_dtypes.bfloat16), 200, False), ml_dtypes.bfloat16),
    ],
)
def test_kernels_are_typed_when_built(text, x, monkeypatch):
    """Building a sort or topk kernel types the radix kernels its calls take (numba
    dispatchers typed on first call), so a compiled tier compiles them in the tier worker and
    loads them while it is built: its calls, with writable or read-only operands, type
    nothing."""
    from numba.core.dispatcher import Dispatcher

    module = parse_hlo(text)
    params = module.entry.parameters
    arrays = [random_array(np.random.default_rng(5), x, p.shape.dims) for p in params]
    kernel = build(root_of(module))
    typing_call = Dispatcher._compile_for_args
    lazy = []

    def counted(self, *args, **kwargs):
        lazy.append(self.py_func.__name__)
        return typing_call(self, *args, **kwargs)

    monkeypatch.setattr(Dispatcher, "_compile_for_args", counted)
    got, want, _ = run_both(text, *arrays)
    assert_same(got, want)
    for a in arrays:  # as a program's parameters may be
        a.flags.writeable = False
    evaluator = Evaluator(module, device=DeviceState())
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    assert_same(kernel.run(arrays, ctx), want)
    assert lazy == [], kernel.how
