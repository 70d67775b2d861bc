"""``dense<...>`` element attributes (STABLEHLO_SYNTAX.md §4.1): value trees, splats, hex bit
patterns and hex blobs, converted bit-exactly to numpy arrays of the element type.

Decimal floats round to the element type exactly as MLIR does (decimal -> type, round to nearest
even, one rounding): the decimal is read as f64, narrowed with round-to-odd through f32 (so the
second rounding is exact), and the rare f64 results that sit exactly on a tie of the target type
are settled against the exact decimal value.
"""

from __future__ import annotations

import math
import re

import numpy as np

from xlapy import dtypes
from xlapy.dtypes import ElementType
from xlapy.errors import InvalidArgument
from xlapy.text.limits import literal_size_problem

_PIECE = re.compile(r"\[|\]|\(|\)|,|[^\s\[\](),]+")
_DECIMAL_INT = re.compile(r"-?\d+$")
_HEX = re.compile(r"-?0x[0-9a-fA-F]+$")

Leaf = str | tuple[str, str]
Tree = Leaf | list["Tree"]


def storage_bytes(elem: ElementType) -> int:
    """Bytes per element in a hex blob: one for i1 and every sub-byte type, else the width."""
    return max(1, elem.bits // 8) if elem.kind is not dtypes.Kind.PRED else 1


def parse_dense_body(body: str, elem: ElementType, dims: tuple[int, ...]) -> np.ndarray:
    """The array of ``dense<body> : tensor<dims x elem>``; raises InvalidArgument on mismatch."""
    body = body.strip()
    count = math.prod(dims)
    if body.startswith('"'):
        return _hex_blob(body[1:-1], elem, dims)
    if not body:
        if count:
            raise InvalidArgument(f"dense<> is empty but the type has {count} elements")
        return np.zeros(dims, elem.numpy)
    pieces = _PIECE.findall(body)
    tree, end = _tree(pieces, 0)
    if end != len(pieces):
        raise InvalidArgument(f"unexpected {pieces[end]!r} after the dense value")
    if not isinstance(tree, list):
        return _splat(_scalar(tree, elem), elem, dims)
    shape: list[int] = []
    leaves: list[Leaf] = []
    _flatten(tree, 0, shape, leaves)
    if count == 0 and not leaves:
        return np.zeros(dims, elem.numpy)
    if tuple(shape) != tuple(dims):
        raise InvalidArgument(
            f"the dense literal has shape [{', '.join(map(str, shape))}] but the type has "
            f"shape [{', '.join(map(str, dims))}]"
        )
    return _convert(leaves, elem).reshape(dims)


_SCALARS: dict[tuple[Leaf, str], object] = {}
"""Converted splat elements by (text, type): a program repeats a few constants (``0.0``,
``1.0``, ``-inf``...) hundreds of times, and converting one costs numpy calls."""
_MAX_SCALARS = 4096


def _scalar(leaf: Leaf, elem: ElementType) -> object:
    """The element ``leaf`` of type ``elem`` (a numpy scalar, immutable), memoized."""
    if dtypes.BY_MLIR.get(elem.mlir) is not elem:  # not named by its spelling alone
        (value,) = _convert([leaf], elem)
        return value
    key = (leaf, elem.mlir)
    value = _SCALARS.get(key)
    if value is None:
        (value,) = _convert([leaf], elem)
        if len(_SCALARS) >= _MAX_SCALARS:
            _SCALARS.clear()
        _SCALARS[key] = value
    return value


def _splat(value: object, elem: ElementType, dims: tuple[int, ...]) -> np.ndarray:
    """``value`` repeated over ``dims``, if that fits the memory budget."""
    problem = literal_size_problem(elem, dims)
    if problem is not None:
        raise InvalidArgument(f"dense splat: {problem}")
    return np.full(dims, value, elem.numpy)


def _tree(pieces: list[str], i: int) -> tuple[Tree, int]:
    p = pieces[i] if i < len(pieces) else ""
    if p == "[":
        items: list[Tree] = []
        i += 1
        if i >= len(pieces):
            raise InvalidArgument("unterminated '[' in dense literal")
        if pieces[i] == "]":
            return items, i + 1
        while True:
            item, i = _tree(pieces, i)
            items.append(item)
            if i >= len(pieces):
                raise InvalidArgument("unterminated '[' in dense literal")
            if pieces[i] == "]":
                return items, i + 1
            if pieces[i] != ",":
                raise InvalidArgument(f"expected ',' or ']' in dense literal; got {pieces[i]!r}")
            i += 1
    if p == "(":
        if i + 4 >= len(pieces) or pieces[i + 2] != "," or pieces[i + 4] != ")":
            raise InvalidArgument("a complex element must look like (real, imag)")
        return (pieces[i + 1], pieces[i + 3]), i + 5
    if p in ("", "]", ")", ","):
        raise InvalidArgument(f"expected a dense element; got {p or 'end of literal'!r}")
    return p, i + 1


def _flatten(tree: Tree, depth: int, shape: list[int], leaves: list[Leaf]) -> None:
    if isinstance(tree, list):
        if len(shape) == depth:
            shape.append(len(tree))
        elif shape[depth] != len(tree):
            raise InvalidArgument(
                f"dense literal is not rectangular: dimension {depth} has sizes "
                f"{shape[depth]} and {len(tree)}"
            )
        for t in tree:
            _flatten(t, depth + 1, shape, leaves)
    else:
        if len(shape) != depth:
            raise InvalidArgument("dense literal mixes elements and lists at the same depth")
        leaves.append(tree)


# ---- element conversion -----------------------------------------------------------------


def _convert(leaves: list[Leaf], elem: ElementType) -> np.ndarray:
    if elem.is_complex:
        comp = elem.component
        flat: list[str] = []
        for leaf in leaves:
            if not isinstance(leaf, tuple):
                raise InvalidArgument(
                    f"a {elem.mlir} element must be written (real, imag); got {leaf!r}"
                )
            flat.extend(leaf)
        parts = float_literals(flat, comp)
        out = np.empty(len(leaves), elem.numpy)
        out.real = parts[0::2]
        out.imag = parts[1::2]
        return out
    texts: list[str] = []
    for leaf in leaves:
        if isinstance(leaf, tuple):
            raise InvalidArgument(f"a complex element is not allowed for {elem.mlir}")
        texts.append(leaf)
    if elem.is_float:
        return float_literals(texts, elem)
    return int_literals(texts, elem)


def int_literals(texts: list[str], elem: ElementType) -> np.ndarray:
    """Integer (or i1) elements: decimal or hex integers, ``true``/``false``."""
    values: list[int] = []
    for t in texts:
        if t in ("true", "false"):
            values.append(int(t == "true"))
        elif _DECIMAL_INT.match(t):
            values.append(int(t, 10))  # leading zeros allowed, as MLIR reads them
        elif _HEX.match(t):
            values.append(int(t, 16))
        else:
            raise InvalidArgument(f"expected an integer element of type {elem.mlir}; got {t!r}")
    return ints_to_array(values, elem)


def ints_to_array(values: list[int], elem: ElementType) -> np.ndarray:
    """Python ints as an array of ``elem``; signless values may be given unsigned (wrap)."""
    if elem.is_pred:
        bad = [v for v in values if v not in (0, 1)]
        if bad:
            raise InvalidArgument(f"an i1 element must be true, false, 0 or 1; got {bad[0]}")
        return np.array(values, np.bool_)
    bits = elem.bits
    lo = -(1 << (bits - 1)) if elem.is_signed else 0
    hi = (1 << bits) - 1
    bad = [v for v in values if not lo <= v <= hi]
    if bad:
        raise InvalidArgument(f"{bad[0]} does not fit in {elem.mlir}")
    raw = np.array([v & hi for v in values], np.uint64)
    return bits_to_int(raw, elem)


def bits_to_int(raw: np.ndarray, elem: ElementType) -> np.ndarray:
    """Unsigned bit patterns (low ``elem.bits`` bits) as integers of ``elem``."""
    bits = elem.bits
    raw = raw.astype(np.uint64) & np.uint64((1 << bits) - 1)
    if elem.is_signed and bits == 64:
        return raw.view(np.int64).astype(elem.numpy)
    if elem.is_signed:
        signed = raw.astype(np.int64)
        signed = np.where(signed >= (1 << (bits - 1)), signed - (1 << bits), signed)
        return signed.astype(elem.numpy)
    return raw.astype(elem.numpy)


def bits_to_float(raw: np.ndarray, elem: ElementType) -> np.ndarray:
    """Bit patterns (low ``elem.bits`` bits) as floats of ``elem``."""
    assert elem.numpy is not None
    width = elem.numpy.itemsize * 8
    store = np.dtype(f"u{elem.numpy.itemsize}")
    raw = raw.astype(np.uint64)
    if width != elem.bits:
        raw = raw & np.uint64((1 << elem.bits) - 1)
    return raw.astype(store).view(elem.numpy)


def float_literals(texts: list[str], elem: ElementType) -> np.ndarray:
    """Float elements: decimal floats (must contain ``.``) or hex bit patterns of ``elem``."""
    n = len(texts)
    out = np.empty(n, elem.numpy)
    decimal_idx: list[int] = []
    decimal_txt: list[str] = []
    hex_idx: list[int] = []
    hex_val: list[int] = []
    for i, t in enumerate(texts):
        if _HEX.match(t) and not t.startswith("-"):
            v = int(t, 16)
            if v >> elem.bits:
                raise InvalidArgument(f"hexadecimal {t} has more bits than {elem.mlir}")
            hex_idx.append(i)
            hex_val.append(v)
        elif _DECIMAL_INT.match(t):
            raise InvalidArgument(
                f"unexpected decimal integer literal {t} for a floating point value of type "
                f"{elem.mlir} (write {t}.0)"
            )
        else:
            try:
                float(t)
            except ValueError:
                raise InvalidArgument(f"expected a {elem.mlir} element; got {t!r}") from None
            decimal_idx.append(i)
            decimal_txt.append(t)
    if hex_idx:
        out[hex_idx] = bits_to_float(np.array(hex_val, np.uint64), elem)
    if decimal_idx:
        out[decimal_idx] = round_decimals(decimal_txt, elem)
    return out


def round_decimals(texts: list[str], elem: ElementType) -> np.ndarray:
    """Decimal strings rounded once, to nearest even, to ``elem``."""
    x = np.array([float(t) for t in texts], np.float64)
    if elem is dtypes.F64:
        return x
    r = narrow_f64(x, elem)
    back = r.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        inexact = np.isfinite(x) & np.isfinite(back) & (back != x)
    for i in np.flatnonzero(inexact):  # sequential: only values that may sit on a tie
        other = 2.0 * x[i] - back[i]
        if not np.isfinite(other):
            continue
        other_r = narrow_f64(np.array([other]), elem)
        if other_r.astype(np.float64)[0] != other:
            continue  # x is not a tie of two neighbours of elem
        from fractions import Fraction  # only for ties (a fresh process would pay ~1 ms)

        exact = Fraction(texts[i])
        if exact == Fraction(float(x[i])):
            continue  # a true tie: round to even already chose right
        want_up = exact > Fraction(float(x[i]))
        pick = max(back[i], other) if want_up else min(back[i], other)
        r[i] = narrow_f64(np.array([pick]), elem)[0]
    return r


def narrow_f64(x: np.ndarray, elem: ElementType) -> np.ndarray:
    """f64 values rounded once, to nearest even, to the float type ``elem``."""
    if elem is dtypes.F64:
        return x.astype(np.float64)
    if elem in (dtypes.F32, dtypes.F16):
        with np.errstate(over="ignore"):
            return x.astype(elem.numpy)
    # Round to odd into f32 (24 bits, far more than any narrower type), then to nearest even.
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(np.float32)
        tb = t.astype(np.float64)
        inexact = np.isfinite(x) & (tb != x)
        bits = t.view(np.uint32).copy()
        away = inexact & (np.abs(tb) > np.abs(x))
        bits[away] -= np.uint32(1)
        bits[inexact] |= np.uint32(1)
        return bits.view(np.float32).astype(elem.numpy)


# ---- hex blobs ----------------------------------------------------------------------------


def _hex_blob(text: str, elem: ElementType, dims: tuple[int, ...]) -> np.ndarray:
    if not text.lower().startswith("0x"):
        raise InvalidArgument(f'a dense string must be a hex blob "0x..."; got "{text[:20]}"')
    try:
        data = bytes.fromhex(text[2:])
    except ValueError:
        raise InvalidArgument("malformed hex blob in dense literal") from None
    width = storage_bytes(elem)
    count = math.prod(dims)
    if len(data) == width and count != 1:
        flat = _from_bytes(data, elem, 1)
        return _splat(flat[0], elem, dims)
    if len(data) != width * count:
        raise InvalidArgument(
            f"hex blob has {len(data)} bytes; {count} elements of {elem.mlir} need {width * count}"
        )
    return _from_bytes(data, elem, count).reshape(dims)


def _from_bytes(data: bytes, elem: ElementType, count: int) -> np.ndarray:
    assert elem.numpy is not None
    if elem.is_pred:
        flags: np.ndarray = np.frombuffer(data, np.uint8) != 0
        return flags
    if elem.bits < 8:
        raw = np.frombuffer(data, np.uint8)
        return bits_to_float(raw, elem) if elem.is_float else bits_to_int(raw, elem)
    if elem.numpy.kind in "iufc":  # numpy's own types (ml_dtypes floats have kind 'V')
        out: np.ndarray = np.frombuffer(data, elem.numpy.newbyteorder("<")).astype(elem.numpy)
        return out
    raw = np.frombuffer(data, np.dtype(f"<u{elem.numpy.itemsize}"))
    return raw.astype(np.dtype(f"u{elem.numpy.itemsize}")).view(elem.numpy)
