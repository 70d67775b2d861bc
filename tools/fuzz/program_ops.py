"""Drawers of one instruction each (``draw_<op>(builder, computation, entry)``): elementwise
ops of every kind, compare, select, clamp, convert, bitcast-convert, data movement, reductions
and reduce-windows, dot, iota, dynamic slices, sort, gather, scatter and rng-bit-generator;
each returns the new value, with the bound its op and operands give (``bounds``). ``entry``:
drawing in the entry computation, which may add parameters (with drawn arguments)."""

from __future__ import annotations

import math

import ml_dtypes
from hypothesis import strategies as st

from tools.fuzz import bounds
from tools.fuzz.bounds import BITS, Bound
from tools.fuzz.program_values import (
    DIMS,
    DIRECTIONS,
    FLOAT_BINARY,
    FLOAT_UNARY,
    INT_BINARY,
    INT_UNARY,
    PRED,
    PRED_BINARY,
    TYPES,
    Builder,
    Computation,
    Value,
    specials,
)
from xlapy import dtypes
from xlapy.dtypes import ElementType

# ---- ops ----------------------------------------------------------------------------------------


def pick(b: Builder, comp: Computation) -> Value:
    return b.draw(st.sampled_from(comp.values))


def same(b: Builder, comp: Computation, v: Value, entry: bool) -> Value:
    """Another value of ``v``'s type and dims: an existing one, a new parameter, or (one time
    in four) a corner of the type as a constant, which LLVM sees and may fold against (it
    folded ``max(INT_MIN, x) + INT_MIN`` by assuming no signed overflow)."""
    like = [w for w in comp.values if w.type is v.type and w.dims == v.dims]
    if b.draw(st.integers(0, 3)) == 0:
        c = b.constant(comp, v.type, b.draw(st.sampled_from(specials(v.type))))  # type: ignore[arg-type]
        if not v.dims:
            return c
        out = Value(b.fresh("bc"), v.type, v.dims)
        return b.emit(comp, out, f"broadcast({c.name}), dimensions={{}}")
    if entry and b.draw(st.booleans()):
        return b.param(comp, v.type, v.dims, entry)
    return b.draw(st.sampled_from(like))


def draw_unary(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if v.type is PRED:
        return b.emit(comp, Value(b.fresh("not"), PRED, v.dims, v.moved), f"not({v.name})")
    ops = FLOAT_UNARY if v.type.is_float else INT_UNARY
    if v.type.is_unsigned:
        ops = tuple(o for o in ops if o not in ("abs", "sign"))
    op = b.draw(st.sampled_from(ops))
    bound = bounds.after_op(op, v.type, [v.bound])
    return b.emit(
        comp, Value(b.fresh(op), v.type, v.dims, bound, nan_bits=False), f"{op}({v.name})"
    )


def draw_binary(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    w = same(b, comp, v, entry)
    ops = PRED_BINARY if v.type is PRED else FLOAT_BINARY if v.type.is_float else INT_BINARY
    op = b.draw(st.sampled_from(ops))
    bound = bounds.after_op(op, v.type, [v.bound, w.bound])
    out = Value(b.fresh(op), v.type, v.dims, bound, nan_bits=False)
    return b.emit(comp, out, f"{op}({v.name}, {w.name})")


def draw_compare(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    w = same(b, comp, v, entry)
    d = b.draw(st.sampled_from(DIRECTIONS))
    kind = ""
    if v.type.is_float and v.nan_bits and w.nan_bits and b.draw(st.booleans()):
        kind = ", type=TOTALORDER"
    out = Value(b.fresh("cmp"), PRED, v.dims, bounds.after_op("compare", PRED, [v.bound, w.bound]))
    return b.emit(comp, out, f"compare({v.name}, {w.name}), direction={d}{kind}")


def draw_select(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    w = same(b, comp, v, entry)
    preds = [p for p in comp.values if p.type is PRED and p.dims in (v.dims, ())]
    if preds:
        p = b.draw(st.sampled_from(preds))
    elif entry:
        p = b.param(comp, PRED, v.dims, entry)
    else:
        p = b.emit(comp, Value(b.fresh("cmp"), PRED, v.dims,
                               bounds.after_op("compare", PRED, [v.bound, w.bound])),
                   f"compare({v.name}, {w.name}), direction=LT")  # fmt: skip
    if p.dims != v.dims:
        p = b.emit(comp, Value(b.fresh("bp"), PRED, v.dims, p.bound),
                   f"broadcast({p.name}), dimensions={{}}")  # fmt: skip
    out = Value(
        b.fresh("sel"),
        v.type,
        v.dims,
        bounds.join(v.type, v.moved, w.moved) if p.exact else bounds.degraded(v.type),
        nan_bits=v.nan_bits and w.nan_bits,
    )
    return b.emit(comp, out, f"select({p.name}, {v.name}, {w.name})")


def draw_clamp(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    lo, hi = same(b, comp, v, entry), same(b, comp, v, entry)
    bound = bounds.after_op("clamp", v.type, [lo.bound, v.bound, hi.bound])
    out = Value(b.fresh("clamp"), v.type, v.dims, bound, nan_bits=False)
    return b.emit(comp, out, f"clamp({lo.name}, {v.name}, {hi.name})")


def draw_convert(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    t = b.draw(st.sampled_from(TYPES))
    return b.emit(
        comp,
        Value(b.fresh("cvt"), t, v.dims, bounds.converted(v.type, t, v.moved), nan_bits=False),
        f"convert({v.name})",
    )


def draw_bitcast(b: Builder, comp: Computation, entry: bool) -> Value:
    """Same-width types keep the dims; a narrower type adds a minor dim of the width ratio,
    a wider one consumes a minor dim of that size (types of 8 bits or more)."""
    v = pick(b, comp)
    if v.type is PRED or (v.type.is_float and not v.nan_bits):
        return draw_convert(b, comp, entry)
    fits = [t for t in TYPES if t is not PRED and t.bits == v.type.bits]
    if v.type.bits >= 8:
        fits += [t for t in TYPES if t is not PRED and 8 <= t.bits < v.type.bits]
        if v.dims:
            fits += [
                t for t in TYPES if t.bits > v.type.bits and t.bits == v.type.bits * v.dims[-1]
            ]
    t = b.draw(st.sampled_from(fits))
    dims = v.dims
    if t.bits < v.type.bits:
        dims = (*v.dims, v.type.bits // t.bits)
    elif t.bits > v.type.bits:
        dims = v.dims[:-1]
    return b.emit(
        comp,
        Value(b.fresh("bc"), t, dims, BITS if v.exact else bounds.degraded(t), nan_bits=v.nan_bits),
        f"bitcast-convert({v.name})",
    )


def draw_broadcast(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if len(v.dims) >= 3:
        return draw_reverse(b, comp, entry)
    at = b.draw(st.integers(0, len(v.dims)))
    size = b.draw(st.sampled_from(DIMS))
    dims = (*v.dims[:at], size, *v.dims[at:])
    mapping = [i for i in range(len(dims)) if i != at]
    out = Value(b.fresh("bcast"), v.type, dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"broadcast({v.name}), dimensions={{{','.join(map(str, mapping))}}}"
    )


def draw_reshape(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    n = math.prod(v.dims)
    options = [(n,), (1, n), (n, 1)]
    options += [(d, n // d) for d in (2, 3, 5) if n and n % d == 0]
    if n == 0:
        options += [(0, 3), (2, 0, 1)]
    if n == 1:
        options += [(), (1, 1, 1)]
    dims = b.draw(st.sampled_from(options))
    out = Value(b.fresh("rs"), v.type, dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(comp, v, out, f"reshape({v.name})")


def draw_transpose(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    perm = b.draw(st.permutations(range(len(v.dims))))
    dims = tuple(v.dims[p] for p in perm)
    out = Value(b.fresh("tr"), v.type, dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"transpose({v.name}), dimensions={{{','.join(map(str, perm))}}}"
    )


def draw_slice(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    parts, dims = [], []
    for d in v.dims:
        start = b.draw(st.integers(0, d))
        limit = b.draw(st.integers(start, d))
        stride = b.draw(st.integers(1, 3))
        parts.append(f"[{start}:{limit}:{stride}]")
        dims.append(-(-(limit - start) // stride))
    out = Value(b.fresh("sl"), v.type, tuple(dims), v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(comp, v, out, f"slice({v.name}), slice={{{', '.join(parts)}}}")


def draw_concatenate(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if not v.dims:
        return draw_broadcast(b, comp, entry)
    d = b.draw(st.integers(0, len(v.dims) - 1))
    extra = b.draw(st.sampled_from(DIMS))
    w_dims = (*v.dims[:d], extra, *v.dims[d + 1 :])
    like = [u for u in comp.values if u.type is v.type and u.dims == w_dims]
    w = b.draw(st.sampled_from(like)) if like else b.param(comp, v.type, w_dims, entry)
    dims = (*v.dims[:d], v.dims[d] + extra, *v.dims[d + 1 :])
    out = Value(
        b.fresh("cat"),
        v.type,
        dims,
        bounds.join(v.type, v.moved, w.moved),
        nan_bits=v.nan_bits and w.nan_bits,
    )
    return b.emit(comp, out, f"concatenate({v.name}, {w.name}), dimensions={{{d}}}")


def draw_pad(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    x = b.draw(st.sampled_from(specials(v.type)))
    pv = b.constant(comp, v.type, x)  # type: ignore[arg-type]
    parts, dims = [], []
    for d in v.dims:
        interior = b.draw(st.integers(0, 2)) if d else 0
        size = d + max(d - 1, 0) * interior
        lo = b.draw(st.integers(-size, 2))
        hi = b.draw(st.integers(-(size + lo), 2)) if size + lo >= 0 else 0
        if size + lo < 0:
            lo = -size
        parts.append(f"{lo}_{hi}" + (f"_{interior}" if interior else ""))
        dims.append(size + lo + hi)
    if not parts:
        return draw_unary(b, comp, entry)
    out = Value(b.fresh("pad"), v.type, tuple(dims), v.moved, nan_bits=v.nan_bits)
    return b.emit(comp, out, f"pad({v.name}, {pv.name}), padding={'x'.join(parts)}")


def draw_reverse(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    axes = sorted(b.draw(st.sets(st.integers(0, max(len(v.dims) - 1, 0)))) if v.dims else [])
    out = Value(b.fresh("rev"), v.type, v.dims, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"reverse({v.name}), dimensions={{{','.join(map(str, axes))}}}"
    )


def _reducer(b: Builder, t: ElementType) -> tuple[str, object, str]:
    """(computation, init value, kind) of a drawn reduction over ``t``."""
    if t is PRED:
        kind = b.draw(st.sampled_from(("and", "or")))
        return b.scalar_computation(kind, t), kind == "and", kind
    kind = b.draw(st.sampled_from(("add", "maximum", "minimum", "multiply")))
    init = {"add": 0, "multiply": 1}.get(kind)
    if init is None:
        init = -math.inf if kind == "maximum" else math.inf
        if t.is_integer:
            info = ml_dtypes.iinfo(t.numpy)
            init = int(info.min) if kind == "maximum" else int(info.max)
    return b.scalar_computation(kind, t), init, kind


def _reduced_bound(
    b: Builder,
    comp: Computation,
    v: Value,
    kind: str,
    terms: int,
    dims: tuple[int, ...],
    opcode: str,
    where: str,
) -> Bound:
    """The bound of a reduction (``opcode``: reduce or reduce-window) of ``v`` by ``kind`` over
    ``terms`` elements each (``where``: the op's attributes, e.g. ``dimensions={0}``, for the
    companions reducing magnitudes the same way): float sums and products reassociate on
    cpu."""
    if not v.type.is_float:
        return v.moved if v.exact else bounds.degraded(v.type)
    if kind in ("maximum", "minimum"):
        return bounds.join(v.type, v.moved)
    if v.bound.kind not in bounds.PRESERVING:
        return bounds.degraded(v.type)
    mag = b.magnitude(comp, v)
    if kind == "add":
        zero = b.f64_constant(comp, 0.0, ())
        add = b.scalar_computation("add", dtypes.F64)
        total = b.companion(comp, dims, f"{opcode}({mag}, {zero}), {where}, to_apply={add}")
        return bounds.accumulated("sum", v.type, terms, v.bound, (total,))
    one, ones = b.f64_constant(comp, 1.0, ()), b.f64_constant(comp, 1.0, v.dims)
    zeros = b.f64_constant(comp, 0.0, v.dims)
    multiply = b.scalar_computation("multiply", dtypes.F64)
    high = b.companion(comp, v.dims, f"maximum({mag}, {ones})")
    low = b.companion(comp, v.dims, f"minimum({mag}, {ones})")
    pv = b.companion(comp, v.dims, f"compare({mag}, {zeros}), direction=EQ", "pred")
    low = b.companion(comp, v.dims, f"select({pv}, {ones}, {low})")
    scales = tuple(
        b.companion(comp, dims, f"{opcode}({x}, {one}), {where}, to_apply={multiply}")
        for x in (high, low)
    )
    return bounds.accumulated("product", v.type, terms, v.bound, scales)


def draw_reduce(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    axes = sorted(b.draw(st.sets(st.integers(0, max(len(v.dims) - 1, 0)))) if v.dims else [])
    reducer, init, kind = _reducer(b, v.type)
    c = b.constant(comp, v.type, init)  # type: ignore[arg-type]
    dims = tuple(d for i, d in enumerate(v.dims) if i not in axes)
    where = f"dimensions={{{','.join(map(str, axes))}}}"
    terms = math.prod(v.dims[i] for i in axes) + 1
    bound = _reduced_bound(b, comp, v, kind, terms, dims, "reduce", where)
    out = Value(b.fresh("red"), v.type, dims, bound, nan_bits=False)
    return b.emit(comp, out, f"reduce({v.name}, {c.name}), {where}, to_apply={reducer}")


def draw_reduce_window(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if not v.dims:
        return draw_reduce(b, comp, entry)
    reducer, init, kind = _reducer(b, v.type)
    c = b.constant(comp, v.type, init)  # type: ignore[arg-type]
    sizes, strides, pads, dims = [], [], [], []
    for d in v.dims:
        lo, hi = b.draw(st.integers(0, 2)), b.draw(st.integers(0, 2))
        size = b.draw(st.integers(1, max(1, d + lo + hi)))
        stride = b.draw(st.integers(1, 3))
        sizes.append(size)
        strides.append(stride)
        pads.append(f"{lo}_{hi}")
        span = d + lo + hi - size
        dims.append(span // stride + 1 if span >= 0 else 0)
    window = (f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} "
              f"pad={'x'.join(pads)}")  # fmt: skip
    terms = math.prod(sizes) + 1
    where = f"window={{{window}}}"
    bound = _reduced_bound(b, comp, v, kind, terms, tuple(dims), "reduce-window", where)
    out = Value(b.fresh("rw"), v.type, tuple(dims), bound, nan_bits=False)
    text = f"reduce-window({v.name}, {c.name}), window={{{window}}}, to_apply={reducer}"
    return b.emit(comp, out, text)


def draw_dot(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if v.type is PRED or len(v.dims) != 2 or v.type.bits < 8:
        return draw_binary(b, comp, entry)
    n = b.draw(st.sampled_from(DIMS))
    w_dims = (v.dims[1], n)
    like = [u for u in comp.values if u.type is v.type and u.dims == w_dims]
    w = b.draw(st.sampled_from(like)) if like else b.param(comp, v.type, w_dims, entry)
    dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
    operands = bounds.join(v.type, v.moved, w.moved)
    if v.type.is_float and operands.kind in bounds.PRESERVING:
        size = f"dot({b.magnitude(comp, v)}, {b.magnitude(comp, w)}), {dims}"
        scale = b.companion(comp, (v.dims[0], n), size)
        bound = bounds.accumulated("dot", v.type, v.dims[1], operands, (scale,))
    else:
        bound = operands if operands.exact else bounds.degraded(v.type)
    out = Value(b.fresh("dot"), v.type, (v.dims[0], n), bound, nan_bits=False)
    return b.emit(comp, out, f"dot({v.name}, {w.name}), {dims}")


def draw_iota(b: Builder, comp: Computation, entry: bool) -> Value:
    t = b.draw(st.sampled_from(TYPES[:-1]))
    rank = b.draw(st.integers(1, 3))
    dims = tuple(b.draw(st.sampled_from(DIMS)) for _ in range(rank))
    d = b.draw(st.integers(0, rank - 1))
    return b.emit(comp, Value(b.fresh("iota"), t, dims), f"iota(), iota_dimension={d}")


def _indices(b: Builder, comp: Computation, rank: int, entry: bool) -> list[Value]:
    t = b.draw(st.sampled_from((dtypes.S32, dtypes.S64, dtypes.U32, dtypes.S8)))
    out = []
    for _ in range(rank):
        if entry and b.draw(st.booleans()):
            out.append(b.param(comp, t, (), entry))
        else:
            low = 0 if t.is_unsigned else -3
            out.append(b.constant(comp, t, b.draw(st.integers(low, 6))))
    return out


def draw_dynamic_slice(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    sizes = tuple(b.draw(st.integers(0, d)) for d in v.dims)
    idx = _indices(b, comp, len(v.dims), entry)
    names = ", ".join([v.name, *(i.name for i in idx)])
    out = Value(b.fresh("ds"), v.type, sizes, v.bound, nan_bits=v.nan_bits)
    return b.emit_moved(
        comp, v, out, f"dynamic-slice({names}), dynamic_slice_sizes={{{','.join(map(str, sizes))}}}"
    )


def draw_dynamic_update_slice(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    sizes = tuple(b.draw(st.integers(0, d)) for d in v.dims)
    like = [u for u in comp.values if u.type is v.type and u.dims == sizes]
    u = b.draw(st.sampled_from(like)) if like else b.param(comp, v.type, sizes, entry)
    idx = _indices(b, comp, len(v.dims), entry)
    names = ", ".join([v.name, u.name, *(i.name for i in idx)])
    out = Value(
        b.fresh("dus"),
        v.type,
        v.dims,
        bounds.join(v.type, v.moved, u.moved),
        nan_bits=v.nan_bits and u.nan_bits,
    )
    return b.emit(comp, out, f"dynamic-update-slice({names})")


def draw_sort(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if not v.dims or v.type is PRED or (v.type.is_float and not v.nan_bits):
        return draw_reverse(b, comp, entry)
    d = b.draw(st.integers(0, len(v.dims) - 1))
    lt = b.scalar_computation("lt", v.type)
    # the j-th smallest of values each within k ulps of the interpreter's is within k ulps
    bound = bounds.join(v.type, v.moved)
    out = Value(b.fresh("sort"), v.type, v.dims, bound, nan_bits=v.nan_bits)
    return b.emit(comp, out, f"sort({v.name}), dimensions={{{d}}}, is_stable=true, to_apply={lt}")


def _row_indices(b: Builder, comp: Computation, entry: bool) -> Value:
    """``s32[n,1]`` start rows (any values: out-of-range ones clamp or are skipped)."""
    n = b.draw(st.sampled_from(DIMS))
    t = b.draw(st.sampled_from((dtypes.S32, dtypes.S64, dtypes.U8)))
    return b.param(comp, t, (n, 1), entry)


def draw_gather(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if not v.dims or not v.dims[0] or not entry:
        return draw_reverse(b, comp, entry)
    idx = _row_indices(b, comp, entry)
    rest = v.dims[1:]
    offsets = ",".join(str(k) for k in range(1, len(v.dims)))
    sizes = ",".join(map(str, (1, *rest)))
    out = Value(b.fresh("gather"), v.type, (idx.dims[0], *rest), v.bound, nan_bits=v.nan_bits)
    text = (f"gather({v.name}, {idx.name}), offset_dims={{{offsets}}}, "
            f"collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, "
            f"slice_sizes={{{sizes}}}")  # fmt: skip
    return b.emit_moved(comp, v, out, text)


def draw_scatter(b: Builder, comp: Computation, entry: bool) -> Value:
    v = pick(b, comp)
    if not v.dims or not entry or v.type is PRED:
        return draw_reverse(b, comp, entry)
    idx = _row_indices(b, comp, entry)
    rest = v.dims[1:]
    updates = b.param(comp, v.type, (idx.dims[0], *rest), entry)
    kind = b.draw(st.sampled_from(("add", "maximum", "minimum")))
    combiner = b.scalar_computation(kind, v.type)
    windows = ",".join(str(k) for k in range(1, len(v.dims)))
    where = (f"update_window_dims={{{windows}}}, inserted_window_dims={{0}}, "
             f"scatter_dims_to_operand_dims={{0}}, index_vector_dim=1")  # fmt: skip
    # duplicate rows combine in an unspecified order: exact for integers only
    if not v.type.is_float:
        bound = v.moved if v.exact else bounds.degraded(v.type)
    elif not v.exact:
        bound = bounds.degraded(v.type)
    elif kind == "add":
        add = b.scalar_computation("add", dtypes.F64)
        total = b.companion(comp, v.dims, f"scatter({b.magnitude(comp, v)}, {idx.name}, "
                            f"{b.magnitude(comp, updates)}), {where}, to_apply={add}")  # fmt: skip
        bound = bounds.accumulated("sum", v.type, idx.dims[0] + 1, v.bound, (total,))
    else:
        bound = Bound("unordered")
    out = Value(b.fresh("scatter"), v.type, v.dims, bound, nan_bits=False)
    text = f"scatter({v.name}, {idx.name}, {updates.name}), {where}, to_apply={combiner}"
    return b.emit(comp, out, text)


RNG_TYPES = tuple(dtypes.from_name(n) for n in ("u8", "u16", "u32", "u64"))


def draw_rng_bit_generator(b: Builder, comp: Computation, entry: bool) -> Value:
    """Random bits from a state argument (ThreeFry: u64[2], Philox: u64[2] or u64[3]): the
    same bits on both platforms."""
    if not entry:
        return draw_unary(b, comp, entry)
    algorithm = b.draw(st.sampled_from(("rng_three_fry", "rng_philox", "rng_default")))
    state = b.param(
        comp, dtypes.U64, (3 if algorithm == "rng_philox" and b.draw(st.booleans()) else 2,), entry
    )
    t = b.draw(st.sampled_from(RNG_TYPES))
    rank = b.draw(st.integers(0, 3))
    dims = tuple(b.draw(st.sampled_from((*DIMS, 7, 17))) for _ in range(rank))
    out = Value(b.fresh("bits"), t, dims)
    shape = f"({state.shape}, {out.shape})"
    rng = b.fresh("rng")
    comp.lines.append(f"  {rng} = {shape} rng-bit-generator({state.name}), algorithm={algorithm}")
    if b.draw(st.booleans()):
        new_state = Value(b.fresh("state"), dtypes.U64, state.dims)
        b.emit(comp, new_state, f"get-tuple-element({rng}), index=0")
    return b.emit(comp, out, f"get-tuple-element({rng}), index=1")
