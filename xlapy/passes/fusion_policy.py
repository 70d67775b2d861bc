"""What the fusion pass may fuse (``fusion.py``): the loop-fusible and expensive ops, the
class of a fusion node (a plain op or a fusion), and the indexing-map facts its decisions
rest on: the maps from a consumer's iteration space to its operands and the iteration
space that multi-output fusion must share. Graph editing lives in ``fusion_graph.py``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xlapy.indexing.affine import constant, dim
from xlapy.indexing.fusion import compose_operand_indexing, grouped_output_to_input
from xlapy.indexing.indexing_map import IndexingMap
from xlapy.indexing.interval import Interval
from xlapy.indexing.per_op import OperandIndexing, output_to_input
from xlapy.ir.attrs import FusionKind
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.passes.fusion_graph import outputs

# Data movement that a loop emitter computes per output element (elementwise ops are added
# by their ELEMENTWISE trait). Constants only up to a size (``FusionLimits``).
LOOP_OPS = frozenset(
    {
        Opcode.BITCAST,
        Opcode.BITCAST_CONVERT,
        Opcode.BROADCAST,
        Opcode.CONCATENATE,
        Opcode.CONSTANT,
        Opcode.DYNAMIC_SLICE,
        Opcode.IOTA,
        Opcode.PAD,
        Opcode.REDUCE_WINDOW,
        Opcode.RESHAPE,
        Opcode.REVERSE,
        Opcode.SLICE,
        Opcode.TRANSPOSE,
    }
)

# XLA's InstructionFusion::IsExpensive, restricted to the loop-fusible ops (the rest are never
# producers here), plus xlapy's extension special functions.
EXPENSIVE = frozenset(
    {
        Opcode.ACOS,
        Opcode.ACOSH,
        Opcode.ASIN,
        Opcode.ASINH,
        Opcode.ATAN,
        Opcode.ATAN2,
        Opcode.ATANH,
        Opcode.BESSEL_I1E,
        Opcode.CBRT,
        Opcode.COSH,
        Opcode.DIGAMMA,
        Opcode.ERF,
        Opcode.ERF_INV,
        Opcode.ERFC,
        Opcode.EXP,
        Opcode.EXPM1,
        Opcode.IGAMMA,
        Opcode.IGAMMAC,
        Opcode.LGAMMA,
        Opcode.LOG,
        Opcode.LOG1P,
        Opcode.LOGISTIC,
        Opcode.POLYGAMMA,
        Opcode.POWER,
        Opcode.REDUCE,
        Opcode.REDUCE_WINDOW,
        Opcode.RSQRT,
        Opcode.SINH,
        Opcode.SQRT,
        Opcode.TAN,
        Opcode.TANH,
        Opcode.ZETA,
    }
)
# Cheap on reals, expensive on complex numbers (XLA).
_COMPLEX_EXPENSIVE = frozenset({Opcode.ABS, Opcode.COS, Opcode.SIGN, Opcode.SIN})
_DIVISIONS = frozenset({Opcode.DIVIDE, Opcode.REMAINDER})


class NodeKind(enum.Enum):
    """What a node of the graph is to fusion: a loop (elementwise and data movement), an
    input fusion (one or more reduces as outputs), or opaque (left alone)."""

    LOOP = "loop"
    INPUT = "input"
    OPAQUE = "opaque"

    @property
    def fusion_kind(self) -> FusionKind:
        return FusionKind.INPUT if self is NodeKind.INPUT else FusionKind.LOOP


@dataclass(frozen=True)
class FusionLimits:
    """The size bounds of the pass's options (see ``Fusion``)."""

    max_instructions: int
    max_parameters: int
    max_constant_elements: int


MAX_WINDOW_CELLS = 64
"""Largest reduce-window a loop fusion computes inline, one window per output element."""


def inline_window(instr: HloInstruction) -> bool:
    """True for a reduce-window a fusion computes inline, one window per output element
    (pooling): at most ``MAX_WINDOW_CELLS`` cells, no window reversal, and not a scan
    (``is_scan``)."""
    window = instr.attrs.window
    return (
        math.prod(d.size for d in window.dimensions) <= MAX_WINDOW_CELLS
        and not any(d.window_reversal for d in window.dimensions)
        and not is_scan(instr)
    )


def _static_arrays(instr: HloInstruction) -> bool:
    shapes = [instr.shape, *(o.shape for o in instr.operands)]
    leaves = [leaf for s in shapes for leaf in s.leaves()]
    return all(s.is_array and s.is_static for s in leaves)


def is_loop_op(instr: HloInstruction, limits: FusionLimits) -> bool:
    """Elementwise ops and the ops of ``LOOP_OPS`` on static arrays with elements (a
    constant only up to ``max_constant_elements``; a reduce-window of one input computed
    inline, ``inline_window``); never a side-effecting op."""
    traits = instr.opdef.traits
    if Trait.SIDE_EFFECTING in traits or not _static_arrays(instr):
        return False
    if instr.shape.is_tuple or instr.shape.num_elements == 0:
        return False
    if instr.opcode is Opcode.CONSTANT:
        return instr.shape.num_elements <= limits.max_constant_elements
    if instr.opcode is Opcode.REDUCE_WINDOW:
        return len(instr.operands) == 2 and inline_window(instr)
    return instr.opcode in LOOP_OPS or Trait.ELEMENTWISE in traits


def is_scan(instr: HloInstruction) -> bool:
    """A cumulative reduce-window (cumsum...) on static arrays: its kernel is a linear scan
    (``codegen/scan_emitter.py``) that may read fused producers, but it is never fused into
    a consumer, which would reduce one whole window per element it reads."""
    if instr.opcode is not Opcode.REDUCE_WINDOW or not _static_arrays(instr):
        return False
    return instr.attrs.window.cumulative_axis(instr.operands[0].shape.dims) is not None


def is_expensive(instr: HloInstruction) -> bool:
    """XLA's rule: transcendental functions, power, reductions and float division are
    expensive; integer division by a constant (or a broadcast constant) is not; abs, cos,
    sign and sin only on complex numbers. A fusion is expensive when any op in it is."""
    if instr.opcode is Opcode.FUSION:
        return any(is_expensive(i) for i in instr.attrs.calls.instructions)
    if instr.opcode in EXPENSIVE:
        return True
    etype = instr.shape.element_type if instr.shape.is_array else None
    if instr.opcode in _COMPLEX_EXPENSIVE:
        return etype is not None and etype.is_complex
    if instr.opcode in _DIVISIONS:
        if etype is None or not etype.is_integer:
            return True
        divisor = instr.operands[1]
        if divisor.opcode is Opcode.BROADCAST:
            divisor = divisor.operands[0]
        return not (divisor.opcode is Opcode.CONSTANT and divisor.shape.num_elements == 1)
    return False


def node_kind(instr: HloInstruction, limits: FusionLimits, shared: set[int]) -> NodeKind:
    """LOOP for a loop op or a fusion made of loop ops only; INPUT for a reduce (on static
    arrays), a scan (``is_scan``) or a fusion of loop ops whose outputs include reduces;
    OPAQUE otherwise (a fusion holding a scan, a
    kOutput/kCustom fusion, one with another op inside, a reduce that is not an output, or
    a fused computation called from elsewhere too: ``shared``)."""
    if instr.opcode is Opcode.REDUCE:
        return NodeKind.INPUT if _static_arrays(instr) else NodeKind.OPAQUE
    if is_scan(instr):
        return NodeKind.INPUT  # once fused with a producer, the fusion is opaque
    if instr.opcode is not Opcode.FUSION:
        return NodeKind.LOOP if is_loop_op(instr, limits) else NodeKind.OPAQUE
    comp = instr.attrs.calls
    if instr.attrs.kind not in (FusionKind.LOOP, FusionKind.INPUT) or id(comp) in shared:
        return NodeKind.OPAQUE
    results = outputs(comp)
    root = comp.root
    if root.opcode is Opcode.TUPLE and any(o.shape.is_tuple for o in results):
        return NodeKind.OPAQUE
    kind = NodeKind.LOOP
    any_constant = FusionLimits(0, 0, 1 << 62)  # constants already inside may stay
    for i in comp.instructions:
        if i.opcode is Opcode.PARAMETER or (i is root and i.opcode is Opcode.TUPLE):
            if i.opcode is Opcode.PARAMETER and any(i is o for o in results):
                return NodeKind.OPAQUE
            continue
        if i.opcode is Opcode.REDUCE and any(i is o for o in results) and _static_arrays(i):
            kind = NodeKind.INPUT
        elif not is_loop_op(i, any_constant) or i.control_predecessors:
            return NodeKind.OPAQUE
    return kind


def instruction_count(instr: HloInstruction) -> int:
    """Instructions a node brings into a fusion (parameters and tuple roots not counted)."""
    if instr.opcode is not Opcode.FUSION:
        return 1
    comp = instr.attrs.calls
    return sum(
        1
        for i in comp.instructions
        if i.opcode is not Opcode.PARAMETER and not (i is comp.root and i.opcode is Opcode.TUPLE)
    )


# ---- indexing ------------------------------------------------------------------------------


def _iteration_roots(
    comp: HloComputation,
) -> list[tuple[HloInstruction, OperandIndexing | None]]:
    """Where each output's loop runs: a reduce iterates over its inputs (its inits are read
    once per output element: a scalar map from the input's index); another op over itself."""
    roots: list[tuple[HloInstruction, OperandIndexing | None]] = []
    for out in outputs(comp):
        if out.opcode is not Opcode.REDUCE:
            roots.append((out, None))
            continue
        n = len(out.operands) // 2
        dims = list(out.operands[0].shape.dims)
        roots.extend((x, None) for x in out.operands[:n])
        scalar = OperandIndexing(IndexingMap.scalar(dims))
        roots.extend((init, scalar) for init in out.operands[n:])
    return roots


def iteration_maps(instr: HloInstruction) -> list[list[OperandIndexing]]:
    """For every operand of a node, the distinct maps from its iteration space (a reduce's
    input index, another op's output index) to that operand's elements."""
    result: list[list[OperandIndexing]] = [[] for _ in instr.operands]
    if instr.opcode is Opcode.FUSION:
        comp = instr.attrs.calls
        position = {id(p): p.parameter_number for p in comp.parameters}
        for root, prefix in _iteration_roots(comp):
            for reached, group in grouped_output_to_input(comp, root).items():
                k = position.get(id(reached))
                if k is None:
                    continue
                for m in group:
                    if prefix is not None:
                        m = compose_operand_indexing(prefix, m).simplify()
                    if m not in result[k]:
                        result[k].append(m)
        return result
    if instr.opcode is Opcode.REDUCE:
        n = len(instr.operands) // 2
        dims = list(instr.operands[0].shape.dims)
        for k in range(len(instr.operands)):
            access = IndexingMap.identity(dims) if k < n else IndexingMap.scalar(dims)
            result[k].append(OperandIndexing(access))
        return result
    indexing = output_to_input(instr)
    for k, group in enumerate(indexing.maps):
        for m in group:
            simplified = m.simplify()
            if simplified not in result[k]:
                result[k].append(simplified)
    return result


ReadMaps = dict[int, list[OperandIndexing]]
"""The maps by which a node reads each operand, keyed by the operand's ``id``."""


def access_key(indexing: OperandIndexing) -> tuple[IndexingMap, tuple[IndexingMap, ...]]:
    """What an access reads: its map and its runtime variables' maps (not which copy of
    the index instruction they come from, which fusing changes)."""
    return indexing.map, tuple(rt.map for rt in indexing.rt_vars)


def _add(group: list[OperandIndexing], indexing: OperandIndexing) -> None:
    """Adds an access to ``group`` unless it is empty or already there."""
    if indexing.map.is_undefined or not indexing.map.is_known_empty:
        key = access_key(indexing)
        if all(access_key(m) != key for m in group):
            group.append(indexing)


def by_operand(instr: HloInstruction, maps: Sequence[Sequence[OperandIndexing]]) -> ReadMaps:
    """Per-position maps (``iteration_maps``) merged per operand instruction."""
    result: ReadMaps = {}
    for operand, group in zip(instr.operands, maps, strict=True):
        merged = result.setdefault(id(operand), [])
        for m in group:
            _add(merged, m)
    return result


def fused_reads(consumer: ReadMaps, producer: HloInstruction, own: ReadMaps) -> ReadMaps:
    """The consumer's maps once ``producer`` (read by ``own`` maps) is fused into it: the
    maps to the producer composed with the producer's maps to its operands, as
    ``grouped_output_to_input`` composes them through the fused computation."""
    result = {k: list(group) for k, group in consumer.items() if k != id(producer)}
    for first in consumer.get(id(producer), []):
        for operand in producer.operands:
            merged = result.setdefault(id(operand), [])
            for second in own[id(operand)]:
                _add(merged, compose_operand_indexing(first, second).simplify())
    return result


def union(first: ReadMaps, second: ReadMaps) -> ReadMaps:
    """The maps of a node that reads like both ``first`` and ``second`` (merged outputs)."""
    result = {k: list(group) for k, group in first.items()}
    for k, group in second.items():
        merged = result.setdefault(k, [])
        for m in group:
            _add(merged, m)
    return result


def all_defined(groups: Iterable[Sequence[OperandIndexing]]) -> bool:
    return all(not m.map.is_undefined for group in groups for m in group)


def is_identity(indexing: OperandIndexing, dims: Sequence[int]) -> bool:
    """``(d0, ..., dn) -> (d0, ..., dn)`` over exactly ``dims`` (no symbols, no constraints;
    a dimension of size 1 may read as the constant 0, as the simplifier writes it)."""
    m = indexing.map
    if m.is_undefined or m.num_symbols or m.constraints or m.num_dims != len(dims):
        return False
    if m.num_results != len(dims):
        return False
    for i, (size, result) in enumerate(zip(dims, m.results, strict=True)):
        if m.dim_bound(i) != Interval(0, size - 1):
            return False
        if result != dim(i) and not (size == 1 and result == constant(0)):
            return False
    return True


@dataclass(frozen=True)
class IterationSpace:
    """The index space a fusion's loop runs over: ``dims``, and the reduced dimensions of
    its reduces (None for a loop fusion). Multi-output fusion merges equal spaces only."""

    dims: tuple[int, ...]
    reduced: tuple[int, ...] | None

    def compatible(self, other: IterationSpace) -> bool:
        """Same loop; two sets of reduces must reduce the same dimensions."""
        if self.dims != other.dims:
            return False
        return self.reduced is None or other.reduced is None or self.reduced == other.reduced


def iteration_space(instr: HloInstruction) -> IterationSpace | None:
    """The node's iteration space; None when its outputs loop over different spaces."""
    results = outputs(instr.attrs.calls) if instr.opcode is Opcode.FUSION else [instr]
    spaces: set[tuple[tuple[int, ...], tuple[int, ...] | None]] = set()
    for out in results:
        if out.opcode is Opcode.REDUCE:
            spaces.add((out.operands[0].shape.dims, tuple(sorted(out.attrs.dimensions))))
        else:
            spaces.add((out.shape.dims, None))
    dims = {d for d, _ in spaces}
    reduced = {r for _, r in spaces if r is not None}
    if len(dims) != 1 or len(reduced) > 1:
        return None
    return IterationSpace(dims.pop(), reduced.pop() if reduced else None)
