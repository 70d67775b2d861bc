"""Generated reductions vs the interpreter: every recognised reducer (add, multiply, maximum,
minimum, and, or, xor) on integer, pred and float types in the three loop plans (row,
column, split) and mixed reduced dimensions; variadic (argmax) reducers; reductions inside
loop fusions (softmax, layer norm) and multi-output reduction fusions.

Integer, pred, maximum and minimum results are bit-exact; float sums and products are
accumulated in another order than the interpreter's pairwise tree (and sums reassociate), so
they are compared within a relative bound.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import assert_bitwise, run_root
from xlapy import dtypes
from xlapy.backend.cpu.codegen import fusion_emitter
from xlapy.dtypes import ElementType


@pytest.fixture(autouse=True)
def parallel_from_small_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parallel plans at test sizes (the default starts at millions of elements)."""
    monkeypatch.setattr(fusion_emitter, "PARALLEL_WORK", 1 << 16)


REDUCERS = {
    "add": "add",
    "mul": "multiply",
    "max": "maximum",
    "min": "minimum",
    "and": "and",
    "or": "or",
    "xor": "xor",
}
# (input dims, reduced dims, plan the kernel should choose)
PLANS = [
    ((16, 300), (1,), "row reduction"),
    ((300, 16), (0,), "column reduction"),
    ((4, 1 << 15), (1,), "split reduction"),
    ((6, 40, 5), (0, 2), "row reduction"),
    ((6, 40, 5), (1,), "column reduction"),
    ((40, 6, 5), (0, 1), "column reduction"),
]
TYPES = [dtypes.F32, dtypes.F64, dtypes.BF16, dtypes.S8, dtypes.S32, dtypes.U64, dtypes.PRED]


def reducers_for(t: ElementType) -> list[str]:
    if t.is_float:
        return ["add", "mul", "max", "min"]
    return list(REDUCERS)


def init_value(name: str, t: ElementType) -> str:
    if t.is_pred:
        return "true" if name in ("mul", "min", "and") else "false"
    if name == "mul":
        return "1"
    if name == "and":
        return "-1" if t.is_signed else str(np.iinfo(t.numpy).max)
    if name in ("max", "min") and t.is_float:
        return "-inf" if name == "max" else "inf"
    if name in ("max", "min"):
        info = np.iinfo(t.numpy)
        return str(info.min if name == "max" else info.max)
    return "0"


def reduce_module(t: ElementType, in_dims: tuple[int, ...], dims: tuple[int, ...]) -> str:
    """A fusion whose tuple root holds one reduce per reducer of ``t`` (one kernel)."""
    s = t.name
    shape = f"{s}[{','.join(map(str, in_dims))}]"
    out = f"{s}[{','.join(str(n) for d, n in enumerate(in_dims) if d not in dims)}]"
    names = reducers_for(t)
    regions = [
        f"r_{n} {{\n  a = {s}[] parameter(0)\n  b = {s}[] parameter(1)\n"
        f"  ROOT c = {s}[] {REDUCERS[n]}(a, b)\n}}\n"
        for n in names
    ]
    body = [f"  p0 = {shape} parameter(0)"]
    for n in names:
        body.append(f"  init_{n} = {s}[] constant({init_value(n, t)})")
        body.append(
            f"  reduce_{n} = {out} reduce(p0, init_{n}), dimensions={{{','.join(map(str, dims))}}}, "
            f"to_apply=r_{n}"
        )
    shapes = ", ".join([out] * len(names))
    body.append(f"  ROOT t = ({shapes}) tuple({', '.join(f'reduce_{n}' for n in names)})")
    return "\n".join(
        [
            "HloModule reduce",
            "",
            *regions,
            f"fused (p0: {shape}) -> ({shapes}) {{",
            *body,
            "}",
            "",
            "ENTRY main {",
            f"  a = {shape} parameter(0)",
            f"  ROOT f = ({shapes}) fusion(a), kind=kInput, calls=fused",
            "}",
        ]
    )


def random_values(t: ElementType, dims: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if t.is_pred:
        return rng.random(dims) < 0.97  # mostly true: and/min are not always false
    if t.is_float:
        return (rng.uniform(0.9, 1.1, dims) * rng.choice([-1, 1], dims)).astype(t.numpy)
    info = np.iinfo(t.numpy)
    return rng.integers(info.min, info.max, dims, endpoint=True, dtype=t.numpy)


def assert_float_reduction(got: np.ndarray, want: np.ndarray, x: np.ndarray, what: str) -> None:
    """Within a few ulp of the magnitude the order of the sum may change."""
    __tracebackhide__ = True
    assert got.dtype == want.dtype
    scale = float(ml_dtypes.finfo(x.dtype).eps) * x.size**0.5 * 4
    g, w = got.astype(np.float64), want.astype(np.float64)
    bound = scale * float(np.abs(x.astype(np.float64)).max())
    np.testing.assert_allclose(g, w, rtol=scale, atol=bound, err_msg=what)


@pytest.mark.parametrize("t", TYPES, ids=str)
@pytest.mark.parametrize(("in_dims", "dims", "plan"), PLANS, ids=lambda v: str(v))
def test_reducers_in_every_plan(t: ElementType, in_dims, dims, plan: str) -> None:
    x = random_values(t, in_dims, seed=sum(in_dims))
    got, want, kernel = run_root(reduce_module(t, in_dims, dims), [x])
    if plan == "split reduction" and t.is_float:
        plan = "row reduction"  # float products do not reassociate: no split with a product
    assert plan in kernel.how
    for name, g, w in zip(reducers_for(t), got, want, strict=True):
        what = f"reduce {name} on {t.name}{list(in_dims)} over {dims}"
        if t.is_float and name in ("add", "mul"):
            assert_float_reduction(g, w, x, what)
        else:
            assert_bitwise(g, w, what)
    assert kernel.exact == (not t.is_float)


@pytest.mark.parametrize(("in_dims", "dims", "plan"), PLANS[:3], ids=lambda v: str(v))
def test_float_maximum_and_minimum_propagate_nan_and_order_signed_zeros(in_dims, dims, plan):
    t = dtypes.F32
    x = random_values(t, in_dims, seed=3)
    flat = x.reshape(-1)
    flat[::7] = 0.0
    flat[::11] = -0.0
    flat[5 :: max(1, flat.size // 3)] = np.nan
    zeros = np.zeros(in_dims, np.float32)
    zeros.reshape(-1)[::2] = -0.0
    for values in (x, zeros):
        got, want, _ = run_root(reduce_module(t, in_dims, dims), [values])
        for name, g, w in zip(reducers_for(t), got, want, strict=True):
            if name in ("max", "min"):
                assert_bitwise(g, w, f"reduce {name} with NaN and signed zeros")


ARGMAX = """HloModule argmax

argmax_body {
  value_a = f32[] parameter(0)
  index_a = s32[] parameter(1)
  value_b = f32[] parameter(2)
  index_b = s32[] parameter(3)
  greater = pred[] compare(value_a, value_b), direction=GT
  a_nan = pred[] compare(value_a, value_a), direction=NE
  pick_a_value = pred[] or(greater, a_nan)
  equal = pred[] compare(value_a, value_b), direction=EQ
  lower = pred[] compare(index_a, index_b), direction=LT
  tie = pred[] and(equal, lower)
  pick_a = pred[] or(pick_a_value, tie)
  value = f32[] select(pick_a, value_a, value_b)
  index = s32[] select(pick_a, index_a, index_b)
  ROOT result = (f32[], s32[]) tuple(value, index)
}

fused (p0: f32[{rows},{cols}]) -> s32[{rows}] {
  p0 = f32[{rows},{cols}] parameter(0)
  iota = s32[{rows},{cols}] iota(), iota_dimension=1
  neg_inf = f32[] constant(-inf)
  zero = s32[] constant(0)
  argmax = (f32[{rows}], s32[{rows}]) reduce(p0, iota, neg_inf, zero), dimensions={1}, to_apply=argmax_body
  ROOT index = s32[{rows}] get-tuple-element(argmax), index=1
}

ENTRY main {
  a = f32[{rows},{cols}] parameter(0)
  ROOT f = s32[{rows}] fusion(a), kind=kInput, calls=fused
}
"""


def test_variadic_argmax_reducer_is_generated_inline() -> None:
    rows, cols = 32, 50
    rng = np.random.default_rng(7)
    x = rng.integers(0, 5, (rows, cols)).astype(np.float32)  # many ties
    x[3, 17] = np.nan
    got, want, kernel = run_root(
        ARGMAX.replace("{rows}", str(rows)).replace("{cols}", str(cols)), [x]
    )
    assert_bitwise(got, want, "argmax")
    function = kernel.source.split("@numba.njit")[1]
    assert "pick_a = " in function  # the body's ops are inline
    assert "argmax_acc0, argmax_acc1 = " in function


SOFTMAX = """HloModule softmax

max_body {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add_body {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused (p0: f32[64,200]) -> f32[64,200] {
  p0 = f32[64,200] parameter(0)
  neg_inf = f32[] constant(-inf)
  row_max = f32[64] reduce(p0, neg_inf), dimensions={1}, to_apply=max_body
  max_b = f32[64,200] broadcast(row_max), dimensions={0}
  shifted = f32[64,200] subtract(p0, max_b)
  exp = f32[64,200] exponential(shifted)
  zero = f32[] constant(0)
  row_sum = f32[64] reduce(exp, zero), dimensions={1}, to_apply=add_body
  sum_b = f32[64,200] broadcast(row_sum), dimensions={0}
  ROOT softmax = f32[64,200] divide(exp, sum_b)
}

ENTRY main {
  a = f32[64,200] parameter(0)
  ROOT f = f32[64,200] fusion(a), kind=kLoop, calls=fused
}
"""


def test_softmax_in_one_loop_fusion_hoists_the_row_reductions() -> None:
    x = np.random.default_rng(0).standard_normal((64, 200)).astype(np.float32) * 5
    got, want, kernel = run_root(SOFTMAX, [x])
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9)
    lines = kernel.source.splitlines()
    element_loop = next(i for i, line in enumerate(lines) if "for i1 in range(200)" in line)
    reductions = [i for i, line in enumerate(lines) if "for r0" in line]
    assert len(reductions) == 3, kernel.source  # max (and its exact rerun on NaN), sum
    assert all(i < element_loop for i in reductions), kernel.source


MULTI_OUTPUT = """HloModule layernorm_statistics

add_body {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused (p0: f32[{dims}]) -> (f32[{out}], f32[{out}], f32[{dims}], f32[{out}]) {
  p0 = f32[{dims}] parameter(0)
  zero = f32[] constant(0)
  sum = f32[{out}] reduce(p0, zero), dimensions={{reduced}}, to_apply=add_body
  square = f32[{dims}] multiply(p0, p0)
  sum_squares = f32[{out}] reduce(square, zero), dimensions={{reduced}}, to_apply=add_body
  count = f32[] constant({count})
  counts = f32[{out}] broadcast(count), dimensions={}
  mean = f32[{out}] divide(sum, counts)
  ROOT t = (f32[{out}], f32[{out}], f32[{dims}], f32[{out}]) tuple(sum, sum_squares, square, mean)
}

ENTRY main {
  a = f32[{dims}] parameter(0)
  ROOT f = (f32[{out}], f32[{out}], f32[{dims}], f32[{out}]) fusion(a), kind=kInput, calls=fused
}
"""


@pytest.mark.parametrize(
    ("in_dims", "reduced", "plan"),
    [((128, 96), 1, "row"), ((96, 128), 0, "column"), ((2, 1 << 15), 1, "split")],
)
def test_sibling_reductions_share_one_pass_with_input_and_output_shaped_outputs(
    in_dims, reduced: int, plan: str
) -> None:
    out = [n for d, n in enumerate(in_dims) if d != reduced]
    text = (
        MULTI_OUTPUT.replace("{dims}", ",".join(map(str, in_dims)))
        .replace("{out}", ",".join(map(str, out)))
        .replace("{reduced}", str(reduced))
        .replace("{count}", str(in_dims[reduced]))
    )
    x = np.random.default_rng(5).standard_normal(in_dims).astype(np.float32)
    got, want, kernel = run_root(text, [x])
    assert f"{plan} reduction" in kernel.how
    assert_bitwise(got[2], want[2], "the input-shaped output x*x")
    for g, w in zip(got[:2] + got[3:], want[:2] + want[3:], strict=True):
        assert_float_reduction(g, w, x * x, f"{plan} statistics")
    main = kernel.source.split("_in_place(")[0]  # without the variant for a donated x
    assert main.count("p0[") + main.count("in0[") == 1  # one read of x
    assert "_in_place(" in kernel.source  # x*x may overwrite a donated x


def test_standalone_reduce_is_a_one_op_kernel() -> None:
    text = """HloModule m
sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
ENTRY e {
  x = s32[7,9] parameter(0)
  init = s32[] parameter(1)
  ROOT r = s32[9] reduce(x, init), dimensions={0}, to_apply=sum
}"""
    x = np.random.default_rng(2).integers(-(2**31), 2**31, (7, 9), dtype=np.int32)
    got, want, kernel = run_root(text, [x, np.int32(17).reshape(())])
    assert_bitwise(got, want, "reduce with an init operand (wrapping sums)")
    assert "numba column reduction op" in kernel.how
