"""The opcode registry: one OpDef per Opcode with its arity, attribute schema and traits.

Parser, printer, verifier, builder, shape inference, evaluator and indexing analysis all
find an op here (semantics live in side tables keyed by Opcode: see ``xlapy.interpreter``).
Attributes are listed in the order XLA prints them.
"""

from __future__ import annotations

import enum
from collections.abc import ItemsView, Mapping
from dataclasses import dataclass
from typing import Any

from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.opcode import Opcode

VARIADIC = -1


class AttrKind(enum.Enum):
    """How an attribute value is typed (and spelled in HLO text)."""

    BOOL = "bool"  # true / false
    INT = "int"
    FLOAT = "float"
    STRING = "string"  # "quoted"
    INTS = "ints"  # {1,0}
    INTS_LIST = "ints_list"  # {{0,1},{1,0}}
    BOOLS = "bools"  # {true,false}
    ENUM = "enum"  # bare identifier of AttrSpec.enum
    ENUMS = "enums"  # {default,highest}
    COMPUTATION = "computation"  # %name or inline {...}
    COMPUTATIONS = "computations"  # {%a, %b}
    SHAPE = "shape"
    SHAPES = "shapes"  # {f32[3]{0}, ...}
    WINDOW = "window"  # A.Window
    DIM_LABELS = "dim_labels"  # A.ConvolutionDimensionNumbers
    PADDING = "padding"  # A.PaddingConfig
    SLICE = "slice"  # A.SliceSpec
    REPLICA_GROUPS = "replica_groups"  # A.ReplicaGroups
    ALIASING = "aliasing"  # tuple[A.OutputOperandAlias, ...]
    LITERAL = "literal"  # xlapy.literal.Literal
    RESULT_ACCURACY = "result_accuracy"  # A.ResultAccuracy
    RAW = "raw"  # A.RawAttribute


class PrintPolicy(enum.Enum):
    """When the HLO printer writes an attribute (XLA omits most default values)."""

    NON_DEFAULT = "non_default"  # only when set to a non-default value (required: always)
    ALWAYS = "always"  # even when unset/default (broadcast dimensions={}, topk largest=true)
    NEVER = "never"  # parsed but never printed (all-reduce mode=)


@dataclass(frozen=True, slots=True)
class AttrSpec:
    """One attribute of an op: its HLO text key, kind, whether required, and default."""

    name: str
    kind: AttrKind
    required: bool = False
    default: Any = None
    enum: type[enum.Enum] | None = None
    print_policy: PrintPolicy = PrintPolicy.NON_DEFAULT


class Trait(enum.Flag):
    """Properties that passes and the evaluator test for (``Trait.ELEMENTWISE in d.traits``)."""

    NONE = 0
    ELEMENTWISE = enum.auto()
    UNARY = enum.auto()
    BINARY = enum.auto()
    COMMUTATIVE = enum.auto()
    SIDE_EFFECTING = enum.auto()
    COLLECTIVE = enum.auto()
    ASYNC = enum.auto()
    EXTENSION = enum.auto()


@dataclass(frozen=True, slots=True)
class OpDef:
    """Everything declared about one opcode."""

    opcode: Opcode
    arity: int
    attrs: tuple[AttrSpec, ...] = ()
    traits: Trait = Trait.NONE
    stablehlo: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its opcode: unpickling gives the registry's one OpDef of it."""
        return (opdef, (self.opcode,))

    def attr(self, name: str) -> AttrSpec | None:
        for spec in self.attrs:
            if spec.name == name:
                return spec
        return None


def _b(name: str, default: bool = False) -> AttrSpec:
    return AttrSpec(name, AttrKind.BOOL, default=default)


def _i(name: str, required: bool = False, default: int | None = None) -> AttrSpec:
    return AttrSpec(name, AttrKind.INT, required, default)


def _ints(name: str, required: bool = False) -> AttrSpec:
    return AttrSpec(name, AttrKind.INTS, required, default=None if required else ())


def _e(
    name: str, enum_type: type[enum.Enum], required: bool = False, default: Any = None
) -> AttrSpec:
    return AttrSpec(name, AttrKind.ENUM, required, default, enum_type)


def _comp(name: str, required: bool = True) -> AttrSpec:
    return AttrSpec(name, AttrKind.COMPUTATION, required)


_PRECISION = AttrSpec("operand_precision", AttrKind.ENUMS, default=(), enum=A.Precision)
_ACCURACY = AttrSpec("result_accuracy", AttrKind.RESULT_ACCURACY)
_WINDOW = AttrSpec("window", AttrKind.WINDOW, default=A.Window())
_CHANNEL = _i("channel_id")
_GROUPS = AttrSpec(
    "replica_groups",
    AttrKind.REPLICA_GROUPS,
    default=A.ReplicaGroups(),
    print_policy=PrintPolicy.ALWAYS,
)
_MODE = AttrSpec("mode", AttrKind.ENUM, enum=A.CollectiveMode, print_policy=PrintPolicy.NEVER)
_ALIASING = AttrSpec("output_to_operand_aliasing", AttrKind.ALIASING, default=())
_DOT_DIMS = (
    _ints("lhs_batch_dims"),
    _ints("lhs_contracting_dims"),
    _ints("rhs_batch_dims"),
    _ints("rhs_contracting_dims"),
)
_CONV = (
    _WINDOW,
    AttrSpec("dim_labels", AttrKind.DIM_LABELS, required=True),
    _i("feature_group_count", default=1),
    _i("batch_group_count", default=1),
    _PRECISION,
)
_GATHER_DIMS = (
    _ints("offset_dims", required=True),
    _ints("collapsed_slice_dims", required=True),
    _ints("start_index_map", required=True),
    _ints("operand_batching_dims"),
    _ints("start_indices_batching_dims"),
    _i("index_vector_dim", required=True),
)
_ALL_REDUCE = (
    _CHANNEL,
    _GROUPS,
    _b("constrain_layout"),
    _b("use_global_device_ids"),
    _MODE,
    _comp("to_apply"),
)
_ALL_GATHER = (
    _CHANNEL,
    _GROUPS,
    _b("constrain_layout"),
    _ints("dimensions", required=True),
    _b("use_global_device_ids"),
)
_SEND_RECV = (_CHANNEL, _b("is_host_transfer"))
_ASYNC = (
    _comp("calls", required=False),
    AttrSpec("async_execution_thread", AttrKind.STRING, default="main"),
    _ALIASING,
)
_BN = (AttrSpec("epsilon", AttrKind.FLOAT, required=True), _i("feature_index", required=True))

E, U, B, C = Trait.ELEMENTWISE, Trait.UNARY, Trait.BINARY, Trait.COMMUTATIVE
EU, EB, EBC = E | U, E | B, E | B | C
SE = Trait.SIDE_EFFECTING
COLL = Trait.COLLECTIVE
X = Trait.EXTENSION

_TABLE: tuple[OpDef, ...] = (
    OpDef(Opcode.ABS, 1, (), EU, ("abs",)),
    OpDef(Opcode.ACOS, 1, (_ACCURACY,), EU, ("chlo.acos",)),
    OpDef(Opcode.ACOSH, 1, (_ACCURACY,), EU, ("chlo.acosh",)),
    OpDef(Opcode.ADD, 2, (), EBC, ("add",)),
    OpDef(Opcode.ADD_DEPENDENCY, 2),
    OpDef(Opcode.AFTER_ALL, VARIADIC, (), Trait.NONE, ("after_all",)),
    OpDef(Opcode.ALL_GATHER, VARIADIC, _ALL_GATHER, COLL, ("all_gather",)),
    OpDef(Opcode.ALL_GATHER_DONE, 1, (), COLL | Trait.ASYNC),
    OpDef(Opcode.ALL_GATHER_START, VARIADIC, _ALL_GATHER, COLL | Trait.ASYNC),
    OpDef(Opcode.ALL_REDUCE, VARIADIC, _ALL_REDUCE, COLL, ("all_reduce",)),
    OpDef(Opcode.ALL_REDUCE_DONE, 1, (), COLL | Trait.ASYNC),
    OpDef(Opcode.ALL_REDUCE_START, VARIADIC, _ALL_REDUCE, COLL | Trait.ASYNC),
    OpDef(
        Opcode.ALL_TO_ALL,
        VARIADIC,
        (_CHANNEL, _GROUPS, _b("constrain_layout"), _ints("dimensions")),
        COLL,
        ("all_to_all",),
    ),
    OpDef(Opcode.AND, 2, (), EBC, ("and",)),
    OpDef(Opcode.ASIN, 1, (_ACCURACY,), EU, ("chlo.asin",)),
    OpDef(Opcode.ASINH, 1, (_ACCURACY,), EU, ("chlo.asinh",)),
    OpDef(Opcode.ASYNC_DONE, 1, _ASYNC, Trait.ASYNC, ("async_done",)),
    OpDef(Opcode.ASYNC_START, VARIADIC, _ASYNC, Trait.ASYNC, ("async_start",)),
    OpDef(Opcode.ASYNC_UPDATE, 1, _ASYNC, Trait.ASYNC),
    OpDef(Opcode.ATAN, 1, (_ACCURACY,), EU, ("chlo.atan",)),
    OpDef(Opcode.ATAN2, 2, (), EB, ("atan2",)),
    OpDef(Opcode.ATANH, 1, (_ACCURACY,), EU, ("chlo.atanh",)),
    OpDef(Opcode.BATCH_NORM_GRAD, 5, _BN, Trait.NONE, ("batch_norm_grad",)),
    OpDef(Opcode.BATCH_NORM_INFERENCE, 5, _BN, Trait.NONE, ("batch_norm_inference",)),
    OpDef(Opcode.BATCH_NORM_TRAINING, 3, _BN, Trait.NONE, ("batch_norm_training",)),
    OpDef(Opcode.BITCAST, 1),
    OpDef(Opcode.BITCAST_CONVERT, 1, (), Trait.NONE, ("bitcast_convert",)),
    OpDef(
        Opcode.BROADCAST,
        1,
        (AttrSpec("dimensions", AttrKind.INTS, default=(), print_policy=PrintPolicy.ALWAYS),),
        Trait.NONE,
        ("broadcast_in_dim", "broadcast"),
    ),
    OpDef(
        Opcode.CALL,
        VARIADIC,
        (_comp("to_apply"), _b("is_composite")),
        Trait.NONE,
        ("func.call", "call", "composite"),
    ),
    OpDef(Opcode.CBRT, 1, (_ACCURACY,), EU, ("cbrt",)),
    OpDef(Opcode.CEIL, 1, (), EU, ("ceil",)),
    OpDef(Opcode.CHOLESKY, 1, (_b("lower"),), Trait.NONE, ("cholesky",)),
    OpDef(Opcode.CLAMP, 3, (), E, ("clamp",)),
    OpDef(Opcode.CLZ, 1, (), EU, ("count_leading_zeros",)),
    OpDef(
        Opcode.COLLECTIVE_BROADCAST,
        VARIADIC,
        (_CHANNEL, _GROUPS, _b("has_dynamic_root")),
        COLL,
        ("collective_broadcast",),
    ),
    OpDef(
        Opcode.COLLECTIVE_PERMUTE,
        VARIADIC,
        (
            _CHANNEL,
            AttrSpec("source_target_pairs", AttrKind.INTS_LIST, True),
            AttrSpec("slice_sizes", AttrKind.INTS_LIST, default=()),
        ),
        COLL,
        ("collective_permute",),
    ),
    OpDef(Opcode.COLLECTIVE_PERMUTE_DONE, 1, (), COLL | Trait.ASYNC),
    OpDef(
        Opcode.COLLECTIVE_PERMUTE_START,
        VARIADIC,
        (
            _CHANNEL,
            AttrSpec("source_target_pairs", AttrKind.INTS_LIST, True),
            AttrSpec("slice_sizes", AttrKind.INTS_LIST, default=()),
        ),
        COLL | Trait.ASYNC,
    ),
    OpDef(Opcode.COLLECTIVE_REDUCE, VARIADIC, _ALL_REDUCE, COLL, ("collective_reduce",)),
    OpDef(
        Opcode.COMPARE,
        2,
        (_e("direction", A.ComparisonDirection, required=True), _e("type", A.ComparisonType)),
        EB,
        ("compare",),
    ),
    OpDef(Opcode.COMPLEX, 2, (), EB, ("complex",)),
    OpDef(
        Opcode.CONCATENATE,
        VARIADIC,
        (_ints("dimensions", required=True),),
        Trait.NONE,
        ("concatenate",),
    ),
    OpDef(
        Opcode.CONDITIONAL,
        VARIADIC,
        (
            _comp("true_computation", False),
            _comp("false_computation", False),
            AttrSpec("branch_computations", AttrKind.COMPUTATIONS, default=()),
        ),
        Trait.NONE,
        ("if", "case"),
    ),
    OpDef(
        Opcode.CONSTANT,
        0,
        (AttrSpec("literal", AttrKind.LITERAL, True),),
        Trait.NONE,
        ("constant",),
    ),
    OpDef(Opcode.CONVERT, 1, (), EU, ("convert",)),
    OpDef(Opcode.CONVOLUTION, 2, _CONV, Trait.NONE, ("convolution",)),
    OpDef(Opcode.COPY, 1, (), EU),
    OpDef(Opcode.COPY_DONE, 1, (), Trait.ASYNC),
    OpDef(Opcode.COPY_START, 1, (_i("cross_program_prefetch_index"),), Trait.ASYNC),
    OpDef(Opcode.COS, 1, (_ACCURACY,), EU, ("cosine",)),
    OpDef(Opcode.COSH, 1, (_ACCURACY,), EU, ("chlo.cosh",)),
    OpDef(
        Opcode.CUSTOM_CALL,
        VARIADIC,
        (
            AttrSpec("window", AttrKind.WINDOW),
            AttrSpec("dim_labels", AttrKind.DIM_LABELS),
            _i("feature_group_count", default=1),
            _i("batch_group_count", default=1),
            _PRECISION,
            _e("padding_type", A.PaddingType),
            AttrSpec("custom_call_target", AttrKind.STRING, True),
            AttrSpec("operand_layout_constraints", AttrKind.SHAPES),
            _b("custom_call_has_side_effect"),
            AttrSpec("literal", AttrKind.LITERAL),
            _ALIASING,
            _e("schedule", A.CustomCallSchedule, default=A.CustomCallSchedule.NONE),
            _e("api_version", A.CustomCallApiVersion, default=A.CustomCallApiVersion.ORIGINAL),
            AttrSpec("called_computations", AttrKind.COMPUTATIONS, default=()),
        ),
        Trait.NONE,
        ("custom_call",),
    ),
    OpDef(Opcode.DIVIDE, 2, (), EB, ("divide",)),
    OpDef(Opcode.DOMAIN, 1, (AttrSpec("domain", AttrKind.RAW, True),)),
    OpDef(
        Opcode.DOT,
        2,
        (*_DOT_DIMS, _PRECISION, _e("algorithm", A.DotAlgorithm)),
        Trait.NONE,
        ("dot_general", "dot"),
    ),
    OpDef(Opcode.DYNAMIC_RESHAPE, VARIADIC, (), Trait.NONE, ("dynamic_reshape",)),
    OpDef(
        Opcode.DYNAMIC_SLICE,
        VARIADIC,
        (_ints("dynamic_slice_sizes", required=True),),
        Trait.NONE,
        ("dynamic_slice",),
    ),
    OpDef(Opcode.DYNAMIC_UPDATE_SLICE, VARIADIC, (), Trait.NONE, ("dynamic_update_slice",)),
    OpDef(Opcode.ERF, 1, (_ACCURACY,), EU, ("chlo.erf",)),
    OpDef(Opcode.EXP, 1, (_ACCURACY,), EU, ("exponential",)),
    OpDef(Opcode.EXPM1, 1, (_ACCURACY,), EU, ("exponential_minus_one",)),
    OpDef(
        Opcode.FFT,
        1,
        (_e("fft_type", A.FftType, required=True), _ints("fft_length", required=True)),
        Trait.NONE,
        ("fft",),
    ),
    OpDef(Opcode.FLOOR, 1, (), EU, ("floor",)),
    OpDef(
        Opcode.FUSION,
        VARIADIC,
        (_e("kind", A.FusionKind, required=True), _ALIASING, _comp("calls")),
    ),
    OpDef(
        Opcode.GATHER,
        2,
        (*_GATHER_DIMS, _ints("slice_sizes", required=True), _b("indices_are_sorted")),
        Trait.NONE,
        ("gather",),
    ),
    OpDef(
        Opcode.GET_DIMENSION_SIZE,
        1,
        (_ints("dimensions", required=True),),
        Trait.NONE,
        ("get_dimension_size",),
    ),
    OpDef(
        Opcode.GET_TUPLE_ELEMENT,
        1,
        (_i("index", required=True),),
        Trait.NONE,
        ("get_tuple_element",),
    ),
    OpDef(Opcode.IMAG, 1, (), EU, ("imag",)),
    OpDef(
        Opcode.INFEED, 1, (AttrSpec("infeed_config", AttrKind.STRING, default=""),), SE, ("infeed",)
    ),
    OpDef(Opcode.IOTA, 0, (_i("iota_dimension", required=True),), Trait.NONE, ("iota",)),
    OpDef(Opcode.IS_FINITE, 1, (), EU, ("is_finite",)),
    OpDef(Opcode.LOG, 1, (_ACCURACY,), EU, ("log",)),
    OpDef(Opcode.LOG1P, 1, (_ACCURACY,), EU, ("log_plus_one",)),
    OpDef(Opcode.LOGISTIC, 1, (_ACCURACY,), EU, ("logistic",)),
    OpDef(Opcode.MAP, VARIADIC, (_ints("dimensions"), _comp("to_apply")), Trait.NONE, ("map",)),
    OpDef(Opcode.MAXIMUM, 2, (), EBC, ("maximum",)),
    OpDef(Opcode.MINIMUM, 2, (), EBC, ("minimum",)),
    OpDef(Opcode.MULHI, 2, (), EBC, ("chlo.mulhi",)),
    OpDef(Opcode.MULTIPLY, 2, (), EBC, ("multiply",)),
    OpDef(Opcode.NEGATE, 1, (), EU, ("negate",)),
    OpDef(Opcode.NOT, 1, (), EU, ("not",)),
    OpDef(Opcode.OPTIMIZATION_BARRIER, 1, (), Trait.NONE, ("optimization_barrier",)),
    OpDef(Opcode.OR, 2, (), EBC, ("or",)),
    OpDef(
        Opcode.OUTFEED,
        2,
        (
            AttrSpec("outfeed_shape", AttrKind.SHAPE),
            AttrSpec("outfeed_config", AttrKind.STRING, default=""),
        ),
        SE,
        ("outfeed",),
    ),
    OpDef(Opcode.PAD, 2, (AttrSpec("padding", AttrKind.PADDING, True),), Trait.NONE, ("pad",)),
    OpDef(
        Opcode.PARAMETER,
        0,
        (
            _i("parameter_number", required=True),
            AttrSpec("parameter_replication", AttrKind.BOOLS, default=()),
        ),
    ),
    OpDef(Opcode.PARTITION_ID, 0, (), Trait.NONE, ("partition_id",)),
    OpDef(Opcode.POPCNT, 1, (), EU, ("popcnt",)),
    OpDef(Opcode.POWER, 2, (), EB, ("power",)),
    OpDef(Opcode.RAGGED_ALL_TO_ALL, 6, (_CHANNEL, _GROUPS), COLL),
    OpDef(
        Opcode.RAGGED_DOT,
        3,
        (*_DOT_DIMS, _ints("lhs_ragged_dims"), _ints("rhs_group_dims"), _PRECISION),
        Trait.NONE,
        ("chlo.ragged_dot",),
    ),
    OpDef(Opcode.REAL, 1, (), EU, ("real",)),
    OpDef(Opcode.RECV, 1, _SEND_RECV, SE, ("recv",)),
    OpDef(Opcode.RECV_DONE, 1, _SEND_RECV, SE),
    OpDef(
        Opcode.REDUCE,
        VARIADIC,
        (_ints("dimensions", required=True), _comp("to_apply")),
        Trait.NONE,
        ("reduce",),
    ),
    OpDef(
        Opcode.REDUCE_PRECISION,
        1,
        (_i("exponent_bits", required=True), _i("mantissa_bits", required=True)),
        EU,
        ("reduce_precision",),
    ),
    OpDef(
        Opcode.REDUCE_SCATTER,
        VARIADIC,
        (
            _CHANNEL,
            _GROUPS,
            _b("constrain_layout"),
            _b("use_global_device_ids"),
            _MODE,
            _ints("dimensions", required=True),
            _comp("to_apply"),
        ),
        COLL,
        ("reduce_scatter",),
    ),
    OpDef(
        Opcode.REDUCE_WINDOW, VARIADIC, (_WINDOW, _comp("to_apply")), Trait.NONE, ("reduce_window",)
    ),
    OpDef(Opcode.REMAINDER, 2, (), EB, ("remainder",)),
    OpDef(Opcode.REPLICA_ID, 0, (), Trait.NONE, ("replica_id",)),
    OpDef(Opcode.RESHAPE, 1, (_i("inferred_dimension"),), Trait.NONE, ("reshape",)),
    OpDef(Opcode.REVERSE, 1, (_ints("dimensions", required=True),), Trait.NONE, ("reverse",)),
    OpDef(
        Opcode.RNG,
        VARIADIC,
        (_e("distribution", A.RandomDistribution, required=True),),
        SE,
        ("rng",),
    ),
    OpDef(
        Opcode.RNG_BIT_GENERATOR,
        1,
        (_e("algorithm", A.RandomAlgorithm, required=True),),
        Trait.NONE,
        ("rng_bit_generator",),
    ),
    OpDef(Opcode.RNG_GET_AND_UPDATE_STATE, 0, (_i("delta", required=True),), SE),
    OpDef(Opcode.ROUND_NEAREST_AFZ, 1, (), EU, ("round_nearest_afz",)),
    OpDef(Opcode.ROUND_NEAREST_EVEN, 1, (), EU, ("round_nearest_even",)),
    OpDef(Opcode.RSQRT, 1, (_ACCURACY,), EU, ("rsqrt",)),
    OpDef(Opcode.SCALED_DOT, 4, (*_DOT_DIMS, _PRECISION), Trait.NONE),
    OpDef(
        Opcode.SCAN,
        VARIADIC,
        (
            _ints("dimensions", required=True),
            _i("num_carries", required=True),
            _b("is_reverse"),
            AttrSpec(
                "is_associative", AttrKind.BOOL, default=False, print_policy=PrintPolicy.ALWAYS
            ),
            _comp("to_apply"),
        ),
        Trait.NONE,
        ("chlo.scan",),
    ),
    OpDef(
        Opcode.SCATTER,
        VARIADIC,
        (
            _ints("update_window_dims", required=True),
            _ints("inserted_window_dims", required=True),
            _ints("scatter_dims_to_operand_dims", required=True),
            _ints("input_batching_dims"),
            _ints("scatter_indices_batching_dims"),
            _i("index_vector_dim", required=True),
            _b("indices_are_sorted"),
            _b("unique_indices"),
            _comp("to_apply"),
        ),
        Trait.NONE,
        ("scatter",),
    ),
    OpDef(Opcode.SELECT, 3, (), E, ("select",)),
    OpDef(
        Opcode.SELECT_AND_SCATTER,
        3,
        (_WINDOW, _comp("select"), _comp("scatter")),
        Trait.NONE,
        ("select_and_scatter",),
    ),
    OpDef(Opcode.SEND, 2, _SEND_RECV, SE, ("send",)),
    OpDef(Opcode.SEND_DONE, 1, _SEND_RECV, SE),
    OpDef(
        Opcode.SET_DIMENSION_SIZE,
        2,
        (_ints("dimensions", required=True),),
        Trait.NONE,
        ("set_dimension_size",),
    ),
    OpDef(Opcode.SHIFT_LEFT, 2, (), EB, ("shift_left",)),
    OpDef(Opcode.SHIFT_RIGHT_ARITHMETIC, 2, (), EB, ("shift_right_arithmetic",)),
    OpDef(Opcode.SHIFT_RIGHT_LOGICAL, 2, (), EB, ("shift_right_logical",)),
    OpDef(Opcode.SHUFFLE, VARIADIC),
    OpDef(Opcode.SIGN, 1, (), EU, ("sign",)),
    OpDef(Opcode.SIN, 1, (_ACCURACY,), EU, ("sine",)),
    OpDef(Opcode.SINH, 1, (_ACCURACY,), EU, ("chlo.sinh",)),
    OpDef(Opcode.SLICE, 1, (AttrSpec("slice", AttrKind.SLICE, True),), Trait.NONE, ("slice",)),
    OpDef(
        Opcode.SORT,
        VARIADIC,
        (_ints("dimensions", required=True), _b("is_stable"), _comp("to_apply")),
        Trait.NONE,
        ("sort",),
    ),
    OpDef(Opcode.SQRT, 1, (_ACCURACY,), EU, ("sqrt",)),
    OpDef(Opcode.STOCHASTIC_CONVERT, 2, (), E),
    OpDef(Opcode.SUBTRACT, 2, (), EB, ("subtract",)),
    OpDef(Opcode.TAN, 1, (_ACCURACY,), EU, ("tan", "chlo.tan")),
    OpDef(Opcode.TANH, 1, (_ACCURACY,), EU, ("tanh",)),
    OpDef(
        Opcode.TOPK,
        1,
        (
            _i("k", required=True),
            AttrSpec("largest", AttrKind.BOOL, default=True, print_policy=PrintPolicy.ALWAYS),
        ),
        Trait.NONE,
        ("chlo.top_k",),
    ),
    OpDef(Opcode.TRANSPOSE, 1, (_ints("dimensions", required=True),), Trait.NONE, ("transpose",)),
    OpDef(
        Opcode.TRIANGULAR_SOLVE,
        2,
        (
            _b("left_side"),
            _b("lower"),
            _b("unit_diagonal"),
            AttrSpec(
                "transpose_a",
                AttrKind.ENUM,
                default=A.TransposeA.NO_TRANSPOSE,
                enum=A.TransposeA,
                print_policy=PrintPolicy.ALWAYS,
            ),
        ),
        Trait.NONE,
        ("triangular_solve",),
    ),
    OpDef(Opcode.TUPLE, VARIADIC, (), Trait.NONE, ("tuple",)),
    OpDef(Opcode.WHILE, 1, (_comp("condition"), _comp("body")), Trait.NONE, ("while",)),
    OpDef(Opcode.XOR, 2, (), EBC, ("xor",)),
    # ---- xlapy extensions ----
    OpDef(Opcode.BESSEL_I1E, 1, (), EU | X, ("chlo.bessel_i1e",)),
    OpDef(Opcode.DIGAMMA, 1, (), EU | X, ("chlo.digamma",)),
    OpDef(
        Opcode.DYNAMIC_BROADCAST_IN_DIM,
        2,
        (
            _ints("dimensions", required=True),
            _ints("known_expanding_dimensions"),
            _ints("known_nonexpanding_dimensions"),
        ),
        X,
        ("dynamic_broadcast_in_dim",),
    ),
    OpDef(Opcode.DYNAMIC_CONV, 3, _CONV, X, ("dynamic_conv",)),
    OpDef(
        Opcode.DYNAMIC_GATHER, 3, (*_GATHER_DIMS, _b("indices_are_sorted")), X, ("dynamic_gather",)
    ),
    OpDef(Opcode.DYNAMIC_IOTA, 1, (_i("iota_dimension", required=True),), X, ("dynamic_iota",)),
    OpDef(Opcode.DYNAMIC_PAD, 5, (), X, ("dynamic_pad",)),
    OpDef(Opcode.ERF_INV, 1, (), EU | X, ("chlo.erf_inv",)),
    OpDef(Opcode.ERFC, 1, (), EU | X, ("chlo.erfc",)),
    OpDef(Opcode.IGAMMA, 2, (), EB | X, ()),
    OpDef(Opcode.IGAMMAC, 2, (), EB | X, ()),
    OpDef(Opcode.LGAMMA, 1, (), EU | X, ("chlo.lgamma",)),
    OpDef(Opcode.NEXT_AFTER, 2, (), EB | X, ("chlo.next_after",)),
    OpDef(Opcode.POLYGAMMA, 2, (), EB | X, ("chlo.polygamma",)),
    OpDef(Opcode.REAL_DYNAMIC_SLICE, 4, (), X, ("real_dynamic_slice",)),
    OpDef(Opcode.UNIFORM_DEQUANTIZE, 1, (), EU | X, ("uniform_dequantize",)),
    OpDef(Opcode.UNIFORM_QUANTIZE, 1, (), EU | X, ("uniform_quantize",)),
    OpDef(Opcode.ZETA, 2, (), EB | X, ("chlo.zeta",)),
)

REGISTRY: dict[Opcode, OpDef] = {d.opcode: d for d in _TABLE}


def opdef(opcode: Opcode) -> OpDef:
    return REGISTRY[opcode]


_INT_KINDS = frozenset({AttrKind.INT, AttrKind.INTS, AttrKind.INTS_LIST})


def _fits_int64(value: Any) -> bool:
    """Whether every int in ``value`` (an int or nested tuples/lists of them) is an int64, as
    the attribute fields of XLA's HloInstruction are."""
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    if isinstance(value, tuple | list):
        return all(_fits_int64(v) for v in value)
    return True


class Attrs(Mapping[str, Any]):
    """The attributes of one instruction, checked against its OpDef's schema.

    Read as ``attrs.dimensions`` or ``attrs["dimensions"]``; unset optional attributes read as
    their declared default. Immutable: build a new one with ``replace``.
    """

    __slots__ = ("_opdef", "_values")

    def __init__(self, op: OpDef, values: Mapping[str, Any] | None = None) -> None:
        values = dict(values or {})
        for name, value in values.items():
            spec = op.attr(name)
            if spec is None:
                raise InvalidArgument(f"{op.opcode.value}: unknown attribute {name!r}")
            if spec.kind in _INT_KINDS and not _fits_int64(value):
                raise InvalidArgument(
                    f"{op.opcode.value}: attribute {name} must hold 64-bit integers; got "
                    f"{value!r:.80}"
                )
        for spec in op.attrs:
            if spec.required and values.get(spec.name) is None:
                raise InvalidArgument(
                    f"{op.opcode.value}: missing required attribute {spec.name!r}"
                )
        object.__setattr__(self, "_opdef", op)
        object.__setattr__(self, "_values", {k: v for k, v in values.items() if v is not None})

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        spec = object.__getattribute__(self, "_opdef").attr(name)
        if spec is None:
            raise AttributeError(name)
        return spec.default

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Attrs are immutable; use replace()")

    def __getitem__(self, name: str) -> Any:
        return self.__getattr__(name)

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def items(self) -> ItemsView[str, Any]:
        """The explicitly set (name, value) pairs, as iteration gives them (without a lookup
        per name)."""
        return self._values.items()

    def is_set(self, name: str) -> bool:
        """True when the attribute was given explicitly (even if equal to its default)."""
        return name in self._values

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its OpDef and values, restored without checking them again."""
        return (_unchecked_attrs, (self._opdef, self._values))

    def replace(self, **changes: Any) -> Attrs:
        return Attrs(self._opdef, {**self._values, **changes})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attrs) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values)))

    def __repr__(self) -> str:
        return f"Attrs({self._values!r})"


def _unchecked_attrs(op: OpDef, values: dict[str, Any]) -> Attrs:
    """The Attrs of ``op`` holding ``values``, which an Attrs checked when it was built."""
    attrs = Attrs.__new__(Attrs)
    object.__setattr__(attrs, "_opdef", op)
    object.__setattr__(attrs, "_values", values)
    return attrs
