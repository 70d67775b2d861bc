"""Builder op functions, one per op of OPS.md with XLA's names and argument order
(``ops.Add(lhs, rhs, broadcast_dimensions=())``, ``ops.Pad(operand, padding_value,
padding_config)``, ``ops.Reduce(builder, operands, init_values, computation,
dimensions_to_reduce)``, ...) plus the helper configuration types.

The functions live in the family modules ``ops_elementwise``, ``ops_shape``, ``ops_compute``,
``ops_control`` and ``ops_collectives``; this module gathers them, each wrapped by
``argcheck.validated`` so that a wrong argument raises InvalidArgument naming the function and
the argument.
"""

from xlapy.builder.argcheck import validate_module
from xlapy.builder.config import *  # noqa: F403
from xlapy.builder.config import __all__ as _config_names
from xlapy.builder.ops_collectives import *  # noqa: F403
from xlapy.builder.ops_compute import *  # noqa: F403
from xlapy.builder.ops_control import *  # noqa: F403
from xlapy.builder.ops_elementwise import *  # noqa: F403
from xlapy.builder.ops_shape import *  # noqa: F403
from xlapy.builder.shape_text import shape
from xlapy.builder.xla_builder import XlaBuilder, XlaComputation, XlaOp

__all__ = [
    "XlaBuilder",
    "XlaComputation",
    "XlaOp",
    "shape",
    *_config_names,
]

validate_module(
    globals(),
    [
        name
        for name, value in list(globals().items())
        if name[:1].isupper() and getattr(value, "__module__", "").startswith("xlapy.builder.ops_")
    ],
)
