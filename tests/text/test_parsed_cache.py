"""The persistent cache of parsed programs (``xlapy.text.parsed_cache``): a large text loaded
again (in a later process) comes from its entry, gives the same module and the same results,
keeps the one-object-per-type invariants, and a bad entry or a failing text never changes
what ``load`` returns or raises."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import ParseError
from xlapy.ir.opdefs import REGISTRY
from xlapy.text import parsed_cache
from xlapy.text.hlo_printer import print_hlo

STEPS = 400


def _program(bad: str = "") -> str:
    """x + 1 + 1 ... (STEPS times), long enough to be cached; ``bad`` replaces one op."""
    lines = ["func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {",
             "  %one = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>",
             "  %v0 = stablehlo.add %arg0, %one : tensor<4xf32>"]  # fmt: skip
    lines += [f"  %v{i} = stablehlo.add %v{i - 1}, %one : tensor<4xf32>" for i in range(1, STEPS)]
    if bad:
        lines[STEPS // 2] = bad
    lines += [f"  return %v{STEPS - 1} : tensor<4xf32>", "}", ""]
    text = "\n".join(lines)
    assert len(text) >= parsed_cache.MIN_CHARS
    return text


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XLAPY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("XLAPY_PARSED_CACHE", raising=False)
    return tmp_path / "parsed"


def _entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*.pickle")) if cache_dir.exists() else []


def _run(module: xlapy.HloModule) -> np.ndarray:
    (out,) = xlapy.run(module, np.arange(4, dtype=np.float32), platform="interpreter")
    return np.asarray(out)


def test_a_loaded_text_is_read_back_from_its_entry(cache_dir: Path) -> None:
    text = _program()
    parsed = xlapy.load(text)
    (entry,) = _entries(cache_dir)
    cached = xlapy.load(text)
    assert cached is not parsed
    assert print_hlo(cached) == print_hlo(parsed)
    np.testing.assert_array_equal(_run(cached), np.arange(4, dtype=np.float32) + STEPS)
    for instr in cached.entry.instructions:
        assert instr.shape.element_type is dtypes.F32
        assert instr.opdef is REGISTRY[instr.opcode]
    entry.write_bytes(b"")  # proof it was read: an empty entry is not a module
    assert print_hlo(xlapy.load(text)) == print_hlo(parsed)


@pytest.mark.parametrize("garbage", [b"", b"not a pickle", b"\x80\x05K\x01."])
def test_a_bad_entry_is_replaced_by_parsing(cache_dir: Path, garbage: bytes) -> None:
    text = _program()
    want = print_hlo(xlapy.load(text))
    (entry,) = _entries(cache_dir)
    entry.write_bytes(garbage)
    assert print_hlo(xlapy.load(text)) == want
    assert entry.read_bytes() != garbage
    assert print_hlo(xlapy.load(text)) == want


def test_a_failing_text_is_not_cached_and_fails_each_time(cache_dir: Path) -> None:
    text = _program("  %v198 = stablehlo.add %v197, %missing : tensor<4xf32>")
    for _ in range(2):
        with pytest.raises(ParseError, match=r":201:\d+: .*use of undefined value %missing"):
            xlapy.load(text)
    assert _entries(cache_dir) == []


def test_file_name_and_verify_are_part_of_the_key(cache_dir: Path, tmp_path: Path) -> None:
    text = _program()
    path = tmp_path / "p.mlir"
    path.write_text(text)
    xlapy.load(text)
    xlapy.load(path)
    xlapy.load(text, verify=False)
    assert len(_entries(cache_dir)) == 3


def test_small_texts_and_the_switch_skip_the_cache(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xlapy.load("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}")
    monkeypatch.setenv("XLAPY_PARSED_CACHE", "0")
    xlapy.load(_program())
    assert _entries(cache_dir) == []


def test_the_oldest_entries_go_beyond_the_limit(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parsed_cache, "MAX_ENTRIES", 2)
    texts = [_program().replace("%v0 ", f"%v0{'_' * k} ").replace("%v0,", f"%v0{'_' * k},")
             for k in range(3)]  # fmt: skip
    for text in texts:
        xlapy.load(text)
        time.sleep(0.01)  # distinct modification times
    assert len(_entries(cache_dir)) == 2
    assert parsed_cache.lookup(texts[0], "<string>", True) is None
    assert parsed_cache.lookup(texts[2], "<string>", True) is not None
