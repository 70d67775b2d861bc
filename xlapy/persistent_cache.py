"""Where xlapy's persistent caches live, and what keeps an entry valid across versions.

Two caches share one base directory (``$XLAPY_CACHE_DIR``, default ``~/.cache/xlapy``): the
``cpu`` platform's kernel cache (``backend.cpu.kernel.cache_root``) and the parsed-program
cache (``text.parsed_cache``). Entries that depend on xlapy's own code (parsed modules,
optimized modules) are keyed by ``source_digest()``.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

CACHE_DIR_ENV = "XLAPY_CACHE_DIR"


def cache_base(explicit: Path | None = None) -> Path:
    """The base directory of the persistent caches: ``explicit``, else ``$XLAPY_CACHE_DIR``,
    else ``~/.cache/xlapy``."""
    return explicit or Path(os.environ.get(CACHE_DIR_ENV) or Path.home() / ".cache" / "xlapy")


@cache
def source_digest() -> str:
    """A hash of every Python file of the xlapy package, path and content (computed once per
    process, ~10 ms): any change to xlapy's code gives new keys."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
