"""Read-only arguments (``np.frombuffer``, arrays exported by JAX) run on the cpu platform as
on the interpreter; compiled kernels are typed for writable buffers, so the executable copies
such arguments, and never writes to them."""

from __future__ import annotations

import numpy as np

import xlapy

PROGRAM = """HloModule m

ENTRY main {
  x = u32[4] parameter(0)
  y = u32[4] parameter(1)
  s = u32[4] add(x, y)
  ROOT t = (u32[4], u32[4]) tuple(s, x)
}
"""


def test_read_only_arguments_run_compiled() -> None:
    module = xlapy.load(PROGRAM)
    x = np.frombuffer(np.arange(4, dtype=np.uint32).tobytes(), dtype=np.uint32)
    y = np.full(4, 2**32 - 1, np.uint32)
    y.flags.writeable = False
    assert not x.flags.writeable
    got = xlapy.run(module, x, y, platform="cpu")
    want = xlapy.run(module, x, y, platform="interpreter")
    assert (
        [g.tolist() for g in got]
        == [w.tolist() for w in want]
        == [[2**32 - 1, 0, 1, 2], [0, 1, 2, 3]]
    )
    assert x.tolist() == [0, 1, 2, 3]
