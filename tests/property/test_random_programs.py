"""Random small programs: DAGs of several lax ops with valid shapes, control flow (while,
cond, scan, fori_loop) and jax.random, against XLA:CPU, the StableHLO reference interpreter
and xlapy's other front end (``oracle.py``).

The DAGs use exact ops only (integer arithmetic, IEEE add/sub/mul/min/max, comparisons,
selects, conversions, data movement, integer sums, min/max reductions), so every program must
agree bit for bit with the reference interpreter and between xlapy's front ends. Against
XLA:CPU, float results may differ by an ulp: XLA:CPU contracts ``a * b + c`` into one fused
multiply-add (one rounding instead of two; ``max(x, y) * 2 - x`` at x = FLT_MAX gives FLT_MAX
instead of inf), which OPS.md does not allow for separate multiply and add ops but which is
XLA:CPU's behaviour (docs/oracle_findings.md D8).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import EXACT, Ulp, check
from strategies import SLOW_SETTINGS, arrays, examples, small_integer_arrays

from xlapy import dtypes

jax = pytest.importorskip("jax")
lax = jax.lax
jnp = jax.numpy

pytestmark = pytest.mark.oracle

FMA = Ulp(1)  # see the module docstring

TYPES = (dtypes.S32, dtypes.U8, dtypes.F32, dtypes.BF16, dtypes.S64)


@dataclass(frozen=True)
class Step:
    """One node of a random DAG: ``op`` applied to the values at ``inputs``."""

    op: str
    inputs: tuple[int, ...]
    param: int = 0


def _same(values: list[Any], i: int, j: int) -> bool:
    return values[i].shape == values[j].shape and values[i].dtype == values[j].dtype


def apply(step: Step, values: list[Any]) -> Any | None:
    """The value of ``step`` (``None`` when its inputs do not fit the op: skipped)."""
    a = values[step.inputs[0]]
    b = values[step.inputs[1]] if len(step.inputs) > 1 else None
    is_int = jnp.issubdtype(a.dtype, jnp.integer)
    op = step.op
    if op in ("add", "sub", "mul", "max", "min", "select_gt"):
        if b is None or not _same(values, *step.inputs[:2]):
            return None
        if op == "select_gt":
            return lax.select(lax.gt(a, b), a, b)
        return {"add": lax.add, "sub": lax.sub, "mul": lax.mul, "max": lax.max, "min": lax.min}[op](
            a, b
        )
    if op == "xor":
        return (
            lax.bitwise_xor(a, b)
            if is_int and b is not None and _same(values, *step.inputs[:2])
            else None
        )
    if op == "neg":
        return (
            lax.neg(a) if not jnp.issubdtype(a.dtype, jnp.unsignedinteger) else lax.bitwise_not(a)
        )
    if op == "floor":
        return a if is_int else lax.floor(a)
    if op == "convert":
        target = TYPES[step.param % len(TYPES)].numpy
        return lax.convert_element_type(a, target)
    if op == "transpose":
        return lax.transpose(a, tuple(reversed(range(a.ndim))))
    if op == "reverse":
        return lax.rev(a, (step.param % a.ndim,)) if a.ndim else a
    if op == "flatten":
        return lax.reshape(a, (a.size,))
    if op == "slice":
        if not a.ndim or a.shape[0] < 2:
            return None
        return lax.slice_in_dim(a, 1, a.shape[0], axis=0)
    if op == "concat":
        if not a.ndim or b is None or b.ndim != a.ndim or b.dtype != a.dtype:
            return None
        if a.shape[1:] != b.shape[1:]:
            return None
        return lax.concatenate([a, b], 0)
    if op == "reduce":
        if not a.ndim:
            return None
        axis = step.param % a.ndim
        return jnp.sum(a, axis=axis, dtype=a.dtype) if is_int else jnp.max(a, axis=axis)
    if op == "broadcast":
        return lax.broadcast_in_dim(a, (2, *a.shape), tuple(range(1, a.ndim + 1)))
    if op == "cumsum":
        return (
            lax.cumsum(a, axis=0)
            if is_int and a.ndim
            else lax.cummax(a, axis=0)
            if a.ndim
            else None
        )
    if op == "dynamic_slice":
        if not a.ndim or b is None or b.size == 0 or not jnp.issubdtype(b.dtype, jnp.integer):
            return None
        start = lax.convert_element_type(lax.reshape(b, (b.size,))[0], np.int32)
        return lax.dynamic_slice_in_dim(a, start, 1, axis=0)
    if op == "dot":
        if not is_int or b is None or a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
            return None
        if a.dtype != b.dtype:
            return None
        return lax.dot(a, b, preferred_element_type=a.dtype)
    raise AssertionError(op)


OPS = (
    "add", "sub", "mul", "max", "min", "select_gt", "xor", "neg", "floor", "convert",
    "transpose", "reverse", "flatten", "slice", "concat", "reduce", "broadcast", "cumsum",
    "dynamic_slice", "dot",
)  # fmt: skip


@st.composite
def programs(draw: st.DrawFn) -> tuple[list[np.ndarray], list[Step]]:
    """Parameters (2-3 arrays) and a list of steps; every step may use any earlier value."""
    count = draw(st.integers(1, 3), label="parameters")
    params = []
    for i in range(count):
        t = draw(st.sampled_from(TYPES), label=f"type {i}")
        dims = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2), label="dims"))
        params.append(draw(small_integer_arrays(t, dims, -20, 20), label=f"parameter {i}"))
    steps = []
    for k in range(draw(st.integers(2, 8), label="steps")):
        available = count + k
        op = draw(st.sampled_from(OPS), label=f"op {k}")
        inputs = (
            draw(st.integers(0, available - 1), label=f"input {k}a"),
            draw(st.integers(0, available - 1), label=f"input {k}b"),
        )
        steps.append(Step(op, inputs, draw(st.integers(0, 7), label=f"param {k}")))
    return params, steps


def build(steps: list[Step]) -> Callable[..., Any]:
    """The program: every step whose inputs fit, all values returned (so nothing is dead)."""

    def fn(*params: Any) -> tuple[Any, ...]:
        values = list(params)
        for step in steps:
            value = apply(step, values)
            values.append(values[step.inputs[0]] if value is None else value)
        return tuple(values[len(params) :])

    fn.__name__ = "random_program"
    return fn


def describe(steps: list[Step]) -> str:
    return "; ".join(f"v{i}={s.op}{s.inputs}/{s.param}" for i, s in enumerate(steps))


@given(program=programs())
@examples(12)
def test_random_dag(program: tuple[list[np.ndarray], list[Step]]) -> None:
    params, steps = program
    check(
        build(steps),
        params,
        FMA,
        reference_tolerance=EXACT,
        stablehlo_tolerance=EXACT,
        what=f"random program {describe(steps)}",
    )


@pytest.mark.slow
@given(program=programs())
@SLOW_SETTINGS
def test_random_dag_long(program: tuple[list[np.ndarray], list[Step]]) -> None:
    params, steps = program
    check(
        build(steps),
        params,
        FMA,
        reference_tolerance=EXACT,
        stablehlo_tolerance=EXACT,
        what=f"random program {describe(steps)}",
    )


# ---- control flow ------------------------------------------------------------------------------


@given(data=st.data())
@examples(6)
def test_while_with_data_dependent_trip_count(data: st.DataObject) -> None:
    """Collatz-like integer loop: the trip count depends on the values."""
    x = data.draw(small_integer_arrays(dtypes.S32, (4,), 1, 40), label="start")
    limit = np.array(data.draw(st.integers(0, 30), label="limit"), np.int32)

    def fn(v: Any, n: Any) -> Any:
        def cond(state: Any) -> Any:
            i, value = state
            return (i < n) & jnp.any(value != 1)

        def body(state: Any) -> Any:
            i, value = state
            odd = value % 2 == 1
            value = jnp.where(value == 1, 1, jnp.where(odd, 3 * value + 1, value // 2))
            return i + 1, value

        return lax.while_loop(cond, body, (np.int32(0), v))

    check(fn, [x, limit], what="while collatz")


@given(data=st.data())
@examples(6)
def test_cond_switch_and_fori(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from([dtypes.S32, dtypes.F32, dtypes.U8]), label="type")
    x = data.draw(small_integer_arrays(t, (3, 2), -5, 5), label="operand")
    index = np.array(data.draw(st.integers(-2, 4), label="branch index"), np.int32)
    trips = data.draw(st.integers(0, 5), label="fori trips")

    def fn(v: Any, i: Any) -> Any:
        branches = [lambda u: u + u, lambda u: lax.max(u, lax.neg(u)), lambda u: u[::-1]]
        chosen = lax.switch(i, branches, v)  # index clamped into range (OPS.md Conditional)
        looped = lax.fori_loop(0, trips, lambda k, u: lax.rev(u, (0,)) * 2 + u, v)
        picked = lax.cond(jnp.sum(v) > 0, lambda u: u, lambda u: u - 1, v)
        return chosen, looped, picked

    check(fn, [x, index], what=f"switch/fori/cond {t}")


@given(data=st.data())
@examples(6)
def test_scan(data: st.DataObject) -> None:
    t = data.draw(st.sampled_from([dtypes.S32, dtypes.F32, dtypes.S64]), label="type")
    xs = data.draw(small_integer_arrays(t, (5, 3), -9, 9), label="xs")
    reverse = data.draw(st.booleans(), label="reverse")

    def fn(v: Any) -> Any:
        def body(carry: Any, x: Any) -> Any:
            carry = lax.max(carry, x) + 1
            return carry, carry * x

        return lax.scan(body, jnp.zeros(3, v.dtype), v, reverse=reverse)

    check(fn, [xs], what=f"scan {t} reverse={reverse}")


# ---- random numbers ----------------------------------------------------------------------------


def _random_programs(impl: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Two programs of a key (one function object per impl, so XLA compiles each once)."""

    def bits(k: Any) -> Any:
        k = jax.random.wrap_key_data(k, impl=impl)
        a, b = jax.random.split(k)
        return (
            jax.random.bits(a, (3, 5), np.uint32),
            jax.random.uniform(b, (7,), np.float32),
            jax.random.randint(a, (6,), -5, 17),
            jax.random.permutation(b, 8),
        )

    def normal(k: Any) -> Any:
        return jax.random.normal(jax.random.wrap_key_data(k, impl=impl), (16,), np.float32)

    return bits, normal


RANDOM_PROGRAMS = {impl: _random_programs(impl) for impl in ("threefry2x32", "rbg", "unsafe_rbg")}


@pytest.mark.parametrize(
    "impl",
    ["threefry2x32", *(pytest.param(i, marks=pytest.mark.slow) for i in ("rbg", "unsafe_rbg"))],
)
@given(seed=st.integers(0, 2**32 - 1))
@examples(3)
def test_jax_random(impl: str, seed: int) -> None:
    """Bits are exact; uniform floats are exact functions of the bits; normals go through
    erf_inv (XLA's polynomial in the HLO text, the function itself from StableHLO), so
    within a few ulp."""
    key = np.asarray(jax.random.key_data(jax.random.key(seed, impl=impl)))
    bits, normal = RANDOM_PROGRAMS[impl]
    check(bits, [key], what=f"jax.random {impl} seed={seed}")
    close = Ulp(4, relative=1e-6)
    check(normal, [key], close, stablehlo_tolerance=close, what=f"jax.random.normal {impl}")


@given(data=st.data())
@examples(4)
def test_mixed_program_with_specials(data: st.DataObject) -> None:
    """Exact float ops on special values (NaN, inf, -0, subnormals) chained through data
    movement and a min/max reduction."""
    x = data.draw(arrays(dtypes.F32, (4, 3)), label="x")
    y = data.draw(arrays(dtypes.F32, (3, 4)), label="y")

    def fn(a: Any, b: Any) -> Any:
        c = lax.max(a, lax.transpose(b, (1, 0))) * 2 - a
        return jnp.min(c, axis=1), lax.select(c > 0, c, -c), jnp.floor(c[::-1])

    check(
        fn, [x, y], FMA, reference_tolerance=EXACT, stablehlo_tolerance=EXACT, what="mixed specials"
    )
