"""Lowering of StableHLO ops with no HLO opcode of their own, the way XLA's legalization
passes expand them before StableHLO -> HLO conversion:

* ``einsum`` / ``unary_einsum`` (``einsum_config = "ab,bc->ac"``, ``"ab->a"``): repeated
  labels of one operand take the diagonal (iota compare + select + sum), labels in neither
  the other operand nor the output are summed out, the pair becomes one ``dot`` (labels in
  both operands and the output are batch dimensions, labels in both operands only are
  contracted) and a ``transpose`` puts the dimensions in output order. ``...`` stands for the
  leading dimensions not named by a letter; a config with no ``->`` has numpy's implicit
  output (the labels used once, sorted, after the ellipsis dimensions).
* ``torch_index_select`` (``dim``, ``batch_dims``) -> ``gather`` whose start indices are the
  index tensor (one index per element), with the first ``batch_dims`` dimensions of operand
  and index as batching dimensions: result dims ``operand[:dim] + index[batch_dims:] +
  operand[dim + 1:]``.
* ``async_start`` (one op and a return in its region) / ``async_done`` -> ``async-start``
  calling the region as a computation, shaped ``((operands...), result, s32[])``, and
  ``async-done``; a ``!stablehlo.future<T...>`` value is the async-start instruction.
* ``trace`` (removed from StableHLO; no results) is dropped; ``compute_reshape_shape`` (also
  removed) replaces a ``-1`` entry of a shape tensor with ``num_elements / product(others)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.text.mlir_ast import Op
from xlapy.text.stablehlo_lower import Builder, lowers
from xlapy.text.stablehlo_ops import int_attr

# ---- small builders ---------------------------------------------------------------------------


def scalar_computation(b: Builder, opcode: Opcode, element_type: dtypes.ElementType
                       ) -> HloComputation:  # fmt: skip
    """A computation ``(x, y) -> opcode(x, y)`` on scalars of ``element_type``."""
    scalar = Shape.scalar(element_type)
    comp = HloComputation(b.module.region_name())
    x = comp.add_instruction(HloInstruction(Opcode.PARAMETER, scalar, (), {"parameter_number": 0}))
    y = comp.add_instruction(HloInstruction(Opcode.PARAMETER, scalar, (), {"parameter_number": 1}))
    comp.add_instruction(HloInstruction(opcode, scalar, [x, y]), root=True)
    b.module.hlo.add_computation(comp)
    return comp


def constant(b: Builder, value: Any, element_type: dtypes.ElementType) -> HloInstruction:
    shape = Shape.scalar(element_type)
    return b.add(
        Opcode.CONSTANT,
        shape,
        (),
        {"literal": Literal(shape, np.array(value, shape.element_type.numpy))},
    )


def reduce_sum(b: Builder, x: HloInstruction, dims: Sequence[int]) -> HloInstruction:
    """Sum of ``x`` over ``dims`` (logical or for pred), in the element type of ``x``."""
    if not dims:
        return x
    etype = x.shape.element_type
    opcode = Opcode.OR if etype is dtypes.PRED else Opcode.ADD
    kept = [d for i, d in enumerate(x.shape.dims) if i not in dims]
    attrs = {"dimensions": tuple(sorted(dims)), "to_apply": scalar_computation(b, opcode, etype)}
    init = constant(b, 0, etype)
    return b.add(Opcode.REDUCE, Shape.array(etype, kept), [x, init], attrs)


def transpose(b: Builder, x: HloInstruction, perm: Sequence[int]) -> HloInstruction:
    if list(perm) == list(range(len(perm))):
        return x
    dims = [x.shape.dims[p] for p in perm]
    return b.add(Opcode.TRANSPOSE, Shape.array(x.shape.element_type, dims), [x],
                 {"dimensions": tuple(perm)})  # fmt: skip


# ---- einsum -----------------------------------------------------------------------------------

_ELLIPSIS = "."


def _labels(spec: str, rank: int, what: str) -> list[str]:
    """The labels of one operand spec, ``...`` expanded to one label per unnamed dimension
    (``.0``, ``.1``, ... counted from the first ellipsis dimension)."""
    if spec.count("...") > 1:
        raise InvalidArgument(f"einsum_config: {what} '{spec}' has more than one '...'")
    head, dots, tail = spec.partition("...")
    for part in (head, tail):
        if not re.fullmatch(r"[A-Za-z]*", part):
            raise InvalidArgument(
                f"einsum_config: {what} '{spec}' has a label that is not a letter"
            )
    named = len(head) + len(tail)
    if not dots:
        if named != rank:
            raise InvalidArgument(
                f"einsum_config: {what} '{spec}' names {named} dimensions; the operand has rank {rank}"
            )
        return list(head)
    extra = rank - named
    if extra < 0:
        raise InvalidArgument(
            f"einsum_config: {what} '{spec}' names {named} dimensions; the operand has rank {rank}"
        )
    return [*head, *(f"{_ELLIPSIS}{i}" for i in range(extra)), *tail]


def _parse_config(config: str, ranks: Sequence[int]) -> tuple[list[list[str]], list[str]]:
    text = config.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    specs = inputs.split(",")
    if len(specs) != len(ranks):
        raise InvalidArgument(
            f"einsum_config '{config}' has {len(specs)} operand specs; the op has {len(ranks)} operands"
        )
    labels = [
        _labels(s, r, f"operand {i}") for i, (s, r) in enumerate(zip(specs, ranks, strict=True))
    ]
    dots = max((sum(1 for x in ls if x.startswith(_ELLIPSIS)) for ls in labels), default=0)
    if arrow:
        extra = dots if "..." in output else 0
        out = _labels(output, len(output.replace("...", "")) + extra, "output")
    else:  # numpy's implicit output: ellipsis dims, then the labels used once, sorted
        counts: dict[str, int] = {}
        for ls in labels:
            for x in ls:
                if not x.startswith(_ELLIPSIS):
                    counts[x] = counts.get(x, 0) + 1
        out = [f"{_ELLIPSIS}{i}" for i in range(dots)] + sorted(
            x for x, n in counts.items() if n == 1
        )
    if len(set(out)) != len(out):
        raise InvalidArgument(f"einsum_config '{config}': the output repeats a label")
    # ellipsis labels are right aligned across operands
    for ls in labels:
        n = sum(1 for x in ls if x.startswith(_ELLIPSIS))
        shift = dots - n
        for i, x in enumerate(ls):
            if x.startswith(_ELLIPSIS):
                ls[i] = f"{_ELLIPSIS}{int(x[1:]) + shift}"
    known = {x for ls in labels for x in ls}
    for x in out:
        if x not in known:
            raise InvalidArgument(
                f"einsum_config '{config}': output label '{x}' is not in any operand"
            )
    return labels, out


def _diagonal(b: Builder, x: HloInstruction, labels: list[str]) -> tuple[HloInstruction, list[str]]:
    """Takes the diagonal of every label repeated within one operand."""
    labels = list(labels)
    while True:
        seen: dict[str, int] = {}
        pair = None
        for i, lab in enumerate(labels):
            if lab in seen:
                pair = (seen[lab], i)
                break
            seen[lab] = i
        if pair is None:
            return x, labels
        p, q = pair
        dims = x.shape.dims
        if dims[p] != dims[q]:
            raise InvalidArgument(f"einsum label '{labels[p]}' has sizes {dims[p]} and {dims[q]}")
        index = Shape.array(dtypes.S32, dims)
        ip = b.add(Opcode.IOTA, index, (), {"iota_dimension": p})
        iq = b.add(Opcode.IOTA, index, (), {"iota_dimension": q})
        mask = b.add(
            Opcode.COMPARE,
            Shape.array(dtypes.PRED, dims),
            [ip, iq],
            {"direction": A.ComparisonDirection.EQ},
        )
        zero = b.add(
            Opcode.BROADCAST, x.shape, [constant(b, 0, x.shape.element_type)], {"dimensions": ()}
        )
        x = reduce_sum(b, b.add(Opcode.SELECT, x.shape, [mask, x, zero]), [q])
        del labels[q]


def _convert(b: Builder, x: HloInstruction, etype: dtypes.ElementType) -> HloInstruction:
    if x.shape.element_type is etype:
        return x
    return b.add(Opcode.CONVERT, x.shape.with_element_type(etype), [x])


def _prepare(b: Builder, x: HloInstruction, labels: list[str], keep: set[str]
             ) -> tuple[HloInstruction, list[str]]:  # fmt: skip
    """Diagonals, then sums out the labels not in ``keep``."""
    x, labels = _diagonal(b, x, labels)
    drop = [i for i, lab in enumerate(labels) if lab not in keep]
    return reduce_sum(b, x, drop), [lab for lab in labels if lab in keep]


@lowers("stablehlo.einsum", "stablehlo.unary_einsum")
def _einsum(b: Builder, op: Op) -> list[HloInstruction]:
    operands = b.operands(op)
    result = b.result_shape(op)
    config = op.attrs.get("einsum_config")
    if not isinstance(config, str):
        raise InvalidArgument(f"{op.name} needs an einsum_config string")
    labels, out = _parse_config(config, [x.shape.rank for x in operands])
    etype = result.element_type
    operands = [_convert(b, x, etype) for x in operands]
    if len(operands) == 1:
        x, have = _prepare(b, operands[0], labels[0], set(out))
        value = transpose(b, x, [have.index(lab) for lab in out])
    else:
        (lhs, rhs), (ll, rl) = operands, labels
        lhs, ll = _prepare(b, lhs, ll, set(rl) | set(out))
        rhs, rl = _prepare(b, rhs, rl, set(ll) | set(out))
        batch = [lab for lab in ll if lab in rl and lab in out]
        contract = [lab for lab in ll if lab in rl and lab not in out]
        lfree = [lab for lab in ll if lab not in rl]
        rfree = [lab for lab in rl if lab not in ll]
        for lab in batch + contract:
            if lhs.shape.dims[ll.index(lab)] != rhs.shape.dims[rl.index(lab)]:
                raise InvalidArgument(
                    f"einsum label '{lab}' has sizes {lhs.shape.dims[ll.index(lab)]} and "
                    f"{rhs.shape.dims[rl.index(lab)]}"
                )
        dims = ([lhs.shape.dims[ll.index(lab)] for lab in batch + lfree]
                + [rhs.shape.dims[rl.index(lab)] for lab in rfree])  # fmt: skip
        attrs = {
            "lhs_batch_dims": tuple(ll.index(lab) for lab in batch),
            "rhs_batch_dims": tuple(rl.index(lab) for lab in batch),
            "lhs_contracting_dims": tuple(ll.index(lab) for lab in contract),
            "rhs_contracting_dims": tuple(rl.index(lab) for lab in contract),
        }
        dot = b.add(Opcode.DOT, Shape.array(etype, dims), [lhs, rhs], attrs)
        have = batch + lfree + rfree
        value = transpose(b, dot, [have.index(lab) for lab in out])
    if list(value.shape.dims) != list(result.dims):
        raise InvalidArgument(
            f"einsum_config '{config}' gives dimensions {list(value.shape.dims)}; the result "
            f"type is {result.to_mlir()}"
        )
    return [value]


# ---- torch_index_select -----------------------------------------------------------------------


@lowers("stablehlo.torch_index_select")
def _torch_index_select(b: Builder, op: Op) -> list[HloInstruction]:
    operand, index = b.operands(op)
    rank, irank = operand.shape.rank, index.shape.rank
    dim = int_attr(op.attrs.get("dim", 0), "dim")
    nb = int_attr(op.attrs.get("batch_dims", 0), "batch_dims")
    if dim < 0:
        dim += rank
    if nb < 0:
        nb += irank
    if not 0 <= nb <= min(dim, irank) or not 0 <= dim < rank:
        raise InvalidArgument(
            f"torch_index_select needs 0 <= batch_dims <= dim < rank; got dim = {dim}, "
            f"batch_dims = {nb} for operand rank {rank} and index rank {irank}"
        )
    for d in range(nb):
        if operand.shape.dims[d] != index.shape.dims[d]:
            raise InvalidArgument(
                f"torch_index_select batch dimension {d} has size {operand.shape.dims[d]} in "
                f"the operand and {index.shape.dims[d]} in the index"
            )
    offsets = [*range(nb, dim), *(dim + irank - nb + k for k in range(rank - dim - 1))]
    sizes = [1 if d < nb or d == dim else n for d, n in enumerate(operand.shape.dims)]
    attrs = {
        "offset_dims": tuple(offsets),
        "collapsed_slice_dims": (dim,),
        "start_index_map": (dim,),
        "operand_batching_dims": tuple(range(nb)),
        "start_indices_batching_dims": tuple(range(nb)),
        "index_vector_dim": irank,
        "slice_sizes": tuple(sizes),
        "indices_are_sorted": False,
    }
    return [b.add(Opcode.GATHER, b.result_shape(op), [operand, index], attrs)]


# ---- async ------------------------------------------------------------------------------------


@lowers("stablehlo.async_start")
def _async_start(b: Builder, op: Op) -> list[HloInstruction]:
    operands = b.operands(op)
    if len(op.regions) != 1:
        raise InvalidArgument(f"{op.name} needs one region; got {len(op.regions)}")
    comp = b.region(op.regions[0], op.offset, [x.shape for x in operands])
    future = b.result_shape(op)
    shapes = list(future.tuple_shapes) if future.is_tuple else [future]
    result = shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)
    if not comp.root.shape.compatible(result):
        raise InvalidArgument(
            f"{op.name}: the region returns {comp.root.shape.to_mlir()}; the future holds "
            f"{result.to_mlir()}"
        )
    shape = Shape.tuple_of([Shape.tuple_of([x.shape for x in operands]), result,
                            Shape.scalar(dtypes.S32)])  # fmt: skip
    return [b.add(Opcode.ASYNC_START, shape, operands, {"calls": comp})]


@lowers("stablehlo.async_done")
def _async_done(b: Builder, op: Op) -> list[HloInstruction]:
    (start,) = b.operands(op)
    if start.opcode is not Opcode.ASYNC_START:
        raise InvalidArgument(f"{op.name} needs the future of a stablehlo.async_start")
    return b.multi(op, Opcode.ASYNC_DONE, [start], {"calls": start.attrs.calls})


# ---- removed ops ------------------------------------------------------------------------------


@lowers("stablehlo.trace")
def _trace(b: Builder, op: Op) -> list[HloInstruction]:
    b.operands(op)  # the operand must exist; the op has no effect on values
    return []


@lowers("stablehlo.compute_reshape_shape")
def _compute_reshape_shape(b: Builder, op: Op) -> list[HloInstruction]:
    """``num_elements`` and a 1-D shape with at most one ``-1``: the ``-1`` becomes
    ``num_elements / product(the other entries)`` (the product of all entries is negative
    exactly when there is a ``-1``)."""
    num, shape = b.operands(op)
    result = b.result_shape(op)
    etype = shape.shape.element_type
    num = _convert(b, num, etype)
    prod = b.add(Opcode.REDUCE, Shape.scalar(etype), [shape, constant(b, 1, etype)],
                 {"dimensions": (0,), "to_apply": scalar_computation(b, Opcode.MULTIPLY, etype)})  # fmt: skip
    positive = b.add(Opcode.NEGATE, prod.shape, [prod])
    safe = b.add(Opcode.MAXIMUM, prod.shape, [positive, constant(b, 1, etype)])
    inferred = b.add(Opcode.DIVIDE, prod.shape, [num, safe])
    fill = b.add(Opcode.BROADCAST, shape.shape, [inferred], {"dimensions": ()})
    minus_one = b.add(Opcode.BROADCAST, shape.shape, [constant(b, -1, etype)], {"dimensions": ()})
    mask = b.add(Opcode.COMPARE, shape.shape.with_element_type(dtypes.PRED), [shape, minus_one],
                 {"direction": A.ComparisonDirection.EQ})  # fmt: skip
    value = b.add(Opcode.SELECT, shape.shape, [mask, fill, shape])
    return [_convert(b, value, result.element_type)]
