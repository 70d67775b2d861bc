"""The compiled convolution kernel against the interpreter: random dim_labels, strides,
padding (negative too), lhs/rhs dilation, window reversal and feature groups; integers bit
for bit, floats within the summation-order tolerance."""

import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import assert_close, assert_same, build, random_array, run_both, shape_text

from xlapy.backend.cpu.kernel import NoKernel
from xlapy.interpreter.evals.convolution import conv_output_size
from xlapy.ir.attrs import WindowDimension
from xlapy.text.hlo_parser import parse_hlo


def random_conv(rng, lhs_dtype, rhs_dtype, out_type, spatial):
    """Operands, HLO text and expected result dims of a random valid convolution."""
    fg = int(rng.choice([1, 1, 2, 3]))
    batch = int(rng.integers(1, 4))
    group_in = int(rng.integers(1, 4))
    group_out = int(rng.integers(1, 4))
    sizes = [int(rng.integers(1, 7)) for _ in range(spatial)]
    kernel = [int(rng.integers(1, 4)) for _ in range(spatial)]
    window = []
    for n, k in zip(sizes, kernel, strict=True):
        while True:
            d = WindowDimension(
                size=k,
                stride=int(rng.integers(1, 3)),
                padding_low=int(rng.integers(-1, 3)),
                padding_high=int(rng.integers(-1, 3)),
                window_dilation=int(rng.choice([1, 1, 2])),
                base_dilation=int(rng.choice([1, 1, 2])),
                window_reversal=bool(rng.integers(0, 2)),
            )
            if conv_output_size(n, d) > 0:
                break
        window.append(d)
    out_sizes = [conv_output_size(n, d) for n, d in zip(sizes, window, strict=True)]
    digits = [str(i) for i in range(spatial)]
    lhs_labels = list(rng.permutation(["b", "f", *digits]))
    rhs_labels = list(rng.permutation(["i", "o", *digits]))
    out_labels = list(rng.permutation(["b", "f", *digits]))
    size_of = {"b": batch, "f": group_in * fg}
    size_of.update({str(i): n for i, n in enumerate(sizes)})
    lhs_dims = [size_of[c] for c in lhs_labels]
    rsize = {"i": group_in, "o": group_out * fg}
    rsize.update({str(i): k for i, k in enumerate(kernel)})
    rhs_dims = [rsize[c] for c in rhs_labels]
    osize = {"b": batch, "f": group_out * fg}
    osize.update({str(i): n for i, n in enumerate(out_sizes)})
    out_dims = [osize[c] for c in out_labels]
    lhs = random_array(rng, lhs_dtype, lhs_dims)
    rhs = random_array(rng, rhs_dtype, rhs_dims)
    if np.dtype(lhs_dtype).kind in "iu" and np.dtype(lhs_dtype).itemsize > 1:
        lhs = (lhs % 100).astype(lhs_dtype)

    def join(f):
        return "x".join(str(f(d)) for d in window)

    wtext = (
        f"size={join(lambda d: d.size)} stride={join(lambda d: d.stride)} "
        f"pad={'x'.join(f'{d.padding_low}_{d.padding_high}' for d in window)} "
        f"lhs_dilate={join(lambda d: d.base_dilation)} "
        f"rhs_dilate={join(lambda d: d.window_dilation)} "
        f"rhs_reversal={join(lambda d: int(d.window_reversal))}"
    )
    labels = f"{''.join(lhs_labels)}_{''.join(rhs_labels)}->{''.join(out_labels)}"
    text = f"""HloModule m
ENTRY e {{
  a = {shape_text(lhs)} parameter(0)
  b = {shape_text(rhs)} parameter(1)
  ROOT c = {out_type}[{",".join(map(str, out_dims))}] convolution(a, b), window={{{wtext}}}, dim_labels={labels}, feature_group_count={fg}
}}"""
    return lhs, rhs, text


CASES = [
    (np.float32, np.float32, "f32", 1e-5),
    (np.float64, np.float64, "f64", 1e-12),
    (ml_dtypes.bfloat16, ml_dtypes.bfloat16, "bf16", 1e-2),
    (ml_dtypes.bfloat16, ml_dtypes.bfloat16, "f32", 1e-5),
    (np.complex64, np.complex64, "c64", 1e-5),
    (np.int8, np.int8, "s32", None),
    (np.int32, np.int32, "s32", None),
    (np.int16, np.int16, "s16", None),
    (np.uint8, np.uint8, "u8", None),
]


@pytest.mark.parametrize(("lt", "rt", "out", "rtol"), CASES)
@pytest.mark.parametrize("spatial", [1, 2, 3])
def test_convolution_random(lt, rt, out, rtol, spatial):
    rng = np.random.default_rng(abs(hash((np.dtype(lt).name, out, spatial))) % 2**32)
    for _ in range(12 if spatial < 3 else 4):
        lhs, rhs, text = random_conv(rng, lt, rt, out, spatial)
        got, want, kernel = run_both(text, lhs, rhs)
        if rtol is None:
            assert kernel.exact
            assert_same(got, want)
        else:
            assert_close(got, want, rtol=rtol * max(1, lhs.size // 50))


def test_convolution_nhwc_same_like_jax():
    rng = np.random.default_rng(1)
    x = random_array(rng, np.float32, (2, 9, 7, 5))
    k = random_array(rng, np.float32, (3, 3, 5, 4))
    text = """HloModule m
ENTRY e {
  x = f32[2,9,7,5] parameter(0)
  k = f32[3,3,5,4] parameter(1)
  ROOT c = f32[2,9,7,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}"""
    got, want, kernel = run_both(text, x, k)
    assert "im2col" in kernel.how
    assert_close(got, want, rtol=1e-5)
    # against a direct float64 loop
    xp = np.pad(x.astype(np.float64), [(0, 0), (1, 1), (1, 1), (0, 0)])
    ref = np.zeros((2, 9, 7, 4))
    for i in range(3):
        for j in range(3):
            ref += xp[:, i : i + 9, j : j + 7, :] @ k[i, j].astype(np.float64)
    assert_close(got, ref.astype(np.float32), rtol=1e-5)


GRADIENTS = {
    # the input gradient of a stride-2 3x3 conv: dilated dy, reversed kernel, i/o swapped
    "input gradient (lhs_dilate, rhs_reversal)": (
        "f32[4,5,5,6]",
        "f32[3,3,3,6]",
        "f32[4,10,10,3]",
        "size=3x3 pad=1_2x1_2 lhs_dilate=2x2 rhs_reversal=1x1",
        "b01f_01oi->b01f",
        1,
    ),
    # the weight gradient: images as features, the output positions as the window
    "weight gradient (f01b, window = output)": (
        "f32[8,14,14,5]",
        "f32[8,14,14,7]",
        "f32[3,3,5,7]",
        "size=14x14 pad=1_1x1_1",
        "f01b_i01o->01bf",
        1,
    ),
    # a depthwise conv, one group per channel
    "depthwise (feature_group_count)": (
        "f32[4,9,9,6]",
        "f32[3,3,1,12]",
        "f32[4,9,9,12]",
        "size=3x3 pad=1_1x1_1",
        "b01f_01io->b01f",
        6,
    ),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_convolutions_of_jax_gradients_run_as_gemm(case):
    """The convolutions JAX's gradients emit run through im2col + GEMM (tap tables for the
    dilation holes, the padding and the reversed window; the weight gradient with positions
    and taps swapped), within the summation tolerance of the interpreter."""
    lhs_type, rhs_type, out_type, window, labels, groups = GRADIENTS[case]
    text = f"""HloModule m
ENTRY e {{
  a = {lhs_type} parameter(0)
  b = {rhs_type} parameter(1)
  ROOT c = {out_type} convolution(a, b), window={{{window}}}, dim_labels={labels}, feature_group_count={groups}
}}"""
    rng = np.random.default_rng(len(case))
    module = parse_hlo(text)
    lhs, rhs = (
        random_array(rng, np.float32, tuple(o.shape.dims)) for o in module.entry.root.operands
    )
    got, want, kernel = run_both(text, lhs, rhs)
    assert "im2col" in kernel.how
    assert f"{groups} group(s)" in kernel.how
    # a weight gradient has more window taps than output positions: they run swapped
    assert ("positions and taps swapped" in kernel.how) == case.startswith("weight")
    assert_close(got, want, rtol=1e-5 * max(1, lhs.size // 50))


def test_convolution_batch_groups_have_no_kernel():
    text = """HloModule m
ENTRY e {
  x = f32[4,5,2] parameter(0)
  k = f32[3,2,2] parameter(1)
  ROOT c = f32[2,3,2] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=2
}"""
    with pytest.raises(NoKernel, match="batch_group_count"):
        build(parse_hlo(text).entry.root)


@pytest.mark.parametrize(
    ("block_bytes", "min_rows"), [(1, 1), (200, 1), (1000, 1), (1, 4), (200, 8)]
)
def test_convolution_in_small_blocks(monkeypatch, block_bytes, min_rows):
    """Output positions split into many blocks (one row, a few rows, an uneven last block),
    taken by the cores in turn, and with ``min_rows`` above what the bytes allow, the taps in
    slices accumulated: the same result as one block, bit for bit for integers."""
    from xlapy.backend.cpu.kernels import convolution

    monkeypatch.setattr(convolution, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(convolution, "_MIN_ROWS", min_rows)
    rng = np.random.default_rng(block_bytes)
    for spatial in (1, 2, 3):
        for _ in range(3):
            lhs, rhs, text = random_conv(rng, np.int32, np.int32, "s32", spatial)
            got, want, _ = run_both(text, lhs, rhs)
            assert_same(got, want)
        lhs, rhs, text = random_conv(rng, np.float32, np.float32, "f32", spatial)
        got, want, _ = run_both(text, lhs, rhs)
        assert_close(got, want, rtol=1e-5 * max(1, lhs.size // 50))


def test_swapped_convolutions_match_the_interpreter_and_the_quick_tier(monkeypatch):
    """Every random float convolution with more taps than output positions (and no base
    dilation or feature groups) runs swapped: within the summation tolerance of the
    interpreter, in blocks of rows too (more blocks than lanes), and the quick tier's numpy
    im2col and a single core give its bits."""
    from xlapy.backend.cpu.kernel import generated_kernels
    from xlapy.backend.cpu.kernels import blas, convolution

    monkeypatch.setattr(convolution, "_MIN_SWAPPED_WIDTH", 1)
    rng = np.random.default_rng(11)
    swapped = 0
    for spatial in (1, 2, 3):
        for block_bytes, min_rows in ((1 << 20, 256), (8, 2)):
            monkeypatch.setattr(convolution, "_BLOCK_BYTES", block_bytes)
            monkeypatch.setattr(convolution, "_MIN_ROWS", min_rows)
            for _ in range(12):
                lhs, rhs, text = random_conv(rng, np.float32, np.float32, "f32", spatial)
                got, want, kernel = run_both(text, lhs, rhs)
                assert_close(got, want, rtol=1e-5 * max(1, lhs.size // 50))
                if "swapped" in kernel.how:
                    swapped += 1
                    with generated_kernels(False):
                        quick, _, _ = run_both(text, lhs, rhs)
                    assert_same(quick, got)
                    with monkeypatch.context() as one_core:
                        one_core.setattr(blas, "workers", lambda: 1)
                        alone, _, _ = run_both(text, lhs, rhs)
                    assert_same(alone, got)
    assert swapped >= 5


def test_convolution_flush_denormals_matches_interpreter():
    """Under flush_denormals subnormal inputs read as zeros and subnormal results become
    zeros: tiny products (1e-21 * 1e-19) sum to subnormals, which are flushed, as the
    interpreter's flush mode does; normal results are unchanged."""
    import xlapy

    text = """HloModule m
ENTRY e {
  x = f32[2,5,5,3] parameter(0)
  k = f32[3,3,3,2] parameter(1)
  ROOT c = f32[2,5,5,2] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}"""
    rng = np.random.default_rng(8)
    x = np.full((2, 5, 5, 3), 1e-21, np.float32)
    x[1] = rng.integers(1, 4, (5, 5, 3)).astype(np.float32)  # image 1: normal results
    x[0, 2, 2, 0] = np.float32(1e-40)  # a subnormal input
    k = np.full((3, 3, 3, 2), 1e-19, np.float32)
    k[..., 1] = rng.integers(-2, 3, (3, 3, 3)).astype(np.float32)
    module = xlapy.load(text)
    want = xlapy.run(module, x, k, flush_denormals=True, platform="interpreter")[0]
    exe = xlapy.compile(module, platform="cpu", flush_denormals=True)
    got = exe(x, k)[0]
    assert "im2col" in exe.report()
    assert not np.any(got[0, ..., 0])  # subnormal sums flushed
    assert np.array_equal(got[0, ..., 0], want[0, ..., 0])
    assert_close(got, want, rtol=1e-6)
    assert np.any(
        xlapy.run(module, x, k, platform="interpreter")[0][0, ..., 0]
    )  # not zero without flushing


@pytest.mark.parametrize("bad", [None, np.inf, np.nan])
def test_strided_input_gradient_skips_dilation_holes_as_the_interpreter(bad):
    """The input gradient of a stride-2 3x3 convolution (lhs_dilate=2) runs per class of
    output positions, reading only real input elements; a kernel with an infinity or a NaN
    (whose products with the holes' zeros are NaN in the interpreter) takes the whole
    im2col instead, so the NaNs are the interpreter's."""
    text = """HloModule m
ENTRY e {
  dy = f32[2,5,5,4] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  ROOT dx = f32[2,10,10,3] convolution(dy, w), window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01oi->b01f
}"""
    rng = np.random.default_rng(4)
    lhs = random_array(rng, np.float32, (2, 5, 5, 4))
    rhs = random_array(rng, np.float32, (3, 3, 3, 4))
    if bad is not None:
        rhs[0, 1, 2, 3] = bad
    got, want, _ = run_both(text, lhs, rhs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # NaNs and infinities equal
    assert np.isnan(want).any() == (bad is not None)
    lhs8 = rng.integers(-50, 50, (2, 5, 5, 4)).astype(np.int32)
    rhs8 = rng.integers(-50, 50, (3, 3, 3, 4)).astype(np.int32)
    int_text = text.replace("f32", "s32")
    got, want, _ = run_both(int_text, lhs8, rhs8)
    assert_same(got, want)


@pytest.mark.parametrize(
    ("lt", "rt", "out"), [(np.float32, np.float32, "f32"), (np.int8, np.int8, "s32")]
)
def test_quick_tier_convolution_gives_the_compiled_bits(lt, rt, out):
    """On the quick tier (no numba) the convolution builds its im2col patches with numpy:
    the same patches, hence the same GEMM and the compiled kernel's bits."""
    from xlapy.backend.cpu.kernel import generated_kernels

    rng = np.random.default_rng(7)
    for spatial in (1, 2, 3):
        for _ in range(4):
            lhs, rhs, text = random_conv(rng, lt, rt, out, spatial)
            compiled, _, kernel = run_both(text, lhs, rhs)
            assert kernel.how.startswith("numba im2col")
            with generated_kernels(False):
                quick, _, kernel = run_both(text, lhs, rhs)
            assert kernel.how.startswith("numpy im2col")
            assert_same(quick, compiled)
