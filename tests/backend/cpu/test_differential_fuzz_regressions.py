"""Regressions of the differential fuzzer's findings (``tools/fuzz/differential.py``, issue
#20): each a minimised program on which ``cpu`` once returned what the ``interpreter`` does
not, with the value the spec gives."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy

INT_MIN = np.iinfo(np.int64).min

REDUCERS = """HloModule m
add {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = s64[] add(a, b)
}
max {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = s64[] maximum(a, b)
}
"""


def _both(text: str, *args: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    module = xlapy.load(text)
    got = xlapy.compile(module, platform="cpu", tiered=False)(*args)
    want = xlapy.run(module, *args, platform="interpreter")
    return list(got), list(want)


@pytest.mark.parametrize(("x", "total"), [(INT_MIN, 0), (INT_MIN + 1, 1), (5, INT_MIN + 5)])
def test_s64_sums_that_overflow_wrap_around(x: int, total: int) -> None:
    """``max(INT_MIN, x) + INT_MIN`` (a padded max-window summed): numba's signed ``add nsw``
    let LLVM fold it to ``x | INT_MIN`` (cpu gave INT_MIN for 0 when x = INT_MIN, seed 27)."""
    text = (
        REDUCERS
        + """ENTRY main {
  p = s64[1] parameter(0)
  low = s64[] constant(-9223372036854775808)
  w = s64[2] reduce-window(p, low), window={size=1 stride=1 pad=0_1}, to_apply=max
  zero = s64[] constant(0)
  ROOT r = s64[] reduce(w, zero), dimensions={0}, to_apply=add
}
"""
    )
    got, want = _both(text, np.array([x], np.int64))
    assert int(want[0]) == total
    assert int(got[0]) == total


def test_s64_elementwise_arithmetic_wraps_around() -> None:
    """Negate, abs, add, subtract and multiply of s64 at the edges wrap as two's complement."""
    text = """HloModule m
ENTRY main {
  a = s64[4] parameter(0)
  b = s64[4] parameter(1)
  n = s64[4] negate(a)
  m = s64[4] abs(a)
  s = s64[4] add(a, b)
  d = s64[4] subtract(a, b)
  p = s64[4] multiply(a, b)
  ROOT t = (s64[4], s64[4], s64[4], s64[4], s64[4]) tuple(n, m, s, d, p)
}
"""
    a = np.array([INT_MIN, INT_MIN, np.iinfo(np.int64).max, -1], np.int64)
    b = np.array([INT_MIN, -1, 1, INT_MIN], np.int64)
    got, want = _both(text, a, b)
    with np.errstate(over="ignore"):
        expected = [-a, np.where(a < 0, -a, a), a + b, a - b, a * b]
    for g, w, e in zip(got, want, expected, strict=True):
        np.testing.assert_array_equal(w, e)
        np.testing.assert_array_equal(g, e)


def test_donated_and_other_arguments_of_a_jitted_function_are_left_as_they_were() -> None:
    """``xlapy.jit(donate_argnums=...)`` lowers with JAX's donation (the module aliases the
    donated parameter to an output); xlapy never writes to a caller's array, donated or not,
    and gives XLA's values: a scan-like update of the donated state in place (an in-place
    dynamic-update-slice inside the program) and a read of the other argument."""
    import jax
    import jax.numpy as jnp

    def step(state: jax.Array, rows: jax.Array, i: jax.Array) -> tuple[jax.Array, jax.Array]:
        new = jax.lax.dynamic_update_slice(state, state[i][None] * 2 + rows[i][None], (i, 0))
        return new, jnp.sum(rows, axis=0)

    state = np.arange(12, dtype=np.float32).reshape(4, 3)
    rows = np.full((4, 3), -1.5, np.float32)
    index = np.int32(2)
    kept = (state.copy(), rows.copy())
    f = xlapy.jit(step, donate_argnums=(0,))
    config = f.lower(state, rows, index).config
    assert str(config.input_output_alias) == "{ {0}: (0, {}, may-alias) }"
    got = f(state, rows, index)
    want = jax.jit(step)(state, rows, index)
    np.testing.assert_array_equal(state, kept[0])
    np.testing.assert_array_equal(rows, kept[1])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, np.asarray(w))


def test_s64_int_min_divided_by_minus_one_is_int_min() -> None:
    """``divide(INT_MIN, -1)`` wraps to INT_MIN (OPS.md); the helper negated in int64
    (``~a + 1``, LLVM's ``add nsw``), so LLVM took the quotient for never INT_MIN and
    ``compare(divide(max(INT_MIN, x), -1), INT_MIN)`` was false on cpu (found probing the
    nsw finding's pattern)."""
    text = """HloModule m
ENTRY main {
  x = s64[3] parameter(0)
  low = s64[] constant(-9223372036854775808)
  lows = s64[3] broadcast(low), dimensions={}
  m1 = s64[] constant(-1)
  m1s = s64[3] broadcast(m1), dimensions={}
  top = s64[3] maximum(lows, x)
  d = s64[3] divide(top, m1s)
  r = s64[3] remainder(top, m1s)
  eq = pred[3] compare(d, lows), direction=EQ
  ROOT t = (s64[3], s64[3], pred[3]) tuple(d, r, eq)
}
"""
    x = np.array([INT_MIN, 5, -7], np.int64)
    got, want = _both(text, x)
    expected = [np.array([INT_MIN, -5, 7]), np.zeros(3, np.int64), np.array([True, False, False])]
    for g, w, e in zip(got, want, expected, strict=True):
        np.testing.assert_array_equal(w, e)
        np.testing.assert_array_equal(g, e)


def test_an_empty_slice_of_a_strided_slice_compiles() -> None:
    """``slice([1:1])`` of ``slice(x, [0:1:3])`` on a dimension of 2: the algebraic
    simplifier merged the two into a slice starting at 3, past the operand's end, and cpu
    raised "slice [C3]: dimension 0 needs 0 <= start <= limit <= 2" (seed 9203)."""
    text = """HloModule m
ENTRY main {
  p = f64[2,5] parameter(0)
  a = f64[1,0] slice(p), slice={[0:1:3], [0:0:1]}
  b = f64[0,0] slice(a), slice={[1:1:1], [0:0:1]}
  c = f64[1,2] slice(p), slice={[1:2:1], [0:5:3]}
  d = f64[1,1] slice(c), slice={[0:1:1], [1:2:1]}
  ROOT t = (f64[0,0], f64[1,1]) tuple(b, d)
}
"""
    x = np.arange(10, dtype=np.float64).reshape(2, 5)
    got, want = _both(text, x)
    assert got[0].shape == want[0].shape == (0, 0)
    np.testing.assert_array_equal(want[1], [[8.0]])
    np.testing.assert_array_equal(got[1], [[8.0]])


SCAN_ROWS = """HloModule m
cond {
  s = (s32[], T[3,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], T[3,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = T[3,3] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  row = T[1,3] dynamic-slice(x, i, zero), dynamic_slice_sizes={1,3}
  twice = T[1,3] add(row, row)
  next_x = T[3,3] dynamic-update-slice(x, twice, i, zero)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT t = (s32[], T[3,3]) tuple(next_i, next_x)
}
ENTRY main {
  x = T[3,3] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], T[3,3]) tuple(zero, x)
  loop = (s32[], T[3,3]) while(init), condition=cond, body=body
  ROOT out = T[3,3] get-tuple-element(loop), index=1
}
"""


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_a_half_precision_loop_state_updated_a_row_at_a_time(t: str) -> None:
    """A whole-loop kernel's row update of an f16/bf16 state went through a temporary of f32
    values copied into the state's 16-bit patterns as numbers: 2.0 became the pattern 2 and
    -0.0 became +0.0 (seed 10101 found the zero's sign)."""
    import ml_dtypes

    dtype = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}[t]
    x = np.arange(9, dtype=np.float32).reshape(3, 3).astype(dtype)
    x[0, 0] = -0.0
    (got,), (want,) = _both(SCAN_ROWS.replace("T[", f"{t}["), x)
    expected = x.astype(np.float32)
    expected[:2] *= 2
    np.testing.assert_array_equal(want.astype(np.float32), expected)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_power_of_minus_infinity_to_one_half_is_infinity_on_scalars(t: str) -> None:
    """``pow(-inf, 0.5) = +inf`` (C's pow, XLA:CPU's); the interpreter's numpy gave NaN for
    0-d operands only (its scalar path), while cpu gave inf (seed 60620)."""
    text = f"""HloModule m
ENTRY main {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  s = {t}[] power(a, b)
  v = {t}[2] broadcast(s), dimensions={{}}
  ROOT r = ({t}[], {t}[2]) tuple(s, v)
}}
"""
    dtype = np.float32 if t == "f32" else np.float64
    got, want = _both(text, np.array(-np.inf, dtype), np.array(0.5, dtype))
    for value in (*got, *want):
        assert np.all(np.isposinf(value)), value
