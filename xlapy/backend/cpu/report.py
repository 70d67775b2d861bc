"""``Executable.report()``: how each instruction of a compiled program runs.

One header line (steps, kernels, interpreter fallbacks, compile time), then one section per
plan: the entry first, then the computations kernels run (while bodies, branches, fusions run
as plans), each line ``%name  opcode  kind  seconds  how``; ``sources=True`` adds the
generated source of each kernel that has one, indented under its line, and each plan's
generated function.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from xlapy.backend.cpu.plan import Plan, Program, StepRecord
from xlapy.ir.computation import HloComputation


def _callers(plans: Sequence[Plan]) -> dict[HloComputation, list[str]]:
    """For each computation, the instructions whose kernels run it."""
    callers: dict[HloComputation, list[str]] = {}
    for plan in plans:
        for record in plan.records:
            for comp in record.calls:
                callers.setdefault(comp, []).append(f"%{record.instr.name}")
    return callers


def _line(record: StepRecord, name_width: int, sources: bool) -> list[str]:
    instr = record.instr
    kind = "free" if record.kind in ("parameter", "constant") else record.kind
    seconds = f"{record.compile_seconds:7.3f}s" if record.kind == "kernel" else " " * 8
    how = record.how
    if record.kind == "fallback":
        how = f"interpreter eval ({how})"
    elif record.kind == "kernel" and not record.exact:
        how = f"{how} [not bit-exact]"
    lines = [f"  %{instr.name:<{name_width}} {instr.opcode.value:<22} {kind:<8} {seconds}  {how}"]
    if record.kind == "kernel" and record.reasons:
        lines.append(f"  {'':<{name_width + 1}} {'':<22} declined: {'; '.join(record.reasons)}")
    if sources and record.source:
        lines.extend(f"      | {text}" for text in record.source.rstrip().splitlines())
    return lines


def summary(program: Program) -> str:
    """``N steps in P plans: K kernels, F interpreter evals (opcode xN, ...)``."""
    records = [r for p in program.plans.values() for r in p.records]
    steps = sum(p.num_steps for p in program.plans.values())
    kernels = sum(r.kind == "kernel" for r in records)
    fallbacks = Counter(r.instr.opcode.value for r in records if r.kind == "fallback")
    text = (
        f"{steps} steps in {len(program.plans)} plans: {kernels} kernels, "
        f"{sum(fallbacks.values())} interpreter evals"
    )
    if fallbacks:
        text += " (" + ", ".join(f"{op} x{n}" for op, n in fallbacks.most_common()) + ")"
    return text


def format_report(program: Program, header: Sequence[str], *, sources: bool = False) -> str:
    """The report text: ``header`` lines, the summary, then every plan's instructions."""
    plans = list(program.plans.values())
    callers = _callers(plans)
    lines = [*header, summary(program)]
    entry = program.module.entry
    ordered = sorted(plans, key=lambda p: p.computation is not entry)
    for plan in ordered:
        comp = plan.computation
        if comp is entry:
            title = f"ENTRY {comp.name}"
        else:
            title = f"{comp.name} (run by {', '.join(callers.get(comp, ['a kernel']))})"
        lines.append("")
        lines.append(f"{title}: {plan.num_steps} steps")
        width = max((len(r.instr.name) for r in plan.records), default=0)
        for record in plan.records:
            lines.extend(_line(record, width, sources))
        if sources:
            lines.append("  generated plan:")
            lines.extend(f"    {text}" for text in plan.source.rstrip().splitlines())
    return "\n".join(lines)
