"""Where xlapy's persistent caches live, and what keeps an entry valid across versions.

The caches share one base directory (``$XLAPY_CACHE_DIR``, default ``~/.cache/xlapy``): the
``cpu`` platform's kernel cache (``backend.cpu.kernel.cache_root``), the parsed-program cache
(``text.parsed_cache``) and the compiled plan functions (``backend.cpu.plan_code``). Entries
that depend on xlapy's own code (parsed modules, optimized modules) are keyed by
``source_digest()``. ``read_entry`` / ``write_entry`` keep small files of one kind in a
subdirectory, written atomically, the oldest removed beyond a count.
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
    name = stamp.hexdigest()[:32]
    kept = read_entry("source", name) or b""
    if len(kept) == 16 and all(c in b"0123456789abcdef" for c in kept):
        return kept.decode()
    digest = _content_digest([path for path, _, _ in listing])
    write_entry("source", name, digest.encode(), MAX_SOURCE_ENTRIES)
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


def read_entry(kind: str, name: str) -> bytes | None:
    """The bytes of entry ``name`` of ``kind`` (a subdirectory of the cache), or None."""
    try:
        return (cache_base() / kind / name).read_bytes()
    except OSError:
        return None


def write_entry(kind: str, name: str, data: bytes, max_entries: int) -> None:
    """Stores ``data`` as entry ``name`` of ``kind``, atomically (a reader sees all of it or no
    file), then removes the oldest written entries of ``kind`` beyond ``max_entries`` (best
    effort: an unwritable cache directory stores nothing)."""
    directory = cache_base() / kind
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, directory / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return
    evict(directory, max_entries)


def evict(directory: Path, max_entries: int, pattern: str = "*") -> None:
    """Removes the oldest written files of ``directory`` matching ``pattern`` beyond
    ``max_entries`` (temporary files of writers excepted)."""
    try:
        names = [p for p in directory.glob(pattern) if not p.name.startswith(".tmp-")]
    except OSError:
        return
    if len(names) <= max_entries:
        return
    dated = []
    for path in names:
        try:
            dated.append((path.stat().st_mtime_ns, path))
        except OSError:  # removed by another process meanwhile
            continue
    dated.sort()
    for _, path in dated[: len(dated) - max_entries]:
        path.unlink(missing_ok=True)
