"""A persistent cache of parsed programs, keyed by their text (as XLA's persistent compilation
cache keys compiled programs by their module).

JAX lowers a program anew in every process, and ``xlapy.load`` of its text is most of the
warm first call's cost beyond the lowering for a large program (a training step: ~3,000 ops,
~130 ms to parse, shape check and verify); the module pickled by an earlier process loads in
~15 ms.

* Entries: ``<cache dir>/parsed/<key>.pickle`` (cache dir: ``$XLAPY_CACHE_DIR``, default
  ``~/.cache/xlapy``, where the kernel cache lives). The key is the SHA-256 of the text, the
  file name (errors and metadata name it), the ``verify`` flag, the Python version and a
  digest of xlapy's own source (``persistent_cache.source_digest``): any change to xlapy's
  code makes new keys.
* Only texts of at least ``MIN_CHARS`` characters (smaller ones parse faster than a file is
  read) and only modules that loaded without error are stored, written atomically (a reader
  sees a whole entry or none). An entry that cannot be read or unpickled is removed and the
  text parsed: the cache never changes what ``load`` returns or raises.
* At most ``MAX_ENTRIES`` entries are kept (the oldest written go first).
* ``XLAPY_PARSED_CACHE=0`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Callable

from xlapy.ir.module import HloModule
from xlapy.persistent_cache import cache_base, read_entry, source_digest, write_entry

MIN_CHARS = 16_384
"""Texts shorter than this are parsed every time (a few milliseconds)."""

MAX_ENTRIES = 256
"""The most entries kept: storing one more removes the oldest written (a fuzzing campaign
loads thousands of distinct programs; a user's JAX programs are a few)."""


def enabled(text: str) -> bool:
    """Whether ``text`` goes through the cache."""
    return len(text) >= MIN_CHARS and os.environ.get("XLAPY_PARSED_CACHE", "1") != "0"


def load_cached(
    text: str, filename: str, verify: bool, parse: Callable[[], HloModule]
) -> HloModule:
    """``parse()``'s module of ``text``: read from the cache when an earlier process stored
    it, else parsed and stored (texts shorter than ``MIN_CHARS``: parsed)."""
    if not enabled(text):
        return parse()
    module = lookup(text, filename, verify)
    if module is None:
        module = parse()
        store(text, filename, verify, module)
    return module


def lookup(text: str, filename: str, verify: bool) -> HloModule | None:
    """The module an earlier ``store`` kept for this text, or None."""
    name = _entry(text, filename, verify)
    data = read_entry("parsed", name)
    if data is None:
        return None
    try:
        module = pickle.loads(data)
    except Exception:  # a truncated, corrupt or stale entry: parse instead
        module = None
    if not isinstance(module, HloModule):
        (cache_base() / "parsed" / name).unlink(missing_ok=True)
        return None
    return module


def store(text: str, filename: str, verify: bool, module: HloModule) -> None:
    """Keeps ``module``, just loaded from ``text``, for later processes (best effort: a
    directory that cannot be written or a module that cannot be pickled is skipped)."""
    try:
        data = pickle.dumps(module, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError):
        return
    write_entry("parsed", _entry(text, filename, verify), data, MAX_ENTRIES)


def _entry(text: str, filename: str, verify: bool) -> str:
    """The name of the entry of ``text`` in ``<cache dir>/parsed``."""
    key = hashlib.sha256(f"{source_digest()}\0{sys.version}\0{int(verify)}\0{filename}\0".encode())
    key.update(text.encode("utf-8", "surrogatepass"))
    return f"{key.hexdigest()}.pickle"
