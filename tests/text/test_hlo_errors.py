"""Malformed HLO text: every error names file:line:col, shows the source line and a caret, and
says what was expected; ``xlapy print`` exits 2 with that message (never a traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xlapy.errors import ParseError
from xlapy.text.hlo_parser import parse_hlo, parse_shape

HEAD = "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n"


@pytest.mark.parametrize(
    ("body", "line", "column", "message"),
    [
        ("  ROOT n = f32[2] negate(q)\n}\n", 5, 26, "instruction 'q' is not defined"),
        ("  ROOT n = f32[2] add(p p)\n}\n", 5, 25, "expected ',' or ')' in the operand list"),
        ("  ROOT n = f32[2 negate(p)\n}\n", 5, 18, "expected ',' or ']' in the dimensions"),
        ("  ROOT c = f32[3] constant({1, 2})\n}\n", 5, 33, "expected 3 elements"),
        ("  ROOT c = f32[2] bogus(p)\n}\n", 5, 19, "unknown opcode 'bogus'"),
        ("  ROOT b = f32[2] broadcast(p), dimensions = {0}\n}\n", 5, 43, "no space is allowed"),
        ("  ROOT c = pred[2] compare(p, p)\n}\n", 5, 20, "missing required attribute 'direction'"),
        ("  ROOT c = pred[2] compare(p, p), direction=XX\n}\n", 5, 45, "one of EQ, NE"),
        ("  ROOT c = s8[] constant(300)\n}\n", 5, 26, "value 300 is out of range for s8"),
        ("  ROOT c = f16[] constant(1e6)\n}\n", 5, 27, "out of range for f16"),
        ("  ROOT c = s32[] constant(1.5)\n}\n", 5, 27, "expected an integer for s32"),
        ("  ROOT c = bf16[] constant(nan(0x1234))\n}\n", 5, 28, "NaN payload 0x1234"),
        ("  ROOT c = f32[2,2] constant({1, 2})\n}\n", 5, 31, "expected '{' for the nested array"),
        ("  ROOT t = f32[2]{0,1} negate(p)\n}\n", 5, 18, "not a permutation"),
        ("  ROOT n = f32[3] negate(f32[3] p)\n}\n", 5, 26, "written with shape f32[3]"),
        ("  ROOT p = f32[2] negate(p)\n}\n", 5, 8, "instruction 'p' is already defined"),
        ("  ROOT u8 = f32[2] negate(p)\n}\n", 5, 8, "illegal instruction name: u8"),
        ("  ROOT n = f32[2] call(p), to_apply=nowhere\n}\n", 5, 37, "not defined"),
        ("  ROOT n = f32[2] negate(p)\n", 3, 9, "computation body is not closed"),
        ('  ROOT n = f32[2] negate(p), metadata={op_nam="x"}\n}\n', 5, 40, "unknown metadata"),
        (
            "  ROOT s = f32[1] slice(p), slice={[0:1:1:1]}\n}\n",
            5,
            42,
            "expected ']' to close a slice range",
        ),
        ("  ROOT w = f32[2] reduce-window(p, p), window={size=2 strid=1}\n}\n", 5, 55, "strid"),
        ("  ROOT n = f32[2] negate(p), sharding={devices=[2]<=}\n}\n", 5, 53, "expected '['"),
        ('  ROOT s = "x"\n}\n', 5, 12, "expected an opcode"),
    ],
)
def test_error_location_and_message(body: str, line: int, column: int, message: str):
    with pytest.raises(ParseError) as info:
        parse_hlo(HEAD + body, "prog.hlo")
    err = info.value
    text = str(err)
    assert (err.line, err.column) == (line, column), text
    assert message in err.message, text
    head, source, caret = text.split("\n")
    assert head.startswith(f"prog.hlo:{line}:{column}: error: ")
    assert source == (HEAD + body).split("\n")[line - 1]
    assert caret == " " * (column - 1) + "^"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("f32[2,3", "expected ',' or ']'"),
        ("f33[2]", "expected a shape"),
        ("(f32[], s32[]", "expected ',' or ')' in the tuple shape"),
        ("f32[2]{1,0}", "not a permutation"),
        ("f32[2] x", "expected end of the shape"),
    ],
)
def test_shape_errors(text: str, message: str):
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_shape(text)


def test_forward_reference_is_an_error():
    text = HEAD + "  n = f32[2] negate(m)\n  ROOT m = f32[2] abs(p)\n}\n"
    with pytest.raises(ParseError, match="'m' is not defined"):
        parse_hlo(text)


def test_computation_used_before_definition():
    text = (
        "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
        "  ROOT c = f32[2] call(p), to_apply=later\n}\n"
        "later {\n  q = f32[2] parameter(0)\n  ROOT n = f32[2] negate(q)\n}\n"
    )
    with pytest.raises(ParseError) as info:
        parse_hlo(text)
    assert (info.value.line, info.value.column) == (4, 37)


def test_unterminated_string_and_comment():
    with pytest.raises(ParseError, match="unterminated string"):
        parse_hlo(HEAD + '  ROOT n = f32[2] negate(p), backend_config="abc\n}\n')
    with pytest.raises(ParseError, match=r"unterminated /\* comment"):
        parse_hlo(HEAD + "  /* no end\n}\n")


# ---- the command line -------------------------------------------------------------------


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xlapy", "print", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_reports_line_and_column(tmp_path: Path):
    path = tmp_path / "bad.hlo"
    path.write_text(HEAD + "  ROOT n = f32[2] negate(q)\n}\n")
    proc = run_cli(str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"{path}:5:26: error: instruction 'q' is not defined (before this use)",
        "  ROOT n = f32[2] negate(q)",
        " " * 25 + "^",
    ]
    assert "Traceback" not in proc.stderr


def test_cli_prints_canonical_text(tmp_path: Path):
    path = tmp_path / "ok.hlo"
    path.write_text(HEAD + "  ROOT n = f32[2] negate(p)\n}\n")
    proc = run_cli(str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n"
        "ENTRY %e (p: f32[2]) -> f32[2] {\n"
        "  %p = f32[2]{0} parameter(0)\n"
        "  ROOT %n = f32[2]{0} negate(%p)\n"
        "}\n\n"
    )
    short = run_cli("--style", "short", "-", stdin=path.read_text())
    assert "ENTRY e {\n  p = f32[2]{0} parameter(0)\n" in short.stdout
    canonical = run_cli("--style", "canonical", "--verify", str(path))
    assert "ROOT tmp_1 = f32[2]{0} negate(f32[2]{0} tmp_0)" in canonical.stdout


def test_cli_missing_file():
    proc = run_cli("/no/such/file.hlo")
    assert proc.returncode == 2
    assert "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_verify_reports_the_rule(tmp_path: Path):
    path = tmp_path / "arity.hlo"
    path.write_text(HEAD + "  ROOT n = f32[2] add(p)\n}\n")
    proc = run_cli("--verify", str(path))
    assert proc.returncode == 2
    assert "add n [arity]: takes 2 operand(s); got 1" in proc.stderr
