"""``xlapy.compile``: clone the module, run the optimization pipeline, verify, build the plans.

Also the ``cpu`` platform of ``xlapy.run``: an executable per module object and options,
cached while the module lives (weak references: the cache never keeps a module alive; a module
changed after its first run on ``cpu`` needs ``xlapy.compile`` again).
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from dataclasses import replace
from pathlib import Path

from xlapy.backend.cpu.executable import Executable
from xlapy.backend.cpu.kernel import CompileOptions
from xlapy.backend.cpu.plan import Program
from xlapy.errors import InvalidArgument, VerificationError
from xlapy.interpreter.loop_limit import check_max_while_iterations
from xlapy.interpreter.run import PreparedCall
from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
from xlapy.ir.verifier import verify
from xlapy.literal import Value
from xlapy.passes.pass_manager import Pipeline
from xlapy.profiling.active import compile_progress

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
) -> Executable:
    """Compiles ``module`` for ``platform``.

    A global-view program (values tiled over devices, ``xlapy.sharding.spmd_pipeline.
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
    if partition and _is_global(module):
        from xlapy.sharding.global_io import GlobalExecutable
        from xlapy.sharding.spmd_pipeline import partition as partition_module

        spmd, signature = partition_module(module)
        inner = compile(spmd, platform, flush_denormals=flush_denormals, cache_dir=cache_dir,
                        pipeline=pipeline, max_while_iterations=max_while_iterations,
                        partition=False)  # fmt: skip
        return GlobalExecutable(module, signature, inner)  # type: ignore[return-value]
    if platform == "interpreter":
        return Executable(module, platform, flush_denormals, max_while_iterations=limit)
    if cache_dir is not None and not isinstance(cache_dir, str | Path):
        raise InvalidArgument(f"compile: cache_dir must be a path; got {cache_dir!r}")
    start = time.perf_counter()
    options = CompileOptions(
        flush_denormals=flush_denormals,
        cache_dir=Path(cache_dir) if cache_dir else None,
        max_while_iterations=limit,
    )
    if pipeline is not None and not isinstance(pipeline, Pipeline):
        raise InvalidArgument(f"compile: pipeline must be a Pipeline; got {pipeline!r}")
    collecting = gc.isenabled()
    gc.disable()  # compiling allocates many long-lived objects: collections cost ~30% here
    try:
        optimized, notes = _optimize(module, pipeline)
        program = Program(optimized, options)
        program.plan(optimized.entry)
    finally:
        if collecting:
            gc.enable()
    seconds = time.perf_counter() - start
    header = [
        f"module {module.name} on cpu: compiled in {seconds:.3f} s (kernels "
        f"{program.compile_seconds:.3f} s){'; flush_denormals' if flush_denormals else ''}",
        *notes,
    ]
    return Executable(
        optimized, platform, flush_denormals, program, seconds, header, max_while_iterations=limit
    )


def _is_global(module: HloModule) -> bool:
    from xlapy.sharding.spmd_pipeline import is_global_program

    return is_global_program(module)


_Key = tuple[bool, int | None]
"""``(flush_denormals, max_while_iterations)``: the options of a cached executable."""

_cache: weakref.WeakKeyDictionary[HloModule, dict[_Key, Executable]] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def compiled(
    module: HloModule, flush_denormals: bool, max_while_iterations: int | None = None
) -> Executable:
    """The ``cpu`` executable of ``module`` (compiled on first use, then cached)."""
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
        )
        with _cache_lock:
            _cache.setdefault(module, {})[key] = exe
    return exe


def run_on_cpu(module: HloModule, call: PreparedCall, flush_denormals: bool) -> list[Value]:
    """The ``cpu`` platform of ``xlapy.run``."""
    return compiled(module, flush_denormals, call.max_while_iterations).execute(call)
