"""Exception classes of xlapy: every user-facing failure is one of these.

Message format: ``<op> <instr name> [<label>]: <rule in words>; got <actual values>``.
"""

from __future__ import annotations


class XlaError(Exception):
    """Base class of every error xlapy raises on purpose."""


class InvalidArgument(XlaError, ValueError):
    """Bad shapes, attributes or element types (a user mistake)."""


class Unimplemented(XlaError, NotImplementedError):
    """A valid op / element-type combination that xlapy does not support."""


class VerificationError(XlaError):
    """An IR invariant is broken (by a pass or by a malformed module)."""


class EvaluationError(XlaError, RuntimeError):
    """A program failed while running (a failed check, an unreachable collective, ...)."""


class ParseError(XlaError, ValueError):
    """A text input is malformed; carries the file, line and column.

    ``str(err)`` is ``file:line:col: error: message`` followed by the source line and a caret.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int = 0,
        column: int = 0,
        source_line: str = "",
        filename: str = "<string>",
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line
        self.filename = filename
        super().__init__(self._render())

    def _render(self) -> str:
        head = f"{self.filename}:{self.line}:{self.column}: error: {self.message}"
        if not self.source_line:
            return head
        snippet, offset = _window(self.source_line, max(self.column - 1, 0))
        return f"{head}\n{snippet}\n{' ' * offset}^"

    @classmethod
    def at(cls, text: str, offset: int, message: str, filename: str = "<string>") -> ParseError:
        """Builds the error for character ``offset`` of ``text`` (line/column are 1-based)."""
        line = text.count("\n", 0, offset) + 1
        start = text.rfind("\n", 0, offset) + 1
        end = text.find("\n", offset)
        if end < 0:
            end = len(text)
        return cls(
            message,
            line=line,
            column=offset - start + 1,
            source_line=text[start:end],
            filename=filename,
        )


_WINDOW = 160
"""The longest source line a ParseError quotes whole; longer ones (minified or generated
text) are cut to this many characters around the column, marked with '...'."""


def _window(line: str, offset: int) -> tuple[str, int]:
    """``line`` cut to ``_WINDOW`` characters around ``offset``, and the offset within it."""
    if len(line) <= _WINDOW:
        return line, offset
    start = min(max(offset - _WINDOW // 2, 0), len(line) - _WINDOW)
    end = start + _WINDOW
    before = "..." if start else ""
    after = "..." if end < len(line) else ""
    return f"{before}{line[start:end]}{after}", offset - start + len(before)


class ShapeCheckError(ParseError, InvalidArgument):
    """An instruction of a program text breaks its op's shape rules (found at load time):
    located like a ParseError (``file:line:col``), and an InvalidArgument like the same mistake
    made through the builder."""
