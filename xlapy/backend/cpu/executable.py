"""``Executable``: a module compiled for a platform, called like ``xlapy.run``.

On ``cpu`` every device (one thread each, on the interpreter's in-process SPMD runtime) runs
the entry plan in a ``Session`` of its own; on ``interpreter`` the module is evaluated as
written. Argument checks and result conventions are ``xlapy.run``'s own code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xlapy.backend.cpu.plan import Plan, Program, Session
from xlapy.backend.cpu.report import format_report
from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
from xlapy.interpreter.run import PreparedCall, finish_call, interpret, prepare_call
from xlapy.interpreter.runtime import DEFAULT_TIMEOUT
from xlapy.ir.module import HloModule
from xlapy.literal import Value


class Executable:
    """A compiled module. Call it as ``exe(*args, replicas=, partitions=, infeed=, outfeed=,
    timeout=)``: the arguments and results of ``xlapy.run``.

    Attributes:
        module: the module that runs: on ``cpu`` the optimized copy (printable with
            ``xlapy.text.hlo_printer.print_hlo``), on ``interpreter`` the module as given.
        platform: ``"cpu"`` or ``"interpreter"``.
        flush_denormals: whether f32/bf16 subnormals are flushed as XLA:CPU does.
        compile_seconds: wall time of ``xlapy.compile`` (passes and kernels).
    """

    def __init__(
        self,
        module: HloModule,
        platform: str,
        flush_denormals: bool,
        program: Program | None = None,
        compile_seconds: float = 0.0,
        header: Sequence[str] = (),
    ) -> None:
        self.module = module
        self.platform = platform
        self.flush_denormals = flush_denormals
        self.compile_seconds = compile_seconds
        self._program = program
        self._header = tuple(header)
        self._options = EvalOptions(flush_denormals=flush_denormals)

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

    def execute(self, call: PreparedCall) -> list[Value]:
        """The entry's root value on every device of an already checked call."""
        if self._program is None:
            return interpret(self.module, call, self.flush_denormals)
        program = self._program
        plan = program.plan(self.module.entry)
        runtime = call.runtime

        def on_device(flat: int) -> Value:
            device = runtime.device(flat)
            state = DeviceState(
                replica_id=device.replica, partition_id=device.partition, runtime=runtime
            )
            session = Session(program, state, Evaluator(self.module, self._options, state))
            arguments = [_writable(a) for a in call.arguments[flat]]
            value = plan.execute(session, arguments, plan.no_ownership)
            return _for_user(value, plan)

        return runtime.run_devices(on_device)

    def report(self, sources: bool = False) -> str:
        """How each instruction runs: kernel or interpreter fallback (and why), compile time;
        with ``sources``, the generated source of each kernel."""
        if self._program is None:
            count = sum(len(c.instructions) for c in self.module.computations)
            return (
                f"module {self.module.name} on interpreter: {count} instructions evaluated as "
                "written by the reference interpreter (no passes, no kernels)"
            )
        return format_report(self._program, self._header, sources=sources)

    def __repr__(self) -> str:
        return f"<Executable {self.module.name} on {self.platform}>"


def _writable(value: Value) -> Value:
    """A read-only argument (``np.frombuffer``, an array exported by JAX) as a private
    copy: compiled kernels are typed for writable buffers. Inputs are never written."""
    if isinstance(value, tuple):
        return tuple(_writable(v) for v in value)
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        return np.array(value, copy=True)
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
