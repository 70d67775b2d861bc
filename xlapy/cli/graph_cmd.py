"""Draw an HLO (or StableHLO) module as XLA's graph dumper does.

  xlapy graph FILE [-o OUT.dot|OUT.svg|OUT.html] [--computation NAME]
                   [--instruction NAME [--depth N]] [--layout auto|dot|builtin]

One node per instruction (opcode, name, attributes, shape; small constants with their value),
operand edges numbered, fusions and called computations as boxes, parameters and the root
marked, colours by op family. The format follows OUT's extension; without ``-o`` the DOT text
goes to stdout. SVG and HTML are drawn by Graphviz's ``dot`` when it is installed and by
xlapy's own layered layout otherwise (``--layout`` chooses); the HTML page is self-contained
(pan, zoom, find, click for neighbours). ``--instruction`` with ``--depth N`` draws only what
lies within N steps of that instruction.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xlapy.cli.files import read_program
from xlapy.errors import InvalidArgument
from xlapy.graph import FORMATS, LAYOUTS, build_graph, render
from xlapy.loader import is_stablehlo
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.stablehlo_parser import parse_stablehlo


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an .hlo (or StableHLO .mlir) file; '-' reads stdin")
    parser.add_argument(
        "-o", "--output", help="OUT.dot, OUT.svg or OUT.html (default: DOT text on stdout)"
    )
    parser.add_argument("--computation", help="draw this computation (default: the entry)")
    parser.add_argument("--instruction", help="draw only around this instruction")
    parser.add_argument(
        "--depth", type=int, help="with --instruction: steps kept around it (default 3)"
    )
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="auto",
        help="who places the nodes of SVG/HTML: Graphviz dot, xlapy's builtin layered "
        "layout, or auto (dot when installed)",
    )


def _format(output: str | None) -> str:
    if output is None:
        return "dot"
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix == "htm":
        return "html"
    if suffix not in FORMATS:
        raise InvalidArgument(
            f"graph -o {output}: the extension names the format and must be one of "
            f".{', .'.join(FORMATS)}; got {Path(output).suffix or 'none'}"
        )
    return suffix


def main(args: argparse.Namespace) -> int:
    fmt = _format(args.output)
    text, filename = read_program(args.file)
    if not text.strip():
        raise InvalidArgument(f"{filename}: is empty; expected HLO text or StableHLO")
    # A picture needs the graph only: HLO text is parsed without type checks, as `print` does.
    module = parse_stablehlo(text, filename) if is_stablehlo(text) else parse_hlo(text, filename)
    graph = build_graph(
        module, computation=args.computation, instruction=args.instruction, depth=args.depth
    )
    picture = render(graph, fmt, layout=args.layout)
    if args.output is None:
        sys.stdout.write(picture)
        return 0
    try:
        Path(args.output).write_text(picture, encoding="utf-8")
    except OSError as err:
        raise InvalidArgument(
            f"graph -o {args.output}: cannot be written ({err.strerror or err})"
        ) from None
    print(f"wrote {args.output}: {len(graph.nodes)} instructions, {len(graph.edges)} edges")
    return 0
