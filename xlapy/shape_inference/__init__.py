"""Shape inference: one ``infer`` function per opcode, pure functions of operand shapes and
typed attributes that check the op's constraints in spec-label order.

``infer_shape(opcode, operand_shapes, attrs)`` is what the builder and the verifier call;
``INFER`` maps every Opcode to its function. Errors are ``InvalidArgument`` worded
``<op> [<label>]: <rule>; got <values>``.
"""

from xlapy.shape_inference import (
    collectives,
    control_flow,
    dot_conv,
    elementwise,
    gather_scatter,
    quantized,
    reduce,
    shape_ops,
)
from xlapy.shape_inference.common import INFER, InferCtx, infer_shape, make_attrs

__all__ = [
    "INFER",
    "InferCtx",
    "collectives",
    "control_flow",
    "dot_conv",
    "elementwise",
    "gather_scatter",
    "infer_shape",
    "make_attrs",
    "quantized",
    "reduce",
    "shape_ops",
]
