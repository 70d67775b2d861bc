"""fusion_injective: the "reads each element once" test fusion uses to refuse recomputing an
expensive producer. Maps in text; the test checked against exhaustive enumeration on random
chains of data-movement ops (sound: never claims a map that repeats a point is injective;
complete on chains of permutations, reshapes and slices)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import xlapy
from xlapy.indexing import constant, parse_indexing_map
from xlapy.indexing.fusion import grouped_output_to_input
from xlapy.indexing.indexing_map import IndexingMap, compose
from xlapy.indexing.per_op import OperandIndexing, RuntimeVar
from xlapy.passes.fusion_injective import is_injective, reads_each_element_once

ADD = "add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }"


@pytest.mark.parametrize(
    ("text", "injective"),
    [
        ("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7]", True),
        ("(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]", True),
        (
            "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8), "
            "domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]",
            True,
        ),
        ("(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]", True),
        ("(d0, d1) -> (d0, -d1 + 7), domain: d0 in [0, 3], d1 in [0, 7]", True),
        ("(d0, d1) -> (d0 * 3 + 5, d1 * 7), domain: d0 in [0, 3], d1 in [0, 2]", True),
        ("(d0, d1) -> (d0, 0), domain: d0 in [0, 3], d1 in [0, 0]", True),
        # a strided pad: the constraint pins d0 mod 2, the floordiv then gives d0
        (
            "(d0) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 7], (d0 - 1) mod 2 in [0, 0]",
            True,
        ),
        ("(d0, d1) -> (d1), domain: d0 in [0, 3], d1 in [0, 7]", False),
        ("(d0) -> (d0 floordiv 2), domain: d0 in [0, 7]", False),
        ("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [0, 2]", False),
        ("(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 3], s0 in [0, 1]", True),
        ("(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 3], s0 in [0, 2]", False),
        ("(d0, d1) -> (d0 + d1), domain: d0 in [0, 3], d1 in [0, 3]", False),
        ("(d0) -> (), domain: d0 in [0, 3]", False),
        ("() -> (3)", True),
    ],
)
def test_maps(text, injective):
    m = IndexingMap([constant(3)], []) if text == "() -> (3)" else parse_indexing_map(text)
    assert is_injective(m) is injective
    assert _injective_by_enumeration(m) is injective


def test_undefined_and_empty_maps():
    assert not is_injective(IndexingMap.undefined())
    empty = parse_indexing_map("(d0) -> (d0), domain: d0 in [0, 3], d0 in [5, 6]")
    assert empty.is_known_empty
    assert is_injective(empty)


def test_reads_once_needs_one_path_and_fixed_runtime_offsets():
    identity = OperandIndexing(parse_indexing_map("(d0) -> (d0), domain: d0 in [0, 7]"))
    reverse = OperandIndexing(parse_indexing_map("(d0) -> (-d0 + 7), domain: d0 in [0, 7]"))
    assert reads_each_element_once([identity])
    assert not reads_each_element_once([identity, reverse])  # p + reverse(p)
    assert reads_each_element_once([])
    sliced = parse_indexing_map("(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 2], rt0 in [0, 5]")
    index = xlapy.load("HloModule m\nENTRY e { ROOT i = s32[] parameter(0) }").entry.root
    fixed = RuntimeVar(index, parse_indexing_map("(d0) -> (), domain: d0 in [0, 2]"))
    assert reads_each_element_once([OperandIndexing(sliced, (fixed,))])  # dynamic-slice
    varying = RuntimeVar(index, parse_indexing_map("(d0) -> (d0), domain: d0 in [0, 2]"))
    assert not reads_each_element_once([OperandIndexing(sliced, (varying,))])  # gather-like


def test_known_empty_composition_stays_empty():
    """compose() of a KNOWN EMPTY map without variables is KNOWN EMPTY (it used to come
    out as a map reading element 0; fusion's maps through empty concatenate pieces)."""
    empty = IndexingMap([constant(1)], [], constraints=[(constant(1), (0, 0))])
    assert empty.is_known_empty
    second = parse_indexing_map("(d0) -> (d0), domain: d0 in [0, 3]")
    assert compose(empty, second).is_known_empty


def _injective_by_enumeration(m: IndexingMap) -> bool:
    points = m.domain_points()
    n = m.num_dims
    dims = [points[:, i] for i in range(n)]
    syms = [points[:, n + j] for j in range(m.num_symbols)]
    values = [np.broadcast_to(np.asarray(v), (len(points),)) for v in m.evaluate(dims, syms)]
    results = {tuple(int(v[k]) for v in values) for k in range(len(points))}
    return len(results) == len(points)


# ---- random chains of data movement -------------------------------------------------------


def _factor(n: int, rng: np.random.Generator) -> list[int]:
    dims = []
    while n > 1 and len(dims) < 2:
        divisors = [d for d in range(2, n + 1) if n % d == 0]
        d = int(rng.choice(divisors))
        dims.append(d)
        n //= d
    dims.append(n)
    return [int(x) for x in rng.permutation(dims)]


def _op(name: str, x: str, dims: list[int], rng: np.random.Generator, permuting: bool):
    """One random op reading ``x`` of shape ``dims``: (HLO line, result dims)."""
    kinds = ["transpose", "reshape", "reverse", "slice"]
    if not permuting:
        kinds += ["pad", "broadcast", "window", "concatenate", "reduce"]
    kind = str(rng.choice(kinds))
    shape = lambda ds: f"f32[{','.join(map(str, ds))}]"  # noqa: E731
    rank = len(dims)
    if kind == "transpose":
        perm = [int(p) for p in rng.permutation(rank)]
        out = [dims[p] for p in perm]
        return (
            f"{name} = {shape(out)} transpose({x}), dimensions={{{','.join(map(str, perm))}}}",
            out,
        )
    if kind == "reshape":
        out = _factor(math.prod(dims), rng)
        return f"{name} = {shape(out)} reshape({x})", out
    if kind == "reverse":
        axes = sorted({int(a) for a in rng.integers(0, rank, 2)})
        return (
            f"{name} = {shape(dims)} reverse({x}), dimensions={{{','.join(map(str, axes))}}}",
            dims,
        )
    if kind == "slice":
        spec, out = [], []
        for d in dims:
            start, stride = int(rng.integers(0, (d + 1) // 2)), int(rng.integers(1, 3))
            spec.append(f"[{start}:{d}:{stride}]")
            out.append(len(range(start, d, stride)))
        return f"{name} = {shape(out)} slice({x}), slice={{{', '.join(spec)}}}", out
    if kind == "pad":
        low, high, inner = (
            rng.integers(-1, 3, rank),
            rng.integers(0, 2, rank),
            rng.integers(0, 2, rank),
        )
        out = [
            int(d + lo + hi + (d - 1) * i)
            for d, lo, hi, i in zip(dims, low, high, inner, strict=True)
        ]
        if min(out) <= 0:
            return _op(name, x, dims, rng, permuting=True)
        padding = "x".join(f"{lo}_{hi}_{i}" for lo, hi, i in zip(low, high, inner, strict=True))
        return f"{name} = {shape(out)} pad({x}, f32[] constant(0)), padding={padding}", out
    if kind == "broadcast":
        out = [*dims, int(rng.integers(1, 4))]
        return (
            f"{name} = {shape(out)} broadcast({x}), dimensions={{{','.join(map(str, range(rank)))}}}",
            out,
        )
    if kind == "window":
        size, stride = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        if dims[-1] < size:
            return _op(name, x, dims, rng, permuting=True)
        out = [*dims[:-1], (dims[-1] - size) // stride + 1]
        window = "x".join(["1"] * (rank - 1) + [str(size)])
        strides = "x".join(["1"] * (rank - 1) + [str(stride)])
        return (
            f"{name} = {shape(out)} reduce-window({x}, f32[] constant(0)), "
            f"window={{size={window} stride={strides}}}, to_apply=add",
            out,
        )
    if kind == "concatenate":
        axis = int(rng.integers(0, rank))
        out = [d * 2 if k == axis else d for k, d in enumerate(dims)]
        return f"{name} = {shape(out)} concatenate({x}, {x}), dimensions={{{axis}}}", out
    axis = int(rng.integers(0, rank))
    out = [d for k, d in enumerate(dims) if k != axis] or []
    return (
        f"{name} = {shape(out)} reduce({x}, f32[] constant(0)), dimensions={{{axis}}}, to_apply=add",
        out,
    )


def _chain_maps(seed: int, permuting: bool) -> list[IndexingMap]:
    rng = np.random.default_rng(seed)
    dims = [int(d) for d in rng.integers(1, 5, int(rng.integers(1, 3)))]
    lines = [f"x0 = f32[{','.join(map(str, dims))}] parameter(0)"]
    for k in range(int(rng.integers(1, 4))):
        if not dims:
            break
        line, dims = _op(f"x{k + 1}", f"x{k}", dims, rng, permuting)
        lines.append(line)
    module = xlapy.load(f"HloModule m\n{ADD}\nENTRY e {{\n  " + "\n  ".join(lines) + "\n}")
    grouped = grouped_output_to_input(module.entry)
    return [oi.map for oi in grouped[module.entry.parameter(0)]]


@pytest.mark.parametrize("seed", range(120))
def test_never_claims_injective_for_a_map_that_repeats_points(seed):
    for m in _chain_maps(seed, permuting=False):
        if is_injective(m):
            assert _injective_by_enumeration(m), m.to_string()


@pytest.mark.parametrize("seed", range(40))
def test_proves_chains_of_permutations_reshapes_and_slices(seed):
    for m in _chain_maps(seed, permuting=True):
        assert is_injective(m), m.to_string()
