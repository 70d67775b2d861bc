"""Generated elementwise code vs the interpreter: every elementwise op family (unary, binary,
compare, select, clamp, convert, bitcast-convert) on every compiled element type, on edge
values (NaN, +-inf, -0, subnormals, INT_MIN, zero divisors, shifts past the width) crossed
pairwise plus random values.

One fusion per type holds every op as an output of a tuple root (one kernel to compile).
Integers, pred, data movement, comparisons and the exactly rounded float ops are compared
bit for bit; transcendental float ops within the ulp bounds of ``MAX_ULP``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tests.backend.cpu.fusion_kernels_util import assert_bitwise, assert_ulp, build, run_root
from xlapy import dtypes
from xlapy.backend.cpu.codegen.numba_types import COMPILED
from xlapy.backend.cpu.kernel import CompileOptions, NoKernel
from xlapy.dtypes import ElementType

FLOAT_UNARY = (
    "abs", "negate", "sign", "ceil", "floor", "round-nearest-afz", "round-nearest-even", "sqrt",
    "rsqrt", "cbrt", "exponential", "log", "tanh", "logistic", "exponential-minus-one",
    "log-plus-one", "sine", "cosine", "tan", "acos", "asin", "atan", "acosh", "asinh", "atanh",
    "cosh", "sinh", "erf", "erfc", "is-finite", "copy",
)  # fmt: skip
INTEGER_UNARY = ("abs", "negate", "sign", "not", "count-leading-zeros", "popcnt", "copy")
PRED_UNARY = ("not", "copy")
FLOAT_BINARY = (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "atan2",
)  # fmt: skip
INTEGER_BINARY = (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "and",
    "or", "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic", "mulhi",
)  # fmt: skip
PRED_BINARY = ("and", "or", "xor", "add", "multiply", "maximum", "minimum")
DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")

F64_LIBM = (
    "exponential", "log", "tanh", "logistic", "exponential-minus-one", "log-plus-one", "sine",
    "cosine", "tan", "acos", "asin", "atan", "acosh", "asinh", "atanh", "cosh", "sinh", "erf",
    "erfc", "power", "atan2", "cbrt",
)  # fmt: skip

# Largest ulp distance from the interpreter per (op, type); every other float op is exact.
# f32 exp/log/tanh/logistic are inline polynomial forms (as XLA:CPU's); the rest calls libm
# in f64, while numpy (the interpreter) may use its own SIMD routines for f64.
MAX_ULP: dict[tuple[str, ElementType], int] = {
    ("exponential", dtypes.F32): 1,
    ("log", dtypes.F32): 1,
    ("tanh", dtypes.F32): 2,
    ("logistic", dtypes.F32): 2,
    **{(op, dtypes.F64): 2 for op in F64_LIBM},
    **{
        (op, dtypes.F32): 1
        for op in ("erf", "erfc", "power", "atan2", "sine", "cosine", "tan", "cosh", "sinh")
    },
    # f16/bf16 round the f64 functions to 8 or 11 bits: equal, but for the sign of NaNs.
    **{(op, t): 0 for op in F64_LIBM for t in (dtypes.F16, dtypes.BF16)},
    # libm and numpy round alike here, but the NaN of a domain error may differ in sign.
    **{
        (op, t): 0
        for op in ("acos", "asin", "acosh", "atanh", "log-plus-one", "remainder")
        for t in (dtypes.F32,)
    },
}


def float_edges(t: ElementType) -> np.ndarray:
    info = ml_dtypes.finfo(t.numpy)
    values = [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1, -0.7, 10.0, -10.0,
        88.5, -88.5, 89.0, -104.0, 710.0, -745.0, 1e-3, np.pi, 1e30, -1e30, 0.49999997, 4.5,
        2.0**24 + 2, 2.0**31, -(2.0**31), 2.0**63, 2.0**64, 300.0, -129.0, 0.625, -9.5,
        float(info.max), -float(info.max), float(info.tiny), -float(info.tiny),
        float(info.smallest_subnormal), -float(info.smallest_subnormal),
        float(info.tiny) - float(info.smallest_subnormal), np.inf, -np.inf, np.nan,
    ]  # fmt: skip
    with np.errstate(over="ignore"):  # 1e30 and the like are inf in f16
        return np.array(values, dtype=t.numpy)


def integer_edges(t: ElementType) -> np.ndarray:
    info = np.iinfo(t.numpy)
    values = [0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 127, 128, 255, 256, t.bits - 1, t.bits]
    values += [t.bits + 1, 63, 64, 65, int(info.min), int(info.max), int(info.min) + 1]
    values += [int(info.max) - 1]
    return np.array([v % (1 << t.bits) for v in values], np.uint64).astype(t.numpy)


def operands(t: ElementType, seed: int = 0) -> list[np.ndarray]:
    """Edge values crossed pairwise, then random values: ``(x, y, pred)``."""
    rng = np.random.default_rng(seed)
    if t.is_pred:
        x = np.array([False, False, True, True] * 8)
        y = np.array([False, True, False, True] * 8)
    else:
        edges = float_edges(t) if t.is_float else integer_edges(t)
        x, y = np.repeat(edges, edges.size), np.tile(edges, edges.size)
        if t.is_float:
            more = (rng.standard_normal((2, 1000)) * 4.0).astype(t.numpy)
        else:
            info = np.iinfo(t.numpy)
            more = rng.integers(info.min, info.max, (2, 1000), endpoint=True, dtype=t.numpy)
        x, y = np.concatenate([x, more[0]]), np.concatenate([y, more[1]])
    pred = np.random.default_rng(seed + 1).random(x.size) < 0.5
    return [x, y, pred]


def op_lines(t: ElementType, n: int) -> list[tuple[str, str, str]]:
    """``(name, result type, HLO line)`` of every elementwise op on ``t``."""
    s = f"{t.name}[{n}]"
    b = f"pred[{n}]"
    lines: list[tuple[str, str, str]] = []
    if t.is_pred:
        unary, binary = PRED_UNARY, PRED_BINARY
    elif t.is_integer:
        unary, binary = INTEGER_UNARY, INTEGER_BINARY
    else:
        unary, binary = FLOAT_UNARY, FLOAT_BINARY
    for op in unary:
        if op == "erfc" and t is dtypes.F64:
            continue  # on the interpreter's eval (test_f64_erfc_is_left_to_the_interpreter)
        result = b if op == "is-finite" else s
        lines.append((op, result, f"{op}(p0)"))
    for op in binary:
        lines.append((op, s, f"{op}(p0, p1)"))
    for d in DIRECTIONS:
        lines.append((f"compare-{d}", b, f"compare(p0, p1), direction={d}"))
        if t.is_float:
            lines.append((f"totalorder-{d}", b, f"compare(p0, p1), direction={d}, type=TOTALORDER"))
        if t.is_integer:
            other = "UNSIGNED" if t.is_signed else "SIGNED"
            lines.append((f"{other}-{d}", b, f"compare(p0, p1), direction={d}, type={other}"))
    if t in (dtypes.F32, dtypes.F64):
        for e, m in ((8, 7), (5, 10), (11, 0), (2, 3), (11, 52), (8, 23)):
            call = f"reduce-precision(p0), exponent_bits={e}, mantissa_bits={m}"
            lines.append((f"reduce-precision-e{e}m{m}", s, call))
    lines.append(("select", s, "select(p2, p0, p1)"))
    lines.append(("clamp", s, "clamp(lo, p0, hi)"))
    lines.append(("clamp-array", s, "clamp(p1, p0, p0)"))
    for target in COMPILED:
        if target is not t:
            lines.append((f"convert-{target.name}", f"{target.name}[{n}]", "convert(p0)"))
        same_width = target is not t and target.bits == t.bits
        if same_width and not (t.is_pred or target.is_pred or (t.is_float and target.is_float)):
            line = "bitcast-convert(p0)"
            lines.append((f"bitcast-{target.name}", f"{target.name}[{n}]", line))
    return lines


def fusion_text(t: ElementType, n: int) -> tuple[str, list[str]]:
    lines = op_lines(t, n)
    s = f"{t.name}[{n}]"
    bounds = ("-1.5", "2.5") if t.is_float else ("-3", "100") if t.is_signed else ("3", "100")
    if t.is_pred:
        bounds = ("false", "true")
    body = [
        f"  p0 = {s} parameter(0)",
        f"  p1 = {s} parameter(1)",
        f"  p2 = pred[{n}] parameter(2)",
        f"  lo = {t.name}[] constant({bounds[0]})",
        f"  hi = {t.name}[] constant({bounds[1]})",
    ]
    variables = []
    for k, (op, result, call) in enumerate(lines):
        variables.append(f"{op.replace('-', '_')}.{k}")
        body.append(f"  {variables[-1]} = {result} {call}")
    shapes = ", ".join(result for _, result, _ in lines)
    body.append(f"  ROOT out = ({shapes}) tuple({', '.join(variables)})")
    text = "\n".join(
        [
            f"HloModule elementwise_{t.name}",
            "",
            f"fused (p0: {s}, p1: {s}, p2: pred[{n}]) -> ({shapes}) {{",
            *body,
            "}",
            "",
            "ENTRY main {",
            f"  a = {s} parameter(0)",
            f"  b = {s} parameter(1)",
            f"  c = pred[{n}] parameter(2)",
            f"  ROOT f = ({shapes}) fusion(a, b, c), kind=kLoop, calls=fused",
            "}",
        ]
    )
    return text, [op for op, _, _ in lines]


@pytest.mark.parametrize("t", COMPILED, ids=lambda t: t.name)
def test_every_elementwise_op_matches_the_interpreter(t: ElementType) -> None:
    args = operands(t)
    text, names = fusion_text(t, args[0].size)
    got, want, kernel = run_root(text, args)
    for name, g, w in zip(names, got, want, strict=True):
        what = f"{name} on {t.name}"
        bound = MAX_ULP.get((name, t))
        if bound is None or not dtypes.from_numpy(w.dtype).is_float:
            assert_bitwise(g, w, what)
        else:
            assert_ulp(g, w, bound, what, args[0], args[1])
    # f32: fast exp/log/tanh; f64: LLVM's libm beside numpy's (elemental.LIBM_F64); f16/bf16
    # round the f64 result once, as the interpreter
    assert kernel.exact == (t not in (dtypes.F32, dtypes.F64))


def test_f64_erfc_is_left_to_the_interpreter() -> None:
    """scipy's f64 erfc, the interpreter's, is tens of ulps from the exact value for x in
    [6, 10] (54 at 9.383), where libm's is within 2: a kernel would not give its values."""
    text = "HloModule m\nENTRY e {\n  a = f64[4] parameter(0)\n  ROOT r = f64[4] erfc(a)\n}"
    with pytest.raises(NoKernel, match="erfc r: not compiled for f64"):
        build(text)


@pytest.mark.parametrize(
    "t", [dtypes.C64, dtypes.F8E4M3FN, dtypes.F8E5M2, dtypes.S4, dtypes.U2], ids=str
)
def test_narrow_and_complex_types_are_left_to_the_interpreter(t: ElementType) -> None:
    text = f"HloModule m\nENTRY e {{\n  a = {t.name}[4] parameter(0)\n  ROOT r = {t.name}[4] negate(a)\n}}"
    with pytest.raises(NoKernel, match=f"element type {t.name} is computed by the interpreter"):
        build(text)


def test_flush_denormals_integer_kernels_unchanged() -> None:
    text = "HloModule m\nENTRY e {\n  a = s32[4] parameter(0)\n  ROOT r = s32[4] add(a, a)\n}"
    values = np.arange(4, dtype=np.int32)
    got, want, kernel = run_root(text, [values, values], CompileOptions(flush_denormals=True))
    assert_bitwise(got, want, "add on s32 with flush_denormals")
    assert "flush" not in (kernel.source or "")
