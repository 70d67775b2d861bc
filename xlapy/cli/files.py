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

import math
import os
import sys
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import numpy as np

from xlapy.dtypes import QuantizedType
from xlapy.errors import InvalidArgument
from xlapy.ir import memory
from xlapy.loader import read_file
from xlapy.shape import Shape


def read_program(path: str) -> tuple[str, str]:
    """``(text, filename)`` of a program file, or of stdin for ``-``."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    return read_file(Path(path)), path


def load_npz(path: str, what: str, max_bytes: int | None = None) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive ``path`` (``what`` names the flag in errors).

    Each entry's ``.npy`` header is read and checked before its data: the bytes its shape and
    dtype claim must be in the entry, and all entries together must fit ``max_bytes``
    (default: 80% of the memory available), so a corrupt or hostile header never makes
    xlapy allocate what it describes.

    Raises:
        InvalidArgument: the file is missing, not an .npz archive, or corrupt; an entry is
            not a numeric (or bool) numpy array (pickled objects are refused, never loaded),
            claims more bytes than it holds, or the arrays exceed ``max_bytes``.
    """
    file = Path(path)
    if file.is_dir():
        raise InvalidArgument(f"{what} {path}: is a directory, not an .npz file")
    try:
        with file.open("rb") as stream:
            magic = stream.read(len(np.lib.format.MAGIC_PREFIX))
    except FileNotFoundError:
        raise InvalidArgument(f"{what} {path}: no such file") from None
    except OSError as err:
        raise InvalidArgument(f"{what} {path}: cannot be read ({err.strerror or err})") from None
    if magic == np.lib.format.MAGIC_PREFIX:
        raise InvalidArgument(
            f"{what} {path}: is a single .npy array, not an .npz archive; save it with "
            "numpy.savez(path, arg0=...)"
        )
    if max_bytes is None:
        available = memory.available_memory()
        max_bytes = int(available * memory.DEFAULT_FRACTION) if available is not None else None
    try:
        with zipfile.ZipFile(file) as archive:
            return _read_entries(archive, f"{what} {path}", max_bytes)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as err:
        if isinstance(err, InvalidArgument):
            raise
        # Not a zip archive at all, or one whose directory is damaged.
        raise InvalidArgument(
            f"{what} {path}: not an .npz archive of numpy arrays (write one with numpy.savez)"
            f"; {_reason(err)}"
        ) from None


def _reason(err: BaseException) -> str:
    return str(err) or type(err).__name__


def _read_entries(
    archive: zipfile.ZipFile, where: str, max_bytes: int | None
) -> dict[str, np.ndarray]:
    """The arrays of an open ``.npz`` archive, by key (member name without ``.npy``)."""
    arrays: dict[str, np.ndarray] = {}
    total = 0
    for info in archive.infolist():
        key = info.filename[: -len(".npy")] if info.filename.endswith(".npy") else info.filename
        if key in arrays:
            raise InvalidArgument(f"{where}: entry {key!r} appears twice in the archive")
        try:
            with archive.open(info) as member:
                shape, fortran, dtype = _entry_header(member, where, key)
                count = math.prod(shape)
                nbytes = count * dtype.itemsize
                held = info.file_size - member.tell()
                if nbytes > held:
                    raise InvalidArgument(
                        f"{where}: entry {key!r} is corrupt: its header claims {dtype}"
                        f"{list(shape)} ({nbytes} bytes) but it holds {max(held, 0)} bytes"
                    )
                total += nbytes
                if max_bytes is not None and total > max_bytes:
                    raise InvalidArgument(
                        f"{where}: entry {key!r} ({dtype}{list(shape)}, {nbytes} bytes) takes "
                        f"the arrays past the memory budget of {max_bytes} bytes; nothing of "
                        "it was read"
                    )
                data = bytearray(nbytes)
                if member.readinto(data) != nbytes:
                    raise InvalidArgument(f"{where}: entry {key!r} is corrupt: its data ends early")
        except InvalidArgument:
            raise
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError,
                NotImplementedError, zlib.error) as err:  # fmt: skip
            # A damaged member: bad CRC or deflate stream, unsupported compression, encrypted.
            raise InvalidArgument(f"{where}: entry {key!r} is corrupt: {_reason(err)}") from None
        if dtype.kind == "b" and data.translate(None, b"\x00\x01"):
            raise InvalidArgument(
                f"{where}: entry {key!r} is a bool array holding bytes other than 0 and 1"
            )
        array = np.frombuffer(data, dtype=dtype, count=count)
        arrays[key] = array.reshape(shape, order="F" if fortran else "C")
    return arrays


def _entry_header(
    member: IO[bytes], where: str, key: str
) -> tuple[tuple[int, ...], bool, np.dtype]:
    """The ``(shape, fortran_order, dtype)`` of a ``.npy`` member whose data xlapy reads:
    numeric, bool or raw-bits (void) arrays only; pickled objects are refused unread."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(member)
        else:
            raise ValueError(f".npy format version {version[0]}.{version[1]} is not supported")
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError, EOFError) as err:
        raise InvalidArgument(
            f"{where}: entry {key!r} is not a numpy array ({_reason(err)})"
        ) from None
    if dtype.hasobject:
        raise InvalidArgument(
            f"{where}: entry {key!r} holds pickled Python objects, which xlapy does not load; "
            "save plain numeric arrays"
        )
    if dtype.kind not in "biufcV" or dtype.names is not None or dtype.subdtype is not None:
        raise InvalidArgument(f"{where}: entry {key!r} has dtype {dtype}, not a numeric type")
    if dtype.itemsize == 0:
        raise InvalidArgument(f"{where}: entry {key!r} has dtype {dtype}, which holds no bytes")
    if any(d < 0 for d in shape):
        raise InvalidArgument(f"{where}: entry {key!r} has a negative dimension: {list(shape)}")
    return tuple(shape), bool(fortran), dtype


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
