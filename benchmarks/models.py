"""Real models (``model_zoo.py``: Flax linen and NNX, optax, equinox, linear algebra, FFT, data
ops) on XLA:CPU and on xlapy's ``cpu`` platform, side by side (issue 19; needs the ``models``
extra).

  python3 benchmarks/models.py [--filter NAME] [--repeat N] [--first-calls N]
                               [--output benchmarks/models.md]

Per model, ``--first-calls`` rounds of three fresh processes (``child.py model``; each
measure keeps its fastest round), one after the other: XLA's first call
(``jax.jit(fn).lower``, ``.compile()``, the call), xlapy's first call on an empty kernel cache
(JAX's lowering, ``as_text`` + ``xlapy.load``, ``xlapy.compile``, the call: the steps
``xlapy.jit`` takes), and xlapy's first call again on the cache that call filled (warm). Then,
in this process, the per-call medians: ``jax.jit(fn)`` on device-resident arguments and
``xlapy.jit(fn)`` on numpy arguments (the cache already warm), their timed repeats alternated
(``measure.interleaved_medians``) so both see the same load, and whether their outputs agree
(``measure.compare``; the cold child's outputs are compared with the XLA child's too). Prints
the tables and writes ``benchmarks/models.md`` (``--filter`` alone only prints), keeping any
``## Before`` section the file already has.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
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
    Agreement,
    agreement_text,
    commit_text,
    compare,
    interleaved_medians,
    load_npz,
    machine_text,
    median_seconds,
    model_first_call_in_fresh_process,
    ratio_text,
    seconds_text,
)
from model_zoo import MODELS, Model

HERE = Path(__file__).parent
BEFORE = "\n## Before"

# The targets (issue 19).
PER_CALL_GEOMEAN = 0.8
PER_CALL_MAX = 1.5
FIRST_CALL_VS_XLA = 1.5
FIRST_CALL_SECONDS = 10.0
WARM_ABOVE_LOWERING = 0.5


@dataclass
class Row:
    """Everything measured for one model: the three children's step times (seconds by step
    name, from ``child.py model``), the per-call medians and the agreements."""

    model: Model
    xla: dict[str, float] = field(default_factory=dict)
    cold: dict[str, float] = field(default_factory=dict)
    warm: dict[str, float] = field(default_factory=dict)
    xla_call: float | None = None
    xlapy_call: float | None = None
    agree: Agreement | None = None  # xlapy.jit vs jax.jit, in this process
    cold_agree: Agreement | None = None  # the cold child's outputs vs the XLA child's
    # When xlapy and XLA disagree: each one's distance from the model run in float64.
    float64: str | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def xla_first(self) -> float | None:
        """XLA's lowering + compile (its first call less the run)."""
        if "compile" not in self.xla:
            return None
        return self.xla["lower"] + self.xla["compile"]

    def first(self, which: str) -> float | None:
        return getattr(self, which).get("first_call")

    @property
    def warm_less_lowering(self) -> float | None:
        if "first_call" not in self.warm:
            return None
        return self.warm["first_call"] - self.warm["lower"]

    @property
    def per_call_ratio(self) -> float | None:
        if self.xla_call is None or self.xlapy_call is None:
            return None
        return self.xlapy_call / self.xla_call


def _steps(row: Row, which: str, name: str) -> float | None:
    return getattr(row, which).get(name)


MAIN_COLUMNS: list[tuple[str, str, object]] = [
    ("model", "---", lambda r: r.model.name),
    ("XLA lower+compile", "---:", lambda r: seconds_text(r.xla_first)),
    ("xlapy first call, empty cache", "---:", lambda r: seconds_text(r.first("cold"))),
    ("vs XLA", "---:", lambda r: ratio_text(r.first("cold"), r.xla_first)),
    ("xlapy first call, warm cache", "---:", lambda r: seconds_text(r.first("warm"))),
    ("warm less lowering", "---:", lambda r: seconds_text(r.warm_less_lowering)),
    ("XLA per call", "---:", lambda r: seconds_text(r.xla_call)),
    ("xlapy per call", "---:", lambda r: seconds_text(r.xlapy_call)),
    ("xlapy/XLA", "---:", lambda r: ratio_text(r.xlapy_call, r.xla_call)),
    ("agree", "---", lambda r: agreement_text(r.agree)),
    ("agree (cold)", "---", lambda r: agreement_text(r.cold_agree)),
    ("where not: output, XLA and xlapy vs float64", "---", lambda r: r.float64 or "—"),
]

STEP_COLUMNS: list[tuple[str, str, object]] = [
    ("model", "---", lambda r: r.model.name),
    ("XLA lower", "---:", lambda r: seconds_text(_steps(r, "xla", "lower"))),
    ("XLA compile", "---:", lambda r: seconds_text(_steps(r, "xla", "compile"))),
    ("XLA run", "---:", lambda r: seconds_text(_steps(r, "xla", "run"))),
    ("cold: lower", "---:", lambda r: seconds_text(_steps(r, "cold", "lower"))),
    ("text+load", "---:", lambda r: seconds_text(_steps(r, "cold", "load"))),
    ("xlapy.compile", "---:", lambda r: seconds_text(_steps(r, "cold", "compile"))),
    ("first run", "---:", lambda r: seconds_text(_steps(r, "cold", "run"))),
    ("warm: lower", "---:", lambda r: seconds_text(_steps(r, "warm", "lower"))),
    ("text+load", "---:", lambda r: seconds_text(_steps(r, "warm", "load"))),
    ("xlapy.compile", "---:", lambda r: seconds_text(_steps(r, "warm", "compile"))),
    ("first run", "---:", lambda r: seconds_text(_steps(r, "warm", "run"))),
]


def _table(rows: list[Row], columns: list[tuple[str, str, object]]) -> list[str]:
    lines = ["| " + " | ".join(c[0] for c in columns) + " |"]
    lines.append("|" + "|".join(c[1] for c in columns) + "|")
    lines += ["| " + " | ".join(str(c[2](r)) for c in columns) + " |" for r in rows]  # type: ignore[operator]
    return lines


def _child(row: Row, which: str, cache: Path | None, outputs: Path, timeout: float) -> bool:
    """Runs one ``child.py model`` process into ``row.<which>``; False (and an error noted)
    when it failed."""
    platform = "xla" if which == "xla" else "cpu"
    result = model_first_call_in_fresh_process(row.model.name, platform, cache, outputs, timeout)
    if "error" in result:
        row.errors.append(f"{which} first call: {result['error']}")
        return False
    steps = {k: float(v) for k, v in result.items()}  # type: ignore[arg-type]
    kept = getattr(row, which)
    if not kept or _first_call_seconds(which, steps) < _first_call_seconds(which, kept):
        setattr(row, which, steps)
    return True


def _first_call_seconds(which: str, steps: dict[str, float]) -> float:
    """What a child's first call is judged by: XLA's lowering + compile, xlapy's whole first
    call (its lowering, load, compile and run)."""
    return steps["lower"] + steps["compile"] if which == "xla" else steps["first_call"]


def _leaves(tree: object) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def _bench(model: Model, args: argparse.Namespace, work: Path) -> Row:
    row = Row(model)
    xla_out, cold_out, warm_out = work / "xla.npz", work / "cold.npz", work / "warm.npz"
    # --first-calls rounds of the three children, alternated so each side sees the same load;
    # each keeps its fastest round. The per-call timing below uses the first round's cache.
    caches = []
    for _ in range(args.first_calls):
        caches.append(cache := Path(tempfile.mkdtemp(prefix="cache-", dir=work)))
        has_xla = _child(row, "xla", None, xla_out, args.timeout)
        if _child(row, "cold", cache, cold_out, args.timeout):
            if has_xla:
                agree = compare(load_npz(cold_out), load_npz(xla_out))
                if row.cold_agree is None or (row.cold_agree.ok and not agree.ok):
                    row.cold_agree = agree
            _child(row, "warm", cache, warm_out, args.timeout)
    cache = caches[0]
    fn, example = model.build()
    jitted = jax.jit(fn)
    on_device = jax.device_put(example)
    reference = jitted(*on_device)
    ref = _leaves(reference)

    def xla_call() -> object:
        return jax.block_until_ready(jitted(*on_device))

    # numpy arguments, as a training loop feeds back xlapy's outputs (fresh writable arrays:
    # numpy's view of a JAX array is read-only, which xlapy copies on every call, 1-1.6 ms on
    # gpt_adamw's and cnn_adam's 6-10 MB of state); a Python scalar (a TrainState's step)
    # becomes the array JAX makes of it.
    host = jax.tree_util.tree_map(lambda leaf: np.array(jax.numpy.asarray(leaf)), example)
    os.environ["XLAPY_CACHE_DIR"] = str(cache)  # the cold child filled it
    ours = xlapy.jit(fn)
    try:
        got = _leaves(ours(*host))
        ours.wait_compiled()  # per-call times are the compiled tier's
        row.agree = compare(got, ref)
        if not row.agree.ok:
            row.float64 = _float64_distances(fn, example, got, reference)
        # XLA's repeats and xlapy's alternate, so both see the same load.
        row.xla_call, row.xlapy_call = interleaved_medians(
            [xla_call, lambda: ours(*host)], args.repeat, 2 * args.budget
        )
    except Exception as exc:
        first_line = (str(exc).splitlines() or [""])[0][:300]
        row.errors.append(f"xlapy.jit per call: {type(exc).__name__}: {first_line}")
    if row.xla_call is None:
        row.xla_call = median_seconds(xla_call, args.repeat, args.budget)
    return row


def _float64_distances(
    fn: object, example: object, ours: list[np.ndarray], reference: object
) -> str:
    """For each output where xlapy and XLA disagree (at most 3 named): how far XLA's and
    xlapy's float32 values each are from the same model run by XLA in float64 (float32
    arguments widened, outputs narrowed back). A disagreement that XLA shares with float64 is
    the model's conditioning (a gradient that is zero in exact arithmetic, as a key bias's in
    attention; Adam's first step g / (|g| + eps) for gradients near zero), not xlapy's
    arithmetic."""

    def widen(leaf: object) -> object:
        a = np.asarray(jax.numpy.asarray(leaf))
        return a.astype(np.float64) if a.dtype == np.float32 else a

    with jax.enable_x64(True):
        wide = _leaves(jax.jit(fn)(*jax.tree_util.tree_map(widen, example)))  # type: ignore[arg-type]
    paths = jax.tree_util.tree_flatten_with_path(reference)[0]
    notes = []
    for (path, ref), got, exact in zip(paths, ours, wide, strict=True):
        ref = np.asarray(ref)
        if compare([got], [ref]).ok:
            continue
        exact = exact.astype(ref.dtype)
        xla_error, our_error = compare([ref], [exact]).text, compare([got], [exact]).text
        notes.append(f"`{jax.tree_util.keystr(path)}` {xla_error}, {our_error}")
    more = f" (+{len(notes) - 3} more)" if len(notes) > 3 else ""
    return "; ".join(notes[:3]) + more


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _summary(rows: list[Row]) -> list[str]:
    """The issue's targets, as measured."""
    out: list[str] = []
    timed = [(r.model.name, r.per_call_ratio) for r in rows if r.per_call_ratio is not None]
    if timed:
        geo = _geomean([x for _, x in timed])
        name, worst = max(timed, key=lambda t: t[1])
        above = [f"{n} ({x:.2f}x)" for n, x in timed if x > PER_CALL_MAX]
        out.append(
            f"- per call, geometric mean of xlapy/XLA over {len(timed)} models: **{geo:.2f}x** "
            f"(target <= {PER_CALL_GEOMEAN}); largest {worst:.2f}x ({name})"
        )
        out.append(
            f"- per call above {PER_CALL_MAX}x XLA: **{len(above)}** ({', '.join(above) or 'none'})"
        )
    firsts = [
        (r.model.name, r.first("cold"), r.xla_first)
        for r in rows
        if r.first("cold") is not None and r.xla_first
    ]
    if firsts:
        ratios = [(n, t / x, t) for n, t, x in firsts]  # type: ignore[operator]
        geo = _geomean([q for _, q, _ in ratios])
        name, worst, _ = max(ratios, key=lambda t: t[1])
        above = [f"{n} ({q:.1f}x)" for n, q, _ in ratios if q > FIRST_CALL_VS_XLA]
        over = [f"{n} ({t:.1f} s)" for n, _, t in ratios if t > FIRST_CALL_SECONDS]  # type: ignore[operator]
        out.append(
            f"- first call on an empty cache / XLA's lower+compile: geometric mean {geo:.1f}x, "
            f"largest {worst:.1f}x ({name}); above {FIRST_CALL_VS_XLA}x: **{len(above)}** "
            f"of {len(ratios)} ({', '.join(above) or 'none'})"
        )
        out.append(
            f"- first call on an empty cache above {FIRST_CALL_SECONDS:.0f} s: **{len(over)}** "
            f"({', '.join(over) or 'none'})"
        )
    warms = [(r.model.name, r.warm_less_lowering) for r in rows if r.warm_less_lowering is not None]
    if warms:
        name, worst = max(warms, key=lambda t: t[1])  # type: ignore[arg-type,return-value]
        above = [f"{n} ({t:.2f} s)" for n, t in warms if t > WARM_ABOVE_LOWERING]  # type: ignore[operator]
        out.append(
            f"- warm-cache first call less JAX's lowering above {WARM_ABOVE_LOWERING} s: "
            f"**{len(above)}** of {len(warms)} ({', '.join(above) or 'none'}); "
            f"largest {worst:.2f} s ({name})"
        )
    disagree = [
        r.model.name
        for r in rows
        if (r.agree and not r.agree.ok) or (r.cold_agree and not r.cold_agree.ok)
    ]
    out.append(
        f"- outputs disagree with XLA: **{len(disagree)}** ({', '.join(disagree) or 'none'})"
    )
    failed = [r.model.name for r in rows if r.errors]
    if failed:
        out.append(f"- models with errors: **{len(failed)}** ({', '.join(failed)}; see Errors)")
    return out


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="models whose name contains this text")
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="timed repeats per call median (XLA's and xlapy's alternated)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=20.0,
        help="seconds of timed repeats per model and platform (slow models get fewer)",
    )
    parser.add_argument(
        "--first-calls",
        type=int,
        default=1,
        help="rounds of the fresh-process first calls (XLA, empty cache, warm cache) per "
        "model; each keeps its fastest",
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds one fresh-process first call may take"
    )
    parser.add_argument(
        "--output",
        type=Path,
        help="markdown file to write (default: benchmarks/models.md, unless --filter is given)",
    )
    return parser.parse_args()


def _versions() -> str:
    import equinox
    import flax
    import numba
    import optax

    return (
        f"jax {jax.__version__}, flax {flax.__version__}, optax {optax.__version__}, "
        f"equinox {equinox.__version__}, numba {numba.__version__}, numpy {np.__version__}"
    )


@dataclass
class Run:
    """One run's provenance: its arguments, start time, commit and load at the start."""

    args: argparse.Namespace
    started: float = field(default_factory=time.time)
    commit: str = field(default_factory=commit_text)
    load: float = field(default_factory=lambda: os.getloadavg()[0])


def _document(run: Run, rows: list[Row], wanted: int) -> list[str]:
    """models.md's text for the rows so far (marked partial until all ``wanted`` ran)."""
    elapsed = time.time() - run.started
    commit = commit_text()
    if commit != run.commit:
        commit = f"{run.commit} at the start, {commit} at the end"
    errors = [f"- {r.model.name}: {e}" for r in rows for e in r.errors]
    command = "python3 benchmarks/models.py " + shlex.join(sys.argv[1:])
    partial = len(rows) < wanted
    return [
        "# Real models: xlapy `cpu` vs XLA:CPU",
        "",
        *([f"**In progress: {len(rows)} of {wanted} models so far.**", ""] if partial else []),
        f"- command: `{command.strip()}` (per-call medians of {run.args.repeat}; "
        f"{elapsed / 60:.1f} min)",
        f"- date: {time.strftime('%Y-%m-%d %H:%M', time.localtime(run.started))}; xlapy commit "
        f"{commit}; {_versions()}",
        f"- machine: {machine_text()}; load average {run.load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} {'now' if partial else 'at the end'} (the machine is "
        "shared: expect noise)",
        f"- first calls run in fresh processes after imports and model building, "
        f"{run.args.first_calls} round(s) of the three (XLA, empty cache, warm cache) "
        "alternated, each keeping its fastest: XLA's is "
        "`jax.jit(fn).lower(*args)` + `.compile()`; xlapy's is JAX's lowering, `as_text` + "
        "`xlapy.load`, `xlapy.compile` and the first call (the steps `xlapy.jit` takes), on an "
        "empty kernel cache and then, in a second process, on the cache the first filled "
        "(all children share one bytecode cache, primed once per run: a pip install has its "
        "`.pyc` files; the kernel cache is a separate directory, empty for the first process)",
        "- per call: `jax.jit(fn)` on device-resident arguments, `xlapy.jit(fn)` on numpy "
        "arguments, their timed repeats (20 ms or more each) alternated so both see the same "
        "load; agree: `xlapy.jit`'s outputs vs `jax.jit`'s (the result's leaves); "
        "agree (cold): the empty-cache process's outputs vs XLA's first call",
        "",
        "| model | what |",
        "|---|---|",
        *[f"| {r.model.name} | {r.model.describe} |" for r in rows],
        "",
        *_table(rows, MAIN_COLUMNS),
        "",
        *_summary(rows),
        "",
        "Where the first calls go (seconds per step, fresh processes):",
        "",
        *_table(rows, STEP_COLUMNS),
        *(["", "Errors:", *errors] if errors else []),
        "",
    ]


def _write(output: Path, doc: list[str]) -> None:
    """Writes ``doc`` to ``output``, keeping the ``## Before`` section the file has."""
    before = output.read_text() if output.exists() else ""
    kept = before[before.index(BEFORE) :] if BEFORE in before else ""
    output.write_text("\n".join(doc) + kept)


def main() -> None:
    run = Run(_parse())
    args = run.args
    models = [m for m in MODELS if args.filter in m.name]
    output = args.output or (None if args.filter else HERE / "models.md")
    rows: list[Row] = []
    print(*_table([], MAIN_COLUMNS), sep="\n", flush=True)
    with tempfile.TemporaryDirectory(prefix="xlapy-models-") as tmp:
        for model in models:
            row = _bench(model, args, Path(tmp))
            rows.append(row)
            print(_table([row], MAIN_COLUMNS)[-1], flush=True)
            for err in row.errors:
                print(f"  error in {model.name}: {err}", file=sys.stderr, flush=True)
            if output is not None:  # a long run leaves its rows so far if it is cut short
                _write(output, _document(run, rows, len(models)))
    errors = ["Errors:", *[f"- {r.model.name}: {e}" for r in rows for e in r.errors]]
    print("", *_summary(rows), *(errors if len(errors) > 1 else []), sep="\n")


if __name__ == "__main__":
    main()
