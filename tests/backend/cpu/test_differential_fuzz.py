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

from tools.fuzz.bounds import BITS, Bound  # noqa: E402
from tools.fuzz.differential import Mismatch, Stats, check, compare, differential_test  # noqa: E402
from tools.fuzz.programs import Program  # noqa: E402


def test_a_fixed_sample_of_random_programs_agrees() -> None:
    stats = Stats()
    differential_test(examples=25, stats=stats, derandomize=True)()
    assert stats.run >= 20  # programs compared (a few may be refused by both platforms)
    assert stats.invalid == 0


def test_the_comparison_sees_a_wrong_bit_and_ignores_nan_payloads() -> None:
    program = Program("", [], [BITS, Bound("loose")])
    nan = np.array([np.nan, -np.nan, 1.0], np.float32)
    assert compare(program, [nan, nan], [nan[[1, 0, 2]], nan]) is None
    zero = np.array([0.0], np.float32)
    problem = compare(program, [-zero, zero], [zero, zero])
    assert problem is not None
    assert problem.startswith("output 0 (exact) differs at [(0,)]")
    assert compare(program, [zero, zero * 1.001], [zero, zero]) is None  # loose output


def _steps(x: np.ndarray, k: int) -> np.ndarray:
    """``x`` moved ``k`` floats away from zero (ulps of its own type)."""
    width = np.dtype(f"i{x.dtype.itemsize}")
    return (x.view(width) + np.sign(x.view(width)) * k).view(x.dtype)


@pytest.mark.parametrize(("t", "k"), [(np.float32, 1), (np.float32, 2), (np.float64, 4)])
def test_an_ulp_bound_admits_k_ulps_and_not_one_more(t: type, k: int) -> None:
    """The bound is not vacuous: a result one ulp beyond it is a mismatch, everywhere from
    subnormals to the largest finite value (which may round to infinity)."""
    info = np.finfo(t)
    want = np.array([1.0, -3.5, info.smallest_subnormal, 1e-30, info.max / 4, 7.0], t)
    program = Program("", [], [Bound("ulps", ((k, np.dtype(t).name.replace("float", "f")),))])
    assert compare(program, [_steps(want, k)], [want]) is None
    inner = want[[0, 1, 5]]
    assert compare(program, [_steps(inner, -k)], [inner]) is None
    for i in range(len(want)):
        wrong = want.copy()
        wrong[i : i + 1] = _steps(want[i : i + 1], k + 1)
        assert compare(program, [wrong], [want]) is not None, want[i]
    top = np.array([info.max], t)
    assert compare(program, [np.array([np.inf], t)], [top]) is None  # 1 ulp: overflow
    assert compare(program, [np.array([np.inf], t)], [top / 2]) is not None


def test_a_sum_bound_scales_with_the_magnitudes_and_catches_a_wrong_term() -> None:
    """A reassociated sum of 1e8, 1, -1e8 (f32) may be 0 or 1 or 2 within the bound
    (``2 gamma(3) * 2e8`` is about 72), but not 100; a sum of small terms gets a small bound;
    where the magnitudes are NaN the result must be NaN."""
    bound = Bound("sum", (), 4, ("s",))
    program = Program("", [], [bound], scales=[(1,)])
    scale = np.float64(2e8 + 1)
    for got in (0.0, 1.0, 2.0, 64.0):
        assert compare(program, [np.float32(got), scale], [np.float32(1.0), scale]) is None
    assert compare(program, [np.float32(200.0), scale], [np.float32(1.0), scale]) is not None
    small = np.float64(3.0)
    assert compare(program, [np.float32(1.0 + 2**-18), small], [np.float32(1.0), small]) is not None
    nan = np.float64(np.nan)
    assert compare(program, [np.float32(0.0), nan], [np.float32(np.nan), nan]) is not None


def test_a_real_exp_off_by_two_ulps_is_a_finding() -> None:
    """End to end on a drawn-like program: f32 exp carries a 1-ulp bound; the cpu's own
    result passes, the same result moved 2 ulps fails."""
    import xlapy

    text = """HloModule m
ENTRY main {
  p = f32[64] parameter(0)
  e = f32[64] exponential(p)
  n = f32[64] negate(e)
  ROOT out = (f32[64]) tuple(n)
}
"""
    x = np.linspace(-80, 80, 64, dtype=np.float32)
    program = Program(text, [x], [Bound("ulps", ((1, "f32"),))])
    check(program)
    module = xlapy.load(text)
    got = xlapy.compile(module, platform="cpu", tiered=False)(x)[0]
    want = xlapy.run(module, x, platform="interpreter")[0]
    assert compare(program, [got], [want]) is None
    assert compare(program, [_steps(got, 2)], [want]) is not None


def test_a_cpu_miscompile_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    import xlapy

    text = """HloModule m
ENTRY main {
  p = s32[3] parameter(0)
  ROOT out = (s32[3]) tuple(p)
}
"""
    program = Program(text, [np.array([1, 2, 3], np.int32)], [BITS])
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


def test_the_generator_draws_every_kind_of_bound_and_donation() -> None:
    """Drawing (not running) programs: exact, ulp-bounded and summation-bounded outputs
    appear (the rarer kinds are counted by the campaign's summary lines), with the companion
    outputs their bounds read, and modules that donate parameters."""
    from hypothesis import HealthCheck, given, settings

    from tools.fuzz.programs import programs

    kinds: set[str] = set()
    donating = 0

    @settings(max_examples=300, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(programs(12))
    def draw(program: Program) -> None:
        nonlocal donating
        donating += bool(program.donated)
        for bound, scales in zip(program.bounds, program.scales, strict=True):
            kinds.add(bound.kind)
            assert len(scales) == len(bound.companions)
        if program.donated:
            assert "input_output_alias=" in program.text or "buffer_donor=" in program.text

    draw()
    assert {"bits", "ulps"} <= kinds
    assert kinds & {"sum", "dot", "product"}
    assert donating >= 50
