"""``python -m tools.fuzz``: run a fuzzing campaign, or replay one saved input.

  python -m tools.fuzz --seconds 60 [--seed N] [--targets hlo,mlir,...] [--out DIR]
  python -m tools.fuzz --replay FILE --target hlo [--program examples/cnn.hlo]

Exit status: 0 when nothing was found, 1 when there are findings (listed with a reproducer
each), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

from tools.fuzz.campaign import MUTATION_TARGETS, STRUCTURED_TARGETS, fuzz, report
from tools.fuzz.sandbox import Limits
from tools.fuzz.targets import TARGETS, read_repro, replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--seconds", type=float, default=60.0, help="campaign length")
    parser.add_argument("--seed", type=int, default=None, help="default: the time")
    parser.add_argument("--targets", default=",".join((*MUTATION_TARGETS, *STRUCTURED_TARGETS)),
                        help=f"comma-separated, of {', '.join(TARGETS)}")  # fmt: skip
    parser.add_argument("--out", default="fuzz-findings", help="where reproducers are written")
    parser.add_argument("--case-seconds", type=float, default=5.0, help="time limit per case")
    parser.add_argument("--memory-mb", type=int, default=2048, help="worker memory limit")
    parser.add_argument("--replay", type=Path, help="run one saved input here and report")
    parser.add_argument("--target", help="the target of --replay")
    parser.add_argument("--program", default="", help="the program of an npz --replay")
    args = parser.parse_args(argv)
    if args.replay is not None:
        if args.target not in TARGETS:
            parser.error(f"--target must be one of {', '.join(TARGETS)}")
        finding = replay(args.target, read_repro(args.replay), args.program)
        if finding is None:
            print("no finding: the input works or raises a located XlaError")
            return 0
        print(
            f"{finding.kind} at {finding.where or '?'} (stage {finding.stage}): {finding.summary}"
        )
        if finding.traceback:
            print(finding.traceback, end="")
        return 1
    targets = [t for t in args.targets.split(",") if t]
    seed = args.seed if args.seed is not None else int(time.time())
    limits = Limits(case_seconds=args.case_seconds, memory_bytes=args.memory_mb << 20)
    print(f"fuzzing {', '.join(targets)} for {args.seconds:g} s (seed {seed})", flush=True)
    try:
        campaign = fuzz(targets, seconds=args.seconds, seed=seed, limits=limits,
                        log=lambda line: print(line, flush=True))  # fmt: skip
    except ValueError as err:
        parser.error(str(err))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    print(report(campaign, Path(args.out)))
    return 1 if campaign.findings else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a bug of the fuzzer itself: say so plainly
        traceback.print_exc()
        sys.exit(3)
