"""XlaBuilder in Python: ``XlaBuilder``, ``XlaOp`` handles, the op functions of ``ops`` and
``shape("f32[2,3]")``. Every op infers its shape when it is built, so mistakes raise
``InvalidArgument`` at the line that made them."""

from xlapy.builder import ops
from xlapy.builder.shape_text import shape
from xlapy.builder.xla_builder import XlaBuilder, XlaComputation, XlaOp

__all__ = ["XlaBuilder", "XlaComputation", "XlaOp", "ops", "shape"]
