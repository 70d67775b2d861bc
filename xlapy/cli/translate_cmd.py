"""Translate a program between HLO text and StableHLO (XLA's hlo-translate).

  xlapy translate FILE --to stablehlo|hlo [-o OUT]

FILE is HLO text or StableHLO (told apart by its content; '-' reads stdin). The program is
loaded and verified as ``xlapy.load`` does, then printed as StableHLO (``module`` with
``func.func @main``: what ``xlapy run`` and jaxlib read back) or as HLO text (XLA's dump
style). An op with no form in the target syntax is an error naming it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xlapy.cli.files import read_program
from xlapy.errors import InvalidArgument, ParseError
from xlapy.ir.module import HloModule
from xlapy.ir.verifier import verify
from xlapy.loader import is_stablehlo
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import print_hlo
from xlapy.text.stablehlo_parser import parse_stablehlo
from xlapy.text.stablehlo_printer import print_stablehlo

TARGETS = ("stablehlo", "hlo")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an HLO (.hlo) or StableHLO (.mlir) file; '-' reads stdin")
    parser.add_argument(
        "--to", required=True, choices=TARGETS, help="the syntax to print the program in"
    )
    parser.add_argument("-o", "--output", help="write the translation here instead of stdout")


def load_program(path: str) -> HloModule:
    """The verified module of the program file ``path`` (HLO text or StableHLO)."""
    text, filename = read_program(path)
    if not text.strip():
        raise ParseError.at(
            text, 0, "empty program: expected HLO text or StableHLO (module { func.func ... })",
            filename,
        )  # fmt: skip
    if is_stablehlo(text):
        module = parse_stablehlo(text, filename)
    else:
        module = parse_hlo(text, filename, check_shapes=True)
    verify(module)
    return module


def translate(module: HloModule, target: str) -> str:
    """``module`` printed as ``target`` (``stablehlo`` or ``hlo``)."""
    if target == "stablehlo":
        return print_stablehlo(module)
    if target == "hlo":
        return print_hlo(module)
    raise InvalidArgument(f"translate: --to must be one of {', '.join(TARGETS)}; got {target!r}")


def main(args: argparse.Namespace) -> int:
    output = translate(load_program(args.file), args.to)
    if not args.output:
        sys.stdout.write(output)
        return 0
    try:
        Path(args.output).write_text(output)
    except OSError as err:
        raise InvalidArgument(
            f"-o {args.output}: cannot be written ({err.strerror or err})"
        ) from None
    return 0
