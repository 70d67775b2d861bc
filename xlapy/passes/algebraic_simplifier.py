"""``algebraic-simplifier`` (the exact subset of XLA's AlgebraicSimplifier): identities that
hold bit for bit, as rule lists for the rewrite driver.

Never a rewrite that can change a float result: no reassociation, no ``x*0 -> 0`` (NaN, inf,
-0), no ``x+0 -> x`` for floats (``-0.0 + 0.0`` is ``+0.0``). ``x*1 -> x``, ``x/1 -> x`` and
``x-(+0) -> x`` are applied to floats as XLA does: exact for every value the interpreter
computes by default (NaNs keep their payload); only a signalling NaN or, with
``flush_denormals``, a denormal ``x`` differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from xlapy.ir.attrs import SliceDimension, SliceSpec
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Trait
from xlapy.literal import bits_view
from xlapy.passes.pass_manager import Pass, register_pass
from xlapy.passes.rewrite import Match, Pat, Rule, apply_rules, constant_array, splat_value

X = Pat.var("x")


def _integral(instr: HloInstruction) -> bool:
    etype = instr.shape.element_type
    return instr.shape.is_array and (etype.is_integer or etype.is_pred)


def _real(instr: HloInstruction) -> bool:
    """Integer, pred or real float (x*1 is not exact for complex: inf*0 in the cross terms)."""
    return instr.shape.is_array and not instr.shape.element_type.is_complex


def _all_ones(instr: HloInstruction) -> bool:
    """A splat whose bits are all set (``true``, ``-1``, ``0xFF..``)."""
    value = splat_value(instr)
    if value is None or not _integral(instr):
        return False
    if value.dtype == np.bool_:
        return bool(value)
    bits = instr.shape.element_type.bits
    return int(bits_view(value.reshape(1))[0]) & ((1 << bits) - 1) == (1 << bits) - 1


def _identity(m: Match) -> HloInstruction:
    return m["x"]


# ---- arithmetic and bitwise identities -----------------------------------------------------

arithmetic_rules = [
    Rule("fold_add_zero", Pat(Opcode.ADD, X, Pat.splat(0, integer_only=True)), _identity),
    Rule("fold_sub_zero", Pat(Opcode.SUBTRACT, X, Pat.splat(0)), _identity),
    Rule(
        "fold_mul_one",
        Pat(Opcode.MULTIPLY, Pat.var("x", where=_real), Pat.splat(1)),
        _identity,
    ),
    Rule(
        "fold_div_one",
        Pat(Opcode.DIVIDE, Pat.var("x", where=_real), Pat.splat(1)),
        _identity,
    ),
    Rule("fold_or_zero", Pat(Opcode.OR, X, Pat.splat(0, integer_only=True)), _identity),
    Rule("fold_xor_zero", Pat(Opcode.XOR, X, Pat.splat(0, integer_only=True)), _identity),
    Rule(
        "fold_and_all_ones",
        Pat(Opcode.AND, X, Pat.op((Opcode.CONSTANT, Opcode.BROADCAST), where=_all_ones)),
        _identity,
    ),
    Rule(
        "fold_shift_by_zero",
        Pat(
            (Opcode.SHIFT_LEFT, Opcode.SHIFT_RIGHT_ARITHMETIC, Opcode.SHIFT_RIGHT_LOGICAL),
            X,
            Pat.splat(0, integer_only=True),
        ),
        _identity,
    ),
    Rule("fold_not_not", Pat(Opcode.NOT, Pat(Opcode.NOT, X)), _identity),
    Rule(
        "fold_negate_negate",
        Pat(Opcode.NEGATE, Pat(Opcode.NEGATE, Pat.var("x", where=_integral))),
        _identity,
    ),
]


# ---- no-op data movement --------------------------------------------------------------------


def _same_shape(m: Match) -> HloInstruction | None:
    """``x`` when the matched op returns it unchanged (same dims, type and layout)."""
    x = m["x"]
    return x if x.shape == m.instr.shape else None


def _is_identity_permutation(instr: HloInstruction) -> bool:
    return tuple(instr.attrs.dimensions) == tuple(range(instr.shape.rank))


def _is_full_slice(instr: HloInstruction) -> bool:
    dims = instr.attrs.slice.dimensions
    return all(
        d.start == 0 and d.stride == 1 and d.limit == n
        for d, n in zip(dims, instr.operands[0].shape.dims, strict=True)
    )


def _is_zero_padding(instr: HloInstruction) -> bool:
    return all(
        d.low == 0 and d.high == 0 and d.interior == 0 for d in instr.attrs.padding.dimensions
    )


def _reverses_nothing(instr: HloInstruction) -> bool:
    """Every reversed dimension has at most one element (an unbounded ``?`` has size -1
    here and may have many)."""
    dims = instr.operands[0].shape.dims
    return all(0 <= dims[d] <= 1 for d in instr.attrs.dimensions)


def _has_full_update(m: Match) -> HloInstruction | None:
    """dynamic-update-slice whose update is as large as the operand: every start index
    clamps to 0, so the result is the update."""
    update = m.instr.operands[1]
    return update if update.shape.dims == m.instr.shape.dims else None


noop_rules = [
    Rule("remove_noop_reshape", Pat(Opcode.RESHAPE, X), _same_shape),
    Rule("remove_noop_copy", Pat(Opcode.COPY, X), _same_shape),
    Rule("remove_noop_convert", Pat(Opcode.CONVERT, X), _same_shape),
    Rule(
        "remove_noop_transpose",
        Pat(Opcode.TRANSPOSE, X, where=_is_identity_permutation),
        _same_shape,
    ),
    Rule(
        "remove_noop_broadcast",
        Pat(Opcode.BROADCAST, X, where=_is_identity_permutation),
        _same_shape,
    ),
    Rule("remove_noop_slice", Pat(Opcode.SLICE, X, where=_is_full_slice), _same_shape),
    Rule(
        "remove_noop_pad",
        Pat(Opcode.PAD, X, Pat.var("padding_value"), where=_is_zero_padding),
        _same_shape,
    ),
    Rule("remove_noop_reverse", Pat(Opcode.REVERSE, X, where=_reverses_nothing), _same_shape),
    Rule("remove_single_concatenate", Pat(Opcode.CONCATENATE, X), _same_shape),
    Rule(
        "fold_full_dynamic_update_slice",
        Pat.op(Opcode.DYNAMIC_UPDATE_SLICE),
        _has_full_update,
    ),
]


# ---- chains of data movement collapsed ------------------------------------------------------


def merge_reshapes(m: Match) -> HloInstruction:
    """reshape(reshape(x)) -> reshape(x): a reshape depends only on the row-major order."""
    return m.make(Opcode.RESHAPE, [m["x"]], shape=m.instr.shape)


def merge_transposes(m: Match) -> HloInstruction:
    """transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]])."""
    inner = tuple(m["inner"].attrs.dimensions)
    outer = tuple(m.instr.attrs.dimensions)
    return m.make(Opcode.TRANSPOSE, [m["x"]], {"dimensions": tuple(inner[i] for i in outer)})


def merge_broadcasts(m: Match) -> HloInstruction:
    """broadcast(broadcast(x, d1), d2) -> broadcast(x, d2[d1[i]]): x's dim i lands on the
    middle dim d1[i], which lands on d2[d1[i]]."""
    inner = tuple(m["inner"].attrs.dimensions)
    outer = tuple(m.instr.attrs.dimensions)
    return m.make(
        Opcode.BROADCAST,
        [m["x"]],
        {"dimensions": tuple(outer[i] for i in inner)},
        shape=m.instr.shape,
    )


def merge_slices(m: Match) -> HloInstruction:
    """slice(slice(x)): element k of the outer slice is x[s1 + (s2 + k*t2)*t1], so the merged
    slice starts at s1 + s2*t1 with stride t1*t2. An empty result dimension slices [0:0]
    (s1 + s2*t1 may lie past x's end: ``[0:1:3]`` then ``[1:1]`` of a dimension of 2 would
    start at 3, which the verifier refuses)."""
    inner = m["inner"].attrs.slice.dimensions
    outer = m.instr.attrs.slice.dimensions
    dims = []
    for a, b, n in zip(inner, outer, m.instr.shape.dims, strict=True):
        if not n:
            dims.append(SliceDimension(0, 0, 1))
            continue
        start = a.start + b.start * a.stride
        stride = a.stride * b.stride
        dims.append(SliceDimension(start, start + (n - 1) * stride + 1, stride))
    return m.make(Opcode.SLICE, [m["x"]], {"slice": SliceSpec(tuple(dims))})


def merge_reverses(m: Match) -> HloInstruction:
    """reverse(reverse(x, a), b) -> reverse(x, a xor b) (x itself when a == b)."""
    dims = set(m["inner"].attrs.dimensions) ^ set(m.instr.attrs.dimensions)
    if not dims:
        return m["x"]
    return m.make(Opcode.REVERSE, [m["x"]], {"dimensions": tuple(sorted(dims))})


def _is_scalar(instr: HloInstruction) -> bool:
    return instr.shape.is_array and instr.shape.rank == 0


def broadcast_scalar_directly(m: Match) -> HloInstruction:
    """reshape/transpose/slice/reverse/broadcast of a broadcast scalar is that scalar
    broadcast to the result shape (every element is the scalar)."""
    return m.make(Opcode.BROADCAST, [m["x"]], {"dimensions": ()}, shape=m.instr.shape)


def _widens(instr: HloInstruction) -> bool:
    """convert(x) to an integer type that holds every value of x's integer type."""
    source = instr.operands[0].shape.element_type
    target = instr.shape.element_type
    if not (source.is_integer and target.is_integer):
        return False
    if source.is_signed and not target.is_signed:
        return False
    extra = 1 if target.is_signed and not source.is_signed else 0
    return target.bits >= source.bits + extra


def fold_convert_roundtrip(m: Match) -> HloInstruction | None:
    """convert(convert(x, wider integer type), x's type) -> x."""
    x = m["x"]
    return x if x.shape.element_type is m.instr.shape.element_type else None


def transpose_of_dot(m: Match) -> HloInstruction | None:
    """transpose(dot(a, b)) -> dot(b, a) when the transpose puts b's free dimensions before
    a's (batch dimensions first, in place) and the transpose is the dot's only user (XLA's
    rule): the product is then computed in the layout its user reads, instead of being read
    through a transpose. JAX's gradients end in such transposes (``x.T @ dy`` as
    ``transpose(dot(dy, x))``), which XLA makes free by layout and xlapy does not.

    Every element is the same sum of the same products, taken with the operands swapped
    (multiplication commutes); integer results are identical, and a float sum is in BLAS's
    order either way.
    """
    dot = m["dot"]
    a = dot.attrs
    lhs, rhs = dot.operands
    nb = len(a.lhs_batch_dims)
    lf = lhs.shape.rank - nb - len(a.lhs_contracting_dims)
    rf = rhs.shape.rank - nb - len(a.rhs_contracting_dims)
    swapped = (*range(nb), *range(nb + lf, nb + lf + rf), *range(nb, nb + lf))
    if not (lf and rf) or tuple(m.instr.attrs.dimensions) != swapped:
        return None
    if len(m.comp.users(dot)) != 1:
        return None
    attrs = {
        "lhs_batch_dims": a.rhs_batch_dims,
        "rhs_batch_dims": a.lhs_batch_dims,
        "lhs_contracting_dims": a.rhs_contracting_dims,
        "rhs_contracting_dims": a.lhs_contracting_dims,
        "operand_precision": tuple(reversed(a.operand_precision)),
        "algorithm": a.algorithm,
    }
    return m.make(Opcode.DOT, [rhs, lhs], attrs, shape=m.instr.shape)


chain_rules = [
    Rule("merge_reshapes", Pat(Opcode.RESHAPE, Pat(Opcode.RESHAPE, X)), merge_reshapes),
    Rule(
        "merge_transposes",
        Pat(Opcode.TRANSPOSE, Pat(Opcode.TRANSPOSE, X, name="inner")),
        merge_transposes,
    ),
    Rule(
        "merge_broadcasts",
        Pat(Opcode.BROADCAST, Pat(Opcode.BROADCAST, X, name="inner")),
        merge_broadcasts,
    ),
    Rule("merge_slices", Pat(Opcode.SLICE, Pat(Opcode.SLICE, X, name="inner")), merge_slices),
    Rule(
        "transpose_of_dot", Pat(Opcode.TRANSPOSE, Pat.op(Opcode.DOT, name="dot")), transpose_of_dot
    ),
    Rule(
        "merge_reverses",
        Pat(Opcode.REVERSE, Pat(Opcode.REVERSE, X, name="inner")),
        merge_reverses,
    ),
    Rule(
        "broadcast_scalar_directly",
        Pat(
            (Opcode.RESHAPE, Opcode.TRANSPOSE, Opcode.SLICE, Opcode.REVERSE),
            Pat(Opcode.BROADCAST, Pat.var("x", where=_is_scalar)),
        ),
        broadcast_scalar_directly,
    ),
    Rule(
        "fold_convert_roundtrip",
        Pat(Opcode.CONVERT, Pat(Opcode.CONVERT, X, where=_widens)),
        fold_convert_roundtrip,
    ),
]


# ---- select, reduce, dynamic slices, concatenate --------------------------------------------


def _no_dims(instr: HloInstruction) -> bool:
    return not instr.attrs.dimensions


def reduce_no_dims(m: Match) -> HloInstruction | None:
    """reduce(x, init) over no dimensions applies the reducer once per element, as
    ``reducer(init, x)``; with a reducer ``op(p0, p1)`` that is the element-wise op on
    broadcast(init) and x."""
    body = m.instr.attrs.to_apply
    root = body.root
    params = body.parameters
    if (
        len(params) != 2
        or len(root.operands) != 2
        or Trait.ELEMENTWISE not in root.opdef.traits
        or {id(o) for o in root.operands} != {id(p) for p in params}
        or not m.instr.shape.is_array
    ):
        return None
    x, init = m["x"], m["init"]
    spread = m.make(Opcode.BROADCAST, [init], {"dimensions": ()}, shape=x.shape)
    by_param = {id(params[0]): spread, id(params[1]): x}
    return m.make(root.opcode, [by_param[id(o)] for o in root.operands], root.attrs)


def dynamic_slice_to_slice(m: Match) -> HloInstruction | None:
    """dynamic-slice with constant start indices -> slice; each start is clamped to
    [0, dim - size] as dynamic-slice does."""
    operand, *indices = m.instr.operands
    starts = []
    for index in indices:
        value = constant_array(index)
        if value is None or value.ndim != 0:
            return None
        starts.append(int(value))
    sizes = m.instr.attrs.dynamic_slice_sizes
    if len(starts) != operand.shape.rank:
        return None
    dims = []
    for start, size, n in zip(starts, sizes, operand.shape.dims, strict=True):
        begin = min(max(start, 0), n - size)
        dims.append(SliceDimension(begin, begin + size, 1))
    return m.make(Opcode.SLICE, [operand], {"slice": SliceSpec(tuple(dims))})


def drop_empty_concatenate_operands(m: Match) -> HloInstruction | None:
    """concatenate without its operands of extent 0 along the dimension (the one remaining
    operand itself when only one is left)."""
    (dim,) = m.instr.attrs.dimensions
    kept = [o for o in m.instr.operands if o.shape.dims[dim] != 0]
    if not kept or len(kept) == len(m.instr.operands):
        return None
    if len(kept) == 1:
        return kept[0]
    return m.make(Opcode.CONCATENATE, kept, {"dimensions": (dim,)})


control_rules = [
    Rule(
        "fold_select_true",
        Pat(Opcode.SELECT, Pat.splat(1), Pat.var("x"), Pat.var("y")),
        _identity,
    ),
    Rule(
        "fold_select_false",
        Pat(Opcode.SELECT, Pat.splat(0), Pat.var("y"), Pat.var("x")),
        _identity,
    ),
    Rule("fold_select_same", Pat(Opcode.SELECT, Pat.var("p"), X, X), _identity),
    Rule(
        "reduce_no_dims",
        Pat(Opcode.REDUCE, X, Pat.var("init"), where=_no_dims),
        reduce_no_dims,
    ),
    Rule("dynamic_slice_to_slice", Pat.op(Opcode.DYNAMIC_SLICE), dynamic_slice_to_slice),
    Rule(
        "drop_empty_concatenate_operands",
        Pat.op(Opcode.CONCATENATE),
        drop_empty_concatenate_operands,
    ),
]

algebraic_rules = [*arithmetic_rules, *noop_rules, *chain_rules, *control_rules]


@register_pass
@dataclass(frozen=True)
class AlgebraicSimplifier(Pass):
    """Applies ``algebraic_rules``: exact identities, no-op data movement, collapsed chains.

    The rules (arithmetic identities, no-op data movement, collapsed chains,
    select/reduce/dynamic-slice/concatenate simplifications) run until none fires.
    """

    name: ClassVar[str] = "algebraic-simplifier"

    def run(self, module: HloModule) -> bool:
        return apply_rules(module, algebraic_rules, prefix=self.name)
