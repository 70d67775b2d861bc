"""Random chains of data movement and identities (HLO text built by hypothesis) keep their
values bit for bit through the simplification passes, which must also be idempotent."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from pass_util import optimize


@st.composite
def chains(draw: st.DrawFn) -> str:
    etype = draw(st.sampled_from(["s32", "f32", "u8", "bf16"]))
    dims = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    lines = [f"  v0 = {etype}[{','.join(map(str, dims))}] parameter(0)"]
    consts: list[str] = []
    prev = "v0"

    def shape(d: list[int]) -> str:
        return f"{etype}[{','.join(map(str, d))}]"

    for step in range(1, draw(st.integers(2, 7)) + 1):
        kind = draw(
            st.sampled_from(
                ["transpose", "reshape", "slice", "reverse", "broadcast", "copy", "add0",
                 "mul1", "convert", "negate2", "dslice", "pad0", "concat", "select"]
            )
        )  # fmt: skip
        rank = len(dims)
        name = f"v{step}"
        if kind == "transpose":
            perm = draw(st.permutations(range(rank)))
            dims = [dims[p] for p in perm]
            text = f"transpose({prev}), dimensions={{{','.join(map(str, perm))}}}"
        elif kind == "reshape":
            total = math.prod(dims)
            factors = [f for f in range(1, total + 1) if total % f == 0]
            first = draw(st.sampled_from(factors))
            dims = [first, total // first] if draw(st.booleans()) else [total]
            text = f"reshape({prev})"
        elif kind == "slice":
            parts, new = [], []
            for n in dims:
                start = draw(st.integers(0, n - 1))
                limit = draw(st.integers(start + 1, n))
                stride = draw(st.integers(1, 3))
                parts.append(f"[{start}:{limit}:{stride}]")
                new.append(-(-(limit - start) // stride))
            dims = new
            text = f"slice({prev}), slice={{{', '.join(parts)}}}"
        elif kind == "reverse":
            chosen = sorted(draw(st.sets(st.integers(0, rank - 1))))
            text = f"reverse({prev}), dimensions={{{','.join(map(str, chosen))}}}"
        elif kind == "broadcast":
            if rank >= 3:
                continue
            at = draw(st.integers(0, rank))
            mapping = [d if d < at else d + 1 for d in range(rank)]
            dims = [*dims[:at], draw(st.integers(1, 3)), *dims[at:]]
            text = f"broadcast({prev}), dimensions={{{','.join(map(str, mapping))}}}"
        elif kind == "copy":
            text = f"copy({prev})"
        elif kind in ("add0", "mul1"):
            value = 0 if kind == "add0" else 1
            op = "add" if kind == "add0" else "multiply"
            consts.append(f"  c{step} = {etype}[] constant({value})")
            lines.append(f"  b{step} = {shape(dims)} broadcast(c{step}), dimensions={{}}")
            text = f"{op}({prev}, b{step})"
        elif kind == "convert":
            wide = {"s32": "s64", "f32": "f64", "u8": "s16", "bf16": "f32"}[etype]
            lines.append(f"  w{step} = {wide}[{','.join(map(str, dims))}] convert({prev})")
            text = f"convert(w{step})"
        elif kind == "negate2":
            lines.append(f"  n{step} = {shape(dims)} negate({prev})")
            text = f"negate(n{step})"
        elif kind == "dslice":
            sizes = [draw(st.integers(1, n)) for n in dims]
            starts = [draw(st.integers(-2, n + 1)) for n in dims]
            for i, s in enumerate(starts):
                consts.append(f"  i{step}_{i} = s32[] constant({s})")
            idx = ", ".join(f"i{step}_{i}" for i in range(rank))
            dims = sizes
            text = (
                f"dynamic-slice({prev}, {idx}), dynamic_slice_sizes={{{','.join(map(str, sizes))}}}"
            )
        elif kind == "pad0":
            consts.append(f"  z{step} = {etype}[] constant(0)")
            text = f"pad({prev}, z{step}), padding={'x'.join('0_0' for _ in dims)}"
        elif kind == "concat":
            d = draw(st.integers(0, rank - 1))
            dims = [n * 2 if i == d else n for i, n in enumerate(dims)]
            text = f"concatenate({prev}, {prev}), dimensions={{{d}}}"
        else:
            value = draw(st.sampled_from(["true", "false"]))
            consts.append(f"  p{step} = pred[] constant({value})")
            lines.append(
                f"  pb{step} = pred[{','.join(map(str, dims))}] broadcast(p{step}), dimensions={{}}"
            )
            lines.append(f"  o{step} = {shape(dims)} negate({prev})")
            text = f"select(pb{step}, {prev}, o{step})"
        lines.append(f"  {name} = {shape(dims)} {text}")
        prev = name
    last = lines[-1].split(" = ")[0].strip()
    lines[-1] = lines[-1].replace(f"  {last} =", f"  ROOT {last} =", 1)
    body = "\n".join([*consts, *lines])
    return f"HloModule chain\n\nENTRY e {{\n{body}\n}}\n"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(chains())
def test_random_chains_keep_their_values(text: str):
    optimize(text, "algebraic-simplifier", "constant-folding", "cse", "dce")
