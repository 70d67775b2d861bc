"""The Python function a plan runs: one statement per step, generated and compiled once.

Straight-line code keeps the dispatch cost of a step to a call (measured: about 0.07 us per
step against 0.4 us for a loop over a step list), which matters for programs of thousands of
instructions and for loop bodies run many thousand times. For a computation::

    %x = f32[4] parameter(0)
    %c = f32[] constant(2)
    %b = f32[4] broadcast(%c), dimensions={}
    ROOT %m = f32[4] multiply(%x, %b)

the generated function reads::

    def plan_main(args, ctx, donations):
        v0, = args
        # %b = f32[4] broadcast(%c): <how>
        v2 = K2([C1], ctx)
        # %m = f32[4] multiply(%x, %b): <how>
        ctx.donatable = D3
        v3 = K3([v0, v2], ctx)
        del v0, v2
        return v3

``v<slot>`` are values, ``C<slot>`` constants, ``K<slot>`` kernels, ``D<slot>`` the donatable
operand positions; ``donations[j]`` those of steps whose donations depend on which arguments
the caller owns. Kernels with an ``inline`` expression are pasted in place of the call.

An observed plan (``xlapy.profiling``: a profile or a progress display) is generated again
with ``PlanHooks``: ``log = ENTER(ctx)`` first, and when timed, ``t = CLOCK()`` before each
kernel call, ``log.step(I<slot>, t)`` after it and ``log.call(COMP, t0)`` before returning.
Plans generated without hooks contain none of this.

Compiling the source is most of a large plan's cost after liveness (~60-100 ms for the 15
plans, 0.5 MB of source, of a GPT training step); sources of at least ``MIN_CACHED_SOURCE``
characters keep their code object in the cache directory (``plans/<hash of the source and
Python's bytecode version>``, marshal, ~2 ms to read back), so a later process compiling the
same program does not compile them again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import linecache
import marshal
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import CodeType
from typing import TYPE_CHECKING, Any

import numpy as np

from xlapy.backend.cpu.kernel import Kernel
from xlapy.backend.cpu.liveness import Liveness
from xlapy.persistent_cache import read_entry, write_entry

if TYPE_CHECKING:
    from xlapy.backend.cpu.plan import StepRecord
    from xlapy.ir.computation import HloComputation

_EMPTY: frozenset[int] = frozenset()

MIN_CACHED_SOURCE = 16_384
"""Plan sources shorter than this compile in about a millisecond: not cached."""

MAX_CACHED_PLANS = 1024
"""The most compiled plan functions kept in the cache directory (the oldest written go)."""


@dataclass(frozen=True)
class PlanCode:
    """A generated plan function.

    Attributes:
        source: its text.
        function: ``function(args, ctx, donations) -> root value``.
        line_slots: line number -> slot of the step on that line (to name a failing step).
        conditional_slots: slots whose donatable positions come from ``donations``, in order.
    """

    source: str
    function: Callable[[Sequence[Any], Any, tuple[frozenset[int], ...]], Any]
    line_slots: dict[int, int]
    conditional_slots: tuple[int, ...]


@dataclass(frozen=True)
class PlanHooks:
    """What an observed plan calls (see the module docstring).

    Attributes:
        enter: ``enter(ctx) -> log`` when the plan starts.
        timed: time each kernel call (``log.step(instr, start)``) and the whole call
            (``log.call(computation, start)``); times come from ``clock()``.
        clock: the clock of ``timed`` plans.
        computation: the plan's computation (passed to ``log.call``).
    """

    enter: Callable[[Any], Any]
    timed: bool
    clock: Callable[[], int]
    computation: HloComputation


def _comment(record: StepRecord) -> str:
    instr = record.instr
    operands = ", ".join(f"%{o.name}" for o in instr.operands)
    how = record.how if record.kind == "kernel" else f"interpreter eval ({record.how})"
    text = f"# %{instr.name} = {instr.shape.to_hlo(layout=False)} {instr.opcode.value}({operands})"
    return f"{text}: {how}".replace("\n", " ")


def generate(
    name: str,
    records: Sequence[StepRecord],
    kernels: Sequence[Kernel | None],
    liveness: Liveness,
    root: int,
    hooks: PlanHooks | None = None,
) -> PlanCode:
    """Generates and compiles the function of a plan (``records[i]`` is slot ``i``); with
    ``hooks``, the observed variant."""
    slots = {id(r.instr): i for i, r in enumerate(records)}
    namespace: dict[str, Any] = {"np": np, "EMPTY": _EMPTY}
    function_name = "plan_" + re.sub(r"\W", "_", name)
    lines = [f"def {function_name}(args, ctx, donations):"]
    timed = hooks is not None and hooks.timed
    if hooks is not None:
        namespace.update(ENTER=hooks.enter, CLOCK=hooks.clock, COMP=hooks.computation)
        lines.append("    log = ENTER(ctx)")
        if timed:
            lines.append("    t0 = CLOCK()")
    parameters = sorted(
        (r.instr.parameter_number, i) for i, r in enumerate(records) if r.kind == "parameter"
    )
    if parameters:
        lines.append("    " + "".join(f"v{i}, " for _, i in parameters) + "= args")

    def ref(i: int) -> str:
        return f"C{i}" if records[i].kind == "constant" else f"v{i}"

    for i, record in enumerate(records):
        if record.kind == "constant":
            namespace[f"C{i}"] = record.instr.attrs.literal.value
    line_slots: dict[int, int] = {}
    conditional: list[int] = []
    current: frozenset[int] | None = None
    for i, (record, kernel) in enumerate(zip(records, kernels, strict=True)):
        if record.kind in ("parameter", "constant"):
            continue
        assert kernel is not None
        operands = [ref(slots[id(o)]) for o in record.instr.operands]
        lines.append("    " + _comment(record))
        if kernel.inline:
            statement = f"v{i} = {kernel.inline.format(*operands)}"
        else:
            if liveness.conditional[i]:
                lines.append(f"    ctx.donatable = donations[{len(conditional)}]")
                conditional.append(i)
                current = None
            elif liveness.donatable[i] != current:
                current = liveness.donatable[i]
                if current:
                    namespace[f"D{i}"] = current
                lines.append(f"    ctx.donatable = {f'D{i}' if current else 'EMPTY'}")
            namespace[f"K{i}"] = kernel.run
            statement = f"v{i} = K{i}([{', '.join(operands)}], ctx)"
            if timed:
                namespace[f"I{i}"] = record.instr
                lines.append("    t = CLOCK()")
        lines.append(f"    {statement}")
        line_slots[len(lines)] = i
        if timed and not kernel.inline:
            lines.append(f"    log.step(I{i}, t)")
        dead = [f"v{d}" for d in liveness.dead_after[i] if records[d].kind != "constant"]
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    if timed:
        lines += [f"    result = {ref(root)}", "    log.call(COMP, t0)", "    return result"]
    else:
        lines.append(f"    return {ref(root)}")
    source = "\n".join(lines) + "\n"
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + source.encode()).hexdigest()[:32]
    filename = f"<xlapy plan {name} {digest[:12]}>"
    exec(_compiled(source, filename, digest), namespace)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return PlanCode(source, namespace[function_name], line_slots, tuple(conditional))


def _compiled(source: str, filename: str, digest: str) -> CodeType:
    """``compile(source, filename)``, read from the cache directory when an earlier process
    compiled the same source (``digest``) and stored there when it is long."""
    if len(source) < MIN_CACHED_SOURCE:
        return compile(source, filename, "exec")
    data = read_entry("plans", digest)
    if data is not None:
        try:
            code = marshal.loads(data)
        except (EOFError, ValueError, TypeError):  # a damaged entry: compiled again
            code = None
        if isinstance(code, CodeType) and code.co_filename == filename:
            return code
    code = compile(source, filename, "exec")
    write_entry("plans", digest, marshal.dumps(code), MAX_CACHED_PLANS)
    return code
