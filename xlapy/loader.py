"""``load``: read a program from a path or a string, HLO text or StableHLO detected.

Every failure is an ``XlaError``: a path that is missing, a directory or unreadable is an
``InvalidArgument``; a file that is empty, binary (not UTF-8, NUL bytes) or neither HLO text
nor StableHLO is a ``ParseError`` located at the offending line and column.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from xlapy.errors import InvalidArgument, ParseError
from xlapy.ir.module import HloModule
from xlapy.ir.verifier import verify as verify_module
from xlapy.text import parsed_cache

_STABLEHLO = re.compile(r"^\s*(module\b|func\.func\b|#loc|\"?stablehlo\.)|\bfunc\.func\b", re.M)
_HLO = re.compile(r"^\s*(HloModule|ENTRY)\b", re.M)
# A one-line string that names a file rather than holding a program.
_PATH_LIKE = re.compile(r"^[^{}()=\s]*(\.(hlo|mlir|txt|pbtxt)|[/\\][^{}()=\s]*)$")


def is_stablehlo(text: str) -> bool:
    """True when ``text`` is MLIR (StableHLO) rather than HLO text."""
    if _HLO.search(text):
        return False
    return bool(_STABLEHLO.search(text))


def read_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """Returns ``(text, filename)`` for a path, or for program text given directly.

    A string is a path when it has no newline and names an existing file, or looks like one
    (``*.hlo``, ``*.mlir``, ``dir/name``).

    Raises:
        InvalidArgument: ``source`` is neither a str nor a path; the file is missing, a
            directory or unreadable.
        ParseError: the file is not UTF-8 text.
    """
    if isinstance(source, bytes):
        raise InvalidArgument("load: expected a path or program text (str); got bytes: decode it")
    if not isinstance(source, str | os.PathLike):
        raise InvalidArgument(
            f"load: expected a path or program text (str); got {type(source).__name__}"
        )
    if isinstance(source, str):
        one_line = "\n" not in source and source.strip() != ""
        if not (one_line and (_PATH_LIKE.match(source.strip()) or _is_file(source))):
            return source, "<string>"
    return read_file(Path(source)), str(source)


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # too long for a file name, NUL characters: program text
        return False


def read_file(path: Path) -> str:
    """The UTF-8 text of ``path``; every failure is an XlaError naming the path."""
    if path.is_dir():
        raise InvalidArgument(f"{path}: is a directory, not a program file")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidArgument(f"{path}: no such file") from None
    except OSError as err:
        raise InvalidArgument(f"{path}: cannot be read ({err.strerror or err})") from None
    except ValueError as err:  # a NUL character in the name
        raise InvalidArgument(f"{str(path)!r}: not a valid file name ({err})") from None
    filename = str(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        why = f"byte 0x{data[err.start]:02x} is not UTF-8"
        raise _binary(data, err.start, why, filename) from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise _binary(data, nul, "it contains a NUL byte", filename)
    return text


def _binary(data: bytes, offset: int, why: str, filename: str) -> ParseError:
    """The error for a binary file, located at byte ``offset`` (no source line: it is not
    printable)."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return ParseError(
        f"not a text file (offset {offset}: {why}); expected HLO text or StableHLO",
        line=line,
        column=column,
        filename=filename,
    )


def load(source: str | os.PathLike[str], *, verify: bool = True) -> HloModule:
    """Parses a program from a file path or from text (HLO text or StableHLO MLIR).

    Args:
        source: a path, or the program text itself.
        verify: type-check every HLO instruction while parsing (StableHLO is always
            checked) and run the structural verifier (``ir.verifier``): a wrongly typed or
            malformed program fails here, naming the op, the rule and (for type errors) the
            line:column, instead of inside the interpreter. Off: syntax only.

    Raises:
        InvalidArgument: a bad path (missing, directory, unreadable) or argument type.
        ParseError: empty, binary or malformed text, or an ill-typed instruction.
        VerificationError: a broken structural invariant (parameter numbering, the entry
            computation layout, ...).
        Unimplemented: a valid program using what xlapy does not support.
    """
    with _collector_paused():
        return _load(source, verify)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a program is read: parsing allocates tens
    of thousands of objects that all stay alive, and each generation-2 collection triggered
    on the way walks every object of the process (a JAX process holds ~10^5-10^6), a quarter
    to a third of the load time for nothing. Left as it was when the caller had it off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _load(source: str | os.PathLike[str], verify: bool) -> HloModule:
    text, filename = read_source(source)
    return parsed_cache.load_cached(text, filename, verify, lambda: _parse(text, filename, verify))


def _parse(text: str, filename: str, verify: bool) -> HloModule:
    if not text.strip():
        raise ParseError.at(
            text,
            0,
            "empty program: expected HLO text (HloModule ... / ENTRY ...) or StableHLO "
            "(module { func.func ... })",
            filename,
        )
    stablehlo = is_stablehlo(text)
    if not stablehlo and not _HLO.search(text) and "{" not in text:
        start = len(text) - len(text.lstrip())
        raise ParseError.at(
            text,
            start,
            "neither HLO text nor StableHLO: expected 'HloModule <name>' or a computation "
            "'name { ... }', or an MLIR 'module { func.func ... }'",
            filename,
        )
    if stablehlo:
        from xlapy.text.stablehlo_parser import parse_stablehlo

        module = parse_stablehlo(text, filename)
    else:
        from xlapy.text.hlo_parser import parse_hlo

        module = parse_hlo(text, filename, check_shapes=verify)
    if verify:
        verify_module(module)
    return module
