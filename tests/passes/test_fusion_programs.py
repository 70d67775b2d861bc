"""fusion on real programs: every JAX program of ``examples/`` and ``tests/e2e/data/`` (the
HLO JAX hands to XLA and XLA:CPU's optimized HLO, which is full of fusions already), and the
SPMD programs of ``tests/e2e/collectives/``, fuses into a module that verifies, prints and
parses back to the same text, does not change on a second run and gives bit-identical
interpreter results on the saved inputs."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest
from test_fusion_pass import assert_clean_fusions

import xlapy
from xlapy.ir.clone import clone_module
from xlapy.ir.opcode import Opcode
from xlapy.literal import values_equal
from xlapy.passes import fusion, fusion_injective
from xlapy.passes.fusion import Fusion, fusible_computations
from xlapy.passes.fusion_policy import (
    FusionLimits,
    NodeKind,
    all_defined,
    by_operand,
    iteration_maps,
    node_kind,
)
from xlapy.passes.pass_manager import Pipeline
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import print_hlo

ROOT = Path(__file__).resolve().parents[2]
DIRECTORIES = (ROOT / "examples", ROOT / "tests" / "e2e" / "data")
# Thousands of instructions (seconds of loading and fusion decisions each): `-m slow`.
SLOW = {"random_distributions.hlo", "random_distributions.opt.hlo", "rng_bits.opt.hlo"}


def _programs() -> list[object]:
    cases = []
    for directory in DIRECTORIES:
        for inputs in sorted(directory.glob("*.inputs.npz")):
            name = inputs.name.removesuffix(".inputs.npz")
            for suffix in (".hlo", ".opt.hlo"):
                path = directory / f"{name}{suffix}"
                if path.exists():
                    marks = [pytest.mark.slow] if path.name in SLOW else []
                    cases.append(pytest.param(path, id=path.name, marks=marks))
    return cases


@pytest.mark.parametrize("path", _programs())
def test_program_fuses_with_bit_identical_results(path: Path):
    original = xlapy.load(path)
    module = clone_module(original)
    Pipeline([Fusion()], verify=True).run(module)
    assert not Fusion().run(module), "a second run changed the module"
    assert_clean_fusions(module, ignore=_opaque_fusions(original))
    assert_nothing_left_to_wrap(module)
    text = print_hlo(module)
    assert print_hlo(parse_hlo(text)) == text
    stem = path.name.removesuffix(".opt.hlo").removesuffix(".hlo")
    with np.load(path.parent / f"{stem}.inputs.npz") as data:
        inputs = [data[f"arg{i}"] for i in range(len(data.files))]
    flush = path.name.endswith(".opt.hlo")  # as XLA:CPU runs its optimized programs
    want = xlapy.run(original, *inputs, flush_denormals=flush, platform="interpreter")
    got = xlapy.run(module, *inputs, flush_denormals=flush, platform="interpreter")
    assert values_equal(tuple(want), tuple(got)), f"{path.name}: results differ after fusion"


@pytest.mark.parametrize(
    "path", sorted((ROOT / "tests" / "e2e" / "collectives").glob("*.hlo")), ids=lambda p: p.name
)
def test_spmd_program_fuses_with_bit_identical_results(path: Path):
    """JAX's shard_map programs for 8 devices (collectives are never fused)."""
    original = xlapy.load(path)
    module = clone_module(original)
    Pipeline([Fusion()], verify=True).run(module)
    assert not Fusion().run(module), "a second run changed the module"
    data = np.load(path.with_suffix(".npz"))
    devices = original.config.replica_count * original.config.num_partitions
    args = [
        [data[f"arg{i}.dev{d}"] for d in range(devices)]
        for i in range(len(original.entry.parameters))
    ]
    want, got = (
        xlapy.run(original, *args, platform="interpreter"),
        xlapy.run(module, *args, platform="interpreter"),
    )
    for d, (w, g) in enumerate(zip(want, got, strict=True)):
        assert values_equal(tuple(w), tuple(g)), f"{path.name}: device {d} differs after fusion"


def assert_nothing_left_to_wrap(module: xlapy.HloModule) -> None:
    """No reduce or loop op (but constants and bitcasts) outside a fusion in the computations
    fusion works on, unless its indexing maps are undefined, it has control edges or
    nothing uses it."""
    __tracebackhide__ = True
    limits = FusionLimits(128, 64, 16)
    for comp in fusible_computations(module):
        users = {id(o) for i in comp.instructions for o in i.operands} | {id(comp.root)}
        ordered = {id(p) for i in comp.instructions for p in i.control_predecessors}
        for instr in comp.instructions:
            if instr.opcode in (Opcode.FUSION, Opcode.CONSTANT, Opcode.BITCAST):
                continue
            if id(instr) not in users or instr.control_predecessors or id(instr) in ordered:
                continue
            if node_kind(instr, limits, set()) is NodeKind.OPAQUE:
                continue
            maps = by_operand(instr, iteration_maps(instr))
            assert not all_defined(maps.values()), f"{comp.name}: {instr.name} is not fused"


def _opaque_fusions(module: xlapy.HloModule) -> frozenset[str]:
    """XLA's fusions the pass leaves alone (a reduce inside, a dot, ...): not checked."""
    limits = FusionLimits(1 << 30, 1 << 30, 1 << 62)
    return frozenset(
        i.attrs.calls.name
        for i in module.instructions()
        if i.opcode is Opcode.FUSION and node_kind(i, limits, set()) is NodeKind.OPAQUE
    )


@pytest.mark.parametrize("module", [fusion, fusion_injective], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
