"""Collective bytes per device: how much data one device of an SPMD module sends.

The measure compared between xlapy's partitioner and XLA's (``benchmarks/sharding_comm.py``).
Each collective instruction of the module (every computation, each counted once: a collective
in a loop body counts once however often the loop runs) contributes, for a group of n
devices and the bytes S of one device's operands (R of its result), what a ring algorithm
sends from each device:

- ``all-reduce``: 2 (n - 1) / n * S (reduce-scatter then all-gather),
- ``all-gather``: (n - 1) / n * R (every other device's piece once),
- ``reduce-scatter`` and ``all-to-all``: (n - 1) / n * S,
- ``collective-permute``: S times the pairs whose source differs from their target, divided
  by the number of devices (a device sends S per pair it is the source of),
- ``collective-broadcast``: S / n (the root's sends shared over the group).

Async forms count at their ``-start``; ``-done`` moves nothing. Tuple operands sum over their
leaves. The groups come from ``replica_groups`` (empty: every device in one group).
"""

from __future__ import annotations

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape


def shape_bytes(shape: Shape) -> int:
    """Bytes of every array leaf of ``shape`` (sub-byte types rounded up per array)."""
    return sum(
        (leaf.num_elements * leaf.element_type.bits + 7) // 8
        for leaf in shape.leaves()
        if leaf.is_array
    )


def _group_size(instr: HloInstruction, devices: int) -> int:
    groups = instr.attrs.replica_groups
    expanded = groups.groups() if groups is not None else ()
    return len(expanded[0]) if expanded else devices


def _operand_bytes(instr: HloInstruction) -> int:
    return sum(shape_bytes(o.shape) for o in instr.operands if not o.shape.is_token)


def instruction_bytes(instr: HloInstruction, devices: int) -> float:
    """What one device sends for ``instr`` (0 for anything but a collective)."""
    op = instr.opcode
    if op in (Opcode.ALL_REDUCE, Opcode.ALL_REDUCE_START):
        n = _group_size(instr, devices)
        return 2 * (n - 1) / n * _operand_bytes(instr)
    if op in (Opcode.ALL_GATHER, Opcode.ALL_GATHER_START):
        n = _group_size(instr, devices)
        return (n - 1) * _operand_bytes(instr)
    if op in (Opcode.REDUCE_SCATTER, Opcode.ALL_TO_ALL):
        n = _group_size(instr, devices)
        return (n - 1) / n * _operand_bytes(instr)
    if op in (Opcode.COLLECTIVE_PERMUTE, Opcode.COLLECTIVE_PERMUTE_START):
        pairs = instr.attrs.source_target_pairs or ()
        moving = sum(1 for s, t in pairs if s != t)
        data = shape_bytes(instr.operands[0].shape)
        return data * moving / devices
    if op is Opcode.COLLECTIVE_BROADCAST:
        return _operand_bytes(instr) / _group_size(instr, devices)
    return 0.0


def collective_bytes(module: HloModule) -> float:
    """Bytes one device sends over all the collectives of ``module`` (see the module doc)."""
    devices = module.config.replica_count * module.config.num_partitions
    return sum(instruction_bytes(i, devices) for i in module.instructions())
