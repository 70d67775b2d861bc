#!/usr/bin/env python3
"""Run the StableHLO conformance corpus (``../shared/conformance``) in-process and print pass
rates by folder and by op.

  python3 tools/conformance.py [--filter TEXT] [--failures] [--update-xfail] [--jobs N]
                               [--platform interpreter|cpu]

A file passes when every test in it passes (see ``xlapy interpret``). ``--update-xfail``
rewrites ``tests/conformance/xfail.txt`` with the files that fail now (``path  # op: reason``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
XFAIL = REPO / "tests" / "conformance" / "xfail.txt"
_TYPE_PART = re.compile(
    r"^(q?u?int\d+|q?i\d+|q?ui\d+|float\d+|bfloat16|complex\d+|bool|f\d+|bf16|c\d+|s\d+|u\d+)$"
)


def corpus_root() -> Path | None:
    """``<repo>/../shared/conformance`` when present."""
    root = REPO.parent / "shared" / "conformance"
    return root if root.is_dir() else None


def corpus_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.mlir"))


def op_of(rel: str) -> str:
    """The op a corpus file tests: ``interpret/add.mlir`` -> ``add``,
    ``testdata/xor_uint8_20_20_uint8_20.mlir`` -> ``xor``, ``.../chlo/mulhi.mlir`` -> ``chlo.mulhi``."""
    path = Path(rel)
    stem = path.stem
    if "interpret" in path.parts:
        return f"chlo.{stem}" if "chlo" in path.parts else stem
    stem = stem.removesuffix("_dynamic")
    parts = stem.split("_")
    kept: list[str] = []
    for part in parts:
        if _TYPE_PART.match(part) or part[:1].isdigit() or part in ("lhs", "poly", "shape"):
            break
        kept.append(part)
    return "_".join(kept) or stem


def folder_of(rel: str) -> str:
    return str(Path(rel).parent)


@dataclass
class FileOutcome:
    """Result of one corpus file."""

    rel: str
    passed: bool
    tests: int
    failed: int
    reason: str
    seconds: float


def run_one(path: str, root: str, platform: str = "interpreter") -> FileOutcome:
    """Runs every test of one file (in this process) on ``platform``."""
    from xlapy.cli.interpret_cmd import parse_args_attr, run_mode, run_text

    start = time.perf_counter()
    rel = str(Path(path).relative_to(root))
    try:
        text = Path(path).read_text()
        interpret, args_text = run_mode(text)
        args = parse_args_attr(args_text) if args_text else None
        with contextlib.redirect_stdout(io.StringIO()):  # interpreter.print output
            results = run_text(text, path, args, parse_only=not interpret, platform=platform)
    except Exception as err:  # reading the file or its --args failed
        return FileOutcome(rel, False, 0, 1, f"{type(err).__name__}: {err}", 0.0)
    bad = [r for r in results if not r.passed]
    reason = ""
    if bad:
        first = bad[0]
        reason = f"{first.status}: {first.message}".splitlines()[0]
        reason = re.sub(r"^[\w-]+: ", "", reason)
        reason = re.sub(r"^\S+:\d+:\d+: error: ", "", reason)[:160]
    elapsed = time.perf_counter() - start
    return FileOutcome(rel, not bad and bool(results), len(results), len(bad), reason, elapsed)


def run_all(
    root: Path, files: list[Path], jobs: int = 1, platform: str = "interpreter"
) -> list[FileOutcome]:
    if jobs <= 1:
        return [run_one(str(f), str(root), platform) for f in files]
    with ProcessPoolExecutor(jobs) as pool:
        n = len(files)
        return list(pool.map(run_one, [str(f) for f in files], [str(root)] * n, [platform] * n))


def load_xfail(path: Path = XFAIL) -> dict[str, str]:
    """``path  # op: reason`` lines -> {path: reason}."""
    entries: dict[str, str] = {}
    if not path.exists():
        return entries
    for line in path.read_text().splitlines():
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        name, _, reason = body.partition("#")
        entries[name.strip()] = reason.strip()
    return entries


def write_xfail(outcomes: list[FileOutcome], path: Path = XFAIL) -> None:
    lines = [
        "# Conformance files expected to fail: path  # op: reason",
        "# Regenerate with: python3 tools/conformance.py --update-xfail (the list may only shrink)",
    ]
    for o in sorted(outcomes, key=lambda o: o.rel):
        if not o.passed:
            reason = o.reason.replace("\n", " ")
            lines.append(f"{o.rel}  # {op_of(o.rel)}: {reason}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def summary(outcomes: list[FileOutcome]) -> str:
    """Pass rates by folder, and by op for the ops with failing files (worst first)."""
    by_folder: dict[str, list[bool]] = defaultdict(list)
    by_op: dict[str, list[bool]] = defaultdict(list)
    for o in outcomes:
        by_folder[folder_of(o.rel)].append(o.passed)
        by_op[op_of(o.rel)].append(o.passed)
    total = sum(o.passed for o in outcomes)
    out = [f"conformance: {total}/{len(outcomes)} files pass ({_pct(total, len(outcomes))})"]
    out.append("by folder:")
    for name, flags in sorted(by_folder.items()):
        out.append(f"  {name:40s} {sum(flags):5d}/{len(flags):<5d} {_pct(sum(flags), len(flags))}")
    failing = {k: v for k, v in by_op.items() if not all(v)}
    perfect = len(by_op) - len(failing)
    out.append(f"by op: {perfect} of {len(by_op)} ops pass every file; the others:")
    for name, flags in sorted(failing.items(), key=lambda kv: (sum(kv[1]) / len(kv[1]), kv[0])):
        out.append(f"  {name:40s} {sum(flags):5d}/{len(flags):<5d} {_pct(sum(flags), len(flags))}")
    return "\n".join(out)


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="only files whose path contains TEXT")
    parser.add_argument("--failures", action="store_true", help="list failing files and why")
    parser.add_argument("--update-xfail", action="store_true", help="rewrite the xfail list")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--slowest", type=int, default=0, help="list the N slowest files")
    parser.add_argument(
        "--platform",
        choices=("interpreter", "cpu"),
        default="interpreter",
        help="run the corpus on the reference interpreter (default) or compiled for cpu",
    )
    args = parser.parse_args(argv)
    root = corpus_root()
    if root is None:
        print("conformance corpus not found (expected ../shared/conformance)", file=sys.stderr)
        return 2
    files = [f for f in corpus_files(root) if args.filter in str(f.relative_to(root))]
    start = time.perf_counter()
    outcomes = run_all(root, files, args.jobs, args.platform)
    elapsed = time.perf_counter() - start
    if args.failures:
        for o in outcomes:
            if not o.passed:
                print(f"FAIL {o.rel}: {o.reason}")
    if args.slowest:
        for o in sorted(outcomes, key=lambda o: -o.seconds)[: args.slowest]:
            print(f"{o.seconds:7.2f}s {o.rel}")
    print(summary(outcomes))
    print(f"{len(outcomes)} files in {elapsed:.1f}s on {args.platform}")
    if args.update_xfail:
        if args.platform != "interpreter":
            print("--update-xfail records the interpreter's failures", file=sys.stderr)
            return 2
        if args.filter:
            print("--update-xfail needs the whole corpus (no --filter)", file=sys.stderr)
            return 2
        write_xfail(outcomes)
        print(f"wrote {XFAIL.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
