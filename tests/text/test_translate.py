"""HLO -> StableHLO round trips on real programs (issue #11 item 4).

* Every program of ``examples/`` and ``tests/e2e/data/`` (``.hlo``, XLA's ``.opt.hlo``, ``.mlir``)
  translates to StableHLO that xlapy's parser reads back and the interpreter runs with
  results bit-identical to the original program's (inputs ``<name>.inputs.npz``).
* The same text is read by jaxlib's MLIR (parse + verify) and compiled and run by XLA:CPU,
  whose results match JAX's own (``<name>.outputs.npz``) as closely as the e2e tests ask; the
  StableHLO reference interpreter in jaxlib gives the same bits on the translation of JAX's
  StableHLO as on JAX's StableHLO itself.
* The SPMD programs of ``tests/e2e/collectives`` round-trip on 8 devices, bit for bit.
* A deterministic sample of the conformance corpus: each test loaded, printed as StableHLO,
  loaded again and run; every check op still passes.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.literal import values_equal
from xlapy.text.stablehlo_parser import parse_stablehlo, parse_stablehlo_tests
from xlapy.text.stablehlo_printer import print_stablehlo

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools.xla_cpu import run_xla  # noqa: E402

DIRECTORIES = (ROOT / "examples", ROOT / "tests" / "e2e" / "data")
VARIANTS = {"hlo": ".hlo", "opt": ".opt.hlo", "mlir": ".mlir"}
COLLECTIVES = ROOT / "tests" / "e2e" / "collectives"
CORPUS = ROOT.parent / "shared" / "conformance"
CONFORMANCE_STEP = 15
"""Every 15th corpus file (sorted by path, known failures skipped): about 100 files."""


def _programs() -> list[tuple[str, Path]]:
    return [
        (outputs.name.removesuffix(".outputs.npz"), directory)
        for directory in DIRECTORIES
        for outputs in sorted(directory.glob("*.outputs.npz"))
    ]


PROGRAMS = [
    pytest.param(name, directory, variant, id=f"{name}-{variant}")
    for name, directory in _programs()
    for variant in VARIANTS
]


@functools.cache
def translated(name: str, directory: Path, variant: str) -> tuple[xlapy.HloModule, str]:
    """The original module and its StableHLO text (printed once per session)."""
    module = xlapy.load(directory / f"{name}{VARIANTS[variant]}")
    return module, print_stablehlo(module)


def inputs(name: str, directory: Path) -> list[np.ndarray]:
    data = np.load(directory / f"{name}.inputs.npz")
    return [data[f"arg{i}"] for i in range(len(data.files))]


def assert_same_results(want: list[object], got: list[object], what: str) -> None:
    __tracebackhide__ = True
    assert len(got) == len(want), f"{what}: {len(got)} results; the original gives {len(want)}"
    for i, (w, g) in enumerate(zip(want, got, strict=True)):
        assert values_equal(w, g), f"{what}: result {i} differs\n  original {w!r}\n  printed  {g!r}"


@pytest.mark.parametrize(("name", "directory", "variant"), PROGRAMS)
def test_program_round_trips_bit_for_bit(name: str, directory: Path, variant: str) -> None:
    module, text = translated(name, directory, variant)
    again = parse_stablehlo(text, f"{name}{VARIANTS[variant]}.stablehlo.mlir")
    assert print_stablehlo(again) == text, "printing what was read back changes the text"
    args = inputs(name, directory)
    flush = variant == "opt"  # as the e2e tests run XLA's optimized programs
    want = xlapy.run(module, *args, flush_denormals=flush, platform="interpreter")
    got = xlapy.run(again, *args, flush_denormals=flush, platform="interpreter")
    assert_same_results(want, got, f"{name} ({variant})")


# ---- jaxlib: MLIR and XLA:CPU on the printed text ------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """As the e2e tests: floats within ``max_ulp`` ulp of JAX's value or within ``relative``
    times the largest magnitude of the output; everything else exact."""

    max_ulp: int = 4
    relative: float = 1e-6


def ordered(values: np.ndarray) -> np.ndarray:
    """Integers ordered like the floats ``values`` (adjacent floats differ by 1)."""
    unsigned = np.ascontiguousarray(values).view(f"u{values.dtype.itemsize}").astype(np.uint64)
    sign = unsigned >> np.uint64(values.dtype.itemsize * 8 - 1)
    magnitude = (unsigned & ~(sign << np.uint64(values.dtype.itemsize * 8 - 1))).astype(np.int64)
    return np.where(sign == 1, -magnitude, magnitude)


def assert_close(
    got: np.ndarray, want: np.ndarray, what: str, tol: Tolerance = Tolerance()
) -> None:
    __tracebackhide__ = True
    assert got.dtype == want.dtype, f"{what}: XLA gives {got.dtype}, JAX {want.dtype}"
    assert got.shape == want.shape, f"{what}: XLA gives {got.shape}, JAX {want.shape}"
    element = dtypes.from_numpy(want.dtype)
    if not (element.is_float or element.is_complex):
        assert np.array_equal(got, want), f"{what}: XLA and JAX differ"
        return
    parts = (np.real, np.imag) if element.is_complex else (np.asarray,)
    for part in parts:
        g, w = np.ascontiguousarray(part(got)), np.ascontiguousarray(part(want))
        wide_g, wide_w = g.astype(np.float64), w.astype(np.float64)
        scale = np.abs(wide_w[np.isfinite(wide_w)]).max(initial=0.0)
        with np.errstate(invalid="ignore"):
            near = np.abs(wide_g - wide_w) <= tol.relative * scale
        bad = (np.abs(ordered(g) - ordered(w)) > tol.max_ulp) & ~near
        bad = np.where(
            np.isnan(wide_w) | np.isnan(wide_g), np.isnan(wide_w) != np.isnan(wide_g), bad
        )
        assert not bad.any(), f"{what}: {int(bad.sum())} of {bad.size} elements differ"


def mlir_parses(text: str, allow_unregistered: bool = False) -> None:
    """jaxlib's MLIR parses and verifies ``text`` (StableHLO and CHLO registered)."""
    pytest.importorskip("jax")
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    with jax_mlir.make_ir_context() as context:
        context.allow_unregistered_dialects = allow_unregistered
        ir.Module.parse(text)


HEAVY_FOR_XLA = frozenset({"random_distributions", "rng_bits"})
"""Programs XLA:CPU takes 5-10 s to compile: checked in the slow run only."""
XLA_PROGRAMS = [
    pytest.param(
        name,
        directory,
        variant,
        id=f"{name}-{variant}",
        marks=[pytest.mark.oracle]
        + ([pytest.mark.slow] if variant != "hlo" or name in HEAVY_FOR_XLA else []),
    )
    for name, directory in _programs()
    for variant in VARIANTS
]
"""The translation of every program's HLO (XLA's optimized HLO and the StableHLO too in
the slow run)."""


@pytest.mark.parametrize(("name", "directory", "variant"), XLA_PROGRAMS)
def test_xla_runs_printed_text(name: str, directory: Path, variant: str) -> None:
    _, text = translated(name, directory, variant)
    mlir_parses(text)
    got = run_xla(text, inputs(name, directory))
    data = np.load(directory / f"{name}.outputs.npz")
    want = [data[f"out{i}"] for i in range(len(data.files))]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_close(g, w, f"{name} ({variant}) output {i}")


REFERENCE_SLOW = frozenset({"cnn", "gather_scatter", "random_threefry", "scan_with_cond",
                            "random_distributions"})  # fmt: skip
"""Programs the reference interpreter takes seconds over: checked in the slow run only."""
REFERENCE_CANNOT_RUN = {
    "fft": "the interpreter crashes on its fft",
    "linalg": "LAPACK custom calls",
    "random_philox": "rng_bit_generator aborts the interpreter",
    "random_rbg": "rng_bit_generator aborts the interpreter",
    "random_rbg_bits": "rng_bit_generator aborts the interpreter",
    "rng_bits": "rng_bit_generator aborts the interpreter",
}
"""Programs jaxlib's reference interpreter cannot run, JAX's own StableHLO included."""


def reference_worker() -> ModuleType:
    """``tests/property/reference_worker.py``: the StableHLO reference interpreter of jaxlib,
    run in a child process (it aborts on what it does not support)."""
    pytest.importorskip("jax")
    module = sys.modules.get("reference_worker")
    if module is None:
        path = ROOT / "tests" / "property" / "reference_worker.py"
        spec = importlib.util.spec_from_file_location("reference_worker", path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["reference_worker"] = module
        spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "directory"),
    [
        pytest.param(
            name,
            directory,
            id=name,
            marks=[pytest.mark.oracle] + ([pytest.mark.slow] if name in REFERENCE_SLOW else []),
        )
        for name, directory in _programs()
        if name not in REFERENCE_CANNOT_RUN
    ],
)
def test_reference_interpreter_agrees(name: str, directory: Path) -> None:
    """The StableHLO reference interpreter gives the very same bits on JAX's StableHLO and on
    xlapy's translation of it (where it runs the program at all)."""
    _, text = translated(name, directory, "mlir")
    original = (directory / f"{name}.mlir").read_text()
    data = np.load(directory / f"{name}.outputs.npz")
    outputs = [(data[f"out{i}"].dtype, data[f"out{i}"].shape) for i in range(len(data.files))]
    worker = reference_worker().WORKER
    status, want = worker.run(original, inputs(name, directory), outputs)
    assert status == "ok", want
    status, got = worker.run(text, inputs(name, directory), outputs)
    assert status == "ok", got
    assert_same_results(want, got, f"{name} on the reference interpreter")


# ---- SPMD programs ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.stem for p in COLLECTIVES.glob("*.hlo")))
def test_collective_program_round_trips(name: str) -> None:
    module = xlapy.load(COLLECTIVES / f"{name}.hlo")
    text = print_stablehlo(module)
    again = parse_stablehlo(text)
    assert again.config.replica_count == module.config.replica_count
    assert again.config.num_partitions == module.config.num_partitions
    data = np.load(COLLECTIVES / f"{name}.npz")
    devices = module.config.replica_count * module.config.num_partitions
    count = len(module.entry.parameters)
    args = [[data[f"arg{i}.dev{d}"] for d in range(devices)] for i in range(count)]
    want, got = (
        xlapy.run(module, *args, platform="interpreter"),
        xlapy.run(again, *args, platform="interpreter"),
    )
    for device, (w, g) in enumerate(zip(want, got, strict=True)):
        assert_same_results(w, g, f"{name} on device {device}")


# ---- conformance sample ------------------------------------------------------------------------


HAS_JAX = importlib.util.find_spec("jax") is not None
JAXLIB_CANNOT_READ = ("stablehlo.collective_reduce", "has_dynamic_root", "!quant.")
"""Corpus features jaxlib 0.10.2's MLIR lacks: ops of a newer StableHLO, and the quant dialect
(not registered in jaxlib, so quantized types parse as opaque types)."""


def _conformance_sample() -> list[object]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="no conformance corpus"))]
    known = ROOT / "tests" / "conformance" / "xfail.txt"
    failing = {
        line.split()[0] for line in known.read_text().splitlines() if line and line[0] != "#"
    }
    files = [f for f in sorted(CORPUS.rglob("*.mlir")) if str(f.relative_to(CORPUS)) not in failing]
    return [pytest.param(f, id=str(f.relative_to(CORPUS))) for f in files[::CONFORMANCE_STEP]]


@pytest.mark.parametrize("path", _conformance_sample())
def test_conformance_file_round_trips(path: Path) -> None:
    """Load -> print StableHLO -> load -> run: every check op still passes; the printed text
    is what printing the reloaded module gives, and jaxlib's MLIR reads it."""
    from xlapy.cli.interpret_cmd import parse_args_attr, run_mode, run_module

    text = path.read_text()
    interpret, args_text = run_mode(text)
    args = parse_args_attr(args_text) if args_text else None
    cases = list(parse_stablehlo_tests(text, str(path)))
    assert cases
    for case in cases:
        assert case.module is not None, str(case.error)
        printed = print_stablehlo(case.module)
        again = parse_stablehlo(printed, f"{path.name}:{case.name}")
        assert print_stablehlo(again) == printed
        if HAS_JAX and not any(feature in printed for feature in JAXLIB_CANNOT_READ):
            mlir_parses(printed, allow_unregistered=True)  # check.*, interpreter.* ops
        if interpret:
            with contextlib.redirect_stdout(io.StringIO()):
                failures, _ = run_module(again, args)
            assert not failures, f"{case.name}: {failures[0]}"
