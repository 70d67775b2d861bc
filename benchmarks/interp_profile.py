"""Where the interpreter's time goes: self time per opcode and per instruction of one run.

``profile_run(module, inputs)`` wraps ``Evaluator.evaluate`` (the one entry every instruction
goes through, including instructions of while bodies, reducers and comparators) for the
duration of one ``xlapy.run``. Each instruction is charged its own time: the time of the
instructions it runs inside itself (a while's body, a reduce's reducer) is subtracted and
charged to them. Nothing in ``xlapy`` is edited; the wrapper is removed afterwards.

  python3 benchmarks/interp_profile.py [--filter TEXT] [--top N]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

import xlapy
from xlapy.interpreter.evaluator import Evaluator, load_evaluators
from xlapy.ir import HloInstruction, HloModule


@dataclass
class Profile:
    """Self seconds and call counts, per opcode and per instruction (``comp/name``)."""

    total: float = 0.0
    by_opcode: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    calls_by_opcode: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    by_instr: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    calls_by_instr: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def top_opcodes(self, n: int) -> list[tuple[str, float, int]]:
        ranked = sorted(self.by_opcode.items(), key=lambda kv: -kv[1])[:n]
        return [(op, t, self.calls_by_opcode[op]) for op, t in ranked]

    def top_instrs(self, n: int) -> list[tuple[str, float, int]]:
        ranked = sorted(self.by_instr.items(), key=lambda kv: -kv[1])[:n]
        return [(name, t, self.calls_by_instr[name]) for name, t in ranked]

    @property
    def outside(self) -> float:
        """Seconds of the run spent outside every instruction (argument checks, dispatch)."""
        return self.total - sum(self.by_opcode.values())

    def summary(self, n: int = 4) -> str:
        """One line: the top opcodes with their share of the run and their call counts."""
        parts = []
        for op, t, calls in self.top_opcodes(n):
            share = 100 * t / self.total if self.total else 0.0
            parts.append(f"{op} {share:.0f}% ({calls} calls)")
        return ", ".join(parts)


@contextmanager
def _instrumented(profile: Profile) -> Iterator[None]:
    original = Evaluator.evaluate
    # Seconds spent in nested evaluate calls, one accumulator per active call.
    stack: list[float] = []

    def evaluate(self: Evaluator, instr: HloInstruction, operands: list[object]) -> object:
        stack.append(0.0)
        start = time.perf_counter()
        try:
            return original(self, instr, operands)  # type: ignore[arg-type]
        finally:
            elapsed = time.perf_counter() - start
            nested = stack.pop()
            own = elapsed - nested
            if stack:
                stack[-1] += elapsed
            op = instr.opcode.value
            key = f"{instr.parent.name if instr.parent else '?'}/{instr.name}"
            profile.by_opcode[op] += own
            profile.calls_by_opcode[op] += 1
            profile.by_instr[key] += own
            profile.calls_by_instr[key] += 1

    Evaluator.evaluate = evaluate  # type: ignore[method-assign]
    try:
        yield
    finally:
        Evaluator.evaluate = original  # type: ignore[method-assign]


def profile_run(module: HloModule, inputs: Sequence[np.ndarray]) -> Profile:
    """Runs ``module`` once on the interpreter and returns where its time went (the evals are
    imported first, so the one-time import is not charged to the program)."""
    load_evaluators()
    profile = Profile()
    with _instrumented(profile):
        start = time.perf_counter()
        xlapy.run(module, *inputs, platform="interpreter")
        profile.total = time.perf_counter() - start
    return profile


def main() -> None:
    from programs import PROGRAMS, hlo_text, make_inputs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="only programs whose name contains this")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--issue-only", action="store_true", help="only the 13 issue programs")
    args = parser.parse_args()
    for program in PROGRAMS:
        if args.filter not in program.name or (args.issue_only and not program.issue):
            continue
        inputs = make_inputs(program)
        module = xlapy.load(hlo_text(program, inputs))
        profile = profile_run(module, inputs)
        print(
            f"## {program.name}: {profile.total:.2f} s ({profile.outside:.3f} s outside "
            "instructions)",
            flush=True,
        )
        for op, t, calls in profile.top_opcodes(args.top):
            print(f"  {op:24s} {t:8.3f} s {100 * t / profile.total:5.1f}%  {calls} calls")
        for name, t, calls in profile.top_instrs(args.top):
            print(f"    {name:40s} {t:8.3f} s  {calls} calls")
        print(flush=True)


if __name__ == "__main__":
    main()
