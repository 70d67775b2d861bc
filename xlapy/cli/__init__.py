"""The ``xlapy`` command. Each subcommand is a module ``xlapy.cli.<name>_cmd`` with
``add_arguments(parser)`` and ``main(args) -> int``; user errors exit 2 with a located message.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from xlapy.errors import ParseError, XlaError


def _subcommands() -> dict[str, str]:
    names = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.endswith("_cmd"):
            names[info.name[: -len("_cmd")].replace("_", "-")] = f"{__name__}.{info.name}"
    return dict(sorted(names.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xlapy", description="XLA, in Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, module_name in _subcommands().items():
        module = importlib.import_module(module_name)
        modules[name] = module
        doc = (module.__doc__ or "").strip().splitlines()
        sp = sub.add_parser(name, help=doc[0] if doc else None, description=module.__doc__)
        module.add_arguments(sp)
    args = parser.parse_args(argv)
    try:
        return int(modules[args.command].main(args))
    except XlaError as err:
        located = isinstance(err, ParseError)
        print(str(err) if located else f"error: {err}", file=sys.stderr)
        return 2
    except FileNotFoundError as err:
        print(f"error: {err.filename}: no such file", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        print(f"interrupted{_where(interrupt)}", file=sys.stderr)
        return 130


def _where(interrupt: KeyboardInterrupt) -> str:
    """Where a run was when Ctrl-C came: the instruction and, in a loop, the iteration."""
    instruction = getattr(interrupt, "xlapy_instruction", None)
    loop = getattr(interrupt, "xlapy_loop", None)
    if instruction and loop:
        return f" in {instruction} ({loop})"
    return f" in {instruction or loop}" if instruction or loop else ""


if __name__ == "__main__":
    sys.exit(main())
