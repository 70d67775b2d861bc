"""``Executable``: a module compiled for a platform, called like ``xlapy.run``.

On ``cpu`` every device (one thread each, on the interpreter's in-process SPMD runtime) runs
the entry plan in a ``Session`` of its own; on ``interpreter`` the module is evaluated as
written. Argument checks and result conventions are ``xlapy.run``'s own code; a call of a
single-device program with only the arguments given takes a shorter road to the same checks
(the module's call graph checked once, arrays of the exact type and shape taken as they are).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from xlapy.backend.cpu.observed_plan import observed_program
from xlapy.backend.cpu.plan import Plan, Program, Session
from xlapy.backend.cpu.report import format_report
from xlapy.errors import EvaluationError, XlaError
from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
from xlapy.interpreter.run import (
    PreparedCall,
    as_value,
    finish_call,
    flatten,
    interpret,
    prepare_call,
)
from xlapy.interpreter.runtime import DEFAULT_TIMEOUT, Runtime
from xlapy.ir.memory import ALWAYS_FITS, check_memory, upper_bound
from xlapy.ir.module import HloModule
from xlapy.ir.verifier import check_call_graph
from xlapy.literal import Value
from xlapy.profiling.active import current_observer
from xlapy.shape import Shape

if TYPE_CHECKING:
    from xlapy.backend.cpu.tiers import TierState
    from xlapy.profiling.observer import RunObserver


class Executable:
    """A compiled module. Call it as ``exe(*args, replicas=, partitions=, infeed=, outfeed=,
    timeout=)``: the arguments and results of ``xlapy.run``.

    Attributes:
        module: the module that runs: on ``cpu`` the optimized copy (printable with
            ``xlapy.text.hlo_printer.print_hlo``), on ``interpreter`` the module as given.
        platform: ``"cpu"`` or ``"interpreter"``.
        flush_denormals: whether f32/bf16 subnormals are flushed as XLA:CPU does.
        compile_seconds: wall time of ``xlapy.compile`` (passes and kernels; on the quick
            tier, building that tier).
        max_while_iterations: the bound on each while loop's iterations (None: no bound).
        tier_state: a tiered executable's background compile (``tiers.TierState``), else None.

    A tiered executable (``xlapy.compile(..., tiered=True)``) swaps its module and program for
    the compiled tier's between two calls (``install_tier``): a call reads the program once
    and runs on it to the end, on every device.
    """

    def __init__(
        self,
        module: HloModule,
        platform: str,
        flush_denormals: bool,
        program: Program | None = None,
        compile_seconds: float = 0.0,
        header: Sequence[str] = (),
        max_while_iterations: int | None = None,
    ) -> None:
        self._module = module
        self.platform = platform
        self.flush_denormals = flush_denormals
        self.compile_seconds = compile_seconds
        self._program = program
        self._header = tuple(header)
        self.max_while_iterations = max_while_iterations
        self._options = EvalOptions(
            flush_denormals=flush_denormals, max_while_iterations=max_while_iterations
        )
        # The short road of __call__: (parameter shape, numpy dtype or None, dims) per entry
        # parameter; set once the module's call graph has been checked (first plain call).
        self._parameters: list[tuple[Shape, np.dtype[Any] | None, tuple[int, ...]]] | None = None
        self._always_fits = False  # the peak live bytes need no look at the free memory
        self._idle: list[Session] = []  # sessions of plain calls that returned (_run_plain)
        self.tier_state: TierState | None = None
        self.tier_watcher: threading.Thread | None = None

    @property
    def module(self) -> HloModule:
        """The module that runs now (the compiled tier's once it is installed)."""
        program = self._program
        return self._module if program is None else program.module

    @property
    def tier(self) -> str:
        """``quick`` while a tiered executable runs its quick tier, else ``compiled`` (on
        ``interpreter``: ``interpreter``)."""
        if self._program is None:
            return "interpreter"
        state = self.tier_state
        return "quick" if state is not None and state.status != "compiled" else "compiled"

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Waits until a tiered executable's compiled tier is installed (or its background
        compile failed); True when the executable runs compiled code now. The tier-up
        thread starts at once (it would otherwise wait for a first call to return)."""
        watcher = self.tier_watcher
        if self.tier_state is not None:
            self.tier_state.called.set()
        if watcher is not None:
            watcher.join(timeout)
        return self.tier != "quick"

    def install_tier(self, module: HloModule, program: Program, header: Sequence[str]) -> None:
        """Makes ``program`` (of ``module``) the one later calls run; calls running now end
        on the program they started with."""
        assert program.module is module
        self._header = tuple(header)
        self._program = program  # one store: a call sees the old program or the new one
        self._idle.clear()

    def __call__(
        self,
        *args: object,
        replicas: int | None = None,
        partitions: int | None = None,
        infeed: Sequence[Value] = (),
        outfeed: list[Value] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_memory: int | None = None,
    ) -> list[Any]:
        """Runs the entry computation on ``args``; see ``xlapy.run`` for the conventions."""
        if (
            replicas is None
            and partitions is None
            and type(infeed) in (tuple, list)
            and not infeed
            and outfeed is None
            and type(timeout) is float
            and timeout == DEFAULT_TIMEOUT
            and max_memory is None
        ):
            values = self._plain_arguments(args)
            if values is not None:
                return self._run_plain(values)
        call = prepare_call(
            self.module,
            args,
            replicas=replicas,
            partitions=partitions,
            infeed=infeed,
            outfeed=outfeed,
            timeout=timeout,
            max_memory=max_memory,
        )
        return finish_call(call, self.execute(call), outfeed)

    def _plain_arguments(self, args: Sequence[object]) -> list[Value] | None:
        """The entry's arguments of a call on one device with no other option given, checked
        and converted as ``prepare_call`` does; None when the call needs the full road (several
        devices, a wrong argument count: its errors are ``prepare_call``'s)."""
        parameters = self._parameters
        if parameters is None:
            config = self.module.config
            entry = self.module.entry
            if config.replica_count != 1 or config.num_partitions != 1:
                return None
            check_call_graph(self.module)
            self._always_fits = upper_bound(self.module) <= ALWAYS_FITS
            parameters = []
            for p in entry.parameters:
                shape = p.shape
                plain = shape.is_array and shape.is_static and shape.element_type.numpy is not None
                dtype = np.dtype(shape.element_type.numpy) if plain else None
                parameters.append((shape, dtype, tuple(shape.dims)))
            self._parameters = parameters
        if len(args) != len(parameters):
            return None
        if not self._always_fits:
            check_memory(self.module, None)
        values: list[Value] = []
        for i, (arg, (shape, dtype, dims)) in enumerate(zip(args, parameters, strict=True)):
            if isinstance(arg, np.generic):
                arg = np.asarray(arg)  # a numpy scalar: a fresh 0-d array
            if type(arg) is np.ndarray and arg.dtype == dtype and arg.shape == dims:
                values.append(arg)
            else:
                name = self.module.entry.parameters[i].name
                values.append(as_value(arg, shape, f"argument {i} ({name})"))
        return values

    def execute(self, call: PreparedCall) -> list[Value]:
        """The entry's root value on every device of an already checked call."""
        program = self._program
        if program is None:
            bounded = replace(call, max_while_iterations=self.max_while_iterations)
            return interpret(self._module, bounded, self.flush_denormals)
        runtime = call.runtime

        def on_device(flat: int) -> Value:
            return self._run_device(program, runtime, flat, call.arguments[flat], call.observer)

        values = runtime.run_devices(on_device)
        if self.tier_state is not None:
            self.tier_state.called.set()
        return values

    def _run_device(
        self,
        program: Program,
        runtime: Runtime,
        flat: int,
        arguments: Sequence[Value],
        observer: RunObserver | None = None,
    ) -> Value:
        """The entry plan run by device ``flat`` in a session of its own (with an observer,
        its observed variant: ``observed_plan``)."""
        module = program.module
        evaluator: Callable[..., Evaluator] = Evaluator
        if observer is not None:
            program, evaluator = observed_program(observer, program)
        plan = program.plan(module.entry)
        device = runtime.device(flat)
        state = DeviceState(
            replica_id=device.replica, partition_id=device.partition, runtime=runtime
        )
        session = Session(program, state, evaluator(module, self._options, state))
        value = plan.execute(session, [_writable(a) for a in arguments], plan.no_ownership)
        return _for_user(value, plan)

    def _run_plain(self, arguments: list[Value]) -> list[Any]:
        """``__call__``'s short road: the one device run on this thread, its errors reported
        as ``Runtime.run_devices`` reports them, the root flattened as ``finish_call`` does.

        The session (device state, evaluator, contexts) of a plain call that returned is
        kept for the next one, reset to a fresh device's state (RNG counter, rendezvous
        counts) with a fresh runtime; a call that raised drops its session."""
        runtime = Runtime(1, 1, DEFAULT_TIMEOUT)
        program = self._program
        if program is None:
            call = PreparedCall(runtime, {0: arguments})
            return finish_call(call, self.execute(call), None)
        try:
            observer = current_observer()
            if observer is not None:
                return flatten(self._run_device(program, runtime, 0, arguments, observer))
            try:
                session = self._idle.pop()  # atomic: each thread takes its own
                if session.program is not program:
                    raise IndexError  # a session of the tier before: start afresh
                device = session.device
                device.runtime = runtime
                device.rng_state = 0
                device.executions.clear()
            except IndexError:
                device = DeviceState(runtime=runtime)
                session = Session(program, device, Evaluator(program.module, self._options, device))
            plan = program.plan(program.module.entry)
            value = plan.execute(session, [_writable(a) for a in arguments], plan.no_ownership)
            self._idle.append(session)
        except XlaError:
            raise
        except Exception as err:
            raise EvaluationError(f"device failed: {type(err).__name__}: {err}") from err
        state = self.tier_state
        if state is not None and not state.called.is_set():  # set() takes a lock each time
            state.called.set()
        return flatten(_for_user(value, plan))

    def report(self, sources: bool = False) -> str:
        """How each instruction runs: kernel or interpreter fallback (and why), compile time;
        with ``sources``, the generated source of each kernel."""
        program = self._program
        if program is None:
            count = sum(len(c.instructions) for c in self._module.computations)
            return (
                f"module {self._module.name} on interpreter: {count} instructions evaluated as "
                "written by the reference interpreter (no passes, no kernels)"
            )
        header = list(self._header)
        state = self.tier_state
        if state is not None and state.status != "compiled":
            header.append(f"compiled tier: {state.status}{'; ' + state.note if state.note else ''}")
        return format_report(program, header, sources=sources)

    def __repr__(self) -> str:
        return f"<Executable {self.module.name} on {self.platform}>"


def _writable(value: Value) -> Value:
    """A read-only argument (``np.frombuffer``, an array exported by JAX) or one that is not
    C-contiguous (``x[::-1]``, a Fortran-ordered or strided view) as a private C-ordered
    copy: compiled kernels are typed for writable C-contiguous buffers (a reversed 1-D
    argument reached a fusion kernel as a strided view and failed to match its signature,
    issue #20). Inputs are never written."""
    if isinstance(value, tuple):
        return tuple(_writable(v) for v in value)
    if isinstance(value, np.ndarray) and not (value.flags.writeable and value.flags.c_contiguous):
        return np.array(value, order="C", copy=True)
    return value


def _for_user(value: Value, plan: Plan) -> Value:
    """The entry's result as the user may keep and change it: leaves that may be a constant's
    memory (shared by every run) or a read-only view are copied."""
    constant = plan.liveness.result_constant
    if not any(constant) and not _has_read_only(value):
        return value
    leaves = iter(constant)

    def own(v: Value) -> Value:
        if isinstance(v, tuple):
            return tuple(own(x) for x in v)
        shared = next(leaves)
        if isinstance(v, np.ndarray) and (shared or not v.flags.writeable):
            return np.array(v, copy=True)
        return v

    return own(value)


def _has_read_only(value: Value) -> bool:
    if isinstance(value, tuple):
        return any(_has_read_only(v) for v in value)
    return isinstance(value, np.ndarray) and not value.flags.writeable
