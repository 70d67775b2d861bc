"""Indexing of fusions and computations: per-op maps composed through the producer graph.

Starting from the identity on the root's output, every instruction (users before producers)
composes the maps that reach it with its own output->input maps; each composed map is
simplified and its unused symbols dropped, and equal maps are merged, so a parameter ends
up with one map per distinct access path (INDEXING.md §5: ``p0 + transpose(p0)`` has two,
the transpose-of-transpose example one, softmax two).
"""

from __future__ import annotations

from xlapy.indexing.indexing_map import IndexingMap, compose
from xlapy.indexing.operand_indexing import HloInstructionIndexing, OperandIndexing, RuntimeVar
from xlapy.indexing.per_op import dims_of, output_shape, output_to_input
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

Key = tuple[int, int]  # (id(instruction), output index)

WHOLE = -1
"""The output index of a tuple-shaped value read whole (a conditional's or call's tuple
operand), not one element through get-tuple-element: no affine map describes that read, so
everything it reaches gets undefined maps."""


def compose_operand_indexing(
    first: OperandIndexing, second: OperandIndexing, *, match_xla: bool = False
) -> OperandIndexing:
    """``second ∘ first`` with runtime variables carried: ``second``'s are read at ``first``'s
    map composed with theirs, unsimplified (so they keep the constraints that bound
    ``second``'s dims, as XLA's do). ``first``'s variables (the consumer's, outermost) are
    numbered before ``second``'s. ``match_xla`` keeps XLA's numbering instead: the map's
    symbols have ``second``'s first (``ComposeIndexingMaps``) while XLA lists ``first``'s
    first; each variable records its level for that listing."""
    m = compose(first.map, second.map)
    if m.is_undefined:
        return OperandIndexing(m)
    level = 1 + max((r.level for r in first.rt_vars), default=-1)
    produced = tuple(
        RuntimeVar(r.instruction, compose(first.map, r.map), level) for r in second.rt_vars
    )
    if match_xla:
        return OperandIndexing(m, produced + first.rt_vars)
    n_second, n_first = len(second.map.rt_vars), len(first.map.rt_vars)
    order = [*range(n_second, n_second + n_first), *range(n_second)]
    return OperandIndexing(m.permute_rt_vars(order), first.rt_vars + produced)


def grouped_output_to_input(
    computation: HloComputation,
    root: HloInstruction | None = None,
    output_id: int = 0,
    *,
    simplify: bool = True,
    match_xla: bool = False,
) -> dict[HloInstruction, list[OperandIndexing]]:
    """Maps from output ``output_id`` of ``root`` (the computation's root by default) to
    every instruction it reads, keyed by instruction (insertion order: users first); XLA's
    maps with ``match_xla`` (see ``output_to_input``)."""
    root = root or computation.root
    start = OperandIndexing(IndexingMap.identity(dims_of(output_shape(root, output_id))))
    reached: dict[Key, list[OperandIndexing]] = {(id(root), output_id): [start]}
    instructions: dict[int, HloInstruction] = {id(root): root}
    order = computation.post_order()
    position = next(i for i, instr in enumerate(order) if instr is root)
    for instr in reversed(order[: position + 1]):
        keys = [k for k in reached if k[0] == id(instr)]
        for key in keys:
            consumers = list(reached[key])
            if key[1] == WHOLE:
                producer = HloInstructionIndexing.unknown(len(instr.operands))
            else:
                producer = output_to_input(instr, key[1], simplify=simplify, match_xla=match_xla)
            for k, operand in enumerate(instr.operands):
                if instr.opcode is Opcode.GET_TUPLE_ELEMENT:
                    operand_output = instr.attrs.index
                else:
                    operand_output = WHOLE if operand.shape.is_tuple else 0
                target = (id(operand), operand_output)
                instructions[id(operand)] = operand
                group = reached.setdefault(target, [])
                for producer_map in producer.maps[k]:
                    for consumer_map in consumers:
                        composed = compose_operand_indexing(
                            consumer_map, producer_map, match_xla=match_xla
                        )
                        if simplify:
                            composed = composed.simplify()
                        if composed not in group:
                            group.append(composed)
    result: dict[HloInstruction, list[OperandIndexing]] = {}
    for (instr_id, _), group in reached.items():
        merged = result.setdefault(instructions[instr_id], [])
        for m in group:
            if m not in merged:
                merged.append(m)
    return result


def computation_output_to_input(
    computation: HloComputation,
    output_id: int = 0,
    *,
    simplify: bool = True,
    match_xla: bool = False,
) -> HloInstructionIndexing:
    """One entry per parameter (by parameter number): maps from the root's output."""
    grouped = grouped_output_to_input(
        computation, None, output_id, simplify=simplify, match_xla=match_xla
    )
    params = computation.parameters
    result = HloInstructionIndexing(len(params))
    for p in params:
        for m in grouped.get(p, []):
            result.add(p.parameter_number, m)
    return result


def fusion_output_to_input(
    instr: HloInstruction, output_id: int = 0, *, simplify: bool = True, match_xla: bool = False
) -> HloInstructionIndexing:
    """A fusion's (or call's) maps: its computation's, with parameters as the operands."""
    computation = instr.attrs.calls if instr.opcode is Opcode.FUSION else instr.attrs.to_apply
    if computation is None:
        return HloInstructionIndexing.unknown(len(instr.operands))
    return computation_output_to_input(
        computation, output_id, simplify=simplify, match_xla=match_xla
    )
