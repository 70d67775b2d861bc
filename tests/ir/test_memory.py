"""Static peak-memory estimates and the budget check that refuses a program before it runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgument
from xlapy.ir import memory
from xlapy.ir.memory import check_memory, peak_memory, shape_bytes, upper_bound

CHAIN = """HloModule chain

ENTRY main {
  p = f32[1000] parameter(0)
  a = f32[1000] exponential(p)
  b = f32[1000] negate(a)
  c = f32[1000] add(a, b)
  d = f32[1000] sqrt(c)
  ROOT t = (f32[1000]) tuple(d)
}
"""

HUGE = """HloModule huge

ENTRY main {
  p = f32[] parameter(0)
  b = f32[100000,1000000] broadcast(p), dimensions={}
  ROOT n = f32[100000,1000000] negate(b)
}
"""


def test_shape_bytes_counts_elements_times_width() -> None:
    assert shape_bytes(xlapy.shape("f32[2,3]")) == 24
    assert shape_bytes(xlapy.shape("s4[3]")) == 2  # sub-byte types round up per array
    assert shape_bytes(xlapy.shape("(f32[2], pred[8])")) == 16


def test_peak_is_the_largest_live_set() -> None:
    # p is held by the caller; a, b live together at c (a, b, c = 12 KB with p: 16 KB).
    estimate = peak_memory(xlapy.load(CHAIN))
    assert estimate.peak_bytes == 16000
    assert estimate.at is not None
    assert estimate.at.name == "c"


def test_a_373_gib_program_is_refused_before_anything_is_allocated() -> None:
    module = xlapy.load(HUGE)
    assert peak_memory(module).peak_bytes == 2 * 400_000_000_000 + 4
    with pytest.raises(InvalidArgument, match=r"needs 745\.1 GiB of live values at negate n "
                       r"\(f32\[100000,1000000\]\), above the memory budget of 1\.0 GiB"):  # fmt: skip
        check_memory(module, 1 << 30)


def test_the_default_budget_is_most_of_the_available_memory() -> None:
    with pytest.raises(InvalidArgument, match=r"80% of the .* available"):
        check_memory(xlapy.load(HUGE))
    check_memory(xlapy.load(CHAIN))  # fits


def test_each_device_holds_its_own_values() -> None:
    module = xlapy.load(CHAIN)
    check_memory(module, 16000)
    with pytest.raises(InvalidArgument, match=r"\(8 devices x 15\.6 KiB\)"):
        check_memory(module, 16000, devices=8)


def test_run_refuses_before_allocating_and_the_cli_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlapy.cli import main

    module = xlapy.load(HUGE)
    for platform in ("interpreter", "cpu"):
        with pytest.raises(InvalidArgument, match=r"needs 745\.1 GiB"):
            xlapy.run(module, np.float32(1), platform=platform)
    with pytest.raises(InvalidArgument, match="max_memory must be a positive number of bytes"):
        xlapy.run(
            xlapy.load(CHAIN), np.ones(1000, np.float32), max_memory=-1, platform="interpreter"
        )
    program = tmp_path / "chain.hlo"
    program.write_text(CHAIN)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.ones(1000, np.float32))
    argv = ["run", str(program), "--inputs", str(inputs), "--platform", "interpreter"]
    assert main([*argv, "--max-memory", "8K"]) == 2
    assert "above the memory budget of 8.0 KiB (--max-memory" in capsys.readouterr().err
    assert main([*argv, "--max-memory", "1M"]) == 0


def test_the_upper_bound_is_every_value_and_spares_the_peak_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = xlapy.load(CHAIN)
    # p, a, b, c, d (the tuple aliases d): 20 KB, above the 16 KB peak.
    assert upper_bound(module) == 20000 >= peak_memory(module).peak_bytes
    monkeypatch.setattr(memory, "peak_memory", lambda m: pytest.fail("peak analysed"))
    check_memory(module, 20000)  # the bound fits: no peak analysis
    check_memory(module)
    monkeypatch.undo()
    check_memory(module, 16000)  # the bound does not fit, the peak does
    with pytest.raises(InvalidArgument, match=r"needs 15\.6 KiB of live values at add c"):
        check_memory(module, 15999)
