"""Programs with unbounded dynamic dimensions (``?``) on the cpu platform (issue #20): ops
whose shapes are dynamic run the interpreter's evals (generated kernels loop over static
dims: a fusion of ``tensor<?x?xf32>`` raised "internal error in its cpu kernel ... can only
specify one unknown dimension"), and passes do not treat a ``?`` (size -1) as a size
(``reverse`` of a ``?`` dimension was removed as a reverse of size <= 1)."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy

PROGRAM = """
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>,
    tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xf32>,
    tensor<?x?xf32>) {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = stablehlo.reverse %a, dims = [0] : tensor<?x?xf32>
  %c = stablehlo.constant dense<0.5> : tensor<f32>
  %2 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1]
    : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %3 = stablehlo.concatenate %a, %b, dim = 0
    : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = stablehlo.convert %a : (tensor<?x?xf32>) -> tensor<?x?xi32>
  %p = stablehlo.compare LT, %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %5 = stablehlo.select %p, %a, %b : tensor<?x?xi1>, tensor<?x?xf32>
  %6 = stablehlo.pad %a, %c, low = [1, 0], high = [0, 1], interior = [0, 1]
    : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %s = stablehlo.add %a, %b : tensor<?x?xf32>
  %7 = stablehlo.multiply %s, %a : tensor<?x?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>,
    tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("dims", [(2, 3), (3, 1), (1, 4), (0, 2)])
def test_dynamic_dimensions_give_the_interpreters_values(dims: tuple[int, int]) -> None:
    module = xlapy.load(PROGRAM)
    a = np.arange(np.prod(dims), dtype=np.float32).reshape(dims) - 1.5
    b = np.flip(a).copy() * np.float32(0.25)
    want = xlapy.run(module, a, b, platform="interpreter")
    got = xlapy.compile(module, platform="cpu")(a, b)
    assert np.array_equal(want[1], np.flip(a, 0))  # the reverse is not a no-op
    np.testing.assert_array_equal(want[7], (a + b) * a)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype, k
        assert g.shape == w.shape, k
        assert g.tobytes() == w.tobytes(), k
