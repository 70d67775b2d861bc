"""Reductions, windows, contractions and scans on random shapes, against XLA:CPU, the
StableHLO reference interpreter and xlapy's other front end (``oracle.py``).

OPS.md leaves the order in which a reduction combines elements implementation-defined, so a
float sum is compared bit for bit only where every order gives the same bits: integers,
min/max, and small integral float values whose sums and products stay exact. Other float
reductions are compared within a tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import EXACT, Ulp, check
from strategies import (
    FLOATS,
    IEEE_FLOATS,
    INTEGERS,
    XLA_TYPES,
    arrays,
    examples,
    reduce_axes,
    shapes,
    small_integer_arrays,
)

from xlapy import dtypes
from xlapy.dtypes import ElementType

jax = pytest.importorskip("jax")
lax = jax.lax
jnp = jax.numpy

pytestmark = pytest.mark.oracle

# Float types in which small integers (|x| <= 8) add and multiply exactly in a few steps.
EXACT_SMALL_FLOATS = (dtypes.F16, dtypes.BF16, dtypes.F32, dtypes.F64)
REAL_NUMBERS = tuple(t for t in INTEGERS + FLOATS if t is not dtypes.F8E8M0FNU)
SUMMABLE = tuple(t for t in INTEGERS if t.bits >= 8) + EXACT_SMALL_FLOATS


def values(data: st.DataObject, t: ElementType, shape: tuple[int, ...], exact: bool) -> Any:
    """Small integral values when the result must not depend on the order of combination."""
    if exact and t.is_float:
        return data.draw(small_integer_arrays(t, shape, -3, 3), label="operand")
    return data.draw(arrays(t, shape), label="operand")


REDUCERS = {
    "sum": (None, lambda x, axes: jnp.sum(x, axis=axes, dtype=x.dtype)),
    "max": (None, lambda x, axes: jnp.max(x, axis=axes, initial=None)),
    "min": (None, lambda x, axes: jnp.min(x, axis=axes)),
    "prod": (None, lambda x, axes: jnp.prod(x, axis=axes, dtype=x.dtype)),
}


@given(data=st.data())
@examples(10)
def test_reduce(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(sorted(REDUCERS)), label="reducer")
    choices = SUMMABLE if kind in ("sum", "prod") else REAL_NUMBERS
    t = data.draw(st.sampled_from(choices), label="type")
    dims = data.draw(shapes(max_rank=3, min_side=1 if kind in ("max", "min") else 0), label="dims")
    axes = data.draw(reduce_axes(len(dims)), label="axes")
    if 0 in dims:  # an empty result: oracle_findings.md F11 (tested at the end)
        axes = tuple(sorted(set(axes) | {d for d, n in enumerate(dims) if n == 0}))
    x = values(data, t, dims, exact=True)
    fn = REDUCERS[kind][1]
    check(lambda v: fn(v, axes), [x], EXACT, what=f"reduce-{kind} {t} axes={axes}")


@given(data=st.data())
@examples(6)
def test_reduce_float_sums_within_tolerance(data: st.DataObject) -> None:
    """Arbitrary float values: the order of the additions is the implementation's, so
    within a few ulp of the largest partial magnitude."""
    t = data.draw(st.sampled_from([dtypes.F32, dtypes.F64]), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3), label="dims")
    axes = data.draw(reduce_axes(len(dims)), label="axes")
    x = (data.draw(small_integer_arrays(t, dims, -1000, 1000), label="ints") / 7).astype(t.numpy)
    check(lambda v: jnp.sum(v, axis=axes), [x], Ulp(8, relative=1e-6), what=f"sum {t}")


@given(data=st.data())
@examples(6)
def test_argmax_argmin(data: st.DataObject) -> None:
    """Variadic reduce of (value, index): NaN wins, ties go to the lowest index."""
    t = data.draw(st.sampled_from([t for t in REAL_NUMBERS if t.bits >= 8]), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3), label="dims")
    axis = data.draw(st.integers(0, len(dims) - 1), label="axis")
    x = data.draw(arrays(t, dims), label="operand")
    check(
        lambda v: (jnp.argmax(v, axis=axis), jnp.argmin(v, axis=axis)),
        [x],
        what=f"argmax/argmin {t} axis={axis}",
    )


@given(data=st.data())
@examples(6)
def test_cumulative(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["cumsum", "cumprod", "cummax", "cummin"]), label="kind")
    choices = SUMMABLE if kind in ("cumsum", "cumprod") else REAL_NUMBERS
    t = data.draw(st.sampled_from([t for t in choices if t.bits >= 8]), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3), label="dims")
    axis = data.draw(st.integers(0, len(dims) - 1), label="axis")
    reverse = data.draw(st.booleans(), label="reverse")
    x = values(data, t, dims, exact=True)
    fn = getattr(lax, kind)
    check(lambda v: fn(v, axis=axis, reverse=reverse), [x], what=f"{kind} {t} axis={axis}")


@given(data=st.data())
@examples(8)
def test_reduce_window(data: st.DataObject) -> None:
    """Max/min/sum pooling with random window, strides, dilations and padding."""
    kind = data.draw(st.sampled_from(["max", "min", "sum"]), label="reducer")
    choices = SUMMABLE if kind == "sum" else tuple(t for t in REAL_NUMBERS if t.bits >= 8)
    t = data.draw(st.sampled_from(choices), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3, max_side=6), label="dims")
    window = tuple(data.draw(st.integers(1, max(1, d)), label="window") for d in dims)
    strides = tuple(data.draw(st.integers(1, 2), label="stride") for _ in dims)
    base = tuple(data.draw(st.integers(1, 2), label="base dilation") for _ in dims)
    window_dilation = tuple(data.draw(st.integers(1, 2), label="window dilation") for _ in dims)
    padding = tuple(
        (data.draw(st.integers(0, 2), label="low"), data.draw(st.integers(0, 2), label="high"))
        for _ in dims
    )
    x = values(data, t, dims, exact=True)
    dilated = [
        (d - 1) * b + 1 + lo + hi for d, b, (lo, hi) in zip(dims, base, padding, strict=True)
    ]
    spans = [(w - 1) * r + 1 for w, r in zip(window, window_dilation, strict=True)]
    if any(s > n for s, n in zip(spans, dilated, strict=True)):
        return
    if kind == "sum":
        init, computation = np.zeros((), t.numpy), lax.add
    elif kind == "max":
        init, computation = np.array(-np.inf if t.is_float else np.iinfo(t.numpy).min), lax.max
    else:
        init, computation = np.array(np.inf if t.is_float else np.iinfo(t.numpy).max), lax.min
    init = init.astype(t.numpy)

    def fn(v: Any) -> Any:
        return lax.reduce_window(
            v, init, computation, window, strides, padding, base, window_dilation
        )

    check(fn, [x], what=f"reduce-window-{kind} {t} window={window} strides={strides}")


@given(data=st.data())
@examples(8)
def test_dot_general(data: st.DataObject) -> None:
    """Batch and contracting dims drawn at random. Integer dots are exact; float dots are
    exact on small integers (every partial sum is an integer below 2^11)."""
    t = data.draw(
        st.sampled_from([dtypes.S8, dtypes.S32, dtypes.U8, dtypes.S64, *IEEE_FLOATS]),
        label="type",
    )
    batch = data.draw(st.lists(st.integers(1, 3), max_size=1), label="batch dims")
    contract = data.draw(st.lists(st.integers(1, 4), min_size=0, max_size=2), label="contracting")
    lhs_free = data.draw(st.lists(st.integers(1, 3), max_size=1), label="lhs free")
    rhs_free = data.draw(st.lists(st.integers(1, 3), max_size=1), label="rhs free")
    lhs_dims = (*batch, *lhs_free, *contract)
    rhs_dims = (*batch, *contract, *rhs_free)
    nb, nf, nc = len(batch), len(lhs_free), len(contract)
    numbers = (
        (
            tuple(range(nb + nf, nb + nf + nc)),
            tuple(range(nb, nb + nc)),
        ),
        (tuple(range(nb)), tuple(range(nb))),
    )
    lhs = data.draw(small_integer_arrays(t, lhs_dims, -4, 4), label="lhs")
    rhs = data.draw(small_integer_arrays(t, rhs_dims, -4, 4), label="rhs")
    # Ulp(0): equal values, but the sign of a zero sum is not compared: XLA:CPU keeps the
    # sign of a single product (-1 * 0 = -0) where the reference interpreter and xlapy add
    # it to +0 (OPS.md does not say what an accumulation starts from).
    check(
        lambda a, b: lax.dot_general(a, b, numbers, preferred_element_type=t.numpy),
        [lhs, rhs],
        Ulp(0),
        what=f"dot_general {t} {numbers}",
    )


@given(data=st.data())
@examples(6)
def test_convolution(data: st.DataObject) -> None:
    """2-D convolutions (NCHW/OIHW) with random strides, padding, dilations and feature
    groups, on small integers in f32 (exact) and s32."""
    t = data.draw(st.sampled_from([dtypes.F32, dtypes.S32, dtypes.F64]), label="type")
    groups = data.draw(st.integers(1, 2), label="feature groups")
    batch = data.draw(st.integers(1, 2), label="batch")
    in_features = groups * data.draw(st.integers(1, 2), label="in per group")
    out_features = groups * data.draw(st.integers(1, 2), label="out per group")
    spatial = [data.draw(st.integers(1, 5), label="spatial") for _ in range(2)]
    kernel = [data.draw(st.integers(1, 3), label="kernel") for _ in range(2)]
    strides = [data.draw(st.integers(1, 2), label="stride") for _ in range(2)]
    lhs_dilation = [data.draw(st.integers(1, 2), label="lhs dilation") for _ in range(2)]
    rhs_dilation = [data.draw(st.integers(1, 2), label="rhs dilation") for _ in range(2)]
    padding = [(data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))) for _ in range(2)]
    for i in range(2):
        span = (kernel[i] - 1) * rhs_dilation[i] + 1
        size = (spatial[i] - 1) * lhs_dilation[i] + 1 + sum(padding[i])
        if span > size:
            return
    lhs = data.draw(small_integer_arrays(t, (batch, in_features, *spatial), -3, 3), label="lhs")
    rhs = data.draw(
        small_integer_arrays(t, (out_features, in_features // groups, *kernel), -3, 3),
        label="rhs",
    )

    def fn(a: Any, b: Any) -> Any:
        return lax.conv_general_dilated(
            a,
            b,
            strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            feature_group_count=groups,
            preferred_element_type=t.numpy,
        )

    check(fn, [lhs, rhs], what=f"convolution {t}")


def test_every_integer_type_sums_and_wraps() -> None:
    """Sums that overflow wrap in two's complement (every order gives the same bits)."""
    args = []
    for t in [t for t in XLA_TYPES if t.is_integer and t.bits >= 8]:
        info = np.iinfo(t.numpy)
        args.append(np.array([info.max, info.max, 1, info.min, 3], dtype=t.numpy))

    def fn(*xs: Any) -> Any:
        return tuple(jnp.sum(x, dtype=x.dtype) for x in xs) + tuple(
            jnp.prod(x, dtype=x.dtype) for x in xs
        )

    check(fn, args, what="integer sum/prod wrap")


def test_known_f11_reduce_over_no_dimensions_of_an_empty_array() -> None:
    x = np.zeros((0, 2), np.int8)
    check(lambda v: jnp.prod(v, axis=(), dtype=v.dtype), [x], oracles=("reference", "stablehlo"))
