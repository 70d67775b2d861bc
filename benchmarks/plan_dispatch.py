"""What a ``cpu`` plan costs per step, apart from its kernels: a chain of N instructions whose
kernel returns its operand, and a while loop (the generic kernel: the loop in Python over the
condition and body plans) of 10,000 iterations with such kernels.

  .venv/bin/python benchmarks/plan_dispatch.py

Kernels are registered for this process only, above every real one; no passes run, so each
instruction stays a step.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import xlapy
from xlapy.backend.cpu import kernel as kernel_module
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, RunContext
from xlapy.backend.cpu.kernels.control import while_kernel
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value
from xlapy.passes.pass_manager import Pipeline
from xlapy.text.hlo_parser import parse_hlo

ITERATIONS = 10_000
LOOP = """HloModule loop
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ROOT more = pred[] compare(i, i), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  j = s32[] negate(i)
  x = f32[4] get-tuple-element(p), index=1
  y = f32[4] negate(x)
  ROOT t = (s32[], f32[4]) tuple(j, y)
}
ENTRY main {
  x = f32[4] parameter(0)
  z = s32[] parameter(1)
  t = (s32[], f32[4]) tuple(z, x)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
"""


def identity(instr: HloInstruction, options: CompileOptions) -> Kernel:
    def run(operands: list[Value], ctx: RunContext) -> Value:
        return operands[0]

    return Kernel(run=run, how="identity", views=())


remaining = [0]


def countdown(instr: HloInstruction, options: CompileOptions) -> Kernel:
    def run(operands: list[Value], ctx: RunContext) -> Value:
        remaining[0] -= 1
        return np.asarray(remaining[0] >= 0)

    return Kernel(run=run, how="countdown", views=())


def best(f: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    kernel_module.load_kernels()
    kernel_module.kernel_for(Opcode.NEGATE, priority=10**6)(identity)
    kernel_module.kernel_for(Opcode.COMPARE, priority=10**6)(countdown)
    kernel_module.KERNELS[Opcode.WHILE][:] = [
        e for e in kernel_module.KERNELS[Opcode.WHILE] if e.factory is while_kernel
    ]
    x = np.ones(4, np.float32)
    for n in (1_000, 10_000):
        lines = ["HloModule chain", "ENTRY main {", "  v0 = f32[4] parameter(0)"]
        lines += [f"  v{i} = f32[4] negate(v{i - 1})" for i in range(1, n + 1)]
        module = parse_hlo("\n".join([*lines, "}"]))
        start = time.perf_counter()
        exe = xlapy.compile(module, pipeline=Pipeline([]))
        compile_seconds = time.perf_counter() - start
        seconds = best(lambda exe=exe: exe(x), 20)
        print(
            f"chain of {n} steps: {seconds / n * 1e6:.3f} us per step "
            f"(compile {compile_seconds / n * 1e6:.0f} us per instruction)"
        )
    exe = xlapy.compile(parse_hlo(LOOP), pipeline=Pipeline([]))

    def loop() -> None:
        remaining[0] = ITERATIONS
        exe(x, np.int32(0))

    seconds = best(loop, 5)
    print(
        f"while loop, {ITERATIONS} iterations of condition (1 kernel) and body (2 kernels): "
        f"{seconds / ITERATIONS * 1e6:.2f} us per iteration"
    )


if __name__ == "__main__":
    main()
