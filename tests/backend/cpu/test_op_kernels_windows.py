"""The compiled reduce-window and select-and-scatter kernels against the interpreter, bit for
bit: random windows (sizes, strides, padding, base and window dilation), every reducer and
element type, NaNs and signed zeros, empty operands."""

import zlib

import numpy as np
import pytest
from op_kernels_util import assert_same, build, random_array, run_both, shape_text, type_name

from xlapy.backend.cpu.kernel import NoKernel
from xlapy.backend.cpu.kernels import windows
from xlapy.interpreter.evals.windows import window_output_dims
from xlapy.ir.attrs import Window
from xlapy.text.hlo_parser import parse_hlo


def random_window(rng, dims, trivial_last=False):
    sizes, strides, pads, base, wdil = [], [], [], [], []
    for i in range(len(dims)):
        if trivial_last and i == len(dims) - 1:
            for values, value in ((sizes, 1), (strides, 1), (pads, (0, 0)), (base, 1), (wdil, 1)):
                values.append(value)
            continue
        sizes.append(int(rng.integers(1, 4)))
        strides.append(int(rng.integers(1, 3)))
        pads.append((int(rng.integers(-1, 3)), int(rng.integers(-1, 3))))
        base.append(int(rng.choice([1, 1, 2])))
        wdil.append(int(rng.choice([1, 1, 2])))
    return Window.make(sizes, strides, pads, base, wdil)


def window_text(w):
    d = w.dimensions
    parts = [f"size={'x'.join(str(x.size) for x in d)}"]
    parts.append(f"stride={'x'.join(str(x.stride) for x in d)}")
    parts.append("pad=" + "x".join(f"{x.padding_low}_{x.padding_high}" for x in d))
    parts.append(f"lhs_dilate={'x'.join(str(x.base_dilation) for x in d)}")
    parts.append(f"rhs_dilate={'x'.join(str(x.window_dilation) for x in d)}")
    return "{" + " ".join(parts) + "}"


def reducer(t, op, swapped=False):
    a, b = ("y", "x") if swapped else ("x", "y")
    return f"""red {{
  x = {t}[] parameter(0)
  y = {t}[] parameter(1)
  ROOT r = {t}[] {op}({a}, {b})
}}"""


def reduce_window_text(x, window, op, swapped, out_dims):
    t = type_name(x)
    return f"""HloModule m
{reducer(t, op, swapped)}
ENTRY e {{
  p = {shape_text(x)} parameter(0)
  i = {t}[] parameter(1)
  ROOT r = {t}[{",".join(map(str, out_dims))}] reduce-window(p, i), window={window_text(window)}, to_apply=red
}}"""


CASES = [
    (np.float32, "maximum", -np.inf),
    (np.float32, "minimum", np.inf),
    (np.float32, "add", 0.0),
    (np.float64, "add", -0.0),
    (np.float64, "maximum", -np.inf),
    (np.float32, "multiply", 1.0),
    (np.int32, "add", 3),
    (np.int32, "maximum", -(2**31)),
    (np.uint8, "multiply", 1),
    (np.int64, "minimum", 5),
    (np.bool_, "or", False),
    (np.bool_, "and", True),
    (np.bool_, "maximum", False),
    (np.int16, "xor", 0),
]


def with_specials(rng, x, both_nans=True):
    """``x`` with NaNs and signed zeros. ``both_nans=False`` keeps one NaN sign: which of two
    NaNs an add returns is the compiler's choice (IEEE leaves it open), so only max/min,
    whose NaN rule is explicit, are tested with both."""
    if x.dtype.kind == "f" and x.size:
        flat = x.reshape(-1)
        for value in (np.nan, -0.0, 0.0, -np.nan if both_nans else np.nan):
            flat[rng.integers(0, flat.size)] = value
    return x


@pytest.mark.parametrize(("dtype", "op", "init"), CASES)
def test_reduce_window_random(dtype, op, init):
    rng = np.random.default_rng(zlib.crc32(f"{np.dtype(dtype).name} {op}".encode()))
    for trial in range(30):
        rank = int(rng.integers(1, 5))
        dims = [int(rng.integers(0 if trial % 10 == 0 else 1, 6)) for _ in range(rank)]
        window = random_window(rng, dims, trivial_last=trial % 2 == 0 and rank > 1)
        out_dims = window_output_dims("reduce-window", None, dims, window)
        x = with_specials(rng, random_array(rng, dtype, dims), op in ("maximum", "minimum"))
        text = reduce_window_text(x, window, op, trial % 3 == 0, out_dims)
        got, want, kernel = run_both(text, x, np.array(init, dtype))
        if kernel.exact:
            assert_same(got, want)
        else:  # a float sum or product reassociated (a scan), as the kernel's report says
            assert np.dtype(dtype).kind == "f", kernel.how
            assert op in ("add", "multiply"), kernel.how
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-30)


def test_reduce_window_maxpool_same_nhwc():
    rng = np.random.default_rng(3)
    x = random_array(rng, np.float32, (2, 9, 8, 5))
    window = Window.make([1, 3, 3, 1], [1, 2, 2, 1], [(0, 0), (0, 1), (0, 1), (0, 0)])
    out_dims = window_output_dims("reduce-window", None, x.shape, window)
    text = reduce_window_text(x, window, "maximum", False, out_dims)
    got, want, kernel = run_both(text, x, np.array(-np.inf, np.float32))
    assert "vectorised" in kernel.how
    assert "parallel" not in kernel.how  # small: one thread, no parallel compile
    assert_same(got, want)


def test_window_kernels_parallel_variants(monkeypatch):
    """Above PARALLEL_WORK blocks of result rows run on the thread pool: same bits."""
    monkeypatch.setattr(windows, "PARALLEL_WORK", 0)
    rng = np.random.default_rng(11)
    for trial in range(8):
        rank = int(rng.integers(1, 5))
        dims = [int(rng.integers(1, 6)) for _ in range(rank)]
        window = random_window(rng, dims, trivial_last=trial % 2 == 0 and rank > 1)
        out_dims = window_output_dims("reduce-window", None, dims, window)
        x = with_specials(rng, random_array(rng, np.float32, dims))
        text = reduce_window_text(x, window, "maximum", trial % 3 == 0, out_dims)
        got, want, kernel = run_both(text, x, np.array(-np.inf, np.float32))
        assert "parallel" in kernel.how
        assert_same(got, want)
    x = random_array(rng, np.float32, (6, 7))
    window = Window.make([2, 3], [2, 1], [(0, 1), (1, 0)])
    out_dims = window_output_dims("select-and-scatter", None, x.shape, window)
    source = random_array(rng, np.float32, out_dims)
    text = select_and_scatter_text(x, source, window, "GE", False, "add")
    got, want, kernel = run_both(text, x, source, np.array(0, np.float32))
    assert "in parallel" in kernel.how
    assert_same(got, want)


def test_reduce_window_unhandled_reducers_have_no_kernel():
    x = np.zeros((4,), np.float32)
    window = Window.make([2])
    text = reduce_window_text(x, window, "subtract", False, [3])
    with pytest.raises(NoKernel, match="reducer"):
        build(parse_hlo(text).entry.root)
    x = np.zeros((4,), np.float16)
    text = reduce_window_text(x, window, "add", False, [3])
    with pytest.raises(NoKernel, match="f16"):
        build(parse_hlo(text).entry.root)


def select_and_scatter_text(x, source, window, direction, swapped_select, op):
    t = type_name(x)
    a, b = ("q", "p") if swapped_select else ("p", "q")
    return f"""HloModule m
sel {{
  p = {t}[] parameter(0)
  q = {t}[] parameter(1)
  ROOT c = pred[] compare({a}, {b}), direction={direction}
}}
{reducer(t, op)}
ENTRY e {{
  x = {shape_text(x)} parameter(0)
  s = {shape_text(source)} parameter(1)
  i = {t}[] parameter(2)
  ROOT r = {shape_text(x)} select-and-scatter(x, s, i), window={window_text(window)}, select=sel, scatter=red
}}"""


@pytest.mark.parametrize(
    ("dtype", "direction", "op"),
    [
        (np.float32, "GE", "add"),
        (np.float32, "GT", "add"),
        (np.float64, "LE", "maximum"),
        (np.int32, "LT", "add"),
        (np.int8, "GE", "multiply"),
        (np.bool_, "GE", "or"),
    ],
)
def test_select_and_scatter_random(dtype, direction, op):
    rng = np.random.default_rng(abs(hash((np.dtype(dtype).name, direction, op))) % 2**32)
    for trial in range(30):
        rank = int(rng.integers(1, 4))
        dims = [int(rng.integers(1, 6)) for _ in range(rank)]
        window = random_window(rng, dims)
        # select-and-scatter has no base dilation
        window = Window.make(
            [d.size for d in window.dimensions],
            [d.stride for d in window.dimensions],
            [(max(d.padding_low, 0), max(d.padding_high, 0)) for d in window.dimensions],
        )
        out_dims = window_output_dims("select-and-scatter", None, dims, window)
        x = random_array(rng, dtype, dims)
        if x.dtype.kind in "iu":
            x %= 3  # ties: the select rule decides
        source = random_array(rng, dtype, out_dims)
        text = select_and_scatter_text(x, source, window, direction, trial % 2 == 1, op)
        x = with_specials(rng, x, op == "maximum")
        got, want, kernel = run_both(text, x, source, np.array(1, dtype))
        assert kernel.exact
        assert_same(got, want)
