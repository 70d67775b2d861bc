"""Run a program (HLO text or StableHLO) on inputs from an .npz file.

  xlapy run FILE [--inputs IN.npz] [--outputs OUT.npz] [--flush-denormals]

The entry computation's arguments are ``arg0, arg1, ...`` of IN.npz (numpy arrays of the
parameters' exact dtypes). Results, tuples flattened, are written to OUT.npz as ``out0, out1,
...``, or printed (``out0 = tensor<2xf32> {...}``) when no --outputs is given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evals.checks import format_value
from xlapy.interpreter.run import run
from xlapy.loader import load


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="program: .hlo (HLO text) or .mlir (StableHLO)")
    parser.add_argument("--inputs", help=".npz file with arg0, arg1, ...")
    parser.add_argument("--outputs", help="write the results to this .npz (out0, out1, ...)")
    parser.add_argument(
        "--flush-denormals",
        action="store_true",
        help="flush f32/bf16 subnormals to zero as XLA:CPU does",
    )


def read_inputs(path: str | None, count: int) -> list[np.ndarray]:
    """``arg0 .. arg{count-1}`` of an .npz file; raises InvalidArgument naming what is missing."""
    if count == 0:
        return []
    if path is None:
        raise InvalidArgument(f"the entry computation takes {count} arguments; pass --inputs")
    with np.load(Path(path), allow_pickle=False) as data:
        missing = [f"arg{i}" for i in range(count) if f"arg{i}" not in data.files]
        if missing:
            raise InvalidArgument(
                f"{path} lacks {', '.join(missing)}; it holds {', '.join(data.files) or 'nothing'}"
            )
        return [data[f"arg{i}"] for i in range(count)]


def main(args: argparse.Namespace) -> int:
    module = load(Path(args.file))
    inputs = read_inputs(args.inputs, len(module.entry.parameters))
    results = run(module, *inputs, flush_denormals=args.flush_denormals)
    if args.outputs:
        arrays = {
            f"out{i}": np.asarray(v) for i, v in enumerate(results) if isinstance(v, np.ndarray)
        }
        np.savez(Path(args.outputs), **arrays)  # type: ignore[arg-type]
        return 0
    for i, value in enumerate(results):
        print(f"out{i} = {format_value(value)}")
    return 0
