"""Helpers for pass tests: run passes on HLO text, print the entry computation compactly, and
check that the interpreter gives bit-identical results before and after."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np

import xlapy
from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
from xlapy.literal import Value, values_equal
from xlapy.passes.pass_manager import Pipeline, make_pass
from xlapy.shape import Shape
from xlapy.shape_inference import infer_shape
from xlapy.text.hlo_printer import PrintOptions, print_instruction

COMPACT = PrintOptions(
    print_percent=False,
    print_program_shape=False,
    print_metadata=False,
    include_layout_in_shapes=False,
    print_large_constants=True,
    operand_index_annotation_interval=0,
)


def lines(module: HloModule, computation: str | None = None) -> list[str]:
    """The instruction lines of the entry (or the named) computation in definition order,
    without layouts."""
    comp = module.entry if computation is None else module.computation(computation)
    return [print_instruction(i, options=COMPACT) for i in comp.instructions]


def expect(text: str) -> list[str]:
    """Expected instruction lines written as an indented block."""
    return [ln.strip() for ln in textwrap.dedent(text).strip().splitlines()]


def sample_value(shape: Shape, rng: np.random.Generator) -> Value:
    """A value of ``shape`` with awkward elements: signed zeros, NaN, infinities, extremes."""
    if shape.is_tuple:
        return tuple(sample_value(s, rng) for s in shape.tuple_shapes)
    dtype = shape.element_type.numpy
    dims = tuple(shape.dims)
    etype = shape.element_type
    if etype.is_pred:
        return rng.integers(0, 2, dims).astype(np.bool_)
    if etype.is_integer:
        info = np.iinfo(np.int8 if etype.is_signed else np.uint8)
        return rng.integers(info.min, info.max + 1, dims).astype(dtype)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.5, 3.25])
    values = np.where(rng.random(dims) < 0.3, rng.choice(special, dims), rng.normal(0, 4, dims))
    if etype.is_complex:
        return (values + 1j * rng.normal(0, 2, dims)).astype(dtype)
    return values.astype(dtype)


def assert_same_results(
    before: HloModule, after: HloModule, args: Sequence[Value] | None = None, seeds: int = 3
) -> None:
    """The interpreter gives bitwise equal results for both modules (on ``args``, else on
    ``seeds`` sets of sample arguments)."""
    __tracebackhide__ = True
    sets = [list(args)] if args is not None else []
    for seed in range(seeds if args is None else 0):
        rng = np.random.default_rng(seed)
        sets.append([sample_value(p.shape, rng) for p in before.entry.parameters])
    for values in sets:
        want = xlapy.run(before, *values, platform="interpreter")
        got = xlapy.run(after, *values, platform="interpreter")
        if not values_equal(tuple(want), tuple(got)):
            raise AssertionError(f"results differ after the passes: {want} vs {got}")


def assert_shapes_infer(module: HloModule) -> None:
    """Every instruction's shape is what shape inference gives (passes keep shapes right)."""
    __tracebackhide__ = True
    for instr in module.instructions():
        inferred = infer_shape(
            instr.opcode,
            [o.shape for o in instr.operands],
            instr.attrs,
            result=instr.shape,
            name=instr.name,
        )
        assert inferred.compatible(instr.shape), f"{instr.name}: {inferred} vs {instr.shape}"


def optimize(
    text: str, *passes: str, check_values: bool = True, args: Sequence[Value] | None = None
) -> HloModule:
    """Runs ``passes`` (to a fixpoint, verifying after each) on the module ``text``; checks
    that a second run changes nothing and, unless told not to, that results are unchanged."""
    __tracebackhide__ = True
    original = xlapy.load(text)
    module = clone_module(original)
    Pipeline([make_pass(p) for p in passes], fixpoint=True, verify=True).run(module)
    again = Pipeline([make_pass(p) for p in passes])
    assert not again.run(module), f"not idempotent: {again.log} changed the module again"
    assert_shapes_infer(module)
    if check_values:
        assert_same_results(original, module, args)
    return module
