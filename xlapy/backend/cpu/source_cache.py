"""Generated kernel sources on disk (in ``kernel.cache_root``): ``load_source`` writes a
module's source once, under a name that is the hash of its text (and of ``LLVM_OPTIONS``),
and imports it, so numba's ``cache=True`` keeps the compiled machine code beside it and a
second process compiles nothing.

Layout: ``<cache_dir>/cpu-<xlapy version>-numba-<numba version>/k_<sha>.py`` (+ numba's
``__pycache__``). The cache directory is ``$XLAPY_CACHE_DIR`` or ``~/.cache/xlapy``.

Importing this module also makes numba's loads of xlapy's cached kernels cheap
(``install_quick_cache_loads``) and sets LLVM's options for the kernels it compiles
(``LLVM_OPTIONS``).

On the quick tier (``xlapy.backend.cpu.tiers``) generated kernels are switched off
(``kernel.generated_kernels(False)``): ``load_source`` then raises NoKernel, as every code
generator does before it writes any source (``kernel.require_generation``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from xlapy.backend.cpu.kernel import cache_root, require_generation

_lock = threading.Lock()

LLVM_OPTIONS = ("-vectorize-memory-check-threshold=1024",)
"""LLVM options (process-wide) for the kernels numba compiles. The loop vectorizer gives up
on a loop that needs more than 128 run-time overlap checks (its default), and arrays a kernel
allocates (``np.empty``) may overlap each other and its arguments as far as LLVM knows: the
elementwise loop of an LSTM step, which reads 3 arrays and writes 14 (the cell and the
residuals that the backward pass reads, 133 checks), ran scalar, 490 us a step against 37 us
vectorized. Vectorizing an elementwise loop changes no value (float reductions vectorize only
where their combiner allows reassociation, ``fast_math.add_reassoc``)."""


def load_source(source: str, cache_dir: Path | None = None) -> ModuleType:
    """Imports ``source`` as a module stored in the kernel cache (written once, atomically).

    Raises:
        NoKernel: generated kernels are switched off (``generated_kernels(False)``).
    """
    require_generation("generated module")
    digest = hashlib.sha256("\n".join((*LLVM_OPTIONS, source)).encode()).hexdigest()[:24]
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


def _is_xlapy_function(cache: Any) -> bool:
    """Whether a numba function cache belongs to an xlapy kernel: a generated module
    (``xlapy_kernel_<sha>``) or a module of the ``xlapy`` package."""
    module = getattr(getattr(cache, "_py_func", None), "__module__", None) or ""
    return bool(module == "xlapy" or module.startswith(("xlapy.", "xlapy_kernel_")))


def install_quick_cache_loads() -> None:
    """Loads of xlapy's kernels from numba's disk cache skip numba's context refresh.

    numba refreshes its typing and target contexts before every cache load, and the first
    refresh of a process imports numba's whole library of implementations, scipy.linalg
    among them (its BLAS check): 0.4 s of CPU, about half of a warm-cache ``xlapy.compile``.
    Rebuilding a cached kernel needs none of it: only the code generator and numba's runtime
    (NRT, whose symbols the machine code links against), initialised here. A cache miss
    compiles as before (numba's compiler refreshes the contexts itself), and functions of
    other packages keep numba's own load. Nothing changes when numba lacks the internals
    this relies on.
    """
    from numba.core import caching
    from numba.core.runtime import nrt

    runtime: Any = nrt.rtsys
    cache_class: Any = caching.Cache
    original = cache_class.load_overload
    if getattr(original, "xlapy_quick", False):
        return
    if not all(
        hasattr(cache_class, attr)
        for attr in ("_load_overload", "_guard_against_spurious_io_errors")
    ) or not hasattr(runtime, "initialize"):
        return

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        if not _is_xlapy_function(self):
            return original(self, sig, target_context)
        runtime.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # an I/O error swallowed by the guard: a cache miss

    load_overload.xlapy_quick = True  # type: ignore[attr-defined]
    cache_class.load_overload = load_overload


def set_llvm_options() -> None:
    """Sets ``LLVM_OPTIONS`` in this process's LLVM (idempotent)."""
    import llvmlite.binding as llvm

    for option in LLVM_OPTIONS:
        llvm.set_option("xlapy", option)


install_quick_cache_loads()
set_llvm_options()
