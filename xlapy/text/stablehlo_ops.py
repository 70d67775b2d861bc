"""Per-op mapping of StableHLO ops onto HLO instructions (XLA's StableHLO -> HLO conversion).

Ops that map one to one with no attributes beyond ``result_accuracy`` come from the opcode
registry (``OpDef.stablehlo`` names); the others have a lowering function each. Collectives,
CHLO ops are in ``xlapy.text.stablehlo_ops_chlo``; custom calls, collectives, check and
interpreter ops in ``xlapy.text.stablehlo_ops_extra`` (imported on first use).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.ir import attrs as A
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY
from xlapy.literal import Literal
from xlapy.shape import Shape
from xlapy.shape_inference.dot_conv import DEFERRED_ERROR
from xlapy.text.mlir_ast import DialectAttr, EnumAttr, Op, SymbolRef
from xlapy.text.stablehlo_lower import LOWERINGS, Builder, lowers

if TYPE_CHECKING:  # the sharding readers load with the first op that needs them
    from xlapy.sharding.read import ManualContext

# ---- attribute helpers ------------------------------------------------------------------------


def ints(value: Any, what: str = "attribute") -> tuple[int, ...]:
    """An int list attribute (``[1, 2]``, ``array<i64: 1, 2>``, ``dense<[1, 2]>``) as a tuple."""
    if value is None:
        return ()
    if isinstance(value, Literal):
        array = np.asarray(value.value)
        if array.dtype.kind not in "iu":
            raise InvalidArgument(f"{what} must hold integers; got {value.shape.to_mlir()}")
        return tuple(int(v) for v in array.reshape(-1))
    if isinstance(value, (list, tuple)):
        return tuple(int_attr(v, what) for v in value)
    return (int_attr(value, what),)


def int_attr(value: Any, what: str) -> int:
    """An integer attribute (``3 : i64``, a one-element integer ``dense``); anything else
    raises InvalidArgument naming the attribute."""
    if isinstance(value, Literal):
        array = np.asarray(value.value)
        if array.size == 1 and array.dtype.kind in "iu":
            return int(array.reshape(-1)[0])
    elif isinstance(value, int | np.integer) and not isinstance(value, bool):
        return int(value)
    raise InvalidArgument(f"{what} must be an integer; got {value!r:.60}")


def bools(value: Any) -> tuple[bool, ...]:
    if value is None:
        return ()
    if isinstance(value, Literal):
        return tuple(bool(v) for v in np.asarray(value.value).reshape(-1))
    return tuple(bool(v) for v in value)


def pairs(value: Any) -> list[tuple[int, int]]:
    """An ``Nx2`` attribute (``dense<[[0, 0], [2, 0]]>`` or ``[[0, 0], [2, 0]]``) as pairs."""
    if value is None:
        return []
    if isinstance(value, Literal):
        arr = np.asarray(value.value)
        if arr.size and (arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu"):
            raise InvalidArgument(
                f"padding must be an Nx2 integer tensor; got {value.shape.to_mlir()}"
            )
        return [(int(a), int(b)) for a, b in arr.reshape(-1, 2)] if arr.size else []
    if not isinstance(value, list | tuple) or any(
        not isinstance(p, list | tuple) or len(p) != 2 for p in value
    ):
        raise InvalidArgument(f"padding must be a list of [low, high] pairs; got {value!r:.60}")
    return [(int_attr(a, "padding"), int_attr(b, "padding")) for a, b in value]


def enum_name(value: Any) -> str:
    """The value of an enum attribute in either spelling (``#stablehlo<fft_type FFT>``, ``FFT``)."""
    if isinstance(value, EnumAttr):
        return value.value
    return str(value)


E = TypeVar("E", bound=enum.Enum)


def enum_member(cls: type[E], value: Any, what: str) -> E:
    """The member of ``cls`` an enum attribute names; raises InvalidArgument listing the
    choices when it names none."""
    name = enum_name(value)
    member = cls.__members__.get(name)
    if member is None:
        choices = ", ".join(cls.__members__)
        raise InvalidArgument(f"{what} must be one of {choices}; got {name!r}")
    return member


def fields(value: Any, op: Op, what: str) -> dict[str, Any]:
    if isinstance(value, DialectAttr):
        return value.fields
    if isinstance(value, dict):
        return value
    raise InvalidArgument(f"{op.name} needs a {what} attribute")


def precision(value: Any) -> tuple[A.Precision, ...]:
    if not value:
        return ()
    return tuple(enum_member(A.Precision, v, "precision_config") for v in value)


def result_accuracy(value: Any) -> A.ResultAccuracy | None:
    """``#stablehlo.result_accuracy<...>`` as an HLO ResultAccuracy; values XLA refuses (see
    ``ResultAccuracy.problem``) raise InvalidArgument (located at the op by the caller)."""
    if not isinstance(value, DialectAttr):
        return None
    f = value.fields
    mode = enum_name(f.get("mode", "DEFAULT")).lower()
    tolerances: dict[str, float] = {}
    for name in ("atol", "rtol"):
        try:
            tolerances[name] = float(f.get(name, 0.0))
        except (TypeError, ValueError):
            raise InvalidArgument(
                f"result_accuracy: {name} must be a number; got {f.get(name)!r:.40}"
            ) from None
    ulps = int_attr(f.get("ulps", 0), "ulps")
    accuracy = A.ResultAccuracy(mode, tolerances["atol"], tolerances["rtol"], ulps)
    problem = accuracy.problem()
    if problem is not None:
        raise InvalidArgument(f"result_accuracy: {problem}")
    return accuracy


def callee(builder: Builder, value: Any, op: Op) -> Any:
    if not isinstance(value, SymbolRef):
        raise InvalidArgument(f"{op.name} needs a function symbol; got {value!r}")
    return builder.module.function(value.name, op.offset)


# ---- one-to-one ops from the registry ---------------------------------------------------------


def _direct(opcode: Opcode) -> Any:
    def lower(b: Builder, op: Op) -> Sequence[HloInstruction]:
        attrs: dict[str, Any] = {}
        accuracy = result_accuracy(op.attrs.get("result_accuracy"))
        if accuracy is not None:
            attrs["result_accuracy"] = accuracy
        return b.multi(op, opcode, b.operands(op), attrs)

    return lower


for _def in REGISTRY.values():
    if any(spec.required for spec in _def.attrs):
        continue
    if any(spec.name not in ("result_accuracy",) for spec in _def.attrs):
        continue
    for _name in _def.stablehlo:
        _full = _name if "." in _name else f"stablehlo.{_name}"
        LOWERINGS.setdefault(_full, _direct(_def.opcode))


# ---- shapes and data movement -----------------------------------------------------------------


@lowers("stablehlo.constant", "chlo.constant", "arith.constant")
def _constant(b: Builder, op: Op) -> list[HloInstruction]:
    value = op.attrs.get("value")
    if not isinstance(value, Literal):
        raise InvalidArgument("constant needs a dense value")
    shape = b.result_shape(op)
    etype = shape.element_type if shape.is_array else None
    if isinstance(etype, dtypes.QuantizedType) and value.shape.element_type is etype.storage:
        # A quantized constant is written with its storage integers (``dense<..> : tensor<2xi8>``).
        value = Literal(value.shape.with_element_type(etype), value.value)
    if not shape.compatible(value.shape):
        raise InvalidArgument(
            f"the value has type {value.shape.to_mlir()}; the result {shape.to_mlir()}"
        )
    return [b.add(Opcode.CONSTANT, shape, (), {"literal": value})]


@lowers("stablehlo.iota")
def _iota(b: Builder, op: Op) -> list[HloInstruction]:
    dim = int_attr(op.attrs["iota_dimension"], "iota_dimension")
    return [b.add(Opcode.IOTA, b.result_shape(op), (), {"iota_dimension": dim})]


@lowers("stablehlo.dynamic_iota")
def _dynamic_iota(b: Builder, op: Op) -> list[HloInstruction]:
    dim = int_attr(op.attrs["iota_dimension"], "iota_dimension")
    return [b.add(Opcode.DYNAMIC_IOTA, b.result_shape(op), b.operands(op), {"iota_dimension": dim})]


@lowers("stablehlo.create_token")
def _create_token(b: Builder, op: Op) -> list[HloInstruction]:
    return [b.add(Opcode.AFTER_ALL, Shape.token(), ())]


@lowers("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(b: Builder, op: Op) -> list[HloInstruction]:
    """As XLA's ``BroadcastInDim``: operand dims of size 1 that the result expands are first
    reshaped away, so the HLO broadcast maps every operand dim to a dim of its size."""
    dims = ints(op.attrs.get("broadcast_dimensions"))
    operands = b.operands(op)
    result = b.result_shape(op)
    if len(operands) == 1 and operands[0].shape.is_array and len(dims) == operands[0].shape.rank:
        (x,) = operands
        kept = [
            i for i, d in enumerate(dims)
            if not (0 <= d < result.rank and x.shape.dims[i] == 1 and result.dims[d] != 1)
        ]  # fmt: skip
        if len(kept) != len(dims) and result.is_static and x.shape.is_static:
            x = b.add(Opcode.RESHAPE, x.shape.with_dims([x.shape.dims[i] for i in kept]), [x])
            return [
                b.add(Opcode.BROADCAST, result, [x], {"dimensions": tuple(dims[i] for i in kept)})
            ]
    return [b.add(Opcode.BROADCAST, result, operands, {"dimensions": dims})]


@lowers("stablehlo.broadcast")
def _broadcast(b: Builder, op: Op) -> list[HloInstruction]:
    (x,) = b.operands(op)
    n = len(ints(op.attrs.get("broadcast_sizes")))
    dims = tuple(range(n, n + x.shape.rank))
    return [b.add(Opcode.BROADCAST, b.result_shape(op), [x], {"dimensions": dims})]


@lowers("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = {
        "dimensions": ints(op.attrs.get("broadcast_dimensions")),
        "known_expanding_dimensions": ints(op.attrs.get("known_expanding_dimensions")),
        "known_nonexpanding_dimensions": ints(op.attrs.get("known_nonexpanding_dimensions")),
    }
    shape = b.result_shape(op)
    return [b.add(Opcode.DYNAMIC_BROADCAST_IN_DIM, shape, b.operands(op), attrs)]


@lowers("stablehlo.reshape")
def _reshape(b: Builder, op: Op) -> list[HloInstruction]:
    return [b.add(Opcode.RESHAPE, b.result_shape(op), b.operands(op))]


@lowers("stablehlo.transpose")
def _transpose(b: Builder, op: Op) -> list[HloInstruction]:
    dims = ints(op.attrs.get("permutation"))
    return [b.add(Opcode.TRANSPOSE, b.result_shape(op), b.operands(op), {"dimensions": dims})]


@lowers("stablehlo.reverse")
def _reverse(b: Builder, op: Op) -> list[HloInstruction]:
    dims = ints(op.attrs.get("dimensions"))
    return [b.add(Opcode.REVERSE, b.result_shape(op), b.operands(op), {"dimensions": dims})]


def _same_sizes(**lists: tuple[int, ...]) -> None:
    """The attribute lists of a slice or pad have one entry per dimension each (their C2; the
    rank of the operand is checked by shape inference)."""
    if len({len(v) for v in lists.values()}) > 1:
        got = ", ".join(f"{k}={list(v)}" for k, v in lists.items())
        raise InvalidArgument(f"[C2] {', '.join(lists)} must have the same size; got {got}")


@lowers("stablehlo.slice")
def _slice(b: Builder, op: Op) -> list[HloInstruction]:
    starts = ints(op.attrs.get("start_indices"))
    limits = ints(op.attrs.get("limit_indices"))
    strides = ints(op.attrs.get("strides")) or (1,) * len(starts)
    _same_sizes(start_indices=starts, limit_indices=limits, strides=strides)
    spec = A.SliceSpec(
        tuple(
            A.SliceDimension(s, lim, st) for s, lim, st in zip(starts, limits, strides, strict=True)
        )
    )
    return [b.add(Opcode.SLICE, b.result_shape(op), b.operands(op), {"slice": spec})]


@lowers("stablehlo.dynamic_slice")
def _dynamic_slice(b: Builder, op: Op) -> list[HloInstruction]:
    sizes = ints(op.attrs.get("slice_sizes"))
    shape = b.result_shape(op)
    return [b.add(Opcode.DYNAMIC_SLICE, shape, b.operands(op), {"dynamic_slice_sizes": sizes})]


@lowers("stablehlo.concatenate")
def _concatenate(b: Builder, op: Op) -> list[HloInstruction]:
    dim = int_attr(op.attrs["dimension"], "dimension")
    return [b.add(Opcode.CONCATENATE, b.result_shape(op), b.operands(op), {"dimensions": (dim,)})]


@lowers("stablehlo.pad")
def _pad(b: Builder, op: Op) -> list[HloInstruction]:
    low = ints(op.attrs.get("edge_padding_low"))
    high = ints(op.attrs.get("edge_padding_high"))
    interior = ints(op.attrs.get("interior_padding")) or (0,) * len(low)
    _same_sizes(edge_padding_low=low, edge_padding_high=high, interior_padding=interior)
    config = A.PaddingConfig.make(list(zip(low, high, interior, strict=True)))
    return [b.add(Opcode.PAD, b.result_shape(op), b.operands(op), {"padding": config})]


@lowers("stablehlo.get_dimension_size", "stablehlo.set_dimension_size")
def _dimension_size(b: Builder, op: Op) -> list[HloInstruction]:
    opcode = Opcode.GET_DIMENSION_SIZE if "get" in op.name else Opcode.SET_DIMENSION_SIZE
    dim = int_attr(op.attrs["dimension"], "dimension")
    return [b.add(opcode, b.result_shape(op), b.operands(op), {"dimensions": (dim,)})]


@lowers("stablehlo.get_tuple_element")
def _get_tuple_element(b: Builder, op: Op) -> list[HloInstruction]:
    index = int_attr(op.attrs["index"], "index")
    return [b.add(Opcode.GET_TUPLE_ELEMENT, b.result_shape(op), b.operands(op), {"index": index})]


@lowers("stablehlo.optimization_barrier")
def _optimization_barrier(b: Builder, op: Op) -> list[HloInstruction]:
    operands = b.operands(op)
    packed = b.tuple(operands)
    barrier = b.add(Opcode.OPTIMIZATION_BARRIER, packed.shape, [packed])
    return b.unpack(barrier)


@lowers("sdy.manual_computation")
def _manual_computation(b: Builder, op: Op) -> list[HloInstruction]:
    """shard_map inside jit: XLA's GSPMD form (``xlapy.sharding.read``): full-to-shard
    custom calls, a ``call`` of the body over the per-device shapes, shard-to-full."""
    operands = b.operands(op)
    block = b.single_block(op.regions[0], op.offset)
    if len(block.args) != len(operands):
        raise InvalidArgument(
            f"the body takes {len(block.args)} arguments; the op has {len(operands)} operands"
        )

    def body(context: ManualContext, local_shapes: list[Shape]) -> HloComputation:
        for (_, t), local in zip(block.args, local_shapes, strict=True):
            if not b.shape(t, op.offset).compatible(local):
                raise InvalidArgument(
                    f"the body takes {b.shape(t, op.offset).to_mlir()} where the in sharding "
                    f"gives {local.to_mlir()} per device"
                )
        child = Builder(b.module, "shmap_body", b)
        child.manual = context
        return child.build(op.regions[0], op.offset, local_shapes)

    from xlapy.sharding.read import lower_manual_computation

    return lower_manual_computation(b, operands, op.attrs, body, b.result_shapes(op), op.offset)


@lowers("sdy.sharding_group")
def _sharding_group(b: Builder, op: Op) -> list[HloInstruction]:
    """``shard_alike``: the value joins sharding group ``group_id`` (as JAX's HLO writes it:
    an ``xla.sdy.ShardingGroup`` custom call with no result)."""
    from xlapy.sharding.read import SHARDING_GROUP

    (x,) = b.operands(op)
    b.add(
        Opcode.CUSTOM_CALL,
        Shape.tuple_of([]),
        [x],
        {"custom_call_target": SHARDING_GROUP, "custom_call_has_side_effect": True},
        frontend_attributes={"xla.sdy.sharding_group_id": f"{op.attrs['group_id']} : i64"},
    )
    return []


@lowers("sdy.sharding_constraint")
def _sharding_constraint(b: Builder, op: Op) -> list[HloInstruction]:
    """``with_sharding_constraint``: a ``Sharding`` custom call (open dims unspecified)."""
    from xlapy.sharding.read import lower_sharding_constraint

    (x,) = b.operands(op)
    return [lower_sharding_constraint(b, x, str(op.attrs["sharding"]), b.manual)]


@lowers("tensor.cast")
def _identity(b: Builder, op: Op) -> list[HloInstruction]:
    return b.operands(op)


# ---- elementwise with attributes --------------------------------------------------------------


@lowers("stablehlo.compare")
def _compare(b: Builder, op: Op) -> list[HloInstruction]:
    attrs: dict[str, Any] = {
        "direction": enum_member(
            A.ComparisonDirection, op.attrs["comparison_direction"], "comparison_direction"
        )
    }
    kind = op.attrs.get("compare_type")
    if kind is not None and enum_name(kind) != "NOTYPE":
        attrs["type"] = enum_member(A.ComparisonType, kind, "compare_type")
    return [b.add(Opcode.COMPARE, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.reduce_precision")
def _reduce_precision(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = {
        "exponent_bits": int_attr(op.attrs["exponent_bits"], "exponent_bits"),
        "mantissa_bits": int_attr(op.attrs["mantissa_bits"], "mantissa_bits"),
    }
    return [b.add(Opcode.REDUCE_PRECISION, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.rng")
def _rng(b: Builder, op: Op) -> list[HloInstruction]:
    a, c = b.operands(op)[:2]
    dist = enum_member(A.RandomDistribution, op.attrs["rng_distribution"], "rng_distribution")
    return [b.add(Opcode.RNG, b.result_shape(op), [a, c], {"distribution": dist})]


@lowers("stablehlo.rng_bit_generator")
def _rng_bit_generator(b: Builder, op: Op) -> list[HloInstruction]:
    algorithm = enum_member(
        A.RandomAlgorithm, op.attrs.get("rng_algorithm", "DEFAULT"), "rng_algorithm"
    )
    return b.multi(op, Opcode.RNG_BIT_GENERATOR, b.operands(op), {"algorithm": algorithm},
                   always_tuple=True)  # fmt: skip


@lowers("stablehlo.fft")
def _fft(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = {
        "fft_type": enum_member(A.FftType, op.attrs["fft_type"], "fft_type"),
        "fft_length": ints(op.attrs.get("fft_length")),
    }
    return [b.add(Opcode.FFT, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.cholesky")
def _cholesky(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = {"lower": bool(op.attrs.get("lower", False))}
    return [b.add(Opcode.CHOLESKY, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.triangular_solve")
def _triangular_solve(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = {
        "left_side": bool(op.attrs.get("left_side", False)),
        "lower": bool(op.attrs.get("lower", False)),
        "unit_diagonal": bool(op.attrs.get("unit_diagonal", False)),
        "transpose_a": enum_member(
            A.TransposeA, op.attrs.get("transpose_a", "NO_TRANSPOSE"), "transpose_a"
        ),
    }
    return [b.add(Opcode.TRIANGULAR_SOLVE, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.batch_norm_inference", "stablehlo.batch_norm_training",
        "stablehlo.batch_norm_grad")  # fmt: skip
def _batch_norm(b: Builder, op: Op) -> list[HloInstruction]:
    opcode = Opcode(op.name.split(".", 1)[1].replace("_", "-"))
    attrs = {
        "epsilon": float(op.attrs["epsilon"]),
        "feature_index": int_attr(op.attrs["feature_index"], "feature_index"),
    }
    return b.multi(op, opcode, b.operands(op), attrs)


# ---- contractions -----------------------------------------------------------------------------

DOT_ALGORITHMS = {
    ("f16", "f16", "f16", 1): A.DotAlgorithm.DOT_F16_F16_F16,
    ("f16", "f16", "f32", 1): A.DotAlgorithm.DOT_F16_F16_F32,
    ("bf16", "bf16", "bf16", 1): A.DotAlgorithm.DOT_BF16_BF16_BF16,
    ("bf16", "bf16", "f32", 1): A.DotAlgorithm.DOT_BF16_BF16_F32,
    ("bf16", "bf16", "f32", 3): A.DotAlgorithm.DOT_BF16_BF16_F32_X3,
    ("bf16", "bf16", "f32", 6): A.DotAlgorithm.DOT_BF16_BF16_F32_X6,
    ("bf16", "bf16", "f32", 9): A.DotAlgorithm.DOT_BF16_BF16_F32_X9,
    ("tf32", "tf32", "f32", 1): A.DotAlgorithm.DOT_TF32_TF32_F32,
    ("tf32", "tf32", "f32", 3): A.DotAlgorithm.DOT_TF32_TF32_F32_X3,
    ("f32", "f32", "f32", 1): A.DotAlgorithm.DOT_F32_F32_F32,
    ("f64", "f64", "f64", 1): A.DotAlgorithm.DOT_F64_F64_F64,
}
"""``#stablehlo.dot_algorithm`` (lhs, rhs, accumulation type, primitive operations) -> the HLO
algorithm; ``stablehlo_print_ops`` prints it back from this table."""


def _algorithm(value: Any) -> A.DotAlgorithm | None:
    if value is None:
        return None
    f = value.fields if isinstance(value, DialectAttr) else value
    key = (
        str(f.get("lhs_precision_type")),
        str(f.get("rhs_precision_type")),
        str(f.get("accumulation_type")),
        int_attr(f.get("num_primitive_operations", 1), "num_primitive_operations"),
    )
    if key[0].startswith("f8") and key[1].startswith("f8") and key[2] == "f32":
        return A.DotAlgorithm.DOT_ANY_F8_ANY_F8_F32
    if key not in DOT_ALGORITHMS:
        raise InvalidArgument(f"dot algorithm {key} has no HLO equivalent")
    return DOT_ALGORITHMS[key]


@lowers("stablehlo.dot")
def _dot(b: Builder, op: Op) -> list[HloInstruction]:
    lhs, rhs = b.operands(op)
    attrs: dict[str, Any] = {
        "lhs_contracting_dims": (lhs.shape.rank - 1,) if lhs.shape.rank else (),
        "rhs_contracting_dims": (0,) if rhs.shape.rank else (),
        "operand_precision": precision(op.attrs.get("precision_config")),
    }
    return [b.add(Opcode.DOT, b.result_shape(op), [lhs, rhs], attrs)]


@lowers("stablehlo.dot_general")
def _dot_general(b: Builder, op: Op) -> list[HloInstruction]:
    dn = op.attrs.get("dot_dimension_numbers")
    f = fields(dn, op, "dot_dimension_numbers") if dn is not None else op.attrs
    attrs: dict[str, Any] = {
        "lhs_batch_dims": ints(f.get("lhs_batching_dimensions")),
        "rhs_batch_dims": ints(f.get("rhs_batching_dimensions")),
        "lhs_contracting_dims": ints(f.get("lhs_contracting_dimensions")),
        "rhs_contracting_dims": ints(f.get("rhs_contracting_dimensions")),
        "operand_precision": precision(op.attrs.get("precision_config")),
        "algorithm": _algorithm(op.attrs.get("algorithm")),
    }
    return [b.add(Opcode.DOT, b.result_shape(op), b.operands(op), attrs)]


def _conv_attrs(
    op: Op, rhs: HloInstruction, dynamic_padding: bool, deferred: list[str] | None = None
) -> dict[str, Any]:
    """The HLO attributes of a convolution or dynamic_conv (spec C2, C5, C7, C9: one window
    attribute entry per spatial dimension).

    A dynamic_conv with a non-constant padding is verified upstream only once the padding is
    known (``hlo::inferDynamicConvOp``), so programs that break C2-C9 there still load (JAX
    once wrote 1-D ``window_strides = array<i64: 2, 2>``): such a list is left out of the
    window and its rule appended to ``deferred``, to be raised when the op runs."""
    dims = op.attrs.get("dimension_numbers")
    if not isinstance(dims, A.ConvolutionDimensionNumbers):
        raise InvalidArgument("convolution needs dimension_numbers")
    rank = rhs.shape.rank if rhs.shape.is_array else 0
    bad = [d for d in dims.kernel_spatial_dimensions if not 0 <= d < rank]
    if bad:
        raise InvalidArgument(
            f"dimension_numbers: kernel spatial dimensions {bad} are out of range for rhs "
            f"{rhs.shape.to_mlir()}"
        )
    sizes = [rhs.shape.dims[d] for d in dims.kernel_spatial_dimensions]
    n = len(sizes)
    pads = [(0, 0)] * n if dynamic_padding else pairs(op.attrs.get("padding")) or None
    lists: dict[str, Any] = {
        "window_strides": ints(op.attrs.get("window_strides")) or None,
        "padding": pads,
        "lhs_dilation": ints(op.attrs.get("lhs_dilation")) or None,
        "rhs_dilation": ints(op.attrs.get("rhs_dilation")) or None,
        "window_reversal": bools(op.attrs.get("window_reversal")) or None,
    }
    for key, value in lists.items():
        if value is not None and len(value) != n:
            message = f"{key} has {len(value)} entries; the convolution has {n} spatial dimensions"
            if deferred is None:
                raise InvalidArgument(message)
            deferred.append(message)
            lists[key] = None
    window = A.Window.make(
        sizes,
        lists["window_strides"],
        lists["padding"],
        lists["lhs_dilation"],
        lists["rhs_dilation"],
        lists["window_reversal"],
    )
    return {
        "window": window,
        "dim_labels": dims,
        "feature_group_count": int_attr(
            op.attrs.get("feature_group_count", 1), "feature_group_count"
        ),
        "batch_group_count": int_attr(op.attrs.get("batch_group_count", 1), "batch_group_count"),
        "operand_precision": precision(op.attrs.get("precision_config")),
    }


@lowers("stablehlo.convolution")
def _convolution(b: Builder, op: Op) -> list[HloInstruction]:
    operands = b.operands(op)
    attrs = _conv_attrs(op, operands[1], dynamic_padding=False)
    return [b.add(Opcode.CONVOLUTION, b.result_shape(op), operands, attrs)]


@lowers("stablehlo.dynamic_conv")
def _dynamic_conv(b: Builder, op: Op) -> list[HloInstruction]:
    operands = b.operands(op)
    constant_padding = len(operands) == 3 and operands[2].opcode is Opcode.CONSTANT
    deferred: list[str] = []
    attrs = _conv_attrs(
        op, operands[1], dynamic_padding=True, deferred=None if constant_padding else deferred
    )
    frontend = {DEFERRED_ERROR: "; ".join(deferred)} if deferred else None
    return [
        b.add(
            Opcode.DYNAMIC_CONV, b.result_shape(op), operands, attrs, frontend_attributes=frontend
        )
    ]


def _gather_dims(f: dict[str, Any]) -> dict[str, Any]:
    return {
        "offset_dims": ints(f.get("offset_dims")),
        "collapsed_slice_dims": ints(f.get("collapsed_slice_dims")),
        "start_index_map": ints(f.get("start_index_map")),
        "operand_batching_dims": ints(f.get("operand_batching_dims")),
        "start_indices_batching_dims": ints(f.get("start_indices_batching_dims")),
        "index_vector_dim": int_attr(f.get("index_vector_dim", 0), "index_vector_dim"),
    }


@lowers("stablehlo.gather")
def _gather(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = _gather_dims(fields(op.attrs.get("dimension_numbers"), op, "dimension_numbers"))
    attrs["slice_sizes"] = ints(op.attrs.get("slice_sizes"))
    attrs["indices_are_sorted"] = bool(op.attrs.get("indices_are_sorted", False))
    return [b.add(Opcode.GATHER, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.dynamic_gather")
def _dynamic_gather(b: Builder, op: Op) -> list[HloInstruction]:
    attrs = _gather_dims(fields(op.attrs.get("dimension_numbers"), op, "dimension_numbers"))
    attrs["indices_are_sorted"] = bool(op.attrs.get("indices_are_sorted", False))
    return [b.add(Opcode.DYNAMIC_GATHER, b.result_shape(op), b.operands(op), attrs)]


# ---- ops with regions -------------------------------------------------------------------------


def need_regions(op: Op, count: int, b: Builder) -> None:
    """Raises InvalidArgument (located at ``op`` by the lowering) unless ``op`` has
    ``count`` regions."""
    if len(op.regions) != count:
        raise InvalidArgument(f"{op.name} needs {count} region(s); got {len(op.regions)}")


@lowers("stablehlo.reduce")
def _reduce(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    attrs = {"dimensions": ints(op.attrs.get("dimensions")),
             "to_apply": b.region(op.regions[0], op.offset)}  # fmt: skip
    return b.multi(op, Opcode.REDUCE, b.operands(op), attrs)


@lowers("stablehlo.map")
def _map(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    attrs = {"dimensions": ints(op.attrs.get("dimensions")),
             "to_apply": b.region(op.regions[0], op.offset)}  # fmt: skip
    return [b.add(Opcode.MAP, b.result_shape(op), b.operands(op), attrs)]


@lowers("stablehlo.sort")
def _sort(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    operands = b.operands(op)
    dim = int_attr(op.attrs.get("dimension", -1), "dimension")
    if dim < 0:
        dim += operands[0].shape.rank
    attrs = {
        "dimensions": (dim,),
        "is_stable": bool(op.attrs.get("is_stable", False)),
        "to_apply": b.region(op.regions[0], op.offset),
    }
    return b.multi(op, Opcode.SORT, operands, attrs)


@lowers("stablehlo.scatter")
def _scatter(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    f = fields(op.attrs.get("scatter_dimension_numbers"), op, "scatter_dimension_numbers")
    attrs = {
        "update_window_dims": ints(f.get("update_window_dims")),
        "inserted_window_dims": ints(f.get("inserted_window_dims")),
        "scatter_dims_to_operand_dims": ints(f.get("scatter_dims_to_operand_dims")),
        "input_batching_dims": ints(f.get("input_batching_dims")),
        "scatter_indices_batching_dims": ints(f.get("scatter_indices_batching_dims")),
        "index_vector_dim": int_attr(f.get("index_vector_dim", 0), "index_vector_dim"),
        "indices_are_sorted": bool(op.attrs.get("indices_are_sorted", False)),
        "unique_indices": bool(op.attrs.get("unique_indices", False)),
        "to_apply": b.region(op.regions[0], op.offset),
    }
    return b.multi(op, Opcode.SCATTER, b.operands(op), attrs)


def _window(op: Op, rank: int, dims_key: str, strides_key: str) -> A.Window:
    sizes = ints(op.attrs.get(dims_key))
    if len(sizes) != rank:
        raise InvalidArgument(f"{dims_key} has {len(sizes)} entries for rank {rank}")
    return A.Window.make(
        sizes,
        ints(op.attrs.get(strides_key)) or None,
        pairs(op.attrs.get("padding")) or None,
        ints(op.attrs.get("base_dilations")) or None,
        ints(op.attrs.get("window_dilations")) or None,
    )


@lowers("stablehlo.reduce_window")
def _reduce_window(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 1, b)
    operands = b.operands(op)
    window = _window(op, operands[0].shape.rank, "window_dimensions", "window_strides")
    attrs = {"window": window, "to_apply": b.region(op.regions[0], op.offset)}
    return b.multi(op, Opcode.REDUCE_WINDOW, operands, attrs)


@lowers("stablehlo.select_and_scatter")
def _select_and_scatter(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 2, b)
    operands = b.operands(op)
    window = _window(op, operands[0].shape.rank, "window_dimensions", "window_strides")
    attrs = {
        "window": window,
        "select": b.region(op.regions[0], op.offset),
        "scatter": b.region(op.regions[1], op.offset),
    }
    return [b.add(Opcode.SELECT_AND_SCATTER, b.result_shape(op), operands, attrs)]


@lowers("stablehlo.while")
def _while(b: Builder, op: Op) -> list[HloInstruction]:
    need_regions(op, 2, b)
    operands = b.operands(op)
    captured = b.captures(op.regions, op.offset)
    extra = [b.lookup(k, op.offset) for k in captured]
    state_values = operands + extra
    state = [v.shape for v in state_values]
    n = len(operands)

    def cond_root(child: Builder, returned: list[HloInstruction], _: list[HloInstruction]
                  ) -> HloInstruction:  # fmt: skip
        if len(returned) != 1:
            raise InvalidArgument("the while condition must return one boolean")
        return returned[0]

    def body_root(child: Builder, returned: list[HloInstruction], passed: list[HloInstruction]
                  ) -> HloInstruction:  # fmt: skip
        if len(returned) != n:
            raise InvalidArgument(f"the while body returns {len(returned)} values; expected {n}")
        return child.pack(returned + passed)

    cond = b.region_with_state(op.regions[0], op.offset, state, n, captured, cond_root)
    body = b.region_with_state(op.regions[1], op.offset, state, n, captured, body_root)
    init = b.pack(state_values)
    loop = b.add(Opcode.WHILE, init.shape, [init], {"condition": cond, "body": body})
    if len(state_values) == 1:
        return [loop]
    return b.unpack(loop, n)


@lowers("stablehlo.if", "stablehlo.case")
def _conditional(b: Builder, op: Op) -> list[HloInstruction]:
    (selector,) = b.operands(op)
    comps: list[Any] = []
    args: list[HloInstruction] = []
    for i in range(len(op.regions)):
        comp, arg = _branch_packed(b, op, i)
        comps.append(comp)
        args.append(arg)
    if op.name == "stablehlo.if":
        if len(comps) != 2:
            raise InvalidArgument("if needs two regions")
        attrs: dict[str, Any] = {"true_computation": comps[0], "false_computation": comps[1]}
    else:
        attrs = {"branch_computations": tuple(comps)}
    shapes = b.result_shapes(op)
    shape = shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)
    cond = b.add(Opcode.CONDITIONAL, shape, [selector, *args], attrs)
    if len(shapes) == 1:
        return [cond]
    return b.unpack(cond)


def _branch_packed(b: Builder, op: Op, index: int) -> tuple[Any, HloInstruction]:
    """A branch computation taking its captured values (one value, or a tuple of them) and the
    operand passing them."""
    region = op.regions[index]
    captured = b.captures([region], op.offset)
    values = [b.lookup(k, op.offset) for k in captured]
    shapes = b.result_shapes(op)

    def root(child: Builder, returned: list[HloInstruction], _: list[HloInstruction]
             ) -> HloInstruction:  # fmt: skip
        if len(returned) != len(shapes):
            raise InvalidArgument(
                f"branch {index} returns {len(returned)} values; the op has {len(shapes)} results"
            )
        return child.pack(returned)

    comp = b.region_with_state(region, op.offset, [v.shape for v in values], 0, captured, root)
    return comp, b.pack(values)


# ---- calls ------------------------------------------------------------------------------------


@lowers("func.call")
def _call(b: Builder, op: Op) -> list[HloInstruction]:
    target = op.attrs.get("callee")
    comp = callee(b, target, op)
    assert isinstance(target, SymbolRef)
    call = b.add(Opcode.CALL, comp.root.shape, b.operands(op), {"to_apply": comp})
    return _call_results(b, call, len(b.module.ast.functions[target.name].result_types))


def _call_results(b: Builder, call: HloInstruction, count: int) -> list[HloInstruction]:
    """A function with one result returns it; with none or several, a tuple of them."""
    if count == 1:
        return [call]
    return b.unpack(call, count)


@lowers("stablehlo.composite")
def _composite(b: Builder, op: Op) -> list[HloInstruction]:
    comp = callee(b, op.attrs.get("decomposition"), op)
    frontend = {
        "composite.name": str(op.attrs.get("name", "")),
        "composite.attributes": op.raw.get("composite_attributes", "{}"),
        "composite.version": str(int_attr(op.attrs.get("version", 0), "version")),
    }
    call = b.add(Opcode.CALL, comp.root.shape, b.operands(op),
                 {"to_apply": comp, "is_composite": True}, frontend_attributes=frontend)  # fmt: skip
    name = op.attrs["decomposition"].name
    return _call_results(b, call, len(b.module.ast.functions[name].result_types))
