"""``run``: evaluate a module's entry computation on host values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import DeviceState, EvalOptions, Evaluator
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
    device: DeviceState | None = None,
) -> list[Value]:
    """Evaluates the entry computation of ``module`` on ``args``.

    Args:
        module: the program (from ``xlapy.load``, a parser or the builder).
        *args: one value per entry parameter: numpy arrays (of the parameter's exact dtype),
            Python scalars/lists (converted to the parameter's type), tuples for tuple
            parameters; tokens are ignored.
        flush_denormals: behave as XLA:CPU, which flushes f32/bf16 subnormals.

    Returns:
        The flat list of results (tuples flattened in order).
    """
    entry = module.entry
    params = entry.parameters
    if len(args) != len(params):
        raise InvalidArgument(f"{entry.name} takes {len(params)} arguments; got {len(args)}")
    values = [
        as_value(a, p.shape, f"argument {i} ({p.name})")
        for i, (a, p) in enumerate(zip(args, params, strict=True))
    ]
    evaluator = Evaluator(module, EvalOptions(flush_denormals=flush_denormals), device)
    return flatten(evaluator.call(entry, values))


def run_values(module: HloModule, args: Sequence[Value]) -> Value:
    """Evaluates the entry computation on already-typed values; returns the root value."""
    return Evaluator(module).call(module.entry, args)


__all__ = ["TOKEN", "Token", "as_value", "flatten", "run", "run_values"]
