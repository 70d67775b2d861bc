"""StableHLO emitters of the elementwise, data-movement, contraction and misc. HLO ops: the
inverse of ``stablehlo_ops`` (same attribute spellings), in the pretty forms JAX prints.

Elementwise ops with no attributes (``result_accuracy`` aside) come from the opcode registry
(``OpDef.stablehlo``): ``stablehlo.X %a, %b : T`` when every operand has the result type,
``: (T1, T2) -> R`` otherwise; CHLO ops print ``chlo.X %a : T -> R``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.ir import attrs as A
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import REGISTRY, Trait
from xlapy.literal import Literal
from xlapy.literal import Value as HostValue
from xlapy.shape import Layout, Shape
from xlapy.text.stablehlo_ops import DOT_ALGORITHMS
from xlapy.text.stablehlo_print_dense import float_texts, format_dense
from xlapy.text.stablehlo_printer import (
    Pack,
    Scope,
    Ssa,
    Value,
    emits,
    function_type,
    generic,
    names,
    result_shapes,
    types,
    unflatten,
    unsupported,
)


def int_list(values: Sequence[int]) -> str:
    """``[1, 2]``."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def signature(operands: Sequence[Ssa], result: Shape) -> str:
    """``T`` when every operand has the result type, else ``(T1, T2) -> R`` (MLIR's
    SameOperandsAndResultType printing)."""
    if operands and all(o.shape.to_mlir() == result.to_mlir() for o in operands):
        return result.to_mlir()
    return function_type(operands, [result])


def arrays(scope: Scope, instr: HloInstruction, operands: Sequence[Value]) -> list[Ssa]:
    """The operands as single MLIR values (tuples packed with ``stablehlo.tuple``)."""
    return [scope.ssa(o, f"operand {i} of {instr.name}") for i, o in enumerate(operands)]


def results(scope: Scope, base: str, text: str, shape: Shape) -> Value:
    """Defines an op with one result per element of a tuple ``shape`` (a Pack of them), or
    one result."""
    if shape.is_tuple:
        return Pack(tuple(scope.define(base, text, result_shapes(shape))))
    return scope.define(base, text, [shape])[0]


def precision_config(instr: HloInstruction) -> list[str]:
    """``#stablehlo<precision X>`` of each operand (empty when unset)."""
    out = []
    for p in instr.attrs.operand_precision:
        if p is A.Precision.PACKED_NIBBLE:
            raise unsupported(instr, "packed_nibble precision has no StableHLO form", p.value)
        out.append(p.name)
    return out


# ---- elementwise ----------------------------------------------------------------------------


def _accuracy(instr: HloInstruction) -> str:
    """`` {result_accuracy = ...}`` when set to something other than the default."""
    if instr.opdef.attr("result_accuracy") is None:
        return ""
    value = instr.attrs.result_accuracy
    if value is None or value == A.ResultAccuracy():
        return ""
    if value.is_tolerance:
        atol, rtol = float_texts(np.array([value.atol, value.rtol]), dtypes.F64)
        fields = f"atol = {atol}, rtol = {rtol}, ulps = {value.ulps}, mode = "
        mode = "TOLERANCE"
    else:
        fields, mode = "mode = ", value.mode.upper()
    return (
        f" {{result_accuracy = #stablehlo.result_accuracy<{fields}"
        f"#stablehlo.result_accuracy_mode<{mode}>>}}"
    )


def _elementwise(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    name = ELEMENTWISE[instr.opcode]
    args = arrays(scope, instr, operands)
    if name.startswith("chlo."):
        text = f"{name} {names(args)} : {types(args)} -> {instr.shape.to_mlir()}"
    else:
        text = f"{name} {names(args)}{_accuracy(instr)} : {signature(args, instr.shape)}"
    return scope.op1(text, instr.shape)


_NOT_PRINTED = frozenset({Opcode.SELECT})
ELEMENTWISE: dict[Opcode, str] = {
    d.opcode: d.stablehlo[0] if "." in d.stablehlo[0] else f"stablehlo.{d.stablehlo[0]}"
    for d in REGISTRY.values()
    if Trait.ELEMENTWISE in d.traits
    and d.stablehlo
    and d.opcode not in _NOT_PRINTED
    and all(spec.name == "result_accuracy" for spec in d.attrs)
}
"""The elementwise ops printed from the registry, by their (first) StableHLO/CHLO name."""

emits(*ELEMENTWISE)(_elementwise)


@emits(Opcode.SELECT)
def _select(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    pred, on_true, on_false = arrays(scope, instr, operands)
    result = instr.shape.to_mlir()
    if on_true.shape.to_mlir() == on_false.shape.to_mlir() == result:
        sig = f"{pred.shape.to_mlir()}, {result}"
    else:
        sig = function_type([pred, on_true, on_false], [instr.shape])
    return scope.op1(f"stablehlo.select {names([pred, on_true, on_false])} : {sig}", instr.shape)


@emits(Opcode.COMPARE)
def _compare(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    lhs, rhs = arrays(scope, instr, operands)
    kind = instr.attrs.type
    suffix = f", {kind.name}" if kind is not None else ""
    text = (
        f"stablehlo.compare {instr.attrs.direction.name}, {lhs.name}, {rhs.name}{suffix} : "
        f"{function_type([lhs, rhs], [instr.shape])}"
    )
    return scope.op1(text, instr.shape)


@emits(Opcode.REDUCE_PRECISION)
def _reduce_precision(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    fmt = f"e{instr.attrs.exponent_bits}m{instr.attrs.mantissa_bits}"
    sig = signature([x], instr.shape)
    return scope.op1(f"stablehlo.reduce_precision {x.name}, format = {fmt} : {sig}", instr.shape)


@emits(Opcode.BITCAST_CONVERT)
def _bitcast_convert(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    sig = function_type([x], [instr.shape])
    return scope.op1(f"stablehlo.bitcast_convert {x.name} : {sig}", instr.shape)


@emits(Opcode.COPY, Opcode.DOMAIN, Opcode.ADD_DEPENDENCY)
def _identity(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """``copy`` and ``domain`` are their operand (layouts and sharding domains are not
    values); ``add-dependency`` is its first operand (the token only orders)."""
    return operands[0]


# ---- constants and generated values ---------------------------------------------------------


def constant(scope: Scope, shape: Shape, value: HostValue) -> Value:
    """``stablehlo.constant`` of an array literal; a tuple literal is a Pack of them."""
    if shape.is_tuple:
        assert isinstance(value, tuple)
        items = zip(shape.tuple_shapes, value, strict=True)
        return Pack(tuple(constant(scope, s, v) for s, v in items))
    if shape.is_token:
        return scope.op1("stablehlo.after_all  : !stablehlo.token", shape)
    assert isinstance(value, np.ndarray)
    etype = shape.element_type
    if isinstance(etype, dtypes.QuantizedType):
        # The value is written with its storage integers, so the op takes its generic form.
        stored = format_dense(Literal(shape.with_element_type(etype.storage), value))
        return scope.op1(generic("stablehlo.constant", [], [shape], [f"value = {stored}"]), shape)
    return scope.op1(f"stablehlo.constant {format_dense(Literal(shape, value))}", shape)


@emits(Opcode.CONSTANT)
def _constant(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    literal = instr.attrs.literal
    if literal.elided:
        raise unsupported(instr, "the constant's values were elided ({...})", instr.shape)
    return constant(scope, instr.shape.without_layout(), literal.value)


@emits(Opcode.IOTA)
def _iota(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    dim = instr.attrs.iota_dimension
    return scope.op1(f"stablehlo.iota dim = {dim} : {instr.shape.to_mlir()}", instr.shape)


@emits(Opcode.PARTITION_ID, Opcode.REPLICA_ID)
def _device_id(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    name = "partition_id" if instr.opcode is Opcode.PARTITION_ID else "replica_id"
    return scope.op1(f"stablehlo.{name} : {instr.shape.to_mlir()}", instr.shape)


@emits(Opcode.AFTER_ALL)
def _after_all(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    return scope.op1(f"stablehlo.after_all {names(args)} : !stablehlo.token", instr.shape)


@emits(Opcode.RNG)
def _rng(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    a, b = arrays(scope, instr, operands)
    dims = np.array(instr.shape.dims, np.int64)
    shape_type = Shape.array(dtypes.S64, [len(dims)])
    sizes = scope.op1(f"stablehlo.constant {format_dense(Literal(shape_type, dims))}", shape_type)
    dist = instr.attrs.distribution.name
    sig = function_type([a, b, sizes], [instr.shape])
    text = f"stablehlo.rng {names([a, b, sizes])}, distribution = {dist} : {sig}"
    return scope.op1(text, instr.shape)


@emits(Opcode.RNG_BIT_GENERATOR)
def _rng_bit_generator(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (state,) = arrays(scope, instr, operands)
    shapes = list(instr.shape.tuple_shapes)
    text = (
        f"stablehlo.rng_bit_generator {state.name}, algorithm = {instr.attrs.algorithm.name} : "
        f"{function_type([state], shapes)}"
    )
    return results(scope, scope.reserve(), text, instr.shape)


# ---- data movement --------------------------------------------------------------------------


@emits(Opcode.BROADCAST)
def _broadcast(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    dims = int_list(instr.attrs.dimensions)
    sig = function_type([x], [instr.shape])
    return scope.op1(f"stablehlo.broadcast_in_dim {x.name}, dims = {dims} : {sig}", instr.shape)


def reshape(scope: Scope, x: Ssa, shape: Shape) -> Ssa:
    if x.shape.to_mlir() == shape.to_mlir():
        return x
    return scope.op1(f"stablehlo.reshape {x.name} : {function_type([x], [shape])}", shape)


def transpose(scope: Scope, x: Ssa, perm: Sequence[int]) -> Ssa:
    if list(perm) == list(range(len(perm))):
        return x
    shape = Shape.array(x.shape.element_type, [x.shape.dims[p] for p in perm])
    sig = function_type([x], [shape])
    return scope.op1(f"stablehlo.transpose {x.name}, dims = {int_list(perm)} : {sig}", shape)


@emits(Opcode.RESHAPE)
def _reshape(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    sig = function_type([x], [instr.shape])
    return scope.op1(f"stablehlo.reshape {x.name} : {sig}", instr.shape)


@emits(Opcode.TRANSPOSE)
def _transpose(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    dims = int_list(instr.attrs.dimensions)
    sig = function_type([x], [instr.shape])
    return scope.op1(f"stablehlo.transpose {x.name}, dims = {dims} : {sig}", instr.shape)


@emits(Opcode.REVERSE)
def _reverse(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    dims = int_list(instr.attrs.dimensions)
    sig = signature([x], instr.shape)
    return scope.op1(f"stablehlo.reverse {x.name}, dims = {dims} : {sig}", instr.shape)


def _physical_order(instr: HloInstruction, layout: Layout | None, rank: int) -> list[int]:
    """Dimensions major to minor under ``layout``."""
    if layout is None or not layout.minor_to_major:
        return list(range(rank))
    if layout.tiles:
        raise unsupported(instr, "a bitcast between tiled layouts has no StableHLO form", layout)
    return list(reversed(layout.minor_to_major))


@emits(Opcode.BITCAST)
def _bitcast(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    """A bitcast reads the operand in its physical order and writes the result in its own:
    transpose to the operand's physical order, reshape (and ``bitcast_convert`` for another
    element type of the same width) to the result's physical dims, transpose back to the
    result's logical order."""
    (x,) = arrays(scope, instr, operands)
    source, result = instr.operands[0].shape, instr.shape
    if source.element_type.bits != result.element_type.bits:
        raise unsupported(
            instr, "a bitcast that changes the element width has no StableHLO form",
            f"{source} to {result}",
        )  # fmt: skip
    source_order = _physical_order(instr, source.layout, source.rank)
    result_order = _physical_order(instr, result.layout, result.rank)
    physical = transpose(scope, x, source_order)
    result_dims = [result.dims[d] for d in result_order]
    value = reshape(scope, physical, Shape.array(source.element_type, result_dims))
    if result.element_type is not source.element_type:
        converted = value.shape.with_element_type(result.element_type)
        sig = function_type([value], [converted])
        value = scope.op1(f"stablehlo.bitcast_convert {value.name} : {sig}", converted)
    inverse = [result_order.index(d) for d in range(result.rank)]
    return transpose(scope, value, inverse)


@emits(Opcode.SLICE)
def _slice(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    ranges = ", ".join(
        f"{d.start}:{d.limit}" + (f":{d.stride}" if d.stride != 1 else "")
        for d in instr.attrs.slice.dimensions
    )
    sig = function_type([x], [instr.shape])
    return scope.op1(f"stablehlo.slice {x.name} [{ranges}] : {sig}", instr.shape)


@emits(Opcode.DYNAMIC_SLICE)
def _dynamic_slice(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    sizes = int_list(instr.attrs.dynamic_slice_sizes)
    sig = function_type(args, [instr.shape])
    return scope.op1(f"stablehlo.dynamic_slice {names(args)}, sizes = {sizes} : {sig}", instr.shape)


@emits(Opcode.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    sig = function_type(args, [instr.shape])
    return scope.op1(f"stablehlo.dynamic_update_slice {names(args)} : {sig}", instr.shape)


@emits(Opcode.CONCATENATE)
def _concatenate(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    (dim,) = instr.attrs.dimensions
    sig = function_type(args, [instr.shape])
    return scope.op1(f"stablehlo.concatenate {names(args)}, dim = {dim} : {sig}", instr.shape)


@emits(Opcode.PAD)
def _pad(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    dims = instr.attrs.padding.dimensions
    text = (
        f"stablehlo.pad {names(args)}, low = {int_list([d.low for d in dims])}, "
        f"high = {int_list([d.high for d in dims])}, "
        f"interior = {int_list([d.interior for d in dims])} : {function_type(args, [instr.shape])}"
    )
    return scope.op1(text, instr.shape)


@emits(Opcode.TUPLE)
def _tuple(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return Pack(tuple(operands))


@emits(Opcode.GET_TUPLE_ELEMENT)
def _get_tuple_element(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    return scope.element(operands[0], instr.attrs.index)


@emits(Opcode.OPTIMIZATION_BARRIER)
def _optimization_barrier(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    leaves = scope.leaves(operands[0])
    if not leaves:
        return operands[0]
    text = f"stablehlo.optimization_barrier {names(leaves)} : {types(leaves)}"
    return unflatten(instr.shape, iter(scope.op(text, [v.shape for v in leaves])))


# ---- contractions and linear algebra ----------------------------------------------------------

_ALGORITHM_TYPES = {algorithm: key for key, algorithm in DOT_ALGORITHMS.items()}


def _dot_algorithm(instr: HloInstruction, lhs: Ssa, rhs: Ssa) -> str:
    """``algorithm = <...>`` (pretty form) of a dot's ``algorithm`` attribute."""
    algorithm = instr.attrs.algorithm
    if algorithm is None or algorithm is A.DotAlgorithm.UNSET:
        return ""
    fast = algorithm is A.DotAlgorithm.DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM
    if algorithm in (
        A.DotAlgorithm.DOT_ANY_F8_ANY_F8_F32,
        A.DotAlgorithm.DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM,
    ):
        key = (lhs.shape.element_type.mlir, rhs.shape.element_type.mlir, "f32", 1)
    else:
        key = _ALGORITHM_TYPES[algorithm]
    return (
        f", algorithm = <lhs_precision_type = {key[0]}, rhs_precision_type = {key[1]}, "
        f"accumulation_type = {key[2]}, lhs_component_count = 1, rhs_component_count = 1, "
        f"num_primitive_operations = {key[3]}, allow_imprecise_accumulation = "
        f"{'true' if fast else 'false'}>"
    )


@emits(Opcode.DOT)
def _dot(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    lhs, rhs = arrays(scope, instr, operands)
    a = instr.attrs
    parts = [f"stablehlo.dot_general {lhs.name}, {rhs.name}"]
    if a.lhs_batch_dims or a.rhs_batch_dims:
        parts.append(f"batching_dims = {int_list(a.lhs_batch_dims)} x {int_list(a.rhs_batch_dims)}")
    parts.append(
        f"contracting_dims = {int_list(a.lhs_contracting_dims)} x "
        f"{int_list(a.rhs_contracting_dims)}"
    )
    precision = precision_config(instr)
    if precision:
        parts.append(f"precision = [{', '.join(precision)}]")
    text = ", ".join(parts) + _dot_algorithm(instr, lhs, rhs)
    return scope.op1(f"{text} : {function_type([lhs, rhs], [instr.shape])}", instr.shape)


def conv_labels(dims: A.ConvolutionDimensionNumbers) -> str:
    """``[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]`` of HLO ``dim_labels``."""
    lhs_rhs, out = dims.to_labels().split("->")
    lhs, rhs = lhs_rhs.split("_")
    return "x".join(f"[{', '.join(side)}]" for side in (lhs, rhs)) + f"->[{', '.join(out)}]"


def conv_window(window: A.Window) -> dict[str, str]:
    """The window of a convolution as StableHLO attribute texts, by generic name (strides,
    padding, dilations, reversal; the sizes come from the kernel)."""
    dims = window.dimensions
    pads = ", ".join(f"[{d.padding_low}, {d.padding_high}]" for d in dims)
    return {
        "window_strides": int_list([d.stride for d in dims]),
        "padding": f"[{pads}]",
        "lhs_dilation": int_list([d.base_dilation for d in dims]),
        "rhs_dilation": int_list([d.window_dilation for d in dims]),
        "window_reversal": "["
        + ", ".join("true" if d.window_reversal else "false" for d in dims)
        + "]",
    }


def conv_attrs(instr: HloInstruction) -> list[str]:
    """The trailing attributes of a convolution (group counts, precision)."""
    out = [
        f"batch_group_count = {instr.attrs.batch_group_count} : i64",
        f"feature_group_count = {instr.attrs.feature_group_count} : i64",
    ]
    precision = precision_config(instr)
    if precision:
        listed = ", ".join(f"#stablehlo<precision {p}>" for p in precision)
        out.append(f"precision_config = [{listed}]")
    return out


_PRETTY_WINDOW = {
    "window_strides": "stride",
    "padding": "pad",
    "lhs_dilation": "lhs_dilate",
    "rhs_dilation": "rhs_dilate",
    "window_reversal": "reverse",
}


@emits(Opcode.CONVOLUTION)
def _convolution(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    lhs, rhs = arrays(scope, instr, operands)
    window = conv_window(instr.attrs.window)
    entries = ""
    if instr.attrs.window.dimensions:
        entries = ", ".join(f"{_PRETTY_WINDOW[k]} = {v}" for k, v in window.items())
    text = (
        f"stablehlo.convolution({lhs.name}, {rhs.name}) "
        f"dim_numbers = {conv_labels(instr.attrs.dim_labels)}, window = {{{entries}}} "
        f"{{{', '.join(conv_attrs(instr))}}} : {function_type([lhs, rhs], [instr.shape])}"
    )
    return scope.op1(text, instr.shape)


@emits(Opcode.FFT)
def _fft(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    a = instr.attrs
    text = (
        f"stablehlo.fft {x.name}, type = {a.fft_type.name}, length = {int_list(a.fft_length)} : "
        f"{function_type([x], [instr.shape])}"
    )
    return scope.op1(text, instr.shape)


@emits(Opcode.CHOLESKY)
def _cholesky(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    (x,) = arrays(scope, instr, operands)
    lower = ", lower = true" if instr.attrs.lower else ""
    return scope.op1(
        f"stablehlo.cholesky {x.name}{lower} : {signature([x], instr.shape)}", instr.shape
    )


@emits(Opcode.TRIANGULAR_SOLVE)
def _triangular_solve(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    a = instr.attrs
    props = [
        *(
            f"{key} = {'true' if a[key] else 'false'}"
            for key in ("left_side", "lower", "unit_diagonal")
        ),
        f"transpose_a = #stablehlo<transpose {a.transpose_a.name}>",
    ]
    return scope.op1(generic("stablehlo.triangular_solve", args, [instr.shape], props), instr.shape)


@emits(Opcode.BATCH_NORM_INFERENCE, Opcode.BATCH_NORM_TRAINING, Opcode.BATCH_NORM_GRAD)
def _batch_norm(scope: Scope, instr: HloInstruction, operands: list[Value]) -> Value:
    args = arrays(scope, instr, operands)
    (epsilon,) = float_texts(np.array([instr.attrs.epsilon], np.float32), dtypes.F32)
    props = [f"epsilon = {epsilon} : f32", f"feature_index = {instr.attrs.feature_index} : i64"]
    name = "stablehlo." + instr.opcode.value.replace("-", "_")
    text = generic(name, args, result_shapes(instr.shape), props)
    return results(scope, scope.reserve(), text, instr.shape)
