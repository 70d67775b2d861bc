"""Every map of INDEXING.md (seed 004) as a text-in, text-out test.

Where the seed's own spelling differs from what the analysis prints (§4.8.3), the seed map
is parsed, checked to denote the same (point, result) pairs, and simplified to the printed
form.
"""

from __future__ import annotations

import pytest

from tests.indexing.conftest import assert_printed, parse_root, squash
from xlapy.indexing.per_op import input_to_output, output_to_input
from xlapy.indexing.text import parse_indexing_map


def only_map(text: str) -> str:
    """The single map of a one-operand printed indexing."""
    return text.split("\n", 1)[1]


# ---- §1, §3: the maps written in the prose ------------------------------------------------

PROSE = [
    "(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]",
    "(d0, d1)[s0, s1] -> (s0, d0, d1, s1), domain: d0 in [0, 3], d1 in [0, 7], s0 in [0, 1], "
    "s1 in [0, 15]",
    "(d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50), domain: d0 in [0, 31], s0 in [0, 15], "
    "s1 in [0, 127]",
    "(d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 255], "
    "d0 + s0 in [0, 100]",
]


@pytest.mark.parametrize("text", PROSE)
def test_prose_maps_round_trip(text: str) -> None:
    m = parse_indexing_map(text)
    assert squash(m.to_string(multiline=False)) == squash(text)
    assert parse_indexing_map(str(m)) == m


def test_section3_reduce_2x4x8x16() -> None:
    root = parse_root(
        """add {
          a = f32[] parameter(0)
          b = f32[] parameter(1)
          ROOT s = f32[] add(a, b)
        }
        ENTRY e {
          p0 = f32[2, 4, 8, 16] parameter(0)
          c = f32[] constant(0)
          ROOT r = f32[4, 8] reduce(p0, c), dimensions={0, 3}, to_apply=add
        }"""
    )
    assert_printed(only_map(output_to_input(root).to_string().split("operand id = 1")[0]), PROSE[1])


# ---- §4 ---------------------------------------------------------------------------------------

BROADCAST = """ENTRY e {
  p0 = f32[20] parameter(0)
  ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
}"""


def test_4_2_broadcast_both_directions() -> None:
    root = parse_root(BROADCAST)
    assert_printed(only_map(output_to_input(root).to_string()), PROSE[0])
    assert_printed(
        only_map(input_to_output(root).to_string()),
        "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]",
    )


def test_4_4_transpose() -> None:
    root = parse_root(
        """ENTRY e {
          p0 = f32[3, 12288, 6, 128] parameter(0)
          ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
        }"""
    )
    assert_printed(
        only_map(output_to_input(root).to_string()),
        "(d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], d1 in [0, 5], "
        "d2 in [0, 127], d3 in [0, 12287]",
    )
    assert_printed(
        only_map(input_to_output(root).to_string()),
        "(d0, d1, d2, d3) -> (d0, d2, d3, d1), domain: d0 in [0, 2], d1 in [0, 12287], "
        "d2 in [0, 5], d3 in [0, 127]",
    )


VARIADIC_REDUCE = """min {
  tmp_0 = f32[] parameter(0)
  tmp_1 = f32[] parameter(2)
  tmp_2 = s32[] parameter(1)
  tmp_3 = s32[] parameter(3)
  cmp = pred[] compare(tmp_0, tmp_1), direction=GE
  select1 = f32[] select(cmp, tmp_0, tmp_1)
  select2 = s32[] select(cmp, tmp_2, tmp_3)
  ROOT tmp_4 = (f32[], s32[]) tuple(select1, select2)
}
ENTRY e {
  p0 = f32[256,10] parameter(0)
  p0_init = f32[] constant(-inf)
  p1 = s32[256,10] parameter(1)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init), dimensions={0}, to_apply=min
}"""


def test_4_6_variadic_reduce() -> None:
    root = parse_root(VARIADIC_REDUCE)
    for j in (0, 1):
        maps = output_to_input(root, j).maps
        for i in (0, 1):
            assert_printed(
                maps[i][0].to_string(), "(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]"
            )
            assert_printed(maps[2 + i][0].to_string(), "(d0) -> (), domain: d0 in [0, 9]")
    for i in (0, 1):
        for group in input_to_output(root, i).maps:
            assert_printed(
                group[0].to_string(), "(d0, d1) -> (d1), domain: d0 in [0, 255], d1 in [0, 9]"
            )
        for group in input_to_output(root, 2 + i).maps:
            assert_printed(group[0].to_string(), "()[s0] -> (s0), domain: s0 in [0, 9]")


def test_4_7_slice_input_to_output_corrects_the_seed() -> None:
    root = parse_root(
        """ENTRY e {
          p0 = f32[10, 20, 50] parameter(0)
          ROOT slice = f32[5, 3, 25] slice(p0), slice={[5:10:1], [3:20:7], [0:50:2]}
        }"""
    )
    expected = """(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2),
        domain: d0 in [5, 9], d1 in [3, 17], d2 in [0, 48],
        (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]"""
    got = input_to_output(root).maps[0][0].map
    assert_printed(got.to_string(), expected)
    # The seed's (d0, d1 floordiv 7, d2 floordiv 2) misses the start offset of dim 0.
    seed = parse_indexing_map(expected.replace("d0 - 5", "d0", 1))
    assert seed.image() != got.image()


RESHAPES = [
    # (input, output, output->input as printed, input->output as printed)
    (
        "f32[4,8]",
        "f32[32]",
        "(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]",
        "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]",
    ),
    (
        "f32[32]",
        "f32[4, 8]",
        "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]",
        "(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]",
    ),
    (
        "f32[4, 8, 12]",
        "f32[32, 3, 4]",
        "(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2), "
        "domain: d0 in [0, 31], d1 in [0, 2], d2 in [0, 3]",
        "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4), "
        "domain: d0 in [0, 3], d1 in [0, 7], d2 in [0, 11]",
    ),
]


@pytest.mark.parametrize(("src", "dst", "o2i", "i2o"), RESHAPES)
def test_4_8_reshapes(src: str, dst: str, o2i: str, i2o: str) -> None:
    root = parse_root(f"ENTRY e {{\n p0 = {src} parameter(0)\n ROOT r = {dst} reshape(p0)\n}}")
    assert_printed(only_map(output_to_input(root).to_string()), o2i)
    assert_printed(only_map(input_to_output(root).to_string()), i2o)


def test_4_8_3_generic_reshape_seed_forms() -> None:
    root = parse_root(
        "ENTRY e {\n p0 = f32[4,8] parameter(0)\n ROOT r = f32[2, 4, 4] reshape(p0)\n}"
    )
    o2i = output_to_input(root).maps[0][0].map
    i2o = input_to_output(root).maps[0][0].map
    seed_o2i = parse_indexing_map(
        "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8), "
        "domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]"
    )
    seed_i2o = parse_indexing_map(
        "(d0, d1) -> ((d0 * 8 + d1) floordiv 16, ((d0 * 8 + d1) mod 16) floordiv 4, d1 mod 4), "
        "domain: d0 in [0, 3], d1 in [0, 7]"
    )
    assert seed_o2i.image() == o2i.image()
    assert seed_i2o.image() == i2o.image()
    assert seed_o2i.simplify() == o2i
    assert_printed(
        o2i.to_string(),
        "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, (d1 mod 2) * 4 + d2), "
        "domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]",
    )
    # Seed's check: input (3, 7) is output (1, 3, 3) and back.
    assert i2o.evaluate([3, 7]) == (1, 3, 3)
    assert o2i.evaluate([1, 3, 3]) == (3, 7)


CONCAT = """ENTRY e {
  p0 = f32[3,50] parameter(0)
  p1 = f32[3,30] parameter(1)
  ROOT concat = f32[3,80] concatenate(f32[3,50] p0, f32[3,30] p1), dimensions={1}
}"""


def test_4_10_concatenate() -> None:
    root = parse_root(CONCAT)
    assert_printed(
        output_to_input(root).to_string(),
        """operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 49]
           operand id = 1 (d0, d1) -> (d0, d1 - 50), domain: d0 in [0, 2], d1 in [50, 79]""",
    )
    assert_printed(
        only_map(input_to_output(root, 0).to_string()),
        "(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 49]",
    )
    assert_printed(
        only_map(input_to_output(root, 1).to_string()),
        "(d0, d1) -> (d0, d1 + 50), domain: d0 in [0, 2], d1 in [0, 29]",
    )


DOT = """ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  p1 = f32[4, 256, 64] parameter(1)
  ROOT dot = f32[4, 128, 64] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_contracting_dims={1}
}"""


def test_4_11_dot() -> None:
    root = parse_root(DOT)
    domain = "domain: d0 in [0, 3], d1 in [0, 127], d2 in [0, 63], s0 in [0, 255]"
    assert_printed(
        output_to_input(root).to_string(),
        f"""operand id = 0 (d0, d1, d2)[s0] -> (d0, d1, s0), {domain}
            operand id = 1 (d0, d1, d2)[s0] -> (d0, s0, d2), {domain}""",
    )
    assert_printed(
        only_map(input_to_output(root, 0).to_string()),
        "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, 127], "
        "d2 in [0, 255], s0 in [0, 63]",
    )
    assert_printed(
        only_map(input_to_output(root, 1).to_string()),
        "(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 255], "
        "d2 in [0, 63], s0 in [0, 127]",
    )


def test_4_12_pad_rule() -> None:
    """Pad low 2, interior 1, operand 3: output 8 with high 1."""
    root = parse_root(
        "ENTRY e {\n p0 = f32[3] parameter(0)\n p1 = f32[] parameter(1)\n"
        " ROOT p = f32[8] pad(p0, p1), padding=2_1_1\n}"
    )
    maps = output_to_input(root).maps
    assert_printed(
        maps[0][0].to_string(),
        # MLIR's construction splits ``(d0 - 2) floordiv 2`` as the offset is a multiple of 2.
        "(d0) -> (d0 floordiv 2 - 1), domain: d0 in [2, 6], d0 mod 2 in [0, 0]",
    )
    assert_printed(
        only_map(input_to_output(root).to_string()), "(d0) -> (d0 * 2 + 2), domain: d0 in [0, 2]"
    )


def test_4_12_reduce_window_rule() -> None:
    root = parse_root(
        """max {
          a = f32[] parameter(0)
          b = f32[] parameter(1)
          ROOT m = f32[] maximum(a, b)
        }
        ENTRY e {
          p0 = f32[10] parameter(0)
          c = f32[] constant(0)
          ROOT rw = f32[5] reduce-window(p0, c), window={size=3 stride=2 pad=1_1}, to_apply=max
        }"""
    )
    assert_printed(
        output_to_input(root).maps[0][0].to_string(),
        "(d0)[s0] -> (d0 * 2 + s0 - 1), domain: d0 in [0, 4], s0 in [0, 2], d0 * 2 + s0 in [1, 10]",
    )


# ---- §6: the simplifier examples --------------------------------------------------------------

SIMPLIFIER = [
    (
        "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
        "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]",
    ),
    (
        "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, "
        "((d0 * 100 + d1 * 10 + d2) mod 100) floordiv 10, d2 mod 10), "
        "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
        "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    ),
    (
        "(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8, (d0 * 16 + d1 * 4 + d2) mod 8), "
        "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
        "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8), "
        "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    ),
    (
        "(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9), domain: d0 in [0, 9], d1 in [0, 10]",
        "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 10]",
    ),
]


@pytest.mark.parametrize(("before", "after"), SIMPLIFIER)
def test_6_simplifier_examples(before: str, after: str) -> None:
    m = parse_indexing_map(before)
    simplified = m.simplify()
    assert_printed(simplified.to_string(), after)
    assert simplified.image() == m.image()
    assert simplified.simplify() == simplified


def test_6_4_negation_binds_to_the_floordiv() -> None:
    """Reading the seed's example 4 as ``(-(...)) floordiv 11`` would be wrong at (0, 0)."""
    m = parse_indexing_map(SIMPLIFIER[3][0])
    assert m.evaluate([0, 0]) == (0,)
    wrong = parse_indexing_map(
        "(d0, d1) -> ((-(d0 * -11 - d1 + 109)) floordiv 11 + 9), domain: d0 in [0, 9], d1 in [0, 10]"
    )
    assert wrong.evaluate([0, 0]) == (-1,)


def test_6_5_reshape_chain_composes_to_example_2() -> None:
    root = parse_root(
        """f {
          p0 = f32[10, 10, 10] parameter(0)
          reshape1 = f32[50, 20] reshape(p0)
          ROOT reshape2 = f32[10, 10, 10] reshape(reshape1)
        }
        ENTRY e {
          p0 = f32[10, 10, 10] parameter(0)
          ROOT fusion = f32[10, 10, 10] fusion(p0), kind=kLoop, calls=f
        }"""
    )
    assert_printed(
        only_map(output_to_input(root).to_string()),
        "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    )
    raw = output_to_input(root, simplify=False).maps[0][0].map
    assert raw.image() == parse_indexing_map(SIMPLIFIER[1][0]).image()
