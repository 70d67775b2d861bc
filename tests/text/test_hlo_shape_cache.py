"""Shapes of HLO text read through the shape cache of ``hlo_parser.parse_shape`` (one regex
for ``f32[2,3]{1,0}``, the token parser otherwise) keep whatever follows them: a layout after
a space, a tiled layout, bounded dimensions, a computation's body brace."""

from __future__ import annotations

from xlapy.shape import UNBOUNDED, Layout
from xlapy.text.hlo_parser import parse_hlo

PROGRAM = """\
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{0,1} copy(a)
  c = f32[2,3] copy(b)
  d = f32[2,3] {0,1} copy(c)
  e = f32[2,3]{1,0:T(2,128)} copy(d)
  f = f32[<=2,3] parameter(1)
  g = f32[?,3] parameter(2)
  zero = f32[] constant(0)
  r = f32[2] reduce(e, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[2,3]{0,1}, f32[2,3], f32[2]) tuple(b, c, r)
}
"""


def test_shapes_keep_their_layouts_when_read_again() -> None:
    for _ in range(2):  # the second parse reads every simple shape from the cache
        module = parse_hlo(PROGRAM)
        shapes = {i.name: i.shape for i in module.entry.instructions}
        assert shapes["a"].layout == Layout((1, 0))
        assert shapes["b"].layout == Layout((0, 1))
        assert shapes["c"].layout == Layout((1, 0))
        assert shapes["d"].layout == Layout((0, 1))
        assert shapes["e"].layout is not None
        assert shapes["e"].layout.minor_to_major == (1, 0)
        assert len(shapes["e"].layout.tiles) == 1
        assert shapes["f"].dims == (2, 3)
        assert shapes["f"].dynamic == (True, False)
        assert shapes["g"].dims == (UNBOUNDED, 3)
        layouts = [s.layout for s in shapes["t"].tuple_shapes]
        assert layouts == [Layout((0, 1)), Layout((1, 0)), Layout((0,))]
        assert module.computation("add").root.shape.dims == ()
