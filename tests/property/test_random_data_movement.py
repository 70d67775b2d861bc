"""Data movement ops on random shapes, attributes and every element type, against XLA:CPU,
the StableHLO reference interpreter and xlapy's other front end (``oracle.py``).

Data movement copies bits, so everything here is compared bit for bit, NaN payloads
included. Where the spec leaves a result implementation-defined (which of several colliding
scatter updates wins; the order of equal keys in an unstable sort) the inputs are constrained
so that it does not arise, with the reason at the place.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import BITWISE, EXACT, Ignore, check
from strategies import (
    XLA_TYPES,
    arrays,
    broadcast_dims,
    examples,
    padding_configs,
    permutations,
    shapes,
    slices,
)

import xlapy
from xlapy import dtypes
from xlapy.dtypes import ElementType

jax = pytest.importorskip("jax")
lax = jax.lax
jnp = jax.numpy

pytestmark = pytest.mark.oracle

# Sort keys: ordered types. XLA:CPU cannot sort sub-byte operands ("Inputs must have the
# same shape"); f8e8m0fnu keys are oracle_findings.md F7 (tested at the end).
ORDERED = tuple(
    t for t in XLA_TYPES if not t.is_complex and t.bits >= 8 and t is not dtypes.F8E8M0FNU
)
PAYLOADS = tuple(t for t in XLA_TYPES if t.bits >= 8)


def any_type() -> st.SearchStrategy[ElementType]:
    return st.sampled_from(XLA_TYPES)


def run(fn: Any, args: list[np.ndarray], what: str) -> None:
    """Bit for bit, NaN payloads included, except against XLA:CPU, which canonicalizes the
    NaNs of 8-bit floats it moves (dynamic-update-slice of f8e3m4 NaN 0x71 writes 0x78):
    OPS.md promises no NaN payloads, so any NaN matches any NaN there."""
    __tracebackhide__ = True
    check(fn, args, EXACT, reference_tolerance=BITWISE, stablehlo_tolerance=BITWISE, what=what)


@given(data=st.data())
@examples(8)
def test_broadcast_in_dim(data: st.DataObject) -> None:
    t = data.draw(any_type(), label="type")
    dims = data.draw(shapes(max_rank=3, max_side=3), label="operand dims")
    result, mapped = data.draw(broadcast_dims(dims), label="result dims, broadcast_dimensions")
    x = data.draw(arrays(t, dims), label="operand")
    run(lambda v: lax.broadcast_in_dim(v, result, mapped), [x], f"broadcast_in_dim {t}")


@st.composite
def reshapes(draw: st.DrawFn, dims: tuple[int, ...]) -> tuple[int, ...]:
    """A shape with the same number of elements: the prime factors regrouped."""
    size = math.prod(dims)
    factors = []
    n = size
    for p in (2, 3, 5, 7, 11, 13):
        while n % p == 0 and n > 1:
            factors.append(p)
            n //= p
    if n > 1:
        factors.append(n)
    factors = draw(st.permutations(factors)) if factors else []
    rank = draw(st.integers(1, 4))
    result = [1] * rank
    for f in factors:
        result[draw(st.integers(0, rank - 1))] *= f
    return tuple(result)


@given(data=st.data())
@examples(8)
def test_reshape_and_transpose(data: st.DataObject) -> None:
    t = data.draw(any_type(), label="type")
    dims = data.draw(shapes(max_rank=4), label="operand dims")
    new_dims = data.draw(reshapes(dims), label="reshaped dims")
    permutation = data.draw(permutations(len(new_dims)), label="permutation")
    x = data.draw(arrays(t, dims), label="operand")
    run(
        lambda v: lax.transpose(lax.reshape(v, new_dims), permutation),
        [x],
        f"reshape {new_dims} + transpose {permutation} {t}",
    )


@given(data=st.data())
@examples(8)
def test_slice_reverse_pad(data: st.DataObject) -> None:
    t = data.draw(any_type(), label="type")
    dims = data.draw(shapes(max_rank=3, min_side=0), label="operand dims")
    start, limit, strides = data.draw(slices(dims), label="start, limit, strides")
    sliced = tuple(max(0, -(-(b - a) // s)) for a, b, s in zip(start, limit, strides, strict=True))
    reversed_dims = tuple(
        d for d in range(len(dims)) if data.draw(st.booleans(), label=f"reverse {d}")
    )
    config = data.draw(padding_configs(sliced), label="padding config")
    x = data.draw(arrays(t, dims), label="operand")
    pad_value = data.draw(arrays(t, ()), label="padding value")

    def fn(v: Any, p: Any) -> Any:
        return lax.pad(lax.rev(lax.slice(v, start, limit, strides), reversed_dims), p, config)

    run(fn, [x, pad_value], f"slice/rev/pad {t}")


@given(data=st.data())
@examples(6)
def test_concatenate(data: st.DataObject) -> None:
    # XLA:CPU aborts the process (a CHECK) compiling a concatenate of 2-bit integers.
    t = data.draw(st.sampled_from([t for t in XLA_TYPES if t.bits != 2]), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3, min_side=0), label="dims")
    axis = data.draw(st.integers(0, len(dims) - 1), label="dimension")
    count = data.draw(st.integers(1, 4), label="operands")
    parts = []
    for i in range(count):
        part = list(dims)
        part[axis] = data.draw(st.integers(0, 3), label=f"size {i}")
        parts.append(data.draw(arrays(t, tuple(part)), label=f"operand {i}"))
    run(lambda *vs: lax.concatenate(vs, axis), parts, f"concatenate {t}")


@given(data=st.data())
@examples(8)
def test_dynamic_slice_and_update(data: st.DataObject) -> None:
    """Start indices outside the operand are clamped (OPS.md DynamicSlice): drawn beyond
    both ends on purpose, in every integer type."""
    t = data.draw(any_type(), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3), label="operand dims")
    sizes = tuple(data.draw(st.integers(0, d), label=f"size {i}") for i, d in enumerate(dims))
    index_type = data.draw(
        st.sampled_from([dtypes.S8, dtypes.S32, dtypes.S64, dtypes.U8, dtypes.U32]),
        label="index type",
    )
    low = 0 if index_type.is_unsigned else -4
    starts = [
        np.array(data.draw(st.integers(low, d + 3), label=f"start {i}"), dtype=index_type.numpy)
        for i, d in enumerate(dims)
    ]
    x = data.draw(arrays(t, dims), label="operand")
    update = data.draw(arrays(t, sizes), label="update")

    def fn(v: Any, u: Any, *s: Any) -> Any:
        return lax.dynamic_slice(v, s, sizes), lax.dynamic_update_slice(v, u, s)

    run(fn, [x, update, *starts], f"dynamic-slice/update {t} starts {index_type}")


@given(data=st.data())
@examples(8)
def test_gather_take(data: st.DataObject) -> None:
    """``jnp.take`` along an axis with out-of-range indices: clip, fill and wrap are jax's
    own index arithmetic and masking around a gather, all in the program."""
    t = data.draw(any_type(), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3), label="operand dims")
    axis = data.draw(st.integers(0, len(dims) - 1), label="axis")
    index_dims = data.draw(shapes(max_rank=2, max_side=4), label="index dims")
    index_type = data.draw(st.sampled_from([dtypes.S32, dtypes.S64, dtypes.U8]), label="index type")
    low = 0 if index_type.is_unsigned else -dims[axis] - 2
    indices = np.array(
        data.draw(
            st.lists(
                st.integers(low, dims[axis] + 2),
                min_size=math.prod(index_dims),
                max_size=math.prod(index_dims),
            ),
            label="indices",
        ),
        dtype=index_type.numpy,
    ).reshape(index_dims)
    # Complex fill values: oracle_findings.md F13 (tested at the end).
    modes = ["clip", "wrap"] if t.is_complex else ["clip", "fill", "wrap"]
    mode = data.draw(st.sampled_from(modes), label="mode")
    x = data.draw(arrays(t, dims), label="operand")
    run(lambda v, i: jnp.take(v, i, axis=axis, mode=mode), [x, indices], f"take {mode} {t}")


@given(data=st.data())
@examples(8)
def test_gather_general(data: st.DataObject) -> None:
    """``lax.gather`` with random dimension numbers: offset dims, collapsed dims, operand
    batching dims and out-of-bounds start indices (clamped, OPS.md Gather)."""
    t = data.draw(any_type(), label="type")
    rank = data.draw(st.integers(1, 3), label="operand rank")
    dims = tuple(data.draw(st.integers(1, 4), label=f"dim {i}") for i in range(rank))
    batching = data.draw(st.sets(st.integers(0, rank - 1), max_size=1), label="batching dims")
    free = [d for d in range(rank) if d not in batching]
    start_map = data.draw(
        st.lists(st.sampled_from(free), unique=True, min_size=1, max_size=len(free))
        if free
        else st.just([]),
        label="start_index_map",
    )
    collapsed = sorted(d for d in start_map if data.draw(st.booleans(), label=f"collapse {d}"))
    slice_sizes = []
    for d in range(rank):
        if d in batching or d in collapsed:
            slice_sizes.append(1)
        else:
            # Empty slices: oracle_findings.md F14 (tested at the end).
            slice_sizes.append(data.draw(st.integers(1, dims[d]), label=f"slice size {d}"))
    batch_count = data.draw(st.integers(1, 3), label="indices batch")
    batch_shape = [dims[d] for d in sorted(batching)] or [batch_count]
    if not batching:
        batch_shape = [batch_count]
    index_shape = (*batch_shape, len(start_map))
    starts = np.array(
        data.draw(
            st.lists(
                st.integers(-3, 6), min_size=math.prod(index_shape), max_size=math.prod(index_shape)
            ),
            label="start indices",
        ),
        dtype=np.int32,
    ).reshape(index_shape)
    offset_count = rank - len(collapsed) - len(batching)
    output_rank = len(batch_shape) + offset_count
    offset_dims = tuple(range(output_rank - offset_count, output_rank))
    numbers = lax.GatherDimensionNumbers(
        offset_dims=offset_dims,
        collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_map),
        operand_batching_dims=tuple(sorted(batching)),
        start_indices_batching_dims=(0,) if batching else (),
    )
    x = data.draw(arrays(t, dims), label="operand")
    run(
        lambda v, i: lax.gather(v, i, numbers, tuple(slice_sizes), mode="clip"),
        [x, starts],
        f"gather {numbers} slice_sizes={slice_sizes} {t}",
    )


SCATTER_KINDS = ("set", "add", "mul", "min", "max")


@given(data=st.data())
@examples(8)
def test_scatter(data: st.DataObject) -> None:
    """``x.at[indices].<kind>(updates)``. Colliding indices: OPS.md leaves the order of
    updates implementation-defined, so ``set`` gets unique indices and the combiners run
    on integers and booleans (associative and commutative: any order gives the same bits)
    or on floats with unique indices."""
    kind = data.draw(st.sampled_from(SCATTER_KINDS), label="kind")
    choices = [t for t in XLA_TYPES if not (kind in ("min", "max") and t.is_complex)]
    if kind in ("add", "mul"):
        choices = [t for t in choices if not t.is_pred]
    t = data.draw(st.sampled_from(choices), label="type")
    dims = data.draw(shapes(min_rank=1, max_rank=3), label="operand dims")
    unique = kind == "set" or not t.is_integer
    count = data.draw(st.integers(0, dims[0] if unique else 6), label="updates")
    positions = st.integers(-1, dims[0]) if not unique else st.integers(0, dims[0] - 1)
    indices = np.array(
        data.draw(
            st.lists(positions, min_size=count, max_size=count, unique=unique), label="indices"
        ),
        dtype=np.int32,
    )
    mode = data.draw(st.sampled_from(["drop", "promise_in_bounds"]), label="mode")
    if mode == "promise_in_bounds":
        indices = np.clip(indices, 0, dims[0] - 1)
        if unique:
            indices = np.unique(indices).astype(np.int32)
    x = data.draw(arrays(t, dims), label="operand")
    updates = data.draw(arrays(t, (indices.size, *dims[1:])), label="updates")

    def fn(v: Any, i: Any, u: Any) -> Any:
        return getattr(v.at[i], kind)(u, mode=mode, unique_indices=unique)

    if kind == "set":
        run(fn, [x, indices, updates], f"scatter-{kind} {mode} {t}")
    else:  # combiners compute: NaN signs and payloads are not promised (0 * inf)
        check(fn, [x, indices, updates], EXACT, what=f"scatter-{kind} {mode} {t}")


@given(data=st.data())
@examples(8)
def test_sort(data: st.DataObject) -> None:
    """Stable multi-operand sort along a dimension; jax's comparator orders floats totally
    (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN)."""
    t = data.draw(st.sampled_from(ORDERED), label="key type")
    dims = data.draw(shapes(min_rank=1, max_rank=3, max_side=6), label="dims")
    dimension = data.draw(st.integers(0, len(dims) - 1), label="dimension")
    keys = data.draw(arrays(t, dims), label="keys")
    payload_type = data.draw(st.sampled_from(PAYLOADS), label="payload type")
    payload = data.draw(arrays(payload_type, dims), label="payload")
    num_keys = data.draw(st.integers(1, 2), label="num_keys") if not payload_type.is_complex else 1
    # The reference interpreter orders some +NaNs first (f8e4m3fn 0x7f, the f64 signaling
    # NaN 0x7ff0000000000001: [nan, 0] stays [nan, 0]); XLA:CPU and the total order of
    # OPS.md's Sort put +NaN last.
    narrow = t.is_float and bool(np.isnan(keys.astype(np.float64)).any())
    # The fnuz formats' only NaN has the sign bit's pattern (0x80); XLA:CPU compares 8-bit
    # floats widened, so that NaN becomes a negative NaN and sorts first; the total order of
    # OPS.md and the reference interpreter key it by its bits (after -1 = 0xd8).
    fnuz_nan = narrow and "fnuz" in t.name
    check(
        lambda k, p: lax.sort((k, p), dimension=dimension, is_stable=True, num_keys=num_keys),
        [keys, payload],
        Ignore("XLA:CPU widens the fnuz NaN to a negative NaN") if fnuz_nan else EXACT,
        reference_tolerance=Ignore("reference sorts fp8 NaN first") if narrow else BITWISE,
        stablehlo_tolerance=BITWISE,
        what=f"sort {t} by {num_keys} keys",
    )


@given(data=st.data())
@examples(6)
def test_top_k(data: st.DataObject) -> None:
    # XLA:CPU cannot compile top_k of sub-byte integers (its TopK decomposer builds an
    # iota with a custom element size).
    t = data.draw(
        st.sampled_from([x for x in ORDERED if x.bits >= 8 and not x.is_pred]), label="type"
    )
    dims = data.draw(shapes(min_rank=1, max_rank=3, max_side=6), label="dims")
    k = data.draw(st.integers(0, dims[-1]), label="k")
    x = data.draw(arrays(t, dims), label="operand")
    # As in test_sort: the reference interpreter orders some +NaNs first (f8e3m4 0x71, f64
    # signaling NaNs); XLA:CPU and OPS.md's total order put them last.
    narrow = t.is_float and bool(np.isnan(x.astype(np.float64)).any())
    check(
        lambda v: lax.top_k(v, k),
        [x],
        EXACT,
        reference_tolerance=Ignore("reference sorts fp8 NaN first") if narrow else BITWISE,
        stablehlo_tolerance=BITWISE,
        what=f"top_k k={k} {t}",
    )


@pytest.mark.parametrize("t", [t for t in XLA_TYPES if not t.is_pred], ids=lambda t: t.name)
def test_iota(t: ElementType) -> None:
    """Iota in every type (values past the type's range wrap or round as a convert would)."""
    dims = (3, 40) if t.bits >= 8 else (2, 5)

    def fn(x: Any) -> Any:
        return lax.broadcasted_iota(t.numpy, dims, 1), lax.broadcasted_iota(t.numpy, dims, 0)

    run(fn, [np.zeros((), np.int32)], f"iota {t}")


# ---- known open bugs (docs/oracle_findings.md): strict xfails, they pass loudly when fixed ----


def test_known_f7_sort_and_top_k_e8m0_nan_is_largest() -> None:
    keys = np.array([0xFF, 0x7F, 0x80, 0x00], dtype=np.uint8).view(dtypes.F8E8M0FNU.numpy)
    run(lambda k: (lax.sort(k), *lax.top_k(k, 2)), [keys], "sort/top_k f8e8m0fnu with NaN")


def test_f13_complex_constant_with_an_infinite_part_keeps_the_other_part() -> None:
    # oracle_findings.md F13 (fixed): parts are assigned, not combined as real + 1j * imag.
    module = xlapy.load(
        "HloModule m\nENTRY e {\n  ROOT c = c64[3] constant({(1, inf), (-inf, 2), (0, -inf)})\n}"
    )
    (out,) = xlapy.run(module, platform="interpreter")
    assert (
        out.view(np.uint32).tolist()
        == np.array([1, np.inf, -np.inf, 2, 0, -np.inf], np.float32).view(np.uint32).tolist()
    )


@pytest.mark.xfail(
    strict=True,
    reason="oracle_findings.md F13: HLO_TEXT.md §5 quirk, a NaN real part makes imag NaN",
)
def test_known_f13_complex_constant_with_nan_part() -> None:
    # Open by design: HLO_TEXT.md §5 documents that XLA's parser turns (nan, x) into
    # (nan, nan); XLA run from StableHLO keeps nan+0j.
    x = np.array([1 + 2j], dtype=np.complex64)
    index = np.array(3, dtype=np.int32)
    run(lambda v, i: jnp.take(v, i, mode="fill"), [x, index], "take fill c64")


def test_f14_empty_literal_with_index_comments() -> None:
    # oracle_findings.md F14 (fixed): the digits of XLA's /*i0=0*/ hints are not elements.
    text = "HloModule m\nENTRY e {\n  ROOT c = f32[1,0,2] constant({ { /*i0=0*/ } })\n}"
    (out,) = xlapy.run(xlapy.load(text), platform="interpreter")
    assert out.shape == (1, 0, 2)
    assert out.dtype == np.float32
    text = "HloModule m\nENTRY e {\n  ROOT c = s8[2,1] constant({ /*i0=0*/ {7}, /*i0=1*/ {9} })\n}"
    assert xlapy.run(xlapy.load(text), platform="interpreter")[0].tolist() == [[7], [9]]


def test_known_f14_gather_with_empty_slices() -> None:
    numbers = lax.GatherDimensionNumbers(
        offset_dims=(1, 2, 3), collapsed_slice_dims=(), start_index_map=(0,)
    )
    x = np.ones((2, 1, 1), dtype=np.float32)
    starts = np.array([[1]], dtype=np.int32)
    run(lambda v, i: lax.gather(v, i, numbers, (0, 0, 0), mode="clip"), [x, starts], "gather")
