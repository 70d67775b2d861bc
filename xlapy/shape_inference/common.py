"""Shared machinery of shape inference: the context that formats errors, the registry of
infer functions, and the small checks every op family reuses.

Per-op rules live in the family modules (``elementwise``, ``shape_ops``, ...); this module
knows no op.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.ir.computation import HloComputation
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY, Attrs
from xlapy.shape import Shape


def fmt(shape: Shape) -> str:
    """A shape in HLO syntax without layout (``f32[2,3]``), as error messages print it."""
    return shape.to_hlo(layout=False)


def fmt_ints(values: Iterable[int]) -> str:
    """An int list as HLO prints attributes (``{1,0}``)."""
    return "{" + ",".join(str(v) for v in values) + "}"


@dataclass(frozen=True, slots=True)
class InferCtx:
    """What an infer function knows besides operands and attributes.

    Attributes:
        opcode: the op being inferred (its HLO name starts every message).
        name: the instruction name when known (verifier, parser), else "".
        result: the declared result shape, for ops whose result is not a function of the
            operands and attributes (convert's element type, reshape's dims, parameter,
            custom-call, ...) and for the preferred element type of dot/convolution.
    """

    opcode: Opcode
    name: str = ""
    result: Shape | None = None

    def error(self, label: str | None, message: str) -> InvalidArgument:
        """``<op> <name> [<label>]: <message>`` as an InvalidArgument (to raise)."""
        head = self.opcode.value
        if self.name:
            head += f" %{self.name}"
        if label:
            head += f" [{label}]"
        return InvalidArgument(f"{head}: {message}")

    def need_result(self, what: str) -> Shape:
        """The declared result shape; raises if the caller did not give one."""
        if self.result is None:
            raise self.error(None, f"the result shape must be given ({what})")
        return self.result


InferFn = Callable[[InferCtx, Sequence[Shape], Attrs], Shape]
INFER: dict[Opcode, InferFn] = {}
"""Opcode -> infer function ``fn(ctx, operand_shapes, attrs) -> Shape``."""


def infers(*opcodes: Opcode) -> Callable[[InferFn], InferFn]:
    """Registers the decorated function as the shape inference of ``opcodes``."""

    def register(fn: InferFn) -> InferFn:
        for opcode in opcodes:
            if opcode in INFER:
                raise RuntimeError(f"two infer functions registered for {opcode.value}")
            INFER[opcode] = fn
        return fn

    return register


def make_attrs(opcode: Opcode, attrs: Mapping[str, Any] | None) -> Attrs:
    """``attrs`` checked against the opcode's schema (unknown/missing names raise)."""
    if isinstance(attrs, Attrs):
        return attrs
    return Attrs(REGISTRY[opcode], {k: v for k, v in (attrs or {}).items() if v is not None})


def infer_shape(
    opcode: Opcode,
    operand_shapes: Sequence[Shape],
    attrs: Mapping[str, Any] | None = None,
    *,
    result: Shape | None = None,
    name: str = "",
) -> Shape:
    """The result shape of ``opcode`` applied to ``operand_shapes`` with ``attrs``.

    Args:
        opcode: the op.
        operand_shapes: one shape per operand, in order.
        attrs: typed attribute values (an ``Attrs`` or a plain mapping of HLO attribute keys).
        result: the declared result shape, required by ops whose result is not determined by
            their operands (see ``InferCtx.result``); checked against the op's rules.
        name: instruction name for messages.

    Raises:
        InvalidArgument: ``<op> [<label>]: <rule>; got <values>`` when a constraint fails.
    """
    ctx = InferCtx(opcode, name, result)
    fn = INFER.get(opcode)
    if fn is None:
        raise ctx.error(None, "xlapy has no shape inference for this op")
    opdef = REGISTRY[opcode]
    if opdef.arity >= 0 and len(operand_shapes) != opdef.arity:
        raise ctx.error(None, f"takes {opdef.arity} operand(s); got {len(operand_shapes)}")
    try:
        checked = make_attrs(opcode, attrs)
    except InvalidArgument as exc:
        raise ctx.error(None, str(exc).split(": ", 1)[-1]) from None
    if _quantized(operand_shapes) or (result is not None and _quantized([result])):
        from xlapy.shape_inference.quantized import infer_quantized

        return infer_quantized(ctx, fn, tuple(operand_shapes), checked)
    return fn(ctx, tuple(operand_shapes), checked)


def _quantized(shapes: Sequence[Shape]) -> bool:
    """Whether a quantized element type occurs in ``shapes`` (tuples included)."""
    return any(
        _quantized(s.tuple_shapes) if s.is_tuple else s.element_type.is_quantized for s in shapes
    )


# ---- checks shared by the families -----------------------------------------------------


def array(ctx: InferCtx, shape: Shape, what: str, label: str | None = None) -> Shape:
    """``shape`` if it is an array; raises naming ``what`` otherwise."""
    if not shape.is_array:
        raise ctx.error(label, f"{what} must be an array; got {fmt(shape)}")
    return shape


def scalar(ctx: InferCtx, shape: Shape, what: str, label: str | None = None) -> Shape:
    """``shape`` if it is a rank-0 array."""
    if not shape.is_array or shape.rank != 0:
        raise ctx.error(label, f"{what} must be a scalar; got {fmt(shape)}")
    return shape


def token(ctx: InferCtx, shape: Shape, what: str, label: str | None = None) -> Shape:
    if not shape.is_token:
        raise ctx.error(label, f"{what} must be a token; got {fmt(shape)}")
    return shape


KIND_WORDS = {
    "pred": "pred",
    "int": "integer",
    "sint": "signed integer",
    "float": "floating-point",
    "complex": "complex",
}


def kind_of(etype: ElementType) -> str:
    """The category word of an element type used by the ``allowed`` tables."""
    if etype.is_pred:
        return "pred"
    if etype.is_signed:
        return "sint"
    if etype.is_unsigned:
        return "uint"
    if etype.is_float:
        return "float"
    if etype.is_complex:
        return "complex"
    return "other"


def type_allowed(etype: ElementType, allowed: str) -> bool:
    """Whether ``etype`` is in ``allowed``: ``|``-separated words pred/int/sint/float/complex/any."""
    words = allowed.split("|")
    if "any" in words:
        return etype.is_array
    kind = kind_of(etype)
    return kind in words or (kind in ("sint", "uint") and "int" in words)


def describe_allowed(allowed: str) -> str:
    words = [KIND_WORDS.get(w, w) for w in allowed.split("|")]
    return " or ".join(words)


def element_type_in(
    ctx: InferCtx, shape: Shape, allowed: str, what: str, label: str | None = None
) -> ElementType:
    """The element type of array ``shape`` if it is in ``allowed`` (see ``type_allowed``)."""
    array(ctx, shape, what, label)
    if not type_allowed(shape.element_type, allowed):
        raise ctx.error(
            label,
            f"{what} must have {describe_allowed(allowed)} element type; got {fmt(shape)}",
        )
    return shape.element_type


def same_element_type(
    ctx: InferCtx, shapes: Sequence[tuple[Shape, str]], label: str | None = None
) -> ElementType:
    """The common element type of ``(shape, what)`` pairs; raises naming the first mismatch."""
    first, first_what = shapes[0]
    for shape, what in shapes[1:]:
        if shape.element_type is not first.element_type:
            raise ctx.error(
                label,
                f"{first_what} and {what} must have the same element type; "
                f"got {fmt(first)} ({first_what}) and {fmt(shape)} ({what})",
            )
    return first.element_type


def dim_in_range(
    ctx: InferCtx,
    dim: int,
    rank: int,
    what: str,
    label: str | None = None,
    shape: Shape | None = None,
) -> int:
    """``dim`` if ``0 <= dim < rank``."""
    if not 0 <= dim < rank:
        of = f" of {fmt(shape)}" if shape is not None else ""
        raise ctx.error(label, f"{what} must be in [0, {rank}){of}; got {dim}")
    return dim


def dims_in_range(
    ctx: InferCtx,
    dims: Sequence[int],
    rank: int,
    what: str,
    label: str | None = None,
    shape: Shape | None = None,
) -> tuple[int, ...]:
    for d in dims:
        if not 0 <= d < rank:
            of = f" of {fmt(shape)}" if shape is not None else ""
            raise ctx.error(
                label, f"every entry of {what} must be in [0, {rank}){of}; got {fmt_ints(dims)}"
            )
    return tuple(dims)


def unique(ctx: InferCtx, dims: Sequence[int], what: str, label: str | None = None) -> None:
    if len(set(dims)) != len(dims):
        raise ctx.error(label, f"{what} must not repeat a dimension; got {fmt_ints(dims)}")


def sorted_unique(ctx: InferCtx, dims: Sequence[int], what: str, label: str | None = None) -> None:
    if any(a >= b for a, b in itertools.pairwise(dims)):
        raise ctx.error(
            label, f"{what} must be sorted in ascending order without repeats; got {fmt_ints(dims)}"
        )


def positive(ctx: InferCtx, values: Sequence[int], what: str, label: str | None = None) -> None:
    if any(v <= 0 for v in values):
        raise ctx.error(label, f"every entry of {what} must be positive; got {fmt_ints(values)}")


def array_shape(element_type: ElementType, dims: Sequence[int], like: Shape | None = None) -> Shape:
    """A static array shape; keeps the dynamic flags of ``like`` when its rank matches."""
    if like is not None and like.is_array and like.rank == len(dims):
        return Shape(element_type, tuple(dims), like.dynamic)
    return Shape.array(element_type, dims)


def same_dims(a: Shape, b: Shape) -> bool:
    """Equal dimension sizes (element types and layouts ignored)."""
    return a.dims == b.dims


def dims_agree(a: Shape, b: Shape) -> bool:
    """Same rank, and each dimension equal or dynamic on either side."""
    return a.rank == b.rank and all(
        x == y or dx or dy
        for x, y, dx, dy in zip(a.dims, b.dims, a.dynamic, b.dynamic, strict=True)
    )


def check_result_dims(ctx: InferCtx, inferred: Shape, label: str | None = None) -> Shape:
    """If the caller declared a result, its dims must equal ``inferred``'s (a dimension that is
    dynamic on either side is known only at run time: it agrees); returns the declared shape's
    element type on the inferred dims (dot/convolution preferred element type)."""
    if ctx.result is None:
        return inferred
    declared = ctx.result
    if not declared.is_array or not dims_agree(inferred, declared):
        raise ctx.error(
            label,
            f"the declared result {fmt(declared)} does not have the inferred dimensions "
            f"{fmt(inferred)}",
        )
    return inferred.with_element_type(declared.element_type)


def program_shape(comp: HloComputation) -> tuple[tuple[Shape, ...], Shape]:
    """(parameter shapes by number, root shape) of a computation."""
    return tuple(p.shape for p in comp.parameters), comp.root.shape


def fmt_program(comp: HloComputation) -> str:
    params, result = program_shape(comp)
    return "(" + ", ".join(fmt(p) for p in params) + f") -> {fmt(result)}"


def leaves(shape: Shape) -> tuple[Shape, ...]:
    """The elements of a tuple shape (one level), or the shape itself."""
    return shape.tuple_shapes if shape.is_tuple else (shape,)


def collate(shapes: Sequence[Shape]) -> Shape:
    """``Collate`` of OPS.md A.6: the shape itself for one, a tuple for several."""
    return shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)


def scalar_of(etype: ElementType) -> Shape:
    return Shape.scalar(etype)


U32_SCALAR = Shape.scalar(dtypes.U32)
S32_SCALAR = Shape.scalar(dtypes.S32)
TOKEN_SHAPE = Shape.token()
