"""Generated kernel sources on disk: ``load_source`` writes a module's source once, under a
name that is the hash of its text, and imports it, so numba's ``cache=True`` keeps the
compiled machine code beside it and a second process compiles nothing.

Layout: ``<cache_dir>/cpu-<xlapy version>-numba-<numba version>/k_<sha>.py`` (+ numba's
``__pycache__``). The cache directory is ``$XLAPY_CACHE_DIR`` or ``~/.cache/xlapy``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
from pathlib import Path
from types import ModuleType

_lock = threading.Lock()


def cache_root(cache_dir: Path | None = None) -> Path:
    """The directory generated sources of this xlapy and numba version live in."""
    import numba

    from xlapy import __version__

    base = cache_dir or Path(os.environ.get("XLAPY_CACHE_DIR") or Path.home() / ".cache" / "xlapy")
    return base / f"cpu-{__version__}-numba-{numba.__version__}"


def load_source(source: str, cache_dir: Path | None = None) -> ModuleType:
    """Imports ``source`` as a module stored in the kernel cache (written once, atomically)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    name = f"xlapy_kernel_{digest}"
    with _lock:
        if name in sys.modules:
            return sys.modules[name]
        root = cache_root(cache_dir)
        root.mkdir(parents=True, exist_ok=True)
        path = root / f"k_{digest}.py"
        if not path.exists() or path.read_text() != source:
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(source)
            tmp.replace(path)
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module
