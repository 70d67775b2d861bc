"""Builder ops that compute over many elements: Dot, DotGeneral, RaggedDot, ScaledDot, the
Conv family, Fft, Cholesky, TriangularSolve, BatchNorm*, Map, Reduce, ReduceWindow,
SelectAndScatter, Sort, TopK and Scan. Re-exported by ``xlapy.builder.ops``."""

# ruff: noqa: N802

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xlapy import dtypes
from xlapy.builder.config import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FftType,
    Padding,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    TransposeA,
    precision_attr,
)
from xlapy.builder.helpers import (
    enum_arg,
    etype,
    ints,
    make_padding,
    op_list,
    pick_builder,
    split_builder,
)
from xlapy.builder.xla_builder import ComputationLike, XlaBuilder, XlaOp
from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import Precision, Window
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.shape_inference import infer_shape, make_attrs

PrecisionArg = PrecisionConfig | Sequence[Precision] | Precision | None

# ---- contractions ----------------------------------------------------------------------


def _with_preferred(
    builder: XlaBuilder,
    opcode: Opcode,
    operands: Sequence[XlaOp],
    attrs: dict[str, Any],
    preferred_element_type: object,
) -> XlaOp:
    """Adds a dot-like op whose result element type is ``preferred_element_type`` if given."""
    result = None
    if preferred_element_type is not None:
        for op in operands:
            builder.check_owned(op)
        inferred = infer_shape(opcode, [o.shape for o in operands], make_attrs(opcode, attrs))
        result = inferred.with_element_type(etype(preferred_element_type))
    return builder.add(opcode, operands, attrs, result)


def _dot_attrs(dnums: DotDimensionNumbers, precision_config: PrecisionArg) -> dict[str, Any]:
    return {
        "lhs_batch_dims": ints(dnums.lhs_batch_dimensions, "lhs_batch_dimensions"),
        "lhs_contracting_dims": ints(dnums.lhs_contracting_dimensions, "lhs_contracting_dims"),
        "rhs_batch_dims": ints(dnums.rhs_batch_dimensions, "rhs_batch_dimensions"),
        "rhs_contracting_dims": ints(dnums.rhs_contracting_dimensions, "rhs_contracting_dims"),
        "operand_precision": precision_attr(precision_config),
    }


def Dot(
    lhs: XlaOp,
    rhs: XlaOp,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """Vector/matrix products of rank-1/2 operands: contracts lhs's last dimension with rhs's
    first (OPS.md Dot)."""
    for op, what in ((lhs, "lhs"), (rhs, "rhs")):
        if not isinstance(op, XlaOp) or not op.shape.is_array or op.ndim not in (1, 2):
            shape = op.shape.to_hlo(layout=False) if isinstance(op, XlaOp) else repr(op)
            raise InvalidArgument(f"dot: Dot takes rank-1 or rank-2 operands; got {shape} ({what})")
    dnums = DotDimensionNumbers((lhs.ndim - 1,), (0,))
    return _with_preferred(
        lhs.builder, Opcode.DOT, [lhs, rhs], _dot_attrs(dnums, precision_config),
        preferred_element_type,
    )  # fmt: skip


def DotGeneral(
    lhs: XlaOp,
    rhs: XlaOp,
    dimension_numbers: DotDimensionNumbers,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """Contraction over the contracting dims, batched over the batch dims; result dims are
    batch, lhs free, rhs free (OPS.md DotGeneral)."""
    return _with_preferred(
        lhs.builder, Opcode.DOT, [lhs, rhs], _dot_attrs(dimension_numbers, precision_config),
        preferred_element_type,
    )  # fmt: skip


def RaggedDot(
    lhs: XlaOp,
    rhs: XlaOp,
    group_sizes: XlaOp,
    dimension_numbers: RaggedDotDimensionNumbers,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """A dot whose lhs ragged dimension is split into groups of ``group_sizes`` (OPS.md
    RaggedDot; chlo.ragged_dot)."""
    attrs = _dot_attrs(dimension_numbers.dot_dimension_numbers, precision_config)
    attrs["lhs_ragged_dims"] = ints(dimension_numbers.lhs_ragged_dimensions, "lhs_ragged_dims")
    attrs["rhs_group_dims"] = ints(dimension_numbers.rhs_group_dimensions, "rhs_group_dims")
    return _with_preferred(
        lhs.builder, Opcode.RAGGED_DOT, [lhs, rhs, group_sizes], attrs, preferred_element_type
    )


def ScaledDot(
    lhs: XlaOp,
    lhs_scale: XlaOp,
    rhs: XlaOp,
    rhs_scale: XlaOp,
    dimension_number: DotDimensionNumbers,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """DotGeneral of the block-scaled operands (OPS.md ScaledDot)."""
    return _with_preferred(
        lhs.builder, Opcode.SCALED_DOT, [lhs, lhs_scale, rhs, rhs_scale],
        _dot_attrs(dimension_number, precision_config), preferred_element_type,
    )  # fmt: skip


# ---- convolution -----------------------------------------------------------------------


def default_conv_dimension_numbers(num_spatial_dims: int) -> ConvolutionDimensionNumbers:
    """lhs [batch, feature, spatial...], rhs [output-z, input-z, spatial...], output [batch,
    feature, spatial...] (OPS.md Conv)."""
    spatial = tuple(range(2, 2 + num_spatial_dims))
    return ConvolutionDimensionNumbers(0, 1, spatial, 1, 0, spatial, 0, 1, spatial)


def _dnums(
    value: ConvolutionDimensionNumbers | str | None, rank: int
) -> ConvolutionDimensionNumbers:
    if value is None:
        return default_conv_dimension_numbers(max(rank - 2, 0))
    if isinstance(value, str):
        try:
            return ConvolutionDimensionNumbers.from_labels(value)
        except InvalidArgument as err:
            raise InvalidArgument(f"convolution: {err}") from None
    return value


def _count(values: Sequence[Any] | None, n: int, what: str, label: str) -> None:
    if values is not None and len(values) != n:
        raise InvalidArgument(
            f"convolution [{label}]: {what} must have one entry per spatial dimension ({n}); "
            f"got {list(values)}"
        )


def ConvGeneralDilated(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]] | Padding | str,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: ConvolutionDimensionNumbers | str | None = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
    window_reversal: Sequence[bool] | None = None,
) -> XlaOp:
    """The most general convolution: explicit padding, dilations, dimension numbers, groups
    and window reversal (OPS.md ConvGeneralDilated)."""
    b = lhs.builder
    b.check_owned(rhs, "convolution: rhs")
    dnums = _dnums(dimension_numbers, lhs.ndim)
    n = len(dnums.input_spatial_dimensions)
    strides = ints(window_strides, "window_strides")
    _count(strides, n, "window_strides", "C3")
    _count(lhs_dilation, n, "lhs_dilation", "C6")
    _count(rhs_dilation, n, "rhs_dilation", "C8")
    _count(window_reversal, n, "window_reversal", "C10")
    if max(dnums.kernel_spatial_dimensions, default=-1) >= rhs.ndim or (
        max(dnums.input_spatial_dimensions, default=-1) >= lhs.ndim
    ):
        raise InvalidArgument(
            f"convolution [C14]: dimension numbers {dnums} do not fit lhs "
            f"{lhs.shape.to_hlo(layout=False)} and rhs {rhs.shape.to_hlo(layout=False)}"
        )
    kernel = [rhs.shape.dims[d] for d in dnums.kernel_spatial_dimensions]
    base = [lhs.shape.dims[d] for d in dnums.input_spatial_dimensions]
    if not isinstance(padding, Padding | str):
        _count(list(padding), n, "padding", "C5")
    pads = make_padding(padding, base, kernel, strides)
    window = Window.make(
        kernel,
        strides,
        pads,
        ints(lhs_dilation, "lhs_dilation") if lhs_dilation is not None else None,
        ints(rhs_dilation, "rhs_dilation") if rhs_dilation is not None else None,
        [bool(r) for r in window_reversal] if window_reversal is not None else None,
    )
    attrs = {
        "window": window,
        "dim_labels": dnums,
        "feature_group_count": int(feature_group_count),
        "batch_group_count": int(batch_group_count),
        "operand_precision": precision_attr(precision_config),
    }
    return _with_preferred(b, Opcode.CONVOLUTION, [lhs, rhs], attrs, preferred_element_type)


def ConvGeneral(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    dimension_numbers: ConvolutionDimensionNumbers | str,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """Convolution with explicit padding and dimension numbers (OPS.md ConvGeneral)."""
    return ConvGeneralDilated(
        lhs, rhs, window_strides, padding, None, None, dimension_numbers, feature_group_count,
        batch_group_count, precision_config, preferred_element_type,
    )  # fmt: skip


def ConvWithGeneralDimensions(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Padding | str,
    dimension_numbers: ConvolutionDimensionNumbers | str,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """Convolution with SAME/VALID padding and explicit dimension numbers."""
    return ConvGeneralDilated(
        lhs, rhs, window_strides, padding, None, None, dimension_numbers, feature_group_count,
        batch_group_count, precision_config, preferred_element_type,
    )  # fmt: skip


def ConvWithGeneralPadding(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """Convolution with explicit (low, high) padding and default dimension numbers."""
    return ConvGeneralDilated(
        lhs, rhs, window_strides, padding, None, None, None, feature_group_count,
        batch_group_count, precision_config, preferred_element_type,
    )  # fmt: skip


def Conv(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Padding | str,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionArg = None,
    preferred_element_type: object = None,
) -> XlaOp:
    """Convolution with SAME/VALID padding and default dimension numbers (OPS.md Conv)."""
    return ConvGeneralDilated(
        lhs, rhs, window_strides, padding, None, None, None, feature_group_count,
        batch_group_count, precision_config, preferred_element_type,
    )  # fmt: skip


# ---- fft and linear algebra ----------------------------------------------------------


def Fft(operand: XlaOp, fft_type: FftType | str, fft_length: Sequence[int]) -> XlaOp:
    """FFT / IFFT / RFFT / IRFFT over the innermost ``len(fft_length)`` axes (OPS.md Fft)."""
    kind = enum_arg(FftType, fft_type, "fft_type")
    return operand.builder.add(
        Opcode.FFT, [operand], {"fft_type": kind, "fft_length": ints(fft_length, "fft_length")}
    )


def Cholesky(a: XlaOp, lower: bool = True) -> XlaOp:
    """Batched Cholesky decomposition from the ``lower`` or upper triangle (OPS.md Cholesky)."""
    return a.builder.add(Opcode.CHOLESKY, [a], {"lower": bool(lower) or None})


def TriangularSolve(
    a: XlaOp,
    b: XlaOp,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: TransposeA | str = TransposeA.NO_TRANSPOSE,
) -> XlaOp:
    """Solves ``op(a) x = b`` (left_side) or ``x op(a) = b`` (OPS.md TriangularSolve)."""
    transpose = enum_arg(TransposeA, transpose_a, "transpose_a")
    attrs = {
        "left_side": bool(left_side) or None,
        "lower": bool(lower) or None,
        "unit_diagonal": bool(unit_diagonal) or None,
        "transpose_a": transpose,
    }
    return a.builder.add(Opcode.TRIANGULAR_SOLVE, [a, b], attrs)


def _bn_attrs(epsilon: float, feature_index: int) -> dict[str, Any]:
    return {"epsilon": float(epsilon), "feature_index": int(feature_index)}


def BatchNormTraining(
    operand: XlaOp, scale: XlaOp, offset: XlaOp, epsilon: float, feature_index: int
) -> XlaOp:
    """(output, batch_mean, batch_var) normalized with batch statistics (OPS.md)."""
    return operand.builder.add(
        Opcode.BATCH_NORM_TRAINING, [operand, scale, offset], _bn_attrs(epsilon, feature_index)
    )


def BatchNormInference(
    operand: XlaOp,
    scale: XlaOp,
    offset: XlaOp,
    mean: XlaOp,
    variance: XlaOp,
    epsilon: float,
    feature_index: int,
) -> XlaOp:
    """Normalizes with the given mean and variance (OPS.md BatchNormInference)."""
    return operand.builder.add(
        Opcode.BATCH_NORM_INFERENCE,
        [operand, scale, offset, mean, variance],
        _bn_attrs(epsilon, feature_index),
    )


def BatchNormGrad(
    operand: XlaOp,
    scale: XlaOp,
    batch_mean: XlaOp,
    batch_var: XlaOp,
    grad_output: XlaOp,
    epsilon: float,
    feature_index: int,
) -> XlaOp:
    """(grad_operand, grad_scale, grad_offset) of batch normalization (OPS.md)."""
    return operand.builder.add(
        Opcode.BATCH_NORM_GRAD,
        [operand, scale, batch_mean, batch_var, grad_output],
        _bn_attrs(epsilon, feature_index),
    )


# ---- computations over arrays --------------------------------------------------------


def _scalars(ops_: Sequence[XlaOp]) -> list[Shape]:
    return [Shape.scalar(o.dtype) for o in ops_]


def Map(*args: Any, static_operands: Sequence[XlaOp] = ()) -> XlaOp:
    """Applies a scalar computation element-wise over N arrays (OPS.md Map):
    ``Map(builder, operands, computation, dimensions)`` or ``Map(operands, computation,
    dimensions)``."""
    builder, rest = split_builder(args)
    if len(rest) == 2:
        rest.append(None)
    if len(rest) != 3:
        raise InvalidArgument("map: expected (operands, computation, dimensions)")
    operands, computation, dimensions = rest
    if static_operands:
        raise InvalidArgument("map: static_operands (seed 001) have no HLO form; pass them as "
                              "operands broadcast to the mapped shape")  # fmt: skip
    inputs = op_list(operands, "operands")
    b = pick_builder(builder, inputs)
    comp = b.computation(computation, _scalars(inputs), "computation")
    dims = ints(dimensions, "dimensions") if dimensions is not None else None
    rank = inputs[0].ndim if inputs else 0
    return b.add(Opcode.MAP, inputs, {"dimensions": dims if dims is not None else
                                      tuple(range(rank)), "to_apply": comp})  # fmt: skip


def _operands_and_inits(args: Sequence[Any], what: str, count: int) -> tuple[
    XlaBuilder, list[XlaOp], list[XlaOp], list[Any]
]:  # fmt: skip
    builder, rest = split_builder(args)
    if len(rest) < count:
        raise InvalidArgument(f"{what}: expected operands, init values, a computation and "
                              "the op's arguments")  # fmt: skip
    operands = op_list(rest[0], "operands")
    inits = op_list(rest[1], "init_values")
    b = pick_builder(builder, operands, inits)
    return b, operands, inits, rest[2:]


def Reduce(*args: Any) -> XlaOp:
    """Reduces ``dimensions_to_reduce`` of N arrays with ``computation`` (OPS.md Reduce):
    ``Reduce(builder, operands, init_values, computation, dimensions_to_reduce)``,
    ``Reduce(operands, init_values, computation, dimensions)`` or
    ``Reduce(operand, init_value, computation, dimensions)``."""
    b, operands, inits, rest = _operands_and_inits(args, "reduce", 4)
    if len(rest) != 2:
        raise InvalidArgument("reduce: expected (operands, init_values, computation, dimensions)")
    computation, dimensions = rest
    comp = b.computation(computation, _scalars(inits) * 2, "computation")
    return b.add(
        Opcode.REDUCE,
        [*operands, *inits],
        {"dimensions": ints(dimensions, "dimensions_to_reduce"), "to_apply": comp},
    )


def ReduceAll(operand: XlaOp, init_value: XlaOp, computation: ComputationLike) -> XlaOp:
    """Reduces every dimension to a scalar."""
    return Reduce(operand, init_value, computation, tuple(range(operand.ndim)))


def _window_padding(
    operand: XlaOp,
    window: tuple[int, ...],
    strides: tuple[int, ...],
    padding: Any,
    base_dilations: tuple[int, ...],
    window_dilations: tuple[int, ...],
) -> list[tuple[int, int]]:
    dilated = [(n - 1) * d + 1 if n else 0 for n, d in zip(operand.shape.dims, base_dilations,
                                                            strict=True)]  # fmt: skip
    effective = [(w - 1) * d + 1 for w, d in zip(window, window_dilations, strict=True)]
    return make_padding(padding, dilated, effective, strides)


def _window_lengths(operand: XlaOp, **values: Sequence[object]) -> None:
    for what, v in values.items():
        if len(v) != operand.ndim:
            raise InvalidArgument(
                f"reduce-window: {what} must have one entry per dimension of "
                f"{operand.shape.to_hlo(layout=False)}; got {list(v)}"
            )


def ReduceWindowWithGeneralPadding(
    operands: XlaOp | Sequence[XlaOp],
    init_values: XlaOp | Sequence[XlaOp],
    computation: ComputationLike,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    base_dilations: Sequence[int] | None,
    window_dilations: Sequence[int] | None,
    padding: Sequence[Sequence[int]] | Padding | str,
) -> XlaOp:
    """ReduceWindow with dilations and explicit (low, high) padding (OPS.md ReduceWindow)."""
    inputs = op_list(operands, "operands", non_empty=True)
    inits = op_list(init_values, "init_values")
    b = inputs[0].builder
    first = inputs[0]
    window = ints(window_dimensions, "window_dimensions")
    strides = ints(window_strides, "window_strides") if window_strides else (1,) * first.ndim
    base = ints(base_dilations, "base_dilations") if base_dilations else (1,) * first.ndim
    wdil = ints(window_dilations, "window_dilations") if window_dilations else (1,) * first.ndim
    _window_lengths(first, window_dimensions=window, window_strides=strides,
                    base_dilations=base, window_dilations=wdil)  # fmt: skip
    if not isinstance(padding, Padding | str):
        _window_lengths(first, padding=list(padding))
    pads = _window_padding(first, window, strides, padding, base, wdil)
    comp = b.computation(computation, _scalars(inits) * 2, "computation")
    return b.add(
        Opcode.REDUCE_WINDOW,
        [*inputs, *inits],
        {"window": Window.make(window, strides, pads, base, wdil), "to_apply": comp},
    )


def ReduceWindow(
    operands: XlaOp | Sequence[XlaOp],
    init_values: XlaOp | Sequence[XlaOp],
    computation: ComputationLike,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Padding | str | Sequence[Sequence[int]],
    base_dilations: Sequence[int] | None = None,
    window_dilations: Sequence[int] | None = None,
) -> XlaOp:
    """Reduces every window of N arrays with ``computation`` (OPS.md ReduceWindow); padding
    is SAME/VALID (or explicit pairs)."""
    return ReduceWindowWithGeneralPadding(
        operands, init_values, computation, window_dimensions, window_strides, base_dilations,
        window_dilations, padding,
    )  # fmt: skip


def SelectAndScatterWithGeneralPadding(
    operand: XlaOp,
    select: ComputationLike,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]] | Padding | str,
    source: XlaOp,
    init_value: XlaOp,
    scatter: ComputationLike,
) -> XlaOp:
    """SelectAndScatter with explicit (low, high) padding."""
    b = operand.builder
    window = ints(window_dimensions, "window_dimensions")
    strides = ints(window_strides, "window_strides")
    _window_lengths(operand, window_dimensions=window, window_strides=strides)
    if not isinstance(padding, Padding | str):
        _window_lengths(operand, padding=list(padding))
    pads = make_padding(padding, operand.shape.dims, window, strides)
    e = Shape.scalar(operand.dtype)
    attrs = {
        "window": Window.make(window, strides, pads),
        "select": b.computation(select, [e, e], "select"),
        "scatter": b.computation(scatter, [e, e], "scatter"),
    }
    return b.add(Opcode.SELECT_AND_SCATTER, [operand, source, init_value], attrs)


def SelectAndScatter(
    operand: XlaOp,
    select: ComputationLike,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Padding | str | Sequence[Sequence[int]],
    source: XlaOp,
    init_value: XlaOp,
    scatter: ComputationLike,
) -> XlaOp:
    """Selects one element per window with ``select`` and scatters ``source`` there with
    ``scatter`` (OPS.md SelectAndScatter)."""
    return SelectAndScatterWithGeneralPadding(
        operand, select, window_dimensions, window_strides, padding, source, init_value, scatter
    )


def Sort(
    operands: XlaOp | Sequence[XlaOp],
    comparator: ComputationLike | None = None,
    dimension: int = -1,
    is_stable: bool = False,
) -> XlaOp:
    """Sorts N arrays together along ``dimension`` (default: the last) with ``comparator``
    (default: less-than on operand 0); several operands give a tuple (OPS.md Sort)."""
    inputs = op_list(operands, "operands", non_empty=True)
    b = inputs[0].builder
    rank = inputs[0].ndim
    dim = dimension + rank if dimension < 0 else dimension
    params = [s for s in _scalars(inputs) for _ in range(2)]
    if comparator is None:
        from xlapy.builder.ops_elementwise import Lt

        def comparator(*p: XlaOp) -> XlaOp:
            return Lt(p[0], p[1])

    comp = b.computation(comparator, params, "comparator")
    return b.add(
        Opcode.SORT, inputs, {"dimensions": (dim,), "is_stable": bool(is_stable) or None,
                              "to_apply": comp}
    )  # fmt: skip


def TopK(operand: XlaOp, k: int, largest: bool = True) -> XlaOp:
    """(values, s32 indices) of the k largest/smallest entries along the last dimension
    (OPS.md TopK)."""
    return operand.builder.add(Opcode.TOPK, [operand], {"k": int(k), "largest": bool(largest)})


def Scan(
    inputs: Sequence[XlaOp] | XlaOp,
    inits: Sequence[XlaOp] | XlaOp,
    to_apply: ComputationLike,
    scan_dimension: int,
    is_reverse: bool = False,
    is_associative: bool | None = None,
) -> XlaOp:
    """Sequential scan with carries along ``scan_dimension``: the result is the stacked
    outputs then the final carries, as a tuple (OPS.md Scan)."""
    xs = op_list(inputs, "inputs") if isinstance(inputs, XlaOp) or inputs else []
    cs = op_list(inits, "inits") if isinstance(inits, XlaOp) or inits else []
    b = pick_builder(None, xs, cs)
    slices = [
        Shape.array(x.dtype, x.shape.dims[:scan_dimension] + x.shape.dims[scan_dimension + 1 :])
        for x in xs
    ]
    comp = b.computation(to_apply, [*slices, *(c.shape for c in cs)], "to_apply")
    attrs = {
        "dimensions": (int(scan_dimension),),
        "num_carries": len(cs),
        "is_reverse": bool(is_reverse),
        "is_associative": bool(is_associative),
        "to_apply": comp,
    }
    return b.add(Opcode.SCAN, [*xs, *cs], attrs)


def pred_scalar() -> Shape:
    return Shape.scalar(dtypes.PRED)
