"""The compiled gather and scatter kernels (and the quick tier's numpy scatter) against the
interpreter, bit for bit: random dimension numbers (batching dims, index_vector_dim anywhere,
offset dims anywhere), every element type, out-of-bounds indices (clamped / skipped), repeated
indices, every combiner, NaNs and signed zeros, in-place scatter into donated inputs."""

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_same, build, random_array, run_both, shape_text, type_name

from xlapy.backend.cpu.kernel import NoKernel, RunContext, generated_kernels
from xlapy.text.hlo_parser import parse_hlo


def dims_text(values):
    return "{" + ",".join(map(str, values)) + "}"


def random_gather(rng, dtype):
    """A random valid gather: operand, indices and its HLO text."""
    rank = int(rng.integers(1, 4))
    operand_dims = [int(rng.integers(1, 5)) for _ in range(rank)]
    dims = list(range(rank))
    rng.shuffle(dims)
    n_batching = int(rng.integers(0, min(2, rank) + 1)) if rank > 1 else 0
    operand_batching = sorted(dims[:n_batching])
    rest = dims[n_batching:]
    n_collapsed = int(rng.integers(0, len(rest) + 1))
    collapsed = sorted(rest[:n_collapsed])
    # start_index_map: any subset of non-batching dims (in random order)
    candidates = [d for d in range(rank) if d not in operand_batching]
    n_map = int(rng.integers(0, len(candidates) + 1))
    index_map = list(rng.permutation(candidates)[:n_map])
    slice_sizes = [
        1 if d in collapsed or d in operand_batching else int(rng.integers(0, operand_dims[d] + 1))
        for d in range(rank)
    ]
    # indices: batch dims (sizes of the operand batching dims first), one index vector dim
    batch_sizes = [operand_dims[d] for d in operand_batching]
    extra = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    batch_shape = batch_sizes + extra
    order = rng.permutation(len(batch_shape))
    batch_shape = [batch_shape[i] for i in order]
    batching_positions = [int(np.where(order == k)[0][0]) for k in range(n_batching)]
    ivd = int(rng.integers(0, len(batch_shape) + 1))
    index_shape = list(batch_shape)
    index_shape.insert(ivd, len(index_map))
    index_batching = [p if p < ivd else p + 1 for p in batching_positions]
    if len(index_map) == 1 and rng.integers(0, 2):
        index_shape.pop(ivd)  # implicit trailing index vector dimension
        ivd = len(index_shape)
        index_batching = [p for p in batching_positions]
    indices = rng.integers(-3, 7, index_shape).astype(rng.choice([np.int32, np.int64, np.uint8]))
    offset_operand = [d for d in range(rank) if d not in collapsed and d not in operand_batching]
    result_rank = len(batch_shape) + len(offset_operand)
    offset_dims = sorted(rng.permutation(result_rank)[: len(offset_operand)].tolist())
    result = [0] * result_rank
    batch_iter = iter(batch_shape)
    offset_iter = iter(slice_sizes[d] for d in offset_operand)
    for d in range(result_rank):
        result[d] = next(offset_iter) if d in offset_dims else next(batch_iter)
    operand = random_array(rng, dtype, operand_dims)
    dtype_name = type_name(operand)
    attrs = (
        f"offset_dims={dims_text(offset_dims)}, collapsed_slice_dims={dims_text(collapsed)}, "
        f"start_index_map={dims_text(index_map)}, "
        f"operand_batching_dims={dims_text(operand_batching)}, "
        f"start_indices_batching_dims={dims_text(index_batching)}, "
        f"index_vector_dim={ivd}, slice_sizes={dims_text(slice_sizes)}"
    )
    text = f"""HloModule m
ENTRY e {{
  p = {shape_text(operand)} parameter(0)
  i = {shape_text(indices)} parameter(1)
  ROOT g = {dtype_name}[{",".join(map(str, result))}] gather(p, i), {attrs}
}}"""
    return operand, indices, text


DTYPES = [np.float32, np.int8, np.bool_, np.complex128, ml_dtypes.bfloat16, np.uint64, np.int16]


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_random_dimension_numbers(dtype):
    rng = np.random.default_rng(abs(hash(np.dtype(dtype).name)) % 2**32)
    for _ in range(60):
        operand, indices, text = random_gather(rng, dtype)
        got, want, kernel = run_both(text, operand, indices)
        assert kernel.exact
        assert_same(got, want)


def test_gather_embedding_lookup_clamps():
    rng = np.random.default_rng(1)
    table = random_array(rng, np.float32, (50, 16))
    ids = np.array([[0], [49], [-5], [80], [7]], np.int32)
    text = """HloModule m
ENTRY e {
  t = f32[50,16] parameter(0)
  i = s32[5,1] parameter(1)
  ROOT g = f32[5,16] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
}"""
    got, want, _ = run_both(text, table, ids)
    assert_same(got, want)
    assert_same(got, table[[0, 49, 0, 49, 7]])


def scatter_text(operand, indices, updates, attrs, body, t):
    return f"""HloModule m
upd {{
  x = {t}[] parameter(0)
  y = {t}[] parameter(1)
{body}
}}
ENTRY e {{
  p = {shape_text(operand)} parameter(0)
  i = {shape_text(indices)} parameter(1)
  u = {shape_text(updates)} parameter(2)
  ROOT s = {shape_text(operand)} scatter(p, i, u), {attrs}, to_apply=upd
}}"""


BODIES = {
    "replace": "  ROOT r = {t}[] parameter(1)",
    "add": "  ROOT r = {t}[] add(x, y)",
    "add_swapped": "  ROOT r = {t}[] add(y, x)",
    "multiply": "  ROOT r = {t}[] multiply(x, y)",
    "maximum": "  ROOT r = {t}[] maximum(x, y)",
    "minimum": "  ROOT r = {t}[] minimum(y, x)",
    "and": "  ROOT r = {t}[] and(x, y)",
    "or": "  ROOT r = {t}[] or(x, y)",
    "xor": "  ROOT r = {t}[] xor(y, x)",
}
SCATTER_TYPES = {
    np.float32: ["replace", "add", "add_swapped", "multiply", "maximum", "minimum"],
    np.float64: ["add", "maximum", "minimum"],
    np.int32: ["replace", "add", "multiply", "maximum", "minimum", "and", "or", "xor"],
    np.uint8: ["add", "multiply", "maximum", "xor"],
    np.int64: ["add", "multiply", "minimum"],
    np.bool_: ["replace", "add", "multiply", "maximum", "minimum", "and", "or", "xor"],
    np.complex64: ["replace", "add"],
    np.complex128: ["replace", "add"],
    ml_dtypes.bfloat16: ["replace"],
    np.float16: ["replace", "add", "add_swapped", "multiply"],
}


def random_scatter(rng, dtype, body):
    """A random scatter with the same dimension-number generator as gather: the gather's
    operand/indices/result become the scatter's input/indices/updates."""
    while True:
        operand, indices, gather = random_gather(rng, dtype)
        attrs = gather.split("gather(p, i), ")[1].split("\n")[0]
        parts = dict(p.split("=", 1) for p in attrs.split(", "))
        sizes = [int(v) for v in parts["slice_sizes"].strip("{}").split(",") if v]
        result = gather.split("ROOT g = ")[1].split(" gather")[0]
        result_dims = [int(v) for v in result.split("[")[1].rstrip("]").split(",") if v]
        if any(s == 0 for s in sizes):
            continue
        updates = random_array(rng, dtype, result_dims)
        scatter_attrs = (
            f"update_window_dims={parts['offset_dims']}, "
            f"inserted_window_dims={parts['collapsed_slice_dims']}, "
            f"scatter_dims_to_operand_dims={parts['start_index_map']}, "
            f"input_batching_dims={parts['operand_batching_dims']}, "
            f"scatter_indices_batching_dims={parts['start_indices_batching_dims']}, "
            f"index_vector_dim={parts['index_vector_dim']}"
        )
        t = type_name(operand)
        text = scatter_text(operand, indices, updates, scatter_attrs, body.format(t=t), t)
        return operand, indices, updates, text


@pytest.mark.parametrize(
    ("dtype", "body"), [(d, b) for d, bodies in SCATTER_TYPES.items() for b in bodies]
)
def test_scatter_random_dimension_numbers(dtype, body):
    rng = np.random.default_rng(abs(hash((np.dtype(dtype).name, body))) % 2**32)
    for trial in range(40):
        operand, indices, updates, text = random_scatter(rng, dtype, BODIES[body])
        if np.dtype(dtype).kind == "f" and trial % 4 == 0 and updates.size:
            updates.reshape(-1)[0] = np.nan
            operand.reshape(-1)[-1] = -0.0
        got, want, kernel = run_both(text, operand, indices, updates, donate=trial % 2 == 1)
        assert kernel.exact
        assert_same(got, want)
        quick, _ = run_quick(text, operand, indices, updates, donate=trial % 2 == 0)
        assert_same(quick, got)


def run_quick(text, *args, donate=False):
    """``(value, kernel)`` of the quick tier's scatter (numpy) on ``args``; with ``donate``
    the input is donated and written in place."""
    with generated_kernels(False):
        got, _, kernel = run_both(text, *args, donate=donate)
    assert kernel.how.startswith("numpy scatter"), kernel.how
    return got, kernel


def test_scatter_add_repeated_indices_in_order_and_in_place():
    rng = np.random.default_rng(7)
    buckets = np.zeros(64, np.float32)
    idx = rng.integers(-4, 70, (5000, 1)).astype(np.int32)
    upd = (rng.standard_normal(5000) * 1e4).astype(np.float32)
    attrs = (
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    text = scatter_text(buckets, idx, upd, attrs, "  ROOT r = f32[] add(x, y)", "f32")
    got, want, _ = run_both(text, buckets, idx, upd)
    assert_same(got, want)
    # sequential order: equal to a Python loop in index order
    expected = buckets.copy()
    for i, u in zip(idx[:, 0], upd, strict=True):
        if 0 <= i < 64:
            expected[i] = np.float32(expected[i] + u)
    assert_same(got, expected)
    module = parse_hlo(text)
    kernel = build(module.entry.root)
    donated = buckets.copy()
    out = kernel.run([donated, idx, upd], RunContext(None, None, None, frozenset({0})))
    assert out is donated
    assert_same(out, expected)


def test_scatter_unrecognised_update_computation_has_no_kernel():
    operand = np.zeros(4, np.float32)
    idx = np.zeros((1, 1), np.int32)
    upd = np.zeros(1, np.float32)
    attrs = (
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    body = "  s = f32[] add(x, y)\n  ROOT r = f32[] multiply(s, y)"
    with pytest.raises(NoKernel, match="update computation"):
        build(parse_hlo(scatter_text(operand, idx, upd, attrs, body, "f32")).entry.root)
    body = "  ROOT r = c64[] multiply(x, y)"
    operand = operand.astype(np.complex64)
    upd = upd.astype(np.complex64)
    with pytest.raises(NoKernel, match="multiply of c64"):
        build(parse_hlo(scatter_text(operand, idx, upd, attrs, body, "c64")).entry.root)


def test_scatter_variadic_replace():
    rng = np.random.default_rng(8)
    a = random_array(rng, np.int32, (10, 3))
    b = random_array(rng, np.float32, (10, 3))
    idx = rng.integers(-1, 11, (6, 1)).astype(np.int64)
    ua = random_array(rng, np.int32, (6, 3))
    ub = random_array(rng, np.float32, (6, 3))
    text = """HloModule m
upd {
  x0 = s32[] parameter(0)
  x1 = f32[] parameter(1)
  y0 = s32[] parameter(2)
  y1 = f32[] parameter(3)
  ROOT r = (s32[], f32[]) tuple(y0, y1)
}
ENTRY e {
  a = s32[10,3] parameter(0)
  b = f32[10,3] parameter(1)
  i = s64[6,1] parameter(2)
  ua = s32[6,3] parameter(3)
  ub = f32[6,3] parameter(4)
  ROOT s = (s32[10,3], f32[10,3]) scatter(a, b, i, ua, ub), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=upd
}"""
    got, want, _ = run_both(text, a, b, idx, ua, ub)
    assert_same(got, want)


@pytest.mark.parametrize(
    ("operand", "window", "ids"),
    [
        pytest.param((64, 8), 8, "sorted", id="segment sum, rows of 8 held"),
        pytest.param((64,), 1, "sorted", id="segment sum, scalars held"),
        pytest.param((40,), 2, "overlapping", id="overlapping windows revisited"),
        pytest.param((64, 8), 8, "random", id="random rows"),
    ],
)
def test_scatter_add_holding_a_window_keeps_the_order(operand, window, ids):
    """A contiguous window held in variables while the start repeats (a sorted segment sum)
    gives the interpreter's bits: each target receives its updates in index order."""
    rng = np.random.default_rng(11)
    count = 3000
    if ids == "sorted":
        idx = np.sort(rng.integers(-2, operand[0] + 2, count))
    elif ids == "overlapping":
        idx = rng.integers(-1, 3, count)  # windows of 2 at 0, 1, 2 overlap; -1 is skipped
    else:
        idx = rng.integers(-2, operand[0] + 2, count)
    idx = idx.astype(np.int32).reshape(count, 1)
    start = (rng.standard_normal(operand) * 1e3).astype(np.float32)
    if len(operand) == 2:
        upd = (rng.standard_normal((count, window)) * 1e4).astype(np.float32)
        attrs = (
            "update_window_dims={1}, inserted_window_dims={0}, "
            "scatter_dims_to_operand_dims={0}, index_vector_dim=1"
        )
    else:
        upd = (rng.standard_normal((count, window)) * 1e4).astype(np.float32)
        attrs = (
            "update_window_dims={1}, inserted_window_dims={}, "
            "scatter_dims_to_operand_dims={0}, index_vector_dim=1"
        )
        if window == 1:
            upd = upd.reshape(count)
            attrs = attrs.replace("{1}, inserted_window_dims={}", "{}, inserted_window_dims={0}")
    text = scatter_text(start, idx, upd, attrs, "  ROOT r = f32[] add(x, y)", "f32")
    got, want, kernel = run_both(text, start, idx, upd)
    assert "held" in kernel.how, kernel.how
    assert_same(got, want)
    expected = start.reshape(-1).copy()
    stride = operand[1] if len(operand) == 2 else 1
    rows = upd.reshape(count, -1)
    for i, row in zip(idx[:, 0], rows, strict=True):
        if 0 <= i <= start.size // stride - (1 if len(operand) == 2 else rows.shape[1]):
            for w, u in enumerate(row):
                expected[i * stride + w] = np.float32(expected[i * stride + w] + u)
    assert_same(got, expected.reshape(operand))


def _nans(dtype, count, rng):
    """``count`` NaNs of ``dtype`` with distinct payloads, either sign."""
    size = np.dtype(dtype).itemsize
    fraction = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}[np.dtype(dtype).name]
    bits = np.dtype(f"u{size}")
    exponent = ((1 << (8 * size - 1)) - 1) >> fraction << fraction
    payload = rng.integers(1, 1 << min(fraction, 20), count).astype(bits)
    sign = rng.integers(0, 2, count).astype(bits) << bits.type(8 * size - 1)
    return (sign | bits.type(exponent) | payload).view(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "body",
    [
        "  ROOT r = {t}[] maximum(x, y)",
        "  ROOT r = {t}[] maximum(y, x)",
        "  ROOT r = {t}[] minimum(x, y)",
        "  ROOT r = {t}[] minimum(y, x)",
    ],
)
def test_scatter_ieee_max_min_nans_and_signed_zeros(dtype, body):
    """max/min of floats on the quick tier (integer keys of the total order, NaNs placed
    apart) give the compiled loop's and the interpreter's bits: the first NaN operand wins,
    which is the current NaN or the first NaN update of (current, update), the last NaN
    update of (update, current); max(-0, +0) = +0, min = -0. Many updates per target."""
    rng = np.random.default_rng(3)
    count, size = 400, 16
    start = rng.choice(np.array([-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf], dtype), size)
    start[[2, 9]] = _nans(dtype, 2, rng)
    upd = rng.choice(np.array([-0.0, 0.0, 1.5, -2.0, 3.0, -np.inf], dtype), count)
    nan_at = rng.choice(count, 40, replace=False)
    upd[nan_at] = _nans(dtype, 40, rng)
    idx = rng.integers(-2, size + 2, (count, 1)).astype(np.int32)
    attrs = (
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    t = type_name(start)
    text = scatter_text(start, idx, upd, attrs, body.format(t=t), t)
    got, want, _ = run_both(text, start, idx, upd)
    assert_same(got, want)
    quick, _ = run_quick(text, start, idx, upd)
    assert_same(quick, got)
    assert np.isnan(quick).sum() > 2  # NaN updates landed


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint64, np.complex64, np.bool_])
def test_quick_scatter_segment_sum_in_order(dtype):
    """A sorted segment sum of rows (jax.ops.segment_sum's scatter) with out-of-bounds ids, on
    the quick tier: the compiled kernel's bits (a sequential sum per target in index order,
    each step in the element's type; integers wrap), in place into a donated input."""
    rng = np.random.default_rng(12)
    count, segments = 3000, 40
    idx = np.sort(rng.integers(-3, segments + 3, count)).astype(np.int32).reshape(count, 1)
    start = random_array(rng, dtype, (segments, 8))
    upd = random_array(rng, dtype, (count, 8))
    if np.dtype(dtype).kind == "f":
        upd *= 1e4
    attrs = (
        "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    t = type_name(start)
    body = f"  ROOT r = {t}[] {'or' if dtype == np.bool_ else 'add'}(x, y)"
    text = scatter_text(start, idx, upd, attrs, body, t)
    got, want, _ = run_both(text, start, idx, upd)
    assert_same(got, want)
    quick, kernel = run_quick(text, start, idx, upd)
    assert_same(quick, got)
    donated = start.copy()
    out = kernel.run([donated, idx, upd], RunContext(None, None, None, frozenset({0})))
    assert out is donated
    assert_same(out, got)


def test_quick_scatter_declines_what_the_compiled_kernel_declines():
    """A complex multiply (numpy's may round otherwise than the interpreter's) is left to the
    interpreter's eval on the quick tier too."""
    operand = np.zeros(4, np.complex64)
    idx = np.zeros((1, 1), np.int32)
    attrs = (
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    text = scatter_text(operand, idx, operand[:1], attrs, "  ROOT r = c64[] multiply(x, y)", "c64")
    with generated_kernels(False), pytest.raises(NoKernel, match="multiply of c64"):
        build(parse_hlo(text).entry.root)


@pytest.mark.parametrize("op", ["add", "multiply"])
def test_f16_scatter_add_runs_numpy_on_both_tiers(op):
    """f16 scatter-add/multiply (the numba loop declines them): the numpy kernel on the
    compiled tier too, many updates per target, the interpreter's bits (each step rounded
    once; NaNs of any payload, infinities, overflow)."""
    dtype = np.float16
    rng = np.random.default_rng(4)
    count, size = 5000, 32
    start = (rng.standard_normal(size) * 100).astype(dtype)
    upd = (rng.standard_normal(count) * (100 if op == "add" else 1.5)).astype(dtype)
    start[[3, 7]] = _nans(dtype, 2, rng)
    upd[rng.choice(count, 30, replace=False)] = _nans(dtype, 30, rng)
    upd[[5, 9]] = np.array([np.inf, -np.inf], dtype)
    idx = rng.integers(-2, size + 2, (count, 1)).astype(np.int32)
    attrs = (
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1"
    )
    t = type_name(start)
    text = scatter_text(start, idx, upd, attrs, f"  ROOT r = {t}[] {op}(x, y)", t)
    got, want, kernel = run_both(text, start, idx, upd)
    assert kernel.how.startswith("numpy scatter"), kernel.how
    assert_same(got, want)


@pytest.mark.parametrize("op", ["gather", "scatter"])
def test_kernels_are_typed_when_built(op, monkeypatch):
    """Building a gather or scatter kernel types its numba loops (dispatchers typed on first
    call) for the calls' argument types, so a compiled tier compiles them in the tier worker
    and loads them while it is built: calls with writable or read-only operands (a program's
    parameters may be read-only) type nothing."""
    from numba.core.dispatcher import Dispatcher

    from xlapy.interpreter.evaluator import DeviceState, Evaluator

    typing_call = Dispatcher._compile_for_args
    lazy = []

    def counted(self, *args, **kwargs):
        lazy.append(self.py_func.__name__)
        return typing_call(self, *args, **kwargs)

    rng = np.random.default_rng(11)
    for dtype in (np.float32, np.int16, np.complex128):
        for _ in range(4):
            if op == "gather":
                *args, text = random_gather(rng, dtype)
            else:
                *args, text = random_scatter(rng, dtype, BODIES["add"])
            module = parse_hlo(text)
            kernel = build(module.entry.root)
            monkeypatch.setattr(Dispatcher, "_compile_for_args", counted)
            got, want, _ = run_both(text, *args)
            assert_same(got, want)
            for a in args:
                a.flags.writeable = False
            evaluator = Evaluator(module, device=DeviceState())
            ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
            assert_same(kernel.run(args, ctx), want)
            monkeypatch.undo()
            assert lazy == [], (kernel.how, text)
