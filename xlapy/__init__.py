"""xlapy: XLA, in Python — the HLO IR, its text formats, a reference interpreter and
indexing analysis. Public API re-exports only; nothing inside xlapy imports from here.
"""

from xlapy import dtypes
from xlapy.backend.cpu import Executable, compile

# ``xlapy.shape("f32[2,3]")`` parses a shape: the function is bound over the attribute of the
# ``xlapy.shape`` submodule (import its names with ``from xlapy.shape import Shape``).
from xlapy.builder import XlaBuilder, XlaOp, ops, shape
from xlapy.errors import (
    EvaluationError,
    InvalidArgument,
    ParseError,
    Unimplemented,
    VerificationError,
    XlaError,
)
from xlapy.interpreter import EvalOptions, Evaluator, custom_call_target, run
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.jit import jit
from xlapy.literal import TOKEN, Literal
from xlapy.loader import load
from xlapy.profiling import Profile, profile
from xlapy.shape import Shape

__version__ = "0.1.0"

__all__ = [
    "TOKEN",
    "EvalOptions",
    "EvaluationError",
    "Evaluator",
    "Executable",
    "HloComputation",
    "HloInstruction",
    "HloModule",
    "InvalidArgument",
    "Literal",
    "Opcode",
    "ParseError",
    "Profile",
    "Shape",
    "Unimplemented",
    "VerificationError",
    "XlaBuilder",
    "XlaError",
    "XlaOp",
    "compile",
    "custom_call_target",
    "dtypes",
    "jit",
    "load",
    "ops",
    "profile",
    "run",
    "shape",
]
