"""THE element-type table: every XLA primitive type with its HLO name, MLIR name,
bit width, kind and numpy storage dtype (ml_dtypes for the narrow ones).

Nothing else in xlapy spells a type name; look types up here.
"""

from __future__ import annotations

import copyreg
import enum
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from xlapy.errors import InvalidArgument


class Kind(enum.Enum):
    """What kind of values an element type holds."""

    PRED = "pred"
    SIGNED = "signed"
    UNSIGNED = "unsigned"
    FLOAT = "float"
    COMPLEX = "complex"
    TOKEN = "token"
    TUPLE = "tuple"
    OPAQUE = "opaque"
    QUANTIZED = "quantized"


@dataclass(frozen=True, slots=True)
class ElementType:
    """One XLA primitive type.

    Attributes:
        name: HLO text spelling (``f32``, ``pred``, ``f8e4m3fn``).
        mlir: MLIR/StableHLO spelling (``f32``, ``i1``, ``f8E4M3FN``, ``complex<f32>``).
        bits: storage width in bits (0 for token/tuple/opaque).
        kind: PRED, SIGNED, UNSIGNED, FLOAT, COMPLEX, TOKEN, TUPLE or OPAQUE.
        numpy: the numpy dtype arrays of this type are stored in (None for non-arrays).
    """

    name: str
    mlir: str
    bits: int
    kind: Kind
    numpy: np.dtype | None

    def __deepcopy__(self, memo: dict[int, object]) -> ElementType:
        return self  # one object per type: code compares element types with ``is``

    def __hash__(self) -> int:
        return hash(self.name)  # equal types have equal names (the numpy dtype hashes slowly)

    def __reduce_ex__(self, protocol: object) -> tuple[Any, ...]:
        """Pickles a named type as its name, so unpickling gives the one object of that type
        (quantized types, which have no name of their own, by value)."""
        if BY_NAME.get(self.name) is self:
            return (from_name, (self.name,))
        return (copyreg.__newobj__, (type(self),), self.__getstate__())  # type: ignore[attr-defined]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"dtypes.{self.name.upper()}"

    @property
    def is_integer(self) -> bool:
        return self.kind in (Kind.SIGNED, Kind.UNSIGNED)

    @property
    def is_signed(self) -> bool:
        return self.kind is Kind.SIGNED

    @property
    def is_unsigned(self) -> bool:
        return self.kind is Kind.UNSIGNED

    @property
    def is_float(self) -> bool:
        return self.kind is Kind.FLOAT

    @property
    def is_complex(self) -> bool:
        return self.kind is Kind.COMPLEX

    @property
    def is_pred(self) -> bool:
        return self.kind is Kind.PRED

    @property
    def is_quantized(self) -> bool:
        """True for a ``!quant.uniform`` type (a ``QuantizedType``)."""
        return self.kind is Kind.QUANTIZED

    @property
    def is_array(self) -> bool:
        """True for types that can be the element type of an array."""
        return self.numpy is not None

    @property
    def component(self) -> ElementType:
        """The real component type of a complex type (c64 -> f32); itself otherwise."""
        if self is C64:
            return F32
        if self is C128:
            return F64
        return self


def _dt(x: object) -> np.dtype:
    return np.dtype(x)  # type: ignore[call-overload, no-any-return]


_ROWS: tuple[tuple[str, str, int, Kind, object | None], ...] = (
    ("pred", "i1", 8, Kind.PRED, np.bool_),
    ("s1", "i1", 1, Kind.SIGNED, ml_dtypes.int1),
    ("s2", "i2", 2, Kind.SIGNED, ml_dtypes.int2),
    ("s4", "i4", 4, Kind.SIGNED, ml_dtypes.int4),
    ("s8", "i8", 8, Kind.SIGNED, np.int8),
    ("s16", "i16", 16, Kind.SIGNED, np.int16),
    ("s32", "i32", 32, Kind.SIGNED, np.int32),
    ("s64", "i64", 64, Kind.SIGNED, np.int64),
    ("u1", "ui1", 1, Kind.UNSIGNED, ml_dtypes.uint1),
    ("u2", "ui2", 2, Kind.UNSIGNED, ml_dtypes.uint2),
    ("u4", "ui4", 4, Kind.UNSIGNED, ml_dtypes.uint4),
    ("u8", "ui8", 8, Kind.UNSIGNED, np.uint8),
    ("u16", "ui16", 16, Kind.UNSIGNED, np.uint16),
    ("u32", "ui32", 32, Kind.UNSIGNED, np.uint32),
    ("u64", "ui64", 64, Kind.UNSIGNED, np.uint64),
    ("f16", "f16", 16, Kind.FLOAT, np.float16),
    ("bf16", "bf16", 16, Kind.FLOAT, ml_dtypes.bfloat16),
    ("f32", "f32", 32, Kind.FLOAT, np.float32),
    ("f64", "f64", 64, Kind.FLOAT, np.float64),
    ("c64", "complex<f32>", 64, Kind.COMPLEX, np.complex64),
    ("c128", "complex<f64>", 128, Kind.COMPLEX, np.complex128),
    ("f8e5m2", "f8E5M2", 8, Kind.FLOAT, ml_dtypes.float8_e5m2),
    ("f8e4m3", "f8E4M3", 8, Kind.FLOAT, ml_dtypes.float8_e4m3),
    ("f8e4m3fn", "f8E4M3FN", 8, Kind.FLOAT, ml_dtypes.float8_e4m3fn),
    ("f8e4m3b11fnuz", "f8E4M3B11FNUZ", 8, Kind.FLOAT, ml_dtypes.float8_e4m3b11fnuz),
    ("f8e5m2fnuz", "f8E5M2FNUZ", 8, Kind.FLOAT, ml_dtypes.float8_e5m2fnuz),
    ("f8e4m3fnuz", "f8E4M3FNUZ", 8, Kind.FLOAT, ml_dtypes.float8_e4m3fnuz),
    ("f8e3m4", "f8E3M4", 8, Kind.FLOAT, ml_dtypes.float8_e3m4),
    ("f8e8m0fnu", "f8E8M0FNU", 8, Kind.FLOAT, ml_dtypes.float8_e8m0fnu),
    ("f4e2m1fn", "f4E2M1FN", 4, Kind.FLOAT, ml_dtypes.float4_e2m1fn),
    ("f6e2m3fn", "f6E2M3FN", 6, Kind.FLOAT, ml_dtypes.float6_e2m3fn),
    ("f6e3m2fn", "f6E3M2FN", 6, Kind.FLOAT, ml_dtypes.float6_e3m2fn),
    ("token", "!stablehlo.token", 0, Kind.TOKEN, None),
    ("tuple", "tuple", 0, Kind.TUPLE, None),
    ("opaque", "opaque", 0, Kind.OPAQUE, None),
)

ALL: tuple[ElementType, ...] = tuple(
    ElementType(name, mlir, bits, kind, None if np_type is None else _dt(np_type))
    for name, mlir, bits, kind, np_type in _ROWS
)
BY_NAME: dict[str, ElementType] = {t.name: t for t in ALL}
# s1 has no MLIR spelling of its own: i1 is pred.
BY_MLIR: dict[str, ElementType] = {t.mlir: t for t in ALL if t.name != "s1"}
BY_NUMPY: dict[np.dtype, ElementType] = {t.numpy: t for t in ALL if t.numpy is not None}

PRED = BY_NAME["pred"]
S1, S2, S4, S8 = BY_NAME["s1"], BY_NAME["s2"], BY_NAME["s4"], BY_NAME["s8"]
S16, S32, S64 = BY_NAME["s16"], BY_NAME["s32"], BY_NAME["s64"]
U1, U2, U4, U8 = BY_NAME["u1"], BY_NAME["u2"], BY_NAME["u4"], BY_NAME["u8"]
U16, U32, U64 = BY_NAME["u16"], BY_NAME["u32"], BY_NAME["u64"]
F16, BF16, F32, F64 = BY_NAME["f16"], BY_NAME["bf16"], BY_NAME["f32"], BY_NAME["f64"]
C64, C128 = BY_NAME["c64"], BY_NAME["c128"]
F8E5M2, F8E4M3, F8E4M3FN = BY_NAME["f8e5m2"], BY_NAME["f8e4m3"], BY_NAME["f8e4m3fn"]
F8E4M3B11FNUZ, F8E5M2FNUZ = BY_NAME["f8e4m3b11fnuz"], BY_NAME["f8e5m2fnuz"]
F8E4M3FNUZ, F8E3M4, F8E8M0FNU = BY_NAME["f8e4m3fnuz"], BY_NAME["f8e3m4"], BY_NAME["f8e8m0fnu"]
F4E2M1FN, F6E2M3FN, F6E3M2FN = BY_NAME["f4e2m1fn"], BY_NAME["f6e2m3fn"], BY_NAME["f6e3m2fn"]
TOKEN, TUPLE, OPAQUE = BY_NAME["token"], BY_NAME["tuple"], BY_NAME["opaque"]

INTEGER_TYPES = tuple(t for t in ALL if t.is_integer)
FLOAT_TYPES = tuple(t for t in ALL if t.is_float)
COMPLEX_TYPES = (C64, C128)
ARRAY_TYPES = tuple(t for t in ALL if t.is_array)


def from_name(name: str) -> ElementType:
    """Looks up an HLO type name (``f32``); raises InvalidArgument naming it when unknown."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise InvalidArgument(f"unknown element type {name!r}") from None


def from_mlir(name: str) -> ElementType:
    """Looks up an MLIR type name (``i32``, ``ui8``, ``f8E4M3FN``, ``complex<f32>``)."""
    try:
        return BY_MLIR[name]
    except KeyError:
        raise InvalidArgument(f"unknown MLIR element type {name!r}") from None


def from_numpy(dtype: object) -> ElementType:
    """The element type stored as numpy ``dtype`` (ml_dtypes included)."""
    try:
        return BY_NUMPY[np.dtype(dtype)]  # type: ignore[call-overload]
    except (KeyError, TypeError):
        raise InvalidArgument(f"numpy dtype {dtype!r} has no XLA element type") from None


def unsigned_of_width(bits: int) -> ElementType:
    """The unsigned integer type with ``bits`` bits (u1..u64)."""
    return BY_NAME[f"u{bits}"]


def signed_of_width(bits: int) -> ElementType:
    """The signed integer type with ``bits`` bits (s1..s64)."""
    return BY_NAME[f"s{bits}"]


def float_of_width(bits: int) -> ElementType:
    """The IEEE float type with ``bits`` bits (f16, f32, f64)."""
    return {16: F16, 32: F32, 64: F64}[bits]


# ---- uniform quantized types ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuantizedType(ElementType):
    """A StableHLO uniform quantized element type (``!quant.uniform<...>``; StableHLO spec,
    "QuantizedTensorElementType"): integers of ``storage`` type that stand for the
    ``expressed`` values ``(storage - zero_point) * scale``.

    Arrays of this type hold the storage integers (``numpy`` is the storage dtype); ``name``
    and ``mlir`` are both the MLIR spelling (XLA's HLO has no quantized types). Build them with
    ``uniform_quantized``, which checks the spec's constraints and interns the result, so that
    equal types are the same object.

    Attributes:
        storage: the signed or unsigned integer storage type (2 to 32 bits).
        expressed: the floating-point type the values stand for.
        scales: one scale (per-tensor) or one per index of ``quantization_dimension``.
        zero_points: one per scale, within [storage_min, storage_max].
        quantization_dimension: the per-axis dimension, None for per-tensor quantization.
        storage_min, storage_max: the range stored values are clamped to.
    """

    storage: ElementType
    expressed: ElementType
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    quantization_dimension: int | None
    storage_min: int
    storage_max: int

    def __repr__(self) -> str:
        return f"dtypes.QuantizedType({self.mlir})"

    @property
    def is_per_axis(self) -> bool:
        return self.quantization_dimension is not None

    @property
    def is_per_tensor(self) -> bool:
        return self.quantization_dimension is None

    def with_quantization_dimension(self, dimension: int) -> QuantizedType:
        """The same per-axis type along another dimension (reshape/transpose/broadcast)."""
        return uniform_quantized(
            self.storage, self.expressed, self.scales, self.zero_points, dimension,
            self.storage_min, self.storage_max,
        )  # fmt: skip


_QUANTIZED: dict[tuple[object, ...], QuantizedType] = {}
_STORAGE_BITS = range(2, 33)


def storage_range(storage: ElementType) -> tuple[int, int]:
    """The full value range of an integer storage type (``i8`` -> (-128, 127))."""
    if storage.is_signed:
        return -(1 << (storage.bits - 1)), (1 << (storage.bits - 1)) - 1
    return 0, (1 << storage.bits) - 1


def uniform_quantized(
    storage: ElementType,
    expressed: ElementType,
    scales: tuple[float, ...] | list[float],
    zero_points: tuple[int, ...] | list[int],
    quantization_dimension: int | None = None,
    storage_min: int | None = None,
    storage_max: int | None = None,
) -> QuantizedType:
    """The (interned) quantized element type with these parameters.

    Checks the StableHLO spec's constraints on QuantizedTensorElementType: an integer storage
    type of 2-32 bits, a floating-point expressed type, a storage range
    inside the storage type's, positive finite scales, zero points inside the storage range,
    and one scale and zero point per tensor or the same number of each per axis. Raises
    InvalidArgument naming the broken rule.
    """
    if not storage.is_integer or storage.bits not in _STORAGE_BITS:
        raise InvalidArgument(
            f"quantized storage type must be an integer type of 2 to 32 bits; got {storage.mlir}"
        )
    if not expressed.is_float:
        raise InvalidArgument(
            f"quantized expressed type must be a floating-point type; got {expressed.mlir}"
        )
    low, high = storage_range(storage)
    smin = low if storage_min is None else int(storage_min)
    smax = high if storage_max is None else int(storage_max)
    if not low <= smin < smax <= high:
        raise InvalidArgument(
            f"quantized storage range must lie inside [{low}, {high}] with min < max; "
            f"got <{smin}:{smax}> for {storage.mlir}"
        )
    scales_t = tuple(float(s) for s in scales)
    zps = tuple(int(z) for z in zero_points)
    if not scales_t or len(scales_t) != len(zps):
        raise InvalidArgument(
            f"quantized types need one zero point per scale; got {len(scales_t)} scales and "
            f"{len(zps)} zero points"
        )
    if quantization_dimension is None and len(scales_t) != 1:
        raise InvalidArgument(f"a per-tensor quantized type has one scale; got {len(scales_t)}")
    if quantization_dimension is not None and quantization_dimension < 0:
        raise InvalidArgument(
            f"quantization dimension must be non-negative; got {quantization_dimension}"
        )
    for s in scales_t:
        if not (s > 0 and s != float("inf")):
            raise InvalidArgument(f"quantization scales must be positive and finite; got {s!r}")
    for z in zps:
        if not smin <= z <= smax:
            raise InvalidArgument(
                f"quantization zero points must lie in the storage range [{smin}, {smax}]; got {z}"
            )
    key = (storage, expressed, scales_t, zps, quantization_dimension, smin, smax)
    found = _QUANTIZED.get(key)
    if found is None:
        text = _quantized_text(storage, expressed, scales_t, zps, quantization_dimension,
                               (smin, smax) if (smin, smax) != (low, high) else None)  # fmt: skip
        found = QuantizedType(
            text, text, storage.bits, Kind.QUANTIZED, storage.numpy,
            storage, expressed, scales_t, zps, quantization_dimension, smin, smax,
        )  # fmt: skip
        _QUANTIZED[key] = found
    return found


def _quantized_text(
    storage: ElementType,
    expressed: ElementType,
    scales: tuple[float, ...],
    zero_points: tuple[int, ...],
    dimension: int | None,
    storage_range_: tuple[int, int] | None,
) -> str:
    """MLIR's spelling: ``!quant.uniform<i8<-127:127>:f32:1, {0.1:-3,2.000000e-01}>``; the
    storage is ``i<N>``/``u<N>``, a zero point of 0 is left out."""
    text = f"{'i' if storage.is_signed else 'u'}{storage.bits}"
    if storage_range_ is not None:
        text += f"<{storage_range_[0]}:{storage_range_[1]}>"
    text += f":{expressed.mlir}"
    params = [
        mlir_float(s) + (f":{z}" if z else "") for s, z in zip(scales, zero_points, strict=True)
    ]
    if dimension is None:
        return f"!quant.uniform<{text}, {params[0]}>"
    return f"!quant.uniform<{text}:{dimension}, {{{','.join(params)}}}>"


def mlir_float(value: float) -> str:
    """A double as MLIR prints float attributes: ``1.000000e-01`` when six digits give it back,
    else 17 significant digits (``0.0039188104517319626``, ``1.537725862903607E-5``)."""
    short = f"{value:.6e}"
    if float(short) == value:
        return short
    mantissa, _, exp_text = f"{value:.16e}".partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    exp = int(exp_text)  # value = d.ddd * 10^exp
    if exp < -3 or exp >= len(digits) + 3:
        body = digits[0] + "." + (digits[1:] or "0")
        return f"{sign}{body}E{'-' if exp < 0 else '+'}{abs(exp)}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    whole = digits[: exp + 1].ljust(exp + 1, "0")
    return f"{sign}{whole}.{digits[exp + 1 :] or '0'}"
