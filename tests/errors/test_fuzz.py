"""Mutation fuzzing of the text front ends: real programs (``examples/``, the conformance
corpus) with truncations, deleted/duplicated/swapped tokens, changed numbers, element types
and dimensions are loaded, verified and run. Only ``XlaError``s may come out, and never an
evaluator "internal error" (an ill-typed program must be rejected before it runs).

Seeded and bounded: ``MUTATIONS`` per corpus per run; set ``XLAPY_FUZZ_SEED`` to explore.
"""

from __future__ import annotations

import os
import random
import re
import signal
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.errors import EvaluationError, XlaError
from xlapy.text.stablehlo_parser import parse_stablehlo_tests

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "stablehlo"
MUTATIONS = 200
SEED = int(os.environ.get("XLAPY_FUZZ_SEED", "20260813"))

_TOKEN = re.compile(r"[A-Za-z_][\w.\-]*|-?\d+(?:\.\d+)?(?:e-?\d+)?|\S")
_NUMBER = re.compile(r"-?\d+")
_ETYPE = re.compile(r"(?:^|x)((?:f|s|u|i|ui|bf|c)\d+|pred)$")
_TYPES = ["f32", "s32", "pred", "f16", "u8", "s64", "bf16", "i32", "i1", "f64", "ui8", "c64"]


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One random mutation of ``text`` and its kind."""
    tokens = [m.span() for m in _TOKEN.finditer(text)]
    kind = rng.choice(["truncate", "delete", "duplicate", "swap", "number", "type", "replace",
                       "dims"])  # fmt: skip
    start, end = rng.choice(tokens)
    if kind == "truncate":
        cut = rng.randrange(len(text))
        return text[:cut], kind
    if kind == "duplicate":
        return text[:end] + " " + text[start:end] + text[end:], kind
    if kind == "swap":
        i = tokens.index((start, end))
        if i + 1 < len(tokens):
            s2, e2 = tokens[i + 1]
            return text[:start] + text[s2:e2] + text[end:s2] + text[start:end] + text[e2:], kind
    if kind == "number":
        numbers = [t for t in tokens if _NUMBER.fullmatch(text[t[0] : t[1]])]
        if numbers:
            s, e = rng.choice(numbers)
            value = rng.choice([0, 1, -1, 2, 3, 7, 100, 2**31, -5])
            return text[:s] + str(value) + text[e:], kind
    if kind == "type":
        typed = [(t, m) for t in tokens if (m := _ETYPE.search(text[t[0] : t[1]]))]
        if typed:
            (s, _), m = rng.choice(typed)
            return text[: s + m.start(1)] + rng.choice(_TYPES) + text[s + m.end(1) :], kind
    if kind == "replace":
        s2, e2 = rng.choice(tokens)
        return text[:start] + text[s2:e2] + text[end:], kind
    if kind == "dims":
        spans = [m.span() for m in re.finditer(r"\d+x|\[\d+(?:,\d+)*\]", text)]
        if spans:
            s, e = rng.choice(spans)
            if text[s:e].endswith("x"):
                return text[:s] + f"{rng.choice([1, 2, 3, 5])}x" + text[e:], kind
            dims = ",".join(str(rng.choice([1, 2, 3])) for _ in range(rng.randrange(4)))
            return text[:s] + f"[{dims}]" + text[e:], kind
    return text[:start] + text[end:], "delete"


class _Slow(Exception):
    pass


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raises _Slow after ``seconds`` (a mutated loop bound may run for a long time)."""

    def fire(*_: object) -> None:
        raise _Slow

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _value(shape: xlapy.Shape) -> object:
    if shape.is_tuple:
        return tuple(_value(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return None
    return np.ones([max(d, 0) for d in shape.dims], shape.element_type.numpy)


def exercise(text: str, stablehlo: bool) -> None:
    """Load (verified), then run every module of ``text`` on all-ones inputs."""
    if stablehlo:
        modules = []
        for case in parse_stablehlo_tests(text, "fuzz.mlir"):
            if case.module is None:
                assert case.error is not None
                raise case.error
            xlapy.ir.verifier.verify(case.module)
            modules.append(case.module)
    else:
        modules = [xlapy.load(text)]
    for module in modules:
        args = [_value(p.shape) for p in module.entry.parameters]
        xlapy.run(module, *args, timeout=2)


def corpus(kind: str) -> list[Path]:
    if kind == "hlo":
        return sorted(ROOT.glob("examples/*.hlo"))
    if kind == "mlir":
        return sorted(ROOT.glob("examples/*.mlir"))
    files = sorted((CONFORMANCE / "interpret").glob("*.mlir"))
    return [f for f in files if f.stat().st_size < 20_000]


@pytest.mark.parametrize("kind", ["hlo", "mlir", "conformance"])
def test_mutated_programs_raise_only_xla_errors(kind):
    files = corpus(kind)
    if not files:
        pytest.skip(f"no {kind} files in this checkout")
    rng = random.Random(f"{SEED}-{kind}")
    texts = {f: f.read_text() for f in files}
    bugs: list[str] = []
    for _ in range(MUTATIONS):
        path = rng.choice(files)
        text, how = mutate(texts[path], rng)
        try:
            with time_limit(3):
                exercise(text, kind != "hlo")
        except _Slow:
            continue
        except EvaluationError as err:
            if "internal error" in str(err):
                bugs.append(f"{path.name} ({how}): {err}")
        except XlaError:
            continue
        except RecursionError:
            bugs.append(f"{path.name} ({how}): RecursionError")
        except Exception as err:  # every other exception is the finding
            frame = traceback.extract_tb(err.__traceback__)[-1]
            bugs.append(
                f"{path.name} ({how}): {type(err).__name__} at {Path(frame.filename).name}:"
                f"{frame.lineno}: {err}"
            )
    assert not bugs, f"{len(bugs)} non-XlaError failures (seed {SEED}):\n" + "\n".join(bugs[:10])
