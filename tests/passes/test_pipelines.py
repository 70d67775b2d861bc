"""The pipelines: default_pipeline keeps every example program's results bit-identical (floats
included) and keeps a sample of the StableHLO conformance corpus passing; nested pipelines,
dumps and the verify contract."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest
from pass_util import assert_shapes_infer, optimize

import xlapy
from xlapy.errors import VerificationError
from xlapy.ir.clone import clone_module
from xlapy.ir.module import HloModule
from xlapy.literal import values_equal
from xlapy.passes.pass_manager import PASSES, Pass, Pipeline
from xlapy.passes.pipelines import default_pipeline, simplification_passes

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted(
    p
    for directory in (ROOT / "examples", ROOT / "tests" / "e2e" / "data")
    for pattern in ("*.hlo", "*.mlir")
    for p in directory.glob(pattern)
)


def _inputs(program: Path) -> list[np.ndarray]:
    stem = program.name.split(".")[0]
    with np.load(program.parent / f"{stem}.inputs.npz") as archive:
        return [archive[f"arg{i}"] for i in range(len(archive.files))]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_default_pipeline_keeps_results_bit_identical(program: Path):
    module = xlapy.load(program)
    args = _inputs(program)
    want = xlapy.run(module, *args, platform="interpreter")
    optimized = clone_module(module)
    # default_pipeline(verify=True), run in two steps so that the simplification passes can
    # be checked idempotent on their own output before fusion (when registered) runs.
    *simplify, last = default_pipeline(verify=True).passes
    fusion = [last] if isinstance(last, Pass) and last.name == "fusion" else []
    if not fusion:
        simplify.append(last)
    Pipeline(simplify, verify=True).run(optimized)
    again = Pipeline(simplification_passes(), verify=True)
    assert not again.run(optimized), again.log
    Pipeline(fusion, verify=True).run(optimized)
    got = xlapy.run(optimized, *args, platform="interpreter")
    assert values_equal(tuple(want), tuple(got))
    assert_shapes_infer(optimized)


def test_default_pipeline_shrinks_a_program_of_constants_to_one_constant():
    """(As XLA: multiply(constant, broadcast(constant)) folds, multiply(iota, broadcast) would
    not, having no constant operand.)"""
    module = optimize(
        """
HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  i = s32[8] constant({0, 1, 2, 3, 4, 5, 6, 7})
  two = s32[] constant(2)
  b = s32[8] broadcast(two), dimensions={}
  m = s32[8] multiply(i, b)
  z = s32[] constant(0)
  ROOT r = s32[] reduce(m, z), dimensions={0}, to_apply=add
}""",
        "algebraic-simplifier",
        "constant-folding",
        "dce",
    )
    assert [i.opcode.value for i in module.entry.instructions] == ["constant"]
    pipelined = xlapy.load(
        "HloModule m\nENTRY e {\n  a = f32[2] constant({1, 2})\n  ROOT n = f32[2] negate(a)\n}\n"
    )
    default_pipeline(verify=True).run(pipelined)
    assert pipelined.entry.root.opcode.value in ("constant", "fusion")


def test_default_pipeline_ends_with_fusion_when_registered():
    pipeline = default_pipeline()
    names = [p.name for p in pipeline.flat_passes()]
    assert names[:2] == ["flatten-call-graph", "inline"]
    assert names[-1] == "fusion" if "fusion" in PASSES else names[-1] == "dce"
    assert pipeline.passes[2].fixpoint


# ---- the conformance corpus -----------------------------------------------------------------

CORPUS = ROOT.parent / "shared" / "conformance" / "stablehlo"


def _conformance_sample() -> list[Path]:
    """A fixed sample: every 3rd interpret file and every 45th static testdata file that
    the suite expects to pass (~60 files)."""
    if not CORPUS.is_dir():
        return []
    xfail_lines = (ROOT / "tests" / "conformance" / "xfail.txt").read_text().splitlines()
    xfail = {ln.split("#")[0].strip() for ln in xfail_lines if ln.strip()}
    files = [
        f for f in sorted(CORPUS.rglob("*.mlir")) if str(f.relative_to(CORPUS.parent)) not in xfail
    ]
    interpret = [f for f in files if f.parent.name == "interpret"]
    testdata = [f for f in files if f.parent.name == "testdata"]
    return interpret[::3] + testdata[::45]


@pytest.mark.parametrize("path", _conformance_sample(), ids=lambda p: p.name)
def test_conformance_checks_still_pass_after_the_pipeline(path: Path):
    from xlapy.cli.interpret_cmd import parse_args_attr, run_mode, run_module
    from xlapy.text.stablehlo_parser import parse_stablehlo_tests

    text = path.read_text()
    interpret, args_text = run_mode(text)
    args = parse_args_attr(args_text) if args_text else None
    cases = [c for c in parse_stablehlo_tests(text, str(path)) if c.module is not None]
    assert interpret
    assert cases
    for case in cases:
        default_pipeline(verify=True).run(case.module)
        with contextlib.redirect_stdout(io.StringIO()):
            failures, _ = run_module(case.module, args)
        assert not failures, f"{case.name}: {failures}"


# ---- the Pipeline machinery ----------------------------------------------------------------

SMALL = """
HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  z = s32[4] constant({0, 0, 0, 0})
  a = s32[4] add(p, z)
  ROOT n = s32[4] negate(a)
}
"""


def test_nested_pipelines_log_and_dump_each_pass(tmp_path: Path):
    module = xlapy.load(SMALL)
    inner = Pipeline(simplification_passes(), fixpoint=True)
    seen: list[str] = []
    outer = Pipeline(
        [inner], dump_dir=tmp_path, verify=True, on_pass=lambda p, m, changed: seen.append(p.name)
    )
    assert outer.run(module)
    assert outer.log == ["algebraic-simplifier"]  # it also removes the constant it orphans
    assert len(seen) == 12  # two rounds of six passes
    dumps = sorted(p.name for p in tmp_path.iterdir())
    assert dumps[0] == "01.algebraic-simplifier.hlo"
    assert len(dumps) == 12
    assert "add(" not in (tmp_path / "01.algebraic-simplifier.hlo").read_text()


class _Liar(Pass):
    """Changes the module but says it did not."""

    name = "liar"

    def run(self, module: HloModule) -> bool:
        comp = module.entry
        comp.replace_instruction(comp.root, comp.root.operands[0])
        return False


def test_verify_catches_a_pass_that_hides_its_changes():
    with pytest.raises(VerificationError, match=r"liar.*returned False"):
        Pipeline([_Liar()], verify=True).run(xlapy.load(SMALL))
