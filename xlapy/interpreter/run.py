"""``run``: evaluate a module's entry computation on host values, on the ``interpreter``
platform or another registered one (``register_platform``; ``xlapy.backend.cpu`` adds ``cpu``),
with the devices on the in-process runtime (``local``) or another (``register_runtime``;
``mpi``, imported when first asked for, is ``xlapy.interpreter.mpi_runtime``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import ml_dtypes
import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
from xlapy.interpreter.loop_limit import check_max_while_iterations
from xlapy.interpreter.observed import observed_evaluator
from xlapy.interpreter.runtime import DEFAULT_TIMEOUT, Runtime
from xlapy.ir.memory import check_memory
from xlapy.ir.module import HloModule
from xlapy.ir.verifier import check_call_graph
from xlapy.literal import TOKEN, Token, Value
from xlapy.profiling.active import current_observer
from xlapy.shape import Shape

if TYPE_CHECKING:
    from xlapy.profiling.observer import RunObserver
    from xlapy.profiling.recorder import Profile


def as_value(arg: object, shape: Shape, where: str) -> Value:
    """Converts a user argument to a value of ``shape``; raises naming ``where`` on mismatch.

    numpy arrays must have the parameter's exact dtype. Python numbers and (nested) lists are
    converted when no value changes: bools to any type, ints to integer, float and complex
    types (in range for integers), floats to float and complex types, complex numbers to
    complex types only.
    """
    if shape.is_token:
        return TOKEN
    if shape.is_tuple:
        if not isinstance(arg, (tuple, list)) or len(arg) != len(shape.tuple_shapes):
            raise InvalidArgument(
                f"{where}: expected a tuple of {len(shape.tuple_shapes)} values for "
                f"{shape.to_hlo(layout=False)}; got {_describe(arg)}"
            )
        return tuple(
            as_value(a, s, f"{where}[{i}]")
            for i, (a, s) in enumerate(zip(arg, shape.tuple_shapes, strict=True))
        )
    want = shape.element_type.numpy
    assert want is not None
    if isinstance(arg, np.ndarray | np.generic):
        arr = np.asarray(arg)
        if arr.dtype != want:
            raise InvalidArgument(
                f"{where}: expected element type {shape.element_type} ({want}); "
                f"got an array of dtype {arr.dtype}"
            )
    else:
        arr = _from_python(arg, shape, where)
    ok = arr.ndim == shape.rank and all(
        dyn or d == n for d, n, dyn in zip(shape.dims, arr.shape, shape.dynamic, strict=True)
    )
    if not ok:
        raise InvalidArgument(
            f"{where}: expected shape {shape.to_hlo(layout=False)}; "
            f"got {shape.element_type}{list(arr.shape)}"
        )
    return arr


# numpy kinds a Python value may have, per kind of element type (conversions that keep values).
_ACCEPTS = {"pred": "b", "int": "biu", "float": "biuf", "complex": "biufc"}


def _from_python(arg: object, shape: Shape, where: str) -> np.ndarray:
    etype = shape.element_type
    want = etype.numpy
    if arg is None or isinstance(arg, str | bytes):
        raise InvalidArgument(
            f"{where}: expected a value of {shape.to_hlo(layout=False)} (a numpy array, a "
            f"number or nested lists of numbers); got {_describe(arg)}"
        )
    try:
        raw = np.asarray(arg)
    except (ValueError, TypeError):
        raw = np.asarray(None)  # ragged nested lists: reported below as non-numbers
    kind = (
        "pred"
        if etype.is_pred
        else "complex"
        if etype.is_complex
        else "float"
        if etype.is_float
        else "int"
        if etype.is_integer
        else None
    )
    if kind is None:
        raise InvalidArgument(f"{where}: {etype} values cannot be passed in; got {_describe(arg)}")
    if raw.dtype.kind not in "biufc":
        raise InvalidArgument(
            f"{where}: expected numbers for {shape.to_hlo(layout=False)} (nested lists must be "
            f"rectangular); got {_describe(arg)}"
        )
    if raw.dtype.kind not in _ACCEPTS[kind]:
        raise InvalidArgument(
            f"{where}: {raw.dtype.name} values cannot become {etype} without changing them; got "
            f"{_describe(arg)} (pass a numpy array of dtype {np.dtype(want).name} to convert "
            "explicitly)"
        )
    with np.errstate(all="ignore"):
        arr = raw.astype(want)
    if kind == "int" and raw.size and not np.array_equal(arr.astype(raw.dtype), raw):
        info = ml_dtypes.iinfo(want)  # type: ignore[no-untyped-call]
        raise InvalidArgument(
            f"{where}: values out of the range of {etype} [{info.min}, {info.max}]; got "
            f"{_describe(arg)}"
        )
    return arr


def _describe(value: object) -> str:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{type(value).__name__} {text}"


def flatten(value: Value) -> list[Value]:
    """Tuples flattened depth first; arrays and tokens as they are."""
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in flatten(v)]
    return [value]


@dataclass
class PreparedCall:
    """A checked call of a module's entry: its runtime and each device's arguments.

    Attributes:
        runtime: the SPMD devices (host infeed already queued).
        arguments: the list of entry arguments of each device this process runs, by flat id.
        max_while_iterations: the bound on each while loop's iterations (None: no bound).
        observer: what watches the call (a profile, a progress display: the platforms then
            run observed code, ``xlapy.profiling``); default: the profile of the enclosing
            ``xlapy.profile()`` block, if any.
    """

    runtime: Runtime
    arguments: dict[int, list[Value]]
    max_while_iterations: int | None = None
    observer: RunObserver | None = field(default_factory=current_observer)


PlatformRunner = Callable[[HloModule, PreparedCall, bool], list[Value]]
"""``runner(module, call, flush_denormals) -> root value of each device``."""

PLATFORMS: dict[str, PlatformRunner] = {}
"""Platforms ``run`` can use, by name: ``interpreter`` (this module) and those registered
with ``register_platform`` (``xlapy.backend.cpu`` registers ``cpu``)."""


def register_platform(name: str, runner: PlatformRunner) -> None:
    """Makes ``run(..., platform=name)`` run modules with ``runner``."""
    PLATFORMS[name] = runner


RuntimeFactory = Callable[[int, int, float], Runtime]
"""``factory(num_replicas, num_partitions, timeout) -> Runtime``."""

RUNTIMES: dict[str, RuntimeFactory] = {"local": Runtime}
"""Runtimes ``run`` can put the devices on: ``local`` (one thread per device in this process)
and those registered with ``register_runtime``."""

_RUNTIME_MODULES = {"mpi": "xlapy.interpreter.mpi_runtime"}
"""Runtimes registered by a module imported on first use (it may need an extra: mpi4py)."""


def register_runtime(name: str, factory: RuntimeFactory) -> None:
    """Makes ``run(..., runtime=name)`` put the devices on runtimes made by ``factory``."""
    RUNTIMES[name] = factory


def runtime_factory(name: object) -> RuntimeFactory:
    """The runtime factory called ``name``; raises InvalidArgument naming the known ones."""
    if isinstance(name, str) and name not in RUNTIMES and name in _RUNTIME_MODULES:
        importlib.import_module(_RUNTIME_MODULES[name])
    factory = RUNTIMES.get(name) if isinstance(name, str) else None
    if factory is None:
        known = ", ".join(repr(n) for n in sorted({*RUNTIMES, *_RUNTIME_MODULES}))
        raise InvalidArgument(f"run: runtime must be one of {known}; got {name!r}")
    return factory


def run(
    module: HloModule,
    *args: object,
    platform: str = "cpu",
    flush_denormals: bool = False,
    replicas: int | None = None,
    partitions: int | None = None,
    infeed: Sequence[Value] = (),
    outfeed: list[Value] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_memory: int | None = None,
    runtime: str = "local",
    max_while_iterations: int | None = None,
    profile: Profile | None = None,
    progress: bool = False,
) -> list[Any]:
    """Evaluates the entry computation of ``module`` on ``args``.

    Args:
        module: the program (from ``xlapy.load``, a parser or the builder).
        *args: one value per entry parameter: numpy arrays (of the parameter's exact dtype),
            Python scalars/lists (converted to the parameter's type), tuples for tuple
            parameters; tokens are ignored. With several devices, an argument is either one
            value (the same on every device) or a ``list`` of one value per device, in device
            order (device = replica * partitions + partition).
        platform: ``"cpu"`` (the default, as ``xlapy run``'s and XLA's: compiled with
            ``xlapy.compile``, synchronously, once per module object and options) or
            ``"interpreter"`` (the exact reference, evaluated as written).
        flush_denormals: behave as XLA:CPU, which flushes f32/bf16 subnormals.
        replicas, partitions: the SPMD grid; default: the module's replica_count and
            num_partitions.
        infeed: values the program's infeed instructions pop, in order.
        outfeed: a list the program's outfeed instructions append to.
        timeout: seconds a device waits at a collective before failing with an error that
            names the devices that never arrived.
        max_memory: bytes the program's largest set of live values (from its static shapes,
            times the devices) may take; a program above it is refused before anything is
            allocated. Default: 80% of the memory available (``xlapy.ir.memory``).
        runtime: where the devices run: ``"local"`` (one thread per device in this process)
            or ``"mpi"`` (inside an MPI job, ``mpirun -n N``: each rank runs R*P/N devices,
            rank r the devices r*k .. r*k+k-1, as threads; every rank calls ``run`` with the
            arguments of its own devices: one value, or a list of one value per device of the
            rank; a one-device program runs whole on every rank). See
            ``xlapy.interpreter.mpi_runtime``.
        max_while_iterations: the most iterations one run of a while loop may make; a loop
            whose condition still holds after that many raises EvaluationError naming the
            loop, the count and its state. Default: no bound (as XLA).
        profile: an ``xlapy.Profile`` that records the time of every instruction on every
            device (``profile.table()``, ``profile.write_trace(path)``); default: the profile
            of the enclosing ``with xlapy.profile()`` block, if any. Calls without one run
            unobserved code.
        progress: on a terminal (stderr a TTY), show a status line while the call is still
            compiling or running after 2 seconds: passes and kernels compiled, instructions
            executed and the current while-loop iteration (``xlapy.profiling.live``).

    Returns:
        On one device, the flat list of results (tuples flattened in order); on several, one
        such list per device, in device order (with ``runtime="mpi"``: per device of this
        rank).
    """
    if not isinstance(module, HloModule):
        raise InvalidArgument(
            f"run: expected an HloModule (from xlapy.load, a parser or XlaBuilder.build); got "
            f"{_describe(module)}"
        )
    runner = PLATFORMS.get(platform) if isinstance(platform, str) else None
    if runner is None:
        known = ", ".join(repr(name) for name in sorted(PLATFORMS))
        raise InvalidArgument(f"run: platform must be one of {known}; got {platform!r}")
    call = prepare_call(
        module,
        args,
        replicas=replicas,
        partitions=partitions,
        infeed=infeed,
        outfeed=outfeed,
        timeout=timeout,
        max_memory=max_memory,
        runtime=runtime,
        max_while_iterations=max_while_iterations,
    )
    if profile is not None:
        from xlapy.profiling.recorder import check_profile

        call.observer = check_profile(profile)
    if progress:
        from xlapy.profiling.live import show_progress

        with show_progress(module, call, platform):
            return finish_call(call, runner(module, call, flush_denormals), outfeed)
    return finish_call(call, runner(module, call, flush_denormals), outfeed)


MAX_DEVICES = 1 << 16
"""The most devices one process runs (each is a thread)."""


def prepare_call(
    module: HloModule,
    args: Sequence[object],
    *,
    replicas: int | None,
    partitions: int | None,
    infeed: Sequence[Value],
    outfeed: list[Value] | None,
    timeout: float,
    max_memory: int | None = None,
    runtime: str = "local",
    max_while_iterations: int | None = None,
) -> PreparedCall:
    """Checks the options and arguments of a call of ``module``'s entry (see ``run``) and
    converts the arguments; raises InvalidArgument naming what is wrong."""
    num_replicas = _count("replicas", replicas, module.config.replica_count)
    num_partitions = _count("partitions", partitions, module.config.num_partitions)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise InvalidArgument(f"run: timeout must be a positive number of seconds; got {timeout!r}")
    if isinstance(infeed, str | bytes | np.ndarray) or not isinstance(infeed, Sequence):
        raise InvalidArgument(f"run: infeed must be a list of values; got {_describe(infeed)}")
    if outfeed is not None and not isinstance(outfeed, list):
        raise InvalidArgument(f"run: outfeed must be a list (or None); got {_describe(outfeed)}")
    if num_replicas * num_partitions > MAX_DEVICES:
        raise InvalidArgument(
            f"run: {num_replicas} replicas x {num_partitions} partitions is more than the "
            f"{MAX_DEVICES} devices xlapy runs in one process"
        )
    if max_memory is not None and (
        isinstance(max_memory, bool) or not isinstance(max_memory, int) or max_memory <= 0
    ):
        raise InvalidArgument(
            f"run: max_memory must be a positive number of bytes; got {max_memory!r}"
        )
    limit = check_max_while_iterations(max_while_iterations, "run")
    factory = runtime_factory(runtime)
    entry = module.entry
    params = entry.parameters
    if len(args) != len(params):
        shapes = ", ".join(p.shape.to_hlo(layout=False) for p in params) or "none"
        raise InvalidArgument(
            f"run: {entry.name} takes {len(params)} arguments ({shapes}); got {len(args)}"
        )
    check_call_graph(module)  # nested calls bounded before the recursive memory estimate
    devices = factory(num_replicas, num_partitions, timeout)
    local = devices.local_devices
    check_memory(module, max_memory, devices=len(local))
    devices.infeed.extend(infeed)
    n = len(local)
    per_device: dict[int, list[Value]] = {d: [] for d in local}
    for i, (arg, p) in enumerate(zip(args, params, strict=True)):
        where = f"argument {i} ({p.name})"
        if devices.num_devices > 1 and _per_device(arg, p.shape, n):
            assert isinstance(arg, list)
            if len(arg) != n:
                owner = "device" if n == devices.num_devices else "device of this process"
                count = "=" if n == devices.num_devices else "of"
                raise InvalidArgument(
                    f"{where}: a per-device list needs one value per {owner} ({n} {count} "
                    f"{num_replicas} replicas x {num_partitions} partitions); got {len(arg)}"
                )
            for d, a in zip(local, arg, strict=True):
                per_device[d].append(as_value(a, p.shape, f"{where} on device {d}"))
        else:
            value = as_value(arg, p.shape, where)
            for d in local:
                per_device[d].append(value)
    return PreparedCall(devices, per_device, limit)


def finish_call(call: PreparedCall, roots: list[Value], outfeed: list[Value] | None) -> list[Any]:
    """The results of a call as ``run`` returns them: the flattened root value (one list per
    device when there are several); ``outfeed`` receives what the program pushed."""
    if outfeed is not None:
        outfeed.extend(call.runtime.outfeed)
    results = [flatten(root) for root in roots]
    return results[0] if call.runtime.num_devices == 1 else results


def interpret(module: HloModule, call: PreparedCall, flush_denormals: bool) -> list[Value]:
    """The ``interpreter`` platform: evaluates the entry on every device of ``call``."""
    options = EvalOptions(
        flush_denormals=flush_denormals, max_while_iterations=call.max_while_iterations
    )
    runtime = call.runtime
    observer = call.observer
    evaluator: Callable[..., Evaluator] = (
        Evaluator if observer is None else observed_evaluator(observer, "interpreter")
    )

    def on_device(flat: int) -> Value:
        device = runtime.device(flat)
        state = DeviceState(
            replica_id=device.replica, partition_id=device.partition, runtime=runtime
        )
        return evaluator(module, options, state).call(module.entry, call.arguments[flat])

    return runtime.run_devices(on_device)


register_platform("interpreter", interpret)


def _count(what: str, value: object, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidArgument(f"run: {what} must be a positive int; got {value!r}")
    return int(value)


def _per_device(arg: object, shape: Shape, devices: int) -> bool:
    """True for a ``list`` of one value per device (for a tuple parameter: a list of tuples);
    a list that can only be meant per device (of arrays, or for a scalar parameter) but has
    the wrong length raises."""
    if not isinstance(arg, list) or not arg:
        return False
    if shape.is_tuple:
        return all(isinstance(a, tuple) for a in arg)
    if len(arg) == devices:
        return True
    return shape.rank == 0 or all(isinstance(a, np.ndarray | np.generic) for a in arg)


def run_values(module: HloModule, args: Sequence[Value]) -> Value:
    """Evaluates the entry computation on already-typed values; returns the root value."""
    return Evaluator(module).call(module.entry, args)


__all__ = [
    "PLATFORMS",
    "RUNTIMES",
    "TOKEN",
    "PreparedCall",
    "Token",
    "as_value",
    "finish_call",
    "flatten",
    "interpret",
    "prepare_call",
    "register_platform",
    "register_runtime",
    "run",
    "run_values",
]
