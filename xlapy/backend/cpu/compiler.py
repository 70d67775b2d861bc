"""``xlapy.compile``: clone the module, run the optimization pipeline, verify, build the plans
(or start on the quick tier while a worker process compiles: ``tiers``).

Also the ``cpu`` platform of ``xlapy.run``: an executable per module object and options,
cached while the module lives (weak references: the cache never keeps a module alive; a module
changed after its first run on ``cpu`` needs ``xlapy.compile`` again).
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from xlapy.backend.cpu import tiers
from xlapy.backend.cpu.executable import Executable
from xlapy.backend.cpu.kernel import CompileOptions
from xlapy.backend.cpu.plan import Program
from xlapy.errors import InvalidArgument, VerificationError, XlaError
from xlapy.interpreter.loop_limit import check_max_while_iterations
from xlapy.interpreter.run import PreparedCall
from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
from xlapy.ir.verifier import verify
from xlapy.literal import Value
from xlapy.passes.pass_manager import Pipeline
from xlapy.profiling.active import compile_progress
from xlapy.sharding.global_view import is_global_program

PLATFORM_NAMES = ("cpu", "interpreter")


def _pipeline(*, verify_each: bool = False) -> Pipeline:
    """The default optimization pipeline (``xlapy.passes.pipelines``), or no passes while
    that module does not exist."""
    try:
        from xlapy.passes.pipelines import default_pipeline
    except ImportError:
        return Pipeline([], verify=verify_each)
    return default_pipeline(verify=verify_each)


def _optimize(module: HloModule, pipeline: Pipeline | None) -> tuple[HloModule, list[str]]:
    """An optimized copy of ``module`` and notes for the report.

    The copy is verified after the pipeline. When that fails, either the input itself does
    not verify (it then runs unoptimized, as the interpreter runs it) or a pass broke it: the
    pipeline runs again verifying after every pass, which raises VerificationError naming it.
    """
    optimized = clone_module(module)
    pipeline = pipeline or _pipeline()
    progress = compile_progress()  # a progress display on a terminal, if any
    if progress is not None and pipeline.on_pass is None:
        pipeline = replace(pipeline, on_pass=progress.pass_done)
    start = time.perf_counter()
    pipeline.run(optimized)
    seconds = time.perf_counter() - start
    changed = ", ".join(dict.fromkeys(pipeline.log)) or "none changed the module"
    notes = [f"passes: {len(pipeline.passes)} in {seconds:.3f} s ({changed})"]
    try:
        verify(optimized)
    except VerificationError as broken:
        original = clone_module(module)
        try:
            verify(original)
        except VerificationError as err:
            return original, [f"passes skipped: the input does not verify: {err}"]
        _pipeline(verify_each=True).run(clone_module(module))
        raise VerificationError(f"the optimized module no longer verifies: {broken}") from broken
    return optimized, notes


def compile(
    module: HloModule,
    platform: str = "cpu",
    *,
    flush_denormals: bool = False,
    cache_dir: str | Path | None = None,
    pipeline: Pipeline | None = None,
    max_while_iterations: int | None = None,
    partition: bool = True,
    tiered: bool | None = None,
) -> Executable:
    """Compiles ``module`` for ``platform``.

    A global-view program (values tiled over devices, ``xlapy.sharding.global_view.
    is_global_program``) is partitioned first: the result is then a ``GlobalExecutable``
    that takes and returns global arrays, with the per-device module as ``.module``.

    Args:
        module: the program (from ``xlapy.load``, a parser or the builder); never changed.
        platform: ``"cpu"`` (optimization passes, then a compiled kernel per instruction or
            fusion, the interpreter's eval for the others) or ``"interpreter"`` (the module
            evaluated as written).
        flush_denormals: flush f32/bf16 subnormals as XLA:CPU does.
        cache_dir: where generated kernels are kept (default ``$XLAPY_CACHE_DIR`` or
            ``~/.cache/xlapy``).
        pipeline: the passes to run instead of the default pipeline
            (``xlapy.passes.pipelines.default_pipeline``); ``Pipeline([])`` runs none.
        max_while_iterations: the most iterations one run of a while loop may make; a loop
            whose condition still holds after that many raises EvaluationError naming the
            loop, the count and its state (whole-loop kernels get the bound as an argument:
            no cost when it is None, the default).
        partition: partition a global-view program (False: compile it as one device's).
        tiered: on ``cpu``, start on the quick tier (the module as given, interpreter evals
            and prebuilt kernels only: no numba compilation) while a worker process compiles
            the program; the compiled tier replaces the quick one between two calls
            (``Executable.wait_compiled()`` waits for it). False compiles everything now.
            None (default): ``$XLAPY_TIERED`` (``0``: False; otherwise True). When an
            earlier compile left the optimized module in the cache, no worker starts: a
            thread loads the compiled tier (and a synchronous compile skips the passes).

    Returns:
        An ``Executable``: call it with ``xlapy.run``'s arguments; ``.report()`` tells how each
        instruction runs.
    """
    if not isinstance(module, HloModule):
        raise InvalidArgument(
            f"compile: expected an HloModule (from xlapy.load, a parser or XlaBuilder.build); "
            f"got {type(module).__name__}"
        )
    if platform not in PLATFORM_NAMES:
        raise InvalidArgument(
            f"compile: platform must be one of {', '.join(map(repr, PLATFORM_NAMES))}; "
            f"got {platform!r}"
        )
    if not isinstance(flush_denormals, bool):
        raise InvalidArgument(f"compile: flush_denormals must be a bool; got {flush_denormals!r}")
    limit = check_max_while_iterations(max_while_iterations, "compile")
    if partition and is_global_program(module):
        from xlapy.sharding.global_io import GlobalExecutable
        from xlapy.sharding.spmd_pipeline import partition as partition_module

        spmd, signature = partition_module(module)
        inner = compile(spmd, platform, flush_denormals=flush_denormals, cache_dir=cache_dir,
                        pipeline=pipeline, max_while_iterations=max_while_iterations,
                        partition=False, tiered=tiered)  # fmt: skip
        return GlobalExecutable(module, signature, inner)  # type: ignore[return-value]
    if platform == "interpreter":
        return Executable(module, platform, flush_denormals, max_while_iterations=limit)
    if cache_dir is not None and not isinstance(cache_dir, str | Path):
        raise InvalidArgument(f"compile: cache_dir must be a path; got {cache_dir!r}")
    if tiered is not None and not isinstance(tiered, bool):
        raise InvalidArgument(f"compile: tiered must be a bool or None; got {tiered!r}")
    start = time.perf_counter()
    options = CompileOptions(
        flush_denormals=flush_denormals,
        cache_dir=Path(cache_dir) if cache_dir else None,
        max_while_iterations=limit,
    )
    if pipeline is not None and not isinstance(pipeline, Pipeline):
        raise InvalidArgument(f"compile: pipeline must be a Pipeline; got {pipeline!r}")
    with _collections_paused():
        return _compile_cpu(module, options, pipeline, tiered, start)


def _compile_cpu(
    module: HloModule,
    options: CompileOptions,
    pipeline: Pipeline | None,
    tiered: bool | None,
    start: float,
) -> Executable:
    """``compile`` on ``cpu``: from the cache, on the quick tier, or synchronously."""
    if tiered is None:
        tiered = tiers.tiered_default()
    if tiered and pipeline is None:  # the module key is computed off the first call
        return _quick_tier(module, options, start)
    key = None
    if pipeline is None:  # the default pipeline's results are kept under the module key
        try:
            text = tiers.module_text(module)
        except XlaError:
            pass  # a module HLO text cannot hold (e.g. quantized types): compiled here, now
        else:
            key = tiers.module_key(text, options)
    if key is not None:
        cached = tiers.load_optimized(key, options.cache_dir)
        if cached is not None:
            note = "passes: none (the optimized module of an earlier compile, from the cache)"
            program = _plans(cached, options)
            return _executable(module, cached, program, options, start, [note])
    optimized, notes = _optimize(module, pipeline)
    program = _plans(optimized, options)
    if key is not None:
        tiers.store_optimized(key, optimized, options.cache_dir)
    return _executable(module, optimized, program, options, start, notes)


def _plans(optimized: HloModule, options: CompileOptions) -> Program:
    """The program of ``optimized`` with its entry's plans (and every kernel) built."""
    program = Program(optimized, options)
    program.plan(optimized.entry)
    return program


@contextmanager
def _collections_paused() -> Iterator[None]:
    """Compiling allocates many long-lived objects: garbage collections cost ~30% of it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _executable(
    module: HloModule,
    optimized: HloModule,
    program: Program,
    options: CompileOptions,
    start: float,
    notes: list[str],
) -> Executable:
    seconds = time.perf_counter() - start
    return Executable(
        optimized,
        "cpu",
        options.flush_denormals,
        program,
        seconds,
        _header(module, program, seconds, options, notes),
        max_while_iterations=options.max_while_iterations,
    )


def _header(
    module: HloModule, program: Program, seconds: float, options: CompileOptions, notes: list[str]
) -> list[str]:
    return [
        f"module {module.name} on cpu: compiled in {seconds:.3f} s (kernels "
        f"{program.compile_seconds:.3f} s){'; flush_denormals' if options.flush_denormals else ''}",
        *notes,
    ]


def compile_and_store(module: HloModule, options: CompileOptions, key: str) -> Program:
    """A synchronous compile whose optimized module is stored under ``key`` once every kernel
    is in the cache (the tier worker's job)."""
    optimized, _ = _optimize(module, None)
    program = _plans(optimized, options)
    tiers.store_optimized(key, optimized, options.cache_dir)
    return program


def _quick_tier(module: HloModule, options: CompileOptions, start: float) -> Executable:
    """An executable running ``module`` on the quick tier at once; its tier-up thread
    installs the compiled tier (``tiers.tier_up``: from the cache, or from a worker)."""
    quick_module = clone_module(module)
    program = _plans(quick_module, replace(options, generated_kernels=False))
    seconds = time.perf_counter() - start
    header = _header(module, program, seconds, options, [])
    header[0] = (
        f"module {module.name} on cpu: quick tier (no passes, no generated kernels) built in "
        f"{seconds:.3f} s"
    )
    exe = Executable(
        quick_module,
        "cpu",
        options.flush_denormals,
        program,
        seconds,
        header,
        max_while_iterations=options.max_while_iterations,
    )
    state = tiers.TierState()
    alive = weakref.ref(exe)  # the background holds none: a dropped executable is not built

    def build(optimized: HloModule | None) -> None:
        if alive() is None:
            return
        try:
            notes = ["passes: none here (run by the background worker, or cached)"]
            if optimized is None:  # no worker, or it failed: compile here
                optimized, notes = _optimize(quick_module, None)
            # the in-place variants too (loaded from the cache the worker filled): no call
            # of the compiled tier loads or compiles a kernel
            program = _plans(optimized, replace(options, compile_variants=True))
            tiers.warm_first_call()
            state.seconds = time.perf_counter() - state.started
            header = _header(module, program, state.seconds, options, notes)
            header[0] = (
                f"module {module.name} on cpu: compiled tier installed {state.seconds:.3f} s "
                f"after the quick tier started (kernels {program.compile_seconds:.3f} s in this "
                "process)"
            )
            target = alive()
            if target is not None:
                target.install_tier(optimized, program, header)
            state.status = "compiled"
        except Exception as err:  # the quick tier stays; the report says why
            state.seconds = time.perf_counter() - state.started
            state.status = "failed"
            state.note = f"{state.note}; compiled tier failed: {type(err).__name__}: {err}"

    exe.tier_state = state
    exe.tier_watcher = tiers.tier_up(
        quick_module, options, state, build, lambda: alive() is not None
    )
    return exe


_Key = tuple[bool, int | None]
"""``(flush_denormals, max_while_iterations)``: the options of a cached executable."""

_cache: weakref.WeakKeyDictionary[HloModule, dict[_Key, Executable]] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def compiled(
    module: HloModule,
    flush_denormals: bool,
    max_while_iterations: int | None = None,
) -> Executable:
    """The ``cpu`` executable of ``module`` (compiled on first use, then cached), compiled
    synchronously: ``xlapy.run(..., platform="cpu")`` and ``xlapy run`` return what the
    compiled program computes (a quick tier would answer a one-off call with the
    interpreter's evals, and its background compile would be thrown away at exit); tiers
    serve executables called many times (``xlapy.compile``, ``xlapy.jit``), and MPI ranks on
    different tiers would run different programs, whose collectives need not match."""
    key = (flush_denormals, max_while_iterations)
    with _cache_lock:
        exe = _cache.get(module, {}).get(key)
    if exe is None:
        exe = compile(
            module,
            "cpu",
            flush_denormals=flush_denormals,
            max_while_iterations=max_while_iterations,
            partition=False,
            tiered=False,
        )
        with _cache_lock:
            _cache.setdefault(module, {})[key] = exe
    return exe


def run_on_cpu(module: HloModule, call: PreparedCall, flush_denormals: bool) -> list[Value]:
    """The ``cpu`` platform of ``xlapy.run``."""
    return compiled(module, flush_denormals, call.max_while_iterations).execute(call)
