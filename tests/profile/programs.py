"""Programs of the profile and progress tests: a short element-wise program, a counted while
loop (optionally with a custom call in its body, which makes the ``cpu`` platform run the loop
in Python over compiled plans) and the 8-device all-reduce of ``tests/e2e/collectives``."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import xlapy
from xlapy.ir.module import HloModule

ROOT = Path(__file__).resolve().parents[2]
PSUM = ROOT / "tests" / "e2e" / "collectives" / "psum.hlo"
PSUM_INPUTS = ROOT / "tests" / "e2e" / "collectives" / "psum.npz"

ELEMENTWISE = """HloModule elementwise

ENTRY main {
  p = f32[1000] parameter(0)
  a = f32[1000] add(p, p)
  ROOT m = f32[1000] multiply(a, p)
}
"""

SLOW_TARGET = "xlapy_test.slow_identity"
SLOW_SECONDS = 0.0003
"""How long each call of ``SLOW_TARGET`` sleeps (loops on cpu last long enough to be seen)."""


def loop_text(iterations: int, *, custom_call: bool = False) -> str:
    """A while loop halving an f32[4] ``iterations`` times (loop ``w``, body ``body``); with
    ``custom_call`` its body also passes the value through ``SLOW_TARGET``."""
    halve = "y = f32[4] multiply(x, h)"
    if custom_call:
        halve = (
            f'c = f32[4] custom-call(x), custom_call_target="{SLOW_TARGET}"\n'
            "  y = f32[4] multiply(c, h)"
        )
    return f"""HloModule loop

cond {{
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({iterations})
  ROOT lt = pred[] compare(i, n), direction=LT
}}

body {{
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[4] constant({{0.5, 0.5, 0.5, 0.5}})
  {halve}
  ROOT t = (s32[], f32[4]) tuple(j, y)
}}

ENTRY main {{
  z = s32[] constant(0)
  x = f32[4] parameter(0)
  t = (s32[], f32[4]) tuple(z, x)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}}
"""


@xlapy.custom_call_target(SLOW_TARGET)
def _slow_identity(ctx: object, instr: object, operands: list[np.ndarray]) -> np.ndarray:
    """The operand, copied after a short sleep (a custom call the cpu platform runs as an
    interpreter eval)."""
    time.sleep(SLOW_SECONDS)
    return np.array(operands[0], copy=True)


def psum() -> tuple[HloModule, list[np.ndarray]]:
    """The 8-partition all-reduce program and its per-device argument list."""
    data = np.load(PSUM_INPUTS)
    return xlapy.load(PSUM), [data[f"arg0.dev{d}"] for d in range(8)]
