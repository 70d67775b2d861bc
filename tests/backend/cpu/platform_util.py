"""Helpers of the platform tests: the programs of ``examples/`` and ``tests/e2e/data/`` with
their inputs, and the comparison of ``cpu`` results with the interpreter's (bit for bit for
integers, booleans and tokens; floats within a few ulp or a relative bound)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from xlapy.backend.cpu import kernel as kernel_module
from xlapy.backend.cpu.compare import compare
from xlapy.ir.opcode import Opcode

ROOT = Path(__file__).resolve().parents[3]
DIRECTORIES = (ROOT / "examples", ROOT / "tests" / "e2e" / "data")
VARIANTS = {"hlo": ".hlo", "opt": ".opt.hlo", "mlir": ".mlir"}
MAX_ULP = 4
RELATIVE = 1e-6


def programs() -> list[tuple[str, Path]]:
    """``(name, directory)`` of every program with saved inputs."""
    return [
        (path.name.removesuffix(".inputs.npz"), directory)
        for directory in DIRECTORIES
        for path in sorted(directory.glob("*.inputs.npz"))
    ]


def inputs(directory: Path, name: str) -> list[np.ndarray]:
    with np.load(directory / f"{name}.inputs.npz") as data:
        return [data[f"arg{i}"] for i in range(len(data.files))]


def _close_floats(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element: within MAX_ULP ulp, or within RELATIVE of the output's largest
    magnitude (results of reductions that cancel), NaN where the reference is NaN."""
    difference = compare(got, want)
    if difference.identical or (difference.max_ulp or 0) <= MAX_ULP:
        return np.ones(want.shape, bool)
    wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
    finite = np.isfinite(wide_want)
    scale = np.abs(wide_want[finite]).max() if finite.any() else 0.0
    with np.errstate(invalid="ignore"):
        near = np.abs(wide_got - wide_want) <= RELATIVE * scale
    ulp_ok = np.array(
        [
            (compare(np.asarray(g), np.asarray(w)).max_ulp or 0) <= MAX_ULP
            for g, w in zip(got.reshape(-1), want.reshape(-1), strict=True)
        ]
    ).reshape(want.shape)
    return np.where(np.isnan(wide_want), np.isnan(wide_got), near | ulp_ok)


def assert_agrees(got: object, want: object, where: str) -> None:
    """``got`` (cpu) equals ``want`` (interpreter): same types, integers/booleans bit for bit,
    floats within MAX_ULP ulp or RELATIVE of the largest magnitude."""
    __tracebackhide__ = True
    difference = compare(got, want)  # type: ignore[arg-type]
    assert not difference.mismatch, f"{where}: {difference.mismatch}"
    if difference.identical:
        return
    assert difference.max_ulp is not None, f"{where}: {difference.describe()}"
    assert isinstance(got, np.ndarray)
    assert isinstance(want, np.ndarray)
    if want.dtype.kind == "c":
        ok = _close_floats(np.real(got).copy(), np.real(want).copy()) & _close_floats(
            np.imag(got).copy(), np.imag(want).copy()
        )
    else:
        ok = _close_floats(got, want)
    assert ok.all(), f"{where}: {difference.describe()}"


@contextmanager
def only_generic_while() -> Iterator[None]:
    """Within the block, while loops use only the generic kernel (the loop in Python over
    compiled sub-plans), whatever whole-loop kernels are registered."""
    from xlapy.backend.cpu.kernels.control import while_kernel

    kernel_module.load_kernels()
    entries = kernel_module.KERNELS[Opcode.WHILE]
    saved = list(entries)
    entries[:] = [e for e in entries if e.factory is while_kernel]
    try:
        yield
    finally:
        entries[:] = saved


def cache_files(cache: Path) -> dict[str, tuple[int, int]]:
    """Every file under a kernel cache directory: its path -> (size, modification time in ns)
    (equal before and after a run: the run wrote nothing there)."""
    return {
        str(p.relative_to(cache)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(cache.rglob("*"))
        if p.is_file()
    }
