"""XLA's text form of indexing maps: parser and printer.

    (d0, d1)[s0]{rt0} -> (d0 + rt0, s0),
    domain:
    d0 in [0, 9],
    d1 in [0, 19],
    s0 in [0, 255],
    rt0 in [0, 3],
    d0 + s0 in [0, 100]

Dimensions come first, then range variables in ``[...]`` and runtime variables in ``{...}``;
the domain lists every variable in that order, then the constraints (printed sorted, as XLA
does). Expressions use MLIR syntax: ``+ - *``, ``floordiv`` (also ``/``), ``mod``, unary
minus and parentheses. The empty map prints ``() -> ()``; ``KNOWN EMPTY`` and ``UNDEFINED``
are printed for those maps. Parsing is whitespace-insensitive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xlapy.errors import InvalidArgument, ParseError
from xlapy.indexing.affine import AffineExpr, as_expr, dim, symbol
from xlapy.indexing.indexing_map import IndexingMap, Variable
from xlapy.indexing.interval import Interval
from xlapy.text.limits import PLAIN_BRACKETS, check_nesting

# ---- printing -------------------------------------------------------------------------------


def format_expr(expr: AffineExpr, indexing_map: IndexingMap) -> str:
    """``expr`` spelled with the variable names of ``indexing_map``."""
    return expr.to_str(indexing_map.dim_names(), indexing_map.symbol_names())


def format_indexing_map(m: IndexingMap, *, multiline: bool = True) -> str:
    """XLA's ``ToString(IndexingMap)``; ``multiline`` puts the domain one entry per line."""
    if m.is_undefined:
        return "UNDEFINED"
    if m.is_known_empty:
        return "KNOWN EMPTY"
    dim_names = m.dim_names()
    symbol_names = m.symbol_names()
    n_range = len(m.range_vars)
    head = "(" + ", ".join(dim_names) + ")"
    if m.range_vars:
        head += "[" + ", ".join(symbol_names[:n_range]) + "]"
    if m.rt_vars:
        head += "{" + ", ".join(symbol_names[n_range:]) + "}"
    results = ", ".join(e.to_str(dim_names, symbol_names) for e in m.results)
    text = f"{head} -> ({results})"
    names = [*dim_names, *symbol_names]
    if not names:
        return text
    entries = [f"{name} in {v.bounds}" for name, v in zip(names, m.all_vars, strict=True)]
    entries += sorted(
        f"{e.to_str(dim_names, symbol_names)} in {b}" for e, b in m.constraints.items()
    )
    if multiline:
        return text + ",\ndomain:\n" + ",\n".join(entries)
    return text + ", domain: " + ", ".join(entries)


# ---- parsing --------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<int>\d+)|(?P<ident>[A-Za-z_][A-Za-z0-9_.]*)|(?P<arrow>->)|(?P<punct>[-+*/(),\[\]{}:]))"
)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "int", "ident", "arrow", "punct", "eof"
    text: str
    offset: int


def _tokenize(text: str, filename: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            tokens.append(_Token("eof", "", pos))
            return tokens
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ParseError.at(text, pos, f"unexpected character {text[pos]!r}", filename)
        kind = match.lastgroup or "punct"
        tokens.append(_Token(kind, match.group(kind), match.start(kind)))
        pos = match.end()


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        check_nesting(text, filename, PLAIN_BRACKETS)
        self.text = text
        self.filename = filename
        self.tokens = _tokenize(text, filename)
        self.pos = 0
        self.names: dict[str, AffineExpr] = {}

    # -- token helpers
    @property
    def tok(self) -> _Token:
        return self.tokens[self.pos]

    def error(self, message: str, token: _Token | None = None) -> ParseError:
        token = token or self.tok
        found = token.text or "end of input"
        return ParseError.at(self.text, token.offset, f"{message}; got {found!r}", self.filename)

    def accept(self, text: str) -> bool:
        if self.tok.text == text and self.tok.kind != "eof":
            self.pos += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.error(f"indexing map: expected {text!r}")

    def ident(self) -> str:
        if self.tok.kind != "ident":
            raise self.error("indexing map: expected a variable name")
        name = self.tok.text
        self.pos += 1
        return name

    def integer(self) -> int:
        negative = self.accept("-")
        if self.tok.kind != "int":
            raise self.error("indexing map: expected an integer")
        value = int(self.tok.text)
        self.pos += 1
        return -value if negative else value

    def name_list(self, open_: str, close: str) -> list[str]:
        self.expect(open_)
        names: list[str] = []
        if self.accept(close):
            return names
        while True:
            names.append(self.ident())
            if self.accept(close):
                return names
            self.expect(",")

    def interval(self) -> Interval:
        self.expect("[")
        lower = self.integer()
        self.expect(",")
        upper = self.integer()
        self.expect("]")
        return Interval(lower, upper)

    # -- expressions (MLIR precedence: + - < * floordiv mod < unary minus)
    def expr(self) -> AffineExpr:
        result = self.term()
        while True:
            if self.accept("+"):
                result = result + self.term()
            elif self.accept("-"):
                result = result - self.term()
            else:
                return result

    def term(self) -> AffineExpr:
        result = self.unary()
        while True:
            token = self.tok
            if self.accept("*"):
                result = self._checked(token, lambda a, b: a * b, result, self.unary())
            elif self.accept("/") or self.accept("floordiv"):
                result = self._checked(token, lambda a, b: a // b, result, self.unary())
            elif self.accept("mod"):
                result = self._checked(token, lambda a, b: a % b, result, self.unary())
            elif token.kind == "ident" and token.text == "ceildiv":
                raise self.error("indexing map: ceildiv is not supported")
            else:
                return result

    def _checked(self, token: _Token, op: object, a: AffineExpr, b: AffineExpr) -> AffineExpr:
        """``op(a, b)``; a rule of affine expressions it breaks (a product of two
        non-constants, a division by zero) becomes a located error at ``token``."""
        try:
            return op(a, b)  # type: ignore[operator, no-any-return]
        except InvalidArgument as err:
            raise ParseError.at(self.text, token.offset, str(err), self.filename) from None

    def unary(self) -> AffineExpr:
        negations = 0
        while self.accept("-"):  # a loop, not recursion: '- - - d0' may be long
            negations += 1
        result = self.primary()
        return -result if negations % 2 else result

    def primary(self) -> AffineExpr:
        token = self.tok
        if self.accept("("):
            inner = self.expr()
            self.expect(")")
            return inner
        if token.kind == "int":
            self.pos += 1
            return as_expr(int(token.text))
        if token.kind == "ident" and token.text in self.names:
            self.pos += 1
            return self.names[token.text]
        raise self.error("indexing map: expected a variable, an integer or '('")

    def expr_list(self) -> list[AffineExpr]:
        self.expect("(")
        exprs: list[AffineExpr] = []
        if self.accept(")"):
            return exprs
        while True:
            exprs.append(self.expr())
            if self.accept(")"):
                return exprs
            self.expect(",")

    # -- the map
    def indexing_map(self) -> IndexingMap:
        dim_names = self.name_list("(", ")")
        range_names = self.name_list("[", "]") if self.tok.text == "[" else []
        rt_names = self.name_list("{", "}") if self.tok.text == "{" else []
        all_names = [*dim_names, *range_names, *rt_names]
        seen: set[str] = set()
        for name in all_names:
            if name in seen:
                raise self.error(f"indexing map: variable {name!r} declared twice")
            seen.add(name)
        self.names = {n: dim(i) for i, n in enumerate(dim_names)}
        self.names.update({n: symbol(j) for j, n in enumerate([*range_names, *rt_names])})
        if self.tok.kind != "arrow":
            raise self.error("indexing map: expected '->'")
        self.pos += 1
        results = self.expr_list()
        if not all_names:
            if self.tok.kind != "eof":
                raise self.error("indexing map: a map without variables has no domain")
            return IndexingMap(results, [])
        self.expect(",")
        if not (self.tok.kind == "ident" and self.tok.text == "domain"):
            raise self.error("indexing map: expected 'domain:'")
        self.pos += 1
        self.expect(":")
        variables: list[Variable] = []
        for position, name in enumerate(all_names):
            if position:
                self.expect(",")
            got = self.tok
            if self.ident() != name:
                raise self.error(f"indexing map: expected the range of {name!r}", got)
            if not (self.tok.kind == "ident" and self.tok.text == "in"):
                raise self.error("indexing map: expected 'in'")
            self.pos += 1
            default = _default_name(position, len(dim_names), len(range_names))
            variables.append(Variable(self.interval(), "" if name == default else name))
        constraints: list[tuple[AffineExpr, Interval]] = []
        while self.accept(","):
            if self.tok.kind == "ident" and self.tok.text == "is_simplified":
                self.pos += 1
                self.expect(":")
                self.ident()
                continue
            expr = self.expr()
            if not (self.tok.kind == "ident" and self.tok.text == "in"):
                raise self.error("indexing map: expected 'in' after a constraint")
            self.pos += 1
            constraints.append((expr, self.interval()))
        if self.tok.kind != "eof":
            raise self.error("indexing map: expected ',' or the end of the map")
        n_dims, n_range = len(dim_names), len(range_names)
        return IndexingMap(
            results,
            variables[:n_dims],
            variables[n_dims : n_dims + n_range],
            variables[n_dims + n_range :],
            constraints,
        )


def _default_name(position: int, n_dims: int, n_range: int) -> str:
    """The name XLA prints for the variable at ``position`` when it has none."""
    if position < n_dims:
        return f"d{position}"
    if position < n_dims + n_range:
        return f"s{position - n_dims}"
    return f"rt{position - n_dims - n_range}"


def parse_indexing_map(text: str, filename: str = "<string>") -> IndexingMap:
    """Parses XLA's text form; raises ParseError with line and column on bad input."""
    return _Parser(text, filename).indexing_map()


def parse_affine_expr(
    text: str, dim_names: Sequence[str] = (), symbol_names: Sequence[str] = ()
) -> AffineExpr:
    """Parses one expression over the given names (default ``d<i>``/``s<j>`` up to 16)."""
    parser = _Parser(text, "<expr>")
    dims = list(dim_names) or [f"d{i}" for i in range(16)]
    syms = list(symbol_names) or [f"s{j}" for j in range(16)]
    parser.names = {n: dim(i) for i, n in enumerate(dims)}
    parser.names.update({n: symbol(j) for j, n in enumerate(syms)})
    expr = parser.expr()
    if parser.tok.kind != "eof":
        raise parser.error("affine expression: unexpected text after the expression")
    return expr
