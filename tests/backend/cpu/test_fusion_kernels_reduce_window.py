"""Reduce-windows inside generated fusion kernels (the reduce-window element generator) vs
the interpreter, bit for bit: pooling as JAX writes it (avg_pool's windowed sum and divide,
max_pool with NaNs and signed zeros), avg_pool's gradient (a padded, base-dilated sum),
window dilation, integer sums that wrap, a reducer that is not one op; and the windows left
to other kernels (cumulative, large)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import assert_bitwise, run_root
from xlapy.backend.cpu.kernel import CompileOptions, NoKernel
from xlapy.backend.cpu.kernels.fusion import fusion_kernel
from xlapy.text.hlo_parser import parse_hlo

POOL = """HloModule pool

REDUCER

fused {
  x = TYPE[8,12,10,3] parameter(0)
  init = TYPE[] constant(INIT)
  r = TYPE[OUT] reduce-window(x, init), window={WINDOW}, to_apply=combine
  four = TYPE[] constant(4)
  q = TYPE[OUT] broadcast(four), dimensions={}
  ROOT y = TYPE[OUT] AFTER
}

ENTRY main {
  x = TYPE[8,12,10,3] parameter(0)
  ROOT f = TYPE[OUT] fusion(x), kind=kLoop, calls=fused
}
"""

ADD = """combine {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  ROOT s = TYPE[] add(a, b)
}"""

MAX = ADD.replace("add(a, b)", "maximum(a, b)")

# a reducer that is not one op: |a| + b
ABS_ADD = """combine {
  a = TYPE[] parameter(0)
  b = TYPE[] parameter(1)
  m = TYPE[] abs(a)
  ROOT s = TYPE[] add(m, b)
}"""


def pool(reducer: str, dtype: str, init: str, window: str, out: str, after: str) -> str:
    text = POOL.replace("REDUCER", reducer).replace("WINDOW", window).replace("INIT", init)
    return text.replace("OUT", out).replace("AFTER", after).replace("TYPE", dtype)


def sample(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(11)
    if dtype == "s8":
        return rng.integers(-128, 128, (8, 12, 10, 3)).astype(np.int8)
    x = rng.standard_normal((8, 12, 10, 3)).astype(np.float32 if dtype == "f32" else np.float64)
    flat = x.reshape(-1)
    flat[::37] = np.nan
    flat[5::41] = -0.0
    flat[7::43] = 0.0
    flat[9::53] = np.inf
    return x


CASES = {
    "avg_pool 2x2 stride 2, then divide": (
        ADD,
        "f32",
        "0",
        "size=1x2x2x1 stride=1x2x2x1",
        "8,6,5,3",
        "divide(r, q)",
    ),
    "max_pool 3x3 stride 2 SAME padding (init -inf combines in the padding)": (
        MAX,
        "f32",
        "-inf",
        "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0",
        "8,6,5,3",
        "negate(r)",
    ),
    "avg_pool gradient: base dilation and padding (holes skipped)": (
        ADD,
        "f64",
        "0",
        "size=1x2x2x1 pad=0_0x1_2x1_1x0_0 lhs_dilate=1x2x2x1",
        "8,25,20,3",
        "negate(r)",
    ),
    "window dilation and stride": (
        ADD,
        "f32",
        "0.5",
        "size=1x3x2x1 stride=1x2x3x1 pad=0_0x2_0x0_1x0_0 rhs_dilate=1x2x3x1",
        "8,5,3,3",
        "negate(r)",
    ),
    "integer sums wrap": (
        ADD,
        "s8",
        "100",
        "size=1x3x3x2 stride=1x1x2x1 pad=0_0x1_1x0_0x0_0",
        "8,12,4,2",
        "negate(r)",
    ),
    "a reducer of two ops": (
        ABS_ADD,
        "f32",
        "-1",
        "size=1x2x3x1 stride=1x2x2x1",
        "8,6,4,3",
        "negate(r)",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_reduce_window_fused_equals_the_interpreter(case: str) -> None:
    reducer, dtype, init, window, out, after = CASES[case]
    text = pool(reducer, dtype, init, window, out, after)
    got, want, kernel = run_root(text, [sample(dtype)])
    assert "loop fusion" in kernel.how
    assert_bitwise(got, want, case)
    assert kernel.exact, "the interpreter's order, each step the reducer's own ops"


def test_cumulative_and_large_windows_are_left_to_their_kernels() -> None:
    cumsum = pool(ADD, "f32", "0", "size=1x12x1x1 pad=0_0x11_0x0_0x0_0", "8,12,10,3", "negate(r)")
    large = pool(ADD, "f32", "0", "size=1x9x9x1 pad=0_0x4_4x4_4x0_0", "8,12,10,3", "negate(r)")
    for text, reason in ((cumsum, "cumulative window"), (large, "81 cells per window")):
        root = parse_hlo(text).entry.root
        with pytest.raises(NoKernel, match=reason):
            fusion_kernel(root, CompileOptions())
