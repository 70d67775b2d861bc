"""Parse an HLO (or StableHLO) file and print it as canonical HLO text.

Styles: ``default`` (XLA dump / ``compile().as_text()``: ``%`` names, parameter lists,
metadata), ``short`` (``as_hlo_text()`` with large constants), ``as-hlo-text`` (exactly what
JAX's ``as_hlo_text()`` prints: large constants elided) and ``canonical`` (``tmp_N`` names,
operand shapes, called computations inline).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from xlapy.cli.files import read_program
from xlapy.errors import InvalidArgument
from xlapy.ir.verifier import verify
from xlapy.loader import is_stablehlo
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import PrintOptions, print_hlo
from xlapy.text.stablehlo_parser import parse_stablehlo

STYLES = {
    "default": PrintOptions.default,
    "short": PrintOptions.short_parsable,
    "as-hlo-text": PrintOptions.as_hlo_text,
    "canonical": PrintOptions.canonical,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an .hlo (or StableHLO .mlir) file; '-' reads stdin")
    parser.add_argument(
        "--style", choices=sorted(STYLES), default="default", help="print style (default: XLA)"
    )
    parser.add_argument(
        "--large-constants",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print constants of more than 10 elements in full instead of {...}",
    )
    parser.add_argument("--no-metadata", action="store_true", help="omit metadata= attributes")
    parser.add_argument("--verify", action="store_true", help="also run the structural verifier")


def main(args: argparse.Namespace) -> int:
    text, filename = read_program(args.file)
    if not text.strip():
        raise InvalidArgument(f"{filename}: is empty; expected HLO text or StableHLO")
    if is_stablehlo(text):
        module = parse_stablehlo(text, filename)
    else:
        # Printing needs syntax only; --verify also type-checks every instruction (line:col).
        module = parse_hlo(text, filename, check_shapes=args.verify)
    if args.verify:
        verify(module)
    options = STYLES[args.style]()
    if args.large_constants is not None:
        options = replace(options, print_large_constants=args.large_constants)
    if args.no_metadata:
        options = replace(options, print_metadata=False)
    sys.stdout.write(print_hlo(module, options=options))
    return 0
