"""The reference interpreter: exact evaluation of HLO modules."""

from xlapy.interpreter.evaluator import (
    CUSTOM_CALLS,
    EVALUATORS,
    DeviceState,
    EvalOptions,
    Evaluator,
    custom_call_target,
    evaluates,
)
from xlapy.interpreter.run import run

__all__ = [
    "CUSTOM_CALLS",
    "EVALUATORS",
    "DeviceState",
    "EvalOptions",
    "Evaluator",
    "custom_call_target",
    "evaluates",
    "run",
]
