"""Generated fusion kernels vs XLA:CPU on the issue's elementwise and reduction programs.

    .venv/bin/python benchmarks/codegen_kernels.py [--repeat 15] [--filter gelu]

Each program is one hand-written fusion (what the fusion pass should produce: gelu as one
loop, softmax and layer norm as one loop fusion whose row reductions are hoisted, the sum as
a split reduction). The kernel is timed through ``Kernel.run`` (allocation of the result
included) beside ``jax.jit(f)`` on the same input (warm, alternating call by call; median and minimum
of the repeats). Compile
times: cold in a fresh process with an empty cache directory, warm in a second fresh
process on that directory (the numba cache loads, nothing compiles); both after a one-op
kernel has paid numba's start-up in that process (shown as "start", once per process).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
MAX = (
    "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n"
)

GELU = """HloModule gelu
fused (x: f32[16777216]) -> f32[16777216] {
  x = f32[16777216] parameter(0)
  cube.1 = f32[16777216] multiply(x, x)
  cube = f32[16777216] multiply(cube.1, x)
  c0 = f32[] constant(0.044715)
  b0 = f32[16777216] broadcast(c0), dimensions={}
  scaled = f32[16777216] multiply(cube, b0)
  inner = f32[16777216] add(x, scaled)
  c1 = f32[] constant(0.797884583)
  b1 = f32[16777216] broadcast(c1), dimensions={}
  arg = f32[16777216] multiply(inner, b1)
  tanh = f32[16777216] tanh(arg)
  one = f32[] constant(1)
  b2 = f32[16777216] broadcast(one), dimensions={}
  plus = f32[16777216] add(tanh, b2)
  half = f32[] constant(0.5)
  b3 = f32[16777216] broadcast(half), dimensions={}
  halved = f32[16777216] multiply(plus, b3)
  ROOT gelu = f32[16777216] multiply(x, halved)
}
ENTRY main {
  x = f32[16777216] parameter(0)
  ROOT f = f32[16777216] fusion(x), kind=kLoop, calls=fused
}
"""

SOFTMAX = (
    "HloModule softmax\n"
    + MAX
    + ADD
    + """fused (x: f32[1024,4096]) -> f32[1024,4096] {
  x = f32[1024,4096] parameter(0)
  neg_inf = f32[] constant(-inf)
  row_max = f32[1024] reduce(x, neg_inf), dimensions={1}, to_apply=max
  max_b = f32[1024,4096] broadcast(row_max), dimensions={0}
  shifted = f32[1024,4096] subtract(x, max_b)
  exp = f32[1024,4096] exponential(shifted)
  zero = f32[] constant(0)
  row_sum = f32[1024] reduce(exp, zero), dimensions={1}, to_apply=add
  sum_b = f32[1024,4096] broadcast(row_sum), dimensions={0}
  ROOT softmax = f32[1024,4096] divide(exp, sum_b)
}
ENTRY main {
  x = f32[1024,4096] parameter(0)
  ROOT f = f32[1024,4096] fusion(x), kind=kLoop, calls=fused
}
"""
)

SUM = (
    "HloModule reduce_sum\n"
    + ADD
    + """fused (x: f32[67108864]) -> f32[] {
  x = f32[67108864] parameter(0)
  zero = f32[] constant(0)
  ROOT sum = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
ENTRY main {
  x = f32[67108864] parameter(0)
  ROOT f = f32[] fusion(x), kind=kInput, calls=fused
}
"""
)

LAYERNORM = (
    "HloModule layernorm\n"
    + ADD
    + """fused (x: f32[4096,1024], g: f32[1024], b: f32[1024]) -> f32[4096,1024] {
  x = f32[4096,1024] parameter(0)
  g = f32[1024] parameter(1)
  b = f32[1024] parameter(2)
  zero = f32[] constant(0)
  n = f32[] constant(1024)
  ns = f32[4096] broadcast(n), dimensions={}
  total = f32[4096] reduce(x, zero), dimensions={1}, to_apply=add
  mean = f32[4096] divide(total, ns)
  mean_b = f32[4096,1024] broadcast(mean), dimensions={0}
  centered = f32[4096,1024] subtract(x, mean_b)
  square = f32[4096,1024] multiply(centered, centered)
  squares = f32[4096] reduce(square, zero), dimensions={1}, to_apply=add
  var = f32[4096] divide(squares, ns)
  eps = f32[] constant(1e-05)
  epss = f32[4096] broadcast(eps), dimensions={}
  var_eps = f32[4096] add(var, epss)
  inv = f32[4096] rsqrt(var_eps)
  inv_b = f32[4096,1024] broadcast(inv), dimensions={0}
  normal = f32[4096,1024] multiply(centered, inv_b)
  g_b = f32[4096,1024] broadcast(g), dimensions={1}
  scaled = f32[4096,1024] multiply(normal, g_b)
  b_b = f32[4096,1024] broadcast(b), dimensions={1}
  ROOT out = f32[4096,1024] add(scaled, b_b)
}
ENTRY main {
  x = f32[4096,1024] parameter(0)
  g = f32[1024] parameter(1)
  b = f32[1024] parameter(2)
  ROOT f = f32[4096,1024] fusion(x, g, b), kind=kLoop, calls=fused
}
"""
)


def _jax_functions() -> dict[str, Callable[..., object]]:
    import jax
    import jax.numpy as jnp

    def layernorm(x: object, g: object, b: object) -> object:
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + b

    return {
        "gelu": lambda x: jax.nn.gelu(x, approximate=True),
        "softmax": lambda x: jax.nn.softmax(x, axis=-1),
        "reduce_sum": jnp.sum,
        "layernorm": layernorm,
    }


PROGRAMS = {"gelu": GELU, "softmax": SOFTMAX, "reduce_sum": SUM, "layernorm": LAYERNORM}


def inputs(name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    if name == "gelu":
        return [rng.standard_normal(1 << 24, dtype=np.float32)]
    if name == "softmax":
        return [rng.standard_normal((1024, 4096), dtype=np.float32)]
    if name == "reduce_sum":
        return [rng.standard_normal(1 << 26, dtype=np.float32)]
    return [
        rng.standard_normal((4096, 1024), dtype=np.float32),
        rng.standard_normal(1024, dtype=np.float32),
        rng.standard_normal(1024, dtype=np.float32),
    ]


def build(name: str):  # type: ignore[no-untyped-def]
    from xlapy.backend.cpu.kernel import CompileOptions
    from xlapy.backend.cpu.kernels.fusion import fusion_kernel
    from xlapy.text.hlo_parser import parse_hlo

    module = parse_hlo(PROGRAMS[name])
    return fusion_kernel(module.entry.root, CompileOptions()), module


TINY = """HloModule tiny
ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
"""


def build_tiny() -> None:
    from xlapy.backend.cpu.kernel import CompileOptions
    from xlapy.backend.cpu.kernels.elementwise import single_op_kernel
    from xlapy.text.hlo_parser import parse_hlo

    single_op_kernel(parse_hlo(TINY).entry.root, CompileOptions())


def _block(fn: Callable[..., Any], values: list[Any]) -> None:
    fn(*values).block_until_ready()


def timed_ms(
    ours: Callable[[], object], theirs: Callable[[], object], repeat: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median and minimum (ms) of ``repeat`` warm calls of each, the two alternating call by
    call so that both see the same load on a shared machine (the minimum is the least
    disturbed)."""
    ours()
    theirs()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, record in ((ours, times[0]), (theirs, times[1])):
            start = time.perf_counter()
            fn()
            record.append(time.perf_counter() - start)
    a, b = (np.array(t) * 1e3 for t in times)
    return (float(np.median(a)), float(a.min())), (float(np.median(b)), float(b.min()))


def compile_in_child(name: str, cache: str) -> tuple[float, float]:
    """Seconds to build the kernel in a fresh process using cache directory ``cache``, and
    the process's numba start-up (a one-op kernel built first)."""
    env = dict(os.environ, XLAPY_CACHE_DIR=cache)
    out = subprocess.run(
        [sys.executable, __file__, "--child", name],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return float(result["seconds"]), float(result["startup"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--filter", default="")
    parser.add_argument("--child", default="")
    args = parser.parse_args()
    if args.child:
        start = time.perf_counter()
        build_tiny()  # numba's start-up in this process, paid once by any program
        startup = time.perf_counter() - start
        start = time.perf_counter()
        build(args.child)
        print(json.dumps({"seconds": time.perf_counter() - start, "startup": startup}))
        return
    import jax

    from xlapy.backend.cpu.kernel import RunContext
    from xlapy.interpreter.evaluator import DeviceState, Evaluator

    functions = _jax_functions()
    print(f"{'program':<11} {'kernel ms':>10} {'XLA ms':>8} {'ratio':>6} {'min ms':>13}"
          f" {'ratio':>6} {'max rel':>9} {'cold s':>7} {'warm s':>7} {'start s':>7}  plan")  # fmt: skip
    for name in PROGRAMS:
        if args.filter and args.filter not in name:
            continue
        kernel, module = build(name)
        evaluator = Evaluator(module, device=DeviceState())
        ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
        values = inputs(name)
        jitted = jax.jit(functions[name])
        device_values = [jax.device_put(v) for v in values]
        (ours, ours_min), (theirs, theirs_min) = timed_ms(
            partial(kernel.run, values, ctx), partial(_block, jitted, device_values), args.repeat
        )
        got = np.asarray(kernel.run(values, ctx), np.float64)
        want = np.asarray(jitted(*device_values), np.float64)
        error = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-3)))
        with tempfile.TemporaryDirectory() as cache:
            cold, _ = compile_in_child(name, cache)
            warm, startup = compile_in_child(name, cache)
        print(
            f"{name:<11} {ours:>10.2f} {theirs:>8.2f} {ours / theirs:>6.2f}"
            f" {ours_min:>6.2f}/{theirs_min:<6.2f} {ours_min / theirs_min:>6.2f} {error:>9.1e}"
            f" {cold:>7.2f} {warm:>7.3f} {startup:>7.2f}  {kernel.how}"
        )


if __name__ == "__main__":
    main()
