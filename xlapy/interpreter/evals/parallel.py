"""``interpreter.run_parallel``: the StableHLO interpreter's harness for several processes.

The StableHLO front end lowers ``interpreter.run_parallel`` to a custom call with target
``interpreter.run_parallel`` whose ``called_computations`` are the distinct program functions
(in order of first appearance in ``programs``) followed by the ``infeed`` functions, and whose
``backend_config`` keeps ``programs = [[@f, ...], ...]`` (outer list: replicas, inner:
partitions) and ``infeed = [@q0, ...]``. Operands are the programs' inputs and results their
outputs, flattened in process order (replica 0 partition 0, replica 0 partition 1, ...).
The infeed functions are evaluated first; their results fill the runtime's infeed queue.
"""

from __future__ import annotations

import re

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import DeviceState, Evaluator, custom_call_target
from xlapy.interpreter.run import flatten
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Value

_SYMBOL = re.compile(r'@("(?:[^"\\]|\\.)*"|[\w.$-]+)')


def _symbols(text: str) -> list[str]:
    return [m.group(1).strip('"') for m in _SYMBOL.finditer(text)]


def _bracketed(config: str, key: str) -> str:
    """The balanced ``[...]`` that follows ``key =`` in an attribute dictionary (or "")."""
    match = re.search(rf"\b{key}\s*=\s*\[", config)
    if match is None:
        return ""
    depth, start = 0, match.end() - 1
    for i in range(start, len(config)):
        depth += {"[": 1, "]": -1}.get(config[i], 0)
        if depth == 0:
            return config[start : i + 1]
    raise InvalidArgument(f"interpreter.run_parallel: unbalanced {key} in {config!r}")


def _grid(instr: HloInstruction) -> tuple[list[list[HloComputation]], list[HloComputation]]:
    """(programs[replica][partition], infeed functions) of a run_parallel call."""
    config = instr.backend_config
    programs_text = _bracketed(config, "programs")
    rows = re.findall(r"\[([^\[\]]*)\]", programs_text[1:-1]) if programs_text else []
    grid_names = [_symbols(row) for row in rows]
    infeed_names = _symbols(_bracketed(config, "infeed"))
    distinct: list[str] = []
    for name in [n for row in grid_names for n in row]:
        if name not in distinct:
            distinct.append(name)
    comps = list(instr.attrs.called_computations)
    expected = len(distinct) + len(dict.fromkeys(infeed_names))
    if (
        not grid_names
        or any(len(r) != len(grid_names[0]) for r in grid_names)
        or len(comps) != expected
    ):
        raise InvalidArgument(
            f"interpreter.run_parallel {instr.name}: programs must be a non-empty rectangular "
            f"list of functions; got {programs_text or 'nothing'}"
        )
    by_name = dict(zip(distinct, comps[: len(distinct)], strict=True))
    infeed_by_name = dict(zip(dict.fromkeys(infeed_names), comps[len(distinct) :], strict=True))
    return [[by_name[n] for n in row] for row in grid_names], [
        infeed_by_name[n] for n in infeed_names
    ]


@custom_call_target("interpreter.run_parallel")
def run_parallel(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Runs programs[r][p] as replica r, partition p of a fresh runtime (of the caller's
    kind: on MPI the grid is spread over the ranks); returns every process's results,
    flattened in process order."""
    grid, infeed = _grid(instr)
    runtime = ctx.device.runtime.nested(len(grid), len(grid[0]))
    for comp in infeed:
        runtime.infeed.append(ctx.call(comp, []))
    programs = [comp for row in grid for comp in row]
    arities = [comp.num_parameters for comp in programs]
    if sum(arities) != len(operands):
        raise InvalidArgument(
            f"interpreter.run_parallel {instr.name}: the programs take {sum(arities)} inputs in "
            f"all; got {len(operands)}"
        )
    starts = [sum(arities[:d]) for d in range(len(programs))]

    def on_device(flat: int) -> list[Value]:
        device = runtime.device(flat)
        state = DeviceState(device.replica, device.partition, runtime=runtime)
        evaluator = Evaluator(ctx.module, ctx.options, state)
        args = operands[starts[flat] : starts[flat] + arities[flat]]
        return flatten(evaluator.call(programs[flat], args))

    per_device = runtime.all_devices(runtime.run_devices(on_device))
    results = [value for device in per_device for value in device]
    ctx.device.runtime.outfeed.extend(runtime.outfeed)
    return tuple(results)
