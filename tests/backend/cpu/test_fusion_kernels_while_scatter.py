"""Scatters inside whole-loop while kernels (``codegen/scatter_emitter.py``) vs the
interpreter, bit for bit: random dimension numbers (batching dims, index_vector_dim anywhere,
windows, out-of-bounds windows skipped, repeated indices in order) with every combiner, two
scatters in a row (updated in place), and JAX's LU pivoting loop (``jnp.linalg.solve``) on
the cpu platform."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from op_kernels_util import shape_text
from test_op_kernels_gather_scatter import BODIES, random_scatter

import xlapy
from tests.backend.cpu.fusion_kernels_util import assert_bitwise
from tests.backend.cpu.test_fusion_kernels_while import run_while


def while_of_scatter(text: str, operand, indices, updates, twice: bool) -> str:
    """A loop running the entry scatter of ``text`` three times on its own result (twice
    per iteration, the second with negated updates, when ``twice``)."""
    scatter = text.split("ROOT s = ")[1].split("\n")[0]
    upd = text.split("ENTRY e")[0].split("HloModule m\n")[1]
    o, i, u = (shape_text(x) for x in (operand, indices, updates))
    state = f"(s32[], {o}, {i}, {u})"
    second = ""
    result = "s"
    if twice:
        negated = "neg" if updates.dtype.kind in "fi" else "u"
        if negated == "neg":
            second = f"  neg = {u} negate(u)\n"
        second += (
            "  again = " + scatter.replace("scatter(p, i, u)", f"scatter(s, i, {negated})") + "\n"
        )
        result = "again"
    return f"""HloModule m
{upd}
body {{
  st = {state} parameter(0)
  n = s32[] get-tuple-element(st), index=0
  p = {o} get-tuple-element(st), index=1
  i = {i} get-tuple-element(st), index=2
  u = {u} get-tuple-element(st), index=3
  s = {scatter}
{second}  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  ROOT t = {state} tuple(n1, {result}, i, u)
}}
condition {{
  st = {state} parameter(0)
  n = s32[] get-tuple-element(st), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(n, three), direction=LT
}}
ENTRY e {{
  p = {o} parameter(0)
  i = {i} parameter(1)
  u = {u} parameter(2)
  zero = s32[] constant(0)
  init = {state} tuple(zero, p, i, u)
  ROOT loop = {state} while(init), condition=condition, body=body
}}"""


TYPES = {
    np.float32: ["replace", "add", "multiply", "maximum", "minimum"],
    np.float64: ["add", "minimum"],
    np.int32: ["replace", "add", "multiply", "maximum", "xor"],
    np.uint8: ["add", "maximum"],
    np.bool_: ["replace", "or", "and"],
    np.float16: ["replace", "add"],
    ml_dtypes.bfloat16: ["replace", "maximum"],
}


@pytest.mark.parametrize(("dtype", "body"), [(d, b) for d, bodies in TYPES.items() for b in bodies])
def test_scatter_in_a_loop_random_dimension_numbers(dtype, body) -> None:
    rng = np.random.default_rng(abs(hash(("while", np.dtype(dtype).name, body))) % 2**32)
    for trial in range(4):  # each trial compiles a loop kernel (about a second)
        operand, indices, updates, text = random_scatter(rng, dtype, BODIES[body])
        twice = trial % 2 == 1
        if np.dtype(dtype).kind == "f" and trial == 0 and updates.size and not twice:
            # (a NaN meeting a NaN of the other sign may keep either, which IEEE leaves open)
            updates.reshape(-1)[0] = np.nan
            operand.reshape(-1)[-1] = -0.0
        loop = while_of_scatter(text, operand, indices, updates, twice)
        got, want, kernel = run_while(loop, (np.array(0, np.int32), operand, indices, updates))
        assert "numba whole loop" in kernel.how, kernel.how
        assert "scatter" in kernel.how, kernel.how
        assert kernel.exact
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_bitwise(g, w, f"trial {trial}, state element {k}\n{loop}")


def test_jax_lu_pivoting_loop_runs_whole_and_matches_the_interpreter() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 8, 8)).astype(np.float32)
    b = rng.standard_normal((4, 8, 2)).astype(np.float32)
    module = xlapy.load(jax.jit(jnp.linalg.solve).lower(a, b).as_text())
    exe = xlapy.compile(module, platform="cpu", tiered=False)
    report = exe.report()
    assert "scatters" in report, report
    assert "loop in Python" not in report, report
    (got,) = exe(a, b)
    (want,) = xlapy.run(module, a, b, platform="interpreter")
    assert_bitwise(np.asarray(got), np.asarray(want), "solve")
    assert np.allclose(want, np.linalg.solve(a, b), atol=1e-4)
