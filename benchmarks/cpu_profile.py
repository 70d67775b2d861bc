"""Where a ``cpu`` executable's time goes: self time per plan step (kernel or interpreter
fallback), next to XLA:CPU's time for the whole program.

  python3 benchmarks/cpu_profile.py [--filter TEXT] [--issue-only] [--calls N] [--top N]
                                    [--report]

A compiled plan is a generated Python function that calls its steps' kernels by name
(``K<slot>`` in the function's globals, see ``xlapy/backend/cpu/plan_code.py``). After a warm
call, every such name in every plan of the program is replaced by a timing wrapper for N calls
and restored afterwards. Each step is charged its own time: the time of plans it runs inside
itself (a while body, a fusion run as a plan) is charged to their steps. Steps a plan pastes
inline (``Kernel.inline``) are not timed separately: they are part of "outside steps". This
reads the executable's internals (``exe._program``); it changes nothing in ``xlapy``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import xlapy

sys.path.insert(0, str(Path(__file__).parent))


@dataclass
class StepTime:
    """One plan step: where it lives, how it runs, and its self seconds per program call."""

    plan: str
    name: str
    opcode: str
    kind: str
    how: str
    seconds: float = 0.0
    calls: int = 0


@dataclass
class CpuProfile:
    """Per-call seconds of the program and of each step (self time), most expensive first."""

    total: float
    steps: list[StepTime] = field(default_factory=list)

    @property
    def outside(self) -> float:
        """Seconds per call outside every timed step (argument checks, plan dispatch, inline
        steps)."""
        return self.total - sum(s.seconds for s in self.steps)

    def lines(self, top: int) -> list[str]:
        out = []
        for s in self.steps[:top]:
            share = 100 * s.seconds / self.total if self.total else 0.0
            per = f"{s.calls} runs" if s.calls != 1 else "1 run"
            out.append(
                f"{s.seconds * 1e3:9.2f} ms {share:5.1f}%  {s.plan}/%{s.name} {s.opcode} "
                f"[{s.kind}, {per}]: {s.how}"
            )
        out.append(f"{self.outside * 1e3:9.2f} ms outside steps")
        return out


@contextmanager
def _timed_steps(exe: object, calls: int) -> Iterator[list[StepTime]]:
    program = exe._program  # type: ignore[attr-defined]
    steps: list[StepTime] = []
    patched: list[tuple[dict[str, object], str, object]] = []
    stack: list[float] = []  # seconds of nested steps, one accumulator per running step

    def wrap(run: Callable[..., object], step: StepTime) -> Callable[..., object]:
        def timed(operands: list[object], ctx: object) -> object:
            stack.append(0.0)
            start = time.perf_counter()
            try:
                return run(operands, ctx)
            finally:
                elapsed = time.perf_counter() - start
                nested = stack.pop()
                if stack:
                    stack[-1] += elapsed
                step.seconds += (elapsed - nested) / calls
                step.calls += 1

        return timed

    for plan in program.plans.values():
        namespace = plan._function.__globals__
        for slot, record in enumerate(plan.records):
            key = f"K{slot}"
            if key not in namespace:
                continue
            instr = record.instr
            step = StepTime(
                plan.computation.name, instr.name, instr.opcode.value, record.kind, record.how
            )
            steps.append(step)
            patched.append((namespace, key, namespace[key]))
            namespace[key] = wrap(namespace[key], step)  # type: ignore[arg-type]
    try:
        yield steps
    finally:
        for namespace, key, original in patched:
            namespace[key] = original


def profile_cpu(exe: object, inputs: Sequence[np.ndarray], calls: int = 3) -> CpuProfile:
    """Self time per step of ``exe`` over ``calls`` calls (after one untimed warm call)."""
    exe(*inputs)  # type: ignore[operator]
    with _timed_steps(exe, calls) as steps:
        start = time.perf_counter()
        for _ in range(calls):
            exe(*inputs)  # type: ignore[operator]
        total = (time.perf_counter() - start) / calls
    for s in steps:
        s.calls //= calls
    ranked = sorted((s for s in steps if s.calls), key=lambda s: -s.seconds)
    return CpuProfile(total, ranked)


def main() -> None:
    import jax
    from measure import median_seconds
    from programs import PROGRAMS, hlo_text, make_inputs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="programs whose name contains this text")
    parser.add_argument("--issue-only", action="store_true", help="only the 13 issue programs")
    parser.add_argument("--calls", type=int, default=3, help="profiled calls per program")
    parser.add_argument("--top", type=int, default=6, help="steps shown per program")
    parser.add_argument("--report", action="store_true", help="print exe.report() too")
    args = parser.parse_args()
    for program in PROGRAMS:
        if args.filter not in program.name or (args.issue_only and not program.issue):
            continue
        inputs = make_inputs(program)
        module = xlapy.load(hlo_text(program, inputs))
        jitted = jax.jit(program.fn)
        on_device = jax.device_put(inputs)
        t_xla = median_seconds(lambda j=jitted, a=on_device: jax.block_until_ready(j(*a)), 5)
        exe = xlapy.compile(module, platform="cpu", tiered=False)  # type: ignore[attr-defined]
        profile = profile_cpu(exe, inputs, args.calls)
        summary = exe.report().splitlines()
        print(
            f"## {program.name}: cpu {profile.total * 1e3:.2f} ms, XLA:CPU {t_xla * 1e3:.2f} ms "
            f"({profile.total / t_xla:.2f}x)"
        )
        print("   " + next((line for line in summary if " steps in " in line), ""))
        for line in profile.lines(args.top):
            print("  " + line)
        if args.report:
            print("\n".join("    | " + text for text in summary))
        print(flush=True)


if __name__ == "__main__":
    main()
