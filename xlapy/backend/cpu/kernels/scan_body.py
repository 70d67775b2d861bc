"""A scan reducer's body as numpy calls bound once, for the quick tier's stepwise scan
(``kernels/scan.py``), which calls the body once per step on whole rows: each instruction
makes the computation the interpreter's eval makes for it (the elementwise table's float
kernel with the row's rules, ``elementwise.bind``: operands in the compute dtype, or f64 for
transcendental rows, rounded once to the result type; FLOAT compares of the values in the
compute dtype; select), without the eval's per-call dispatch, checks and broadcasting. JAX's cumlogsumexp body (logaddexp:
subtract, compare, add, maximum, abs, negate, exponential, log-plus-one, select) then takes
~50x less time per step.

Bodies over f16, bf16, f32 and f64 built only of such ops (and scalar constants, parameters,
a tuple root) are bound; any other body, and every body under ``flush_denormals``, keeps the
interpreter's call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlapy import dtypes
from xlapy.interpreter import numerics
from xlapy.interpreter.evals.compare_select import DIRECTIONS, default_comparison_type
from xlapy.interpreter.evals.elementwise import ROWS, bind
from xlapy.interpreter.evaluator import evaluator_for
from xlapy.ir.attrs import ComparisonType
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array

Body = Callable[[Sequence[Array]], list[Array]]
"""The body on one array per parameter; one array per result leaf."""

FLOATS = (dtypes.F16, dtypes.BF16, dtypes.F32, dtypes.F64)
Operation = Callable[..., Array]


def bound_body(comp: HloComputation, flush_denormals: bool) -> Body | None:
    """``comp`` as bound numpy calls (to be called under ``np.errstate(all="ignore")``, as
    the interpreter's evals run), or None where the interpreter's call must run."""
    if flush_denormals:
        return None
    order = comp.post_order()
    slot = {id(instr): n for n, instr in enumerate(order)}
    constants: list[tuple[int, Array]] = []
    parameters: list[tuple[int, int]] = []
    steps: list[tuple[int, Operation, tuple[int, ...]]] = []
    root = comp.root
    for n, instr in enumerate(order):
        if instr is root and instr.opcode is Opcode.TUPLE:
            continue
        if not instr.shape.is_array or instr.shape.rank:
            return None
        if instr.opcode is Opcode.PARAMETER:
            parameters.append((n, instr.parameter_number))
        elif instr.opcode is Opcode.CONSTANT:
            constants.append((n, np.asarray(instr.attrs.literal.to_numpy())))
        else:
            operation = _operation(instr)
            if operation is None:
                return None
            steps.append((n, operation, tuple(slot[id(o)] for o in instr.operands)))
    leaves = root.operands if root.opcode is Opcode.TUPLE else [root]
    results = [slot[id(leaf)] for leaf in leaves]

    def body(args: Sequence[Array]) -> list[Array]:
        env: list[Array] = [np.empty(0)] * len(order)
        for n, value in constants:
            env[n] = value
        for n, number in parameters:
            env[n] = args[number]
        for n, operation, operands in steps:
            env[n] = operation(*[env[i] for i in operands])
        return [env[r] for r in results]

    return body


def _operation(instr: HloInstruction) -> Operation | None:
    """The numpy form of one scalar instruction of a float body, None for others."""
    types = [o.shape.element_type for o in instr.operands]
    result = instr.shape.element_type
    if instr.opcode is Opcode.SELECT:
        if types[0] is not dtypes.PRED or result not in FLOATS:
            return None
        return np.where
    if not types or any(t is not types[0] for t in types) or types[0] not in FLOATS:
        return None
    t = types[0]
    if instr.opcode is Opcode.COMPARE:
        if (instr.attrs.type or default_comparison_type(t)) is not ComparisonType.FLOAT:
            return None
        return _compare(DIRECTIONS[instr.attrs.direction], numerics.compute_dtype(t))
    if result is not t:
        return None
    evaluator_for(instr.opcode)  # imports the module that registers the op's row
    row = ROWS.get(instr.opcode)
    return None if row is None else bind(row, types, t, flush=False)


def _compare(ufunc: Callable[[Array, Array], Array], dtype: np.dtype) -> Operation:
    def compare(lhs: Array, rhs: Array) -> Array:
        return ufunc(lhs.astype(dtype, copy=False), rhs.astype(dtype, copy=False))

    return compare
