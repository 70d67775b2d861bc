"""Maps against true dependencies, for random small shapes and attributes.

For every op the relation {(output index, operand index)} denoted by the maps is compared
with the one computed independently: numpy on inputs whose elements hold their own flat
index (data movement), or the nonzero pattern of a jacobian computed by JAX (reductions,
windows, contractions, convolutions, gather, scatter).
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from tests.indexing.conftest import parse_root
from tests.indexing.oracle import from_gather_values, from_jacobian, jacobian, relation
from xlapy.indexing.per_op import input_to_output, output_to_input

SEEDS = range(12)


def shape_text(dims: list[int], dtype: str = "f32") -> str:
    return f"{dtype}[{','.join(map(str, dims))}]"


def rand_dims(rng: random.Random, rank: int, lo: int = 1, hi: int = 4) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(rank)]


def check_o2i(root_text: str, operand: int, expected: set, **kw: object) -> None:
    root = parse_root(root_text)
    maps = output_to_input(root).maps[operand]
    got = relation(maps, list(root.operands[operand].shape.dims), **kw)  # type: ignore[arg-type]
    assert got == expected, root_text


def invert(rel: set) -> set:
    return {(b, a) for a, b in rel}


def check_i2o(root_text: str, operand: int, expected_o2i: set) -> None:
    """Input->output maps denote the inverse relation."""
    root = parse_root(root_text)
    maps = input_to_output(root, operand).maps[0]
    got = relation(maps, list(root.shape.dims))
    assert got == invert(expected_o2i), root_text


def gather_relation(out: np.ndarray, in_shape: list[int]) -> set:
    return from_gather_values(out, in_shape)


# ---- data movement (numpy on index-encoded inputs) -------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_broadcast(seed: int) -> None:
    rng = random.Random(seed)
    out = rand_dims(rng, rng.randint(1, 3))
    dims = sorted(rng.sample(range(len(out)), rng.randint(0, len(out))))
    src = [out[d] for d in dims]
    text = f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n ROOT b = {shape_text(out)} broadcast(p), dimensions={{{','.join(map(str, dims))}}} }}"
    x = np.arange(math.prod(src)).reshape(src)
    expanded = x.reshape([out[i] if i in dims else 1 for i in range(len(out))])
    rel = gather_relation(np.broadcast_to(expanded, out), src)
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)


@pytest.mark.parametrize("seed", SEEDS)
def test_transpose_and_reverse(seed: int) -> None:
    rng = random.Random(seed)
    src = rand_dims(rng, rng.randint(1, 4))
    perm = list(range(len(src)))
    rng.shuffle(perm)
    out = [src[p] for p in perm]
    x = np.arange(math.prod(src)).reshape(src)
    text = f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n ROOT t = {shape_text(out)} transpose(p), dimensions={{{','.join(map(str, perm))}}} }}"
    rel = gather_relation(np.transpose(x, perm), src)
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)
    rev = sorted(rng.sample(range(len(src)), rng.randint(0, len(src))))
    text = f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n ROOT r = {shape_text(src)} reverse(p), dimensions={{{','.join(map(str, rev))}}} }}"
    rel = gather_relation(np.flip(x, rev) if rev else x, src)
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)


@pytest.mark.parametrize("seed", SEEDS)
def test_slice(seed: int) -> None:
    rng = random.Random(seed)
    src = rand_dims(rng, rng.randint(1, 3), 1, 7)
    spec = []
    for n in src:
        start = rng.randint(0, n - 1)
        limit = rng.randint(start + 1, n)
        spec.append((start, limit, rng.randint(1, 3)))
    out = [len(range(a, b, c)) for a, b, c in spec]
    x = np.arange(math.prod(src)).reshape(src)
    sl = ", ".join(f"[{a}:{b}:{c}]" for a, b, c in spec)
    text = f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n ROOT s = {shape_text(out)} slice(p), slice={{{sl}}} }}"
    rel = gather_relation(x[tuple(slice(a, b, c) for a, b, c in spec)], src)
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)


def factorizations(n: int, rng: random.Random, rank: int) -> list[int]:
    dims = []
    for _ in range(rank - 1):
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        n //= d
    return [*dims, n]


@pytest.mark.parametrize("seed", range(30))
def test_reshape(seed: int) -> None:
    rng = random.Random(seed)
    total = rng.choice([1, 6, 12, 16, 24, 30, 36])
    src = factorizations(total, rng, rng.randint(1, 4))
    out = factorizations(total, rng, rng.randint(1, 4))
    x = np.arange(total).reshape(src)
    text = (
        f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n ROOT r = {shape_text(out)} reshape(p) }}"
    )
    rel = gather_relation(x.reshape(out), src)
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)


def layout_text(perm: list[int]) -> str:
    return "{" + ",".join(map(str, perm)) + "}"


def logical_from_physical(dims: list[int], minor_to_major: list[int]) -> np.ndarray:
    """Array of logical shape whose element is its offset in memory."""
    order = list(reversed(minor_to_major))
    physical = np.arange(math.prod(dims)).reshape([dims[d] for d in order])
    inverse = [order.index(i) for i in range(len(dims))]
    return np.transpose(physical, inverse)


@pytest.mark.parametrize("seed", range(30))
def test_bitcast_with_layouts(seed: int) -> None:
    rng = random.Random(seed)
    total = rng.choice([6, 12, 24, 30])
    src = factorizations(total, rng, rng.randint(1, 3))
    out = factorizations(total, rng, rng.randint(1, 3))
    src_layout = list(range(len(src)))
    out_layout = list(range(len(out)))
    rng.shuffle(src_layout)
    rng.shuffle(out_layout)
    text = (
        f"ENTRY e {{ p = {shape_text(src)}{layout_text(src_layout)} parameter(0)\n"
        f" ROOT b = {shape_text(out)}{layout_text(out_layout)} bitcast(p) }}"
    )
    src_offsets = logical_from_physical(src, src_layout)
    out_offsets = logical_from_physical(out, out_layout)
    # Output element o reads the input element at the same memory offset.
    where = {int(v): idx for idx, v in np.ndenumerate(src_offsets)}
    rel = {(o, where[int(v)]) for o, v in np.ndenumerate(out_offsets)}
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)


@pytest.mark.parametrize("seed", SEEDS)
def test_concatenate(seed: int) -> None:
    rng = random.Random(seed)
    base = rand_dims(rng, rng.randint(1, 3))
    d = rng.randrange(len(base))
    parts = []
    for _ in range(rng.randint(1, 3)):
        s = list(base)
        s[d] = rng.randint(1, 4)
        parts.append(s)
    out = list(base)
    out[d] = sum(p[d] for p in parts)
    params = "\n".join(f"p{i} = {shape_text(p)} parameter({i})" for i, p in enumerate(parts))
    args = ", ".join(f"p{i}" for i in range(len(parts)))
    text = f"ENTRY e {{ {params}\n ROOT c = {shape_text(out)} concatenate({args}), dimensions={{{d}}} }}"
    offset = 0
    for k, p in enumerate(parts):
        full = np.full(out, -1)
        idx = [slice(None)] * len(out)
        idx[d] = slice(offset, offset + p[d])
        full[tuple(idx)] = np.arange(math.prod(p)).reshape(p)
        rel = gather_relation(full, p)
        check_o2i(text, k, rel)
        check_i2o(text, k, rel)
        offset += p[d]


@pytest.mark.parametrize("seed", range(30))
def test_pad(seed: int) -> None:
    rng = random.Random(seed)
    src = rand_dims(rng, rng.randint(1, 2), 1, 4)
    cfg = [(rng.randint(-2, 2), rng.randint(-2, 2), rng.randint(0, 2)) for _ in src]
    out = [lo + hi + n + (n - 1) * i for n, (lo, hi, i) in zip(src, cfg, strict=True)]
    if min(out) <= 0:
        return
    padding = "x".join(f"{lo}_{hi}_{i}" for lo, hi, i in cfg)
    text = (
        f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n v = f32[] parameter(1)\n"
        f" ROOT r = {shape_text(out)} pad(p, v), padding={padding} }}"
    )
    # Reference: interior-dilate, then edge-pad (negative = crop), -1 marks padding.
    x = np.arange(math.prod(src)).reshape(src)
    for axis, (lo, hi, i) in enumerate(cfg):
        n = x.shape[axis]
        dilated = np.full([*x.shape[:axis], n + (n - 1) * i, *x.shape[axis + 1 :]], -1)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, None, i + 1)
        dilated[tuple(idx)] = x
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        padded = np.pad(dilated, widths, constant_values=-1)
        crop = [slice(None)] * x.ndim
        crop[axis] = slice(max(-lo, 0), padded.shape[axis] - max(-hi, 0))
        x = padded[tuple(crop)]
    check_o2i(text, 0, gather_relation(x, src))
    check_i2o(text, 0, gather_relation(x, src))
    value_rel = {(o, ()) for o, v in np.ndenumerate(x) if v == -1}
    check_o2i(text, 1, value_rel)
    check_i2o(text, 1, value_rel)


# ---- reductions and windows ------------------------------------------------------------------

ADD = "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_reduce(seed: int) -> None:
    rng = random.Random(seed)
    src = rand_dims(rng, rng.randint(1, 4))
    dims = sorted(rng.sample(range(len(src)), rng.randint(0, len(src))))
    out = [n for i, n in enumerate(src) if i not in dims]
    text = (
        ADD + f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n c = f32[] constant(0)\n"
        f" ROOT r = {shape_text(out)} reduce(p, c), dimensions={{{','.join(map(str, dims))}}}, to_apply=add }}"
    )
    rel = {
        (tuple(i for k, i in enumerate(idx) if k not in dims), idx)
        for idx in itertools.product(*[range(n) for n in src])
    }
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)
    init_rel = {(o, ()) for o in itertools.product(*[range(n) for n in out])}
    check_o2i(text, 1, init_rel)
    check_i2o(text, 1, init_rel)


def window_text(size, stride, pads, lhs, rhs) -> str:  # type: ignore[no-untyped-def]
    x = lambda v: "x".join(map(str, v))  # noqa: E731
    return (
        f"size={x(size)} stride={x(stride)} pad={x(f'{a}_{b}' for a, b in pads)} "
        f"lhs_dilate={x(lhs)} rhs_dilate={x(rhs)}"
    )


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(25))
def test_reduce_window(seed: int) -> None:
    jax = pytest.importorskip("jax")
    rng = random.Random(seed)
    rank = rng.randint(1, 2)
    src = rand_dims(rng, rank, 2, 5)
    size = rand_dims(rng, rank, 1, 3)
    stride = rand_dims(rng, rank, 1, 2)
    pads = [(rng.randint(0, 2), rng.randint(0, 2)) for _ in range(rank)]
    lhs = rand_dims(rng, rank, 1, 2)
    rhs = rand_dims(rng, rank, 1, 2)
    padded = [
        n + (n - 1) * (b - 1) + lo + hi for n, b, (lo, hi) in zip(src, lhs, pads, strict=True)
    ]
    windows = [(w - 1) * d + 1 for w, d in zip(size, rhs, strict=True)]
    if any(p < w for p, w in zip(padded, windows, strict=True)):
        return
    out = [(p - w) // s + 1 for p, w, s in zip(padded, windows, stride, strict=True)]
    text = (
        ADD + f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n c = f32[] constant(0)\n"
        f" ROOT r = {shape_text(out)} reduce-window(p, c), window={{{window_text(size, stride, pads, lhs, rhs)}}}, to_apply=add }}"
    )

    def fn(x):  # type: ignore[no-untyped-def]
        return jax.lax.reduce_window(x, 0.0, jax.lax.add, size, stride, pads, lhs, rhs)

    x = np.random.default_rng(seed).uniform(1, 2, src)
    rel = from_jacobian(jacobian(fn, [x], 0), out, src)
    check_o2i(text, 0, rel)
    check_i2o(text, 0, rel)


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_dot(seed: int) -> None:
    jax = pytest.importorskip("jax")
    rng = random.Random(seed)
    nb, nc = rng.randint(0, 1), rng.randint(0, 2)
    batch, contract = rand_dims(rng, nb), rand_dims(rng, nc)
    lfree, rfree = rand_dims(rng, rng.randint(0, 2)), rand_dims(rng, rng.randint(0, 2))
    lhs_dims, rhs_dims = batch + lfree + contract, batch + contract + rfree
    lb, lc = list(range(nb)), list(range(nb + len(lfree), nb + len(lfree) + nc))
    rb, rc = list(range(nb)), list(range(nb, nb + nc))
    out = batch + lfree + rfree
    j = lambda v: ",".join(map(str, v))  # noqa: E731
    text = (
        f"ENTRY e {{ a = {shape_text(lhs_dims)} parameter(0)\n b = {shape_text(rhs_dims)} parameter(1)\n"
        f" ROOT d = {shape_text(out)} dot(a, b), lhs_batch_dims={{{j(lb)}}}, rhs_batch_dims={{{j(rb)}}},"
        f" lhs_contracting_dims={{{j(lc)}}}, rhs_contracting_dims={{{j(rc)}}} }}"
    )

    def fn(a, b):  # type: ignore[no-untyped-def]
        return jax.lax.dot_general(a, b, ((lc, rc), (lb, rb)))

    g = np.random.default_rng(seed)
    args = [g.uniform(1, 2, lhs_dims), g.uniform(1, 2, rhs_dims)]
    for k, dims in enumerate((lhs_dims, rhs_dims)):
        rel = from_jacobian(jacobian(fn, args, k), out, dims)
        check_o2i(text, k, rel)
        check_i2o(text, k, rel)


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(25))
def test_convolution(seed: int) -> None:
    jax = pytest.importorskip("jax")
    rng = random.Random(seed)
    spatial = rng.randint(1, 2)
    fgc = rng.choice([1, 1, 2])
    bgc = 1 if fgc > 1 else rng.choice([1, 1, 2])
    batch = rng.randint(1, 2) * bgc
    in_feat = rng.randint(1, 2) * fgc
    out_feat = rng.randint(1, 2) * fgc * bgc
    src = rand_dims(rng, spatial, 2, 5)
    size = rand_dims(rng, spatial, 1, 3)
    stride = rand_dims(rng, spatial, 1, 2)
    pads = [(rng.randint(0, 1), rng.randint(0, 1)) for _ in range(spatial)]
    lhs_d = rand_dims(rng, spatial, 1, 2)
    rhs_d = rand_dims(rng, spatial, 1, 2)
    padded = [
        n + (n - 1) * (b - 1) + lo + hi for n, b, (lo, hi) in zip(src, lhs_d, pads, strict=True)
    ]
    windows = [(w - 1) * d + 1 for w, d in zip(size, rhs_d, strict=True)]
    if any(p < w for p, w in zip(padded, windows, strict=True)):
        return
    out_sp = [(p - w) // s + 1 for p, w, s in zip(padded, windows, stride, strict=True)]
    lhs_shape = [batch, *src, in_feat]
    rhs_shape = [in_feat // fgc, *size, out_feat]
    out_shape = [batch // bgc, *out_sp, out_feat]
    sp = "".join(map(str, range(spatial)))
    labels = f"b{sp}f_i{sp}o->b{sp}f"
    text = (
        f"ENTRY e {{ a = {shape_text(lhs_shape)} parameter(0)\n k = {shape_text(rhs_shape)} parameter(1)\n"
        f" ROOT c = {shape_text(out_shape)} convolution(a, k), window={{{window_text(size, stride, pads, lhs_d, rhs_d)}}},"
        f" dim_labels={labels}, feature_group_count={fgc}, batch_group_count={bgc} }}"
    )
    dn = ("N" + "HW"[:spatial] + "C", "I" + "HW"[:spatial] + "O", "N" + "HW"[:spatial] + "C")

    def fn(a, k):  # type: ignore[no-untyped-def]
        return jax.lax.conv_general_dilated(
            a, k, stride, pads, lhs_d, rhs_d, dn, feature_group_count=fgc, batch_group_count=bgc
        )

    g = np.random.default_rng(seed)
    args = [g.uniform(1, 2, lhs_shape), g.uniform(1, 2, rhs_shape)]
    for k, dims in enumerate((lhs_shape, rhs_shape)):
        rel = from_jacobian(jacobian(fn, args, k), out_shape, dims)
        check_o2i(text, k, rel)


# ---- data-dependent ops ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_dynamic_slice(seed: int) -> None:
    rng = random.Random(seed)
    src = rand_dims(rng, rng.randint(1, 2), 2, 5)
    sizes = [rng.randint(1, n) for n in src]
    starts = [rng.randint(-2, n + 2) for n in src]
    params = "\n".join(f"o{i} = s32[] parameter({i + 1})" for i in range(len(src)))
    args = ", ".join(f"o{i}" for i in range(len(src)))
    text = (
        f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n {params}\n"
        f" ROOT d = {shape_text(sizes)} dynamic-slice(p, {args}), dynamic_slice_sizes={{{','.join(map(str, sizes))}}} }}"
    )
    clamped = [min(max(s, 0), n - z) for s, n, z in zip(starts, src, sizes, strict=True)]
    x = np.arange(math.prod(src)).reshape(src)
    rel = gather_relation(
        x[tuple(slice(c, c + z) for c, z in zip(clamped, sizes, strict=True))], src
    )
    runtime = {f"o{i}": np.array(s) for i, s in enumerate(starts)}
    check_o2i(text, 0, rel, runtime=runtime)
    root = parse_root(text)
    got = relation(input_to_output(root, 0).maps[0], sizes, runtime)
    assert got == invert(rel)


@pytest.mark.parametrize("seed", SEEDS)
def test_dynamic_update_slice(seed: int) -> None:
    rng = random.Random(seed)
    out = rand_dims(rng, rng.randint(1, 2), 2, 5)
    upd = [rng.randint(1, n) for n in out]
    starts = [rng.randint(-2, n + 2) for n in out]
    params = "\n".join(f"o{i} = s32[] parameter({i + 2})" for i in range(len(out)))
    args = ", ".join(f"o{i}" for i in range(len(out)))
    text = (
        f"ENTRY e {{ p = {shape_text(out)} parameter(0)\n u = {shape_text(upd)} parameter(1)\n {params}\n"
        f" ROOT d = {shape_text(out)} dynamic-update-slice(p, u, {args}) }}"
    )
    clamped = [min(max(s, 0), n - z) for s, n, z in zip(starts, out, upd, strict=True)]
    full = np.full(out, -1)
    full[tuple(slice(c, c + z) for c, z in zip(clamped, upd, strict=True))] = np.arange(
        math.prod(upd)
    ).reshape(upd)
    rel = gather_relation(full, upd)
    runtime = {f"o{i}": np.array(s) for i, s in enumerate(starts)}
    check_o2i(text, 1, rel, runtime=runtime, in_bounds_only=True)
    root = parse_root(text)
    assert relation(input_to_output(root, 1).maps[0], out, runtime) == invert(rel)
    # The operand map is the identity: a superset of what is not overwritten.
    operand_rel = relation(output_to_input(root).maps[0], out)
    kept = {(o, o) for o, v in np.ndenumerate(full) if v == -1}
    assert kept <= operand_rel


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_gather(seed: int) -> None:
    jax = pytest.importorskip("jax")
    rng = random.Random(seed)
    operand = rand_dims(rng, rng.randint(1, 3), 2, 5)
    n_start = rng.randint(1, len(operand))
    start_index_map = sorted(rng.sample(range(len(operand)), n_start))
    collapsed = sorted(rng.sample(start_index_map, rng.randint(0, n_start)))
    slice_sizes = [1 if d in collapsed else rng.randint(1, n) for d, n in enumerate(operand)]
    batch = rand_dims(rng, rng.randint(0, 2), 1, 3)
    ivd = len(batch)
    indices = [*batch, n_start]
    offset_rank = len(operand) - len(collapsed)
    out_rank = len(batch) + offset_rank
    offset_dims = sorted(rng.sample(range(out_rank), offset_rank))
    out = [0] * out_rank
    bi = iter(batch)
    window = iter([s for d, s in enumerate(slice_sizes) if d not in collapsed])
    for d in range(out_rank):
        out[d] = next(window) if d in offset_dims else next(bi)
    j = lambda v: ",".join(map(str, v))  # noqa: E731
    text = (
        f"ENTRY e {{ p = {shape_text(operand)} parameter(0)\n idx = {shape_text(indices, 's32')} parameter(1)\n"
        f" ROOT g = {shape_text(out)} gather(p, idx), offset_dims={{{j(offset_dims)}}},"
        f" collapsed_slice_dims={{{j(collapsed)}}}, start_index_map={{{j(start_index_map)}}},"
        f" index_vector_dim={ivd}, slice_sizes={{{j(slice_sizes)}}} }}"
    )
    g = np.random.default_rng(seed)
    idx = g.integers(-2, max(operand) + 2, indices).astype(np.int32)
    dn = jax.lax.GatherDimensionNumbers(
        tuple(offset_dims), tuple(collapsed), tuple(start_index_map)
    )
    x = np.arange(math.prod(operand)).reshape(operand).astype(np.int64)
    values = np.asarray(
        jax.lax.gather(x, idx, dn, tuple(slice_sizes), mode=jax.lax.GatherScatterMode.CLIP)
    )
    rel = gather_relation(values, operand)
    check_o2i(text, 0, rel, runtime={"idx": idx})
    idx_rel = relation(output_to_input(parse_root(text)).maps[1], indices)
    expected = set()
    for o in itertools.product(*[range(n) for n in out]):
        b = tuple(o[d] for d in range(out_rank) if d not in offset_dims)
        expected |= {(o, (*b, k)) for k in range(n_start)}
    assert idx_rel == expected


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_scatter(seed: int) -> None:
    jax = pytest.importorskip("jax")
    rng = random.Random(seed)
    operand = rand_dims(rng, rng.randint(1, 2), 2, 5)
    n_idx = rng.randint(1, len(operand))
    to_operand = sorted(rng.sample(range(len(operand)), n_idx))
    inserted = sorted(rng.sample(to_operand, rng.randint(0, n_idx)))
    window = [rng.randint(1, n) for d, n in enumerate(operand) if d not in inserted]
    batch = rand_dims(rng, rng.randint(0, 2), 1, 3)
    indices = [*batch, n_idx]
    updates = [*batch, *window]
    update_window_dims = list(range(len(batch), len(updates)))
    j = lambda v: ",".join(map(str, v))  # noqa: E731
    text = (
        ADD
        + f"ENTRY e {{ p = {shape_text(operand)} parameter(0)\n idx = {shape_text(indices, 's32')} parameter(1)\n"
        f" u = {shape_text(updates)} parameter(2)\n"
        f" ROOT s = {shape_text(operand)} scatter(p, idx, u), update_window_dims={{{j(update_window_dims)}}},"
        f" inserted_window_dims={{{j(inserted)}}}, scatter_dims_to_operand_dims={{{j(to_operand)}}},"
        f" index_vector_dim={len(batch)}, to_apply=add }}"
    )
    g = np.random.default_rng(seed)
    idx = g.integers(-1, max(operand) + 1, indices).astype(np.int32)
    dn = jax.lax.ScatterDimensionNumbers(
        tuple(update_window_dims), tuple(inserted), tuple(to_operand)
    )

    def fn(p, u):  # type: ignore[no-untyped-def]
        return jax.lax.scatter_add(p, idx, u, dn, mode=jax.lax.GatherScatterMode.FILL_OR_DROP)

    args = [g.uniform(1, 2, operand), g.uniform(1, 2, updates)]
    rel = from_jacobian(jacobian(fn, args, 1), operand, updates)
    root = parse_root(text)
    got = relation(
        output_to_input(root).maps[2], updates, {"idx": idx}, clamp=False, in_bounds_only=True
    )
    assert got == rel, text
    check_o2i(text, 0, from_jacobian(jacobian(fn, args, 0), operand, operand))


# ---- composition: a random chain of ops in a fusion ---------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_fusion_chain_is_relational_composition(seed: int) -> None:
    rng = random.Random(seed)
    src = rand_dims(rng, 2, 2, 4)
    x = np.arange(math.prod(src)).reshape(src)
    body = [f"p0 = {shape_text(src)} parameter(0)"]
    cur, name = x, "p0"
    for k in range(rng.randint(1, 4)):
        op = rng.choice(["transpose", "reverse", "slice", "reshape", "broadcast_reduce"])
        new = f"v{k}"
        if op == "transpose":
            cur = cur.T
            body.append(
                f"{new} = {shape_text(list(cur.shape))} transpose({name}), dimensions={{1,0}}"
            )
        elif op == "reverse":
            cur = cur[::-1, :]
            body.append(f"{new} = {shape_text(list(cur.shape))} reverse({name}), dimensions={{0}}")
        elif op == "slice" and cur.shape[1] > 1:
            cur = cur[:, 1::2]
            body.append(
                f"{new} = {shape_text(list(cur.shape))} slice({name}), slice={{[0:{cur.shape[0]}:1], [1:{2 * cur.shape[1] + 1 if 2 * cur.shape[1] + 1 <= cur.shape[1] * 2 + 1 else 0}:2]}}"
            )
            body[-1] = (
                f"{new} = {shape_text(list(cur.shape))} slice({name}), "
                f"slice={{[0:{cur.shape[0]}:1], [1:{1 + 2 * (cur.shape[1] - 1) + 1}:2]}}"
            )
        elif op == "reshape":
            flat = cur.reshape(-1)
            cur = flat.reshape(cur.shape[1], cur.shape[0])
            body.append(f"{new} = {shape_text(list(cur.shape))} reshape({name})")
        else:
            continue
        name = new
    body[-1] = "ROOT " + body[-1] if len(body) > 1 else body[-1]
    if len(body) == 1:
        return
    out = list(cur.shape)
    text = (
        f"f {{ {chr(10).join(body)} }}\n"
        f"ENTRY e {{ p = {shape_text(src)} parameter(0)\n ROOT r = {shape_text(out)} fusion(p), kind=kLoop, calls=f }}"
    )
    check_o2i(text, 0, gather_relation(cur, src))
