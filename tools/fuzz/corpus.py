"""Seed inputs of the fuzzers: the real programs, archives and maps of the repository.

* HLO text: ``examples/*.hlo``, every ``tests/**/*.hlo``.
* StableHLO text: ``examples/*.mlir``, ``tests/**/*.mlir`` and the interpreter tests of
  ``../shared/conformance`` (files under 20 kB, so a case stays fast), pretty and generic.
* ``.npz`` archives: ``examples/*.inputs.npz`` with the program whose inputs they hold.
* Indexing maps: the maps written in ``tests/indexing``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "stablehlo" / "interpret"
MAX_SEED_BYTES = 20_000


@dataclass(frozen=True)
class Seed:
    """One seed input: where it comes from and its content."""

    name: str
    data: str


def _texts(paths: list[Path]) -> tuple[Seed, ...]:
    seeds = []
    for path in sorted(paths):
        if path.stat().st_size > MAX_SEED_BYTES:
            continue
        try:
            seeds.append(Seed(str(path.relative_to(ROOT.parent)), path.read_text()))
        except (OSError, UnicodeDecodeError):
            continue
    return tuple(seeds)


@cache
def hlo_seeds() -> tuple[Seed, ...]:
    """HLO programs of ``examples/`` and ``tests/``."""
    return _texts([*ROOT.glob("examples/*.hlo"), *ROOT.glob("tests/**/*.hlo")])


@cache
def mlir_seeds() -> tuple[Seed, ...]:
    """StableHLO programs of ``examples/``, ``tests/`` and the conformance corpus."""
    paths = [*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/**/*.mlir")]
    if CONFORMANCE.is_dir():
        paths += CONFORMANCE.glob("*.mlir")
    return _texts(paths)


@cache
def npz_seeds() -> tuple[tuple[Path, bytes], ...]:
    """``(program, archive bytes)`` of every example with saved inputs."""
    pairs = []
    for archive in sorted(ROOT.glob("examples/*.inputs.npz")):
        program = archive.with_name(archive.name.replace(".inputs.npz", ".hlo"))
        if program.is_file() and archive.stat().st_size <= 200_000:
            pairs.append((program, archive.read_bytes()))
    return tuple(pairs)


_MAP = re.compile(r"\"(\([^\"]*?\)(?:\[[^\"]*?\])?(?:\{[^\"]*?\})? -> \([^\"]*)\"", re.S)


@cache
def indexing_seeds() -> tuple[Seed, ...]:
    """Indexing-map texts quoted in the indexing tests (``"(d0) -> (...), domain: ..."``)."""
    seeds: dict[str, Seed] = {}
    for path in sorted(ROOT.glob("tests/indexing/*.py")):
        text = path.read_text()
        for match in _MAP.finditer(text):
            body = match.group(1).replace("\\n", "\n")
            seeds.setdefault(body, Seed(path.name, body))
    base = "(d0, d1)[s0]{rt0} -> (d0 + s0 * 4, d1 floordiv 2 - rt0 mod 3),\ndomain:\n"
    base += "d0 in [0, 9],\nd1 in [0, 19],\ns0 in [0, 255],\nrt0 in [0, 3],\nd0 + s0 in [0, 100]"
    seeds.setdefault(base, Seed("builtin", base))
    return tuple(seeds.values())
