"""Typed attribute values of HLO instructions (enums and frozen dataclasses).

Each value type knows its HLO text spelling (``__str__``); parsing lives in ``xlapy.text``.
Which op has which attribute is declared in ``xlapy.ir.opdefs``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlapy.errors import InvalidArgument

# ---- enumerations ---------------------------------------------------------------------


class ComparisonDirection(enum.Enum):
    EQ = "EQ"
    NE = "NE"
    LT = "LT"
    LE = "LE"
    GT = "GT"
    GE = "GE"


class ComparisonType(enum.Enum):
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(enum.Enum):
    DEFAULT = "default"
    HIGH = "high"
    HIGHEST = "highest"
    PACKED_NIBBLE = "packed_nibble"


class DotAlgorithm(enum.Enum):
    """``algorithm=`` of dot (PrecisionConfig::Algorithm)."""

    UNSET = "unset"
    DOT_ANY_F8_ANY_F8_F32 = "dot_any_f8_any_f8_f32"
    DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM = "dot_any_f8_any_f8_f32_fast_accum"
    DOT_F16_F16_F16 = "dot_f16_f16_f16"
    DOT_F16_F16_F32 = "dot_f16_f16_f32"
    DOT_BF16_BF16_BF16 = "dot_bf16_bf16_bf16"
    DOT_BF16_BF16_F32 = "dot_bf16_bf16_f32"
    DOT_BF16_BF16_F32_X3 = "dot_bf16_bf16_f32_x3"
    DOT_BF16_BF16_F32_X6 = "dot_bf16_bf16_f32_x6"
    DOT_BF16_BF16_F32_X9 = "dot_bf16_bf16_f32_x9"
    DOT_TF32_TF32_F32 = "dot_tf32_tf32_f32"
    DOT_TF32_TF32_F32_X3 = "dot_tf32_tf32_f32_x3"
    DOT_F32_F32_F32 = "dot_f32_f32_f32"
    DOT_F64_F64_F64 = "dot_f64_f64_f64"


class FftType(enum.Enum):
    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


class RandomDistribution(enum.Enum):
    UNIFORM = "rng_uniform"
    NORMAL = "rng_normal"


class RandomAlgorithm(enum.Enum):
    DEFAULT = "rng_default"
    THREE_FRY = "rng_three_fry"
    PHILOX = "rng_philox"


class FusionKind(enum.Enum):
    LOOP = "kLoop"
    INPUT = "kInput"
    OUTPUT = "kOutput"
    CUSTOM = "kCustom"


class CustomCallApiVersion(enum.Enum):
    ORIGINAL = "API_VERSION_ORIGINAL"
    STATUS_RETURNING = "API_VERSION_STATUS_RETURNING"
    STATUS_RETURNING_UNIFIED = "API_VERSION_STATUS_RETURNING_UNIFIED"
    TYPED_FFI = "API_VERSION_TYPED_FFI"


class CustomCallSchedule(enum.Enum):
    NONE = "SCHEDULE_NONE"
    LATEST = "SCHEDULE_LATEST"
    EARLIEST = "SCHEDULE_EARLIEST"


class PaddingType(enum.Enum):
    INVALID = "PADDING_INVALID"
    VALID = "PADDING_VALID"
    SAME = "PADDING_SAME"


class TransposeA(enum.Enum):
    NO_TRANSPOSE = "NO_TRANSPOSE"
    TRANSPOSE = "TRANSPOSE"
    ADJOINT = "ADJOINT"


class CollectiveMode(enum.Enum):
    """``mode=`` of all-reduce / reduce-scatter (parsed, informational)."""

    CROSS_REPLICA = "cross_replica"
    CROSS_PARTITION = "cross_partition"
    CROSS_REPLICA_AND_PARTITION = "cross_replica_and_partition"
    FLATTENED_ID = "flattened_id"


class ConvKind(enum.Enum):
    UNSET = "unset"
    FPROP = "fprop"
    WGRAD = "wgrad"
    DGRAD = "dgrad"


# ---- structured values ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WindowDimension:
    """One dimension of a window (HLO text §6.1)."""

    size: int
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    window_reversal: bool = False


@dataclass(frozen=True, slots=True)
class Window:
    """``window={size=3x3 stride=2x2 pad=1_1x0_2 lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}``."""

    dimensions: tuple[WindowDimension, ...] = ()

    @staticmethod
    def make(
        size: Sequence[int],
        stride: Sequence[int] | None = None,
        padding: Sequence[tuple[int, int]] | None = None,
        base_dilation: Sequence[int] | None = None,
        window_dilation: Sequence[int] | None = None,
        window_reversal: Sequence[bool] | None = None,
    ) -> Window:
        n = len(size)
        stride = stride or [1] * n
        padding = padding or [(0, 0)] * n
        base_dilation = base_dilation or [1] * n
        window_dilation = window_dilation or [1] * n
        window_reversal = window_reversal or [False] * n
        for what, values in (("stride", stride), ("padding", padding),
                             ("base_dilation", base_dilation),
                             ("window_dilation", window_dilation),
                             ("window_reversal", window_reversal)):  # fmt: skip
            if len(values) != n:
                raise InvalidArgument(
                    f"window: {what} has {len(values)} entries but the window has {n} "
                    f"dimensions; got {list(values)} for size {list(size)}"
                )
        if any(len(p) != 2 for p in padding):
            raise InvalidArgument(f"window: padding must be (low, high) pairs; got {list(padding)}")
        return Window(
            tuple(
                WindowDimension(int(s), int(st), int(p[0]), int(p[1]), int(wd), int(bd), bool(r))
                for s, st, p, bd, wd, r in zip(
                    size,
                    stride,
                    padding,
                    base_dilation,
                    window_dilation,
                    window_reversal,
                    strict=True,
                )
            )
        )

    def cumulative_axis(self, dims: Sequence[int]) -> tuple[int, bool] | None:
        """``(axis, reverse)`` when this window over an operand of ``dims`` is a cumulative
        reduction (JAX's lowering of cumsum/cumprod/cummax/cummin/cumlogsumexp): one axis of
        length ``n >= 2`` with window size ``n``, stride 1, no dilation and ``n - 1`` padding
        below (``reverse=False``) or above (``reverse=True``); size-1 windows without padding
        elsewhere. Output ``o`` then covers elements ``0..o`` (``o..n-1`` when reversed)."""
        if len(self.dimensions) != len(dims):
            return None
        found = None
        for axis, (n, d) in enumerate(zip(dims, self.dimensions, strict=True)):
            if d.stride != 1 or d.base_dilation != 1 or d.window_dilation != 1:
                return None
            if d.window_reversal:
                return None
            if d.size == 1 and not (d.padding_low or d.padding_high):
                continue
            if found is not None or n < 2 or d.size != n:
                return None
            if (d.padding_low, d.padding_high) == (n - 1, 0):
                found = (axis, False)
            elif (d.padding_low, d.padding_high) == (0, n - 1):
                found = (axis, True)
            else:
                return None
        return found

    def __str__(self) -> str:
        dims = self.dimensions
        if not dims:
            return "{}"

        def join(values: Sequence[object]) -> str:
            return "x".join(str(v) for v in values)

        parts = [f"size={join([d.size for d in dims])}"]
        if any(d.stride != 1 for d in dims):
            parts.append(f"stride={join([d.stride for d in dims])}")
        if any(d.padding_low or d.padding_high for d in dims):
            parts.append("pad=" + join([f"{d.padding_low}_{d.padding_high}" for d in dims]))
        if any(d.base_dilation != 1 for d in dims):
            parts.append(f"lhs_dilate={join([d.base_dilation for d in dims])}")
        if any(d.window_dilation != 1 for d in dims):
            parts.append(f"rhs_dilate={join([d.window_dilation for d in dims])}")
        if any(d.window_reversal for d in dims):
            parts.append(f"rhs_reversal={join([int(d.window_reversal) for d in dims])}")
        return "{" + " ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class ConvolutionDimensionNumbers:
    """Which dimension of lhs/rhs/result is batch, feature and spatial (``dim_labels``)."""

    input_batch_dimension: int
    input_feature_dimension: int
    input_spatial_dimensions: tuple[int, ...]
    kernel_input_feature_dimension: int
    kernel_output_feature_dimension: int
    kernel_spatial_dimensions: tuple[int, ...]
    output_batch_dimension: int
    output_feature_dimension: int
    output_spatial_dimensions: tuple[int, ...]

    @staticmethod
    def from_labels(text: str) -> ConvolutionDimensionNumbers:
        """Parses ``b01f_01io->b01f``; raises InvalidArgument naming the rule broken."""
        try:
            lhs_rhs, out = text.split("->")
            lhs, rhs = lhs_rhs.split("_")
        except ValueError:
            raise InvalidArgument(
                f"dim_labels must look like b01f_01io->b01f; got {text!r}"
            ) from None

        def side(labels: str, a: str, b: str) -> tuple[int, int, tuple[int, ...]]:
            if labels.count(a) != 1 or labels.count(b) != 1:
                raise InvalidArgument(
                    f"dim_labels {text!r}: {labels!r} must contain exactly one {a!r} and one {b!r}"
                )
            spatial = {int(c): i for i, c in enumerate(labels) if c.isdigit()}
            n = len(spatial)
            if sorted(spatial) != list(range(n)):
                raise InvalidArgument(
                    f"dim_labels {text!r}: spatial labels of {labels!r} must be 0..{n - 1}"
                )
            return labels.index(a), labels.index(b), tuple(spatial[k] for k in range(n))

        ib, if_, isp = side(lhs, "b", "f")
        ki, ko, ksp = side(rhs, "i", "o")
        ob, of, osp = side(out, "b", "f")
        if not len(isp) == len(ksp) == len(osp):
            raise InvalidArgument(
                f"dim_labels {text!r}: lhs, rhs and output must have the same number of "
                f"spatial dimensions; got {len(isp)}, {len(ksp)}, {len(osp)}"
            )
        return ConvolutionDimensionNumbers(ib, if_, isp, ki, ko, ksp, ob, of, osp)

    def to_labels(self) -> str:
        def side(a: str, ad: int, b: str, bd: int, spatial: tuple[int, ...]) -> str:
            rank = 2 + len(spatial)
            chars = ["?"] * rank
            chars[ad], chars[bd] = a, b
            for k, d in enumerate(spatial):
                chars[d] = str(k)
            return "".join(chars)

        lhs = side(
            "b",
            self.input_batch_dimension,
            "f",
            self.input_feature_dimension,
            self.input_spatial_dimensions,
        )
        rhs = side(
            "i",
            self.kernel_input_feature_dimension,
            "o",
            self.kernel_output_feature_dimension,
            self.kernel_spatial_dimensions,
        )
        out = side(
            "b",
            self.output_batch_dimension,
            "f",
            self.output_feature_dimension,
            self.output_spatial_dimensions,
        )
        return f"{lhs}_{rhs}->{out}"

    def __str__(self) -> str:
        return self.to_labels()


@dataclass(frozen=True, slots=True)
class PaddingDimension:
    low: int
    high: int
    interior: int = 0


@dataclass(frozen=True, slots=True)
class PaddingConfig:
    """``padding=low_high[_interior]x...`` of pad."""

    dimensions: tuple[PaddingDimension, ...]

    @staticmethod
    def make(pads: Sequence[Sequence[int]]) -> PaddingConfig:
        return PaddingConfig(tuple(PaddingDimension(*map(int, p)) for p in pads))

    def __str__(self) -> str:
        return "x".join(
            f"{d.low}_{d.high}" + (f"_{d.interior}" if d.interior else "") for d in self.dimensions
        )


@dataclass(frozen=True, slots=True)
class SliceDimension:
    start: int
    limit: int
    stride: int = 1


@dataclass(frozen=True, slots=True)
class SliceSpec:
    """``slice={[start:limit:stride], ...}``."""

    dimensions: tuple[SliceDimension, ...]

    def __str__(self) -> str:
        return "{" + ", ".join(f"[{d.start}:{d.limit}:{d.stride}]" for d in self.dimensions) + "}"


@dataclass(frozen=True, slots=True)
class IotaReplicaGroupList:
    """The iota form ``[G,S]<=[dims]T(perm)`` of replica groups."""

    num_groups: int
    group_size: int
    reshape_dims: tuple[int, ...]
    transpose_perm: tuple[int, ...] = ()

    def expand(self) -> tuple[tuple[int, ...], ...]:
        ids = np.arange(int(np.prod(self.reshape_dims))).reshape(self.reshape_dims)
        if self.transpose_perm:
            ids = ids.transpose(self.transpose_perm)
        groups = ids.reshape(self.num_groups, self.group_size)
        return tuple(tuple(int(x) for x in g) for g in groups)

    def __str__(self) -> str:
        text = f"[{self.num_groups},{self.group_size}]<=[{','.join(map(str, self.reshape_dims))}]"
        perm = self.transpose_perm
        if perm and perm != tuple(range(len(perm))):
            text += f"T({','.join(map(str, perm))})"
        return text


@dataclass(frozen=True, slots=True)
class MeshAxisRef:
    """One axis of a mesh-form replica group: mesh axis ``axis`` (an index), or its sub-axis
    ``'name':(pre_size)size`` (the ``size`` devices at stride ``pre_size`` along it)."""

    axis: int
    pre_size: int = 0
    size: int = 0

    @property
    def is_sub_axis(self) -> bool:
        return self.size > 0


@dataclass(frozen=True, slots=True)
class MeshAxesReplicaGroupList:
    """Replica groups in XLA's mesh-axes form: ``mesh['a'=4,'b'=1,'c'=2] {'a'}``, optionally
    ``mesh[...], device_ids=(...) {...}`` and sub-axes ``{'a':(1)2}``.

    Devices are laid out row-major on the mesh (``device_ids`` gives them in that order when
    present, else device ``i`` is at flat position ``i``); each group holds the devices that
    differ only along the named ``axes``, one group per combination of the other mesh
    positions (XLA's ``MeshAxesReplicaGroupList::flattened_replica_groups``).

    Attributes:
        names, sizes: the mesh axes in order.
        axes: the grouped axes, as written.
        device_ids: flat device ids in mesh order; () for 0..N-1.
        device_ids_text: ``device_ids`` as written (printed back verbatim; iota forms stay).
    """

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    axes: tuple[MeshAxisRef, ...]
    device_ids: tuple[int, ...] = ()
    device_ids_text: str = ""

    def expand(self) -> tuple[tuple[int, ...], ...]:
        """The explicit groups: the mesh is reshaped so that every sub-axis is a dimension of
        its own, the grouped dimensions (in mesh order; within one mesh axis, as written)
        are moved last, and the flat result is cut into groups."""
        total = int(np.prod(self.sizes))
        ids = np.asarray(self.device_ids or range(total), np.int64)
        split: list[int] = []
        grouped: list[int] = []
        for d, full in enumerate(self.sizes):
            refs = [r for r in self.axes if r.axis == d]
            if not refs:
                split.append(full)
                continue
            if not refs[0].is_sub_axis:
                grouped.append(len(split))
                split.append(full)
                continue
            position: dict[MeshAxisRef, int] = {}
            covered = 1
            for ref in sorted(refs, key=lambda r: r.pre_size):
                if ref.pre_size != covered:
                    split.append(ref.pre_size // covered)
                    covered = ref.pre_size
                position[ref] = len(split)
                split.append(ref.size)
                covered *= ref.size
            if covered != full:
                split.append(full // covered)
            grouped.extend(position[ref] for ref in refs)
        others = [i for i in range(len(split)) if i not in grouped]
        size = int(np.prod([split[i] for i in grouped]))
        groups = ids.reshape(split).transpose([*others, *grouped]).reshape(-1, size)
        return tuple(tuple(int(x) for x in g) for g in groups)

    def __str__(self) -> str:
        mesh = ",".join(f"'{n}'={s}" for n, s in zip(self.names, self.sizes, strict=True))
        devices = f", device_ids=({self.device_ids_text})" if self.device_ids_text else ""
        refs = ",".join(
            f"'{self.names[r.axis]}'" + (f":({r.pre_size}){r.size}" if r.is_sub_axis else "")
            for r in self.axes
        )
        return f"mesh[{mesh}]{devices} {{{refs}}}"


@dataclass(frozen=True, slots=True)
class ReplicaGroups:
    """``replica_groups=``: explicit ``{{0,1},{2,3}}``, iota ``[2,2]<=[4]`` or mesh axes
    ``mesh['a'=2,'b'=2] {'a'}``.

    ``groups()`` gives the explicit list in every form (empty = all devices in one group).
    """

    explicit: tuple[tuple[int, ...], ...] = ()
    iota: IotaReplicaGroupList | None = None
    mesh: MeshAxesReplicaGroupList | None = None

    @property
    def mesh_text(self) -> str | None:
        """The mesh-axes form as HLO prints it; None for the other forms."""
        return None if self.mesh is None else str(self.mesh)

    def groups(self) -> tuple[tuple[int, ...], ...]:
        if self.iota is not None:
            return self.iota.expand()
        if self.mesh is not None:
            return self.mesh.expand()
        return self.explicit

    def __str__(self) -> str:
        if self.iota is not None:
            return str(self.iota)
        if self.mesh is not None:
            return str(self.mesh)
        return "{" + ",".join("{" + ",".join(map(str, g)) + "}" for g in self.explicit) + "}"


@dataclass(frozen=True, slots=True)
class OutputOperandAlias:
    """One entry ``{out_index}: (operand_number, {operand_index})``."""

    output_index: tuple[int, ...]
    operand_number: int
    operand_index: tuple[int, ...]

    def __str__(self) -> str:
        def idx(i: tuple[int, ...]) -> str:
            return "{" + ",".join(map(str, i)) + "}"

        return f"{idx(self.output_index)}: ({self.operand_number}, {idx(self.operand_index)})"


@dataclass(frozen=True, slots=True)
class ResultAccuracy:
    """``result_accuracy={mode=highest}`` or ``{tolerance={atol=..,rtol=..,ulps=..}}``."""

    mode: str = "default"
    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0

    @property
    def is_tolerance(self) -> bool:
        return bool(self.atol or self.rtol or self.ulps)

    def problem(self) -> str | None:
        """Why XLA would refuse this accuracy (``IsValidResultAccuracy``: a known mode,
        tolerances finite and >= 0, ``ulps`` a non-negative int64), or None when it is valid."""
        if self.mode not in ("default", "highest", "tolerance"):
            return f"mode must be default, highest or tolerance; got {self.mode!r:.40}"
        for name in ("atol", "rtol"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0 <= value < float("inf"):
                return f"{name} must be a finite number >= 0; got {value!r:.40}"
        if isinstance(self.ulps, bool) or not isinstance(self.ulps, int):
            return f"ulps must be an int; got {self.ulps!r:.40}"
        if not 0 <= self.ulps < 2**63:
            return f"ulps must be a non-negative 64-bit integer; got {self.ulps}"
        return None

    def __str__(self) -> str:
        if self.is_tolerance:
            return f"{{tolerance={{atol={self.atol:g},rtol={self.rtol:g},ulps={self.ulps}}}}}"
        return f"{{mode={self.mode}}}"


@dataclass(frozen=True, slots=True)
class OpMetadata:
    """``metadata={op_type=".." op_name=".." source_file=".." source_line=N ...}``."""

    op_type: str = ""
    op_name: str = ""
    source_file: str = ""
    source_line: int = 0
    source_end_line: int = 0
    source_column: int = 0
    source_end_column: int = 0
    profile_type: tuple[int, ...] = ()
    deduplicated_name: str = ""
    scheduling_name: str = ""
    stack_frame_id: int = 0

    @property
    def is_empty(self) -> bool:
        return self == OpMetadata()


@dataclass(frozen=True, slots=True)
class RawAttribute:
    """An attribute value xlapy keeps verbatim: ``domain=``, ``statistics=``, ``origin=``,
    and attributes newer than xlapy (HLO text §8.10)."""

    text: str

    def __str__(self) -> str:
        return self.text
