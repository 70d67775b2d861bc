"""``xlapy opt FILE --pipeline=default`` on every HLO program of the repository (JAX's programs,
XLA's optimized ``.opt.hlo``, SPMD and sharded programs, and the deliberately failing ones):
the printed text loads again, runs on the interpreter with the same bits as the original (or
fails as it does), and has no more instructions than it (fused computations not counted; the
get-tuple-elements that read a multi-output fusion count as part of it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.cli import main
from xlapy.errors import XlaError
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.literal import values_equal

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted(p for folder in ("examples", "tests") for p in (ROOT / folder).rglob("*.hlo"))
TIMEOUT = 5.0
"""Seconds a device waits at a collective or channel (a program that waits forever fails)."""
MAX_WHILE_ITERATIONS = 1_000
"""A loop that runs longer fails, in the original as in the optimized program."""


def instruction_count(module: HloModule) -> int:
    """Instructions outside fused computations; a multi-output fusion and the
    get-tuple-elements that read its results count as one instruction."""
    fused = {
        id(i.attrs.calls)
        for comp in module.computations
        for i in comp.instructions
        if i.opcode is Opcode.FUSION
    }
    return sum(
        1
        for comp in module.computations
        if id(comp) not in fused
        for i in comp.instructions
        if not (i.opcode is Opcode.GET_TUPLE_ELEMENT and i.operands[0].opcode is Opcode.FUSION)
    )


def stored_inputs(path: Path, module: HloModule, devices: int) -> list[object] | None:
    """The arguments saved beside the program (``NAME.inputs.npz`` or ``NAME.npz``: ``argI``,
    or ``argI.devD`` per device) when they fit its parameters."""
    stem = path.name.split(".")[0]
    parameters = module.entry.parameters
    for candidate in (path.parent / f"{stem}.inputs.npz", path.parent / f"{stem}.npz"):
        if not candidate.exists():
            continue
        with np.load(candidate) as data:
            if devices == 1 and all(f"arg{i}" in data.files for i in range(len(parameters))):
                args: list[object] = [data[f"arg{i}"] for i in range(len(parameters))]
                shapes = [np.shape(a) for a in args]
            elif all(f"arg{i}.dev0" in data.files for i in range(len(parameters))):
                args = [
                    [data[f"arg{i}.dev{d}"] for d in range(devices)] for i in range(len(parameters))
                ]
                shapes = [np.shape(a[0]) for a in args]  # type: ignore[index]
            else:
                continue
        if shapes == [tuple(p.shape.dims) for p in parameters]:
            return args
    return None


def seeded_inputs(module: HloModule, devices: int) -> list[object]:
    """Seeded values for every parameter (and device): normal floats, small integers."""
    rng = np.random.default_rng(21)

    def value(parameter_dims: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        if dtype.kind in "fcV":  # bf16 and the narrow floats are a V kind
            return rng.standard_normal(parameter_dims).astype(dtype)
        if dtype.kind == "b":
            return rng.integers(0, 2, parameter_dims).astype(dtype)
        return rng.integers(0, 8, parameter_dims).astype(dtype)

    args: list[object] = []
    for p in module.entry.parameters:
        dims, dtype = tuple(p.shape.dims), np.dtype(p.shape.element_type.numpy)
        per_device = [value(dims, dtype) for _ in range(devices)]
        args.append(per_device[0] if devices == 1 else per_device)
    return args


def outcome(module: HloModule, args: list[object]) -> tuple[str, object]:
    """``("ok", results)`` or ``("error", the XlaError's class name)``."""
    config = module.config
    try:
        results = xlapy.run(
            module,
            *args,
            platform="interpreter",
            replicas=config.replica_count,
            partitions=config.num_partitions,
            timeout=TIMEOUT,
            max_while_iterations=MAX_WHILE_ITERATIONS,
        )
    except XlaError as err:
        return "error", type(err).__name__
    return "ok", results


def _same(a: object, b: object) -> bool:
    if isinstance(a, list | tuple):
        return (
            isinstance(b, list | tuple)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    return values_equal(a, b)  # type: ignore[arg-type]


def test_programs_are_found() -> None:
    assert len(PROGRAMS) >= 100
    assert any(p.name.endswith(".opt.hlo") for p in PROGRAMS)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_opt_output_loads_runs_the_same_and_is_no_larger(path: Path, tmp_path: Path) -> None:
    optimized_text = tmp_path / "opt.hlo"
    assert main(["opt", str(path), "--pipeline=default", "-o", str(optimized_text)]) == 0
    original = xlapy.load(path)
    optimized = xlapy.load(optimized_text)
    assert "{...}" not in optimized_text.read_text()
    assert instruction_count(optimized) <= instruction_count(original)
    devices = original.config.replica_count * original.config.num_partitions
    args = stored_inputs(path, original, devices)
    if args is None:
        args = seeded_inputs(original, devices)
    want, got = outcome(original, args), outcome(optimized, args)
    assert want[0] == got[0], (want, got)
    if want[0] == "ok":
        assert _same(want[1], got[1])
    else:
        assert want == got
