"""The kernel interface of the ``cpu`` platform: how an instruction gets compiled code.

A *kernel factory* is registered for opcodes with ``@kernel_for``; at compile time it receives
an instruction and returns a ``Kernel`` (a callable on operand values) or raises ``NoKernel``
with the reason (reported by ``Executable.report()``). Several factories may serve one opcode:
they are tried by descending ``priority``; when none gives a kernel, the instruction runs its
interpreter eval inside the compiled program.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value

if TYPE_CHECKING:
    from xlapy.interpreter.evaluator import DeviceState, Evaluator
    from xlapy.ir.computation import HloComputation


class NoKernel(Exception):
    """Raised by a kernel factory: no compiled kernel for this instruction; ``str`` is why."""


_generation: ContextVar[bool] = ContextVar("xlapy_generated_kernels", default=True)


@contextmanager
def generated_kernels(allowed: bool) -> Iterator[None]:
    """Within the block, code generators run (``allowed``) or decline (the quick tier)."""
    token = _generation.set(allowed)
    try:
        yield
    finally:
        _generation.reset(token)


def generating() -> bool:
    """Whether code generators and numba compilations may run now (False on the quick tier,
    whose prebuilt kernels then take their numpy form)."""
    return _generation.get()


def require_generation(what: str) -> None:
    """Raises NoKernel when generated kernels are switched off (the quick tier builds plans of
    interpreter evals and prebuilt kernels only; the generated ones compile in the background).
    """
    if not _generation.get():
        raise NoKernel(f"{what}: generated kernels are compiled in the background (quick tier)")


@dataclass(frozen=True)
class CompileOptions:
    """How the ``cpu`` platform compiles.

    Attributes:
        flush_denormals: as XLA:CPU, flush f32/bf16 subnormals (kernels that cannot do so
            must raise NoKernel when this is set).
        cache_dir: where generated kernel sources and numba's cache live (None: the default,
            ``$XLAPY_CACHE_DIR`` or ``~/.cache/xlapy``).
        parallel: allow multi-threaded kernels.
        max_while_iterations: the most iterations one run of a while loop may make (None: no
            bound); while kernels raise ``xlapy.interpreter.loop_limit.loop_limit_error``.
        generated_kernels: False for the quick tier: factories that generate code decline
            (``source_cache.require_generation``), so plans hold interpreter evals and
            prebuilt kernels (BLAS, sort, ...) only.
        compile_variants: compile kernel variants now that would otherwise compile on
            their first call (in-place variants: the tier worker, whose cache the calls of
            another process use; the tier-up thread, which so loads them from that cache
            before the compiled tier's first call).
    """

    flush_denormals: bool = False
    cache_dir: Path | None = None
    parallel: bool = True
    max_while_iterations: int | None = None
    generated_kernels: bool = True
    compile_variants: bool = False


def cache_root(cache_dir: Path | None = None) -> Path:
    """The directory of the kernel cache for this xlapy and numba version (``cache_dir``, or
    ``$XLAPY_CACHE_DIR``, or ``~/.cache/xlapy``): generated sources (``source_cache``) and
    optimized modules (``tiers``)."""
    from xlapy import __version__
    from xlapy.persistent_cache import cache_base

    return cache_base(cache_dir) / f"cpu-{__version__}-numba-{numba_version()}"


_numba_version: str | None = None


def numba_version() -> str:
    """numba's version, read from its installed metadata when there is exactly one (the
    quick tier imports no numba: 0.5-0.9 s), else from numba itself."""
    global _numba_version
    if _numba_version is None:
        spec = importlib.util.find_spec("numba")
        site = Path(spec.origin).parent.parent if spec and spec.origin else None
        found = list(site.glob("numba-*.dist-info")) if site else []
        if len(found) == 1:
            _numba_version = found[0].name[len("numba-") : -len(".dist-info")]
        else:
            import numba

            _numba_version = str(numba.__version__)
    return _numba_version


@dataclass
class RunContext:
    """What a kernel sees when it runs on one device.

    Attributes:
        device: the device's ids, RNG state and runtime (collectives, feeds).
        evaluator: an interpreter evaluator for this device (for interpreter evals inside a
            kernel, e.g. a region with no compiled form).
        call: runs a computation of the module as a compiled plan: ``call(comp, args)``.
        donatable: positions of operands whose buffers die at this instruction and belong to
            the program (never a user's argument): the kernel may overwrite them in place
            (check ``flags.writeable`` and the strides first: a donated array may be a view)
            and return them as its result.
        call_owned: ``call_owned(comp, args, owned) -> (value, owned_result)`` runs ``comp`` as
            a compiled plan that may overwrite the array leaves of ``args`` flagged in
            ``owned`` (one flag per leaf of the flattened arguments: only leaves the caller
            could donate); ``owned_result`` flags the result's leaves the caller now owns (a
            loop passes them to the next iteration). None outside a compiled program.

    The context belongs to one running plan; read it during the kernel's call only.
    """

    device: DeviceState
    evaluator: Evaluator
    call: Callable[[HloComputation, Sequence[Value]], Value]
    donatable: frozenset[int] = frozenset()
    call_owned: (
        Callable[
            [HloComputation, Sequence[Value], tuple[bool, ...]], tuple[Value, tuple[bool, ...]]
        ]
        | None
    ) = None


@dataclass(frozen=True)
class Kernel:
    """Compiled code for one instruction.

    Attributes:
        run: ``run(operands, ctx) -> value``; must return exactly the instruction's shape and
            element type (as interpreter evals do), and never mutate operands outside
            ``ctx.donatable``.
        how: one line for the report (``"numba loop fusion, 3 ops, parallel"``, ``"BLAS
            sgemm"``).
        source: generated source, if any (shown by ``report(sources=True)``).
        compile_seconds: time spent building this kernel.
        views: operand positions whose memory the result may share (a numpy view, or the
            operand returned as it is); None means any operand (the safe default). A kernel
            whose result is always new memory says ``views=()``, which lets the program
            donate its result to a later in-place kernel. Returning a *donated* operand's
            buffer needs no entry here.
        owns_result: False when the result may be memory that outlives the call (an array
            the kernel keeps and returns again, another device's value): such a result is
            never donated, and copied before it reaches the user.
        calls: computations the kernel runs through ``ctx.call``/``ctx.call_owned``; the
            program compiles them with the instruction (their steps appear in the report).
        inline: a Python expression equal to ``run``'s result, over the operands ``{0}``,
            ``{1}``, ... (builtins and ``np`` only): the plan pastes it into its generated
            code instead of calling ``run``, for steps that cost nothing (tuple,
            get-tuple-element, views).
    """

    run: Callable[[list[Value], RunContext], Value]
    how: str
    source: str = ""
    compile_seconds: float = 0.0
    exact: bool = True
    notes: tuple[str, ...] = field(default=())
    views: tuple[int, ...] | None = None
    owns_result: bool = True
    calls: tuple[HloComputation, ...] = ()
    inline: str = ""


KernelFactory = Callable[[HloInstruction, CompileOptions], Kernel]


@dataclass(frozen=True)
class _Entry:
    priority: int
    factory: KernelFactory


KERNELS: dict[Opcode, list[_Entry]] = {}


def kernel_for(*opcodes: Opcode, priority: int = 0) -> Callable[[KernelFactory], KernelFactory]:
    """Registers the decorated factory for ``opcodes``; higher ``priority`` is tried first."""

    def register(factory: KernelFactory) -> KernelFactory:
        module = factory.__module__
        quick = QUICK_MODULES.get(module.rsplit(".", 1)[-1])
        if quick is not None and module.startswith(f"{__package__}.kernels."):
            unlisted = [op.value for op in opcodes if op not in quick]
            if unlisted:  # the quick tier would never try it: a mistake, said at import
                raise RuntimeError(
                    f"{module}.{factory.__name__} serves {', '.join(unlisted)}, which "
                    f"kernel.QUICK_MODULES does not list for {module}: add them there"
                )
        for opcode in opcodes:  # a new list: a thread planning meanwhile reads a whole one
            entries = [*KERNELS.get(opcode, []), _Entry(priority, factory)]
            KERNELS[opcode] = sorted(entries, key=lambda e: -e.priority)
        return factory

    return register


def _quick_modules() -> dict[str, frozenset[Opcode]]:
    """See ``QUICK_MODULES``."""
    from xlapy.ir.opdefs import REGISTRY, Trait

    elementwise = frozenset(op for op, d in REGISTRY.items() if Trait.ELEMENTWISE in d.traits)
    return {
        "basic": frozenset(
            {
                Opcode.TUPLE,
                Opcode.GET_TUPLE_ELEMENT,
                Opcode.OPTIMIZATION_BARRIER,
                Opcode.DOMAIN,
                Opcode.ADD_DEPENDENCY,
                Opcode.AFTER_ALL,
                Opcode.RESHAPE,
                Opcode.BITCAST,
                Opcode.BROADCAST,
            }
        ),
        "complex_elementwise": elementwise,
        "control": frozenset({Opcode.WHILE, Opcode.CONDITIONAL, Opcode.CALL, Opcode.FUSION}),
        "convolution": frozenset({Opcode.CONVOLUTION}),
        "dot": frozenset({Opcode.DOT}),
        "fft": frozenset({Opcode.FFT}),
        "scan": frozenset({Opcode.REDUCE_WINDOW}),
        "scatter_numpy": frozenset({Opcode.SCATTER}),
        "slicing": frozenset({Opcode.DYNAMIC_SLICE, Opcode.DYNAMIC_UPDATE_SLICE}),
        "sort": frozenset({Opcode.SORT}),
        "topk": frozenset({Opcode.TOPK}),
    }


QUICK_MODULES: dict[str, frozenset[Opcode]] = _quick_modules()
"""The modules of ``xlapy.backend.cpu.kernels`` whose factories the quick tier tries, and the
opcodes each registers factories for: their kernels are prebuilt (numpy, BLAS), and importing
them imports no numba, so a first call on the quick tier pays neither numba's import nor a
compilation. A quick plan imports only the modules of its own opcodes (importing all of them,
and the interpreter evals and indexing analysis they use, took ~30-40 ms: more than XLA's
whole compile of a small program). The quick tier never tries the other modules' factories,
even once they are loaded (a tier's plan does not depend on what the process compiled
before). ``kernel_for`` refuses, when the module is imported, a factory of one of these
modules for an opcode its set does not list (the quick tier would never try it)."""

_quick: dict[Opcode, list[KernelFactory]] = {}
"""The quick tier's factories per opcode (complete once the modules of ``QUICK_MODULES`` that
list the opcode are imported)."""


def factories(opcode: Opcode) -> list[KernelFactory]:
    """The factories registered for ``opcode``, in the order to try them: on the quick tier
    (``generated_kernels`` switched off) those of ``QUICK_MODULES`` only."""
    if not _generation.get():
        found = _quick.get(opcode)
        if found is None:
            load_kernels(opcode)
            found = _quick[opcode] = [
                e.factory
                for e in KERNELS.get(opcode, [])
                if opcode in QUICK_MODULES.get(e.factory.__module__.rsplit(".", 1)[-1], ())
            ]
        return found
    load_kernels()
    return [e.factory for e in KERNELS.get(opcode, [])]


_all_loaded = False


def load_kernels(opcode: Opcode | None = None) -> None:
    """Imports the modules of ``xlapy.backend.cpu.kernels`` so that their factories register
    (given an ``opcode``: the modules of ``QUICK_MODULES`` that list it), and lets the heap
    keep freed kernel outputs for the next call (``heap``)."""
    global _all_loaded
    if _all_loaded:
        return
    import importlib

    from xlapy.backend.cpu import heap, kernels

    heap.retain_freed_memory()
    if opcode is not None:
        for name, opcodes in QUICK_MODULES.items():
            if opcode in opcodes:
                importlib.import_module(f"{kernels.__name__}.{name}")
        return
    import pkgutil

    for name in sorted(m.name for m in pkgutil.iter_modules(kernels.__path__)):
        importlib.import_module(f"{kernels.__name__}.{name}")
    _all_loaded = True
