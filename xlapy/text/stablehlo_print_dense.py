"""Printing of ``dense<...>`` element attributes and MLIR strings (STABLEHLO_SYNTAX.md §4.1),
the inverse of ``xlapy.text.dense``: every element type, bit for bit.

Rules, as MLIR prints them: all-equal values print as a splat; more than 100 elements (not a
splat) print as a hex blob of the little-endian storage bytes (one byte per element for i1 and
sub-byte types); floats print as ``%e`` with 6 fraction digits when that reads back to the same
bits, else as the shortest decimal that does, and NaN/inf (or anything else) as the hex bits of
the element type. Whether a decimal reads back is decided by ``dense.round_decimals``, the very
function the StableHLO parser rounds with.
"""

from __future__ import annotations

import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import Unimplemented
from xlapy.literal import Array, Literal
from xlapy.shape import Shape
from xlapy.text.dense import round_decimals, storage_bytes

HEX_BLOB_THRESHOLD = 100
"""MLIR prints a non-splat ``dense`` of more than this many elements as a hex blob."""


def format_dense(literal: Literal) -> str:
    """``dense<...> : tensor<...>`` for an array literal."""
    shape = literal.shape
    if not shape.is_array or not isinstance(literal.value, np.ndarray):
        raise Unimplemented(f"dense: only array literals print as dense; got {shape}")
    return f"dense<{dense_body(literal.value, shape.element_type)}> : {shape.to_mlir()}"


def dense_array(values: tuple[int, ...] | list[int], element: str = "i64") -> str:
    """A dense 1-D integer array attribute: ``array<i64: 1, 2>`` (``array<i64>`` if empty)."""
    if not values:
        return f"array<{element}>"
    return f"array<{element}: {', '.join(str(int(v)) for v in values)}>"


def dense_ints(rows: list[list[int]] | list[tuple[int, ...]], columns: int) -> str:
    """A 2-D i64 ``dense`` attribute (padding, replica groups, source-target pairs)."""
    count = len(rows)
    if count == 0 or columns == 0:
        return f"dense<> : tensor<{count}x{columns}xi64>"
    array = np.array(rows, np.int64).reshape(count, columns)
    return format_dense(Literal(Shape.array(dtypes.S64, array.shape), array))


def bits_of(array: Array, elem: ElementType) -> np.ndarray:
    """The storage bits of each element, as unsigned integers (low ``elem.bits`` bits)."""
    flat = np.ascontiguousarray(array).reshape(-1)
    if elem.is_pred:
        return flat.astype(np.uint64)
    raw = flat.view(f"u{flat.dtype.itemsize}").astype(np.uint64)
    if elem.bits < flat.dtype.itemsize * 8:
        raw &= np.uint64((1 << elem.bits) - 1)
    return raw


def dense_body(array: Array, elem: ElementType) -> str:
    """What goes between ``dense<`` and ``>``: a splat, nested lists, or a hex blob."""
    if array.size == 0:
        return ""
    if elem.is_complex:
        parts = np.stack([np.real(array), np.imag(array)], axis=-1)
        flat_bits = bits_of(parts, elem.component).reshape(-1, 2)
        splat = bool((flat_bits == flat_bits[0]).all())
    else:
        flat_bits = bits_of(array, elem)
        splat = bool((flat_bits == flat_bits[0]).all())
    flat = np.ascontiguousarray(array).reshape(-1)
    if splat:
        return element_texts(flat[:1], elem)[0]
    if array.size > HEX_BLOB_THRESHOLD:
        return '"0x' + hex_blob(flat, elem) + '"'
    texts = element_texts(flat, elem)
    return _nest(texts, array.shape)


def hex_blob(flat: Array, elem: ElementType) -> str:
    """The upper-case hex of the little-endian storage bytes of ``flat``."""
    width = storage_bytes(elem)
    if elem.is_pred or elem.bits < 8:
        data = bits_of(flat, elem).astype(np.uint8).tobytes()
    else:
        assert elem.numpy is not None
        stored = np.ascontiguousarray(flat)
        raw = stored.view(f"u{stored.dtype.itemsize}") if elem.numpy.kind not in "iufc" else stored
        data = raw.astype(raw.dtype.newbyteorder("<")).tobytes()
    assert len(data) == width * flat.size
    return data.hex().upper()


def _nest(texts: list[str], dims: tuple[int, ...]) -> str:
    if not dims:
        return texts[0]
    if len(dims) == 1:
        return "[" + ", ".join(texts) + "]"
    step = len(texts) // dims[0] if dims[0] else 0
    return "[" + ", ".join(
        _nest(texts[i * step : (i + 1) * step], dims[1:]) for i in range(dims[0])
    ) + "]"  # fmt: skip


def element_texts(flat: Array, elem: ElementType) -> list[str]:
    """The text of each element of the 1-D array ``flat``."""
    if elem.is_pred:
        return ["true" if bool(v) else "false" for v in flat]
    if elem.is_integer:
        return [str(int(v)) for v in flat]
    if elem.is_complex:
        comp = elem.component
        real = float_texts(np.ascontiguousarray(np.real(flat)).astype(comp.numpy), comp)
        imag = float_texts(np.ascontiguousarray(np.imag(flat)).astype(comp.numpy), comp)
        return [f"({r},{i})" for r, i in zip(real, imag, strict=True)]
    if elem.is_float:
        return float_texts(flat, elem)
    raise Unimplemented(f"dense: element type {elem} has no dense form")


def float_texts(flat: Array, elem: ElementType) -> list[str]:
    """Decimal text for each float that reads back to its exact bits; hex bits otherwise."""
    bits = bits_of(flat, elem)
    wide = flat.astype(np.float64)
    finite = np.isfinite(wide)
    texts = [f"{v:.6e}" if ok else "" for v, ok in zip(wide.tolist(), finite, strict=True)]
    decimal = [i for i, ok in enumerate(finite) if ok]
    if decimal:
        back = bits_of(round_decimals([texts[i] for i in decimal], elem), elem)
        for i, b in zip(decimal, back, strict=True):
            if b != bits[i]:
                texts[i] = _shortest(flat[i : i + 1], elem, bits[i])
    digits = (elem.bits + 3) // 4
    return [t or f"0x{int(b):0{digits}X}" for t, b in zip(texts, bits, strict=True)]


def _shortest(one: Array, elem: ElementType, bits: np.uint64) -> str:
    """The shortest decimal of a finite float that reads back to ``bits``, or "" if none."""
    value = one.astype(np.float64)[0] if elem is dtypes.F64 else one.astype(np.float32)[0]
    if elem is dtypes.F16:
        value = one[0]
    text = np.format_float_scientific(value, unique=True, trim="0", exp_digits=2)
    back = bits_of(round_decimals([text], elem), elem)[0]
    return text if back == bits else ""


_PRINTABLE = set(range(0x20, 0x7F))


def mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal: printable ASCII as is (``\\"`` and ``\\\\``
    escaped), any other byte as ``\\XX``."""
    out = []
    for byte in text.encode("utf-8", errors="surrogateescape"):
        if byte in (0x22, 0x5C):
            out.append("\\" + chr(byte))
        else:
            out.append(chr(byte) if byte in _PRINTABLE else f"\\{byte:02X}")
    return '"' + "".join(out) + '"'
