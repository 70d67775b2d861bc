"""``match_xla`` / ``xlapy indexing --match-xla``: XLA's own maps where xlapy is more precise.

Expected texts are those of XLA's ``indexing_analysis_test.cc`` (``PadOp``,
``PadOpNegativePadding``, ``ConvolutionOp_PaddingAndWindowStride``,
``ConvolutionOp_LhsDilation``, ``ConvolutionOp_BatchGroups``); the default (precise) maps of
the same snippets are in ``test_per_op_printing.py``. The XLA maps are checked to cover the
precise ones: every (output, operand) pair of the precise maps is in XLA's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.indexing.conftest import assert_printed, parse_root, squash
from tests.indexing.oracle import relation
from xlapy.cli import main
from xlapy.indexing.per_op import input_to_output, output_to_input

PAD = """ENTRY e {
      p0 = f32[4, 4] parameter(0)
      p1 = f32[] parameter(1)
      ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
    }"""

CASES = [
    (
        "pad",
        PAD,
        """operand id = 0
            (d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),
            domain:
            d0 in [1, 7],
            d1 in [4, 7],
            (d0 - 1) mod 2 in [0, 0]
          operand id = 1
            (d0, d1) -> (),
            domain:
            d0 in [0, 11],
            d1 in [0, 15]""",
    ),
    (
        "pad_negative_padding",
        """ENTRY e {
      p0 = f32[7] parameter(0)
      p1 = f32[] parameter(1)
      ROOT pad = f32[5] pad(p0, p1), padding=-3_-5_1
    }""",
        """operand id = 0
            (d0) -> ((d0 + 3) floordiv 2),
            domain:
            d0 in [0, 4],
            (d0 + 3) mod 2 in [0, 0]
          operand id = 1
            (d0) -> (),
            domain:
            d0 in [0, 4]""",
    ),
    (
        "convolution_padding_and_window_stride",
        """ENTRY e {
      p0 = f32[1,12,10,4] parameter(0)
      p1 = f32[4,3,5,8] parameter(1)
      ROOT conv = f32[1,6,5,8] convolution(p0, p1),
        window={size=3x5 stride=2x2 pad=1_1x2_2}, dim_labels=b01f_i01o->b01f
    }""",
        """operand id = 0
            (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 * 2 + s0 - 1, d2 * 2 + s1 - 2, s2),
            domain:
            d0 in [0, 0],
            d1 in [0, 5],
            d2 in [0, 4],
            d3 in [0, 7],
            s0 in [0, 2],
            s1 in [0, 4],
            s2 in [0, 3],
            d1 * 2 + s0 in [1, 12],
            d2 * 2 + s1 in [2, 11]
          operand id = 1
            (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
            domain:
            d0 in [0, 0],
            d1 in [0, 5],
            d2 in [0, 4],
            d3 in [0, 7],
            s0 in [0, 2],
            s1 in [0, 4],
            s2 in [0, 3]""",
    ),
    (
        "convolution_lhs_dilation",
        """ENTRY e {
      p0 = f32[1,12,10,4] parameter(0)
      p1 = f32[4,3,5,8] parameter(1)
      ROOT conv = f32[1,21,15,8] convolution(p0, p1),
        window={size=3x5 pad=0_0x0_0 lhs_dilate=2x2}, dim_labels=b01f_i01o->b01f
    }""",
        """operand id = 0
            (d0, d1, d2, d3)[s0, s1, s2] -> (d0, (d1 + s0) floordiv 2, (d2 + s1) floordiv 2, s2),
            domain:
            d0 in [0, 0],
            d1 in [0, 20],
            d2 in [0, 14],
            d3 in [0, 7],
            s0 in [0, 2],
            s1 in [0, 4],
            s2 in [0, 3],
            (d1 + s0) mod 2 in [0, 0],
            (d2 + s1) mod 2 in [0, 0]
          operand id = 1
            (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
            domain:
            d0 in [0, 0],
            d1 in [0, 20],
            d2 in [0, 14],
            d3 in [0, 7],
            s0 in [0, 2],
            s1 in [0, 4],
            s2 in [0, 3]""",
    ),
    (
        "convolution_batch_groups",
        """ENTRY e {
      p0 = f32[14,12,10,4] parameter(0)
      p1 = f32[4,3,5,21] parameter(1)
      ROOT conv = f32[2,10,6,21] convolution(p0, p1),
        window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f, batch_group_count=7
    }""",
        """operand id = 0
            (d0, d1, d2, d3)[s0, s1, s2, s3] -> (d0 + s3 * 2, d1 + s0, d2 + s1, s2),
            domain:
            d0 in [0, 1],
            d1 in [0, 9],
            d2 in [0, 5],
            d3 in [0, 20],
            s0 in [0, 2],
            s1 in [0, 4],
            s2 in [0, 3],
            s3 in [0, 6]
          operand id = 1
            (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
            domain:
            d0 in [0, 1],
            d1 in [0, 9],
            d2 in [0, 5],
            d3 in [0, 20],
            s0 in [0, 2],
            s1 in [0, 4],
            s2 in [0, 3]""",
    ),
]


@pytest.mark.parametrize(("name", "hlo", "expected"), CASES, ids=[c[0] for c in CASES])
def test_xla_texts(name: str, hlo: str, expected: str) -> None:
    root = parse_root(hlo)
    assert_printed(output_to_input(root, match_xla=True).to_string(), expected)
    default = output_to_input(root)
    xla = output_to_input(root, match_xla=True)
    for operand, (precise, coarse) in enumerate(zip(default.maps, xla.maps, strict=True)):
        dims = list(root.operands[operand].shape.dims)
        assert relation(precise, dims) <= relation(coarse, dims), operand
    assert default.to_string() != xla.to_string()


def test_padding_value_input_to_output() -> None:
    """The padding value reaches every output element in XLA's reading."""
    assert_printed(
        input_to_output(parse_root(PAD), 1, match_xla=True).to_string(),
        """operand id = 0 ()[s0, s1] -> (s0, s1), domain: s0 in [0, 11], s1 in [0, 15]""",
    )


def test_fusion_passes_the_mode_on() -> None:
    hlo = """f {
      p0 = f32[4, 4] parameter(0)
      p1 = f32[] parameter(1)
      pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
      ROOT n = f32[12, 16] negate(pad)
    }
    ENTRY e {
      p0 = f32[4, 4] parameter(0)
      p1 = f32[] parameter(1)
      ROOT fusion = f32[12, 16] fusion(p0, p1), kind=kLoop, calls=f
    }"""
    root = parse_root(hlo)
    assert len(output_to_input(root).maps[1]) == 5
    (xla,) = output_to_input(root, match_xla=True).maps[1]
    assert_printed(xla.to_string(), "(d0, d1) -> (), domain: d0 in [0, 11], d1 in [0, 15]")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["indexing", *argv]) == 0
    return capsys.readouterr().out


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pad.hlo"
    path.write_text("HloModule m\n" + PAD)
    default = run_cli(capsys, str(path))
    assert squash(default).count("operandid=1") == 1
    assert default.count("->") == 6
    xla = run_cli(capsys, str(path), "--match-xla")
    assert squash(xla) == squash(CASES[0][2])
    to_output = run_cli(capsys, str(path), "--match-xla", "--input-to-output", "--operand", "1")
    assert squash(to_output) == squash(
        "operand id = 0 ()[s0, s1] -> (s0, s1), domain: s0 in [0, 11], s1 in [0, 15]"
    )


def test_cli_lists_runtime_variables_in_xla_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--match-xla`` keeps XLA's map numbering (the inner slice's offsets first) and
    XLA's listing (the outer slice's first)."""
    hlo = """HloModule m
    f {
      src = s32[150, 64] parameter(0)
      of11 = s32[] parameter(1)
      of12 = s32[] parameter(2)
      of21 = s32[] parameter(3)
      of22 = s32[] parameter(4)
      ds1 = s32[50, 32] dynamic-slice(src, of11, of12), dynamic_slice_sizes={50, 32}
      ROOT ds2 = s32[25, 16] dynamic-slice(ds1, of21, of22), dynamic_slice_sizes={25, 16}
    }
    ENTRY e {
      p0 = s32[150, 64] parameter(0)
      p1 = s32[] parameter(1)
      p2 = s32[] parameter(2)
      p3 = s32[] parameter(3)
      p4 = s32[] parameter(4)
      ROOT fusion = s32[25, 16] fusion(p0, p1, p2, p3, p4), kind=kLoop, calls=f
    }"""
    path = tmp_path / "ds.hlo"
    path.write_text(hlo)
    listed = [
        line.split(":")[1].split("=")[0].strip() for line in _rt_lines(run_cli(capsys, str(path)))
    ]
    assert listed == ["%of21", "%of22", "%of11", "%of12"]
    xla = run_cli(capsys, str(path), "--match-xla")
    assert [line.split(":")[1].split("=")[0].strip() for line in _rt_lines(xla)] == listed
    assert "rt0 in [0, 100]" in xla
    assert "rt0 in [0, 25]" in run_cli(capsys, str(path))


def _rt_lines(text: str) -> list[str]:
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip().startswith("rt") and ": %" in line
    ]
