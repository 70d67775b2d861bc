"""Compiled plan functions kept in the cache directory (``plan_code._compiled``): a long plan's
code object is stored once and read back by a later compile of the same source, and behaves
the same; a damaged entry is compiled again; short plans are not stored."""

from __future__ import annotations

from pathlib import Path

import pytest

import xlapy
from xlapy.backend.cpu import plan_code
from xlapy.backend.cpu.kernel import CompileOptions
from xlapy.backend.cpu.plan import Program


@pytest.fixture
def plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XLAPY_CACHE_DIR", str(tmp_path))
    return tmp_path / "plans"


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file names ``plan_code`` compiles source for."""
    names: list[str] = []

    def counting(source: str, filename: str, mode: str) -> object:
        names.append(filename)
        return compile(source, filename, mode)

    monkeypatch.setattr(plan_code, "compile", counting, raising=False)
    return names


def _source(steps: int) -> str:
    body = "".join(f"    v = v * 3 + {i}  # step {i}\n" for i in range(steps))
    return f"def f(v):\n{body}    return v\n"


def _call(code: object) -> int:
    namespace: dict[str, object] = {}
    exec(code, namespace)
    return namespace["f"](1)  # type: ignore[operator]


def _expected(steps: int) -> int:
    v = 1
    for i in range(steps):
        v = v * 3 + i
    return v


def test_a_long_source_is_stored_then_read_back(plans: Path, compiles: list[str]) -> None:
    source = _source(1000)
    assert len(source) >= plan_code.MIN_CACHED_SOURCE
    first = plan_code._compiled(source, "<xlapy plan f x>", "k1")
    assert compiles == ["<xlapy plan f x>"]
    assert [p.name for p in plans.iterdir()] == ["k1"]
    again = plan_code._compiled(source, "<xlapy plan f x>", "k1")
    assert compiles == ["<xlapy plan f x>"]  # not compiled again
    assert again is not first
    assert _call(again) == _call(first) == _expected(1000)


def test_another_file_name_or_a_damaged_entry_is_compiled_again(
    plans: Path, compiles: list[str]
) -> None:
    source = _source(1000)
    plan_code._compiled(source, "<xlapy plan f x>", "k1")
    (plans / "k1").write_bytes(b"\x00garbage")
    assert _call(plan_code._compiled(source, "<xlapy plan f x>", "k1")) == _expected(1000)
    assert _call(plan_code._compiled(source, "<xlapy plan g x>", "k1")) == _expected(1000)
    assert compiles == ["<xlapy plan f x>"] * 2 + ["<xlapy plan g x>"]


def test_short_sources_are_not_stored(plans: Path, compiles: list[str]) -> None:
    assert _call(plan_code._compiled(_source(3), "<xlapy plan f x>", "k1")) == _expected(3)
    assert not plans.exists()


def _chain(steps: int) -> str:
    lines = ["HloModule chain", "ENTRY main {", "  v0 = f32[8] parameter(0)",
             "  c = f32[8] constant({1, 1, 1, 1, 1, 1, 1, 1})"]  # fmt: skip
    lines += [f"  v{i} = f32[8] add(v{i - 1}, c)" for i in range(1, steps + 1)]
    lines += [f"  ROOT r = f32[8] negate(v{steps})", "}"]
    return "\n".join(lines)


def test_a_second_plan_of_a_long_program_compiles_no_source(
    plans: Path, compiles: list[str]
) -> None:
    module = xlapy.load(_chain(300))
    quick = CompileOptions(generated_kernels=False)
    Program(module, quick).plan(module.entry)
    assert len(compiles) == 1
    assert len(list(plans.iterdir())) == 1
    Program(xlapy.load(_chain(300)), quick).plan(module.entry)
    assert len(compiles) == 1
