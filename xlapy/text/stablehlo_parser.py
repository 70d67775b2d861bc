"""StableHLO (MLIR text) -> HLO: the public entry points.

* ``parse_stablehlo(text)``: one module (one ``// -----`` chunk) -> HloModule whose entry is
  ``main``, or the only function.
* ``parse_stablehlo_tests(text)``: every chunk of a file and, for each, the functions to run
  (``main``; the only function; else every public function without arguments, each one test);
  each test is lowered into its own HloModule (only the functions it calls are lowered, so a
  function using an unsupported op fails only its own test).

Parsing (``mlir_parser``, ``stablehlo_pretty``) builds a syntax tree; lowering
(``stablehlo_lower``, ``stablehlo_ops``, ``stablehlo_ops_chlo``, and on first use
``stablehlo_ops_extra`` and ``stablehlo_ops_legacy``) maps it onto HLO the way XLA's
StableHLO -> HLO conversion does. Errors are ``ParseError`` (``file:line:col: error: ...`` with
the source line and a caret) or, for valid programs xlapy cannot run (quantized types...),
``Unimplemented`` with the same location prefix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from xlapy.errors import ParseError, XlaError
from xlapy.ir.module import HloModule
from xlapy.text import stablehlo_ops, stablehlo_ops_chlo  # noqa: F401  (register lowerings)
from xlapy.text.mlir_ast import MlirModule
from xlapy.text.mlir_parser import MlirParser
from xlapy.text.stablehlo_lower import ModuleLowering

_SPLIT = re.compile(r"^// -----[ \t]*$", re.M)


def split_chunks(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the chunks of ``text`` separated by ``// -----`` lines."""
    chunks = []
    pos = 0
    for m in _SPLIT.finditer(text):
        chunks.append((pos, m.start()))
        pos = m.end()
    chunks.append((pos, len(text)))
    return chunks


def parse_mlir(text: str, filename: str = "<string>", start: int = 0, end: int = -1
               ) -> MlirModule:  # fmt: skip
    """The syntax tree of one chunk ``text[start:end]``."""
    return MlirParser(text, filename, start, end).parse_chunk()


def lower_function(ast: MlirModule, name: str, text: str, filename: str = "<string>"
                   ) -> HloModule:  # fmt: skip
    """An HloModule whose entry computation is function ``name`` of ``ast``."""
    module = ModuleLowering(ast, text, filename).lower_entry(name)
    module.name = ast.name or name
    return module


def parse_stablehlo(text: str, filename: str = "<string>") -> HloModule:
    """Parses one StableHLO module; the entry computation is ``main`` or the only function."""
    ast = parse_mlir(text, filename)
    if "main" in ast.functions:
        entry = "main"
    elif len(ast.functions) == 1:
        entry = next(iter(ast.functions))
    else:
        names = ", ".join(f"@{n}" for n in ast.functions) or "none"
        raise ParseError.at(
            text, ast.offset, f"no @main function and not exactly one function ({names})",
            filename,
        )  # fmt: skip
    return lower_function(ast, entry, text, filename)


class TestCase:
    """One function to run: its chunk, name and module (or the error that prevented it).
    Written out rather than a ``@dataclass`` (generating one costs ~0.5 ms in every process
    that loads StableHLO, which rarely runs test files)."""

    __slots__ = ("chunk", "error", "line", "module", "name")

    def __init__(
        self, chunk: int, name: str, line: int, module: HloModule | None, error: XlaError | None
    ) -> None:
        self.chunk = chunk
        self.name = name
        self.line = line
        self.module = module
        self.error = error

    def __repr__(self) -> str:
        return f"TestCase({self.chunk}, {self.name!r}, line {self.line}, error {self.error!r})"


def parse_stablehlo_tests(text: str, filename: str = "<string>") -> Iterator[TestCase]:
    """Every test of a (``// -----`` split) file, in order, lowered one at a time."""
    for index, (start, end) in enumerate(split_chunks(text)):
        if not text[start:end].strip() or _only_comments(text[start:end]):
            continue
        line = text.count("\n", 0, start) + 1
        try:
            ast = parse_mlir(text, filename, start, end)
        except XlaError as err:
            yield TestCase(index, f"<chunk {index + 1}>", line, None, err)
            continue
        for name in ast.entry_names():
            fline = text.count("\n", 0, ast.functions[name].offset) + 1
            try:
                yield TestCase(index, name, fline, lower_function(ast, name, text, filename), None)
            except XlaError as err:
                yield TestCase(index, name, fline, None, err)


def _only_comments(chunk: str) -> bool:
    return all(not ln.strip() or ln.lstrip().startswith("//") for ln in chunk.splitlines())
