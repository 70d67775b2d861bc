"""``xlapy opt``: passes or a pipeline on a file, HLO text out, --stats, --list-passes, and
clear errors (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import xlapy
from xlapy.cli import main

PROGRAM = """HloModule m

ENTRY e {
  p = s32[4] parameter(0)
  z = s32[4] constant({0, 0, 0, 0})
  a = s32[4] add(p, z)
  b = s32[4] add(p, z)
  dead = s32[4] negate(p)
  ROOT r = s32[4] multiply(a, b)
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "m.hlo"
    path.write_text(PROGRAM)
    return path


def test_passes_run_in_order_and_print_hlo(program: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["opt", str(program), "--passes=cse,dce"]) == 0
    out = capsys.readouterr().out
    module = xlapy.load(out)
    names = [i.name for i in module.entry.instructions]
    assert names == ["p", "z", "a", "r"]
    assert "multiply(%a, %a)" in out


def test_pipeline_and_output_file(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    target = tmp_path / "out.hlo"
    assert main(["opt", str(program), "--pipeline=default", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    module = xlapy.load(target)
    ops = [i.opcode.value for i in module.entry.instructions]
    assert "add" not in ops
    assert "negate" not in ops


def test_stats_count_opcodes_and_fired_rules(program: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["opt", str(program), "--passes=algebraic-simplifier,dce", "--stats"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "instructions by opcode (before -> after):"
    assert "  add            2 -> 0" in err
    assert "  total          6 -> 2" in err
    assert err[-3:] == [
        "rules fired:",
        "  algebraic-simplifier/fold_add_zero 2",
        "  dce/dead_instruction 1",
    ]


def test_list_passes(capsys: pytest.CaptureFixture[str]):
    assert main(["opt", "--list-passes"]) == 0
    names = [ln.split()[0] for ln in capsys.readouterr().out.splitlines()]
    expected = {
        "algebraic-simplifier", "constant-folding", "cse", "dce", "flatten-call-graph",
        "inline", "tuple-simplifier", "while-loop-simplifier",
    }  # fmt: skip
    assert expected <= set(names)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--passes=dce,frobnicate"], "error: unknown pass 'frobnicate'; known passes: "),
        (["--pipeline=fast"], "error: unknown pipeline 'fast'; known pipelines: default"),
        ([], "error: opt: give exactly one of --passes=a,b,... or --pipeline=NAME"),
        (["--passes=,"], "error: opt: --passes names no pass; see --list-passes"),
    ],
)
def test_user_errors_exit_2(
    program: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
):
    assert main(["opt", str(program), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message)
    if "known passes" in message:
        assert "algebraic-simplifier, constant-folding, cse, dce" in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["opt", str(tmp_path / "nope.hlo"), "--passes=dce"]) == 2
    assert "no such file" in capsys.readouterr().err
