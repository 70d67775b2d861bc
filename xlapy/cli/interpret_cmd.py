"""Run StableHLO test files as ``stablehlo-translate --interpret`` does.

  xlapy interpret FILE... [--args="[dense<1> : tensor<2xi32>, ...]"] [--print-results]
                         [--platform interpreter|cpu] [--max-while-iterations N]

Each file is split at ``// -----`` lines; each chunk runs ``main``, or its only function, or
else every public function without arguments (one test each). Check ops assert; every failed
check is reported. Prints ``PASS file:function`` or ``FAIL file:function: why`` per test, then
``N passed, M failed`` alone on the last line. Exit status: 0 when every test passed, 1 when a
check failed or a test raised, 2 when a file does not parse or uses an unsupported op.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xlapy.cli.run_cmd import positive_int
from xlapy.errors import ParseError, Unimplemented, XlaError
from xlapy.interpreter.evals.checks import (
    collect_check_failures,
    format_value,
    probe_directory,
)
from xlapy.interpreter.run import run
from xlapy.ir.module import HloModule
from xlapy.literal import Literal, Value
from xlapy.loader import read_file
from xlapy.progress import Progress

PASS, FAIL, UNSUPPORTED, PARSE_ERROR = "pass", "fail", "unsupported", "parse-error"


@dataclass
class TestResult:
    """The outcome of one test function."""

    file: str
    name: str
    line: int
    status: str
    message: str = ""
    seconds: float = 0.0
    results: list[Value] | None = None

    @property
    def passed(self) -> bool:
        return self.status == PASS


def parse_args_attr(text: str) -> list[np.ndarray]:
    """``[dense<1> : tensor<2xi32>, ...]`` -> arrays (the ``--args`` of stablehlo-translate)."""
    from xlapy.text.mlir_parser import MlirParser

    parser = MlirParser(text, "--args")
    if not parser.at("["):
        raise ParseError.at(
            text, 0, "expected array attribute string for args, i.e. --args=[dense<1> : "
            "tensor<2xi32>, ...]", "--args"
        )  # fmt: skip
    start = parser.tok.start
    values = parser.parse_attr()
    if not isinstance(values, list) or not all(isinstance(v, Literal) for v in values):
        raise ParseError.at(
            text, start, "expected dense elements attribute for args elements, i.e. "
            "--args=[dense<1> : tensor<2xi32>, ...]", "--args"
        )  # fmt: skip
    return [np.asarray(v.value) for v in values]


_RUN_ARGS = re.compile(r'--args="([^"]*)"')


def run_mode(text: str) -> tuple[bool, str | None]:
    """``(interpret, args)`` as the file's own ``// RUN:`` lines say.

    Upstream runs a test file with the commands of its RUN lines: files whose RUN lines never
    call ``--interpret`` (testdata/dynamic: parse, serialize and round-trip tests) are parsed
    and lowered, not run; ``--args`` of the interpreting RUN line are the entry arguments.
    A file without RUN lines is interpreted.
    """
    runs = [ln.split("RUN:", 1)[1].strip() for ln in text.splitlines() if ln.startswith("// RUN:")]
    interpreting = [r for r in runs if "--interpret" in r and not r.startswith("not ")]
    if runs and not interpreting:
        return False, None
    for command in interpreting:
        match = _RUN_ARGS.search(command)
        if match:
            return True, match.group(1)
    return True, None


def run_module(module: HloModule, args: list[np.ndarray] | None = None,
               platform: str = "interpreter",
               max_while_iterations: int | None = None) -> tuple[list[str], list[Value]]:  # fmt: skip
    """Runs the entry computation on ``platform`` (while loops bounded by
    ``max_while_iterations`` if given); returns (failed check messages, results)."""
    params = module.entry.parameters
    given = list(args or [])
    if len(given) != len(params):
        raise Unimplemented(
            f"function {module.entry.name} takes {len(params)} arguments; got {len(given)} "
            "(pass them with --args)"
        )
    with collect_check_failures() as report:
        results = run(module, *given, platform=platform, max_while_iterations=max_while_iterations)
    return report.failures, results


def run_text(
    text: str,
    filename: str,
    args: list[np.ndarray] | None = None,
    parse_only: bool = False,
    platform: str = "interpreter",
    max_while_iterations: int | None = None,
) -> list[TestResult]:
    """Parses and runs every test of one file on ``platform`` (``parse_only``: parses and
    lowers only; ``max_while_iterations``: the bound of every while loop)."""
    from xlapy.text.stablehlo_parser import parse_stablehlo_tests

    outcomes: list[TestResult] = []
    seen: dict[str, int] = {}
    for case in parse_stablehlo_tests(text, filename):
        start = time.perf_counter()
        seen[case.name] = seen.get(case.name, 0) + 1
        name = case.name if seen[case.name] == 1 else f"{case.name}#{seen[case.name]}"
        result = TestResult(filename, name, case.line, PASS)
        try:
            if case.module is None:
                assert case.error is not None
                kind = UNSUPPORTED if isinstance(case.error, Unimplemented) else PARSE_ERROR
                result.status, result.message = kind, str(case.error)
                outcomes.append(result)
                continue
            if parse_only:
                outcomes.append(result)
                continue
            failures, values = run_module(case.module, args, platform, max_while_iterations)
            result.results = values
            if failures:
                result.status = FAIL
                result.message = "; ".join(failures)
        except ParseError as err:
            result.status, result.message = PARSE_ERROR, str(err)
        except Unimplemented as err:
            result.status, result.message = UNSUPPORTED, str(err)
        except XlaError as err:
            result.status, result.message = FAIL, f"{type(err).__name__}: {err}"
        except RecursionError:
            result.status, result.message = FAIL, "internal error: recursion too deep"
        except Exception as err:  # a bug in an evaluator must not stop the other tests
            result.status = FAIL
            result.message = f"internal error: {type(err).__name__}: {err}"
        result.seconds = time.perf_counter() - start
        outcomes.append(result)
    return outcomes


def run_file(
    path: str | Path,
    args: list[np.ndarray] | None = None,
    parse_only: bool | None = None,
    platform: str = "interpreter",
    max_while_iterations: int | None = None,
) -> list[TestResult]:
    """Runs one file on ``platform``; without explicit ``args``/``parse_only``, as its RUN
    lines say."""
    path = Path(path)
    text = read_file(path)
    interpret, run_args = run_mode(text)
    if args is None and run_args is not None:
        args = parse_args_attr(run_args)
    if parse_only is None:
        parse_only = not interpret and args is None
    return run_text(text, str(path), args, parse_only, platform, max_while_iterations)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", help="StableHLO .mlir files")
    parser.add_argument("--args", help='entry arguments: "[dense<1> : tensor<2xi32>, ...]"')
    parser.add_argument(
        "--print-results", action="store_true", help="print the results of each test function"
    )
    parser.add_argument(
        "--probe-dir",
        help="write every value interpreter.probe records to DIR/<probe_id>_<iter>.npy "
        "(index in DIR/index.csv)",
    )
    parser.add_argument(
        "--platform",
        choices=("interpreter", "cpu"),
        default="interpreter",
        help="run the tests on the reference interpreter (default) or compiled for cpu",
    )
    parser.add_argument(
        "--max-while-iterations",
        type=positive_int,
        metavar="N",
        help="fail a test whose while loop still runs after N iterations (default: no bound)",
    )


def main(args: argparse.Namespace) -> int:
    if args.probe_dir:
        with probe_directory(args.probe_dir):
            return _interpret(args)
    return _interpret(args)


def _interpret(args: argparse.Namespace) -> int:
    entry_args = parse_args_attr(args.args) if args.args else None
    passed = failed = 0
    worst = 0
    # On a terminal, a bar on stderr: files done/total, passes and failures so far, ETA.
    with Progress("interpret", len(args.files), unit="file") as progress:
        for path in args.files:
            try:
                results = run_file(
                    path,
                    entry_args,
                    platform=args.platform,
                    max_while_iterations=args.max_while_iterations,
                )
            except XlaError as err:  # this file cannot be read: report it, run the others
                failed += 1
                print(f"FAIL {path}: {err}")
                worst = 2
                progress.advance(f"{passed} passed, {failed} failed")
                continue
            for result in results:
                where = f"{result.file}:{result.name}"
                if result.passed:
                    passed += 1
                    print(f"PASS {where}")
                    if args.print_results and result.results:
                        for value in result.results:
                            print(format_value(value))
                    continue
                failed += 1
                print(f"FAIL {where}: {result.message}")
                worst = max(worst, 2 if result.status in (UNSUPPORTED, PARSE_ERROR) else 1)
            progress.advance(f"{passed} passed, {failed} failed")
    sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return worst
