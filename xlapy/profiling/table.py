"""The profile table: time per instruction (or fusion) over every device and call recorded.

Rules:
- An instruction's time is its *self* time: the time of its events minus the time of the
  events nested in them (a while loop's body instructions, a conditional's branch), so that
  the rows add up and a loop does not hide its body. A fusion is one unit: what runs inside
  it (its computation, evaluated or run as a plan) stays in its time and has no rows of its
  own. Waiting at a rendezvous or channel stays in the collective's (or recv's) own time.
- ``% run`` is the share of the *device time*: the summed duration of every device's
  top-level calls (the entry computation), over all calls recorded.
- Bytes touched by one execution are the static sizes of the operands plus the result
  (``xlapy.ir.memory.shape_bytes``); control flow and tuple plumbing touch none. Achieved
  GB/s is bytes times count over the self time.
- Rows are sorted by time, longest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.memory import shape_bytes
from xlapy.ir.opcode import Opcode
from xlapy.profiling.observer import COMPUTATION, INSTRUCTION, WAIT, DeviceLog

Event = tuple[int, Any, int, int]
"""``(kind, object, start, end)``: a recorded event with its key resolved."""

NO_TRAFFIC = frozenset({
    Opcode.BITCAST, Opcode.CALL, Opcode.CONDITIONAL, Opcode.GET_TUPLE_ELEMENT,
    Opcode.PARAMETER, Opcode.TUPLE, Opcode.WHILE,
})  # fmt: skip
"""Opcodes that move no data of their own (views, plumbing, or a body that is counted)."""


def bytes_touched(instr: HloInstruction) -> int:
    """Static bytes one execution of ``instr`` reads and writes (see the module docstring)."""
    if instr.opcode in NO_TRAFFIC:
        return 0
    return shape_bytes(instr.shape) + sum(shape_bytes(o.shape) for o in instr.operands)


def _is_fusion(event: Event) -> bool:
    return event[0] == INSTRUCTION and event[1].opcode is Opcode.FUSION


def self_times(events: Sequence[Event]) -> tuple[list[int], list[bool], int]:
    """Each event's self time (its duration minus that of the events nested in it; waits and
    what runs inside a fusion are not subtracted), whether it ran inside a fusion, and the
    summed duration of the top-level events (the device time)."""
    order = sorted(range(len(events)), key=lambda i: (events[i][2], -events[i][3]))
    own = [end - start for _, _, start, end in events]
    inside = [False] * len(events)
    stack: list[int] = []
    top = 0
    for i in order:
        kind, _, start, end = events[i]
        while stack and events[stack[-1]][3] <= start:
            stack.pop()
        if not stack:
            top += end - start
        else:
            parent = stack[-1]
            inside[i] = inside[parent] or _is_fusion(events[parent])
            if kind != WAIT and not inside[i]:
                own[parent] -= end - start
        stack.append(i)
    return own, inside, top


@dataclass(frozen=True)
class ProfileRow:
    """One instruction of the profile.

    Attributes:
        instruction: its name.
        opcode: its opcode's text (``fusion``, ``add``, ...).
        computation: the computation it belongs to.
        count: executions recorded (over devices and calls).
        seconds: summed self time.
        bytes: bytes one execution touches (static).
        share: ``seconds`` over the device time.
    """

    instruction: str
    opcode: str
    computation: str
    count: int
    seconds: float
    bytes: int
    share: float

    @property
    def mean_seconds(self) -> float:
        return self.seconds / self.count

    @property
    def gigabytes_per_second(self) -> float | None:
        """Achieved bandwidth, or None when the row touches no bytes or took no time."""
        if not self.bytes or self.seconds <= 0:
            return None
        return self.bytes * self.count / self.seconds / 1e9


@dataclass(frozen=True)
class Summary:
    """Totals of a profile: the rows and where the device time went.

    Attributes:
        rows: per instruction, longest first.
        device_seconds: summed device time (see the module docstring).
        dispatch_seconds: self time of computation calls (the evaluator's or plan's own work
            between instructions).
        wait_seconds: time devices waited at rendezvous and channels (inside collectives).
        calls: calls recorded; devices: device logs recorded (over calls).
    """

    rows: list[ProfileRow]
    device_seconds: float
    dispatch_seconds: float
    wait_seconds: float
    calls: int
    devices: int


def resolved(log: DeviceLog, objects: dict[int, Any]) -> list[Event]:
    """The events of ``log`` with the instruction or computation of each key."""
    return [(kind, objects.get(key), start, end) for kind, key, start, end in log.events or []]


def summarize(logs: Iterable[DeviceLog], calls: int, objects: dict[int, Any]) -> Summary:
    """Aggregates the events of ``logs`` per instruction (see the module docstring);
    ``objects`` resolves their keys."""
    totals: dict[int, list[Any]] = {}  # id(instr) -> [instr, count, self ns]
    device_ns = dispatch_ns = wait_ns = 0
    devices = 0
    for log in logs:
        events = resolved(log, objects)
        devices += 1
        own, inside, top = self_times(events)
        device_ns += top
        for (kind, obj, start, end), self_ns, fused in zip(events, own, inside, strict=True):
            if fused:
                continue
            if kind == INSTRUCTION:
                entry = totals.setdefault(id(obj), [obj, 0, 0])
                entry[1] += 1
                entry[2] += self_ns
            elif kind == COMPUTATION:
                dispatch_ns += self_ns
            else:
                wait_ns += end - start
    rows = [
        ProfileRow(
            instruction=instr.name,
            opcode=instr.opcode.value,
            computation=instr.parent.name if instr.parent is not None else "",
            count=count,
            seconds=ns / 1e9,
            bytes=bytes_touched(instr),
            share=ns / device_ns if device_ns else 0.0,
        )
        for instr, count, ns in totals.values()
    ]
    rows.sort(key=lambda r: (-r.seconds, r.computation, r.instruction))
    return Summary(rows, device_ns / 1e9, dispatch_ns / 1e9, wait_ns / 1e9, calls, devices)


def _human_bytes(n: int) -> str:
    if not n:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def format_table(summary: Summary, title: str, limit: int | None = 40) -> str:
    """The table ``xlapy run --profile`` prints: a header line with the totals, then one line
    per instruction (the ``limit`` longest; None for all) and a line for the rest."""
    lines = [
        f"{title}: {summary.calls} call{'s' * (summary.calls != 1)}, {summary.devices} device "
        f"run{'s' * (summary.devices != 1)}, device time {summary.device_seconds * 1e3:.3f} ms "
        f"(dispatch {summary.dispatch_seconds * 1e3:.3f} ms, waiting at collectives "
        f"{summary.wait_seconds * 1e3:.3f} ms)",
        f"{'total ms':>10} {'mean us':>10} {'count':>8} {'% run':>6} {'bytes':>10} "
        f"{'GB/s':>7}  {'op':<20} instruction (computation)",
    ]
    shown = summary.rows if limit is None else summary.rows[:limit]
    for row in shown:
        rate = row.gigabytes_per_second
        lines.append(
            f"{row.seconds * 1e3:10.3f} {row.mean_seconds * 1e6:10.1f} {row.count:8d} "
            f"{row.share * 100:5.1f}% {_human_bytes(row.bytes):>10} "
            f"{'-' if rate is None else f'{rate:.2f}':>7}  {row.opcode:<20} "
            f"%{row.instruction} ({row.computation})"
        )
    rest = summary.rows[len(shown) :]
    if rest:
        seconds = sum(r.seconds for r in rest)
        lines.append(
            f"{seconds * 1e3:10.3f} {'':>10} {sum(r.count for r in rest):8d} "
            f"{sum(r.share for r in rest) * 100:5.1f}%  ... {len(rest)} more instructions"
        )
    return "\n".join(lines)
