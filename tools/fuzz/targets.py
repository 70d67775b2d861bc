"""The input paths under fuzzing, one ``Target`` each, and what a case does on each.

* ``hlo``: HLO text mutated from the seeds -> ``xlapy.load`` (parse, type-check, verify),
  then ``exercise``: printed back and loaded again, printed as StableHLO and loaded again,
  every entry instruction's indexing maps, and a run on random arguments.
* ``mlir``: StableHLO text (pretty and generic forms) -> load (``// -----`` files split as
  the conformance runner does) -> ``exercise``.
* ``npz``: mutated ``.npz`` bytes as ``xlapy run PROGRAM --inputs FILE`` reads them
  (``cli.files.load_npz`` and ``as_argument`` per parameter), then the run.
* ``indexing``: mutated indexing-map text -> ``xlapy indexing --simplify`` (parse, simplify,
  print) and the printed map parsed again.
* ``builder``, ``run-args``, ``indexing-maps``: structured inputs drawn by hypothesis
  (``structured``).

A case reports its stage through ``stage(name)``: running out of time is a finding except in
the ``run`` stage (``judge.SLOW_STAGES``).
"""

from __future__ import annotations

import random
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import xlapy
from tools.fuzz import corpus
from tools.fuzz.judge import Finding
from tools.fuzz.mutate import mutate_bytes, mutate_text
from xlapy.errors import Unimplemented, XlaError
from xlapy.indexing.indexing_map import IndexingMap
from xlapy.indexing.per_op import input_to_output, output_to_input
from xlapy.indexing.text import parse_indexing_map
from xlapy.ir.memory import check_memory
from xlapy.ir.module import HloModule
from xlapy.shape import Shape
from xlapy.text.hlo_printer import print_hlo
from xlapy.text.stablehlo_parser import parse_stablehlo_tests
from xlapy.text.stablehlo_printer import print_stablehlo

Stage = Callable[[str], None]

RUN_MEMORY = 256 << 20
"""``max_memory`` of the fuzzed runs: larger programs are refused by the static check, so
the worker's memory limit only catches allocations the check does not foresee."""
RUN_DEVICES = 16
"""Programs for more devices are loaded and analysed but not run (one thread per device)."""
INDEXED_INSTRUCTIONS = 64


class RoundTripError(Exception):
    """A module printed by xlapy that xlapy does not load again."""


@dataclass
class Case:
    """One input: the target it is for, where it came from, and the data (text, bytes, or a
    structured case with ``run()`` and ``source()``). ``program`` names the program an
    ``.npz`` case is the inputs of."""

    target: str
    label: str
    data: object
    program: str = ""


@dataclass
class Target:
    """An input path: ``run(case, stage)`` exercises it on one case; mutation targets also
    ``generate(rng)`` cases (structured targets draw theirs with hypothesis)."""

    name: str
    extension: str
    run: Callable[[Case, Stage], None]
    generate: Callable[[random.Random], Case] | None = None


# ---- shared: what is done with a loaded module ------------------------------------------------


def _value(shape: Shape, rng: np.random.Generator) -> object:
    if shape.is_tuple:
        return tuple(_value(s, rng) for s in shape.tuple_shapes)
    if not shape.is_array:
        return None
    dims = [max(d, 0) for d in shape.dims]
    etype = shape.element_type
    want = etype.numpy
    if etype.is_pred:
        return rng.integers(0, 2, dims).astype(bool)
    if etype.is_integer:
        return (
            rng.integers(-3, 8, dims).astype(want)
            if etype.is_signed
            else rng.integers(0, 8, dims).astype(want)
        )
    if etype.is_complex:
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(want)
    if etype.is_float:
        return rng.standard_normal(dims).astype(np.float64).astype(want)
    return np.zeros(dims, want)


def arguments(module: HloModule, seed: int) -> list[object]:
    """Random arguments for the entry's parameters (small integers, normal floats)."""
    rng = np.random.default_rng(seed)
    return [_value(p.shape, rng) for p in module.entry.parameters]


def _round_trip(text: str, what: str) -> None:
    try:
        xlapy.load(text)
    except XlaError as err:
        raise RoundTripError(f"{what} does not load again: {str(err).splitlines()[0]}") from err


RUN_PROGRAMS = True
"""Whether ``exercise`` ends with a run (the atheris harness, bounded by libFuzzer's own
timer, leaves runs to the campaign)."""


def exercise(module: HloModule, stage: Stage, seed: int) -> None:
    """Everything xlapy does with a loaded module: print (HLO and StableHLO) and load again,
    indexing maps of the entry's instructions, and a run on random arguments."""
    stage("print")
    _round_trip(print_hlo(module), "the printed HLO")
    stage("print-stablehlo")
    try:
        text = print_stablehlo(module)
    except Unimplemented:
        text = ""
    if text:
        stage("reload-stablehlo")
        _round_trip(text, "the printed StableHLO")
    stage("indexing")
    for instr in module.entry.instructions[:INDEXED_INSTRUCTIONS]:
        outputs = len(instr.shape.tuple_shapes) if instr.shape.is_tuple else 1
        for k in range(min(outputs, 3)):
            output_to_input(instr, k)
        for k in range(min(len(instr.operands), 3)):
            input_to_output(instr, k)
    config = module.config
    if not RUN_PROGRAMS or config.replica_count * config.num_partitions > RUN_DEVICES:
        return
    stage("memory-check")
    check_memory(module, RUN_MEMORY, devices=config.replica_count * config.num_partitions)
    stage("arguments")
    args = arguments(module, seed)
    stage("run")
    xlapy.run(module, *args, timeout=1.0, max_memory=RUN_MEMORY, platform="interpreter")


def _seed_of(data: str | bytes) -> int:
    return zlib.crc32(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)


# ---- HLO and StableHLO text -------------------------------------------------------------------


def _text_generator(seeds: Callable[[], tuple[corpus.Seed, ...]], target: str):  # type: ignore[no-untyped-def]
    def generate(rng: random.Random) -> Case:
        pool = seeds()
        seed = rng.choice(pool)
        others = [rng.choice(pool).data for _ in range(3)]
        text, how = mutate_text(seed.data, rng, others)
        return Case(target, f"{seed.name} ({how})", text)

    return generate


def run_hlo(case: Case, stage: Stage) -> None:
    assert isinstance(case.data, str)
    stage("load")
    module = xlapy.load(case.data)
    exercise(module, stage, _seed_of(case.data))


def run_mlir(case: Case, stage: Stage) -> None:
    assert isinstance(case.data, str)
    text = case.data
    stage("load")
    if "// -----" not in text:
        exercise(xlapy.load(text), stage, _seed_of(text))
        return
    for test in parse_stablehlo_tests(text, "<string>"):  # the conformance runner's path
        if test.module is None:
            assert test.error is not None
            raise test.error
        stage("verify")
        xlapy.ir.verifier.verify(test.module)
        exercise(test.module, stage, _seed_of(text))
        stage("load")


# ---- .npz inputs ------------------------------------------------------------------------------


def generate_npz(rng: random.Random) -> Case:
    program, data = rng.choice(corpus.npz_seeds())
    mutated, how = mutate_bytes(data, rng)
    if rng.random() < 0.3:
        mutated, more = mutate_bytes(mutated, rng)
        how += "+" + more
    name = str(program.relative_to(corpus.ROOT))
    return Case("npz", f"{program.name} inputs ({how})", mutated, program=name)


def run_npz(case: Case, stage: Stage) -> None:
    """``xlapy run PROGRAM --inputs FILE`` up to the call (``run_cmd.read_inputs``: the
    archive read, each entry taken as its parameter's argument), then the run."""
    from xlapy.cli.run_cmd import read_inputs

    assert isinstance(case.data, bytes)
    stage("load")
    module = xlapy.load(corpus.ROOT / case.program)
    devices = module.config.replica_count * module.config.num_partitions
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inputs.npz"
        path.write_bytes(case.data)
        stage("read-npz")
        args = read_inputs(str(path), module, devices)
    stage("run")
    xlapy.run(module, *args, timeout=1.0, max_memory=RUN_MEMORY, platform="interpreter")


# ---- indexing-map text -------------------------------------------------------------------------


def generate_indexing(rng: random.Random) -> Case:
    pool = corpus.indexing_seeds()
    seed = rng.choice(pool)
    text, how = mutate_text(seed.data, rng, [rng.choice(pool).data for _ in range(3)])
    return Case("indexing", f"{seed.name} ({how})", text)


def simplify_map_text(text: str, stage: Stage) -> None:
    """What ``xlapy indexing --simplify MAP`` does, then the printed map parsed again (it must
    be the same map)."""
    stage("parse")
    indexing_map = parse_indexing_map(text, "<--simplify>")
    stage("simplify")
    simplified = indexing_map.simplify().remove_unused_symbols()
    stage("print")
    printed = str(simplified)
    if simplified.is_undefined or simplified.is_known_empty:
        return
    stage("reparse")
    try:
        again = parse_indexing_map(printed, "<printed>")
    except XlaError as err:
        raise RoundTripError(f"the printed map does not parse again: {err}") from err
    if str(again) != printed and _image(again) != _image(simplified):
        # A different spelling of the same map (a sum printed 'a + -b') is not a finding.
        raise RoundTripError(f"the printed map parses to another map: {printed!r} -> {again}")


def _image(indexing_map: IndexingMap) -> object:
    """The map's image when its domain is small, else None (not compared)."""
    try:
        return indexing_map.image(4096)
    except XlaError:
        return None


def run_indexing(case: Case, stage: Stage) -> None:
    assert isinstance(case.data, str)
    simplify_map_text(case.data, stage)


def _structured(case: Case, stage: Stage) -> None:
    run = getattr(case.data, "run", None)
    assert run is not None
    run(stage)


TARGETS: dict[str, Target] = {
    "hlo": Target("hlo", "hlo", run_hlo, _text_generator(corpus.hlo_seeds, "hlo")),
    "mlir": Target("mlir", "mlir", run_mlir, _text_generator(corpus.mlir_seeds, "mlir")),
    "npz": Target("npz", "npz", run_npz, generate_npz),
    "indexing": Target("indexing", "txt", run_indexing, generate_indexing),
    "builder": Target("builder", "py", _structured),
    "run-args": Target("run-args", "py", _structured),
    "indexing-maps": Target("indexing-maps", "py", _structured),
}


def replay(target: str, data: str | bytes, program: str = "") -> Finding | None:
    """Runs one saved input in this process (no time limit); returns its finding, if any."""
    from tools.fuzz.judge import judge

    stages = ["start"]
    case = Case(target, "replay", data, program=program)
    try:
        TARGETS[target].run(case, stages.append)
    except RoundTripError as err:
        return Finding(target, "round-trip", str(err), stage=stages[-1])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:
        return judge(err, target, stages[-1])
    return None


def read_repro(path: Path) -> str | bytes:
    """A saved input: bytes for ``.npz``, text otherwise."""
    return path.read_bytes() if path.suffix == ".npz" else path.read_text()
