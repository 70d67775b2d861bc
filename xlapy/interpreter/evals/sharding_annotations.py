"""The sharding custom calls of a global-view program (``xlapy.sharding.read``), evaluated
without partitioning: ``Sharding`` (a constraint) is its operand; ``SPMDFullToShardShape`` and
``SPMDShardToFullShape`` are their operand when the per-device and global shapes agree (a
mesh that does not split the value) and otherwise need the SPMD partitioner first."""

from __future__ import annotations

from xlapy.errors import EvaluationError
from xlapy.interpreter.evaluator import Evaluator, custom_call_target
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Value


@custom_call_target("Sharding")
def sharding_constraint(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """A sharding constraint does not change the value."""
    return operands[0]


@custom_call_target("xla.sdy.ShardingGroup")
def sharding_group(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``shard_alike``'s group membership: no value."""
    return ()


@custom_call_target("SPMDFullToShardShape", "SPMDShardToFullShape")
def manual_boundary(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """The value itself when no dim is split; else the program must be partitioned."""
    source = instr.operands[0].shape
    if not source.compatible(instr.shape):
        target = instr.attrs.custom_call_target
        raise EvaluationError(
            f"custom-call {instr.name}: {target} from {source.to_hlo(layout=False)} to "
            f"{instr.shape.to_hlo(layout=False)} splits the value over devices; partition the "
            "global program first (the SPMD partitioner: xlapy run partitions it)"
        )
    return operands[0]
