"""Oracles for the property tests: one JAX function, run four ways, compared.

``check(fn, args)`` lowers ``fn`` with ``jax.jit`` and runs:

* **xla**  — XLA:CPU itself (``jax.jit(fn)(*args)``); xlapy runs the *HLO text* JAX hands to
  XLA with ``flush_denormals=True``, because XLA:CPU flushes f32/bf16 subnormals;
* **reference** — the StableHLO reference interpreter shipped in jaxlib
  (``_stablehlo.eval_module``) on the *StableHLO text*; xlapy runs the HLO text with exact IEEE
  semantics (no flushing). Complex tensors cannot cross jaxlib's Python bindings, so programs
  with complex inputs or outputs skip this oracle;
* **stablehlo** — xlapy on the StableHLO text must give the very bits it gives on the HLO
  text (both front ends build the same IR). Runs once ``xlapy.text.stablehlo_parser`` exists.

Comparisons (``Exact`` or ``Ulp(n)``) are bit for bit except that any NaN matches any NaN: XLA
does not promise NaN payloads or signs (OPS.md leaves them implementation-defined). Every
failure message is a pasteable repro: the program text and its inputs as exact bytes.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from reference_worker import WORKER

import xlapy
from xlapy import dtypes

jax = pytest.importorskip("jax")

ORACLES = ("xla", "reference", "stablehlo")


# ---- comparisons --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exact:
    """Bit for bit; any NaN matches any NaN unless ``nan_payloads`` (data movement keeps
    every bit, NaN payloads included)."""

    nan_payloads: bool = False

    def __str__(self) -> str:
        return "bit-exact" + (" incl. NaN payloads" if self.nan_payloads else "")


@dataclass(frozen=True)
class Ulp:
    """Floats within ``n`` units in the last place of their own type (complex: per part);
    integers and booleans exactly; NaN matches NaN; infinities exactly. ``relative`` also
    accepts an absolute error of ``relative * max|expected|`` (results that cancel)."""

    n: int
    relative: float = 0.0

    def __str__(self) -> str:
        return f"within {self.n} ulp" + (f" or {self.relative:g} relative" if self.relative else "")


@dataclass(frozen=True)
class Ignore:
    """Not compared: the spec leaves this output implementation-defined for this oracle."""

    reason: str = ""

    def __str__(self) -> str:
        return f"ignored ({self.reason})"


EXACT = Exact()
BITWISE = Exact(nan_payloads=True)
Tolerance = Exact | Ulp | Ignore


def is_float(dtype: np.dtype) -> bool:
    return dtypes.from_numpy(dtype).is_float


def raw_bits(array: np.ndarray) -> np.ndarray:
    """The storage bits of ``array`` as unsigned integers (one per element)."""
    array = np.ascontiguousarray(array)
    return array.view(f"u{array.dtype.itemsize}")


@functools.cache
def _rank_table(dtype: np.dtype) -> np.ndarray:
    """For 8/16-bit floats: storage bits -> position of the value on the number line
    (so that the difference of two positions is a distance in ulp); -0 and +0 share one."""
    width = dtype.itemsize * 8
    patterns = np.arange(1 << width, dtype=f"u{dtype.itemsize}")
    values = patterns.view(dtype).astype(np.float64)
    finite = values[~np.isnan(values)]
    order = np.unique(finite)
    return np.searchsorted(order, np.where(np.isnan(values), 0.0, values)).astype(np.int64)


def ulp_position(array: np.ndarray) -> np.ndarray:
    """Integers ordered like the float values of ``array`` (NaN positions are meaningless)."""
    array = np.ascontiguousarray(array)
    if array.dtype.itemsize <= 2:
        return _rank_table(array.dtype)[raw_bits(array)]
    bits = raw_bits(array).astype(np.int64) if array.dtype.itemsize == 4 else None
    if bits is None:  # 64-bit: keep the sign-magnitude arithmetic in Python-safe int64
        unsigned = raw_bits(array)
        magnitude = (unsigned & np.uint64(0x7FFF_FFFF_FFFF_FFFF)).astype(np.int64)
        return np.where(unsigned >> np.uint64(63) == 1, -magnitude, magnitude)
    magnitude = bits & 0x7FFF_FFFF
    return np.where(bits >> 31 == 1, -magnitude, magnitude)


def mismatches(got: np.ndarray, want: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    """Boolean mask of the elements of ``got`` that do not match ``want``."""
    if isinstance(tolerance, Ignore):
        return np.zeros(want.shape, dtype=bool)
    if want.dtype.kind == "c":
        return mismatches(
            np.ascontiguousarray(got.real), np.ascontiguousarray(want.real), tolerance
        ) | mismatches(np.ascontiguousarray(got.imag), np.ascontiguousarray(want.imag), tolerance)
    if not is_float(want.dtype) or (isinstance(tolerance, Exact) and tolerance.nan_payloads):
        return raw_bits(got) != raw_bits(want)
    wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
    nan_got, nan_want = np.isnan(wide_got), np.isnan(wide_want)
    if isinstance(tolerance, Exact):
        bad = raw_bits(got) != raw_bits(want)
    else:
        distance = np.abs(ulp_position(got) - ulp_position(want))
        bad = distance > tolerance.n
        if tolerance.relative:
            finite = np.isfinite(wide_want)
            scale = np.abs(wide_want[finite]).max(initial=0.0)
            with np.errstate(invalid="ignore"):
                near = np.abs(wide_got - wide_want) <= tolerance.relative * scale
            bad &= ~(near & finite)
        bad |= np.isinf(wide_want) & (wide_got != wide_want)
    return np.where(nan_want | nan_got, nan_want != nan_got, bad)


# ---- running the program four ways ----------------------------------------------------------


@dataclass
class Lowered:
    """A JAX function lowered for fixed argument types: its HLO and StableHLO texts."""

    fn: Callable[..., Any]
    args: tuple[np.ndarray, ...]
    hlo: str
    stablehlo: str
    jitted: Any = field(repr=False)
    ran: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def jitted(fn: Callable[..., Any]) -> Any:
    """``jax.jit(fn)`` keeping unused parameters (so that every argument reaches the HLO)."""
    cache = _JIT_CACHE.get(fn)
    if cache is None:
        if len(_JIT_CACHE) > 256:
            _JIT_CACHE.clear()
        cache = _JIT_CACHE[fn] = jax.jit(fn, keep_unused=True)
    return cache


_JIT_CACHE: dict[Any, Any] = {}


def lower(fn: Callable[..., Any], args: Sequence[np.ndarray]) -> Lowered:
    """Lowers ``fn`` for ``args`` (64-bit types enabled): HLO text and StableHLO text."""
    with jax.enable_x64(True):
        jit = jitted(fn)
        lowered = jit.lower(*args)
        hlo = lowered.compiler_ir("hlo").as_hlo_text(print_large_constants=True)
        stablehlo = lowered.as_text()
    return Lowered(fn, tuple(args), hlo, stablehlo, jit)


def run_xla(program: Lowered) -> list[np.ndarray]:
    """XLA:CPU's results, flattened in output order."""
    with jax.enable_x64(True):
        out = program.jitted(*program.args)
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(out)]


def run_xlapy(text: str, args: Sequence[np.ndarray], *, flush: bool) -> list[np.ndarray]:
    """xlapy's results for program ``text`` (HLO or StableHLO)."""
    return [
        np.asarray(v)
        for v in xlapy.run(xlapy.load(text), *args, flush_denormals=flush, platform="interpreter")
    ]


def has_stablehlo_parser() -> bool:
    return importlib.util.find_spec("xlapy.text.stablehlo_parser") is not None


# ---- the StableHLO reference interpreter (jaxlib, in a child process) -----------------------


class ReferenceUnavailable(Exception):
    """The reference interpreter cannot take this program (complex values, unsupported op,
    or it crashed)."""


def run_reference(program: Lowered, outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The StableHLO reference interpreter's results; ``outputs`` (XLA's) give their types."""
    arrays = [*program.args, *outputs]
    if any(a.dtype.kind == "c" for a in arrays):
        raise ReferenceUnavailable("complex tensors cannot cross jaxlib's Python bindings")
    if any(a.dtype == np.dtype(ml_dtypes.float8_e8m0fnu) for a in arrays):
        # APFloat in the interpreter has no unsigned zero-less e8m0: 1 - 4 gives 3, and 0
        # converts to 2^-127 instead of NaN (OCP MX: e8m0 has neither sign nor zero).
        raise ReferenceUnavailable("the reference interpreter mishandles f8e8m0fnu")
    status, value = WORKER.run(
        program.stablehlo, program.args, [(o.dtype, o.shape) for o in outputs]
    )
    if status != "ok":
        raise ReferenceUnavailable(value)
    return list(value)


# ---- repro text --------------------------------------------------------------------------------


def dtype_expression(dtype: np.dtype) -> str:
    """Python source for ``dtype`` (``np.float32``, ``ml_dtypes.bfloat16``)."""
    if hasattr(ml_dtypes, dtype.name) and dtype.type.__module__ != "numpy":
        return f"ml_dtypes.{dtype.name}"
    return f"np.{dtype.name}"


def array_expression(array: np.ndarray) -> str:
    """Python source that rebuilds ``array`` bit for bit, with its values as a comment."""
    array = np.ascontiguousarray(array)
    data = array.tobytes().hex()
    values = np.array2string(array.reshape(-1), threshold=24, max_line_width=10_000)
    return (
        f'np.frombuffer(bytes.fromhex("{data}"), dtype={dtype_expression(array.dtype)})'
        f".reshape({tuple(array.shape)}),  # {values}"
    )


def repro(text: str, args: Sequence[np.ndarray], *, flush: bool) -> str:
    """A pasteable script that runs ``text`` on ``args`` through xlapy."""
    lines = [
        "import ml_dtypes, numpy as np, xlapy",
        f'PROGRAM = r"""\n{text.strip()}\n"""',
        "args = [",
        *(f"    {array_expression(a)}" for a in args),
        "]",
        f"print(xlapy.run(xlapy.load(PROGRAM), *args, flush_denormals={flush}))",
    ]
    return "\n".join(lines)


def describe(values: np.ndarray, where: np.ndarray) -> str:
    """``value (bits)`` for the elements of ``values`` at flat positions ``where``."""
    flat = np.ascontiguousarray(values).reshape(-1)
    parts = []
    for i in where:
        v = flat[i]
        if values.dtype.kind == "c":
            parts.append(repr(v))
        else:
            parts.append(f"{v!r} (0x{int(raw_bits(flat[i : i + 1])[0]):x})")
    return "[" + ", ".join(parts) + "]"


# ---- the check -----------------------------------------------------------------------------------


@dataclass
class Discrepancy:
    """One oracle disagreeing with xlapy on one program."""

    oracle: str
    summary: str
    text: str
    flush: bool
    expected: Sequence[np.ndarray] = ()

    def report(self, args: Sequence[np.ndarray]) -> str:
        wanted = "".join(
            f"\n# {self.oracle} gives output {i}: {array_expression(e)}"
            for i, e in enumerate(self.expected)
        )
        return (
            f"[{self.oracle}] {self.summary}\n--- repro ---\n"
            f"{repro(self.text, args, flush=self.flush)}{wanted}"
        )


Tolerances = Tolerance | Sequence[Tolerance]


def compare_outputs(
    got: Sequence[np.ndarray],
    want: Sequence[np.ndarray],
    tolerance: Tolerances,
    oracle: str,
    inputs: Sequence[np.ndarray] = (),
) -> str | None:
    """``None`` when ``got`` matches ``want``; otherwise what differs, in words.
    ``tolerance`` is one for all outputs or one per output."""
    if len(got) != len(want):
        return f"xlapy gives {len(got)} outputs, {oracle} gives {len(want)}"
    per_output = (
        list(tolerance) if isinstance(tolerance, (list, tuple)) else [tolerance] * len(want)
    )
    problems = []
    for i, (g, w, tol) in enumerate(zip(got, want, per_output, strict=True)):
        if g.dtype != w.dtype or g.shape != w.shape:
            problems.append(
                f"output {i}: xlapy gives {g.dtype}{list(g.shape)}, "
                f"{oracle} gives {w.dtype}{list(w.shape)}"
            )
            continue
        bad = np.flatnonzero(mismatches(g, w, tol))
        if bad.size:
            first = bad[:6]
            same_shape = [(k, a) for k, a in enumerate(inputs) if a.shape == w.shape]
            at_inputs = "".join(
                f"\n  input {k} there: {describe(a, first)}" for k, a in same_shape[:3]
            )
            index = [np.unravel_index(j, w.shape) for j in first] if w.ndim else [()]
            problems.append(
                f"output {i} ({w.dtype}{list(w.shape)}): {bad.size} of {w.size} elements "
                f"differ ({tol}); first at {[tuple(int(x) for x in ix) for ix in index]}:\n"
                f"  xlapy  {describe(g, first)}\n  {oracle:6s} {describe(w, first)}{at_inputs}"
            )
    return "\n".join(problems) or None


@dataclass
class _Runs:
    """xlapy's results per (program text, flush), run once each; the first failure of a
    text is reported once."""

    args: tuple[np.ndarray, ...]
    found: list[Discrepancy]
    results: dict[tuple[str, bool], list[np.ndarray] | None] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)

    def get(self, text: str, flush: bool, oracle: str) -> list[np.ndarray] | None:
        key = (text, flush)
        if key not in self.results:
            try:
                self.results[key] = run_xlapy(text, self.args, flush=flush)
            except Exception as exc:
                self.results[key] = None
                if text not in self.failed:
                    self.failed.add(text)
                    summary = f"xlapy raised {type(exc).__name__}: {exc}"
                    self.found.append(Discrepancy(oracle, summary, text, flush))
        return self.results[key]


def discrepancies(
    fn: Callable[..., Any],
    args: Sequence[np.ndarray],
    tolerance: Tolerances = EXACT,
    *,
    oracles: Sequence[str] = ORACLES,
    reference_tolerance: Tolerances | None = None,
    stablehlo_tolerance: Tolerances = EXACT,
) -> tuple[Lowered, list[Discrepancy]]:
    """Runs ``fn`` on ``args`` through ``oracles``; returns what disagrees with xlapy.

    * ``xla``: xlapy on the HLO text (flushing subnormals) vs XLA:CPU, within ``tolerance``;
    * ``reference``: xlapy on the StableHLO text (the HLO text before the StableHLO parser
      lands) vs the reference interpreter, within ``reference_tolerance`` (default:
      ``tolerance``);
    * ``stablehlo``: xlapy on the StableHLO text vs xlapy on the HLO text, within
      ``stablehlo_tolerance`` (CHLO ops reach the HLO text already decomposed by XLA).
    """
    args = tuple(np.asarray(a) for a in args)
    program = lower(fn, args)
    found: list[Discrepancy] = []
    runs = _Runs(args, found)
    expected = run_xla(program)
    mlir_ok = has_stablehlo_parser()
    if "xla" in oracles:
        program.ran.append("xla")
        got = runs.get(program.hlo, True, "xla")
        summary = got is not None and compare_outputs(got, expected, tolerance, "XLA", args)
        if summary:
            found.append(Discrepancy("xla", summary, program.hlo, True, expected))
    if "reference" in oracles:
        try:
            reference = run_reference(program, expected)
        except ReferenceUnavailable as exc:
            program.skipped["reference"] = str(exc)
        else:
            program.ran.append("reference")
            text = program.stablehlo if mlir_ok else program.hlo
            got = runs.get(text, False, "reference")
            tol = tolerance if reference_tolerance is None else reference_tolerance
            summary = got is not None and compare_outputs(got, reference, tol, "ref", args)
            if summary:
                found.append(Discrepancy("reference", summary, text, False, reference))
    if "stablehlo" in oracles and not mlir_ok:
        program.skipped["stablehlo"] = "xlapy.text.stablehlo_parser has not landed"
    elif "stablehlo" in oracles:
        program.ran.append("stablehlo")
        from_mlir = runs.get(program.stablehlo, False, "stablehlo")
        from_hlo = runs.get(program.hlo, False, "stablehlo")
        if from_hlo is not None and from_mlir is not None:
            summary = compare_outputs(from_mlir, from_hlo, stablehlo_tolerance, "HLO", args)
            if summary:
                summary = "xlapy on StableHLO text vs xlapy on HLO text: " + summary
                found.append(Discrepancy("stablehlo", summary, program.stablehlo, False, from_hlo))
    return program, found


def check(
    fn: Callable[..., Any],
    args: Sequence[np.ndarray],
    tolerance: Tolerances = EXACT,
    *,
    oracles: Sequence[str] = ORACLES,
    reference_tolerance: Tolerances | None = None,
    stablehlo_tolerance: Tolerances = EXACT,
    what: str = "",
) -> Lowered:
    """Asserts that xlapy agrees with every oracle on ``fn(*args)``; the failure message
    carries a repro per disagreeing oracle. Returns the lowered program."""
    __tracebackhide__ = True
    args = tuple(np.asarray(a) for a in args)
    program, found = discrepancies(
        fn,
        args,
        tolerance,
        oracles=oracles,
        reference_tolerance=reference_tolerance,
        stablehlo_tolerance=stablehlo_tolerance,
    )
    if found:
        header = f"{what}: " if what else ""
        body = "\n\n".join(d.report(args) for d in found)
        raise AssertionError(f"{header}xlapy disagrees with {len(found)} oracle(s)\n{body}")
    return program
