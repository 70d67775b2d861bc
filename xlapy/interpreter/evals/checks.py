"""The test-assertion custom calls of StableHLO programs (``check.*``) and the interpreter's
``interpreter.probe`` / ``interpreter.print``.

Semantics (shared/conformance/README.md, "What each check means"):

* ``check.expect_eq``: same type and every element equal: integers and booleans exactly, floats
  bitwise except that NaN equals NaN, complex numbers part by part.
* ``check.expect_almost_eq`` (``tolerance``): integers/booleans exactly; floats (each part of a
  complex) equal, both NaN, or finite with ``|a - b| <= tolerance`` (computed in f64).
* ``check.expect_close`` (``max_ulp_difference`` M, ``min_ulp_difference`` m): floats (the worse
  part of a complex) whose ULP distance in the element type lies in [m, M]; identical bits and
  NaN/NaN are 0 apart, a non-finite value and anything else not bitwise equal are infinitely far.
* ``check.eq``: returns ``pred[]``: integer/boolean operands compared exactly, others almost-equal
  (``tolerance``); a mismatch is also a check failure.
* ``check.expect_serialized_eq`` (``probe_id``, ``iter``): equal to what ``interpreter.probe`` with
  that id recorded on its ``iter``-th execution.

Parameters come from ``backend_config``, an MLIR attribute dictionary. A failing check raises
EvaluationError, unless failures are being collected (``collect_check_failures()``, used by the
``interpret`` driver so that every failure of a test is reported).
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlapy import dtypes
from xlapy.errors import EvaluationError, InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, custom_call_target
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Value, shape_of

Array = np.ndarray


@dataclass
class CheckReport:
    """What the checks of one run found: failure messages and the values probes recorded."""

    failures: list[str] = field(default_factory=list)
    probes: dict[str, list[Value]] = field(default_factory=dict)
    checks: int = 0


_lock = threading.RLock()
_active: list[CheckReport] = []
_configs: dict[str, dict[str, Any]] = {}


@contextmanager
def collect_check_failures() -> Iterator[CheckReport]:
    """Within the block, failed checks are recorded in the yielded report instead of raising."""
    report = CheckReport()
    with _lock:
        _active.append(report)
    try:
        yield report
    finally:
        with _lock:
            _active.remove(report)


def _report() -> CheckReport | None:
    with _lock:
        return _active[-1] if _active else None


def _fail(instr: HloInstruction, message: str) -> None:
    text = f"{instr.attrs.custom_call_target} {instr.name}: {message}"
    report = _report()
    if report is None:
        raise EvaluationError(text)
    with _lock:
        report.failures.append(text)


def _config(instr: HloInstruction) -> dict[str, Any]:
    text = instr.backend_config.strip()
    if not text:
        return {}
    cached = _configs.get(text)
    if cached is None:
        from xlapy.text.mlir_parser import MlirParser

        cached = MlirParser(text).parse_attr_dict()[0]
        _configs[text] = cached
    return cached


def _pair(instr: HloInstruction, operands: list[Value]) -> tuple[Array, Array] | None:
    """The (actual, expected) arrays; records a failure and returns None when types differ."""
    report = _report()
    if report is not None:
        with _lock:
            report.checks += 1
    if len(operands) != 2:
        raise InvalidArgument(
            f"custom-call {instr.name}: {instr.attrs.custom_call_target} takes 2 operands; "
            f"got {len(operands)}"
        )
    a, e = operands
    if not isinstance(a, np.ndarray) or not isinstance(e, np.ndarray):
        raise InvalidArgument(f"custom-call {instr.name}: checks compare arrays")
    if a.dtype != e.dtype or a.shape != e.shape:
        _fail(
            instr,
            f"types differ: actual {shape_of(a).to_mlir()}, expected {shape_of(e).to_mlir()}",
        )
        return None
    return a, e


def _element_text(x: Any) -> str:
    if isinstance(x, (np.complexfloating, complex)):
        return f"({_element_text(x.real)}, {_element_text(x.imag)})"
    if isinstance(x, (np.bool_, bool)):
        return "true" if x else "false"
    if isinstance(x, (np.integer, int)):
        return str(int(x))
    return repr(float(x))


def _mismatch(instr: HloInstruction, ok: Array, a: Array, e: Array, what: str,
              extra: Array | None = None) -> bool:  # fmt: skip
    """Records a failure naming the first mismatching index; True when all elements match."""
    if bool(np.all(ok)):
        return True
    bad = np.argwhere(~ok)
    index = tuple(int(i) for i in bad[0])
    count = len(bad)
    detail = f", ULP difference {int(extra[index])}" if extra is not None else ""
    _fail(
        instr,
        f"{what}: {count} of {ok.size} elements differ; first at index {list(index)}: actual "
        f"{_element_text(a[index])}, expected {_element_text(e[index])}{detail}",
    )
    return False


def _components(x: Array) -> list[Array]:
    if x.dtype.kind == "c":
        return [x.real, x.imag]
    return [x]


def _is_float(x: Array) -> bool:
    et = dtypes.from_numpy(x.dtype)
    return et.is_float or et.is_complex


def _equal(a: Array, e: Array) -> Array:
    """Exact equality: bitwise for floats with NaN == NaN; exact for others."""
    if not _is_float(a):
        return np.asarray(a == e)
    ok = np.ones(a.shape, bool)
    for x, y in zip(_components(a), _components(e), strict=True):
        width = x.dtype.itemsize
        same = x.view(f"u{width}") == y.view(f"u{width}")
        both_nan = np.isnan(x.astype(np.float64)) & np.isnan(y.astype(np.float64))
        ok &= same | both_nan
    return ok


def _almost_equal(a: Array, e: Array, tolerance: float) -> Array:
    if not _is_float(a):
        return np.asarray(a == e)
    ok = np.ones(a.shape, bool)
    with np.errstate(invalid="ignore", over="ignore"):
        for x, y in zip(_components(a), _components(e), strict=True):
            xf, yf = x.astype(np.float64), y.astype(np.float64)
            close = np.isfinite(xf) & np.isfinite(yf) & (np.abs(xf - yf) <= tolerance)
            ok &= (xf == yf) | (np.isnan(xf) & np.isnan(yf)) | close
    return ok


def ulp_difference(a: Array, e: Array) -> Array:
    """ULP distance of float arrays in their own type (uint64; max for non-finite mismatches)."""
    worst = np.zeros(a.shape, np.uint64)
    for x, y in zip(_components(a), _components(e), strict=True):
        et = dtypes.from_numpy(x.dtype)
        width = x.dtype.itemsize
        xb = x.view(f"u{width}").astype(np.uint64)
        yb = y.view(f"u{width}").astype(np.uint64)
        sign = np.uint64(1 << (et.bits - 1))
        mask = np.uint64((1 << et.bits) - 1)
        xb &= mask
        yb &= mask
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        xm, ym = xb & ~sign, yb & ~sign
        same_sign = (xb & sign) == (yb & sign)
        dist = np.where(same_sign, np.maximum(xm, ym) - np.minimum(xm, ym), xm + ym)
        finite = np.isfinite(xf) & np.isfinite(yf)
        dist = np.where(finite, dist, np.uint64(np.iinfo(np.uint64).max))
        dist = np.where(np.isnan(xf) & np.isnan(yf), np.uint64(0), dist)
        dist = np.where(xb == yb, np.uint64(0), dist)
        worst = np.maximum(worst, dist)
    return worst


def _none() -> tuple[()]:
    return ()


@custom_call_target("check.expect_eq")
def expect_eq(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Every element equal (bitwise for floats, NaN equal to NaN)."""
    pair = _pair(instr, operands)
    if pair is not None:
        a, e = pair
        _mismatch(instr, _equal(a, e), a, e, "values differ")
    return _none()


@custom_call_target("check.expect_almost_eq")
def expect_almost_eq(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Every element equal within ``tolerance`` (default 1e-4)."""
    pair = _pair(instr, operands)
    if pair is not None:
        a, e = pair
        tolerance = float(_config(instr).get("tolerance", 1e-4))
        ok = _almost_equal(a, e, tolerance)
        _mismatch(instr, ok, a, e, f"values differ by more than {tolerance:g}")
    return _none()


@custom_call_target("check.expect_close")
def expect_close(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Every element's ULP distance in [min_ulp_difference, max_ulp_difference]."""
    pair = _pair(instr, operands)
    if pair is not None:
        a, e = pair
        config = _config(instr)
        hi = int(config.get("max_ulp_difference", 1))
        lo = int(config.get("min_ulp_difference", 0))
        if not _is_float(a):
            _mismatch(instr, _equal(a, e), a, e, "values differ")
        else:
            dist = ulp_difference(a, e)
            ok = (dist <= np.uint64(hi)) & (dist >= np.uint64(lo))
            _mismatch(instr, ok, a, e, f"ULP difference outside [{lo}, {hi}]", dist)
    return _none()


@custom_call_target("check.eq")
def check_eq(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """``pred[]``: true when equal (integers exactly, floats within ``tolerance``)."""
    pair = _pair(instr, operands)
    if pair is None:
        return np.array(False)
    a, e = pair
    tolerance = float(_config(instr).get("tolerance", 1e-4))
    ok = _almost_equal(a, e, tolerance)
    return np.array(_mismatch(instr, ok, a, e, "values differ"))


_probe_dir: list[Path] = []


@contextmanager
def probe_directory(path: str | Path) -> Iterator[Path]:
    """Within the block, ``interpreter.probe`` also writes each value it records to
    ``<path>/<probe_id>_<iter>.npy`` (other characters than ``[A-Za-z0-9_.-]`` become ``_``)
    and appends ``probe_id,iter,type,file`` to
    ``<path>/index.csv`` (the ``--probe-dir`` of ``xlapy interpret``)."""
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    with _lock:
        _probe_dir.append(directory)
    try:
        yield directory
    finally:
        with _lock:
            _probe_dir.remove(directory)


def _write_probe(directory: Path, probe_id: str, iteration: int, value: Value) -> None:
    if not isinstance(value, np.ndarray):
        return
    # Probe ids may hold path separators ("probe/0"): file names keep [A-Za-z0-9_.-] only.
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{probe_id}_{iteration}") + ".npy"
    np.save(directory / name, value)
    with (directory / "index.csv").open("a") as index:
        index.write(f"{probe_id},{iteration},{shape_of(value).to_mlir()},{name}\n")


@custom_call_target("interpreter.probe")
def probe(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Records its operand under ``probe_id`` (one entry per execution) and returns it."""
    (value,) = operands
    probe_id = str(_config(instr).get("probe_id", ""))
    report = _report()
    with _lock:
        if report is not None:
            report.probes.setdefault(probe_id, []).append(value)
        if _probe_dir:
            iteration = len(report.probes[probe_id]) - 1 if report is not None else 0
            _write_probe(_probe_dir[-1], probe_id, iteration, value)
    return value


@custom_call_target("check.expect_serialized_eq")
def expect_serialized_eq(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Equal to the value probe ``probe_id`` recorded on execution ``iter``."""
    config = _config(instr)
    probe_id = str(config.get("probe_id", ""))
    iteration = int(config.get("iter", 0))
    report = _report()
    recorded = [] if report is None else report.probes.get(probe_id, [])
    if iteration >= len(recorded):
        _fail(instr, f"probe {probe_id!r} recorded {len(recorded)} values; no value {iteration}")
        return _none()
    pair = _pair(instr, [operands[0], recorded[iteration]])
    if pair is not None:
        a, e = pair
        _mismatch(instr, _equal(a, e), a, e, f"values differ from probe {probe_id!r}")
    return _none()


@custom_call_target("interpreter.print")
def print_value(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
    """Prints each operand as the StableHLO interpreter does (``tensor<2xi32> {[0, 1]}``)."""
    with _lock:
        for value in operands:
            sys.stdout.write(format_value(value) + "\n")
        sys.stdout.flush()
    return _none()


def format_value(value: Value) -> str:
    """``tensor<4xi8> {\\n  [1, 2, -3, -4]\\n}``; scalars ``tensor<ui8> {1}``; tuples per element."""
    if isinstance(value, tuple):
        return "\n".join(format_value(v) for v in value)
    if not isinstance(value, np.ndarray):
        return "!stablehlo.token"
    head = shape_of(value).to_mlir()
    if value.ndim == 0:
        return f"{head} {{{_element_print(value[()])}}}"
    return f"{head} {{\n{_nested(value, 1)}\n}}"


def _element_print(x: Any) -> str:
    if isinstance(x, (np.complexfloating, complex)):
        return f"[{_element_print(x.real)}, {_element_print(x.imag)}]"
    if isinstance(x, (np.bool_, bool)):
        return "true" if x else "false"
    if isinstance(x, (np.integer, int)):
        return str(int(x))
    return f"{float(x):e}"


def _nested(value: Array, depth: int) -> str:
    pad = "  " * depth
    if value.ndim == 1:
        return pad + "[" + ", ".join(_element_print(x) for x in value) + "]"
    if value.shape[0] == 0:
        return pad + "[]"
    inner = ",\n".join(_nested(v, depth + 1) for v in value)
    return f"{pad}[\n{inner}\n{pad}]"
