"""Print indexing maps of an HLO instruction (XLA's indexing analysis), or simplify a map.

  xlapy indexing FILE.hlo [--instruction NAME] [--output N]
  xlapy indexing FILE.hlo --input-to-output --operand N
  xlapy indexing FILE.hlo --match-xla
  xlapy indexing --simplify "(d0) -> (d0 mod 16), domain: d0 in [0, 7]"

Prints ``operand id = N`` followed by that operand's maps for the entry root (or the named
instruction; a fusion or call is composed through its computation). With
``--input-to-output`` each block is an output id with the maps from operand N into it.
``--match-xla`` prints XLA's maps where xlapy is deliberately more precise (padding value
regions, padded convolution kernels, batch groups, runtime variables replaced without range
checks and listed in XLA's order), so the output can be diffed against XLA's; docs/indexing.md
lists every difference.
"""

from __future__ import annotations

import argparse

from xlapy.cli.files import read_program
from xlapy.errors import InvalidArgument
from xlapy.indexing.per_op import input_to_output, output_to_input
from xlapy.indexing.text import parse_indexing_map
from xlapy.ir.verifier import verify


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="HLO text file ('-' for stdin)")
    parser.add_argument("--instruction", help="instruction name (default: the entry root)")
    parser.add_argument("--output", type=int, default=0, help="output id of a tuple result")
    parser.add_argument(
        "--input-to-output", action="store_true", help="maps from an operand to the outputs"
    )
    parser.add_argument("--operand", type=int, default=0, help="operand for --input-to-output")
    parser.add_argument(
        "--physical-layout", action="store_true", help="index physical (memory-order) shapes"
    )
    parser.add_argument(
        "--no-simplify",
        action="store_true",
        help="do not simplify composed maps (fusions) or the --simplify map",
    )
    parser.add_argument(
        "--match-xla",
        action="store_true",
        help="print XLA's maps where xlapy is more precise (see docs/indexing.md)",
    )
    parser.add_argument("--simplify", metavar="MAP", help="parse, simplify and print one map")


def main(args: argparse.Namespace) -> int:
    if args.simplify is not None:
        m = parse_indexing_map(args.simplify, "<--simplify>")
        if not args.no_simplify:
            m = m.simplify().remove_unused_symbols()
        print(m)
        return 0
    if args.file is None:
        raise InvalidArgument("indexing: give an HLO file or --simplify MAP")
    from xlapy.text.hlo_parser import parse_hlo

    text, filename = read_program(args.file)
    module = parse_hlo(text, filename, check_shapes=True)
    verify(module)
    if args.instruction:
        candidates = [i for i in module.instructions() if i.name == args.instruction]
        if not candidates:
            raise InvalidArgument(f"indexing: no instruction named {args.instruction!r}")
        instr = candidates[0]
    else:
        instr = module.entry.root
    if args.input_to_output:
        if not 0 <= args.operand < len(instr.operands):
            raise InvalidArgument(
                f"indexing: {instr.name} has {len(instr.operands)} operands; "
                f"got --operand {args.operand}"
            )
        indexing = input_to_output(
            instr,
            args.operand,
            physical_layout=args.physical_layout,
            match_xla=args.match_xla,
        )
    else:
        outputs = len(instr.shape.tuple_shapes) if instr.shape.is_tuple else 1
        if not 0 <= args.output < outputs:
            raise InvalidArgument(
                f"indexing: {instr.name} has {outputs} outputs; got --output {args.output}"
            )
        indexing = output_to_input(
            instr,
            args.output,
            physical_layout=args.physical_layout,
            simplify=not args.no_simplify,
            match_xla=args.match_xla,
        )
    text = indexing.to_string(xla_order=args.match_xla)
    if text:
        print(text)
    return 0
