"""HLO -> StableHLO, op family by op family: each HLO module below is printed as StableHLO, read
back by xlapy's parser and run; the results must be bit-identical to the original's and printing
the reloaded module must give the same text. jaxlib's MLIR must parse and verify the text (when
the op exists in jaxlib 0.10.2), and what MLIR prints back must run to the same bits too (so
MLIR read every constant as xlapy did). HLO constructs with no StableHLO form raise
Unimplemented naming the instruction.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy.literal import values_equal
from xlapy.text.stablehlo_parser import parse_stablehlo
from xlapy.text.stablehlo_printer import print_stablehlo

HAS_JAX = importlib.util.find_spec("jax") is not None


def mlir_reprint(text: str) -> str:
    """``text`` parsed, verified and printed again by jaxlib's MLIR (check/interpreter ops
    allowed): what MLIR understood the program to be."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context() as context:
        context.allow_unregistered_dialects = True
        return str(ir.Module.parse(text))


def sample(shape_text: str, seed: int = 0) -> np.ndarray:
    """A deterministic argument for an HLO shape like ``f32[2,3]`` (small values)."""
    element, dims_text = shape_text.rstrip("]").split("[")
    dims = [int(d) for d in dims_text.split(",") if d]
    rng = np.random.default_rng(seed)
    from xlapy import dtypes

    etype = dtypes.from_name(element)
    if etype.is_pred:
        return rng.integers(0, 2, dims).astype(bool)
    if etype.is_integer:
        return rng.integers(0, 4, dims).astype(etype.numpy)
    if etype.is_complex:
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(etype.numpy)
    return (rng.standard_normal(dims) * 2).astype(etype.numpy)


def round_trip(program: str, *args: Any, jaxlib: bool = True, fixed_point: bool = True,
               **run: Any) -> str:  # fmt: skip
    """Prints ``program`` (HLO text or StableHLO) as StableHLO, reads it back and runs both; returns the printed text.
    ``fixed_point=False`` where the reader leaves dead code (rng's shape operand)."""
    __tracebackhide__ = True
    module = xlapy.load(program)  # HLO text (type-checked and verified) or StableHLO
    text = print_stablehlo(module)
    again = parse_stablehlo(text, "printed.mlir")
    if fixed_point:
        assert print_stablehlo(again) == text, "the printed text is not a fixed point"
    want = xlapy.run(module, *args, **{"platform": "interpreter", **run})
    readers = {"xlapy": again}
    if jaxlib and HAS_JAX:
        readers["jaxlib"] = parse_stablehlo(mlir_reprint(text), "reprinted-by-mlir.mlir")
    for reader, reread in readers.items():
        got = xlapy.run(reread, *args, **{"platform": "interpreter", **run})
        assert same(want, got), f"as {reader} reads the text:\n{want!r}\n{got!r}\n---\n{text}"
    return text


def same(want: Any, got: Any) -> bool:
    """Bitwise equality of results (lists per device, tuples, arrays)."""
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(same(w, g) for w, g in zip(want, got, strict=True))
        )
    return values_equal(want, got)


# ---- elementwise ---------------------------------------------------------------------------------

# fmt: off
UNARY = [
    "abs", "ceil", "cosine", "exponential", "exponential-minus-one", "floor", "log",
    "log-plus-one", "logistic", "negate", "rsqrt", "sign", "sine", "sqrt", "tan", "tanh",
    "round-nearest-afz", "round-nearest-even", "cbrt", "acos", "acosh", "asin", "asinh", "atan",
    "atanh", "cosh", "sinh", "erf", "erfc", "erf-inv", "lgamma", "digamma", "bessel-i1e",
]
# fmt: on
# fmt: off
BINARY = [
    "add", "subtract", "multiply", "divide", "remainder", "power", "atan2", "maximum", "minimum",
    "next-after", "polygamma", "zeta",
]
# fmt: on


@pytest.mark.parametrize("op", UNARY)
def test_unary_float(op: str) -> None:
    round_trip(
        f"HloModule m\nENTRY e {{\n  x = f32[2,3] parameter(0)\n  ROOT r = f32[2,3] {op}(x)\n}}",
        sample("f32[2,3]"),
    )


@pytest.mark.parametrize("op", BINARY)
def test_binary_float(op: str) -> None:
    round_trip(
        f"HloModule m\nENTRY e {{\n  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n"
        f"  ROOT r = f32[4] {op}(x, y)\n}}",
        np.abs(sample("f32[4]")) + 1,
        sample("f32[4]", 1),
    )


def test_integer_and_bitwise_ops() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  x = s32[5] parameter(0)
  y = s32[5] parameter(1)
  p = pred[5] parameter(2)
  a = s32[5] and(x, y)
  o = s32[5] or(a, y)
  xo = s32[5] xor(o, x)
  sl = s32[5] shift-left(xo, y)
  sra = s32[5] shift-right-arithmetic(sl, y)
  srl = s32[5] shift-right-logical(sra, y)
  clz = s32[5] count-leading-zeros(srl)
  pc = s32[5] popcnt(clz)
  n = s32[5] not(pc)
  mh = s32[5] mulhi(n, x)
  np = pred[5] not(p)
  ROOT t = (s32[5], pred[5]) tuple(mh, np)
}""",
        np.array([-7, 0, 3, 2**31 - 1, -(2**31)], np.int32),
        np.array([1, 2, 3, 31, 0], np.int32),
        np.array([True, False, True, False, True]),
        jaxlib=False,  # chlo.mulhi is newer than jaxlib 0.10.2
    )
    assert "chlo.mulhi" in text


def test_complex_parts_and_conversions() -> None:
    round_trip(
        """HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  c = c64[3] complex(x, y)
  r = f32[3] real(c)
  i = f32[3] imag(c)
  a = f32[3] abs(c)
  f = pred[3] is-finite(r)
  b = bf16[3] convert(a)
  h = f8e4m3fn[3] convert(b)
  u = u8[3] bitcast-convert(h)
  s = s32[3] bitcast-convert(i)
  rp = f32[3] reduce-precision(x), exponent_bits=5, mantissa_bits=10
  ROOT t = (pred[3], u8[3], s32[3], f32[3]) tuple(f, u, s, rp)
}""",
        sample("f32[3]"),
        sample("f32[3]", 1),
    )


def test_compare_select_clamp() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  lt = pred[4] compare(x, y), direction=LT
  ge = pred[4] compare(x, y), direction=GE, type=TOTALORDER
  s = f32[4] select(lt, x, y)
  lo = f32[] constant(-1)
  hi = f32[] constant(1)
  c = f32[4] clamp(lo, s, hi)
  ROOT t = (pred[4], f32[4]) tuple(ge, c)
}""",
        sample("f32[4]"),
        sample("f32[4]", 1),
    )
    assert "stablehlo.compare GE, %arg0, %arg1, TOTALORDER" in text
    assert "stablehlo.clamp %" in text
    assert "(tensor<f32>, tensor<4xf32>, tensor<f32>)" in text


def test_result_accuracy() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x), result_accuracy={tolerance={atol=0.001,rtol=0,ulps=2}}
  ROOT b = f32[4] log(a), result_accuracy={mode=highest}
}""",
        sample("f32[4]"),
    )
    assert "mode = #stablehlo.result_accuracy_mode<TOLERANCE>" in text
    assert "#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>" in text


# ---- constants -------------------------------------------------------------------------------------


def _special_bits(element: str) -> np.ndarray:
    """Values of ``element`` that stress printing: zeros of both signs, subnormals, NaN,
    infinities, extremes, values with no short decimal."""
    from xlapy import dtypes

    etype = dtypes.from_name(element)
    assert etype.numpy is not None
    if etype.is_integer:
        info = ml_dtypes.iinfo(etype.numpy)
        return np.array([info.min, info.max, 0, 1, -1 if etype.is_signed else 2], etype.numpy)
    width = etype.numpy.itemsize * 8
    patterns = np.arange(1 << min(etype.bits, 8), dtype=np.uint64)
    if etype.bits > 8:  # a spread of bit patterns, both signs, all exponents
        rng = np.random.default_rng(7)
        patterns = rng.integers(0, 1 << etype.bits, 64, dtype=np.uint64)
        patterns[:4] = [0, 1, 1 << (etype.bits - 1), (1 << etype.bits) - 1]
    return patterns.astype(f"u{width // 8}").view(etype.numpy)


FLOATS = ["f16", "bf16", "f32", "f64", "f8e5m2", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2fnuz",
          "f8e4m3b11fnuz", "f8e4m3", "f8e3m4", "f8e8m0fnu", "f4e2m1fn", "f6e2m3fn", "f6e3m2fn"]  # fmt: skip
INTEGERS = ["s2", "s4", "s8", "s16", "s32", "s64", "u2", "u4", "u8", "u16", "u32", "u64"]


def _literal_module(element: str, values: np.ndarray) -> str:
    from xlapy.literal import Literal, shape_of
    from xlapy.text.literal_text import format_literal

    literal = Literal(shape_of(values), values)
    shape = f"{element}[{','.join(map(str, values.shape))}]"
    return f"HloModule m\nENTRY e {{\n  ROOT c = {shape} constant({format_literal(literal)})\n}}"


@pytest.mark.parametrize("element", FLOATS + INTEGERS)
def test_constants_keep_every_bit(element: str) -> None:
    """Lists (<= 100 elements), hex blobs (> 100) and splats of every element type, NaN
    payloads, infinities, signed zeros and subnormals included."""
    values = _special_bits(element)
    jaxlib = element not in ("f6e2m3fn", "f6e3m2fn", "s2", "u2")
    round_trip(_literal_module(element, values), jaxlib=jaxlib)
    many = np.resize(values, 300).reshape(3, 100)
    text = round_trip(_literal_module(element, many), jaxlib=jaxlib)
    assert 'dense<"0x' in text
    splat = np.full((2, 3), values[-1])
    text = round_trip(_literal_module(element, splat), jaxlib=jaxlib)
    assert "dense<[" not in text


def test_constants_of_complex_pred_tuples_and_empty_arrays() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  c = c64[3] constant({(1, -2), (inf, nan), (-0, 1e-45)})
  d = c128[2] constant({(1.5, 0.1), (-3, 4)})
  p = pred[4] constant({1, 0, 0, 1})
  t = (f32[], (s8[2], pred[])) constant((1.5, ({-1, 2}, true)))
  z = f32[0,3] constant({})
  ROOT r = (c64[3], c128[2], pred[4], (f32[], (s8[2], pred[])), f32[0,3]) tuple(c, d, p, t, z)
}"""
    )
    assert "dense<[true, false, false, true]> : tensor<4xi1>" in text
    assert "dense<> : tensor<0x3xf32>" in text
    assert "(1.000000e+00,-2.000000e+00)" in text


# ---- data movement -------------------------------------------------------------------------------


def test_shape_ops() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  i = s32[] parameter(1)
  s = f32[] constant(0.5)
  b = f32[4,2,3] broadcast(x), dimensions={1,2}
  r = f32[3,8] reshape(b)
  t = f32[8,3] transpose(r), dimensions={1,0}
  v = f32[8,3] reverse(t), dimensions={0,1}
  sl = f32[3,2] slice(v), slice={[1:7:2], [0:3:2]}
  ds = f32[2,2] dynamic-slice(sl, i, i), dynamic_slice_sizes={2,2}
  u = f32[3,2] dynamic-update-slice(sl, ds, i, i)
  c = f32[6,2] concatenate(sl, u), dimensions={0}
  p = f32[11,3] pad(c, s), padding=1_-1_1x0_1
  io = s32[11,3] iota(), iota_dimension=0
  ROOT tu = (f32[11,3], s32[11,3]) tuple(p, io)
}""",
        sample("f32[2,3]"),
        np.int32(1),
    )
    assert "stablehlo.slice %" in text
    assert "[1:7:2, 0:3:2]" in text
    assert "low = [1, 0], high = [-1, 1], interior = [1, 0]" in text


def test_layouts_copy_and_bitcast() -> None:
    """``copy`` is its operand; a ``bitcast`` is the transposes and reshape its layouts
    imply (physical order in, physical order out)."""
    text = round_trip(
        """HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  c = f32[2,3]{0,1} copy(x)
  b = f32[3,2]{1,0} bitcast(c)
  d = f32[6]{0} bitcast(x)
  e = f32[3,2]{0,1} bitcast(x)
  s = s32[3,2]{0,1} bitcast(e)
  ROOT t = (f32[3,2], f32[6], f32[3,2]{0,1}, s32[3,2]{0,1}) tuple(b, d, e, s)
}""",
        sample("f32[2,3]"),
    )
    assert "copy" not in text
    assert "bitcast_convert" in text


def test_gather_scatter() -> None:
    round_trip(
        """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,4] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3,4] parameter(2)
  g = f32[3,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}, indices_are_sorted=true
  s = f32[5,4] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=add
  ROOT t = (f32[3,4], f32[5,4]) tuple(g, s)
}""",
        sample("f32[5,4]"),
        np.array([[4], [0], [2]], np.int32),
        sample("f32[3,4]", 1),
    )


def test_batched_gather_and_variadic_scatter() -> None:
    round_trip(
        """HloModule m
add2 {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  s = f32[] add(a, c)
  t = s32[] maximum(b, d)
  ROOT r = (f32[], s32[]) tuple(s, t)
}
ENTRY e {
  x = f32[2,5,3] parameter(0)
  y = s32[2,5,3] parameter(1)
  i = s32[2,4,1] parameter(2)
  u = f32[2,4,3] parameter(3)
  v = s32[2,4,3] parameter(4)
  g = f32[2,4,3] gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,3}
  s = (f32[2,5,3], s32[2,5,3]) scatter(x, y, i, u, v), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add2
  ROOT t = (f32[2,4,3], (f32[2,5,3], s32[2,5,3])) tuple(g, s)
}""",
        sample("f32[2,5,3]"),
        sample("s32[2,5,3]"),
        np.array([[[4], [0], [2], [4]], [[1], [1], [3], [0]]], np.int32),
        sample("f32[2,4,3]", 1),
        sample("s32[2,4,3]", 1),
    )


# ---- contractions and linear algebra --------------------------------------------------------------


def test_dot_and_convolution() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  a = f32[2,3,4] parameter(0)
  b = f32[2,4,5] parameter(1)
  x = f32[1,6,6,2] parameter(2)
  k = f32[3,3,1,4] parameter(3)
  d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, operand_precision={highest,default}
  o = f32[2,3,4,2,4,5] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}
  c = f32[1,4,3,4] convolution(x, k), window={size=3x3 stride=2x1 pad=1_1x0_0 rhs_dilate=1x1}, dim_labels=b01f_01io->bf01, feature_group_count=2
  ROOT t = (f32[2,3,5], f32[2,3,4,2,4,5], f32[1,4,3,4]) tuple(d, o, c)
}""",
        sample("f32[2,3,4]"),
        sample("f32[2,4,5]", 1),
        sample("f32[1,6,6,2]", 2),
        sample("f32[3,3,1,4]", 3),
    )
    assert (
        "batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, DEFAULT]"
        in text
    )
    assert "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1]" in text


def test_dot_algorithm() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, algorithm=dot_f32_f32_f32
}""",
        sample("f32[2,3]"),
        sample("f32[3,2]", 1),
    )
    assert "algorithm = <lhs_precision_type = f32" in text


def test_fft_cholesky_triangular_solve_batch_norm() -> None:
    spd = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)
    round_trip(
        """HloModule m
ENTRY e {
  x = c64[4,8] parameter(0)
  a = f32[3,3] parameter(1)
  b = f32[3,2] parameter(2)
  v = f32[2,3] parameter(3)
  s = f32[3] parameter(4)
  f = c64[4,8] fft(x), fft_type=FFT, fft_length={8}
  r = f32[4,8] real(f)
  rf = c64[4,5] fft(r), fft_type=RFFT, fft_length={8}
  l = f32[3,3] cholesky(a), lower=true
  t = f32[3,2] triangular-solve(l, b), left_side=true, lower=true, transpose_a=TRANSPOSE
  bi = f32[2,3] batch-norm-inference(v, s, s, s, s), epsilon=0.001, feature_index=1
  bt = (f32[2,3], f32[3], f32[3]) batch-norm-training(v, s, s), epsilon=0.25, feature_index=1
  bg = (f32[2,3], f32[3], f32[3]) batch-norm-grad(v, s, s, s, v), epsilon=0.001, feature_index=1
  ROOT o = (c64[4,5], f32[3,2], f32[2,3], (f32[2,3], f32[3], f32[3]), (f32[2,3], f32[3], f32[3])) tuple(rf, t, bi, bt, bg)
}""",
        sample("c64[4,8]"),
        spd,
        sample("f32[3,2]", 1),
        sample("f32[2,3]", 2),
        np.abs(sample("f32[3]", 3)) + 0.5,
    )


# ---- regions and control flow ----------------------------------------------------------------------

REGIONS = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_first {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(b, a)
}
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  v = f32[] select(gt, v0, v1)
  i = s32[] select(gt, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE, type=TOTALORDER
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[4,6] parameter(0)
  z = f32[] constant(0)
  m = s32[] constant(-1)
  io = s32[4,6] iota(), iota_dimension=1
  r = f32[4] reduce(x, z), dimensions={1}, to_apply=add
  r2 = f32[6] reduce(x, z), dimensions={0}, to_apply=max_first
  am = (f32[4], s32[4]) reduce(x, io, z, m), dimensions={1}, to_apply=argmax
  w = f32[2,3] reduce-window(x, z), window={size=2x3 stride=2x2 pad=0_0x0_1 lhs_dilate=1x1 rhs_dilate=1x1}, to_apply=add
  wd = f32[4,5] reduce-window(x, z), window={size=1x2 pad=0_0x0_1 rhs_dilate=1x2 lhs_dilate=1x1}, to_apply=add
  src = f32[2,3] parameter(1)
  ss = f32[4,6] select-and-scatter(x, src, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
  st = (f32[4,6], s32[4,6]) sort(x, io), dimensions={1}, is_stable=true, to_apply=less
  mp = f32[4,6] map(x, x), dimensions={0,1}, to_apply=add
  ROOT t = (f32[4], f32[6], (f32[4], s32[4]), f32[2,3], f32[4,5], f32[4,6], (f32[4,6], s32[4,6]), f32[4,6]) tuple(r, r2, am, w, wd, ss, st, mp)
}"""


def test_region_ops() -> None:
    text = round_trip(REGIONS, sample("f32[4,6]"), sample("f32[2,3]", 1))
    assert "applies stablehlo.add across dimensions = [1]" in text
    assert " reducer(" in text  # maximum(b, a) is not the compact form
    assert '"stablehlo.sort"' in text
    assert '"stablehlo.select_and_scatter"' in text


CONTROL_FLOW = """HloModule m
cond {
  s = (s32[], (f32[3], token[])) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], (f32[3], token[])) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  in = (f32[3], token[]) get-tuple-element(s), index=1
  x = f32[3] get-tuple-element(in), index=0
  tok = token[] get-tuple-element(in), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[3] sine(x)
  ROOT t = (s32[], (f32[3], token[])) tuple(j, (f32[3], token[]) tuple(y, tok))
}
neg {
  p = (f32[3], f32[]) parameter(0)
  x = f32[3] get-tuple-element(p), index=0
  n = f32[3] negate(x)
  ROOT t = (f32[3], s32[]) tuple(n, s32[] constant(0))
}
scale {
  p = (f32[3], f32[]) parameter(0)
  x = f32[3] get-tuple-element(p), index=0
  k = f32[] get-tuple-element(p), index=1
  b = f32[3] broadcast(k), dimensions={}
  m = f32[3] multiply(x, b)
  ROOT t = (f32[3], s32[]) tuple(m, s32[] constant(1))
}
ident {
  p = f32[3] parameter(0)
  ROOT t = (f32[3], s32[]) tuple(p, s32[] constant(2))
}
helper {
  a = f32[3] parameter(0)
  b = (f32[3], f32[]) parameter(1)
  k = f32[] get-tuple-element(b), index=1
  kb = f32[3] broadcast(k), dimensions={}
  s = f32[3] add(a, kb)
  ROOT t = (f32[3], (f32[3])) tuple(s, (f32[3]) tuple(a))
}
fused {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  m = f32[3] multiply(a, b)
  ROOT r = (f32[3], f32[3]) tuple(m, a)
}
ENTRY e {
  x = f32[3] parameter(0)
  k = f32[] parameter(1)
  i = s32[] parameter(2)
  p = pred[] parameter(3)
  tok = token[] after-all()
  zero = s32[] constant(0)
  init = (s32[], (f32[3], token[])) tuple(zero, (f32[3], token[]) tuple(x, tok))
  w = (s32[], (f32[3], token[])) while(init), condition=cond, body=body
  wx = (f32[3], token[]) get-tuple-element(w), index=1
  y = f32[3] get-tuple-element(wx), index=0
  op = (f32[3], f32[]) tuple(y, k)
  c = (f32[3], s32[]) conditional(i, op, op, y), branch_computations={neg, scale, ident}
  f = (f32[3], s32[]) conditional(p, op, op), true_computation=neg, false_computation=scale
  cl = (f32[3], (f32[3])) call(y, op), to_apply=helper
  fu = (f32[3], f32[3]) fusion(y, x), kind=kLoop, calls=fused
  ROOT t = ((f32[3], s32[]), (f32[3], s32[]), (f32[3], (f32[3])), (f32[3], f32[3])) tuple(c, f, cl, fu)
}"""


@pytest.mark.parametrize(("index", "pred"), [(0, True), (1, False), (2, True), (7, False)])
def test_control_flow(index: int, pred: bool) -> None:
    text = round_trip(CONTROL_FLOW, sample("f32[3]"), np.float32(1.5), np.int32(index),
                      np.bool_(pred))  # fmt: skip
    assert "stablehlo.while(" in text
    assert '"stablehlo.case"' in text
    assert '"stablehlo.if"' in text
    assert "func.call @helper(" in text
    assert "func.func private @helper(" in text
    assert "tuple" not in text  # tuples are flattened everywhere


def test_async_wrappers_and_optimization_barrier() -> None:
    round_trip(
        """HloModule m
wrapped {
  a = f32[4] parameter(0)
  ROOT n = f32[4] abs(a)
}
ENTRY e {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped
  u = ((f32[4]), f32[4], s32[]) async-update(s), calls=wrapped
  d = f32[4] async-done(u), calls=wrapped
  cs = (f32[4], f32[4], u32[]) copy-start(d)
  cd = f32[4] copy-done(cs)
  t = (f32[4], f32[4]) tuple(cd, x)
  b = (f32[4], f32[4]) opt-barrier(t)
  ROOT r = f32[4] get-tuple-element(b), index=0
}""",
        sample("f32[4]"),
    )


def test_scan_and_top_k() -> None:
    text = round_trip(
        """HloModule m
body {
  x = f32[3] parameter(0)
  c = f32[3] parameter(1)
  s = f32[3] add(x, c)
  ROOT t = (f32[3], f32[3]) tuple(s, s)
}
ENTRY e {
  x = f32[4,3] parameter(0)
  i = f32[3] parameter(1)
  s = (f32[4,3], f32[3]) scan(x, i), dimensions={0}, num_carries=1, is_reverse=true, to_apply=body
  k = (f32[4,2], s32[4,2]) topk(x), k=2, largest=true
  ROOT t = ((f32[4,3], f32[3]), (f32[4,2], s32[4,2])) tuple(s, k)
}""",
        sample("f32[4,3]"),
        sample("f32[3]", 1),
        jaxlib=False,  # chlo.scan is newer than jaxlib 0.10.2
    )
    assert "chlo.top_k(%arg0, k = 2)" in text


def test_rng() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  a = (u64[2], u32[2,3]) rng-bit-generator(s), algorithm=rng_three_fry
  b = (u64[2], u64[5]) rng-bit-generator(s), algorithm=rng_philox
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  u = f32[2,2] rng(lo, hi), distribution=rng_uniform
  ROOT t = ((u64[2], u32[2,3]), (u64[2], u64[5]), f32[2,2]) tuple(a, b, u)
}""",
        np.array([1, 2], np.uint64),
        fixed_point=False,
    )
    assert "algorithm = THREE_FRY" in text
    assert "distribution = UNIFORM" in text


def test_tuple_parameters_of_the_entry_are_flattened() -> None:
    """A tuple parameter of the entry becomes one argument per leaf (nested tuples too)."""
    hlo = """HloModule m
ENTRY e {
  p = (f32[2], (s32[], pred[3])) parameter(0)
  x = f32[2] get-tuple-element(p), index=0
  q = (s32[], pred[3]) get-tuple-element(p), index=1
  ROOT t = (f32[2], (s32[], pred[3])) tuple(x, q)
}"""
    text = print_stablehlo(xlapy.load(hlo))
    head = "func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<i32>, %arg2: tensor<3xi1>)"
    assert head in text
    assert "return %arg0, %arg1, %arg2 : tensor<2xf32>, tensor<i32>, tensor<3xi1>" in text
    leaves = [sample("f32[2]"), np.int32(5), np.array([True, False, True])]
    want = xlapy.run(xlapy.load(hlo), (leaves[0], (leaves[1], leaves[2])), platform="interpreter")
    assert same(xlapy.run(parse_stablehlo(text), *leaves, platform="interpreter"), want)
