"""File access shared by the subcommands: program text (or stdin) and ``.npz`` archives.

Every failure is an ``XlaError`` naming the file: a missing path, a directory, a file that is
not an ``.npz`` archive, an entry that is not a plain numeric array (pickled objects are
refused, never loaded), a destination that cannot be written.
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.loader import read_file


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


def save_npz(path: str, what: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Writes ``arrays`` to ``path`` (``numpy.savez``; ``.npz`` is appended when missing)
    atomically: a temporary file in the same directory, renamed once complete, so a failed or
    interrupted run never leaves a truncated archive or half-overwrites an earlier result.
    Failures name the flag and path."""
    final = Path(path if path.endswith(".npz") else f"{path}.npz")
    temporary = final.with_name(f".{final.name}.{os.getpid()}.partial.npz")
    try:
        np.savez(temporary, **arrays)  # type: ignore[arg-type]
        os.replace(temporary, final)
    except OSError as err:
        raise InvalidArgument(f"{what} {path}: cannot be written ({err.strerror or err})") from None
    finally:
        temporary.unlink(missing_ok=True)
