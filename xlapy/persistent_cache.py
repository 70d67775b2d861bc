"""Where xlapy's persistent caches live, and what keeps an entry valid across versions.

Two caches share one base directory (``$XLAPY_CACHE_DIR``, default ``~/.cache/xlapy``): the
``cpu`` platform's kernel cache (``backend.cpu.kernel.cache_root``) and the parsed-program
cache (``text.parsed_cache``). Entries that depend on xlapy's own code (parsed modules,
optimized modules) are keyed by ``source_digest()``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache
from pathlib import Path

CACHE_DIR_ENV = "XLAPY_CACHE_DIR"

_PACKAGE = Path(__file__).resolve().parent

MAX_SOURCE_ENTRIES = 64
"""The most source listings whose digest is kept (each edit of xlapy's code makes one)."""


def cache_base(explicit: Path | None = None) -> Path:
    """The base directory of the persistent caches: ``explicit``, else ``$XLAPY_CACHE_DIR``,
    else ``~/.cache/xlapy``."""
    return explicit or Path(os.environ.get(CACHE_DIR_ENV) or Path.home() / ".cache" / "xlapy")


@cache
def source_digest() -> str:
    """A hash of every Python file of the xlapy package, path and content: any change to
    xlapy's code gives new keys.

    Hashing the ~250 files' contents takes ~10 ms; listing their (path, size, mtime) takes
    ~1.5 ms. The content digest is kept in the cache directory under a hash of the package's
    location and that listing (``source/<listing hash>``), so a process re-hashes the
    contents only when a file was added, removed or written since (an edit changes its
    mtime). At most ``MAX_SOURCE_ENTRIES`` listings are kept. Computed once per process.
    """
    listing = _listing()
    stamp = hashlib.sha256(f"{_PACKAGE}\n".encode())
    stamp.update("\n".join(f"{p}\0{s}\0{m}" for p, s, m in listing).encode())
    entry = cache_base() / "source" / stamp.hexdigest()[:32]
    try:
        digest = entry.read_text()
    except OSError:
        digest = ""
    if len(digest) == 16 and all(c in "0123456789abcdef" for c in digest):
        return digest
    digest = _content_digest([path for path, _, _ in listing])
    _write_atomically(entry, digest)
    _evict(entry.parent)
    return digest


def _listing() -> list[tuple[str, int, int]]:
    """``(path relative to the package, size, mtime_ns)`` of each of its ``.py`` files,
    sorted (plain strings: ``Path`` operations would triple the ~1.5 ms this takes)."""
    found: list[tuple[str, int, int]] = []
    root = str(_PACKAGE) + os.sep
    pending = [root]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(entry.path)
                elif entry.name.endswith(".py"):
                    stat = entry.stat()
                    relative = entry.path[len(root) :].replace(os.sep, "/")
                    found.append((relative, stat.st_size, stat.st_mtime_ns))
    return sorted(found)


def _content_digest(paths: list[str]) -> str:
    """The hash of each file's relative path and content, in order."""
    digest = hashlib.sha256()
    for relative in paths:
        digest.update(relative.encode())
        digest.update((_PACKAGE / relative).read_bytes())
    return digest.hexdigest()[:16]


def _write_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` so that a reader sees all of it or no file (best effort: an
    unwritable cache directory leaves the digest to be computed again next time)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "w") as out:
                out.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return


def _evict(directory: Path) -> None:
    """Removes the oldest written digests beyond ``MAX_SOURCE_ENTRIES``."""
    try:
        entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(directory) if e.is_file()]
    except OSError:
        return
    entries.sort()
    for _, path in entries[: max(0, len(entries) - MAX_SOURCE_ENTRIES)]:
        Path(path).unlink(missing_ok=True)
