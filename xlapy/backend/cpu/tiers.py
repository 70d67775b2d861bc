"""Tiered compilation of the ``cpu`` platform: a program runs at once on a quick tier while
its compiled tier is built by a worker process, then the compiled tier replaces it between
two calls (as HotSpot and V8 replace their interpreters).

- **Quick tier**: the module as given (no passes), planned without generated kernels
  (``CompileOptions.generated_kernels=False``): every instruction runs its interpreter eval
  or a prebuilt kernel of ``kernel.QUICK_MODULES`` (numpy and BLAS: dot, convolution with
  numpy im2col, sort and topk by numpy's stable argsort, scatter by ``ufunc.at``, ...). Building and running it
  imports no numba and compiles nothing.
- **Compiled tier**: what a synchronous ``xlapy.compile`` builds (passes, then generated
  numba kernels). Once the quick tier's first call returned, the executable's tier-up thread
  (``tier_up``) prints the module and hashes it into the *module key* (kept off the first
  call), then starts a worker process (``python -m xlapy.backend.cpu.tier_worker``) that
  parses the module's HLO text, runs the passes and compiles every kernel into the kernel
  cache (``source_cache``; numba typing holds the GIL, so a thread would stall the calls),
  then stores the optimized module's text under the key. The tier-up thread builds the
  compiled tier from that text, loading every kernel from the cache, and installs it on
  the executable.
- **Warm cache**: when the module key's optimized text is already stored (an earlier
  process compiled it), no worker starts: the tier-up thread loads the compiled tier from
  the cache. The program still starts on the quick tier: loading the compiled tier takes
  seconds (parsing, kernel sources, numba's import and cache loads), the quick tier's first
  call a fraction of that. A synchronous ``xlapy.compile`` takes the optimized module from
  the cache and skips the passes.

The module key hashes the module's HLO text, the compile options that change the program
(``flush_denormals``, ``max_while_iterations``) and xlapy's own source, so an edited pass
never serves a stale optimized module. A worker that fails (it prints why) is replaced by a
synchronous compile on the tier-up thread; a worker still running when the process exits
is killed, and a worker whose parent died exits by itself.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xlapy.backend.cpu.kernel import CompileOptions, cache_root
from xlapy.errors import XlaError
from xlapy.ir.module import HloModule
from xlapy.persistent_cache import source_digest
from xlapy.text.hlo_printer import PrintOptions, print_hlo

TIERED_ENV = "XLAPY_TIERED"
"""``0`` compiles synchronously (no quick tier) wherever ``tiered`` is not given; ``1`` (or
unset) lets programs start on the quick tier."""


def tiered_default() -> bool:
    """Whether ``xlapy.compile`` starts programs on the quick tier when not told
    (``$XLAPY_TIERED``: ``0`` no, anything else or unset yes)."""
    return os.environ.get(TIERED_ENV, "1").strip() not in ("0", "false", "no", "off")


def module_text(module: HloModule) -> str:
    """The module as parsable HLO text (large constants included, no metadata)."""
    return print_hlo(module, options=PrintOptions.short_parsable())


def module_key(text: str, options: CompileOptions) -> str:
    """The key of a module's optimized text in the kernel cache."""
    digest = hashlib.sha256()
    digest.update(f"{source_digest()} {options.flush_denormals} ".encode())
    digest.update(f"{options.max_while_iterations}\n".encode())
    digest.update(text.encode())
    return digest.hexdigest()[:24]


def optimized_path(key: str, cache_dir: Path | None) -> Path:
    """Where the optimized module of ``key`` is stored (beside the generated kernels)."""
    return cache_root(cache_dir) / f"m_{key}.hlo"


def load_optimized(key: str, cache_dir: Path | None) -> HloModule | None:
    """The optimized module stored under ``key``, or None (never stored, or unreadable).

    Read through the parsed-program cache (``text.parsed_cache``): parsing gpt_adamw's
    optimized text takes ~0.4 s of CPU, its pickled module ~20 ms, on the tier-up thread
    beside the program's next calls."""
    from xlapy.text import parsed_cache
    from xlapy.text.hlo_parser import parse_hlo

    path = optimized_path(key, cache_dir)
    try:
        text = path.read_text()
    except OSError:
        return None
    try:
        return parsed_cache.load_cached(text, str(path), False, lambda: parse_hlo(text, str(path)))
    except XlaError:
        return None  # a damaged file: compiled again, then overwritten


def store_optimized(key: str, module: HloModule, cache_dir: Path | None) -> None:
    """Stores the optimized ``module`` under ``key`` (atomically: a reader sees all or none)."""
    path = optimized_path(key, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(module_text(module))
    tmp.replace(path)


FIRST_CALL_IMPORTS = ("numba.np.arrayobj", "numpy.ma", "concurrent.futures.thread")
"""Modules the first call of a compiled tier would import: numba rebuilds a cached kernel's
environment when the kernel first runs, importing the module it names, and the kernels'
array allocations name numba's array implementations (``numba.np.arrayobj`` and what it
imports: 0.12-0.15 s of CPU); numba types an array argument after checking it is no
``np.ma.MaskedArray``, which numpy imports on first use (``numpy.ma``: ~11 ms); the thread
pool of ``blas.run_parallel``, which LAPACK batches split over the cores start with their
first split (``concurrent.futures.thread``: 2-4 ms of eigh's and svd's first call). Once the
program's kernels are built, the tier-up thread imports them (``warm_first_call``) before
installing the tier."""


def warm_first_call() -> None:
    """Imports ``FIRST_CALL_IMPORTS`` and runs numba's extension entry points (numba reads
    every installed distribution's entry points on a process's first dispatcher call: ~4 ms
    here) when the compiled tier uses numba (it is then imported), so that no call of the
    program pays them: the first call on the compiled tier of cholesky, qr, eigh or svd
    took 0.17-0.29 s. (Kernels typed on their first call are typed, so loaded, when built:
    the factories type them, the in-place variants through ``compile_variants``.)"""
    if "numba" not in sys.modules:
        return
    for name in FIRST_CALL_IMPORTS:
        importlib.import_module(name)
    from numba.core import entrypoints

    entrypoints.init_all()


@dataclass
class TierState:
    """Where a tiered executable's compiled tier is.

    Attributes:
        status: ``compiling`` (the worker runs), ``loading`` (the thread builds the tier
            from the cache), ``compiled`` (installed), ``failed`` (no compiled tier: the
            quick tier stays; ``note`` says why).
        started: ``time.perf_counter()`` when the worker started.
        seconds: from the start until the compiled tier was installed (or failed).
        note: what the report shows about the background compile.
        worker: the worker process's id (0: none, the compiled tier loads from the cache).
        called: set when a call of the quick tier returned.
    """

    status: str = "compiling"
    started: float = 0.0
    seconds: float = 0.0
    note: str = ""
    worker: int = 0
    called: threading.Event = field(default_factory=threading.Event)


LOAD_DELAY = 5.0
"""Seconds the tier-up thread waits for the quick tier's first call to return before it
goes on anyway (printing the module and loading the compiled tier are mostly Python: run
beside the first call, they would hold the GIL half the time and slow that call)."""


_workers: set[subprocess.Popen[bytes]] = set()
_workers_lock = threading.Lock()
_worker_slot = threading.BoundedSemaphore(1)
"""Held by the tier-up thread whose worker runs: background compiles of a process run one after
another (each worker compiles on its own core; a process compiling many modules, e.g. a
fuzzer or a parameter sweep, started one worker per module before)."""
_exiting = threading.Event()


@atexit.register
def _kill_workers() -> None:
    """At exit, no worker outlives the process (their partial work stays valid in the cache)."""
    _exiting.set()
    with _workers_lock:
        workers = list(_workers)
    for proc in workers:
        if proc.poll() is None:
            proc.kill()
    for proc in workers:
        proc.wait()  # killed: reaped at once (no zombie left behind)


def start_worker(key: str, options: CompileOptions) -> tuple[subprocess.Popen[bytes], bytes]:
    """A worker process (see ``tier_worker``) and the first line of its input: the key and
    options (the module's text follows)."""
    request = {
        "key": key,
        "parent": os.getpid(),
        "flush_denormals": options.flush_denormals,
        "max_while_iterations": options.max_while_iterations,
        "cache_dir": str(options.cache_dir) if options.cache_dir else None,
    }
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    proc = subprocess.Popen(
        [sys.executable, "-m", "xlapy.backend.cpu.tier_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    with _workers_lock:
        _workers.add(proc)
    return proc, (json.dumps(request) + "\n").encode()


def tier_up(
    module: HloModule,
    options: CompileOptions,
    state: TierState,
    build: Callable[[HloModule | None], None],
    wanted: Callable[[], bool] = lambda: True,
) -> threading.Thread:
    """The thread that brings a quick-tier executable of ``module`` to its compiled tier.

    Once the quick tier's first call returned (or after ``LOAD_DELAY`` s) it prints and
    hashes the module (the module key: 0.2 s of Python on a large model, kept off the first
    call), then calls ``build(optimized module)`` with the optimized module an earlier
    compile stored under the key (warm cache: no worker), or starts a worker on the module's
    text once the worker slot is free and calls ``build`` with what it stored, or
    ``build(None)`` when the worker failed or the module has no HLO text (the caller then
    compiles in this process). A compile no longer ``wanted()`` when the slot frees (its
    executable was dropped meanwhile) starts no worker. Returns the thread."""
    state.started = time.perf_counter()

    def run() -> None:
        state.called.wait(LOAD_DELAY)
        if _exiting.is_set():
            return
        try:
            text = module_text(module)
        except XlaError as err:  # e.g. quantized types: compiled in this process
            state.note = f"no HLO text for a worker ({err})"
            state.status = "loading"
            build(None)
            return
        key = module_key(text, options)
        if optimized_path(key, options.cache_dir).exists():  # compiled before: load it
            state.status = "loading"
            optimized = load_optimized(key, options.cache_dir)
            if optimized is None:
                state.note = f"the cached optimized module {key} could not be read"
            build(optimized)
            return
        _compile_in_worker(text, key, options, state, build, wanted)

    thread = threading.Thread(target=run, name="xlapy-tier-up", daemon=True)
    thread.start()
    return thread


def _compile_in_worker(
    text: str,
    key: str,
    options: CompileOptions,
    state: TierState,
    build: Callable[[HloModule | None], None],
    wanted: Callable[[], bool],
) -> None:
    """Starts a worker on ``text`` once the worker slot is free, waits for it, then calls
    ``build`` with the optimized module it stored (None: it failed)."""
    with _worker_slot:  # one worker at a time: a loop of compiles queues, never forks N
        if _exiting.is_set():
            return
        if not wanted():
            state.status = "failed"
            state.note = "not compiled: the executable was dropped before a worker was free"
            return
        proc, request = start_worker(key, options)
        state.worker = proc.pid
        try:
            _, err = proc.communicate(request + text.encode())
        except OSError as broken:  # the worker died at once: its exit code says so
            proc.wait()
            err = str(broken).encode()
        with _workers_lock:
            _workers.discard(proc)
    if _exiting.is_set():
        return
    optimized = load_optimized(key, options.cache_dir) if proc.returncode == 0 else None
    if optimized is None:
        tail = err.decode(errors="replace").strip().splitlines()[-3:]
        state.note = f"background compile failed (exit {proc.returncode}): " + " | ".join(tail)
    state.status = "loading"
    build(optimized)
