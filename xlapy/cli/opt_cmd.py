"""Run passes on a program (HLO text or StableHLO) and print the result as HLO text, as XLA's
hlo-opt does.

  xlapy opt FILE --passes=dce,cse,...   the named passes, in order (once each)
  xlapy opt FILE --pipeline=default     a named pipeline (what the cpu platform runs)
  xlapy opt --list-passes               the registered passes

The output prints every constant in full (XLA's ``print_large_constants``), so that it loads
and runs as the input did. ``--stats`` prints to stderr the instruction count per opcode before and after, and how often
each rewrite rule fired. ``--verify`` runs the structural verifier after every pass.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from xlapy.cli.files import read_program
from xlapy.errors import InvalidArgument
from xlapy.ir.module import HloModule
from xlapy.loader import load
from xlapy.passes.pass_manager import PASSES, Pipeline, collect_stats, load_passes, make_pass
from xlapy.passes.pipelines import PIPELINES, make_pipeline
from xlapy.text.hlo_printer import PrintOptions, print_hlo


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", nargs="?", help="an .hlo (or StableHLO .mlir) file; '-' reads stdin"
    )
    parser.add_argument("--passes", help="comma-separated pass names, run in order")
    parser.add_argument("--pipeline", help=f"a named pipeline ({', '.join(sorted(PIPELINES))})")
    parser.add_argument("--list-passes", action="store_true", help="list the passes and exit")
    parser.add_argument(
        "--stats", action="store_true", help="print opcode counts and fired rules to stderr"
    )
    parser.add_argument("--verify", action="store_true", help="verify after every pass")
    parser.add_argument("-o", "--output", help="write the HLO text here instead of stdout")


def main(args: argparse.Namespace) -> int:
    if args.list_passes:
        load_passes()
        for name in sorted(PASSES):
            print(f"{name:24} {_first_sentence(PASSES[name].__doc__ or '')}")
        return 0
    if args.file is None:
        raise InvalidArgument("opt: give a program file (or '-' for stdin), or --list-passes")
    if (args.passes is None) == (args.pipeline is None):
        raise InvalidArgument("opt: give exactly one of --passes=a,b,... or --pipeline=NAME")
    pipeline = _pipeline(args)
    module = _load(args.file)
    before = _opcode_counts(module)
    with collect_stats() as fired:
        pipeline.run(module)
    text = print_hlo(module, options=PrintOptions(print_large_constants=True))
    if args.output:
        try:
            Path(args.output).write_text(text)
        except OSError as err:
            raise InvalidArgument(
                f"opt: cannot write {args.output} ({err.strerror or err})"
            ) from None
    else:
        sys.stdout.write(text)
    if args.stats:
        sys.stderr.write(format_stats(before, _opcode_counts(module), fired))
    return 0


def _first_sentence(doc: str) -> str:
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    return paragraph.split(". ")[0].rstrip(".:") + "."


def _pipeline(args: argparse.Namespace) -> Pipeline:
    if args.pipeline is not None:
        return make_pipeline(args.pipeline, verify=args.verify)
    names = [n.strip() for n in args.passes.split(",") if n.strip()]
    if not names:
        raise InvalidArgument("opt: --passes names no pass; see --list-passes")
    return Pipeline([make_pass(n) for n in names], verify=args.verify)


def _load(path: str) -> HloModule:
    if path == "-":
        text, _ = read_program(path)
        return load(text)
    return load(Path(path))


def _opcode_counts(module: HloModule) -> Counter[str]:
    return Counter(i.opcode.value for i in module.instructions())


def format_stats(before: Counter[str], after: Counter[str], fired: Counter[str]) -> str:
    """The ``--stats`` report: instructions per opcode before -> after, then fired rules."""
    lines = ["instructions by opcode (before -> after):"]
    width = max((len(op) for op in before | after), default=5)
    for op in sorted(before | after):
        lines.append(f"  {op:{width}} {before[op]:6} -> {after[op]}")
    lines.append(f"  {'total':{width}} {before.total():6} -> {after.total()}")
    lines.append("rules fired:" if fired else "rules fired: none")
    for rule, count in sorted(fired.items()):
        lines.append(f"  {rule} {count}")
    return "\n".join(lines) + "\n"
