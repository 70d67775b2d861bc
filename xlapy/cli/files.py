"""File access shared by the subcommands: program text (or stdin) and ``.npz`` archives.

Every failure is an ``XlaError`` naming the file: a missing path, a directory, a file that is
not an ``.npz`` archive, an entry that is not a plain numeric array (pickled objects are
refused, never loaded), a destination that cannot be written, an argument whose bytes do not
fit its parameter.

How element types are stored in ``.npz`` files (``numpy.savez``, one element per array item):

* pred, s8-s64, u8-u64, f16, f32, f64, c64, c128: their numpy dtypes (``bool``, ``int8``...).
* bf16, every f8 (f8e5m2, f8e4m3fn, ...), f6 and f4 types, and the sub-byte integers (s1, s2,
  s4, u1, u2, u4): numpy has no dtype for them, so ``--outputs`` holds their ml_dtypes bits
  as void ``|V2`` (bf16) or ``|V1`` (one byte per element; a sub-byte value in the low bits).
  Read them back with ``array.view(ml_dtypes.bfloat16)`` (``float8_e4m3fn``, ``int4``, ...).
* quantized types (``!quant.uniform``): their storage integers (``int8`` for ``i8`` storage).

``--inputs`` takes each argument with the parameter's dtype, or as raw bits
(``as_argument``): any integer or void array of the same total byte size is reinterpreted as
the parameter's type, e.g. bf16 saved as ``|V2`` or ``uint16``, f8/f4 as ``uint8`` or ``|V1``,
s4 as ``int8`` values in [-8, 7].
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from xlapy.dtypes import QuantizedType
from xlapy.errors import InvalidArgument
from xlapy.loader import read_file
from xlapy.shape import Shape


def read_program(path: str) -> tuple[str, str]:
    """``(text, filename)`` of a program file, or of stdin for ``-``."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    return read_file(Path(path)), path


def load_npz(path: str, what: str) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive ``path`` (``what`` names the flag in errors).

    Raises:
        InvalidArgument: the file is missing, not an .npz archive, or holds an entry that is
            not a numeric (or bool) numpy array.
    """
    file = Path(path)
    if file.is_dir():
        raise InvalidArgument(f"{what} {path}: is a directory, not an .npz file")
    try:
        data = np.load(file, allow_pickle=False)
    except FileNotFoundError:
        raise InvalidArgument(f"{what} {path}: no such file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        # numpy falls back to unpickling unknown files and refuses: say what the file is not.
        raise InvalidArgument(
            f"{what} {path}: not an .npz archive of numpy arrays (write one with numpy.savez)"
        ) from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise InvalidArgument(
            f"{what} {path}: is a single .npy array, not an .npz archive; save it with "
            "numpy.savez(path, arg0=...)"
        )
    arrays: dict[str, np.ndarray] = {}
    with data:
        for key in data.files:
            try:
                value = data[key]
            except ValueError:
                raise InvalidArgument(
                    f"{what} {path}: entry {key!r} holds pickled Python objects, which xlapy "
                    "does not load; save plain numeric arrays"
                ) from None
            except (OSError, EOFError, zipfile.BadZipFile) as err:
                raise InvalidArgument(f"{what} {path}: entry {key!r} is corrupt: {err}") from None
            if not isinstance(value, np.ndarray):
                raise InvalidArgument(f"{what} {path}: entry {key!r} is not a numpy array")
            if value.dtype.kind not in "biufcV" or value.dtype.hasobject:
                raise InvalidArgument(
                    f"{what} {path}: entry {key!r} has dtype {value.dtype}, not a numeric type"
                )
            arrays[key] = value
    return arrays


def _storable(array: np.ndarray) -> np.ndarray:
    """``array`` itself when numpy can record its dtype in an ``.npy`` header, else its raw
    bits as void ``|V<itemsize>`` (ml_dtypes types; numpy would pickle f8e5m2)."""
    if not isinstance(array, np.ndarray):
        return array  # numpy.savez converts (or rejects) anything else itself
    try:
        native = np.dtype(array.dtype.str) == array.dtype
    except TypeError:
        native = False
    return array if native else np.ascontiguousarray(array).view(f"V{array.dtype.itemsize}")


def save_npz(path: str, what: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Writes ``arrays`` to ``path`` (``numpy.savez``; ``.npz`` is appended when missing)
    atomically: a temporary file in the same directory, renamed once complete, so a failed or
    interrupted run never leaves a truncated archive or half-overwrites an earlier result.
    Failures name the flag and path."""
    final = Path(path if path.endswith(".npz") else f"{path}.npz")
    temporary = final.with_name(f".{final.name}.{os.getpid()}.partial.npz")
    try:
        np.savez(temporary, **{k: _storable(v) for k, v in arrays.items()})  # type: ignore[arg-type]
        os.replace(temporary, final)
    except OSError as err:
        raise InvalidArgument(f"{what} {path}: cannot be written ({err.strerror or err})") from None
    finally:
        temporary.unlink(missing_ok=True)


def as_argument(array: np.ndarray, shape: Shape, name: str, path: str) -> np.ndarray:
    """The ``.npz`` entry ``name`` of ``--inputs path`` as an argument for a parameter of
    ``shape``: itself when it has the parameter's dtype; otherwise an integer or void array
    of the parameter's byte size (elements x storage bytes) holding its raw bits, viewed as
    the parameter's type with its dims.

    Raises:
        InvalidArgument: the byte sizes differ, the array is a float/complex array of another
            type (a value conversion, which xlapy does not guess), or the bits are not values
            of the type (a pred byte other than 0/1, a sub-byte value out of range).
    """
    if not shape.is_array:
        return array
    etype = shape.element_type
    want = etype.numpy
    assert want is not None
    if array.dtype == want:
        return array
    where = f"--inputs {path}: {name}"
    target = shape.to_hlo(layout=False)
    size = int(np.prod(shape.dims, dtype=np.int64)) * want.itemsize
    if array.dtype.kind not in "iuV":
        raise InvalidArgument(
            f"{where} has dtype {array.dtype} but the parameter is {target}; save it with "
            f"dtype {want.name}, or its raw bits as an integer array of {size} bytes"
        )
    if array.nbytes != size or not shape.is_static:
        raise InvalidArgument(
            f"{where} holds {array.nbytes} bytes ({array.dtype}{list(array.shape)}) but the "
            f"parameter {target} takes {size} ({want.itemsize} per element); raw bits must "
            "have the same byte size"
        )
    raw = np.ascontiguousarray(array).view(np.uint8)
    base = etype.storage if isinstance(etype, QuantizedType) else etype
    bits = 1 if base.is_pred else base.bits
    if bits < 8 and raw.size:
        # One value per byte, in the low bits (ml_dtypes' form) or sign-extended (an int8 array
        # of s4 values); anything else is not a value of the type.
        low = raw & np.uint8((1 << bits) - 1)
        high = raw.view(np.int8) >> (bits - 1)
        sign_extended = base.is_signed and bool(np.all((high == 0) | (high == -1)))
        if not (np.array_equal(low, raw) or sign_extended):
            raise InvalidArgument(
                f"{where}: its bytes are not {etype} values ({bits} bits, one value per byte); "
                f"got a byte {int(raw[low != raw][0])}"
            )
        raw = low
    return raw.view(want).reshape(shape.dims).copy()
