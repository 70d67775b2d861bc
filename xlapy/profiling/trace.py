"""Chrome trace-event files of a profile (open in https://ui.perfetto.dev or chrome://tracing).

Layout: each call recorded is a *process* (``pid`` = call number, from 1, named "MODULE on
PLATFORM (call N)"), each device of the call a *thread* of it (``tid`` = the device's flat
id, named "device D (replica R, partition P)"), so an SPMD program shows one track per
device. Every recorded event is a complete event (``"ph": "X"``) with ``ts``/``dur`` in
microseconds from the profile's start:

- an instruction: ``name`` = its name, ``cat`` = ``collective`` (all-reduce, all-gather,
  all-to-all, reduce-scatter, collective-permute/broadcast and their -start/-done),
  ``channel`` (send, recv and their -done), ``fusion``, ``control`` (while, conditional,
  call) or ``op``; ``args`` = op, computation, bytes touched;
- a computation call (an entry, a loop body iteration, a plan): ``cat`` = ``computation``;
- a wait at a rendezvous or channel: ``name`` = ``wait``, ``cat`` = ``wait``, nested in the
  collective or recv that waited.

Metadata events (``"ph": "M"``) name and order the processes and threads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xlapy.ir.opcode import Opcode
from xlapy.profiling.observer import COMPUTATION, INSTRUCTION, RunObserver
from xlapy.profiling.table import bytes_touched, resolved

COLLECTIVES = frozenset({
    Opcode.ALL_GATHER, Opcode.ALL_GATHER_DONE, Opcode.ALL_GATHER_START, Opcode.ALL_REDUCE,
    Opcode.ALL_REDUCE_DONE, Opcode.ALL_REDUCE_START, Opcode.ALL_TO_ALL,
    Opcode.COLLECTIVE_BROADCAST, Opcode.COLLECTIVE_PERMUTE, Opcode.COLLECTIVE_PERMUTE_DONE,
    Opcode.COLLECTIVE_PERMUTE_START, Opcode.COLLECTIVE_REDUCE, Opcode.RAGGED_ALL_TO_ALL,
    Opcode.REDUCE_SCATTER,
})  # fmt: skip
CHANNELS = frozenset({Opcode.RECV, Opcode.RECV_DONE, Opcode.SEND, Opcode.SEND_DONE})
CONTROL = frozenset({Opcode.CALL, Opcode.CONDITIONAL, Opcode.WHILE})


def category(opcode: Opcode) -> str:
    """The ``cat`` of an instruction's events (see the module docstring)."""
    if opcode in COLLECTIVES:
        return "collective"
    if opcode in CHANNELS:
        return "channel"
    if opcode is Opcode.FUSION:
        return "fusion"
    if opcode in CONTROL:
        return "control"
    return "op"


def trace_events(observer: RunObserver) -> dict[str, Any]:
    """The trace of everything ``observer`` recorded, as the JSON object format
    (``{"traceEvents": [...], "displayTimeUnit": "ms"}``)."""
    events: list[dict[str, Any]] = []
    origin = observer.origin
    for run in observer.runs:
        pid = run.index + 1
        label = f"{run.module} on {run.platform} (call {pid})"
        events.append(_meta("process_name", pid, 0, {"name": label}))
        events.append(_meta("process_sort_index", pid, 0, {"sort_index": pid}))
        for log in sorted(run.logs, key=lambda entry: entry.device):
            tid = log.device
            name = f"device {tid} (replica {log.replica}, partition {log.partition})"
            events.append(_meta("thread_name", pid, tid, {"name": name}))
            events.append(_meta("thread_sort_index", pid, tid, {"sort_index": tid}))
            for kind, obj, start, end in resolved(log, observer.objects):
                event: dict[str, Any] = {
                    "ph": "X",
                    "pid": pid,
                    "tid": tid,
                    "ts": round((start - origin) / 1e3, 3),
                    "dur": round((end - start) / 1e3, 3),
                }
                if kind == INSTRUCTION:
                    event["name"] = obj.name
                    event["cat"] = category(obj.opcode)
                    event["args"] = {
                        "op": obj.opcode.value,
                        "computation": obj.parent.name if obj.parent is not None else "",
                        "bytes": bytes_touched(obj),
                    }
                elif kind == COMPUTATION:
                    event["name"] = obj.name
                    event["cat"] = "computation"
                else:
                    event["name"] = "wait"
                    event["cat"] = "wait"
                events.append(event)
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def _meta(name: str, pid: int, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args}


def write_trace(observer: RunObserver, path: str | Path) -> None:
    """Writes ``trace_events(observer)`` to ``path`` as JSON."""
    with open(path, "w", encoding="utf-8") as file:
        json.dump(trace_events(observer), file, separators=(",", ":"))
