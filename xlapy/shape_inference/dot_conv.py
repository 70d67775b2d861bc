"""Shape inference of contractions and linear algebra: dot (dot_general), ragged-dot,
scaled-dot, convolution, fft, cholesky, triangular-solve and the batch-norm ops.

The result element type of dot/convolution is the operands' unless the declared result gives
a ``preferred_element_type`` (OPS.md A.10).
"""

from __future__ import annotations

from collections.abc import Sequence

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.ir import attrs as A
from xlapy.ir.opcode import Opcode
from xlapy.ir.opdefs import Attrs
from xlapy.shape import UNBOUNDED, Shape
from xlapy.shape_inference.common import (
    InferCtx,
    array,
    check_result_dims,
    dim_in_range,
    dims_in_range,
    element_type_in,
    fmt,
    fmt_ints,
    infers,
    same_element_type,
    unique,
)
from xlapy.shape_inference.reduce import check_window, window_output_size

DEFERRED_ERROR = "xlapy.deferred_error"
"""Frontend attribute of a dynamic-conv whose window attributes break dynamic_conv C2-C9 (one
entry per spatial dimension): StableHLO verifies them only once the padding is known, so the
StableHLO front end records the broken rule here and the op raises it when it runs."""


def preferred_type(ctx: InferCtx, operand_type: ElementType) -> ElementType:
    """The result element type: the declared result's (``preferred_element_type``) or the
    operands'. A preferred type must not narrow an integer operand type (XLA MaybeUpcast)."""
    if ctx.result is None or not ctx.result.is_array:
        return operand_type
    preferred = ctx.result.element_type
    if preferred is operand_type:
        return preferred
    if operand_type.is_float or operand_type.is_complex:
        if not (preferred.is_float or preferred.is_complex):
            raise ctx.error(
                None,
                f"preferred_element_type {preferred} must be a floating-point type for "
                f"{operand_type} operands",
            )
    elif preferred.bits < operand_type.bits and not preferred.is_float:
        raise ctx.error(
            None,
            f"preferred_element_type {preferred} must not be narrower than the operand type "
            f"{operand_type}",
        )
    return preferred


def _precision(ctx: InferCtx, attrs: Attrs, label: str | None) -> None:
    precision = tuple(attrs.operand_precision)
    if len(precision) not in (0, 2):
        raise ctx.error(
            label,
            f"operand_precision must have 0 or 2 entries; got {len(precision)}",
        )


def dot_general_dims(
    ctx: InferCtx,
    lhs: Shape,
    rhs: Shape,
    lhs_batch: Sequence[int],
    lhs_contracting: Sequence[int],
    rhs_batch: Sequence[int],
    rhs_contracting: Sequence[int],
    rhs_skip: Sequence[int] = (),
) -> list[int]:
    """Checks stablehlo#dot_general C2-C11 and returns the result dims (C13): batch, then lhs
    free, then rhs free dimensions (``rhs_skip``: rhs dimensions that are neither, e.g. the
    ragged-dot group dimension)."""
    if len(lhs_batch) != len(rhs_batch):
        raise ctx.error(
            "C2",
            f"lhs_batch_dims and rhs_batch_dims must have the same size; got "
            f"{fmt_ints(lhs_batch)} and {fmt_ints(rhs_batch)}",
        )
    if len(lhs_contracting) != len(rhs_contracting):
        raise ctx.error(
            "C3",
            f"lhs_contracting_dims and rhs_contracting_dims must have the same size; got "
            f"{fmt_ints(lhs_contracting)} and {fmt_ints(rhs_contracting)}",
        )
    unique(ctx, (*lhs_batch, *lhs_contracting), "lhs_batch_dims + lhs_contracting_dims", "C4")
    unique(ctx, (*rhs_batch, *rhs_contracting, *rhs_skip),
           "rhs_batch_dims + rhs_contracting_dims", "C5")  # fmt: skip
    dims_in_range(ctx, lhs_batch, lhs.rank, "lhs_batch_dims", "C6", lhs)
    dims_in_range(ctx, lhs_contracting, lhs.rank, "lhs_contracting_dims", "C7", lhs)
    dims_in_range(ctx, rhs_batch, rhs.rank, "rhs_batch_dims", "C8", rhs)
    dims_in_range(ctx, rhs_contracting, rhs.rank, "rhs_contracting_dims", "C9", rhs)
    for a, b in zip(lhs_batch, rhs_batch, strict=True):
        if lhs.dims[a] != rhs.dims[b]:
            raise ctx.error(
                "C10",
                f"batch dimensions must have the same size; got lhs dimension {a} of {fmt(lhs)} "
                f"and rhs dimension {b} of {fmt(rhs)}",
            )
    for a, b in zip(lhs_contracting, rhs_contracting, strict=True):
        if lhs.dims[a] != rhs.dims[b]:
            raise ctx.error(
                "C11",
                f"contracting dimensions must have the same size; got lhs dimension {a} of "
                f"{fmt(lhs)} and rhs dimension {b} of {fmt(rhs)}",
            )
    lhs_free = [d for d in range(lhs.rank) if d not in lhs_batch and d not in lhs_contracting]
    rhs_free = [
        d
        for d in range(rhs.rank)
        if d not in rhs_batch and d not in rhs_contracting and d not in rhs_skip
    ]
    return [
        *(lhs.dims[d] for d in lhs_batch),
        *(lhs.dims[d] for d in lhs_free),
        *(rhs.dims[d] for d in rhs_free),
    ]


def _dot_operands(ctx: InferCtx, lhs: Shape, rhs: Shape) -> ElementType:
    array(ctx, lhs, "lhs")
    array(ctx, rhs, "rhs")
    for shape, what in ((lhs, "lhs"), (rhs, "rhs")):
        if shape.element_type.is_pred:
            raise ctx.error(None, f"{what} must have a numeric element type; got {fmt(shape)}")
    return same_element_type(ctx, [(lhs, "lhs"), (rhs, "rhs")], "C1")


@infers(Opcode.DOT)
def infer_dot(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """HLO dot = stablehlo#dot_general (C1-C13); OPS.md Dot/DotGeneral. The result element
    type is the preferred element type when the declared result gives one."""
    lhs, rhs = operands
    etype = _dot_operands(ctx, lhs, rhs)
    _precision(ctx, attrs, "C12")
    dims = dot_general_dims(
        ctx,
        lhs,
        rhs,
        attrs.lhs_batch_dims,
        attrs.lhs_contracting_dims,
        attrs.rhs_batch_dims,
        attrs.rhs_contracting_dims,
    )
    out = Shape.array(preferred_type(ctx, etype), dims)
    return check_result_dims(ctx, out, "C13")


@infers(Opcode.RAGGED_DOT)
def infer_ragged_dot(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """chlo.ragged_dot(lhs, rhs, group_sizes), OPS.md RaggedDot. ``lhs_ragged_dims[0]`` is
    non-contracting (rhs has a group dimension, result as dot), contracting (result gets a
    leading group dimension) or batch (result as dot)."""
    lhs, rhs, group_sizes = operands
    etype = _dot_operands(ctx, lhs, rhs)
    element_type_in(ctx, group_sizes, "int", "group_sizes")
    _precision(ctx, attrs, None)
    ragged = tuple(attrs.lhs_ragged_dims)
    group_dims = tuple(attrs.rhs_group_dims)
    lb, lc = tuple(attrs.lhs_batch_dims), tuple(attrs.lhs_contracting_dims)
    rb, rc = tuple(attrs.rhs_batch_dims), tuple(attrs.rhs_contracting_dims)
    if len(ragged) != 1:
        raise ctx.error(None, f"lhs_ragged_dims must hold one dimension; got {fmt_ints(ragged)}")
    dim_in_range(ctx, ragged[0], lhs.rank, "lhs_ragged_dims", None, lhs)
    if group_sizes.rank < 1:
        raise ctx.error(None, f"group_sizes must have rank >= 1; got {fmt(group_sizes)}")
    num_groups = group_sizes.dims[-1]
    non_contracting = ragged[0] not in lc and ragged[0] not in lb
    if non_contracting:
        if len(group_dims) != 1:
            raise ctx.error(
                None,
                "a non-contracting ragged dimension needs one rhs group dimension; got "
                f"rhs_group_dims={fmt_ints(group_dims)}",
            )
        dim_in_range(ctx, group_dims[0], rhs.rank, "rhs_group_dims", None, rhs)
        if rhs.dims[group_dims[0]] != num_groups:
            raise ctx.error(
                None,
                f"rhs group dimension {group_dims[0]} of {fmt(rhs)} must have one entry per "
                f"group ({num_groups}, from group_sizes {fmt(group_sizes)})",
            )
    elif group_dims:
        raise ctx.error(
            None,
            "rhs_group_dims must be empty when the ragged dimension is a batch or contracting "
            f"dimension; got {fmt_ints(group_dims)}",
        )
    dims = dot_general_dims(ctx, lhs, rhs, lb, lc, rb, rc, group_dims)
    if ragged[0] in lc:
        dims = [num_groups, *dims]
    return check_result_dims(ctx, Shape.array(preferred_type(ctx, etype), dims))


@infers(Opcode.SCALED_DOT)
def infer_scaled_dot(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """scaled-dot(lhs, lhs_scale, rhs, rhs_scale), OPS.md ScaledDot: dot_general of the
    block-scaled operands; each scale has its operand's rank (or is a scalar) and every operand
    dimension is a multiple of the scale's."""
    lhs, lhs_scale, rhs, rhs_scale = operands
    array(ctx, lhs, "lhs")
    array(ctx, rhs, "rhs")
    for x, scale, what in ((lhs, lhs_scale, "lhs"), (rhs, rhs_scale, "rhs")):
        array(ctx, scale, f"{what}_scale")
        if scale.rank and (
            scale.rank != x.rank
            or any(s == 0 or n % s for n, s in zip(x.dims, scale.dims, strict=True))
        ):
            raise ctx.error(
                None,
                f"every dimension of {what} must be a multiple of {what}_scale's; got "
                f"{fmt(x)} and {fmt(scale)}",
            )
    _precision(ctx, attrs, "C12")
    dims = dot_general_dims(
        ctx,
        lhs,
        rhs,
        attrs.lhs_batch_dims,
        attrs.lhs_contracting_dims,
        attrs.rhs_batch_dims,
        attrs.rhs_contracting_dims,
    )
    if ctx.result is not None:
        return check_result_dims(ctx, Shape.array(ctx.result.element_type, dims))
    if lhs.element_type is not rhs.element_type:
        raise ctx.error(None, "operands of different types need a declared result type; got "
                        f"{fmt(lhs)} and {fmt(rhs)}")  # fmt: skip
    return Shape.array(lhs.element_type, dims)


@infers(Opcode.CONVOLUTION, Opcode.DYNAMIC_CONV)
def infer_convolution(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#convolution (C1-C28); OPS.md Conv. In HLO the window size of each
    spatial dimension is the kernel's size there."""
    lhs, rhs = operands[0], operands[1]
    etype = _dot_operands(ctx, lhs, rhs)
    n = lhs.rank
    if rhs.rank != n:
        raise ctx.error(
            "C1", f"lhs and rhs must have the same rank; got {fmt(lhs)} (lhs) and {fmt(rhs)} (rhs)"
        )
    if n < 2:
        raise ctx.error("C1", f"convolution operands need rank >= 2; got {fmt(lhs)}")
    dnums: A.ConvolutionDimensionNumbers = attrs.dim_labels
    spatial = n - 2
    for label, what, dims in (
        ("C13", "input_spatial_dimensions", dnums.input_spatial_dimensions),
        ("C18", "kernel_spatial_dimensions", dnums.kernel_spatial_dimensions),
        ("C20", "output_spatial_dimensions", dnums.output_spatial_dimensions),
    ):
        if len(dims) != spatial:
            raise ctx.error(
                label,
                f"{what} must have rank - 2 = {spatial} entries; got {fmt_ints(dims)} "
                f"(dim_labels {dnums})",
            )
    for label, what, dims in (
        ("C14", "input dimensions", (dnums.input_batch_dimension, *dnums.input_spatial_dimensions,
                                     dnums.input_feature_dimension)),
        ("C19", "kernel dimensions", (*dnums.kernel_spatial_dimensions,
                                      dnums.kernel_input_feature_dimension,
                                      dnums.kernel_output_feature_dimension)),
        ("C21", "output dimensions", (dnums.output_batch_dimension,
                                      *dnums.output_spatial_dimensions,
                                      dnums.output_feature_dimension)),
    ):  # fmt: skip
        unique(ctx, dims, what, label)
        dims_in_range(ctx, dims, n, what, label)
    window: A.Window = attrs.window
    if not window.dimensions and spatial == 0:
        window = A.Window()
    check_window(ctx, window, spatial, f"the {spatial} spatial dimensions",
                 ("C3", "C3", "C4", "C7", "C9"))  # fmt: skip
    for k, (wd, kd) in enumerate(zip(window.dimensions, dnums.kernel_spatial_dimensions,
                                     strict=True)):  # fmt: skip
        if wd.size != rhs.dims[kd]:
            raise ctx.error(
                None,
                f"window size {wd.size} of spatial dimension {k} must equal the kernel's size "
                f"{rhs.dims[kd]} there; got window {window} and rhs {fmt(rhs)}",
            )
    fgc, bgc = attrs.feature_group_count, attrs.batch_group_count
    if fgc <= 0:
        raise ctx.error("C22", f"feature_group_count must be positive; got {fgc}")
    if bgc <= 0:
        raise ctx.error("C23", f"batch_group_count must be positive; got {bgc}")
    if fgc != 1 and bgc != 1:
        raise ctx.error(
            "C24", f"feature_group_count or batch_group_count must be 1; got {fgc} and {bgc}"
        )
    batch = lhs.dims[dnums.input_batch_dimension]
    features = lhs.dims[dnums.input_feature_dimension]
    kernel_in = rhs.dims[dnums.kernel_input_feature_dimension]
    kernel_out = rhs.dims[dnums.kernel_output_feature_dimension]
    if batch % bgc:
        raise ctx.error("C11", f"the lhs batch size {batch} must be a multiple of "
                        f"batch_group_count {bgc}; got lhs {fmt(lhs)}")  # fmt: skip
    if features % fgc:
        raise ctx.error("C12", f"the lhs feature size {features} must be a multiple of "
                        f"feature_group_count {fgc}; got lhs {fmt(lhs)}")  # fmt: skip
    if kernel_in * fgc != features:
        raise ctx.error(
            "C15",
            f"the kernel input feature size {kernel_in} times feature_group_count {fgc} must "
            f"equal the lhs feature size {features}; got lhs {fmt(lhs)} and rhs {fmt(rhs)} "
            f"(dim_labels {dnums})",
        )
    if kernel_out % bgc:
        raise ctx.error("C16", f"the kernel output feature size {kernel_out} must be a multiple "
                        f"of batch_group_count {bgc}; got rhs {fmt(rhs)}")  # fmt: skip
    if kernel_out % fgc:
        raise ctx.error("C17", f"the kernel output feature size {kernel_out} must be a multiple "
                        f"of feature_group_count {fgc}; got rhs {fmt(rhs)}")  # fmt: skip
    _precision(ctx, attrs, "C25")
    out = [0] * n
    dynamic = [False] * n  # XLA: a dynamic input dimension makes its output dimension dynamic
    out[dnums.output_batch_dimension] = batch // bgc if batch != UNBOUNDED else UNBOUNDED
    dynamic[dnums.output_batch_dimension] = lhs.dynamic[dnums.input_batch_dimension]
    out[dnums.output_feature_dimension] = kernel_out
    dynamic[dnums.output_feature_dimension] = rhs.dynamic[dnums.kernel_output_feature_dimension]
    for k in range(spatial):
        base = lhs.dims[dnums.input_spatial_dimensions[k]]
        out[dnums.output_spatial_dimensions[k]] = window_output_size(base, window.dimensions[k])
        dynamic[dnums.output_spatial_dimensions[k]] = lhs.dynamic[dnums.input_spatial_dimensions[k]]
    result = Shape.array(preferred_type(ctx, etype), out, dynamic=dynamic)
    if ctx.opcode is Opcode.DYNAMIC_CONV:
        declared = ctx.need_result("dynamic_conv's bounds")
        if declared.element_type is not result.element_type or declared.rank != result.rank:
            raise ctx.error(None, f"the result must be {result.element_type} of rank "
                            f"{result.rank}; got {fmt(declared)}")  # fmt: skip
        return declared
    return check_result_dims(ctx, result, "C26")


@infers(Opcode.FFT)
def infer_fft(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#fft (C1: rank >= size(fft_length); C2: element types per fft_type;
    C3: 1 to 3 axes; C4: the real side's trailing dims are fft_length; C5: result dims).
    XLA also requires a complex operand's trailing dims of FFT/IFFT to equal fft_length."""
    (operand,) = operands
    array(ctx, operand, "operand")
    lengths = tuple(attrs.fft_length)
    kind: A.FftType = attrs.fft_type
    if not 1 <= len(lengths) <= 3:
        raise ctx.error("C3", f"fft_length must have 1 to 3 entries; got {fmt_ints(lengths)}")
    if operand.rank < len(lengths):
        raise ctx.error(
            "C1",
            f"operand rank must be >= size(fft_length); got {fmt(operand)} and fft_length "
            f"{fmt_ints(lengths)}",
        )
    etype = operand.element_type
    trailing = list(operand.dims[operand.rank - len(lengths) :])
    if kind in (A.FftType.FFT, A.FftType.IFFT):
        if not etype.is_complex:
            raise ctx.error("C2", f"{kind.value} needs a complex operand; got {fmt(operand)}")
        if trailing != list(lengths):
            raise ctx.error(
                None,
                f"{kind.value}: the trailing dimensions of the operand must equal fft_length "
                f"{fmt_ints(lengths)}; got {fmt(operand)}",
            )
        return operand
    if kind is A.FftType.RFFT:
        if etype not in (dtypes.F32, dtypes.F64):
            raise ctx.error("C2", f"RFFT needs an f32 or f64 operand; got {fmt(operand)}")
        if trailing != list(lengths):
            raise ctx.error(
                "C4",
                f"RFFT: the trailing dimensions of the operand must equal fft_length "
                f"{fmt_ints(lengths)}; got {fmt(operand)}",
            )
        out = list(operand.dims)
        out[-1] = 0 if lengths[-1] == 0 else lengths[-1] // 2 + 1
        return Shape.array(dtypes.C64 if etype is dtypes.F32 else dtypes.C128, out)
    if not etype.is_complex:
        raise ctx.error("C2", f"IRFFT needs a complex operand; got {fmt(operand)}")
    expected = [*lengths[:-1], 0 if lengths[-1] == 0 else lengths[-1] // 2 + 1]
    if trailing != expected:
        raise ctx.error(
            "C5",
            f"IRFFT with fft_length {fmt_ints(lengths)} needs trailing operand dimensions "
            f"{fmt_ints(expected)}; got {fmt(operand)}",
        )
    out = list(operand.dims)
    out[-1] = lengths[-1]
    return Shape.array(etype.component, out)


@infers(Opcode.CHOLESKY)
def infer_cholesky(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#cholesky (C1: same type; C2: rank >= 2; C3: square minor matrices)."""
    (a,) = operands
    element_type_in(ctx, a, "float|complex", "a", "C1")
    if a.rank < 2:
        raise ctx.error("C2", f"a must have rank >= 2; got {fmt(a)}")
    if a.dims[-1] != a.dims[-2]:
        raise ctx.error("C3", f"the minor two dimensions of a must be equal; got {fmt(a)}")
    return a


@infers(Opcode.TRIANGULAR_SOLVE)
def infer_triangular_solve(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#triangular_solve (C1: same element type; C2: equal ranks >= 2; C3: equal
    batch dims, square a matching b's dimension R-2 (left_side) or R-1; C4: result has b's
    type)."""
    a, b = operands
    element_type_in(ctx, a, "float|complex", "a", "C1")
    element_type_in(ctx, b, "float|complex", "b", "C1")
    same_element_type(ctx, [(a, "a"), (b, "b")], "C1")
    if a.rank != b.rank or a.rank < 2:
        raise ctx.error(
            "C2", f"a and b must have the same rank >= 2; got {fmt(a)} (a) and {fmt(b)} (b)"
        )
    if a.dims[:-2] != b.dims[:-2]:
        raise ctx.error(
            "C3", f"a and b must have the same batch dimensions; got {fmt(a)} (a) and {fmt(b)} (b)"
        )
    if a.dims[-1] != a.dims[-2]:
        raise ctx.error("C3", f"the minor two dimensions of a must be equal; got {fmt(a)}")
    side = -2 if attrs.left_side else -1
    if b.dims[side] != a.dims[-1]:
        raise ctx.error(
            "C3",
            f"with left_side={'true' if attrs.left_side else 'false'}, dimension "
            f"{b.rank + side} of b must equal {a.dims[-1]} (the size of a); got {fmt(a)} (a) "
            f"and {fmt(b)} (b)",
        )
    return b


def _batch_norm_common(
    ctx: InferCtx, operand: Shape, vectors: Sequence[tuple[Shape, str, str]], attrs: Attrs,
    type_label: str,
) -> int:  # fmt: skip
    element_type_in(ctx, operand, "float", "operand")
    feature = dim_in_range(ctx, attrs.feature_index, operand.rank, "feature_index", "C1", operand)
    size = operand.dims[feature]
    same_element_type(ctx, [(operand, "operand"), *((s, w) for s, w, _ in vectors)], type_label)
    for shape, what, label in vectors:
        if shape.rank != 1 or shape.dims[0] != size:
            raise ctx.error(
                label,
                f"{what} must be a vector of size {size} (dimension {feature} of "
                f"{fmt(operand)}); got {fmt(shape)}",
            )
    return size


@infers(Opcode.BATCH_NORM_TRAINING)
def infer_batch_norm_training(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#batch_norm_training (C1-C7): (output, batch_mean, batch_var)."""
    operand, scale, offset = operands
    size = _batch_norm_common(
        ctx, operand, [(scale, "scale", "C3"), (offset, "offset", "C4")], attrs, "C2"
    )
    vector = Shape.array(operand.element_type, [size])
    return Shape.tuple_of([operand, vector, vector])


@infers(Opcode.BATCH_NORM_INFERENCE)
def infer_batch_norm_inference(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#batch_norm_inference (C1-C7): a result of the operand's type."""
    operand, scale, offset, mean, variance = operands
    _batch_norm_common(
        ctx,
        operand,
        [(scale, "scale", "C3"), (offset, "offset", "C4"), (mean, "mean", "C5"),
         (variance, "variance", "C6")],
        attrs,
        "C2",
    )  # fmt: skip
    return operand


@infers(Opcode.BATCH_NORM_GRAD)
def infer_batch_norm_grad(ctx: InferCtx, operands: Sequence[Shape], attrs: Attrs) -> Shape:
    """Spec: stablehlo#batch_norm_grad (C1-C5): (grad_operand, grad_scale, grad_offset)."""
    operand, scale, mean, variance, grad_output = operands
    size = _batch_norm_common(
        ctx,
        operand,
        [(scale, "scale", "C5"), (mean, "mean", "C4"), (variance, "variance", "C4")],
        attrs,
        "C2",
    )
    array(ctx, grad_output, "grad_output")
    if grad_output.dims != operand.dims or grad_output.element_type is not operand.element_type:
        raise ctx.error(
            "C3",
            f"grad_output must have the operand's type; got {fmt(grad_output)} (grad_output) "
            f"and {fmt(operand)} (operand)",
        )
    vector = Shape.array(operand.element_type, [size])
    return Shape.tuple_of([operand, vector, vector])
