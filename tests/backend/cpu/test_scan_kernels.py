"""Cumulative reduce-windows (JAX's cumsum, cumprod, cummax, cummin, cumlogsumexp) as
linear-time scan kernels: recognised by their window, bit-identical to the interpreter's
window order (forward scans of any reducer, reversed scans of exactly associative ones),
within float rounding of it otherwise, and equal or close to XLA."""

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_close, assert_same, run_both, shape_text, type_name

import xlapy
from xlapy.backend.cpu.codegen.scan_rules import cumulative
from xlapy.backend.cpu.kernel import RunContext, generated_kernels
from xlapy.backend.cpu.kernels.scan import stepwise
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.attrs import Window
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_parser import parse_hlo

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax


def cum_window(dims, axis, reverse):
    n = dims[axis]
    sizes = [n if d == axis else 1 for d in range(len(dims))]
    pads = [
        ((0, n - 1) if reverse else (n - 1, 0)) if d == axis else (0, 0) for d in range(len(dims))
    ]
    return Window.make(sizes, padding=pads)


def window_text(w):
    d = w.dimensions
    return (
        f"{{size={'x'.join(str(x.size) for x in d)} "
        f"pad={'x'.join(f'{x.padding_low}_{x.padding_high}' for x in d)}}}"
    )


def literal(value, dtype):
    """HLO text of a scalar ``value`` of ``dtype``."""
    if np.dtype(dtype) == np.bool_:
        return "true" if value else "false"
    if np.dtype(dtype).kind == "c":
        return f"({value}, 0)"
    if isinstance(value, float) and np.isnan(value):
        return "nan"
    if isinstance(value, float) and np.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, float) and value == 0 and np.signbit(value):
        return "-0"
    return str(value)


def scan_text(x, axis, reverse, op, init=None, swapped=False):
    """A cumulative reduce-window of ``x`` by ``op``: from the constant ``init``, or from
    parameter 1 when ``init`` is None (checked when the kernel runs)."""
    t = type_name(x)
    a, b = ("y", "x") if swapped else ("x", "y")
    start = "parameter(1)" if init is None else f"constant({literal(init, x.dtype)})"
    return f"""HloModule m
red {{
  x = {t}[] parameter(0)
  y = {t}[] parameter(1)
  ROOT r = {t}[] {op}({a}, {b})
}}
ENTRY e {{
  p = {shape_text(x)} parameter(0)
  i = {t}[] {start}
  ROOT r = {shape_text(x)} reduce-window(p, i), window={window_text(cum_window(x.shape, axis, reverse))}, to_apply=red
}}"""


def test_cumulative_axis_recognises_only_cumulative_windows():
    assert cum_window((4, 6), 1, False).cumulative_axis((4, 6)) == (1, False)
    assert cum_window((4, 6), 0, True).cumulative_axis((4, 6)) == (0, True)
    not_cumulative = [
        Window.make([1, 5], padding=[(0, 0), (5, 0)]),  # size n-1
        Window.make([1, 6], padding=[(0, 0), (4, 1)]),  # padding on both sides
        Window.make([1, 6], [1, 2], padding=[(0, 0), (5, 0)]),  # stride
        Window.make([1, 6], padding=[(0, 0), (5, 0)], window_dilation=[1, 2]),
        Window.make([1, 6], padding=[(0, 0), (5, 0)], base_dilation=[1, 2]),
        Window.make([4, 6], padding=[(3, 0), (5, 0)]),  # two axes
        Window.make([1, 6], padding=[(1, 0), (5, 0)]),  # padding on a size-1 window
        Window.make([1, 1], padding=[(0, 0), (0, 0)]),  # no axis at all
    ]
    for w in not_cumulative:
        assert w.cumulative_axis((4, 6)) is None, w
    assert Window.make([1], padding=[(0, 0)]).cumulative_axis((1,)) is None  # n = 1


def with_specials(rng, x):
    """NaNs (both signs: max/min return the first in order), signed zeros and infinities."""
    if x.dtype.kind == "f" or x.dtype in (ml_dtypes.bfloat16,):
        flat = x.reshape(-1)
        for value in (np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, -0.0):
            flat[rng.integers(0, flat.size)] = value
    return x


def operand(rng, dtype, dims):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, dims).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)  # the whole range: sums and products wrap
        return rng.integers(info.min, info.max, dims, endpoint=True, dtype=dtype)
    return with_specials(rng, rng.standard_normal(dims).astype(dtype))


BF16, F16 = ml_dtypes.bfloat16, np.float16
# (dtype, reducer, init); every case runs forward and reversed on one axis of (3, 5, 4):
# axis 2 (row plan), 1 and 0 (column plans) in turn.
CASES = [
    (np.float32, "add", 0.0),
    (np.float32, "multiply", 1.0),
    (np.float32, "maximum", -np.inf),
    (np.float32, "minimum", np.inf),
    (np.float64, "add", -0.0),
    (np.float64, "maximum", -np.inf),
    (F16, "add", 0.0),
    (F16, "maximum", -np.inf),
    (BF16, "add", 0.0),
    (BF16, "minimum", np.inf),
    (np.int32, "add", 0),
    (np.int32, "multiply", 1),
    (np.uint8, "add", 0),
    (np.uint8, "multiply", 1),
    (np.int64, "maximum", -(2**63)),
    (np.uint32, "minimum", 2**32 - 1),
    (np.int8, "xor", 0),
    (np.int16, "and", -1),
    (np.uint16, "or", 0),
    (np.bool_, "or", False),
    (np.bool_, "and", True),
    (np.bool_, "add", False),
    (np.bool_, "maximum", False),
    # Inits that are no identity but idempotent: reversed scans combine them at both ends.
    (np.int32, "maximum", 5),
    (np.float32, "minimum", 0.5),
    (np.uint16, "and", 0x0F0F),
]
FLOAT_REASSOCIATED = {"add", "multiply"}


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("dtype", "op", "init"), CASES, ids=lambda v: str(v))
def test_scan_kernel_against_interpreter(dtype, op, init, reverse):
    case = CASES.index((dtype, op, init))
    axis = 2 - case % 3
    rng = np.random.default_rng(case)
    x = operand(rng, dtype, (3, 5, 4))
    text = scan_text(x, axis, reverse, op, init, swapped=case % 2 == 1)
    got, want, kernel = run_both(text, x, np.array(init, dtype))
    assert "row scan" in kernel.how or "column scan" in kernel.how
    with generated_kernels(False):  # the quick tier: the compiled bits
        quick, _, quick_kernel = run_both(text, x, np.array(init, dtype))
    assert quick_kernel.how.startswith("numpy accumulate")
    assert_same(quick, got)
    floating = np.dtype(dtype).kind == "f" or dtype is BF16
    reassociated = reverse and floating and op in FLOAT_REASSOCIATED
    assert kernel.exact is not reassociated
    if kernel.exact:
        assert_same(got, want)
        return
    finite = np.isfinite(want.astype(np.float64))
    assert np.array_equal(np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64)))
    assert_close(
        np.where(finite, got, 0).astype(np.float64),
        np.where(finite, want, 0).astype(np.float64),
        rtol=1e-2,
    )


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(
    ("dtype", "op", "init"),
    [(t, "add", 0.0) for t in (np.float32, np.float64, F16, BF16)]
    + [(t, "multiply", 1.0) for t in (np.float32, np.float64, F16, BF16)],
    ids=str,
)
def test_quick_float_sums_and_products_give_the_compiled_bits(dtype, op, init, reverse):
    """Without NaN inputs (those take the stepwise scan) the quick tier's numpy accumulate
    rounds every step in the element type in the compiled scan's order: signed zeros,
    infinities and the NaNs they make (inf - inf) alike, along long rows and columns.
    Forward that is the interpreter's window order (as the compiled scan's, tested above);
    reversed, the compiled kernel's reassociation (compiled here)."""
    case = [np.float32, np.float64, F16, BF16].index(dtype) + 4 * (op == "multiply")
    axis = case % 2
    rng = np.random.default_rng(40 + case)
    x = operand(rng, dtype, (300, 3) if axis == 0 else (3, 300))
    if op == "multiply":
        x = (1 + x.astype(np.float32) / 64).astype(dtype)  # products stay finite for a while
    flat = x.reshape(-1)
    flat[np.isnan(flat.astype(np.float32))] = np.inf
    flat[rng.integers(0, flat.size, 8)] = -0.0
    line = np.moveaxis(x, axis, 0)[:, 1]  # a NaN made mid-scan: inf - inf, or inf * 0
    line[[5, 9]] = (np.inf, -np.inf) if op == "add" else (np.inf, 0.0)
    text = scan_text(x, axis, reverse, op, init, swapped=case % 3 == 1)
    with generated_kernels(False):
        quick, want, quick_kernel = run_both(text, x, np.array(init, dtype))
    assert quick_kernel.how.startswith("numpy accumulate")
    if reverse:
        compiled, _, kernel = run_both(text, x, np.array(init, dtype))
        assert "row scan" in kernel.how or "column scan" in kernel.how
        assert_same(quick, compiled)
    else:
        assert_same(quick, want)
    assert np.isnan(want.astype(np.float32)).any()
    assert not np.isnan(x.astype(np.float32)).any()


def test_scan_kernel_sizes_and_empty_dims():
    """Axes of length 2 (no middle loop), long rows, and empty other dimensions."""
    rng = np.random.default_rng(5)
    for dims, axis in (
        ((2,), 0),
        ((7, 2), 1),
        ((2, 7), 0),
        ((1000,), 0),
        ((0, 6), 1),
        ((3, 0, 4), 2),
    ):
        for reverse in (False, True):
            x = operand(rng, np.int32, dims)
            got, want, kernel = run_both(
                scan_text(x, axis, reverse, "add", 0), x, np.array(0, np.int32)
            )
            assert "numba" in kernel.how
            assert_same(got, want)


def test_scan_kernel_init_that_is_not_idempotent_runs_the_window_order():
    """``reducer(init, init) != init`` (a sum from 1): padding prefixes differ per output.
    A constant init is checked at compile time (the literal window kernel then runs), a
    parameter when the kernel runs (the stepwise scan, else the interpreter's eval)."""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got, want, kernel = run_both(scan_text(x, 1, False, "add", 1), x, np.array(1, np.int32))
    assert "scan" not in kernel.how
    assert_same(got, want)
    assert want[0].tolist() == [4, 4, 5, 7]  # 1 + three padding ones + 0, ...
    text = scan_text(x, 1, True, "add")
    for init in (0, 1, 0):
        got, want, kernel = run_both(text, x, np.array(init, np.int32))
        assert "stepwise scan" in kernel.how
        assert_same(got, want)


def test_variadic_scan_with_a_generic_reducer():
    """A running argmax: (value, index) pairs combined by compare/select, forward and
    reversed (a generic reducer reversed is reported reassociated; this one is associative,
    so the bits agree anyway)."""
    for reverse in (False, True):
        window = window_text(cum_window((4, 9), 1, reverse))
        text = f"""HloModule m
argmax {{
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take = pred[] or(gt, tie)
  v = f32[] select(take, a, b)
  i = s32[] select(take, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}}
ENTRY e {{
  x = f32[4,9] parameter(0)
  idx = s32[4,9] parameter(1)
  lo = f32[] constant(-inf)
  big = s32[] constant(2147483647)
  ROOT r = (f32[4,9], s32[4,9]) reduce-window(x, idx, lo, big), window={window}, to_apply=argmax
}}"""
        x = np.random.default_rng(2).integers(0, 4, (4, 9)).astype(np.float32)
        idx = np.broadcast_to(np.arange(9, dtype=np.int32), (4, 9)).copy()
        got, want, kernel = run_both(text, x, idx, np.float32(-np.inf), np.int32(2**31 - 1))
        assert "row scan" in kernel.how
        assert kernel.exact is not reverse
        assert_same(got, want)
        values, where = want
        for row in range(4):
            for o in range(9):
                lo, hi = (o, 9) if reverse else (0, o + 1)
                first = lo + int(np.argmax(x[row, lo:hi]))  # the lowest index of the max
                assert (values[row, o], where[row, o]) == (x[row, first], first)


# ---- JAX programs -------------------------------------------------------------------------


def lowered(fn, *args):
    return xlapy.load(jax.jit(fn).lower(*args).compiler_ir("hlo").as_hlo_text(True))


def scan_lines(exe):
    """The report's lines of compiled scan kernels."""
    return [
        line
        for line in exe.report().splitlines()
        if "numba row scan" in line or "numba column scan" in line
    ]


R = np.random.default_rng(0)
F32 = R.standard_normal((6, 40)).astype(np.float32)
F32[1, 3], F32[2, 7], F32[3, 0] = np.nan, -0.0, np.inf
I32 = R.integers(-(2**31), 2**31 - 1, (6, 40), endpoint=True).astype(np.int32)
U8 = R.integers(0, 256, (6, 40)).astype(np.uint8)
JAX_CASES = [
    ("cumsum f32", lambda x: jnp.cumsum(x, axis=1), F32),
    ("cumsum f32 reverse axis 0", lambda x: lax.cumsum(x, axis=0, reverse=True), F32),
    ("cumsum bf16", lambda x: lax.cumsum(x, axis=1), F32.astype(BF16)),
    ("cumsum f16 reverse", lambda x: lax.cumsum(x, axis=1, reverse=True), F32.astype(F16)),
    ("cumsum int32 wraps", lambda x: jnp.cumsum(x, axis=1), I32),
    ("cumsum int32 reverse", lambda x: lax.cumsum(x, axis=0, reverse=True), I32),
    ("cumprod uint8 wraps", lambda x: lax.cumprod(x, axis=1), U8),
    ("cumprod f64", lambda x: jnp.cumprod(x, axis=0), (1 + F32 / 8).astype(np.float64)),
    ("cummax f32 reverse", lambda x: lax.cummax(x, axis=1, reverse=True), F32),
    ("cummin int32", lambda x: lax.cummin(x, axis=0), I32),
    ("cumlogsumexp f32", lambda x: lax.cumlogsumexp(x, axis=1), F32),
    (
        "cumlogsumexp f64 reverse",
        lambda x: lax.cumlogsumexp(x, axis=1, reverse=True),
        F32.astype(np.float64),
    ),
]


@pytest.mark.parametrize(("fn", "x"), [c[1:] for c in JAX_CASES], ids=[c[0] for c in JAX_CASES])
def test_jax_cumulative_ops_on_cpu(fn, x):
    if x.dtype == np.float64:
        jax.config.update("jax_enable_x64", True)
    try:
        module = lowered(fn, x)
        want_xla = np.asarray(fn(x))
    finally:
        jax.config.update("jax_enable_x64", False)
    exe = xlapy.compile(module, platform="cpu")
    lines = scan_lines(exe)
    assert lines, exe.report()
    (got,) = exe(x)
    (want,) = xlapy.run(module, x, platform="interpreter")
    if "not bit-exact" not in lines[0]:
        assert_same(np.asarray(got), np.asarray(want))
    got = np.asarray(got)
    if got.dtype.kind in "iu":
        assert np.array_equal(got, want_xla)  # XLA's scan regroups; integers wrap alike
        return
    g, w = got.astype(np.float64), want_xla.astype(np.float64)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    finite = np.isfinite(w)
    assert np.array_equal(g[~finite & ~np.isnan(w)], w[~finite & ~np.isnan(w)])
    rtol = 1e-2 if got.dtype in (BF16, F16) else 1e-5
    assert_close(np.where(finite, g, 0), np.where(finite, w, 0), rtol=rtol)


def test_cumsum_in_loop_bodies_runs_as_a_scan():
    """In a ``lax.scan`` and a ``fori_loop`` body the cumulative window is not fused (a
    fused window would be reduced whole per element): the body's plan runs the scan."""
    x = R.standard_normal((8, 64)).astype(np.float32)

    def scanned(x):
        def body(c, _):
            c = jnp.cumsum(c, axis=1) * 0.01 + x
            return c, c[0, -1]

        return lax.scan(body, x, None, length=5)

    def looped(x):
        return lax.fori_loop(0, 4, lambda i, c: lax.cummax(c, axis=0) * 0.5, x)

    for fn in (scanned, looped):
        module = lowered(fn, x)
        exe = xlapy.compile(module, platform="cpu")
        assert scan_lines(exe), exe.report()
        for got, want in zip(exe(x), xlapy.run(module, x, platform="interpreter"), strict=True):
            assert_same(np.asarray(got), np.asarray(want))


def test_scans_take_cheap_producers_and_no_consumers():
    """The fusion pass gives a cumulative window its cheap producers (a mask's compare and
    convert), not expensive ones (exp, read once per element by the scan but by every
    window in the indexing map), and never fuses it into a consumer."""
    for fn, fused in (
        (lambda x: jnp.cumsum((x > 0).astype(jnp.int32), axis=1) * 2, {Opcode.COMPARE}),
        (lambda x: jnp.cumsum(jnp.exp(x), axis=1) * 2, set()),
    ):
        module = lowered(fn, F32)
        exe = xlapy.compile(module, platform="cpu")
        (window,) = [i for c in exe.module.computations for i in c.instructions if cumulative(i)]
        assert window.parent.root is window
        ops = {i.opcode for i in window.parent.instructions}
        assert fused <= ops
        assert Opcode.EXP not in ops
        assert Opcode.MULTIPLY not in ops
        assert len(scan_lines(exe)) == 1, exe.report()
        (got,) = exe(F32)
        assert_same(np.asarray(got), np.asarray(xlapy.run(module, F32, platform="interpreter")[0]))


def test_scan_of_a_parsed_module_reports_its_kernel():
    x = np.arange(6, dtype=np.float32)
    module = parse_hlo(scan_text(x, 0, False, "add", 0.0))
    exe = xlapy.compile(module, platform="cpu")
    assert "row scan" in exe.report()
    (got,) = exe(x)
    assert got.tolist() == [0, 1, 3, 6, 10, 15]


@pytest.mark.parametrize("t", ["f32", "f64", "bf16"])
def test_scans_flush_denormals_as_the_interpreter(t):
    """Under flush_denormals every reducer step reads subnormals as zeros and flushes its
    result, in the kernel as in the interpreter (sums, maxima, logaddexp)."""
    dtype = {"f32": np.float32, "f64": np.float64, "bf16": BF16}[t]
    tiny = float(np.finfo(np.float32 if t == "bf16" else dtype).tiny)
    rng = np.random.default_rng(8)
    x = (rng.integers(-3, 4, (3, 16)) * tiny / 8).astype(dtype)  # subnormals and zeros
    x[0, :4] = [1.0, tiny / 2, -2.0, 3 * tiny]
    window = window_text(cum_window((3, 16), 1, False))
    reverse = window_text(cum_window((3, 16), 0, True))
    text = f"""HloModule f
add {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] add(a, b)
}}
max {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] maximum(a, b)
}}
ENTRY e {{
  x = {t}[3,16] parameter(0)
  zero = {t}[] constant(0)
  lo = {t}[] constant(-inf)
  sums = {t}[3,16] reduce-window(x, zero), window={window}, to_apply=add
  maxs = {t}[3,16] reduce-window(x, lo), window={reverse}, to_apply=max
  ROOT t = ({t}[3,16], {t}[3,16]) tuple(sums, maxs)
}}"""
    module = xlapy.load(text)
    want = xlapy.run(module, x, flush_denormals=True, platform="interpreter")
    exe = xlapy.compile(module, platform="cpu", flush_denormals=True)
    assert len(scan_lines(exe)) == 2, exe.report()
    for g, w in zip(exe(x), want, strict=True):
        assert_same(np.asarray(g), np.asarray(w))
    plain = xlapy.run(module, x, platform="interpreter")
    assert np.asarray(plain[0]).tobytes() != np.asarray(want[0]).tobytes()


@pytest.mark.parametrize(
    ("dtype", "op", "init"),
    [
        (np.complex64, "add", 0),
        (np.complex128, "multiply", 1),
        (ml_dtypes.float8_e4m3fn, "maximum", -448.0),
        (ml_dtypes.int4, "add", 0),
    ],
    ids=str,
)
def test_types_without_compiled_code_scan_stepwise(dtype, op, init):
    """Complex, f8 and sub-byte scans are the interpreter's reducer over all rows per step:
    linear, and bit-identical where the compiled scan would be."""
    rng = np.random.default_rng(3)
    if np.dtype(dtype).kind == "c":
        x = (rng.standard_normal((3, 6)) + 1j * rng.standard_normal((3, 6))).astype(dtype)
    elif dtype is ml_dtypes.int4:
        x = rng.integers(-8, 8, (3, 6)).astype(dtype)
    else:
        x = rng.standard_normal((3, 6)).astype(dtype)
    for axis, reverse in ((1, False), (0, True), (1, True)):
        text = scan_text(x, axis, reverse, op, init)
        got, want, kernel = run_both(text, x, np.array(init, dtype))
        assert "stepwise scan" in kernel.how
        if kernel.exact:
            assert_same(got, want)
        else:
            assert np.allclose(got, want, rtol=1e-5)
        assert kernel.exact is not (reverse and np.dtype(dtype).kind == "c")


def logaddexp_scan_text(dims, axis, reverse, t):
    """JAX's cumlogsumexp as it lowers: a logaddexp body of nine float ops, from -inf."""
    window = window_text(cum_window(dims, axis, reverse))
    shape = f"{t}[{','.join(map(str, dims))}]"
    return f"""HloModule m
logaddexp {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  sub = {t}[] subtract(a, b)
  ne = pred[] compare(sub, sub), direction=NE
  sum = {t}[] add(a, b)
  max = {t}[] maximum(a, b)
  abs = {t}[] abs(sub)
  neg = {t}[] negate(abs)
  exp = {t}[] exponential(neg)
  log1p = {t}[] log-plus-one(exp)
  add = {t}[] add(max, log1p)
  ROOT r = {t}[] select(ne, sum, add)
}}
ENTRY e {{
  x = {shape} parameter(0)
  lo = {t}[] constant(-inf)
  ROOT r = {shape} reduce-window(x, lo), window={window}, to_apply=logaddexp
}}"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64, F16, BF16], ids=str)
def test_quick_scan_of_a_float_body_binds_it_to_numpy(dtype):
    """On the quick tier a body of float ops (JAX's logaddexp) runs as numpy calls bound
    once: the bits of the interpreter's call per step (the window order forward), with
    NaNs, infinities and signed zeros."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 150)).astype(dtype)
    x.reshape(-1)[[3, 50, 77, 78, 5, 400, 401]] = [np.nan, -np.inf, np.inf, np.inf, -0.0, 0, -0.0]
    t = type_name(x)
    for axis, reverse in ((1, False), (0, False), (1, True), (0, True)):
        text = logaddexp_scan_text(x.shape, axis, reverse, t)
        init = np.array(-np.inf, dtype)
        with generated_kernels(False):
            got, want, kernel = run_both(text, x, init)
        assert "bound numpy calls" in kernel.how
        if not reverse:
            assert_same(got, want)
        module = parse_hlo(text)
        evaluator = Evaluator(module, device=DeviceState())
        ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
        calls = stepwise(module.entry.root, axis, reverse, None)([x, init], ctx)
        assert_same(got, calls)
