"""``run``: evaluate a module's entry computation on host values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
from xlapy.interpreter.runtime import DEFAULT_TIMEOUT, Runtime
from xlapy.ir.module import HloModule
from xlapy.literal import TOKEN, Token, Value
from xlapy.shape import Shape


def as_value(arg: object, shape: Shape, where: str) -> Value:
    """Converts a user argument to a value of ``shape``; raises naming ``where`` on mismatch."""
    if shape.is_token:
        return TOKEN
    if shape.is_tuple:
        if not isinstance(arg, (tuple, list)) or len(arg) != len(shape.tuple_shapes):
            raise InvalidArgument(f"{where}: expected a tuple of shape {shape}; got {arg!r:.80}")
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
        arr = np.asarray(arg, dtype=want)
    ok = arr.ndim == shape.rank and all(
        dyn or d == n for d, n, dyn in zip(shape.dims, arr.shape, shape.dynamic, strict=True)
    )
    if not ok:
        raise InvalidArgument(
            f"{where}: expected shape {shape.to_hlo(layout=False)}; "
            f"got {dtypes.from_numpy(arr.dtype)}{list(arr.shape)}"
        )
    return arr


def flatten(value: Value) -> list[Value]:
    """Tuples flattened depth first; arrays and tokens as they are."""
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in flatten(v)]
    return [value]


def run(
    module: HloModule,
    *args: object,
    flush_denormals: bool = False,
    replicas: int | None = None,
    partitions: int | None = None,
    infeed: Sequence[Value] = (),
    outfeed: list[Value] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[Any]:
    """Evaluates the entry computation of ``module`` on ``args``.

    Args:
        module: the program (from ``xlapy.load``, a parser or the builder).
        *args: one value per entry parameter: numpy arrays (of the parameter's exact dtype),
            Python scalars/lists (converted to the parameter's type), tuples for tuple
            parameters; tokens are ignored. With several devices, an argument is either one
            value (the same on every device) or a ``list`` of one value per device, in device
            order (device = replica * partitions + partition).
        flush_denormals: behave as XLA:CPU, which flushes f32/bf16 subnormals.
        replicas, partitions: the SPMD grid; default: the module's replica_count and
            num_partitions.
        infeed: values the program's infeed instructions pop, in order.
        outfeed: a list the program's outfeed instructions append to.
        timeout: seconds a device waits at a collective before failing with an error that
            names the devices that never arrived.

    Returns:
        On one device, the flat list of results (tuples flattened in order); on several, one
        such list per device, in device order.
    """
    num_replicas = replicas or module.config.replica_count
    num_partitions = partitions or module.config.num_partitions
    runtime = Runtime(num_replicas, num_partitions, timeout)
    runtime.infeed.extend(infeed)
    entry = module.entry
    params = entry.parameters
    if len(args) != len(params):
        raise InvalidArgument(f"{entry.name} takes {len(params)} arguments; got {len(args)}")
    n = runtime.num_devices
    per_device: list[list[Value]] = [[] for _ in range(n)]
    for i, (arg, p) in enumerate(zip(args, params, strict=True)):
        where = f"argument {i} ({p.name})"
        if n > 1 and isinstance(arg, list) and len(arg) == n and not p.shape.is_tuple:
            for d in range(n):
                per_device[d].append(as_value(arg[d], p.shape, f"{where} on device {d}"))
        else:
            value = as_value(arg, p.shape, where)
            for d in range(n):
                per_device[d].append(value)
    options = EvalOptions(flush_denormals=flush_denormals)

    def on_device(flat: int) -> list[Value]:
        device = runtime.device(flat)
        state = DeviceState(
            replica_id=device.replica, partition_id=device.partition, runtime=runtime
        )
        return flatten(Evaluator(module, options, state).call(entry, per_device[flat]))

    results = runtime.run_devices(on_device)
    if outfeed is not None:
        outfeed.extend(runtime.outfeed)
    return results[0] if n == 1 else results


def run_values(module: HloModule, args: Sequence[Value]) -> Value:
    """Evaluates the entry computation on already-typed values; returns the root value."""
    return Evaluator(module).call(module.entry, args)


__all__ = ["TOKEN", "Token", "as_value", "flatten", "run", "run_values"]
