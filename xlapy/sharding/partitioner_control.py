"""Partitioning ``while``, ``conditional`` and ``call``.

A while loop keeps one tiling for its state (its own sharding, else its operand's): the body
is partitioned with its parameter tiled so and its root resharded back to it, the condition
with its predicate replicated. A conditional's branches are partitioned with their operands'
tilings and their roots resharded to the conditional's sharding (replicated without one).
A call is inlined: its body is partitioned in the caller.
"""

from __future__ import annotations

from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import AttrKind
from xlapy.sharding.partitioner import (
    ComputationPartitioner,
    PValue,
    TilingTree,
    local_shape,
)
from xlapy.sharding.partitioner_builder import SpmdBuilder
from xlapy.sharding.partitioner_ops import handles


def partition_computation(
    p: ComputationPartitioner,
    comp: HloComputation,
    params: list[TilingTree],
    root: TilingTree,
) -> HloComputation:
    """A per-device copy of ``comp`` whose parameters are tiled as ``params`` and whose
    root is resharded to ``root``; added to the module before the computation being built."""
    new = HloComputation(f"{comp.name}_spmd")
    p.state.module.add_computation(new, before=p.b.comp)
    inner = ComputationPartitioner(SpmdBuilder(new, p.state), p.state)
    values = []
    for param in comp.parameters:
        tiling = params[param.parameter_number]
        instr = new.add_instruction(HloInstruction(
            Opcode.PARAMETER, local_shape(param.shape, tiling), (),
            {"parameter_number": param.parameter_number}, name=param.name))  # fmt: skip
        values.append(PValue(instr, param.shape, tiling))
    result = inner.resharded(inner.partition(comp, values), root)
    out = result.instr
    if out.opcode is Opcode.PARAMETER or out.parent is not new:
        out = inner.b.add(Opcode.COPY, [out]) if out.shape.is_array else inner.b.add(
            Opcode.TUPLE, [inner.b.add(Opcode.GET_TUPLE_ELEMENT, [out], {"index": k})
                           for k in range(len(out.shape.tuple_shapes))])  # fmt: skip
    new.root = out
    return new


def _with_computations(p: ComputationPartitioner, instr: HloInstruction,
                       operands: list[HloInstruction],
                       mapping: dict[int, HloComputation]) -> HloInstruction:  # fmt: skip
    attrs = {}
    for spec in instr.opdef.attrs:
        value = instr.attrs[spec.name]
        if spec.kind is AttrKind.COMPUTATION and value is not None:
            value = mapping[id(value)]
        elif spec.kind is AttrKind.COMPUTATIONS and value:
            value = tuple(mapping[id(c)] for c in value)
        attrs[spec.name] = value
    new = p.b.comp.make_instruction(instr.opcode, operands, attrs, name=instr.name)
    return p.b.comp.add_instruction(new)


@handles(Opcode.WHILE)
def while_(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    v = p.value(instr.operands[0])
    target = p.target(instr)
    state = target if target is not None else v.tiling
    init = p.resharded(v, state).instr
    body = partition_computation(p, instr.attrs.body, [state], state)
    cond_comp = instr.attrs.condition
    cond = partition_computation(p, cond_comp, [state], p.replicated(cond_comp.root.shape))
    mapping = {id(instr.attrs.body): body, id(cond_comp): cond}
    return PValue(_with_computations(p, instr, [init], mapping), instr.shape, state)


@handles(Opcode.CONDITIONAL)
def conditional(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    index = p.operand(instr, 0, p.replicated(instr.operands[0].shape))
    target = p.target(instr)
    out = target if target is not None else p.replicated(instr.shape)
    operands, mapping = [index], {}
    for k, comp in enumerate(instr.called_computations()):
        v = p.value(instr.operands[k + 1])
        operands.append(v.instr)
        mapping[id(comp)] = partition_computation(p, comp, [v.tiling], out)
    return PValue(_with_computations(p, instr, operands, mapping), instr.shape, out)


@handles(Opcode.CALL)
def call(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    callee = instr.attrs.to_apply
    inner = ComputationPartitioner(p.b, p.state)
    return inner.partition(callee, [p.value(o) for o in instr.operands])
