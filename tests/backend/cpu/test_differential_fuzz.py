"""A short run of the differential fuzzer (``tools/fuzz/differential.py``, issue #20): a fixed
sample of random HLO programs (every elementwise op kind and dtype of the cpu platform,
adversarial values, data movement, reductions, dots, sorts, windows, loops, conditionals)
gives the interpreter's values on ``cpu`` (bits, except the documented approximations).
``scripts/fuzz.sh differential SECONDS`` runs the campaign."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tools.fuzz.differential import Mismatch, Stats, check, compare, differential_test  # noqa: E402
from tools.fuzz.programs import Program  # noqa: E402


def test_a_fixed_sample_of_random_programs_agrees() -> None:
    stats = Stats()
    differential_test(examples=25, stats=stats, derandomize=True)()
    assert stats.run >= 20  # programs compared (a few may be refused by both platforms)
    assert stats.invalid == 0


def test_the_comparison_sees_a_wrong_bit_and_ignores_nan_payloads() -> None:
    program = Program("", [], [True, False])
    nan = np.array([np.nan, -np.nan, 1.0], np.float32)
    assert compare(program, [nan, nan], [nan[[1, 0, 2]], nan]) is None
    zero = np.array([0.0], np.float32)
    problem = compare(program, [-zero, zero], [zero, zero])
    assert problem is not None
    assert problem.startswith("output 0 (exact) differs at [(0,)]")
    assert compare(program, [zero, zero * 1.001], [zero, zero]) is None  # approximate output


def test_a_cpu_miscompile_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    import xlapy

    text = """HloModule m
ENTRY main {
  p = s32[3] parameter(0)
  ROOT out = (s32[3]) tuple(p)
}
"""
    program = Program(text, [np.array([1, 2, 3], np.int32)], [True])
    check(program)  # agrees
    compile_ = xlapy.compile

    def wrong(module: xlapy.HloModule, platform: str = "cpu", **options: object) -> object:
        exe = compile_(module, platform, **options)
        return lambda *args: [v + 1 for v in exe(*args)]

    monkeypatch.setattr(xlapy, "compile", wrong)
    with pytest.raises(Mismatch, match=r"output 0 \(exact\) differs at \[\(0,\), \(1,\)"):
        check(program)


@pytest.mark.parametrize(
    ("op", "args"),
    [
        ("power", (2.5, 2.5)),  # cpu ...186, interpreter ...185 (the campaign's finding)
        ("exponential-minus-one", (1.0,)),  # a 1-ulp difference found while fuzzing scans
    ],
)
def test_f64_libm_ops_are_reported_approximate_and_stay_within_two_ulp(
    op: str, args: tuple[float, ...]
) -> None:
    """f64 transcendental ops run LLVM's libm on cpu and numpy's routines on the interpreter:
    the kernel must not claim the interpreter's bits, and the two stay within 2 ulp."""
    import xlapy

    params = "\n".join(f"  p{i} = f64[4] parameter({i})" for i in range(len(args)))
    names = ", ".join(f"p{i}" for i in range(len(args)))
    text = f"HloModule m\nENTRY main {{\n{params}\n  ROOT r = f64[4] {op}({names})\n}}\n"
    module = xlapy.load(text)
    values = [np.full(4, a, np.float64) for a in args]
    exe = xlapy.compile(module, platform="cpu", tiered=False)
    assert "[not bit-exact]" in exe.report()
    got = exe(*values)[0]
    want = xlapy.run(module, *values, platform="interpreter")[0]
    assert np.max(np.abs(got.view(np.int64) - want.view(np.int64))) <= 2
