"""Named pipelines: ``default_pipeline()`` is what the compiled ``cpu`` platform and
``xlapy opt --pipeline=default`` run."""

from __future__ import annotations

from collections.abc import Callable

from xlapy.errors import InvalidArgument
from xlapy.passes.algebraic_simplifier import AlgebraicSimplifier
from xlapy.passes.call_graph import FlattenCallGraph, Inline
from xlapy.passes.constant_folding import ConstantFolding
from xlapy.passes.cse import CommonSubexpressionElimination
from xlapy.passes.dce import DeadCodeElimination
from xlapy.passes.pass_manager import PASSES, Pass, Pipeline, load_passes
from xlapy.passes.tuple_simplifier import TupleSimplifier
from xlapy.passes.while_loop_simplifier import WhileLoopSimplifier


def simplification_passes() -> list[Pass]:
    """The simplification passes, in the order one round runs them."""
    return [
        AlgebraicSimplifier(),
        ConstantFolding(),
        TupleSimplifier(),
        WhileLoopSimplifier(),
        CommonSubexpressionElimination(),
        DeadCodeElimination(),
    ]


def default_pipeline(*, verify: bool = False) -> Pipeline:
    """flatten-call-graph and inline once, the simplification passes to a fixpoint, then
    ``fusion`` when a pass of that name is registered.

    Every pass keeps the interpreter's results bit-identical (tests check this on every
    example program).
    """
    load_passes()
    passes: list[Pass | Pipeline] = [
        FlattenCallGraph(),
        Inline(),
        Pipeline(simplification_passes(), fixpoint=True),
    ]
    fusion = PASSES.get("fusion")
    if fusion is not None:
        passes.append(fusion())
    return Pipeline(passes, verify=verify)


def spmd_pipeline(*, verify: bool = False) -> Pipeline:
    """Sharding propagation and SPMD partitioning (``xlapy.sharding.spmd_pipeline``): a
    global-view program becomes the per-device program."""
    from xlapy.sharding.spmd_pipeline import spmd_pipeline as pipeline

    return pipeline(verify=verify)


PIPELINES: dict[str, Callable[..., Pipeline]] = {
    "default": default_pipeline,
    "spmd": spmd_pipeline,
}
"""Pipelines by name (``xlapy opt --pipeline=NAME``)."""


def make_pipeline(name: str, *, verify: bool = False) -> Pipeline:
    """The pipeline registered as ``name``."""
    factory = PIPELINES.get(name)
    if factory is None:
        known = ", ".join(sorted(PIPELINES))
        raise InvalidArgument(f"unknown pipeline {name!r}; known pipelines: {known}")
    return factory(verify=verify)
