"""Copies of computations and modules: new instruction and computation objects, the same
shapes, attributes and names; called computations are remapped to their copies."""

from __future__ import annotations

import copy
from typing import Any

from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opdefs import AttrKind, Attrs


def clone_module(module: HloModule) -> HloModule:
    """A deep copy of ``module`` (computations in the same order, the same entry and config),
    which passes may change without touching the original."""
    new = HloModule(module.name, copy.deepcopy(module.config))
    new.stack_frame_index = module.stack_frame_index
    cache: dict[int, HloComputation] = {}
    for comp in module.computations:
        clone_computation(comp, new, cache)
    new.computations = [cache[id(c)] for c in module.computations]
    new.entry = cache[id(module.entry)]
    return new


def clone_computation(
    src: HloComputation, module: HloModule, cache: dict[int, HloComputation]
) -> HloComputation:
    """Copies ``src`` and (first) every computation it calls into ``module``; each source
    computation is copied once (``cache``)."""
    if id(src) in cache:
        return cache[id(src)]
    for instr in src.instructions:
        for callee in instr.called_computations():
            clone_computation(callee, module, cache)
    new = HloComputation(src.name, src.execution_thread)
    mapping: dict[int, HloInstruction] = {}
    for instr in src.instructions:
        copy = HloInstruction(
            instr.opcode,
            instr.shape,
            [mapping[id(o)] for o in instr.operands],
            _remap_computations(instr, cache),
            name=instr.name,
            metadata=instr.metadata,
            sharding=instr.sharding,
            frontend_attributes=instr.frontend_attributes,
            backend_config=instr.backend_config,
            control_predecessors=[mapping[id(p)] for p in instr.control_predecessors],
            statistics=instr.statistics,
            origin=instr.origin,
            unknown_attributes=instr.unknown_attributes,
        )
        mapping[id(instr)] = copy
        new.add_instruction(copy)
    new.root = mapping[id(src.root)]
    module.add_computation(new)
    cache[id(src)] = new
    return new


def _remap_computations(instr: HloInstruction, cache: dict[int, HloComputation]) -> Attrs:
    attrs = instr.attrs
    changes: dict[str, Any] = {}
    for spec in instr.opdef.attrs:
        if not attrs.is_set(spec.name):
            continue
        value = attrs[spec.name]
        if spec.kind is AttrKind.COMPUTATION and value is not None:
            changes[spec.name] = cache[id(value)]
        elif spec.kind is AttrKind.COMPUTATIONS:
            changes[spec.name] = tuple(cache[id(c)] for c in value)
    return attrs.replace(**changes) if changes else attrs
