"""Helper configuration types of the builder API, named as in XLA's ``xla_data.proto``:
DotDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers, PrecisionConfig,
ReplicaGroup, ChannelHandle, Padding, ... The IR's own attribute types (Window,
PaddingConfig, ConvolutionDimensionNumbers, enums) are re-exported from ``xlapy.ir.attrs``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from xlapy.builder.xla_builder import argument_error
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.ir.attrs import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    FftType,
    PaddingConfig,
    PaddingDimension,
    Precision,
    RandomAlgorithm,
    RandomDistribution,
    ReplicaGroups,
    ResultAccuracy,
    TransposeA,
    Window,
    WindowDimension,
)


class Padding(enum.Enum):
    """The short padding form of Conv/ReduceWindow/SelectAndScatter (OPS.md A.9)."""

    SAME = "same"
    VALID = "valid"

    # XLA's C++ spellings.
    kSame = "same"  # noqa: N815
    kValid = "valid"  # noqa: N815


@dataclass(frozen=True)
class DotDimensionNumbers:
    """Contracting and batch dimensions of DotGeneral (OPS.md DotGeneral)."""

    lhs_contracting_dimensions: Sequence[int] = ()
    rhs_contracting_dimensions: Sequence[int] = ()
    lhs_batch_dimensions: Sequence[int] = ()
    rhs_batch_dimensions: Sequence[int] = ()


@dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """DotDimensionNumbers plus the ragged lhs dimension and the rhs group dimension."""

    dot_dimension_numbers: DotDimensionNumbers
    lhs_ragged_dimensions: Sequence[int] = ()
    rhs_group_dimensions: Sequence[int] = ()


@dataclass(frozen=True)
class GatherDimensionNumbers:
    """The dimension numbers of Gather (OPS.md Gather; batching dims as in StableHLO)."""

    offset_dims: Sequence[int]
    collapsed_slice_dims: Sequence[int]
    start_index_map: Sequence[int]
    index_vector_dim: int
    operand_batching_dims: Sequence[int] = ()
    start_indices_batching_dims: Sequence[int] = ()


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    """The dimension numbers of Scatter (OPS.md Scatter; batching dims as in StableHLO)."""

    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    index_vector_dim: int
    input_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


@dataclass(frozen=True)
class PrecisionConfig:
    """One Precision per operand (OPS.md A.10); empty means DEFAULT for both."""

    operand_precision: Sequence[Precision] = field(default_factory=tuple)


@dataclass(frozen=True)
class ReplicaGroup:
    """One group of replica (or global device) ids."""

    replica_ids: Sequence[int]


@dataclass(frozen=True)
class ChannelHandle:
    """A channel id (``type`` is informational: DEVICE_TO_DEVICE, DEVICE_TO_HOST, ...)."""

    handle: int
    type: str = "DEVICE_TO_DEVICE"


@dataclass(frozen=True)
class CompositeAttributes:
    """The ``composite.*`` frontend attributes of CompositeCall."""

    name: str
    attributes: str = "{}"
    version: int = 0


def precision_attr(
    config: PrecisionConfig | Sequence[Precision] | Precision | None,
) -> tuple[Precision, ...]:
    """The ``operand_precision`` attribute for a precision_config argument."""
    if config is None:
        return ()
    if isinstance(config, Precision):
        return (config, config)
    values = config.operand_precision if isinstance(config, PrecisionConfig) else config
    result = tuple(_precision(v) for v in values)
    if all(p is Precision.DEFAULT for p in result):
        return ()
    return result


def _precision(value: object) -> Precision:
    if isinstance(value, Precision):
        return value
    if isinstance(value, str):
        for member in Precision:
            if value.upper() in (member.name, member.value):
                return member
    choices = ", ".join(m.name for m in Precision)
    raise argument_error(
        "precision_config", f"entries must be Precision ({choices}); got {value!r}"
    )


def replica_groups_attr(
    groups: ReplicaGroups | Sequence[ReplicaGroup] | Sequence[Sequence[int]] | None,
) -> ReplicaGroups:
    """``replica_groups`` from ReplicaGroup objects or plain id lists."""
    if groups is None:
        return ReplicaGroups()
    if isinstance(groups, ReplicaGroups):
        return groups
    explicit = []
    for g in groups:
        ids = g.replica_ids if isinstance(g, ReplicaGroup) else g
        explicit.append(tuple(int(i) for i in ids))
    return ReplicaGroups(tuple(explicit))


def channel_attr(channel: ChannelHandle | int | None) -> int | None:
    if channel is None:
        return None
    if isinstance(channel, ChannelHandle):
        return channel.handle
    return int(channel)


def padding_config(
    config: PaddingConfig | Sequence[Sequence[int]],
) -> PaddingConfig:
    """A PaddingConfig from (low, high[, interior]) triples."""
    if isinstance(config, PaddingConfig):
        return config
    dims: list[PaddingDimension] = []
    for item in config:
        if isinstance(item, PaddingDimension):
            dims.append(item)
            continue
        values = [int(v) for v in item]
        if len(values) not in (2, 3):
            raise InvalidArgument(
                f"pad: each padding_config entry is (low, high[, interior]); got {tuple(item)}"
            )
        dims.append(PaddingDimension(*values))
    return PaddingConfig(tuple(dims))


__all__ = [
    "ChannelHandle",
    "ComparisonDirection",
    "ComparisonType",
    "CompositeAttributes",
    "ConvolutionDimensionNumbers",
    "DotDimensionNumbers",
    "ElementType",
    "FftType",
    "GatherDimensionNumbers",
    "Padding",
    "PaddingConfig",
    "PaddingDimension",
    "Precision",
    "PrecisionConfig",
    "RaggedDotDimensionNumbers",
    "RandomAlgorithm",
    "RandomDistribution",
    "ReplicaGroup",
    "ReplicaGroups",
    "ResultAccuracy",
    "ScatterDimensionNumbers",
    "TransposeA",
    "Window",
    "WindowDimension",
    "channel_attr",
    "padding_config",
    "precision_attr",
    "replica_groups_attr",
]
