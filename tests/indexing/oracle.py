"""Oracle helpers: the (output index, operand index) relation a set of maps denotes, and
true dependencies computed independently of the analysis."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from xlapy.indexing.per_op import OperandIndexing
from xlapy.ir.instruction import HloInstruction

Relation = set[tuple[tuple[int, ...], tuple[int, ...]]]


def relation(
    maps: Sequence[OperandIndexing],
    operand_dims: Sequence[int],
    runtime: Mapping[str, np.ndarray] | None = None,
    *,
    clamp: bool = True,
    in_bounds_only: bool = False,
) -> Relation:
    """Pairs (output index, operand index) over the domain of every map.

    Runtime variables take the value of ``runtime[instruction name]`` at their map's result,
    clamped into the variable's bounds (``clamp``) or, for scatter, dropped when outside.
    Without ``in_bounds_only`` every result must lie inside the operand.
    """
    pairs: Relation = set()
    for oi in maps:
        m = oi.map
        assert not m.is_undefined
        points = m.domain_points()
        n, n_range = m.num_dims, len(m.range_vars)
        keep = np.ones(len(points), dtype=bool)
        for k, rt in enumerate(oi.rt_vars):
            assert runtime is not None
            values = runtime[rt.instruction.name]
            dims = [points[:, i] for i in range(n)]
            syms = [points[:, n + j] for j in range(rt.map.num_symbols)]
            index = [
                np.broadcast_to(np.asarray(v), (len(points),)) for v in rt.map.evaluate(dims, syms)
            ]
            raw = values[tuple(index)] if index else np.broadcast_to(values, (len(points),))
            bounds = m.rt_vars[k].bounds
            actual = np.clip(raw, bounds.lower, bounds.upper) if clamp else raw
            keep &= points[:, n + n_range + k] == actual
        points = points[keep]
        dims = [points[:, i] for i in range(n)]
        syms = [points[:, n + j] for j in range(m.num_symbols)]
        results = [np.broadcast_to(np.asarray(v), (len(points),)) for v in m.evaluate(dims, syms)]
        for row, point in enumerate(points):
            target = tuple(int(r[row]) for r in results)
            inside = all(0 <= t < s for t, s in zip(target, operand_dims, strict=True))
            if not inside:
                assert in_bounds_only, f"map {m} yields {target} outside {list(operand_dims)}"
                continue
            pairs.add((tuple(int(x) for x in point[:n]), target))
    return pairs


def from_gather_values(
    values: np.ndarray, operand_shape: Sequence[int], missing: int = -1
) -> Relation:
    """``values[o]`` holds the flat index of the operand element output ``o`` reads."""
    pairs: Relation = set()
    for o in itertools.product(*[range(s) for s in values.shape]):
        v = int(values[o])
        if v != missing:
            pairs.add((o, tuple(int(x) for x in np.unravel_index(v, operand_shape))))
    return pairs


def from_jacobian(jac: np.ndarray, out_shape: Sequence[int], in_shape: Sequence[int]) -> Relation:
    """Nonzero entries of d(output)/d(operand) (shape out_shape + in_shape)."""
    nz = np.argwhere(np.abs(np.asarray(jac).reshape(*out_shape, *in_shape)) > 0)
    r = len(out_shape)
    return {(tuple(int(x) for x in row[:r]), tuple(int(x) for x in row[r:])) for row in nz}


def jacobian(fn: Callable[..., object], args: Sequence[np.ndarray], argnum: int) -> np.ndarray:
    import jax

    with jax.enable_x64(True):  # scoped: other tests in this worker expect 32-bit defaults
        jac = jax.jacfwd(fn, argnums=argnum)(*[np.asarray(a, np.float64) for a in args])
        return np.asarray(jac)


def shape_of(instr: HloInstruction) -> list[int]:
    return list(instr.shape.dims)
