"""Lowering of CHLO ops onto HLO, the way XLA's CHLO legalization expands them: the
``broadcast_*`` binary ops (numpy-style or ``broadcast_dimensions`` broadcasting, then the HLO
op), ``conj``, ``is_inf``/``is_neg_inf``/``is_pos_inf``, ``square``, ``constant_like``, and
the ops with an HLO opcode of their own (``top_k``, ``ragged_dot``, ``scan``). JAX prints
these in ordinary programs (``lax.top_k``): they load with the parser, while custom calls,
collectives and the test ops (``stablehlo_ops_extra``) load with the first op needing one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.mlir_ast import Op
from xlapy.text.stablehlo_lower import Builder, lowers
from xlapy.text.stablehlo_ops import (
    enum_member,
    enum_name,
    fields,
    int_attr,
    ints,
    need_regions,
    precision,
)

_BROADCAST_BINARY = {
    "add": Opcode.ADD, "and": Opcode.AND, "atan2": Opcode.ATAN2, "complex": Opcode.COMPLEX,
    "divide": Opcode.DIVIDE, "maximum": Opcode.MAXIMUM, "minimum": Opcode.MINIMUM,
    "multiply": Opcode.MULTIPLY, "next_after": Opcode.NEXT_AFTER, "or": Opcode.OR,
    "polygamma": Opcode.POLYGAMMA, "power": Opcode.POWER, "remainder": Opcode.REMAINDER,
    "shift_left": Opcode.SHIFT_LEFT, "shift_right_arithmetic": Opcode.SHIFT_RIGHT_ARITHMETIC,
    "shift_right_logical": Opcode.SHIFT_RIGHT_LOGICAL, "subtract": Opcode.SUBTRACT,
    "xor": Opcode.XOR, "zeta": Opcode.ZETA, "compare": Opcode.COMPARE, "select": Opcode.SELECT,
}  # fmt: skip


def _broadcast_to(b: Builder, x: HloInstruction, out: Shape, dims: tuple[int, ...] | None
                  ) -> HloInstruction:  # fmt: skip
    """``x`` broadcast numpy-style (or along ``dims``) to the dims of ``out``."""
    if x.shape.dims == out.dims:
        return x
    rank = x.shape.rank
    mapping = list(dims) if dims else list(range(out.rank - rank, out.rank))
    keep = [i for i in range(rank) if x.shape.dims[i] == out.dims[mapping[i]]]
    if len(keep) != rank:
        kept = Shape.array(x.shape.element_type, [x.shape.dims[i] for i in keep])
        x = b.add(Opcode.RESHAPE, kept, [x])
    target = Shape.array(x.shape.element_type, out.dims)
    return b.add(Opcode.BROADCAST, target, [x], {"dimensions": tuple(mapping[i] for i in keep)})


def _chlo_broadcast(b: Builder, op: Op) -> list[HloInstruction]:
    kind = op.name[len("chlo.broadcast_") :]
    shape = b.result_shape(op)
    dims = ints(op.attrs.get("broadcast_dimensions")) or None
    operands = b.operands(op)
    out_rank = shape.rank
    operands = [
        _broadcast_to(b, x, shape, dims if x.shape.rank < out_rank else None) for x in operands
    ]
    attrs: dict[str, Any] = {}
    if kind == "compare":
        attrs["direction"] = enum_member(
            A.ComparisonDirection, op.attrs["comparison_direction"], "comparison_direction"
        )
        kind_attr = op.attrs.get("compare_type")
        if kind_attr is not None and enum_name(kind_attr) != "NOTYPE":
            attrs["type"] = enum_member(A.ComparisonType, kind_attr, "compare_type")
    return [b.add(_BROADCAST_BINARY[kind], shape, operands, attrs)]


for _kind in _BROADCAST_BINARY:
    lowers(f"chlo.broadcast_{_kind}")(_chlo_broadcast)


def _splat(b: Builder, value: Any, shape: Shape) -> HloInstruction:
    scalar = Shape.scalar(shape.element_type)
    const = b.add(
        Opcode.CONSTANT,
        scalar,
        (),
        {"literal": Literal(scalar, np.array(value, scalar.element_type.numpy))},
    )
    if not shape.dims:
        return const
    return b.add(Opcode.BROADCAST, shape, [const], {"dimensions": ()})


@lowers("chlo.conj")
def _conj(b: Builder, op: Op) -> list[HloInstruction]:
    (x,) = b.operands(op)
    part = x.shape.with_element_type(x.shape.element_type.component)
    re = b.add(Opcode.REAL, part, [x])
    im = b.add(Opcode.NEGATE, part, [b.add(Opcode.IMAG, part, [x])])
    return [b.add(Opcode.COMPLEX, b.result_shape(op), [re, im])]


@lowers("chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf")
def _is_inf(b: Builder, op: Op) -> list[HloInstruction]:
    (x,) = b.operands(op)
    if op.name == "chlo.is_inf":
        x = b.add(Opcode.ABS, x.shape, [x])
    sign = -1.0 if op.name == "chlo.is_neg_inf" else 1.0
    inf = _splat(b, sign * np.inf, x.shape)
    attrs = {"direction": A.ComparisonDirection.EQ}
    return [b.add(Opcode.COMPARE, b.result_shape(op), [x, inf], attrs)]


@lowers("chlo.square")
def _square(b: Builder, op: Op) -> list[HloInstruction]:
    (x,) = b.operands(op)
    return [b.add(Opcode.MULTIPLY, b.result_shape(op), [x, x])]


@lowers("chlo.constant_like")
def _constant_like(b: Builder, op: Op) -> list[HloInstruction]:
    value = op.attrs.get("value")
    if isinstance(value, Literal):
        value = np.asarray(value.value).reshape(-1)[0]
    return [_splat(b, value, b.result_shape(op))]


@lowers("chlo.top_k")
def _top_k(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = {"k": int_attr(op.attrs["k"], "k"), "largest": True}
    return b.multi(op, Opcode.TOPK, b.operands(op), attrs, always_tuple=True)


@lowers("chlo.ragged_dot")
def _ragged_dot(b: Builder, op: Op) -> list[HloInstruction]:
    f = fields(op.attrs.get("ragged_dot_dimension_numbers"), op, "ragged_dot_dimension_numbers")
    attrs = {
        "lhs_batch_dims": ints(f.get("lhs_batching_dimensions")),
        "rhs_batch_dims": ints(f.get("rhs_batching_dimensions")),
        "lhs_contracting_dims": ints(f.get("lhs_contracting_dimensions")),
        "rhs_contracting_dims": ints(f.get("rhs_contracting_dimensions")),
        "lhs_ragged_dims": ints(f.get("lhs_ragged_dimensions")),
        "rhs_group_dims": ints(f.get("rhs_group_dimensions")),
        "operand_precision": precision(op.attrs.get("precision_config")),
    }
    return [b.add(Opcode.RAGGED_DOT, b.result_shape(op), b.operands(op), attrs)]


@lowers("chlo.scan")
def _scan(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    if "num_inits" in op.attrs:
        carries = int_attr(op.attrs["num_inits"], "num_inits")
    else:
        segments = ints(op.attrs.get("operandSegmentSizes"))
        carries = segments[1] if len(segments) == 2 else 0
    attrs = {
        "dimensions": (int_attr(op.attrs.get("dimension", 0), "dimension"),),
        "num_carries": carries,
        "is_reverse": bool(op.attrs.get("is_reverse", False)),
        "is_associative": bool(op.attrs.get("is_associative", False)),
        "to_apply": b.region(op.regions[0], op.offset),
    }
    return b.multi(op, Opcode.SCAN, b.operands(op), attrs, always_tuple=True)
