"""chlo.sinh / chlo.cosh on real floats: CHLO's decomposition in XLA's compute precision (f32
for f32, f16 and bf16), compared with JAX (XLA:CPU runs the same decomposition)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy.interpreter.evals.checks import ulp_difference
from xlapy.text.stablehlo_parser import parse_stablehlo


def chlo(op: str, x: np.ndarray, mlir_type: str) -> np.ndarray:
    n = x.size
    text = f"""func.func @main(%x: tensor<{n}x{mlir_type}>) -> tensor<{n}x{mlir_type}> {{
      %0 = chlo.{op} %x : tensor<{n}x{mlir_type}> -> tensor<{n}x{mlir_type}>
      return %0 : tensor<{n}x{mlir_type}>
    }}"""
    (result,) = xlapy.run(parse_stablehlo(text), x, platform="interpreter")
    return result


def _exp(x: np.ndarray) -> np.ndarray:
    return np.exp(x.astype(np.float64)).astype(np.float32)


def test_f32_follows_the_decomposition_step_by_step() -> None:
    x = np.array([0.0, -0.0, 1e-30, 0.3, -0.9999, 1.0, -2.5, 10.0, 80.0, -88.5, np.inf, -np.inf,
                  np.nan], np.float32)  # fmt: skip
    log_half = np.float32(np.log(0.5))
    with np.errstate(all="ignore"):
        large_sinh = _exp(x + log_half) - _exp(log_half - x)
        e = np.expm1(x.astype(np.float64)).astype(np.float32)
        small_sinh = np.float32(0.5) * (e + e / (e + np.float32(1)))
        sinh = np.where(np.abs(x) < 1, small_sinh, large_sinh)
        cosh = _exp(x + log_half) + _exp(log_half - x)
    assert chlo("sinh", x, "f32").tobytes() == sinh.tobytes()
    assert chlo("cosh", x, "f32").tobytes() == cosh.tobytes()
    # The signs of zero survive, infinities keep their signs.
    assert np.signbit(chlo("sinh", x, "f32")[1])
    assert chlo("sinh", x, "f32")[11] == -np.inf


@pytest.mark.parametrize("op", ["sinh", "cosh"])
def test_f32_large_magnitudes_agree_with_jax(op: str) -> None:
    jnp = pytest.importorskip("jax.numpy")
    x = np.linspace(1.0, 89.3, 20001).astype(np.float32)
    x = np.concatenate([x, -x])
    want = np.asarray(getattr(jnp, op)(x))
    got = chlo(op, x, "f32")
    # XLA's f32 exp is itself within a couple of ulp; the rounding of x + log(1/2) that the
    # decomposition amplifies (up to 24 ulp from the correctly rounded sinh/cosh) is matched.
    assert int(ulp_difference(got, want).max()) <= 2
    exact = getattr(np, op)(x.astype(np.float64)).astype(np.float32)
    assert int(ulp_difference(exact, want).max()) > 10


@pytest.mark.parametrize("op", ["sinh", "cosh"])
@pytest.mark.parametrize(
    ("dtype", "mlir_type", "limit"),
    [(ml_dtypes.bfloat16, "bf16", 89.0), (np.float16, "f16", 11.0)],
)
def test_narrow_types_compute_in_f32(op: str, dtype: type, mlir_type: str, limit: float) -> None:
    jnp = pytest.importorskip("jax.numpy")
    x = np.linspace(-limit, limit, 4001).astype(dtype)
    want = np.asarray(getattr(jnp, op)(x))
    got = chlo(op, x, mlir_type)
    assert got.dtype == np.dtype(dtype)
    assert int(ulp_difference(got, want).max()) <= 1
