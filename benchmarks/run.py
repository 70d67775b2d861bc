"""Side-by-side timing of XLA:CPU, xlapy's compiled ``cpu`` platform and its ``interpreter``
on the same programs (needs jax; not part of the package).

  python3 benchmarks/run.py [--filter TEXT] [--repeat N] [--platforms xla,cpu,interpreter]
                            [--skip-cold] [--interpreter-timeout S] [--interpreter-budget S]

Each program (``programs.py``) is a JAX function lowered once to HLO text and loaded with
``xlapy.load``. XLA:CPU runs the jitted function on device-resident inputs (warmed up,
``block_until_ready``); ``cpu`` runs ``xlapy.compile(module, platform="cpu")`` after a first
call; the interpreter runs in a child process, capped per call and per program. Reported per
program: median times and ratios, cold and warm-cache compile seconds (fresh processes), peak
memory of one ``cpu`` call beside the program's largest live set (the target: arguments plus
the call's peak at most 1.5x of it), and whether outputs agree. Prints the table and writes
``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import jax
import numpy as np

import xlapy

sys.path.insert(0, str(Path(__file__).parent))

from measure import (
    LIVE_SET_ALLOWANCE,
    LIVE_SET_FACTOR,
    Agreement,
    agreement_text,
    commit_text,
    compare,
    compile_in_fresh_process,
    interpret_in_fresh_process,
    live_set_bytes,
    load_npz,
    machine_text,
    median_seconds,
    nbytes,
    ratio_text,
    seconds_text,
    tracemalloc_peak,
)
from programs import PROGRAMS, Program, hlo_text, make_inputs

HERE = Path(__file__).parent
PLATFORMS = ("xla", "cpu", "interpreter")


@dataclass
class Row:
    """Everything measured for one program (None: not measured)."""

    name: str
    issue: bool
    xla: float | None = None
    cpu: float | None = None
    interp: float | None = None
    interp_calls: int = 0
    interp_capped: float | None = None  # the cap, when one call exceeded it
    cold: float | None = None
    warm: float | None = None
    peak: int | None = None
    rss_growth: int | None = None
    io_bytes: int = 0
    arg_bytes: int = 0
    live: int | None = None  # the largest live set of the optimized module (live_set_bytes)
    cpu_vs_xla: Agreement | None = None
    cpu_vs_interp: Agreement | None = None
    interp_vs_xla: Agreement | None = None
    errors: list[str] = field(default_factory=list)


def _mb(n: int | None) -> str:
    return "—" if n is None else f"{n / 1e6:.1f} MB"


def _interp_cell(row: Row) -> str:
    if row.interp_capped is not None:
        return f"> {row.interp_capped:.0f} s"
    if row.interp is None:
        return "—"
    return seconds_text(row.interp) + ("" if row.interp_calls >= 3 else f" (n={row.interp_calls})")


def _interp_ratio(row: Row) -> str:
    if row.interp_capped is not None and row.cpu:
        return f"> {row.interp_capped / row.cpu:.0f}x"
    return ratio_text(row.interp, row.cpu)


COLUMNS: list[tuple[str, str, object]] = [
    ("program", "---", lambda r: r.name),
    ("XLA:CPU", "---:", lambda r: seconds_text(r.xla)),
    ("cpu", "---:", lambda r: seconds_text(r.cpu)),
    ("interpreter", "---:", _interp_cell),
    ("cpu/XLA", "---:", lambda r: ratio_text(r.cpu, r.xla)),
    ("interp/cpu", "---:", _interp_ratio),
    ("compile cold", "---:", lambda r: seconds_text(r.cold)),
    ("compile warm", "---:", lambda r: seconds_text(r.warm)),
    ("peak (tracemalloc)", "---:", lambda r: _mb(r.peak)),
    ("RSS growth", "---:", lambda r: _mb(r.rss_growth)),
    ("args+results", "---:", lambda r: _mb(r.io_bytes)),
    ("largest live set", "---:", lambda r: _mb(r.live)),
    ("cpu vs XLA", "---", lambda r: agreement_text(r.cpu_vs_xla)),
    ("cpu vs interp", "---", lambda r: agreement_text(r.cpu_vs_interp)),
    ("interp vs XLA", "---", lambda r: agreement_text(r.interp_vs_xla)),
]


def _columns(platforms: set[str]) -> list[tuple[str, str, object]]:
    """The table's columns for the platforms that ran."""
    needs = {
        "XLA:CPU": {"xla"},
        "cpu": {"cpu"},
        "interpreter": {"interpreter"},
        "cpu/XLA": {"cpu", "xla"},
        "interp/cpu": {"cpu", "interpreter"},
        "compile cold": {"cpu"},
        "compile warm": {"cpu"},
        "peak (tracemalloc)": {"cpu"},
        "RSS growth": {"cpu"},
        "args+results": {"cpu"},
        "largest live set": {"cpu"},
        "cpu vs XLA": {"cpu", "xla"},
        "cpu vs interp": {"cpu", "interpreter"},
        "interp vs XLA": {"interpreter", "xla"},
    }
    return [c for c in COLUMNS if needs.get(c[0], set()) <= platforms]


def _table_lines(rows: list[Row], platforms: set[str]) -> list[str]:
    cols = _columns(platforms)
    lines = ["| " + " | ".join(c[0] for c in cols) + " |", "|" + "|".join(c[1] for c in cols) + "|"]
    for row in rows:
        lines.append(_row_line(row, cols))
    return lines


def _row_line(row: Row, cols: list[tuple[str, str, object]]) -> str:
    return "| " + " | ".join(str(c[2](row)) for c in cols) + " |"  # type: ignore[operator]


def _bench(program: Program, platforms: set[str], args: argparse.Namespace, work: Path) -> Row:
    row = Row(program.name, program.issue)
    inputs = make_inputs(program)
    text = hlo_text(program, inputs)
    module = xlapy.load(text)
    ref: list[np.ndarray] | None = None
    if "xla" in platforms:
        jitted = jax.jit(program.fn)
        on_device = jax.device_put(inputs)
        ref = [np.asarray(o) for o in jax.tree_util.tree_leaves(jitted(*on_device))]
        row.xla = median_seconds(lambda: jax.block_until_ready(jitted(*on_device)), args.repeat)
        del on_device
    hlo_path, inputs_path = work / "program.hlo", work / "inputs.npz"
    hlo_path.write_text(text)
    np.savez(inputs_path, **{f"arg{i}": np.asarray(a) for i, a in enumerate(inputs)})
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    ours: list[np.ndarray] | None = None
    if "cpu" in platforms:
        if not args.skip_cold:
            cold = compile_in_fresh_process(hlo_path, cache, None, args.compile_timeout)
            if "error" in cold:
                row.errors.append(f"cold compile: {cold['error']}")
            row.cold = _float(cold.get("compile_seconds"))
        # On the cache the cold compile filled: this process compiles little.
        os.environ["XLAPY_CACHE_DIR"] = str(cache)
        try:
            exe = xlapy.compile(module, platform="cpu", tiered=False)  # type: ignore[attr-defined]
            ours = [np.asarray(o) for o in exe(*inputs)]
            row.cpu = median_seconds(lambda: exe(*inputs), args.repeat, args.budget)
            row.io_bytes = nbytes(inputs) + nbytes(ours)
            row.arg_bytes = nbytes(inputs)
            row.live = live_set_bytes(exe.module)
            if row.cpu < args.budget / 2:
                row.peak = tracemalloc_peak(lambda: exe(*inputs))
        except Exception as exc:
            row.errors.append(f"cpu: {type(exc).__name__}: {_first_line(exc)}")
            ours = None
        if not args.skip_cold:
            # The RSS growth needs two more calls in the child: only for programs that allow it.
            fast = row.cpu is not None and row.cpu < args.budget / 4
            warm = compile_in_fresh_process(
                hlo_path, cache, inputs_path if fast else None, args.compile_timeout
            )
            if "error" in warm:
                row.errors.append(f"warm compile: {warm['error']}")
            row.warm = _float(warm.get("compile_seconds"))
            row.rss_growth = _int(warm.get("rss_growth"))
    interp: list[np.ndarray] | None = None
    if "interpreter" in platforms:
        outputs_path = work / "outputs.npz"
        res = interpret_in_fresh_process(
            hlo_path,
            inputs_path,
            outputs_path,
            args.repeat,
            args.interpreter_timeout,
            args.interpreter_budget,
        )
        times = [float(t) for t in res.get("times", [])]  # type: ignore[attr-defined]
        if res.get("timed_out"):
            row.interp_capped = args.interpreter_timeout
        elif "error" in res:
            row.errors.append(f"interpreter: {res['error']}")
        elif times:
            row.interp = float(np.median(times))
            row.interp_calls = len(times)
            interp = load_npz(outputs_path)
    if ours is not None and ref is not None:
        row.cpu_vs_xla = compare(ours, ref)
    if ours is not None and interp is not None:
        row.cpu_vs_interp = compare(ours, interp)
    if interp is not None and ref is not None:
        row.interp_vs_xla = compare(interp, ref)
    shutil.rmtree(cache, ignore_errors=True)
    return row


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [""])[0][:300]


def _float(v: object) -> float | None:
    return float(v) if isinstance(v, int | float) else None


def _int(v: object) -> int | None:
    return int(v) if isinstance(v, int) else None


def _summary(rows: list[Row]) -> list[str]:
    """The issue's targets, as measured: geomean of cpu/XLA over the issue programs, programs
    above 2x, interpreter/cpu where the interpreter takes over a second, compile times."""
    out: list[str] = []
    issue = [r for r in rows if r.issue and r.cpu is not None and r.xla is not None]
    if issue:
        ratios = [r.cpu / r.xla for r in issue]  # type: ignore[operator]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        above2 = [f"{r.name} ({x:.1f}x)" for r, x in zip(issue, ratios, strict=True) if x > 2]
        above1 = [r.name for r, x in zip(issue, ratios, strict=True) if x > 1]
        missing = sum(1 for r in rows if r.issue) - len(issue)
        out.append(
            f"- geometric mean of cpu/XLA over {len(issue)} issue programs: **{geo:.2f}x** "
            f"(target <= 1.0){f'; {missing} did not run' if missing else ''}"
        )
        out.append(f"- above 2x: **{len(above2)}** ({', '.join(above2) or 'none'})")
        out.append(f"- above 1x: {len(above1)} ({', '.join(above1) or 'none'})")
    slow = [r for r in rows if r.cpu and (r.interp_capped or (r.interp or 0) > 1)]
    if slow:
        short = [
            f"{r.name} ({(r.interp_capped or r.interp or 0) / r.cpu:.0f}x)"  # type: ignore[operator]
            for r in slow
            if (r.interp_capped or r.interp or 0) / r.cpu < 1000  # type: ignore[operator]
        ]
        out.append(
            f"- interpreter over 1 s on {len(slow)} programs; under 1000x the cpu time: "
            f"{len(short)} ({', '.join(short) or 'none'})"
        )
    measured = [r for r in rows if r.peak is not None and r.live]
    if measured:
        above = [
            f"{r.name} ({(r.arg_bytes + r.peak) / r.live:.1f}x)"  # type: ignore[operator]
            for r in measured
            if r.arg_bytes + r.peak > LIVE_SET_FACTOR * r.live + LIVE_SET_ALLOWANCE  # type: ignore[operator]
        ]
        out.append(
            f"- peak memory (arguments + traced peak of a call) above {LIVE_SET_FACTOR}x the "
            f"largest live set (+ {LIVE_SET_ALLOWANCE >> 20} MB): **{len(above)}** of "
            f"{len(measured)} ({', '.join(above) or 'none'})"
        )
    colds = [(r.cold, r.name) for r in rows if r.cold is not None]
    warms = [(r.warm, r.name) for r in rows if r.warm is not None]
    if colds:
        t, name = max(colds)
        out.append(f"- slowest cold compile: {t:.2f} s ({name}) (target <= 10 s)")
    if warms:
        t, name = max(warms)
        out.append(f"- slowest warm-cache compile: {t:.2f} s ({name}) (target < 0.5 s)")
    return out


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="programs whose name contains this text")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats per platform")
    parser.add_argument("--platforms", default=",".join(PLATFORMS))
    parser.add_argument("--skip-cold", action="store_true", help="no fresh-process compiles")
    parser.add_argument(
        "--interpreter-timeout",
        type=float,
        default=60.0,
        help="seconds one interpreter call may take before it is cut (reported as '> N s')",
    )
    parser.add_argument(
        "--interpreter-budget",
        type=float,
        default=20.0,
        help="no further interpreter repeats once the calls so far took this many seconds",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=20.0,
        help="seconds of timed repeats per program on xla and cpu (slow programs get fewer)",
    )
    parser.add_argument("--compile-timeout", type=float, default=300.0)
    parser.add_argument(
        "--output",
        type=Path,
        help="markdown file to write (default: benchmarks/results.md, unless --filter is given)",
    )
    args = parser.parse_args()
    wanted = set(args.platforms.split(","))
    if not wanted <= set(PLATFORMS):
        parser.error(f"--platforms: choose from {','.join(PLATFORMS)}; got {args.platforms}")
    return args


def main() -> None:
    args = _parse()
    platforms = set(args.platforms.split(","))
    notes: list[str] = []
    if "cpu" in platforms and not hasattr(xlapy, "compile"):
        platforms.discard("cpu")
        notes.append("- the `cpu` platform is not built yet (`xlapy.compile` missing): skipped")
        print(notes[-1], flush=True)
    started = time.time()
    commit_before = commit_text()
    load_before = os.getloadavg()
    rows: list[Row] = []
    header = _table_lines([], platforms)
    cols = _columns(platforms)
    print(*header, sep="\n", flush=True)
    with tempfile.TemporaryDirectory(prefix="xlapy-bench-") as tmp:
        for program in PROGRAMS:
            if args.filter not in program.name:
                continue
            row = _bench(program, platforms, args, Path(tmp))
            rows.append(row)
            print(_row_line(row, cols), flush=True)
            for err in row.errors:
                print(f"  error in {row.name}: {err}", file=sys.stderr, flush=True)
    elapsed = time.time() - started
    load_after = os.getloadavg()
    commit_after = commit_text()
    commit = commit_before
    if commit_after != commit_before:
        commit = f"{commit_before} at the start, {commit_after} at the end"
    summary = _summary(rows)
    errors = [f"- {r.name}: {e}" for r in rows for e in r.errors]
    command = "python3 benchmarks/run.py " + shlex.join(sys.argv[1:])
    import numba

    doc = [
        "# xlapy `cpu` vs XLA:CPU vs xlapy `interpreter`",
        "",
        f"- command: `{command.strip()}` (median of {args.repeat}; {elapsed / 60:.1f} min)",
        f"- date: {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))}; xlapy commit "
        f"{commit}; jax {jax.__version__}; numba {numba.__version__}; numpy {np.__version__}",
        f"- machine: {machine_text()}; load average {load_before[0]:.1f} at the start, "
        f"{load_after[0]:.1f} at the end (the machine is shared: expect noise)",
        "- compile cold / warm: `xlapy.compile` in a fresh process (after `import xlapy`) with an "
        "empty / the filled kernel cache; Python's bytecode cache is kept as a pip install has it",
        *notes,
        "",
        *_table_lines(rows, platforms),
        "",
        *summary,
        *(["", "Errors:", *errors] if errors else []),
        "",
    ]
    print("", *summary, *(["Errors:", *errors] if errors else []), sep="\n")
    output = args.output or (None if args.filter else HERE / "results.md")
    if output is not None:
        output.write_text("\n".join(doc))


if __name__ == "__main__":
    main()
