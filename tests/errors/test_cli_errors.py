"""The ``xlapy`` commands: bad paths, bad .npz contents, bad --args and bad flags print one
located error (no traceback) and exit 2."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from xlapy.cli import main

ROOT = Path(__file__).resolve().parents[2]
CNN = ROOT / "examples" / "cnn.hlo"

ADD = """HloModule m

ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] add(x, x)
}
"""


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([*argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "add.hlo"
    path.write_text(ADD)
    return path


@pytest.fixture
def npz_files(tmp_path: Path) -> dict[str, Path]:
    files = {}
    files["pickled"] = tmp_path / "pickled.npz"
    np.savez(files["pickled"], arg0=np.array([1, None], dtype=object))
    files["npy"] = tmp_path / "single.npy"
    np.save(files["npy"], np.ones(2, np.float32))
    files["text"] = tmp_path / "text.npz"
    files["text"].write_text("hello")
    files["raw"] = tmp_path / "raw.npz"
    with zipfile.ZipFile(files["raw"], "w") as z:
        z.writestr("arg0.npy", b"not an array")
    files["f64"] = tmp_path / "f64.npz"
    np.savez(files["f64"], arg0=np.ones(2, np.float64))
    files["shape"] = tmp_path / "shape.npz"
    np.savez(files["shape"], arg0=np.ones(3, np.float32))
    files["other"] = tmp_path / "other.npz"
    np.savez(files["other"], x=np.ones(2, np.float32))
    files["good"] = tmp_path / "good.npz"
    np.savez(files["good"], arg0=np.ones(2, np.float32))
    return files


@pytest.mark.parametrize("command", ["run", "print", "indexing"])
def test_missing_directory_and_binary_paths(capsys, tmp_path: Path, command):
    code, _, err = cli(capsys, command, str(tmp_path / "missing.hlo"))
    assert (code, err.strip()) == (2, f"error: {tmp_path / 'missing.hlo'}: no such file")
    code, _, err = cli(capsys, command, str(tmp_path))
    assert code == 2
    assert "is a directory, not a program file" in err
    blob = tmp_path / "blob.hlo"
    blob.write_bytes(b"\xff\xfe\x00")
    code, _, err = cli(capsys, command, str(blob))
    assert code == 2
    assert f"{blob}:1:1: error: not a text file (offset 0: byte 0xff is not UTF-8)" in err


@pytest.mark.parametrize(
    ("which", "fragment"),
    [
        ("pickled", "entry 'arg0' holds pickled Python objects, which xlapy does not load"),
        ("npy", "is a single .npy array, not an .npz archive"),
        ("text", "not an .npz archive of numpy arrays (write one with numpy.savez)"),
        ("raw", "entry 'arg0' is not a numpy array"),
        ("f64", "arg0 has dtype float64 but the parameter is f32[2]; save it with dtype float32"),
        ("shape", "argument 0 (x): expected shape f32[2]; got f32[3]"),
        ("other", "lacks arg0; it holds x (the program takes arg0: f32[2])"),
    ],
)  # fmt: skip
def test_run_bad_inputs(capsys, program, npz_files, which, fragment):
    code, _, err = cli(capsys, "run", str(program), "--inputs", str(npz_files[which]))
    assert code == 2
    assert fragment in err
    assert "Traceback" not in err


def test_run_missing_inputs_and_unwritable_outputs(capsys, program, npz_files, tmp_path):
    code, _, err = cli(capsys, "run", str(program))
    assert (code, err.strip()) == (
        2,
        "error: the entry computation takes 1 arguments; pass --inputs",
    )
    code, _, err = cli(capsys, "run", str(program), "--inputs", str(tmp_path / "none.npz"))
    assert code == 2
    assert f"--inputs {tmp_path / 'none.npz'}: no such file" in err
    out = tmp_path / "no" / "such" / "dir.npz"
    code, _, err = cli(capsys, "run", str(program), "--inputs", str(npz_files["good"]),
                       "--outputs", str(out))  # fmt: skip
    assert code == 2
    assert f"--outputs {out}: cannot be written" in err


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--replicas", "0"], "--replicas must be >= 1; got 0"),
        (["--partitions", "-2"], "--partitions must be >= 1; got -2"),
        (["--timeout", "0"], "--timeout must be a positive number of seconds; got 0.0"),
    ],
)
def test_run_bad_flags(capsys, program, npz_files, flags, fragment):
    code, _, err = cli(capsys, "run", str(program), "--inputs", str(npz_files["good"]), *flags)
    assert (code, err.strip()) == (2, f"error: {fragment}")


def test_unparsable_flag_values_exit_2(capsys, program):
    with pytest.raises(SystemExit) as info:
        main(["run", str(program), "--replicas", "two"])
    assert info.value.code == 2
    assert "invalid int value: 'two'" in capsys.readouterr().err


def test_run_ill_typed_program_is_located(capsys, tmp_path):
    path = tmp_path / "bad.hlo"
    path.write_text(ADD.replace("ROOT r = f32[2] add", "ROOT r = f32[3] add"))
    code, _, err = cli(capsys, "run", str(path))
    assert code == 2
    assert f"{path}:5:19: error: add %r: declares result f32[3]" in err
    assert "^" in err


def test_print_verify_type_checks_with_location(capsys, tmp_path):
    path = tmp_path / "bad.hlo"
    path.write_text(ADD.replace("add(x, x)", "add(x, x), dimensions={0}"))
    code, _, _ = cli(capsys, "print", str(path))
    assert code == 0  # printing needs syntax only
    path.write_text(ADD.replace("ROOT r = f32[2] add", "ROOT r = s32[2] add"))
    code, _, err = cli(capsys, "print", "--verify", str(path))
    assert code == 2
    assert f"{path}:5:19: error: add %r: declares result s32[2]" in err


def test_interpret_reports_unreadable_files_and_runs_the_others(capsys, tmp_path):
    good = tmp_path / "ok.mlir"
    good.write_text("func.func @main() {\n  func.return\n}\n")
    code, out, _ = cli(capsys, "interpret", str(tmp_path / "missing.mlir"), str(good))
    assert code == 2
    assert f"FAIL {tmp_path / 'missing.mlir'}: {tmp_path / 'missing.mlir'}: no such file" in out
    assert f"PASS {good}:main" in out
    assert out.strip().endswith("1 passed, 1 failed")


def test_interpret_bad_args(capsys, tmp_path):
    good = tmp_path / "ok.mlir"
    good.write_text("func.func @main() {\n  func.return\n}\n")
    code, _, err = cli(capsys, "interpret", str(good), "--args=[1]")
    assert code == 2
    assert "--args:1:1: error: expected dense elements attribute" in err


def test_indexing_bad_arguments(capsys, tmp_path):
    code, _, err = cli(capsys, "indexing", str(CNN), "--instruction", "nope")
    assert (code, err.strip()) == (2, "error: indexing: no instruction named 'nope'")
    code, _, err = cli(capsys, "indexing", "--simplify", "(d0")
    assert code == 2
    assert "<--simplify>:1:4: error: indexing map" in err
    code, _, err = cli(capsys, "indexing")
    assert (code, err.strip()) == (2, "error: indexing: give an HLO file or --simplify MAP")
