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
from xlapy.sharding.partitioner_tiling import Tiling
from xlapy.sharding.reshard import plan_cost


def partition_computation(
    p: ComputationPartitioner,
    comp: HloComputation,
    params: list[TilingTree],
    root: TilingTree | None,
) -> tuple[HloComputation, TilingTree]:
    """A per-device copy of ``comp`` whose parameters are tiled as ``params`` and whose
    root is resharded to ``root`` (None: left as it comes), added to the module before the
    computation being built (not during a dry run); also the tiling the root came in."""
    new = HloComputation(f"{comp.name}_spmd")
    if not p.state.dry_runs:
        p.state.module.add_computation(new, before=p.b.comp)
    inner = ComputationPartitioner(SpmdBuilder(new, p.state), p.state)
    values = []
    for param in comp.parameters:
        tiling = params[param.parameter_number]
        instr = new.add_instruction(HloInstruction(
            Opcode.PARAMETER, local_shape(param.shape, tiling), (),
            {"parameter_number": param.parameter_number}, name=param.name))  # fmt: skip
        values.append(PValue(instr, param.shape, tiling))
    result = inner.partition(comp, values)
    natural = result.tiling
    if root is not None:
        result = inner.resharded(result, root)
    out = result.instr
    if out.opcode is Opcode.PARAMETER or out.parent is not new:
        out = inner.b.add(Opcode.COPY, [out]) if out.shape.is_array else inner.b.add(
            Opcode.TUPLE, [inner.b.add(Opcode.GET_TUPLE_ELEMENT, [out], {"index": k})
                           for k in range(len(out.shape.tuple_shapes))])  # fmt: skip
    new.root = out
    return new, natural


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


def _loop_state(p: ComputationPartitioner, instr: HloInstruction, v: PValue) -> TilingTree:
    """The loop state's tiling when the while has no sharding: each element keeps its
    initial value's tiling or takes the one the body's result gives it, whichever costs
    less to reach (from the initial value once, from the body's result every iteration);
    the body is partitioned to look (not kept) until the choice settles (at most 3 times)."""
    state = v.tiling
    if not isinstance(state, tuple):
        return state
    init = instr.operands[0]
    elements = [
        p.value(init.operands[k]) if init.opcode is Opcode.TUPLE else None
        for k in range(len(state))
    ]
    for _ in range(3):
        p.state.dry_runs += 1
        try:
            _, produced = partition_computation(p, instr.attrs.body, [state], None)
        finally:
            p.state.dry_runs -= 1
        assert isinstance(produced, tuple)
        new = list(state)
        for k, (now, got) in enumerate(zip(state, produced, strict=True)):
            if not isinstance(now, Tiling) or not isinstance(got, Tiling) or now == got:
                continue
            shape = v.shape.tuple_shapes[k]
            nbytes = max(1, shape.element_type.bits // 8)
            element = elements[k]
            switch = (
                p.cost(element, got)
                if element is not None
                else plan_cost(now, got, shape.dims, nbytes)
            )
            if switch < plan_cost(got, now, shape.dims, nbytes):
                new[k] = got
        if new == list(state):
            break
        state = tuple(new)
    return state


@handles(Opcode.WHILE)
def while_(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    v = p.value(instr.operands[0])
    target = p.target(instr)
    state = target if target is not None else _loop_state(p, instr, v)
    init = p.resharded(v, state).instr
    body, _ = partition_computation(p, instr.attrs.body, [state], state)
    cond_comp = instr.attrs.condition
    cond, _ = partition_computation(p, cond_comp, [state], p.replicated(cond_comp.root.shape))
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
        mapping[id(comp)], _ = partition_computation(p, comp, [v.tiling], out)
    return PValue(_with_computations(p, instr, operands, mapping), instr.shape, out)


@handles(Opcode.CALL)
def call(p: ComputationPartitioner, instr: HloInstruction) -> PValue:
    callee = instr.attrs.to_apply
    inner = ComputationPartitioner(p.b, p.state)
    return inner.partition(callee, [p.value(o) for o in instr.operands])
