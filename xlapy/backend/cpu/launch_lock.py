"""Launches of numba's parallel kernels from several Python threads (issue #14, concurrency).

numba runs ``parallel=True`` kernels on one of three threading layers: TBB and OpenMP accept
launches from several threads at once; ``workqueue`` (numba's fallback when neither library
loads, e.g. on minimal Linux or macOS installs) aborts the process when two threads launch
parallel kernels at the same time. The ``cpu`` platform runs SPMD devices in threads and
lets several threads call one ``Executable``, so under ``workqueue`` every parallel kernel is
wrapped by ``guarded``: it holds one process-wide lock for the duration of that one launch
(never across a collective: kernels are nopython code and do not communicate, so devices
waiting for each other at a collective never wait on the lock). Under a thread-safe layer
``guarded`` returns the kernel itself, and the call costs nothing more.

The layer is the one numba has loaded if a parallel kernel already ran, else the one numba
will load: ``NUMBA_THREADING_LAYER`` (``numba.config.THREADING_LAYER``) resolved as numba
resolves it, against which of TBB and OpenMP load here. It is decided once per process, when
the first parallel kernel is wrapped (the first compile): set the variable before that.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_LAUNCH = threading.Lock()
"""Held by a thread while it runs one parallel kernel, when the layer is ``workqueue``."""

_PURPOSES = {"safe": ("tbb",), "threadsafe": ("tbb", "omp")}
"""numba's layer requests by purpose, and the layers each may load (in order); ``forksafe``
depends on the system (see ``_candidates``)."""


def _loadable(layer: str) -> bool:
    """Whether numba can load threading layer ``layer`` (``tbb``, ``omp`` or ``workqueue``)
    in this process: the checks numba itself makes (importing the layer's extension module,
    and for TBB its version check)."""
    from numba.np.ufunc import parallel

    try:
        if layer == "tbb":
            parallel._check_tbb_version_compatible()
            from numba.np.ufunc import tbbpool  # noqa: F401
        elif layer == "omp":
            from numba.np.ufunc import omppool  # noqa: F401
    except ImportError:
        return False
    return True


def _candidates(request: str) -> tuple[str, ...]:
    """The layers numba tries, in order, for the value of ``NUMBA_THREADING_LAYER``."""
    from numba.core import config
    from numba.np.ufunc import parallel

    if request == "default":
        return tuple(config.THREADING_LAYER_PRIORITY)
    if request == "forksafe":  # GNU OpenMP (Linux) is not fork-safe
        return ("tbb", "workqueue") if parallel._IS_LINUX else ("tbb", "omp", "workqueue")
    return _PURPOSES.get(request, (request,))


def threading_layer() -> str:
    """The threading layer numba runs parallel kernels on in this process (``tbb``, ``omp``
    or ``workqueue``; ``""`` when none can load, and numba will refuse to launch)."""
    import numba
    from numba.core import config
    from numba.np.ufunc import parallel

    if parallel._is_initialized:
        return str(numba.threading_layer())
    request = str(config.THREADING_LAYER).lower()
    return next((layer for layer in _candidates(request) if _loadable(layer)), "")


@functools.cache
def serialise_launches() -> bool:
    """Whether parallel kernel launches must hold the process-wide lock: the layer is
    ``workqueue`` (decided once per process)."""
    return threading_layer() == "workqueue"


def guarded(kernel: F) -> F:
    """``kernel`` itself unless it is a numba ``parallel=True`` function and launches must
    be serialised; then a function calling it under the process-wide launch lock."""
    options = getattr(kernel, "targetoptions", None) or {}
    if not options.get("parallel") or not serialise_launches():
        return kernel

    @functools.wraps(kernel, updated=())
    def launch(*args: Any) -> Any:
        with _LAUNCH:
            return kernel(*args)

    return launch  # type: ignore[return-value]
