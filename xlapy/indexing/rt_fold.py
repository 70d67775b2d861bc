"""Runtime variables with a known producer are replaced by the value they read (XLA's
``OptimizeRTVar``).

A runtime variable ``rt_k`` reads ``source`` at ``map(x)`` and is clamped into its bounds
(a gather's or dynamic-slice's start index). When the element read is an affine function of
``x`` the variable becomes that function:

* a constant read at a constant index (or, in the default mode, any index of a constant
  whose elements are all equal) is its value;
* an iota read at ``(e_0, ..., e_{n-1})`` is ``e_{iota_dimension}``;
* bitcast, broadcast, reshape, reverse, slice and transpose (and copy, in the default mode)
  move the read to their operand through their own output->input map;
* negate, add, subtract, multiply by a known constant and divide by a positive constant
  combine the values of both operands (each must be known).

The default mode replaces a variable only when nothing changes: every intermediate value fits
its element type (no wrap-around), a division's dividend is not negative (HLO rounds toward
zero, ``floordiv`` down) and the value stays inside the variable's bounds, so the clamp is a
no-op. With ``match_xla`` the value replaces the variable as XLA does, without those checks,
except that a constant read directly must be inside the bounds (XLA keeps that variable).
"""

from __future__ import annotations

from collections.abc import Callable

from xlapy.dtypes import ElementType
from xlapy.indexing.affine import AffineExpr, constant
from xlapy.indexing.indexing_map import IndexingMap, compose
from xlapy.indexing.interval import Interval
from xlapy.indexing.operand_indexing import OperandIndexing, RuntimeVar
from xlapy.indexing.ops_dynamic import RtMap
from xlapy.indexing.simplify import RangeEvaluator
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

MAX_DEPTH = 64
"""Producers followed from the variable's source at most (deeper chains stay variables)."""

MAX_VISITS = 512
"""(instruction, index map) pairs evaluated per variable at most; a larger walk gives up
(each pair is evaluated once, so ``add(x, x)`` chains stay linear)."""

XLA_TRANSFORMS = frozenset(
    {
        Opcode.BITCAST,
        Opcode.BROADCAST,
        Opcode.RESHAPE,
        Opcode.REVERSE,
        Opcode.SLICE,
        Opcode.TRANSPOSE,
    }
)
"""Ops that only move elements, followed by XLA's ``OptimizeRTVar``."""


def fold_runtime_vars(instr: HloInstruction, rt: RtMap, *, match_xla: bool) -> OperandIndexing:
    """Attaches ``instr``'s operands to the runtime variables of ``rt`` and replaces the
    variables whose value is known (see the module docstring for the rule of each mode)."""
    m = rt.map
    replacements: dict[int, AffineExpr] = {}
    kept: list[RuntimeVar] = []
    for k, spec in enumerate(rt.rt_specs):
        source = instr.operands[spec.operand]
        value = known_value(source, spec.map, m.rt_vars[k].bounds, match_xla=match_xla)
        if value is None:
            kept.append(RuntimeVar(source, spec.map))
        else:
            replacements[k] = value
    if replacements:
        m = m.with_rt_vars_replaced(replacements)
    return OperandIndexing(m, tuple(kept))


def known_value(
    source: HloInstruction, at: IndexingMap, bounds: Interval, *, match_xla: bool
) -> AffineExpr | None:
    """The value of ``source`` at ``at(x)`` as an affine expression of the dims ``x`` when it
    may replace a runtime variable clamped into ``bounds``; None otherwise."""
    if at.is_undefined:
        return None
    value = _Walk(match_xla).value(source, at, 0)
    if value is None or value.used_symbols():
        return None
    if match_xla and source.opcode is not Opcode.CONSTANT:
        return value
    return value if bounds.contains(RangeEvaluator(at).range(value)) else None


def _type_range(element_type: ElementType) -> Interval:
    bits = element_type.bits
    if element_type.is_unsigned:
        return Interval(0, (1 << bits) - 1)
    return Interval(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


class _Walk:
    """Follows producers from a runtime variable's source (one walk per variable)."""

    def __init__(self, match_xla: bool) -> None:
        self.match_xla = match_xla
        self.transforms = XLA_TRANSFORMS if match_xla else XLA_TRANSFORMS | {Opcode.COPY}
        self.seen: dict[tuple[int, IndexingMap], AffineExpr | None] = {}

    def value(self, source: HloInstruction, at: IndexingMap, depth: int) -> AffineExpr | None:
        """``source``'s element at ``at(x)`` in terms of ``x``; in the default mode only
        when every value on the way fits its element type."""
        key = (id(source), at)
        if key in self.seen:
            return self.seen[key]
        if depth > MAX_DEPTH or len(self.seen) >= MAX_VISITS:
            return None
        self.seen[key] = value = self._evaluate(source, at, depth)
        return value

    def _evaluate(self, source: HloInstruction, at: IndexingMap, depth: int) -> AffineExpr | None:
        shape = source.shape
        if not shape.is_array or not shape.element_type.is_integer:
            return None
        rule = _RULES.get(source.opcode)
        if source.opcode in self.transforms:
            value = self._moved(source, at, depth)
        elif rule is not None:
            value = rule(self, source, at, depth)
        else:
            return None
        if value is None or self.match_xla:
            return value
        fits = _type_range(shape.element_type).contains(RangeEvaluator(at).range(value))
        return value if fits else None

    def _moved(self, source: HloInstruction, at: IndexingMap, depth: int) -> AffineExpr | None:
        from xlapy.indexing.per_op import output_to_input  # per_op folds through this module

        group = output_to_input(source).maps[0]
        if len(group) != 1 or group[0].rt_vars:
            return None
        step = group[0].map
        if step.is_undefined or step.num_symbols:
            return None
        return self.value(source.operands[0], compose(at, step).simplify(), depth + 1)

    def operands(
        self, source: HloInstruction, at: IndexingMap, depth: int
    ) -> list[AffineExpr] | None:
        values = [self.value(o, at, depth + 1) for o in source.operands]
        if any(v is None for v in values) or any(
            o.shape.dims != source.shape.dims for o in source.operands
        ):
            return None
        return [v for v in values if v is not None]


def _constant(
    walk: _Walk, source: HloInstruction, at: IndexingMap, depth: int
) -> AffineExpr | None:
    array = source.attrs.literal.to_numpy()
    if all(e.is_constant for e in at.results):
        index = tuple(e.value for e in at.results)
        if all(0 <= i < n for i, n in zip(index, array.shape, strict=True)):
            return constant(int(array[index]))
        return None
    if not walk.match_xla and array.size and bool((array == array.flat[0]).all()):
        return constant(int(array.flat[0]))
    return None


def _iota(walk: _Walk, source: HloInstruction, at: IndexingMap, depth: int) -> AffineExpr | None:
    return at.results[int(source.attrs.iota_dimension)]


def _negate(walk: _Walk, source: HloInstruction, at: IndexingMap, depth: int) -> AffineExpr | None:
    values = walk.operands(source, at, depth)
    return None if values is None else -values[0]


def _arithmetic(
    walk: _Walk, source: HloInstruction, at: IndexingMap, depth: int
) -> AffineExpr | None:
    values = walk.operands(source, at, depth)
    if values is None:
        return None
    a, b = values
    opcode = source.opcode
    if opcode is Opcode.ADD:
        return a + b
    if opcode is Opcode.SUBTRACT:
        return a - b
    if opcode is Opcode.MULTIPLY:
        return a * b if a.is_constant or b.is_constant else None
    if not b.is_constant or b.value <= 0:
        return None
    if not walk.match_xla and RangeEvaluator(at).range(a).lower < 0:
        return None
    return a // b


_Rule = Callable[[_Walk, HloInstruction, IndexingMap, int], AffineExpr | None]
_RULES: dict[Opcode, _Rule] = {
    Opcode.CONSTANT: _constant,
    Opcode.IOTA: _iota,
    Opcode.NEGATE: _negate,
    Opcode.ADD: _arithmetic,
    Opcode.SUBTRACT: _arithmetic,
    Opcode.MULTIPLY: _arithmetic,
    Opcode.DIVIDE: _arithmetic,
}
