"""Arguments that are views of other memory (negative strides, Fortran order, every other
element, read-only) give the interpreter's values on cpu (issue #20: ``x[::-1]`` reached a
fusion kernel as a strided view: "internal error in its cpu kernel ... No matching
definition for argument type(s) array(float64, 1d, A)")."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy

PROGRAM = """HloModule views
add { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT c = f64[] add(a, b) }
lt { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT c = pred[] compare(a, b), direction=LT }
ENTRY main {
  x = f64[6] parameter(0)
  m = f64[3,4] parameter(1)
  n = f64[4,2] parameter(2)
  ax = f64[6] abs(x)
  z = f64[] constant(0)
  rows = f64[3] reduce(m, z), dimensions={1}, to_apply=add
  d = f64[3,2] dot(m, n), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f64[6] sort(x), dimensions={0}, to_apply=lt
  t = f64[4,3] transpose(m), dimensions={1,0}
  e = f64[4,3] exponential(t)
  ROOT out = (f64[6], f64[3], f64[3,2], f64[6], f64[4,3]) tuple(ax, rows, d, s, e)
}
"""


def _views(a: np.ndarray) -> dict[str, np.ndarray]:
    wide = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)
    wide[..., ::2] = a
    frozen = a.copy()
    frozen.flags.writeable = False
    return {
        "negative strides": np.flip(np.flip(a).copy()),
        "Fortran order": np.asfortranarray(a),
        "every other element": wide[..., ::2],
        "read-only": frozen,
    }


@pytest.mark.parametrize("kind", ["negative strides", "Fortran order", "every other element",
                                  "read-only"])  # fmt: skip
def test_views_as_arguments(kind: str) -> None:
    module = xlapy.load(PROGRAM)
    rng = np.random.default_rng(3)
    args = [rng.normal(size=s) for s in ((6,), (3, 4), (4, 2))]
    want = xlapy.run(module, *args, platform="interpreter")
    views = [_views(a)[kind] for a in args]
    for v, a in zip(views, args, strict=True):
        np.testing.assert_array_equal(v, a)
    got = xlapy.compile(module, platform="cpu")(*views)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-13, err_msg=str(k))  # dot: BLAS order
    assert got[0].tobytes() == want[0].tobytes()
    assert got[3].tobytes() == want[3].tobytes()
