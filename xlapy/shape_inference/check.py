"""Load-time type check of one instruction: its op's shape rules applied to its operands and
attributes, and the result it declares compared with the one they give.

The HLO and StableHLO front ends call ``check_instruction`` on every instruction they build,
so a wrongly typed program is rejected at load time naming the op, the rule and the location
instead of failing deep inside an evaluator. Unbounded (``?``) dimensions are checked as a
large dynamic bound (their sizes are known only at run time), except in ops that call
computations; a wrong operand count is left to the structural verifier (``ir.verifier``),
which callers run next.
"""

from __future__ import annotations

import enum

from xlapy.errors import InvalidArgument
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opdefs import VARIADIC
from xlapy.shape import UNBOUNDED, Shape
from xlapy.shape_inference.common import fmt, infer_shape


def check_instruction(instr: HloInstruction) -> None:
    """Raises InvalidArgument when ``instr`` breaks its op's shape rules or declares a result
    that its operands and attributes do not give.

    The message reads ``<op> %<name> [<label>]: <rule>; got <values>``; a declared result that
    disagrees reads ``... declares result <shape> but its operands give <shape>``.
    """
    operand_shapes = [o.shape for o in instr.operands]
    declared = instr.shape
    key = _key(instr, operand_shapes)
    if key is not None and key in _PASSED:
        return
    if _unbounded(declared) or any(_unbounded(s) for s in operand_shapes):
        if instr.called_computations():
            return  # the callees' signatures hold unbounded dims too
        # Unbounded sizes are checked as a large dynamic bound: the element types, ranks and
        # every rule that does not depend on the size still hold.
        operand_shapes = [_bounded(s) for s in operand_shapes]
        declared = _bounded(declared)
    arity = instr.opdef.arity
    if arity != VARIADIC and len(operand_shapes) != arity:
        return  # structural: the verifier's [arity] rule reports it
    try:
        inferred = infer_shape(
            instr.opcode, operand_shapes, instr.attrs, result=declared, name=instr.name
        )
        if not agrees(inferred, declared):
            operands = ", ".join(fmt(s) for s in operand_shapes) or "none"
            raise InvalidArgument(
                f"{instr.opcode.value} %{instr.name}: declares result {fmt(declared)} but its "
                f"operands and attributes give {fmt(inferred)}; operands: {operands}"
            )
    except InvalidArgument as err:
        if declared is instr.shape and all(
            a is o.shape for a, o in zip(operand_shapes, instr.operands, strict=True)
        ):
            raise
        raise InvalidArgument(str(err).replace(f"<={_BOUND}", "?")) from None
    if key is not None:
        if len(_PASSED) >= _MAX_PASSED:
            _PASSED.clear()
        _PASSED.add(key)


_PASSED: set[tuple[object, ...]] = set()
"""Instructions that passed, as (opcode, result, operand shapes, attributes): the rules are a
function of these alone, and a program repeats a few hundred kinds of instruction thousands
of times (every ``add`` of two f32[8,64,128]...)."""
_MAX_PASSED = 1 << 16


def _key(instr: HloInstruction, operand_shapes: list[Shape]) -> tuple[object, ...] | None:
    """The memo key of ``instr``, or None when an attribute is not a plain value (a called
    computation, a literal: compared by identity or costly to hash)."""
    attrs = tuple(instr.attrs.items())
    if not all(_plain(value) for _, value in attrs):
        return None
    return (instr.opcode, instr.shape, tuple(operand_shapes), attrs)


def _plain(value: object) -> bool:
    """An int, float, string or enum, or a tuple of them (nested)."""
    if isinstance(value, int | float | str | enum.Enum):
        return True
    return isinstance(value, tuple) and all(_plain(v) for v in value)


def agrees(inferred: Shape, declared: Shape) -> bool:
    """Same element types and ranks (tuples element by element); a dimension agrees when the
    sizes are equal or either side is dynamic (its size is known only at run time)."""
    if inferred.is_tuple or declared.is_tuple:
        return (
            inferred.is_tuple
            and declared.is_tuple
            and len(inferred.tuple_shapes) == len(declared.tuple_shapes)
            and all(
                agrees(a, b)
                for a, b in zip(inferred.tuple_shapes, declared.tuple_shapes, strict=True)
            )
        )
    if inferred.element_type is not declared.element_type:
        return False
    if not inferred.is_array:
        return True
    if inferred.rank != declared.rank:
        return False
    return all(
        a == b or dyn_a or dyn_b
        for a, b, dyn_a, dyn_b in zip(
            inferred.dims, declared.dims, inferred.dynamic, declared.dynamic, strict=True
        )
    )


_BOUND = 1 << 20
"""The size an unbounded (``?``) dimension is checked at."""


def _bounded(shape: Shape) -> Shape:
    """``shape`` with every unbounded dimension made dynamic with bound ``_BOUND``."""
    if shape.is_tuple:
        return Shape.tuple_of([_bounded(s) for s in shape.tuple_shapes])
    if not _unbounded(shape):
        return shape
    return Shape.array(
        shape.element_type,
        [_BOUND if d == UNBOUNDED else d for d in shape.dims],
        dynamic=[d == UNBOUNDED or dyn for d, dyn in zip(shape.dims, shape.dynamic, strict=True)],
    )


def _unbounded(shape: Shape) -> bool:
    if shape.is_tuple:
        return any(_unbounded(s) for s in shape.tuple_shapes)
    return shape.is_array and UNBOUNDED in shape.dims
