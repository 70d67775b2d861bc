"""Differential fuzzing: random programs (``tools/fuzz/programs.py``) run on the ``cpu``
platform and on the ``interpreter``, compared.

Rules (what the cpu platform promises, ``docs/fuzzing.md``): each output within the bound
the generator derived from the ops of its cone (``tools/fuzz/bounds.py``): integers,
booleans, data movement and comparisons bit for bit, floats bit for bit (any NaN matches any
NaN: OPS.md leaves payloads implementation-defined) except after the cpu's own
transcendentals (a few ulps per op and type), reassociated sums and dots (a summation error
bound scaled by the sum of magnitudes), and compositions of those with ops that do not keep
a bound (a loose blunder check, counted). The cpu platform must not write to the caller's
arguments, donated or not, and a second call of the executable must give the same bits
without touching the first call's outputs. When the interpreter raises an ``XlaError`` the cpu platform must
raise one too; a cpu error on a program the interpreter runs is a finding.

  python -m tools.fuzz.differential --seconds 3600 [--seed N] [--log FILE]

prints (and appends to ``--log``) each finding as the shrunk program hypothesis found, with
its arguments as exact bytes, and a summary line every minute; exit status 1 when something
was found.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings

import xlapy
from tools.fuzz import bounds
from tools.fuzz.bounds import BITS, Bound
from tools.fuzz.programs import Program, programs
from xlapy import dtypes
from xlapy.errors import XlaError
from xlapy.text.stablehlo_printer import print_stablehlo


class Mismatch(AssertionError):
    """The platforms disagree on a program."""


class InvalidProgram(AssertionError):
    """The generator made a program the parser or verifier refuses (a generator bug)."""


def _same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element: the same bits, or both NaN for floats."""
    if got.dtype.kind in "biu" or got.dtype == np.bool_:
        return got == want
    width = f"u{got.dtype.itemsize}"
    same = got.view(width) == want.view(width)
    return same | (np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64)))


def _element_type(a: np.ndarray) -> dtypes.ElementType:
    return dtypes.from_numpy(a.dtype)


def compare(program: Program, got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """None when ``got`` (cpu) agrees with ``want`` (interpreter) within each output's bound
    (the companion outputs after the program's own are scales, not compared), else what
    differs."""
    if len(got) != len(want):
        return f"{len(got)} outputs on cpu, {len(want)} on the interpreter"
    for k, bound in enumerate(program.bounds):
        g, w = np.asarray(got[k]), np.asarray(want[k])
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"output {k}: cpu {g.dtype}{list(g.shape)}, interpreter {w.dtype}{list(w.shape)}"
        t = _element_type(w)
        if bound.exact or not t.is_float:
            ok = _same_bits(g, w) if bound.kind != "unchecked" else np.ones(w.shape, bool)
        else:
            scales = [np.asarray(want[i], np.float64) for i in program.scales[k]]
            ok = bounds.within(bound, t, g, w, scales)
        if not np.all(ok):
            bad = np.argwhere(~np.asarray(ok).reshape(w.shape))[:4]
            where = [tuple(int(i) for i in b) for b in bad]
            pairs = [
                (g[b] if g.ndim else g[()], w[b] if w.ndim else w[()]) for b in map(tuple, bad)
            ]
            return (f"output {k} ({_describe(bound)}) differs at {where}: "
                    f"cpu vs interpreter {pairs}")  # fmt: skip
    return None


def _describe(bound: Bound) -> str:
    if bound.kind == "bits":
        return "exact"
    if bound.kind == "ulps":
        return "within " + ", ".join(f"{k} ulp of {ref}" for k, ref in bound.ulps)
    if bound.kind in ("sum", "dot", "product"):
        return f"{bound.kind} of {bound.terms} terms"
    return bound.kind


def _untouched(before: list[bytes], args: list[np.ndarray], donated: tuple[int, ...]) -> str | None:
    """None when every argument still holds its bytes after a run, else which changed."""
    for i, (b, a) in enumerate(zip(before, args, strict=True)):
        if np.ascontiguousarray(a).tobytes() != b:
            what = "donated" if i in donated else "not donated"
            return f"the cpu platform wrote to argument {i} ({what})"
    return None


class Stats:
    """Programs run and skipped so far."""

    def __init__(self) -> None:
        self.run = 0
        self.both_failed = 0
        self.invalid = 0
        self.xla = 0
        self.donating = 0
        self.outputs: dict[str, int] = {}
        """Outputs compared, by the kind of their bound."""

    def count(self, program: Program) -> None:
        self.run += 1
        self.donating += bool(program.donated)
        for b in program.bounds:
            self.outputs[b.kind] = self.outputs.get(b.kind, 0) + 1

    def bounds_summary(self) -> str:
        return ", ".join(f"{n} {k}" for k, n in sorted(self.outputs.items(), key=lambda kv: -kv[1]))


XLA_KNOWN = re.compile(r"[su][24]\[[\d,]*\] popcnt")
"""Programs with a known XLA:CPU deviation (``docs/oracle_findings.md`` D2: ``popcnt`` of
sub-byte integers counts the sign-extended byte); not run there."""


def check_xla(program: Program, module: xlapy.HloModule, stats: Stats) -> None:
    """The program's StableHLO on XLA:CPU against the interpreter with XLA:CPU's flushing of
    f32/bf16 subnormals: integers and booleans bit for bit, floats as approximate values
    (XLA:CPU contracts ``a * b + c`` into FMAs, reorders reductions, has its own
    transcendentals and canonicalizes 8-bit NaNs: ``docs/oracle_findings.md`` D1-D9).
    Raises ``Mismatch`` (naming XLA) on a difference; programs XLA:CPU cannot compile (sorts
    of sub-byte types, D7) are skipped."""
    from tools.xla_cpu import run_xla

    if XLA_KNOWN.search(program.text):
        return
    want = xlapy.run(module, *program.args, platform="interpreter", flush_denormals=True)
    try:
        got = run_xla(print_stablehlo(module), list(program.args))
    except Exception as err:
        if "UNIMPLEMENTED" in str(err) or "INVALID_ARGUMENT" in str(err):
            return
        raise
    stats.xla += 1
    floats = [np.asarray(w).dtype.kind in "fV" for w in want]
    loose = Program(program.text, program.args, [Bound("loose") if f else BITS for f in floats])
    problem = compare(loose, got, list(want))
    if problem:
        raise Mismatch(f"XLA:CPU (not the cpu platform): {problem}")


def check(
    program: Program, stats: Stats | None = None, xla: bool = False, stablehlo: bool = False
) -> None:
    """Runs ``program`` on both platforms (with ``stablehlo`` also its StableHLO round trip
    on cpu, with ``xla`` on XLA:CPU); raises ``Mismatch`` naming the difference."""
    stats = stats or Stats()
    try:
        module = xlapy.load(program.text)
    except XlaError as err:
        stats.invalid += 1
        raise InvalidProgram(f"invalid program: {err}") from err
    try:
        want = xlapy.run(module, *program.args, platform="interpreter")
    except XlaError:
        stats.both_failed += 1
        try:
            xlapy.compile(module, platform="cpu", tiered=False)(*program.cpu_args())
        except XlaError:
            return
        raise Mismatch("the interpreter raises an XlaError, cpu returns a value") from None
    stats.count(program)
    args = program.cpu_args()
    before = [np.ascontiguousarray(a).tobytes() for a in args]
    try:
        exe = xlapy.compile(module, platform="cpu", tiered=False)
        got = list(exe(*args))
        kept = [np.ascontiguousarray(g).tobytes() for g in got]
        again = list(exe(*args))  # a second call: no state kept from the first
    except Exception as err:
        raise Mismatch(f"cpu raises {type(err).__name__}: {err}") from err
    problem = (
        _untouched(before, args, program.donated)
        or compare(program, got, list(want))
        or _second_call(got, kept, again)
    )
    if problem:
        raise Mismatch(problem)
    if stablehlo:
        check_stablehlo(program, module, want)
    if xla:
        check_xla(program, module, stats)


_PAIRS = re.compile(r"\{(\d*)\}: \((\d+), \{\}|\((\d+), \{\}\)")


def _donations(module: xlapy.HloModule) -> set[tuple[str, ...]]:
    """The module's aliases ``(output, parameter)`` and donors ``(parameter,)``, kinds aside."""
    text = f"{module.config.input_output_alias or ''} {module.config.buffer_donor or ''}"
    return {(o, p) if p else (d,) for o, p, d in _PAIRS.findall(text)}


def check_stablehlo(program: Program, module: xlapy.HloModule, want: list[np.ndarray]) -> None:
    """The program printed as StableHLO (xlapy's printer), loaded back and run on cpu: the
    same donations (``tf.aliasing_output``, ``jax.buffer_donor``) and values within the
    bounds. Raises ``Mismatch`` naming the round trip."""
    try:
        again = xlapy.load(print_stablehlo(module))
    except Exception as err:
        raise Mismatch(f"StableHLO round trip: {type(err).__name__}: {err}") from err
    if _donations(again) != _donations(module):
        raise Mismatch(f"StableHLO round trip donations {_donations(again)}, "
                       f"HLO {_donations(module)}")  # fmt: skip
    try:
        got = xlapy.compile(again, platform="cpu", tiered=False)(*program.args)
    except Exception as err:
        raise Mismatch(f"StableHLO round trip: cpu raises {type(err).__name__}: {err}") from err
    problem = compare(program, list(got), want)
    if problem:
        raise Mismatch(f"StableHLO round trip: {problem}")


def _second_call(first: list[np.ndarray], kept: list[bytes], again: list[np.ndarray]) -> str | None:
    """None when a second call of the executable on the same arguments gave the first call's
    bits and left the first call's outputs (the caller's arrays now) as they were."""
    for k, (f, b, a) in enumerate(zip(first, kept, again, strict=True)):
        if np.ascontiguousarray(f).tobytes() != b:
            return f"output {k} of the first call changed during the second call"
        if np.ascontiguousarray(a).tobytes() != b:
            return f"output {k} differs between two calls on the same arguments"
    return None


def differential_test(
    examples: int,
    stats: Stats,
    seed: int | None = None,
    derandomize: bool = False,
    max_steps: int = 8,
    xla: bool = False,
    stablehlo: bool = False,
) -> Callable[[], None]:
    """A hypothesis test running ``examples`` programs through ``check`` (shrinking a
    failure to a small program)."""

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
        print_blob=True,
    )
    @given(programs(max_steps))
    def test(program: Program) -> None:
        check(program, stats, xla, stablehlo)

    if seed is not None:
        from hypothesis import seed as hypothesis_seed

        test = hypothesis_seed(seed)(test)
    return test


def stress() -> None:
    """Makes small programs take the code paths of large ones in this process: every fusion
    and window kernel parallel (``PARALLEL_WORK``), long sort lines in chunks of 2, whole
    while loops returning to Python after each iteration (``FIRST_CHUNK``), so chunk joins,
    thread splits and their edges meet the fuzzer's corner values."""
    from xlapy.backend.cpu.codegen import fusion_emitter, while_emitter
    from xlapy.backend.cpu.kernels import sort, windows

    fusion_emitter.PARALLEL_WORK = 1
    windows.PARALLEL_WORK = 1
    sort._CHUNK = 2
    while_emitter.FIRST_CHUNK = 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.fuzz.differential", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=None, help="default: the time")
    parser.add_argument("--batch", type=int, default=50, help="programs per hypothesis run")
    parser.add_argument("--max-steps", type=int, default=8, help="ops per program, at most")
    parser.add_argument("--stress", action="store_true", help="large-program code paths")
    parser.add_argument("--xla", action="store_true", help="also against XLA:CPU (needs jax)")
    parser.add_argument("--stablehlo", action="store_true", help="also the StableHLO round trip")
    parser.add_argument("--log", type=Path, default=None, help="append findings here")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time())
    if args.stress:
        stress()
    stats, findings = Stats(), 0
    start = time.monotonic()
    last = start

    def log(text: str) -> None:
        print(text, flush=True)
        if args.log is not None:
            with args.log.open("a") as f:
                f.write(text + "\n")

    log(f"differential fuzzing cpu vs interpreter for {args.seconds:g} s (seed {seed})")
    batch = 0
    while time.monotonic() - start < args.seconds:
        test = differential_test(
            args.batch,
            stats,
            seed=seed + batch,
            max_steps=args.max_steps,
            xla=args.xla,
            stablehlo=args.stablehlo,
        )
        batch += 1
        try:
            test()
        except Exception as err:
            for one in getattr(err, "exceptions", [err]):
                findings += 1
                notes = "\n".join(dict.fromkeys(getattr(one, "__notes__", [])))
                cause = "".join(traceback.format_exception_only(one)).strip()
                log(f"FINDING {findings} (seed {seed + batch - 1}): {cause}\n{notes}\n")
        if time.monotonic() - last > 60 or time.monotonic() - start >= args.seconds:
            last = time.monotonic()
            log(f"after {last - start:.0f} s: {stats.run} programs compared, "
                f"{stats.xla} also on XLA:CPU, {stats.both_failed} refused by both, "
                f"{stats.invalid} invalid, {stats.donating} donating, "
                f"{findings} findings; outputs: {stats.bounds_summary()}")  # fmt: skip
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
