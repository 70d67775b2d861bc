"""Coverage-guided fuzzing of one xlapy input path with atheris (libFuzzer), an optional
extra (``pip install atheris`` or ``pip install -e '.[fuzz]'``; not a dependency of xlapy).

  python tools/fuzz/atheris_harness.py TARGET [libFuzzer options] [CORPUS_DIR...]

TARGET is ``hlo``, ``mlir``, ``npz`` or ``indexing``. Without a corpus directory the seeds of
``tools.fuzz.corpus`` are written to a temporary one. Each input is exercised as by the
campaign (``tools.fuzz.targets``) except for the final run of a program (libFuzzer's
``-timeout`` bounds every input; long runs are the campaign's business), and judged by
``tools.fuzz.judge``: a finding raises, so libFuzzer saves the input as a crash artifact
(replay it with ``python -m tools.fuzz --replay FILE --target TARGET``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["xlapy"]):
    import xlapy.cli.files
    import xlapy.indexing.per_op
    import xlapy.text.hlo_parser
    import xlapy.text.stablehlo_parser  # noqa: F401  (instrumented now, used through targets)
    from tools.fuzz import corpus, targets
    from tools.fuzz.judge import judge

TEXT_TARGETS = {"hlo": corpus.hlo_seeds, "mlir": corpus.mlir_seeds,
                "indexing": corpus.indexing_seeds}  # fmt: skip


class Finding(Exception):
    """An input that breaks the property (libFuzzer records the input that raised it)."""


def one_input(target: str, program: str):  # type: ignore[no-untyped-def]
    """libFuzzer's TestOneInput for ``target``."""

    def test(data: bytes) -> None:
        payload: str | bytes = data if target == "npz" else data.decode("utf-8", "replace")
        stage = ["start"]
        case = targets.Case(target, "atheris", payload, program=program)
        try:
            targets.TARGETS[target].run(case, stage.append)
        except targets.RoundTripError as err:
            raise Finding(f"round-trip: {err}") from err
        except Exception as err:
            finding = judge(err, target, stage[-1])
            if finding is not None:
                raise Finding(f"{finding.kind} at {finding.where}: {finding.summary}") from err

    return test


def seed_directory(target: str) -> str:
    """A temporary directory holding the target's seed inputs, one file each."""
    directory = Path(tempfile.mkdtemp(prefix=f"xlapy-atheris-{target}-"))
    if target == "npz":
        for i, (_, data) in enumerate(corpus.npz_seeds()):
            (directory / f"seed-{i}").write_bytes(data)
    else:
        for i, seed in enumerate(TEXT_TARGETS[target]()):
            (directory / f"seed-{i}").write_text(seed.data)
    return str(directory)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in (*TEXT_TARGETS, "npz"):
        sys.exit(f"usage: {sys.argv[0]} {{hlo,mlir,npz,indexing}} [libFuzzer options] [CORPUS]")
    target = sys.argv.pop(1)
    targets.RUN_PROGRAMS = False
    program = ""
    if target == "npz":
        program = str(corpus.npz_seeds()[0][0].relative_to(corpus.ROOT))
    if not any(not arg.startswith("-") for arg in sys.argv[1:]):
        sys.argv.append(seed_directory(target))
    atheris.Setup(sys.argv, one_input(target, program))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
