"""Runtime variables whose producer is known, and runtime variables through fusions.

The expected texts marked XLA are those of XLA's ``indexing_analysis_test.cc``
(``FusionWithRTVarsSimplification_*``, ``FusionOpWithDynSliceOfDynSlice``); they are checked
with ``match_xla`` (and without it where xlapy agrees; ``NestedDotFusionWithDynamicUpdateSlice``
too). XLA names a runtime variable's source
by its opcode and operands only (``rt0: parameter(3); ...``), so ``xla_listing`` drops
xlapy's ``%name = shape`` prefix before comparing. Folded maps are checked against the
interpreter: the operand holds its own flat index, so the fusion's output says which element
each output element read.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlapy
from tests.indexing.conftest import assert_printed, parse_root
from tests.indexing.oracle import from_gather_values, relation
from xlapy.indexing.per_op import output_to_input
from xlapy.text.hlo_parser import parse_hlo


def xla_listing(text: str) -> str:
    """``rt0: %of21 = s32[] parameter(3); ...`` in XLA's form ``rt0: parameter(3); ...``."""
    return re.sub(r"(rt\d+: )%[\w.\-]+ = \S+ ", r"\1", text)


def printed(hlo: str, *, match_xla: bool) -> str:
    indexing = output_to_input(parse_root(hlo), match_xla=match_xla)
    return xla_listing(indexing.to_string(xla_order=match_xla))


def gather_fusion(body: str, rows: int, operand_rows: int = 33) -> str:
    """A fusion gathering rows ``idx`` (an s64[rows, 1] made by ``body``) of f32[33, 76]."""
    return f"""fused_computation {{
        p0 = f32[{operand_rows},76] parameter(0)
        {body}
        ROOT gather = f32[{rows},1,1] gather(p0, idx), offset_dims={{1,2}},
          collapsed_slice_dims={{}}, start_index_map={{0}}, index_vector_dim=1,
          slice_sizes={{1,1}}
      }}
      ENTRY main {{
        p0 = f32[{operand_rows},76] parameter(0)
        ROOT fusion = f32[{rows},1,1] fusion(p0), kind=kInput, calls=fused_computation
      }}"""


def kept(rows: int, source: str) -> str:
    """The gather's map when the start row stays a runtime variable read from ``source``."""
    return f"""operand id = 0 (d0, d1, d2){{rt0}} -> (rt0, 0),
        domain: d0 in [0, {rows - 1}], d1 in [0, 0], d2 in [0, 0], rt0 in [0, 32]
        runtime variables:
        rt0: {source}; (d0, d1, d2) -> (d0, 0),
          domain: d0 in [0, {rows - 1}], d1 in [0, 0], d2 in [0, 0]"""


def folded(rows: int, row: str) -> str:
    return f"""operand id = 0 (d0, d1, d2) -> ({row}, 0),
        domain: d0 in [0, {rows - 1}], d1 in [0, 0], d2 in [0, 0]"""


IOTA_42 = gather_fusion("idx = s64[42,1] iota(), iota_dimension=0", 42)
BROADCAST_42 = gather_fusion(
    """c42 = s64[] constant(42)
        idx = s64[42, 1] broadcast(s64[] c42), dimensions={}""",
    42,
)
REVERSE_42 = gather_fusion(
    """iota = s64[42,1] iota(), iota_dimension=0
        idx = s64[42,1] reverse(iota), dimensions={0}""",
    42,
)

# (name, hlo, expected with match_xla (XLA's text), expected by default)
XLA_CASES = [
    (
        "scalar_constant",
        """fused_computation {
        p0 = s32[4096] parameter(0)
        offset = s64[] constant(42)
        ROOT dynamic-slice = s32[10] dynamic-slice(p0, offset), dynamic_slice_sizes={10}
      }
      ENTRY main {
        p0 = s32[4096] parameter(0)
        ROOT fusion = s32[10] fusion(p0), kind=kInput, calls=fused_computation
      }""",
        """operand id = 0
      (d0) -> (d0 + 42),
      domain:
      d0 in [0, 9]""",
        None,
    ),
    (
        "scalar_constant_outside_of_range_is_kept",
        """fused_computation {
        p0 = s32[100] parameter(0)
        offset = s64[] constant(99)
        ROOT dynamic-slice = s32[10] dynamic-slice(p0, offset), dynamic_slice_sizes={10}
      }
      ENTRY main {
        p0 = s32[100] parameter(0)
        ROOT fusion = s32[10] fusion(p0), kind=kInput, calls=fused_computation
      }""",
        """operand id = 0
      (d0){rt0} -> (d0 + rt0),
      domain:
        d0 in [0, 9],
        rt0 in [0, 90]
      runtime variables:
        rt0: constant(99); (d0) -> (),
          domain: d0 in [0, 9]""",
        None,
    ),
    (
        # Iota rows 33..41 are clamped to row 32: XLA's map reads past the operand.
        "iota",
        IOTA_42,
        """operand id = 0
    (d0, d1, d2) -> (d0, 0),
     domain:
     d0 in [0, 41],
     d1 in [0, 0],
     d2 in [0, 0]""",
        kept(42, "iota()"),
    ),
    (
        "iota_as_constant",
        gather_fusion("idx = s64[42,1] iota(), iota_dimension=1", 42),
        """operand id = 0
    (d0, d1, d2) -> (0, 0),
     domain:
     d0 in [0, 41],
     d1 in [0, 0],
     d2 in [0, 0]""",
        None,
    ),
    (
        # Row 42 is clamped to row 32.
        "broadcast",
        BROADCAST_42,
        """operand id = 0
    (d0, d1, d2) -> (42, 0),
     domain:
     d0 in [0, 41],
     d1 in [0, 0],
     d2 in [0, 0]""",
        kept(42, "broadcast(%c42)"),
    ),
    (
        "reverse",
        REVERSE_42,
        """operand id = 0
    (d0, d1, d2) -> (-d0 + 41, 0),
     domain:
     d0 in [0, 41],
     d1 in [0, 0],
     d2 in [0, 0]""",
        kept(42, "reverse(%iota)"),
    ),
    (
        # The inner slice's offsets keep the constraints bounding its indices. XLA numbers
        # the map's symbols producer first (rt0 in [0, 100] is %of11) but lists the outer
        # slice's offsets first; xlapy numbers both outermost first by default.
        "dynamic_slice_of_dynamic_slice",
        """f {
      %src = s32[150, 64] parameter(0)
      %of11 = s32[] parameter(1)
      %of12 = s32[] parameter(2)
      %of21 = s32[] parameter(3)
      %of22 = s32[] parameter(4)
      %ds1 = s32[50, 32] dynamic-slice(s32[150, 64] %src,
        s32[] %of11, s32[] %of12), dynamic_slice_sizes={50, 32}
      ROOT %ds2 = s32[25, 16] dynamic-slice(s32[50, 32] %ds1,
        s32[] %of21, s32[] %of22), dynamic_slice_sizes={25, 16}
    }
    ENTRY e {
      %p0 = s32[150, 64] parameter(0)
      %p1 = s32[] parameter(1)
      %p2 = s32[] parameter(2)
      %p3 = s32[] parameter(3)
      %p4 = s32[] parameter(4)
      ROOT fusion = s32[25, 16] fusion(p0, p1, p2, p3, p4),
        kind=kLoop, calls=f
    }""",
        """operand id = 0
      (d0, d1){rt0, rt1, rt2, rt3} -> (d0 + rt0 + rt2, d1 + rt1 + rt3),
      domain:
        d0 in [0, 24],
        d1 in [0, 15],
        rt0 in [0, 100],
        rt1 in [0, 32],
        rt2 in [0, 25],
        rt3 in [0, 16]
      runtime variables:
        rt0: parameter(3); (d0, d1) -> (),
          domain: d0 in [0, 24], d1 in [0, 15]
        rt1: parameter(4); (d0, d1) -> (),
          domain: d0 in [0, 24], d1 in [0, 15]
        rt2: parameter(1); (d0, d1){rt0, rt1} -> (),
          domain:
            d0 in [0, 24],
            d1 in [0, 15],
            rt0 in [0, 25],
            rt1 in [0, 16],
            d0 + rt0 in [0, 49],
            d1 + rt1 in [0, 31]
        rt3: parameter(2); (d0, d1){rt0, rt1} -> (),
          domain:
            d0 in [0, 24], d1 in [0, 15],
            rt0 in [0, 25], rt1 in [0, 16],
            d0 + rt0 in [0, 49],
            d1 + rt1 in [0, 31]
    operand id = 1
      (d0, d1) -> (),
      domain:
        d0 in [0, 24],
        d1 in [0, 15]
    operand id = 2
      (d0, d1) -> (),
      domain:
        d0 in [0, 24],
        d1 in [0, 15]
    operand id = 3
      (d0, d1) -> (),
      domain:
        d0 in [0, 24],
        d1 in [0, 15]
    operand id = 4
      (d0, d1) -> (),
      domain:
        d0 in [0, 24],
        d1 in [0, 15]""",
        """operand id = 0
      (d0, d1){rt0, rt1, rt2, rt3} -> (d0 + rt0 + rt2, d1 + rt1 + rt3),
      domain: d0 in [0, 24], d1 in [0, 15],
        rt0 in [0, 25], rt1 in [0, 16], rt2 in [0, 100], rt3 in [0, 32]
      runtime variables:
        rt0: parameter(3); (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
        rt1: parameter(4); (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
        rt2: parameter(1); (d0, d1){rt0, rt1} -> (),
          domain: d0 in [0, 24], d1 in [0, 15], rt0 in [0, 25], rt1 in [0, 16],
            d0 + rt0 in [0, 49], d1 + rt1 in [0, 31]
        rt3: parameter(2); (d0, d1){rt0, rt1} -> (),
          domain: d0 in [0, 24], d1 in [0, 15], rt0 in [0, 25], rt1 in [0, 16],
            d0 + rt0 in [0, 49], d1 + rt1 in [0, 31]
    operand id = 1 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
    operand id = 2 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
    operand id = 3 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
    operand id = 4 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]""",
    ),
]


XLA_CASES.append(
    (
        # Offsets bounded to [0, 0] disappear; the fusion's constant operands stay parameters.
        "nested_dot_fusion_with_dynamic_slice",
        """dot_lhs {
      ROOT p0 = f32[2,4]{1,0} parameter(0)
    }
    dot_rhs {
      p0 = f32[4,5,2]{2,1,0} parameter(0)
      p1 = s32[] parameter(1)
      p2 = s32[] parameter(2)
      p3 = s32[] parameter(3)
      dynamic_slice = f32[1,5,2]{2,1,0} dynamic-slice(p0, p1, p2, p3),
        dynamic_slice_sizes={1,5,2}
      ROOT bitcast = f32[5,2]{1,0} bitcast(dynamic_slice)
    }
    triton_gemm {
      dot_lhs_param = f32[2,4]{1,0} parameter(0)
      lhs = f32[2,4]{1,0} fusion(dot_lhs_param), kind=kCustom, calls=dot_lhs
      dynamic_slice_input = f32[4,5,2]{2,1,0} parameter(1)
      start_index0 = s32[] parameter(2)
      start_index1 = s32[] parameter(3)
      start_index2 = s32[] parameter(4)
      rhs = f32[5,2]{1,0} fusion(dynamic_slice_input, start_index0, start_index1,
        start_index2), kind=kCustom, calls=dot_rhs
      ROOT dot = f32[4,5]{1,0} dot(lhs, rhs), lhs_contracting_dims={0},
        rhs_contracting_dims={1}
    }
    ENTRY e {
      p0 = f32[2,4]{1,0} parameter(0)
      p1 = f32[4,5,2]{2,1,0} parameter(1)
      p2 = s32[] parameter(2)
      c0 = s32[] constant(0)
      c1 = s32[] constant(0)
      ROOT fusion = f32[4,5]{1,0} fusion(p0, p1, p2, c0, c1), kind=kCustom,
        calls=triton_gemm
    }""",
        """operand id = 0 (d0, d1)[s0] -> (s0, d0),
      domain: d0 in [0, 3], d1 in [0, 4], s0 in [0, 1]
    operand id = 1 (d0, d1)[s0]{rt0} -> (rt0, d1, s0),
      domain: d0 in [0, 3], d1 in [0, 4], s0 in [0, 1], rt0 in [0, 3]
    runtime variables:
      rt0: parameter(1);
        (d0, d1)[s0] -> (), domain: d0 in [0, 3], d1 in [0, 4], s0 in [0, 1]
    operand id = 2 (d0, d1) -> (),
      domain: d0 in [0, 3], d1 in [0, 4]
    operand id = 3 (d0, d1) -> (),
      domain: d0 in [0, 3], d1 in [0, 4]
    operand id = 4 (d0, d1) -> (),
      domain: d0 in [0, 3], d1 in [0, 4]""",
        None,
    )
)


@pytest.mark.parametrize(
    ("name", "hlo", "xla", "default"), XLA_CASES, ids=[c[0] for c in XLA_CASES]
)
def test_xla_texts(name: str, hlo: str, xla: str, default: str | None) -> None:
    assert_printed(printed(hlo, match_xla=True), xla)
    assert_printed(printed(hlo, match_xla=False), xla if default is None else default)


def test_xla_iota_map_reads_past_the_operand() -> None:
    """Why the default keeps the variable: XLA's map sends output row 41 to row 41 of a
    33-row operand, while the gather reads row 32 there."""
    xla_map = output_to_input(parse_root(IOTA_42), match_xla=True).maps[0][0].map
    assert xla_map.evaluate([41, 0, 0]) == (41, 0)
    out = run_fusion(IOTA_42)
    assert int(out[41, 0, 0]) == 32 * 76


# (name, body making idx, rows, expected start row by default or None when kept)
FOLDS = [
    ("iota_in_range", "idx = s64[30,1] iota(), iota_dimension=0", 30, "d0"),
    (
        "broadcast_in_range",
        """c = s64[] constant(7)
        idx = s64[30,1] broadcast(c), dimensions={}""",
        30,
        "7",
    ),
    (
        "reverse_in_range",
        """iota = s64[30,1] iota(), iota_dimension=0
        idx = s64[30,1] reverse(iota), dimensions={0}""",
        30,
        "-d0 + 29",
    ),
    (
        "iota_plus_constant",
        """iota = s64[30,1] iota(), iota_dimension=0
        c = s64[] constant(3)
        b = s64[30,1] broadcast(c), dimensions={}
        idx = s64[30,1] add(iota, b)""",
        30,
        "d0 + 3",
    ),
    (
        "negated_product",
        """iota = s64[10,1] iota(), iota_dimension=0
        c = s64[] constant(-3)
        b = s64[10,1] broadcast(c), dimensions={}
        m = s64[10,1] multiply(iota, b)
        idx = s64[10,1] negate(m)""",
        10,
        "d0 * 3",
    ),
    (
        "quotient",
        """iota = s64[30,1] iota(), iota_dimension=0
        c = s64[] constant(2)
        b = s64[30,1] broadcast(c), dimensions={}
        idx = s64[30,1] divide(iota, b)""",
        30,
        "d0 floordiv 2",
    ),
    (
        "reshaped_transposed_iota",
        """iota = s64[1,30] iota(), iota_dimension=1
        t = s64[30,1] transpose(iota), dimensions={1,0}
        idx = s64[30,1] copy(t)""",
        30,
        "d0",
    ),
    (
        "splat_constant",
        "idx = s64[4,1] constant({{5},{5},{5},{5}})",
        4,
        "5",
    ),
    ("iota_past_the_operand", "idx = s64[42,1] iota(), iota_dimension=0", 42, None),
    (
        # HLO divides toward zero and floordiv rounds down: (-5) / 2 is -2, not -3.
        "quotient_of_negative",
        """iota = s64[30,1] iota(), iota_dimension=0
        c = s64[] constant(5)
        b = s64[30,1] broadcast(c), dimensions={}
        s = s64[30,1] subtract(iota, b)
        c2 = s64[] constant(2)
        b2 = s64[30,1] broadcast(c2), dimensions={}
        idx = s64[30,1] divide(s, b2)""",
        30,
        None,
    ),
    (
        # s8 wraps around: 27 + 100 fits, 28 + 100 is -128 (clamped to row 0).
        "wrap_around",
        """iota = s8[30,1] iota(), iota_dimension=0
        c = s8[] constant(100)
        b = s8[30,1] broadcast(c), dimensions={}
        idx = s8[30,1] add(iota, b)""",
        30,
        None,
    ),
]


def run_fusion(hlo: str) -> np.ndarray:
    module = parse_hlo("HloModule m\n" + hlo, "<test>")
    operand = module.entry.parameters[0]
    flat = np.arange(int(np.prod(operand.shape.dims)), dtype=np.float32)
    (out,) = xlapy.run(module, flat.reshape(operand.shape.dims), platform="interpreter")
    return np.asarray(out)


def index_values(body: str) -> np.ndarray:
    """The values of ``idx`` (``body`` run as an entry computation)."""
    text = "HloModule m\nENTRY e {\n" + body.replace("idx = ", "ROOT idx = ") + "\n}"
    (values,) = xlapy.run(parse_hlo(text, "<test>"), platform="interpreter")
    return np.asarray(values)


@pytest.mark.parametrize(("name", "body", "rows", "row"), FOLDS, ids=[f[0] for f in FOLDS])
def test_known_producer(name: str, body: str, rows: int, row: str | None) -> None:
    """Replaced exactly when the value stays inside the clamp range; either way the maps
    denote what the interpreter reads."""
    operand_rows = 33 if row is None and "wrap" not in name else 160
    hlo = gather_fusion(body, rows, operand_rows)
    indexing = output_to_input(parse_root(hlo))
    (only,) = indexing.maps[0]
    if row is None:
        assert len(only.rt_vars) == 1
        assert only.rt_vars[0].instruction.name == "idx"
    else:
        assert_printed(indexing.to_string(), folded(rows, row))
    runtime = {"idx": index_values(body).astype(np.int64)}
    got = relation(indexing.maps[0], [operand_rows, 76], runtime)
    expected = from_gather_values(run_fusion(hlo).astype(np.int64), [operand_rows, 76])
    assert got == expected


def test_match_xla_replaces_without_checks() -> None:
    """XLA replaces the iota-derived values the default keeps."""
    cases = {name: body for name, body, _, row in FOLDS if row is None}
    for name, want in [
        ("iota_past_the_operand", "d0"),
        ("quotient_of_negative", "(d0 + 1) floordiv 2 - 3"),
        ("wrap_around", "d0 + 100"),
    ]:
        hlo = gather_fusion(cases[name], 42 if "past" in name else 30)
        (only,) = output_to_input(parse_root(hlo), match_xla=True).maps[0]
        assert not only.rt_vars, name
        assert str(only.map.results[0]) == want, name


def test_match_xla_needs_a_constant_index() -> None:
    """XLA reads a constant only at a constant index; a splat read at (d0, 0) stays."""
    hlo = gather_fusion("idx = s64[4,1] constant({{5},{5},{5},{5}})", 4)
    (only,) = output_to_input(parse_root(hlo), match_xla=True).maps[0]
    assert len(only.rt_vars) == 1


def test_partial_values_are_not_folded() -> None:
    """XLA of 2024 turned ``dynamic-slice(p0, add(c42, p1))`` into ``d0 + rt0 + 42`` with
    ``rt0 = p1`` in [0, 4086]; the clamp applies to the sum, so both modes keep ``add``."""
    hlo = """fused_computation {
        p0 = s32[4096] parameter(0)
        p1 = s64[] parameter(1)
        c42 = s64[] constant(42)
        add = s64[] add(c42, p1)
        ROOT dynamic-slice = s32[10] dynamic-slice(p0, add), dynamic_slice_sizes={10}
      }
      ENTRY main {
        p0 = s32[4096] parameter(0)
        p1 = s64[] parameter(1)
        ROOT fusion = s32[10] fusion(p0, p1), kind=kInput, calls=fused_computation
      }"""
    expected = """operand id = 0 (d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 4086]
      runtime variables:
      rt0: add(%c42, %p1); (d0) -> (), domain: d0 in [0, 9]
    operand id = 1 (d0) -> (), domain: d0 in [0, 9]"""
    for match_xla in (False, True):
        assert_printed(printed(hlo, match_xla=match_xla), expected)


def test_constant_sum_offset_is_folded() -> None:
    hlo = """fused_computation {
        p0 = s32[4096] parameter(0)
        c40 = s64[] constant(40)
        c2 = s64[] constant(2)
        add = s64[] add(c40, c2)
        ROOT dynamic-slice = s32[10] dynamic-slice(p0, add), dynamic_slice_sizes={10}
      }
      ENTRY main {
        p0 = s32[4096] parameter(0)
        ROOT fusion = s32[10] fusion(p0), kind=kInput, calls=fused_computation
      }"""
    expected = "operand id = 0 (d0) -> (d0 + 42), domain: d0 in [0, 9]"
    assert_printed(printed(hlo, match_xla=False), expected)


def doubling_chain(length: int) -> str:
    """``idx = 2^length * iota`` as ``length`` adds of a value to itself."""
    lines = ["x0 = s64[4,1] iota(), iota_dimension=0"]
    lines += [f"x{i} = s64[4,1] add(x{i - 1}, x{i - 1})" for i in range(1, length + 1)]
    lines.append(f"idx = s64[4,1] copy(x{length})")
    return "\n        ".join(lines)


def test_shared_operands_are_walked_once() -> None:
    """``add(x, x)`` chains evaluate each value once (2^60 paths would never finish)."""
    hlo = gather_fusion(doubling_chain(10), 4, operand_rows=5000)
    (only,) = output_to_input(parse_root(hlo)).maps[0]
    assert str(only.map.results[0]) == "d0 * 1024"
    long_chain = gather_fusion(doubling_chain(60), 4, operand_rows=5000)
    (kept_var,) = output_to_input(parse_root(long_chain)).maps[0]
    assert [rt.instruction.name for rt in kept_var.rt_vars] == ["idx"]


SMALL_DS_OF_DS = """f {
      src = s32[15, 6] parameter(0)
      of11 = s32[] parameter(1)
      of12 = s32[] parameter(2)
      of21 = s32[] parameter(3)
      of22 = s32[] parameter(4)
      ds1 = s32[5, 3] dynamic-slice(src, of11, of12), dynamic_slice_sizes={5, 3}
      ROOT ds2 = s32[2, 2] dynamic-slice(ds1, of21, of22), dynamic_slice_sizes={2, 2}
    }
    ENTRY e {
      p0 = s32[15, 6] parameter(0)
      p1 = s32[] parameter(1)
      p2 = s32[] parameter(2)
      p3 = s32[] parameter(3)
      p4 = s32[] parameter(4)
      ROOT fusion = s32[2, 2] fusion(p0, p1, p2, p3, p4), kind=kLoop, calls=f
    }"""


@pytest.mark.parametrize("offsets", [(12, -5, 4, 1), (7, 2, 0, 3), (10, 3, 3, 1), (-1, 1, -2, 9)])
def test_dynamic_slice_of_dynamic_slice_reads(offsets: tuple[int, int, int, int]) -> None:
    """The composed map with every offset clamped into its variable's bounds reads what the
    interpreter reads (offsets past the operands included)."""
    module = parse_hlo("HloModule m\n" + SMALL_DS_OF_DS, "<test>")
    src = np.arange(15 * 6, dtype=np.int32).reshape(15, 6)
    (out,) = xlapy.run(module, src, *(np.int32(v) for v in offsets), platform="interpreter")
    runtime = {f"of{k}": np.int64(v) for k, v in zip((11, 12, 21, 22), offsets, strict=True)}
    (only,) = output_to_input(module.entry.root).maps[0]
    assert [rt.instruction.name for rt in only.rt_vars] == ["of21", "of22", "of11", "of12"]
    got = relation([only], [15, 6], runtime)
    assert got == from_gather_values(np.asarray(out), [15, 6])
