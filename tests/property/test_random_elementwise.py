"""Every elementwise op x every element type it accepts, through the text front ends, against
XLA:CPU, the StableHLO reference interpreter and xlapy's other front end (``oracle.py``).

* ``test_every_type``: one program per op holding that op on every accepted type at once
  (one compile), on deterministic values that include every special value of each type; a
  failure is re-checked type by type so that each failing type gets its own repro.
* ``test_random_values``: hypothesis draws op, type, shape and values (NaN, inf, -0.0,
  subnormals, INT_MIN... and random bit patterns).
* ``test_convert`` / ``test_bitcast_convert`` / ``test_reduce_precision``: conversions
  between every pair of types.
* Known open bugs (docs/oracle_findings.md) are ``xfail(strict=True)`` cases at the end.
"""

from __future__ import annotations

import math
import zlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from elementwise_ops import ALL_OPS, ElementwiseOp, accepted_types, constrain
from hypothesis import given
from hypothesis import strategies as st
from oracle import EXACT, Ulp, check, discrepancies
from strategies import (
    SLOW_SETTINGS,
    XLA_TYPES,
    arrays,
    examples,
    sample_values,
    shapes,
    type_id,
)

import xlapy
from xlapy import dtypes
from xlapy.dtypes import ElementType

jax = pytest.importorskip("jax")
lax = jax.lax

pytestmark = pytest.mark.oracle


def rng_for(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def operands(op: ElementwiseOp, t: ElementType, n: int, rng: np.random.Generator) -> list[Any]:
    """``op.arity`` arrays of ``n`` values of ``t``; the first holds every special value in
    order, the others are shuffled copies (so special pairs meet)."""
    first = sample_values(t, n, rng)
    args = [first] + [rng.permutation(sample_values(t, n, rng)) for _ in range(op.arity - 1)]
    return constrain(op, t, args)


def check_op(op: ElementwiseOp, t: ElementType, args: list[np.ndarray]) -> None:
    __tracebackhide__ = True
    tol = op.tolerances(t)
    check(
        op.fn,
        args,
        tol["xla"],
        reference_tolerance=tol["reference"],
        stablehlo_tolerance=tol["stablehlo"],
        what=f"{op.name} {t}",
    )


def batched(op: ElementwiseOp, count: int) -> Any:
    """``op`` applied to ``count`` independent operand groups (one output each)."""

    def fn(*flat: Any) -> tuple[Any, ...]:
        return tuple(op.fn(*flat[i * op.arity : (i + 1) * op.arity]) for i in range(count))

    fn.__name__ = f"{op.name}_on_{count}_types"
    return fn


def check_all_types(op: ElementwiseOp, types: tuple[ElementType, ...], n: int = 48) -> None:
    """One program for all ``types``; on failure, one check per type for focused repros."""
    __tracebackhide__ = True
    groups = [operands(op, t, n, rng_for(op.name, t.name)) for t in types]
    tolerances = [op.tolerances(t) for t in types]
    _, found = discrepancies(
        batched(op, len(types)),
        [a for g in groups for a in g],
        [tol["xla"] for tol in tolerances],
        reference_tolerance=[tol["reference"] for tol in tolerances],
        stablehlo_tolerance=[tol["stablehlo"] for tol in tolerances],
    )
    if not found:
        return
    failures = []
    for t, args in zip(types, groups, strict=True):
        try:
            check_op(op, t, args)
        except AssertionError as error:
            failures.append(str(error))
    assert failures, "the batched program failed but every type passes alone:\n" + "\n".join(
        d.summary for d in found
    )
    raise AssertionError(f"{len(failures)} types fail:\n\n" + "\n\n".join(failures))


def types_under_test(op: ElementwiseOp) -> tuple[ElementType, ...]:
    """The types of ``op`` that jax accepts, minus those of known open bugs (tested below)."""
    known = KNOWN_TYPES.get(op.name, ())
    return tuple(t for t in accepted_types(op.name) if t not in known)


def check_types(op: ElementwiseOp, types: tuple[ElementType, ...]) -> None:
    __tracebackhide__ = True
    real = tuple(t for t in types if not t.is_complex)
    complex_ = tuple(t for t in types if t.is_complex)
    for group in (real, complex_):  # complex values cannot reach the reference interpreter
        if group:
            check_all_types(op, group)


def representatives(op: ElementwiseOp) -> tuple[ElementType, ...]:
    """Two types of ``op`` (XLA compiles cost ~0.1 s per type): the widest non-float one,
    and a float or complex type that rotates with the op, so that the default run covers
    every type across the ops."""
    types = types_under_test(op)
    others = [t for t in types if not (t.is_float or t.is_complex)]
    floats = [t for t in types if t.is_float or t.is_complex]
    picked = others[-1:]
    if floats:
        picked.append(floats[zlib.crc32(op.name.encode()) % len(floats)])
    return tuple(picked)


@pytest.mark.parametrize("op", ALL_OPS, ids=lambda op: op.name)
def test_representative_types(op: ElementwiseOp) -> None:
    check_types(op, representatives(op))


@pytest.mark.slow
@pytest.mark.parametrize("op", ALL_OPS, ids=lambda op: op.name)
def test_every_type(op: ElementwiseOp) -> None:
    check_types(op, types_under_test(op))


@given(data=st.data())
@examples(40)
def test_random_values(data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(ALL_OPS), label="op")
    t = data.draw(st.sampled_from(types_under_test(op)), label="type")
    shape = data.draw(shapes(max_rank=3, max_size=24), label="shape")
    args = [data.draw(arrays(t, shape), label=f"operand {i}") for i in range(op.arity)]
    check_op(op, t, constrain(op, t, args))


@pytest.mark.slow
@pytest.mark.parametrize("op", ALL_OPS, ids=lambda op: op.name)
@given(data=st.data())
@SLOW_SETTINGS
def test_random_values_per_op(op: ElementwiseOp, data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(types_under_test(op)), label="type")
    shape = data.draw(shapes(max_rank=4, max_size=64), label="shape")
    args = [data.draw(arrays(t, shape), label=f"operand {i}") for i in range(op.arity)]
    check_op(op, t, constrain(op, t, args))


# ---- select: a predicate and two operands of any type ---------------------------------------


@pytest.mark.parametrize("t", XLA_TYPES, ids=type_id)
def test_select(t: ElementType) -> None:
    rng = rng_for("select", t.name)
    on_true, on_false = sample_values(t, 40, rng), rng.permutation(sample_values(t, 40, rng))
    pred = rng.integers(0, 2, 40).astype(bool)
    check(lax.select, [pred, on_true, on_false], what=f"select {t}")


# ---- conversions ------------------------------------------------------------------------------


def convert_inputs(source: ElementType, target: ElementType, rng: np.random.Generator) -> Any:
    """Values of ``source``; NaN and inf are left out for targets that cannot encode them
    (f4e2m1fn, e8m0fnu is fine) since no spec says what they become, and complex -> real
    is not an HLO conversion (jax takes the real part first)."""
    values = sample_values(source, 64, rng)
    if target is dtypes.F4E2M1FN and (source.is_float or source.is_complex):
        wide = values.astype(np.complex128 if source.is_complex else np.float64)
        finite = np.isfinite(wide)
        values = np.where(finite, values, np.zeros_like(values))
    if source is dtypes.F4E2M1FN and (target.is_integer or target.is_pred):
        # XLA:CPU converts f4e2m1fn ±6 to integers as if it were out of range (6 -> s8 127,
        # -6 -> -128); the value 6 is exact in every integer type of 4 bits or more.
        magnitude = np.abs(values.astype(np.float32))
        values = np.where(magnitude == 6, np.ones_like(values), values)
    if target is dtypes.F8E8M0FNU and (source.is_float or source.is_complex):
        # e8m0fnu has no zero: magnitudes below 2^-127 have no nearest value the OCP MX spec
        # agrees on (XLA:CPU writes NaN for f64 ones, ml_dtypes 2^-127).
        wide = np.abs(values.astype(np.complex128 if source.is_complex else np.float64))
        values = np.where(wide < 2.0**-127, np.ones_like(values), values)
    if (target.is_complex or target.is_pred) and source.is_float and source.numpy.itemsize <= 8:
        # oracle_findings.md F8: XLA:CPU keeps subnormals converting to complex (and bf16 to
        # pred).
        wide = np.abs(values.astype(np.float64))
        tiny = float(ml_dtypes.finfo(source.numpy).smallest_normal)
        values = np.where((wide > 0) & (wide < tiny), np.zeros_like(values), values)
    return values


DEFAULT_SOURCES = (
    dtypes.PRED,
    dtypes.S4,
    dtypes.U32,
    dtypes.BF16,
    dtypes.F32,
    dtypes.F64,
    dtypes.F8E4M3FN,
    dtypes.F4E2M1FN,
    dtypes.C64,
)


@pytest.mark.parametrize(
    "source",
    [t if t in DEFAULT_SOURCES else pytest.param(t, marks=pytest.mark.slow) for t in XLA_TYPES],
    ids=type_id,
)
def test_convert(source: ElementType) -> None:
    """``source`` converted to every type at once (one program)."""
    targets = [t for t in XLA_TYPES if not (source.is_complex and not t.is_complex)]
    targets = [t for t in targets if (source.name, t.name) not in KNOWN_CONVERSIONS]
    rng = rng_for("convert", source.name)
    args = [convert_inputs(source, t, rng) for t in targets]

    def fn(*xs: Any) -> tuple[Any, ...]:
        return tuple(lax.convert_element_type(x, t.numpy) for x, t in zip(xs, targets, strict=True))

    fn.__name__ = f"convert_from_{source.name}"
    _, found = discrepancies(fn, args)
    if not found:
        return
    failures = []
    for t, x in zip(targets, args, strict=True):
        try:
            check(
                lambda v, t=t: lax.convert_element_type(v, t.numpy),
                [x],
                what=f"convert {source} -> {t}",
            )
        except AssertionError as error:
            failures.append(str(error))
    raise AssertionError(f"{len(failures)} conversions fail:\n\n" + "\n\n".join(failures))


def _same_width_pairs() -> list[tuple[ElementType, ElementType]]:
    return [
        (a, b)
        for a in XLA_TYPES
        for b in XLA_TYPES
        if a.bits == b.bits
        and a is not b
        and a.bits >= 8
        and not (a.is_pred or b.is_pred or a.is_complex or b.is_complex)
    ]


def _bitcast_cases() -> list[Any]:
    """Every same-width pair; the default run keeps one target per source (XLA compiles
    cost ~0.1 s each)."""
    cases: list[Any] = []
    seen: set[str] = set()
    for source, target in _same_width_pairs():
        marks = [] if source.name not in seen else [pytest.mark.slow]
        seen.add(source.name)
        cases.append(pytest.param(source, target, marks=marks))
    return cases


@pytest.mark.parametrize(
    ("source", "target"),
    _bitcast_cases(),
    ids=lambda t: t.name if isinstance(t, ElementType) else "",
)
def test_bitcast_convert(source: ElementType, target: ElementType) -> None:
    """Bit patterns reinterpreted: data movement, so bit for bit including NaN payloads."""
    rng = rng_for("bitcast", source.name, target.name)
    x = sample_values(source, 32, rng)
    check(
        lambda v: lax.bitcast_convert_type(v, target.numpy),
        [x],
        what=f"bitcast-convert {source} -> {target}",
    )


@pytest.mark.parametrize("t", [dtypes.F16, dtypes.BF16, dtypes.F32, dtypes.F64], ids=type_id)
@given(exponent_bits=st.integers(1, 11), mantissa_bits=st.integers(0, 52), data=st.data())
@examples(6)
def test_reduce_precision(
    t: ElementType, exponent_bits: int, mantissa_bits: int, data: st.DataObject
) -> None:
    x = data.draw(arrays(t, (24,)), label="operand")
    # NaN operands: the reference interpreter turns NaN into inf when it drops all
    # mantissa bits, and OPS.md lets NaNs become canonical NaNs. Subnormal operands of the
    # 8-bit formats (evaluated in f32) with exponent_bits >= the type's: oracle_findings.md F10.
    wide = x.astype(np.float64)
    tiny = float(ml_dtypes.finfo(t.numpy).smallest_normal)
    subnormal = (wide != 0) & (np.abs(wide) < tiny) & (t.bits == 8)
    keep = ~np.isnan(wide) & ~subnormal
    x = np.where(keep, x, np.zeros_like(x))
    check(
        lambda v: lax.reduce_precision(v, exponent_bits, mantissa_bits),
        [x],
        what=f"reduce-precision {t} e{exponent_bits} m{mantissa_bits}",
    )


# ---- known open bugs (docs/oracle_findings.md): strict xfails, they pass loudly when fixed ----

KNOWN_TYPES: dict[str, tuple[ElementType, ...]] = {}
KNOWN_CONVERSIONS: set[tuple[str, str]] = set()


def _bits(t: ElementType, *patterns: int) -> np.ndarray:
    width = t.numpy.itemsize  # type: ignore[union-attr]
    return np.array(patterns, dtype=f"u{width}").view(t.numpy)


def test_known_f1_e8m0_smallest_value_is_not_flushed() -> None:
    x = _bits(dtypes.F8E8M0FNU, 0x00, 0x7F)  # 2^-127, 1
    check(lambda v: (lax.ceil(v), lax.sign(v), lax.max(v, v)), [x], oracles=("xla",))


@pytest.mark.parametrize("t", [dtypes.BF16, dtypes.F32, dtypes.F64], ids=type_id)
def test_known_f2_pow_keeps_subnormal_operands(t: ElementType) -> None:
    tiny = float(np.finfo(np.float32).smallest_subnormal) if t is not dtypes.F64 else 5e-324
    if t is dtypes.BF16:
        tiny = 9.183549615799121e-41
    base = np.array([tiny, -tiny, 2.0], dtype=t.numpy)
    exponent = np.array([-7.6e-13, 0.5, tiny], dtype=t.numpy)
    # XLA:CPU's f64 pow of a subnormal base is ~2e3 ulp off (1 + 5.663e-10 for 1 + 5.658e-10):
    # compared relatively; a flushed base would give inf.
    check(lax.pow, [base, exponent], Ulp(1, relative=1e-12), oracles=("xla",))


def test_known_f3_lgamma_of_minus_infinity() -> None:
    x = np.array([-np.inf, np.inf], dtype=np.float32)
    check(lax.lgamma, [x], Ulp(8), oracles=("reference", "stablehlo"), stablehlo_tolerance=Ulp(8))


def test_f4_lgamma_of_subnormal() -> None:
    # oracle_findings.md F4 (fixed): -log|x| exactly, as C's lgamma; the reference
    # interpreter's decomposition is off by ~0.05 here (744.486 for 744.440).
    x = np.array([5e-324, 1e-310, 1.0], dtype=np.float64)
    module = xlapy.load(
        "func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {\n"
        "  %0 = chlo.lgamma %x : tensor<3xf64> -> tensor<3xf64>\n"
        "  return %0 : tensor<3xf64>\n}"
    )
    (got,) = xlapy.run(module, x, platform="interpreter")
    assert got.tolist() == [math.lgamma(v) for v in x.tolist()]


@pytest.mark.parametrize("t", [dtypes.F16, dtypes.F32, dtypes.F64], ids=type_id)
def test_known_f5_erf_inv_keeps_the_sign_of_zero(t: ElementType) -> None:
    x = np.array([-0.0, 0.0], dtype=t.numpy)
    check(lax.erf_inv, [x], EXACT, oracles=("reference", "stablehlo"))


def test_known_f8_convert_to_complex_keeps_subnormals() -> None:
    x = np.array([1e-45, -1e-45, 1e-39, 1.0], dtype=np.float32)
    check(lambda v: lax.convert_element_type(v, np.complex64), [x], oracles=("xla",))


def test_known_f10_reduce_precision_flushes_subnormal_operands() -> None:
    x = np.array([5.960464477539063e-08, 1.0], dtype=np.float16)
    check(lambda v: lax.reduce_precision(v, 6, 0), [x])


def test_known_f6_digamma_poles_are_nan() -> None:
    x = np.array([0.0, -0.0, -1.0, -2.0, 1.0], dtype=np.float32)
    check(lax.digamma, [x], Ulp(8), oracles=("reference", "stablehlo"), stablehlo_tolerance=Ulp(8))
