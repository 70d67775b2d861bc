"""Helpers of the OPS.md worked-example tests: run a built module when every op in it has an
evaluator (skip naming the missing ones otherwise) and compare values exactly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xlapy
from xlapy.interpreter.evaluator import CUSTOM_CALLS, EVALUATORS, load_evaluators
from xlapy.ir import HloModule, Opcode

S = xlapy.shape


def missing_evaluators(module: HloModule) -> list[str]:
    load_evaluators()
    missing = set()
    for instr in module.instructions():
        if instr.opcode is Opcode.PARAMETER:
            continue
        if instr.opcode not in EVALUATORS:
            missing.add(instr.opcode.value)
        elif (
            instr.opcode is Opcode.CUSTOM_CALL
            and instr.attrs.custom_call_target not in CUSTOM_CALLS
        ):
            missing.add(f"custom-call {instr.attrs.custom_call_target}")
    return sorted(missing)


def run(module: HloModule, *args: Any, **kwargs: Any) -> list[Any]:
    """``xlapy.run`` of the module; skips (never passes silently) when an evaluator is missing."""
    missing = missing_evaluators(module)
    if missing:
        pytest.skip(f"value check needs evaluators not implemented yet: {', '.join(missing)}")
    return xlapy.run(module, *args, **{"platform": "interpreter", **kwargs})


def assert_equal(got: Any, want: Any, dtype: Any = None) -> None:
    """Exact equality (NaN == NaN, signed zeros distinguished) with the expected dtype."""
    __tracebackhide__ = True
    got = np.asarray(got)
    want = np.asarray(want, dtype=dtype if dtype is not None else got.dtype)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    if got.dtype.kind in "fc":
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got.real), np.signbit(want.real)), f"{got} != {want}"
    else:
        np.testing.assert_array_equal(got, want)


def assert_close(got: Any, want: Any, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    __tracebackhide__ = True
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
