"""Op families of the HLO graph and their colours, as XLA's graph dumper groups opcodes.

One table: every opcode belongs to exactly one family (elementwise ops by their registry trait,
the rest listed by name); each family has one fill and one border colour, used by the DOT, SVG
and HTML writers alike and explained by the legend.
"""

from __future__ import annotations

import enum

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY, Trait


class Family(enum.Enum):
    """What kind of work an instruction does; the value is the legend's wording."""

    ELEMENTWISE = "elementwise"
    DATA_MOVEMENT = "data movement"
    REDUCTION = "reduction"
    CONTRACTION = "contraction"
    CONTROL_FLOW = "control flow"
    COLLECTIVE = "collective"
    SIDE_EFFECT = "side effect"
    FUSION = "fusion"
    TUPLE = "tuple and token"
    CUSTOM_CALL = "custom call"
    PARAMETER = "parameter"
    CONSTANT = "constant"


# (fill, border) per family: light fills so that black text stays readable.
PALETTE: dict[Family, tuple[str, str]] = {
    Family.ELEMENTWISE: ("#fff3bf", "#b59b1a"),
    Family.DATA_MOVEMENT: ("#d3f0d8", "#3f8f52"),
    Family.REDUCTION: ("#e5dbff", "#6f4fc4"),
    Family.CONTRACTION: ("#c5dcff", "#2d5fb4"),
    Family.CONTROL_FLOW: ("#9fd8b5", "#1d6b3c"),
    Family.COLLECTIVE: ("#f0d2b4", "#8a5a2b"),
    Family.SIDE_EFFECT: ("#ffc9c9", "#b33a3a"),
    Family.FUSION: ("#e6e6e6", "#707070"),
    Family.TUPLE: ("#ffffff", "#9a9a9a"),
    Family.CUSTOM_CALL: ("#f3c7e8", "#9b3d86"),
    Family.PARAMETER: ("#ffd8a8", "#c46a00"),
    Family.CONSTANT: ("#ffffff", "#b0b0b0"),
}

_LISTED: dict[Family, frozenset[Opcode]] = {
    Family.DATA_MOVEMENT: frozenset(
        {
            Opcode.BROADCAST,
            Opcode.CONCATENATE,
            Opcode.COPY,
            Opcode.COPY_DONE,
            Opcode.COPY_START,
            Opcode.DYNAMIC_BROADCAST_IN_DIM,
            Opcode.DYNAMIC_GATHER,
            Opcode.DYNAMIC_PAD,
            Opcode.DYNAMIC_RESHAPE,
            Opcode.DYNAMIC_SLICE,
            Opcode.DYNAMIC_UPDATE_SLICE,
            Opcode.GATHER,
            Opcode.PAD,
            Opcode.REAL_DYNAMIC_SLICE,
            Opcode.RESHAPE,
            Opcode.REVERSE,
            Opcode.SHUFFLE,
            Opcode.SLICE,
            Opcode.SORT,
            Opcode.TOPK,
            Opcode.TRANSPOSE,
        }
    ),
    Family.REDUCTION: frozenset(
        {
            Opcode.BATCH_NORM_GRAD,
            Opcode.BATCH_NORM_INFERENCE,
            Opcode.BATCH_NORM_TRAINING,
            Opcode.REDUCE,
            Opcode.REDUCE_WINDOW,
            Opcode.SCATTER,
            Opcode.SELECT_AND_SCATTER,
        }
    ),
    Family.CONTRACTION: frozenset(
        {
            Opcode.CHOLESKY,
            Opcode.CONVOLUTION,
            Opcode.DOT,
            Opcode.DYNAMIC_CONV,
            Opcode.FFT,
            Opcode.RAGGED_DOT,
            Opcode.SCALED_DOT,
            Opcode.TRIANGULAR_SOLVE,
        }
    ),
    Family.CONTROL_FLOW: frozenset(
        {
            Opcode.ASYNC_DONE,
            Opcode.ASYNC_START,
            Opcode.ASYNC_UPDATE,
            Opcode.CALL,
            Opcode.CONDITIONAL,
            Opcode.MAP,
            Opcode.SCAN,
            Opcode.WHILE,
        }
    ),
    Family.COLLECTIVE: frozenset(
        {op for op, d in REGISTRY.items() if Trait.COLLECTIVE in d.traits}
        | {Opcode.PARTITION_ID, Opcode.REPLICA_ID}
    ),
    Family.SIDE_EFFECT: frozenset(
        {op for op, d in REGISTRY.items() if Trait.SIDE_EFFECTING in d.traits}
    ),
    Family.FUSION: frozenset({Opcode.FUSION}),
    Family.TUPLE: frozenset(
        {
            Opcode.ADD_DEPENDENCY,
            Opcode.AFTER_ALL,
            Opcode.BITCAST,
            Opcode.DOMAIN,
            Opcode.GET_DIMENSION_SIZE,
            Opcode.GET_TUPLE_ELEMENT,
            Opcode.OPTIMIZATION_BARRIER,
            Opcode.SET_DIMENSION_SIZE,
            Opcode.TUPLE,
        }
    ),
    Family.CUSTOM_CALL: frozenset({Opcode.CUSTOM_CALL}),
    Family.PARAMETER: frozenset({Opcode.PARAMETER}),
    Family.CONSTANT: frozenset({Opcode.CONSTANT}),
}

# Generators and bit casts colour as elementwise work, as XLA's dumper colours them.
_ELEMENTWISE_EXTRA = frozenset(
    {Opcode.BITCAST_CONVERT, Opcode.DYNAMIC_IOTA, Opcode.IOTA, Opcode.RNG_BIT_GENERATOR}
)

OPCODE_FAMILY: dict[Opcode, Family] = {
    op: family for family, ops in _LISTED.items() for op in ops
} | {
    op: Family.ELEMENTWISE
    for op, d in REGISTRY.items()
    if (Trait.ELEMENTWISE in d.traits and op is not Opcode.COPY) or op in _ELEMENTWISE_EXTRA
}
"""The family of each opcode (elementwise by registry trait; copy counts as data movement)."""


def family_of(instr: HloInstruction) -> Family:
    """The family of ``instr``: its opcode's, except that a custom call with side effects is a
    side effect and an async op takes the family of the instruction it wraps."""
    if instr.opcode is Opcode.CUSTOM_CALL and instr.attrs.custom_call_has_side_effect:
        return Family.SIDE_EFFECT
    if instr.opcode in (Opcode.ASYNC_START, Opcode.ASYNC_UPDATE, Opcode.ASYNC_DONE):
        wrapped = instr.attrs.calls
        if wrapped is not None and wrapped.instructions:
            return family_of(wrapped.root)
    return OPCODE_FAMILY[instr.opcode]
