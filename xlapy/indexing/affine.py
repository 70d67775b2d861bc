"""Interned, immutable affine expressions over dimensions ``d_i`` and symbols ``s_j``.

Symbols are one numbered space; an ``IndexingMap`` names the first ones range variables
(``s0, s1, ...``) and the rest runtime variables (``rt0, ...``), as XLA does. Expressions are
built with ``+``, ``-``, ``*`` (by a constant), ``//`` (``floordiv``) and ``%`` (``mod``);
construction applies MLIR's local canonicalizations (constants folded and moved right, like
terms merged, ``(x * 6) floordiv 3 -> x * 2``...), so equal expressions are the same object.
Range-aware simplification lives in ``xlapy.indexing.simplify``; text parsing in ``text``.

>>> d0, d1 = dim(0), dim(1)
>>> str((d0 * 3 + d1) // 8)
'(d0 * 3 + d1) floordiv 8'
>>> str((d0 * 8 + d1) // 8)
'd0 + d1 floordiv 8'
>>> str(-d1 + 16)
'-d1 + 16'
>>> (d0 + 1) - 1 is d0
True
"""

from __future__ import annotations

import enum
import functools
import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from xlapy.errors import InvalidArgument


class ExprKind(enum.IntEnum):
    """Node kinds, numbered like MLIR's ``AffineExprKind`` (the canonical order uses it)."""

    ADD = 0
    MUL = 1
    MOD = 2
    FLOORDIV = 3
    CONSTANT = 5
    DIM = 6
    SYMBOL = 7


_BINARY = (ExprKind.ADD, ExprKind.MUL, ExprKind.MOD, ExprKind.FLOORDIV)
_TABLE: weakref.WeakValueDictionary[tuple[Any, ...], AffineExpr] = weakref.WeakValueDictionary()


class AffineExpr:
    """One node: a constant, ``d<position>``, ``s<position>`` or a binary operation.

    Attributes:
        kind: the ExprKind.
        value: the constant's value, or the position of a dimension/symbol (0 otherwise).
        lhs, rhs: operands of a binary node (``None`` for leaves). The right operand of
            ``*``, ``floordiv`` and ``mod`` is always a constant.
    """

    __slots__ = ("__weakref__", "kind", "lhs", "rhs", "value")
    kind: ExprKind
    value: int
    lhs: AffineExpr | None
    rhs: AffineExpr | None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("AffineExpr is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_intern, (self.kind, self.value, self.lhs, self.rhs))

    # ---- queries ------------------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        return self.kind is ExprKind.CONSTANT

    @property
    def is_binary(self) -> bool:
        return self.kind in _BINARY

    @property
    def is_symbolic_or_constant(self) -> bool:
        """True when no dimension occurs in the expression (MLIR's ``isSymbolicOrConstant``)."""
        return _symbolic_or_constant(self)

    def constant_rhs(self, kind: ExprKind) -> int | None:
        """The constant right operand when this node is of ``kind`` (``*``, floordiv, mod)."""
        if self.kind is kind and self.rhs is not None and self.rhs.is_constant:
            return self.rhs.value
        return None

    def largest_known_divisor(self) -> int:
        """The largest integer known to divide every value of the expression (MLIR's rule)."""
        return _largest_known_divisor(self)

    def walk(self) -> Iterator[AffineExpr]:
        """Every node, parents before children."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.rhs is not None:
                stack.append(node.rhs)
            if node.lhs is not None:
                stack.append(node.lhs)

    def used_dims(self) -> frozenset[int]:
        return frozenset(e.value for e in self.walk() if e.kind is ExprKind.DIM)

    def used_symbols(self) -> frozenset[int]:
        return frozenset(e.value for e in self.walk() if e.kind is ExprKind.SYMBOL)

    def summands(self) -> list[AffineExpr]:
        """The terms of a (nested) sum, left to right; ``[self]`` for a non-sum."""
        if self.kind is ExprKind.ADD:
            assert self.lhs is not None
            assert self.rhs is not None
            return [*self.lhs.summands(), *self.rhs.summands()]
        return [self]

    # ---- arithmetic (MLIR construction rules) ---------------------------------------
    def __add__(self, other: AffineExpr | int) -> AffineExpr:
        other = as_expr(other)
        return _simplify_add(self, other) or _intern(ExprKind.ADD, 0, self, other)

    def __radd__(self, other: int) -> AffineExpr:
        return as_expr(other) + self

    def __neg__(self) -> AffineExpr:
        return self * -1

    def __sub__(self, other: AffineExpr | int) -> AffineExpr:
        return self + (-as_expr(other))

    def __rsub__(self, other: int) -> AffineExpr:
        return as_expr(other) + (-self)

    def __mul__(self, other: AffineExpr | int) -> AffineExpr:
        other = as_expr(other)
        if not self.is_constant and not other.is_constant:
            raise InvalidArgument(
                f"affine expression: a product needs a constant factor; got ({self}) * ({other})"
            )
        return _simplify_mul(self, other) or _intern(ExprKind.MUL, 0, self, other)

    def __rmul__(self, other: int) -> AffineExpr:
        return as_expr(other) * self

    def __floordiv__(self, other: AffineExpr | int) -> AffineExpr:
        other = _divisor(other, "floordiv", self)
        return _simplify_floordiv(self, other) or _intern(ExprKind.FLOORDIV, 0, self, other)

    def __mod__(self, other: AffineExpr | int) -> AffineExpr:
        other = _divisor(other, "mod", self)
        return _simplify_mod(self, other) or _intern(ExprKind.MOD, 0, self, other)

    # ---- evaluation and substitution --------------------------------------------------
    def evaluate(self, dims: Sequence[Any], symbols: Sequence[Any] = ()) -> Any:
        """The value at a point; dims/symbols may be ints or broadcastable numpy arrays.

        ``floordiv`` rounds toward negative infinity and ``mod`` has the divisor's sign
        (both as Python's ``//`` and ``%``, which numpy int arrays share).
        """
        kind = self.kind
        if kind is ExprKind.CONSTANT:
            return self.value
        if kind is ExprKind.DIM:
            return dims[self.value]
        if kind is ExprKind.SYMBOL:
            return symbols[self.value]
        assert self.lhs is not None
        assert self.rhs is not None
        a = self.lhs.evaluate(dims, symbols)
        b = self.rhs.evaluate(dims, symbols)
        if kind is ExprKind.ADD:
            return a + b
        if kind is ExprKind.MUL:
            return a * b
        if kind is ExprKind.FLOORDIV:
            return a // b
        return a % b

    def replace(
        self,
        dims: Sequence[AffineExpr] | None = None,
        symbols: Sequence[AffineExpr] | None = None,
    ) -> AffineExpr:
        """Substitutes ``d_i -> dims[i]`` and ``s_j -> symbols[j]`` (None keeps a kind as is);
        rebuilt nodes go through the construction rules again."""
        return _replace(self, dims, symbols, {})

    def map_leaves(self, fn: Callable[[AffineExpr], AffineExpr]) -> AffineExpr:
        """Rebuilds the expression with every dim/symbol leaf replaced by ``fn(leaf)``."""
        if self.kind in (ExprKind.DIM, ExprKind.SYMBOL):
            return fn(self)
        if self.kind is ExprKind.CONSTANT:
            return self
        assert self.lhs is not None
        assert self.rhs is not None
        lhs, rhs = self.lhs.map_leaves(fn), self.rhs.map_leaves(fn)
        if lhs is self.lhs and rhs is self.rhs:
            return self
        return binary(self.kind, lhs, rhs)

    # ---- printing ---------------------------------------------------------------------
    def to_str(
        self, dim_names: Sequence[str] | None = None, symbol_names: Sequence[str] | None = None
    ) -> str:
        """XLA's spelling (``d0 * 8 + d1``, ``-d1 + 16``, ``(d0 - 1) floordiv 2``)."""
        out: list[str] = []
        _print(self, dim_names or (), symbol_names or (), False, out)
        return "".join(out)

    def __str__(self) -> str:
        return self.to_str()

    def __repr__(self) -> str:
        return f"AffineExpr({self.to_str()})"


# ---- construction ---------------------------------------------------------------------


def _intern(
    kind: ExprKind, value: int, lhs: AffineExpr | None = None, rhs: AffineExpr | None = None
) -> AffineExpr:
    key = (kind, value, lhs, rhs)
    node = _TABLE.get(key)
    if node is None:
        node = object.__new__(AffineExpr)
        object.__setattr__(node, "kind", kind)
        object.__setattr__(node, "value", value)
        object.__setattr__(node, "lhs", lhs)
        object.__setattr__(node, "rhs", rhs)
        _TABLE[key] = node
    return node


def constant(value: int) -> AffineExpr:
    return _intern(ExprKind.CONSTANT, int(value))


def dim(position: int) -> AffineExpr:
    return _intern(ExprKind.DIM, int(position))


def symbol(position: int) -> AffineExpr:
    return _intern(ExprKind.SYMBOL, int(position))


def as_expr(value: AffineExpr | int) -> AffineExpr:
    if isinstance(value, AffineExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"affine expression: expected an int or AffineExpr; got {value!r}")
    return constant(value)


def binary(kind: ExprKind, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    """Builds ``lhs <kind> rhs`` with the construction rules."""
    if kind is ExprKind.ADD:
        return lhs + rhs
    if kind is ExprKind.MUL:
        return lhs * rhs
    if kind is ExprKind.FLOORDIV:
        return lhs // rhs
    return lhs % rhs


def _divisor(value: AffineExpr | int, op: str, lhs: AffineExpr) -> AffineExpr:
    expr = as_expr(value)
    if not expr.is_constant:
        raise InvalidArgument(
            f"affine expression: the divisor of {op} must be a constant; got ({lhs}) {op} ({expr})"
        )
    if expr.value == 0:
        raise InvalidArgument(f"affine expression: {op} by zero; got ({lhs}) {op} 0")
    return expr


@functools.lru_cache(maxsize=65536)
def _symbolic_or_constant(expr: AffineExpr) -> bool:
    if expr.kind is ExprKind.DIM:
        return False
    if expr.lhs is None or expr.rhs is None:
        return True
    return _symbolic_or_constant(expr.lhs) and _symbolic_or_constant(expr.rhs)


def _largest_known_divisor(expr: AffineExpr) -> int:
    kind = expr.kind
    if kind in (ExprKind.DIM, ExprKind.SYMBOL):
        return 1
    if kind is ExprKind.CONSTANT:
        return abs(expr.value)
    assert expr.lhs is not None
    assert expr.rhs is not None
    if kind is ExprKind.FLOORDIV:
        lhs_div = _largest_known_divisor(expr.lhs)
        if expr.rhs.value != 0 and lhs_div % expr.rhs.value == 0:
            return abs(lhs_div // expr.rhs.value)
        return 1
    if kind is ExprKind.MUL:
        return _largest_known_divisor(expr.lhs) * _largest_known_divisor(expr.rhs)
    return math.gcd(_largest_known_divisor(expr.lhs), _largest_known_divisor(expr.rhs))


def _simplify_add(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr | None:
    """MLIR's ``simplifyAdd``: fold constants, constants and symbols to the right,
    ``c1 * x + c2 * x -> (c1 + c2) * x``, ``x - (x floordiv c) * c -> x mod c``."""
    if lhs.is_constant and rhs.is_constant:
        return constant(lhs.value + rhs.value)
    if lhs.is_constant or (lhs.is_symbolic_or_constant and not rhs.is_symbolic_or_constant):
        return rhs + lhs
    if rhs.is_constant and rhs.value == 0:
        return lhs
    if lhs.kind is ExprKind.ADD and rhs.is_constant:
        assert lhs.lhs is not None
        assert lhs.rhs is not None
        if lhs.rhs.is_constant:
            return lhs.lhs + (lhs.rhs.value + rhs.value)
    lhs_factor, first = (
        (lhs.rhs.value, lhs.lhs)
        if lhs.kind is ExprKind.MUL and lhs.rhs is not None and lhs.rhs.is_constant
        else (1, lhs)
    )
    rhs_factor, second = (
        (rhs.rhs.value, rhs.lhs)
        if rhs.kind is ExprKind.MUL and rhs.rhs is not None and rhs.rhs.is_constant
        else (1, rhs)
    )
    if first is second:
        assert first is not None
        return first * (lhs_factor + rhs_factor)
    if lhs.kind is ExprKind.ADD:
        assert lhs.lhs is not None
        assert lhs.rhs is not None
        if lhs.rhs.is_constant:
            return lhs.lhs + rhs + lhs.rhs
    # expr + (expr floordiv c) * -c  ->  expr mod c
    if rhs.kind is ExprKind.MUL:
        assert rhs.lhs is not None
        assert rhs.rhs is not None
        inner = rhs.lhs
        if (
            rhs.rhs.is_constant
            and inner.kind is ExprKind.FLOORDIV
            and inner.lhs is lhs
            and inner.rhs is not None
            and inner.rhs.value == -rhs.rhs.value
            and inner.rhs.value > 0
        ):
            return lhs % inner.rhs.value
    return None


def _simplify_mul(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr | None:
    """MLIR's ``simplifyMul``: fold constants, the constant to the right, ``x * 1 -> x``,
    ``x * 0 -> 0``, ``(x * a) * b -> x * (a * b)``."""
    if lhs.is_constant and rhs.is_constant:
        return constant(lhs.value * rhs.value)
    if lhs.is_constant:
        return rhs * lhs
    if rhs.is_constant:
        if rhs.value == 1:
            return lhs
        if rhs.value == 0:
            return rhs
        if lhs.kind is ExprKind.MUL:
            assert lhs.lhs is not None
            assert lhs.rhs is not None
            if lhs.rhs.is_constant:
                return lhs.lhs * (lhs.rhs.value * rhs.value)
    return None


def _simplify_floordiv(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr | None:
    """MLIR's ``simplifyFloorDiv`` (positive divisors only): fold constants, ``x floordiv 1``,
    ``(x * 6) floordiv 3 -> x * 2``, split a sum when one term is a multiple."""
    divisor = rhs.value
    if lhs.is_constant:  # any divisor: a negative one gives Python's result, as evaluate()
        return constant(lhs.value // divisor)
    if divisor < 1:
        return None
    if divisor == 1:
        return lhs
    if lhs.kind is ExprKind.MUL:
        assert lhs.lhs is not None
        assert lhs.rhs is not None
        if lhs.rhs.is_constant and lhs.rhs.value % divisor == 0:
            return lhs.lhs * (lhs.rhs.value // divisor)
    if lhs.kind is ExprKind.ADD:
        assert lhs.lhs is not None
        assert lhs.rhs is not None
        if (
            _largest_known_divisor(lhs.lhs) % divisor == 0
            or _largest_known_divisor(lhs.rhs) % divisor == 0
        ):
            return lhs.lhs // divisor + lhs.rhs // divisor
    return None


def _simplify_mod(lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr | None:
    """MLIR's ``simplifyMod`` (positive moduli only): fold constants, multiples to 0,
    drop a summand that is a multiple, ``(e mod a) mod b -> e mod b`` when b divides a."""
    modulus = rhs.value
    if lhs.is_constant:  # any modulus: a negative one gives Python's result, as evaluate()
        return constant(lhs.value % modulus)
    if modulus < 1:
        return None
    if _largest_known_divisor(lhs) % modulus == 0:
        return constant(0)
    if lhs.kind is ExprKind.ADD:
        assert lhs.lhs is not None
        assert lhs.rhs is not None
        if _largest_known_divisor(lhs.lhs) % modulus == 0:
            return lhs.rhs % modulus
        if _largest_known_divisor(lhs.rhs) % modulus == 0:
            return lhs.lhs % modulus
    if lhs.kind is ExprKind.MOD:
        assert lhs.lhs is not None
        assert lhs.rhs is not None
        if lhs.rhs.value >= 1 and lhs.rhs.value % modulus == 0:
            return lhs.lhs % modulus
    return None


def _replace(
    expr: AffineExpr,
    dims: Sequence[AffineExpr] | None,
    symbols: Sequence[AffineExpr] | None,
    memo: dict[AffineExpr, AffineExpr],
) -> AffineExpr:
    done = memo.get(expr)
    if done is not None:
        return done
    kind = expr.kind
    if kind is ExprKind.DIM:
        result = dims[expr.value] if dims is not None else expr
    elif kind is ExprKind.SYMBOL:
        result = symbols[expr.value] if symbols is not None else expr
    elif kind is ExprKind.CONSTANT:
        result = expr
    else:
        assert expr.lhs is not None
        assert expr.rhs is not None
        lhs = _replace(expr.lhs, dims, symbols, memo)
        rhs = _replace(expr.rhs, dims, symbols, memo)
        result = expr if (lhs is expr.lhs and rhs is expr.rhs) else binary(kind, lhs, rhs)
    memo[expr] = result
    return result


# ---- canonical order ----------------------------------------------------------------------


def compare(a: AffineExpr, b: AffineExpr) -> int:
    """A total order on expressions (XLA's ``CompareExprs``): constants last, then by kind
    (sums, products, mods, floordivs, dims, symbols), then by operands or position."""
    if a is b:
        return 0
    if a.is_constant != b.is_constant:
        return 1 if a.is_constant else -1
    if a.kind != b.kind:
        return -1 if a.kind < b.kind else 1
    if a.is_binary:
        assert a.lhs is not None
        assert b.lhs is not None
        assert a.rhs is not None
        assert b.rhs is not None
        return compare(a.lhs, b.lhs) or compare(a.rhs, b.rhs)
    return (a.value > b.value) - (a.value < b.value)


sort_key = functools.cmp_to_key(compare)


# ---- printing -----------------------------------------------------------------------------


def _name(expr: AffineExpr, dim_names: Sequence[str], symbol_names: Sequence[str]) -> str:
    names, prefix = (dim_names, "d") if expr.kind is ExprKind.DIM else (symbol_names, "s")
    if expr.value < len(names) and names[expr.value]:
        return names[expr.value]
    return f"{prefix}{expr.value}"


_SPELLING = {
    ExprKind.ADD: " + ",
    ExprKind.MUL: " * ",
    ExprKind.FLOORDIV: " floordiv ",
    ExprKind.MOD: " mod ",
}


def _print(
    expr: AffineExpr,
    dim_names: Sequence[str],
    symbol_names: Sequence[str],
    parens: bool,
    out: list[str],
) -> None:
    """XLA's ``PrintAffineExprImpl`` (MLIR's printer with the same pretty forms)."""
    kind = expr.kind
    if kind in (ExprKind.DIM, ExprKind.SYMBOL):
        out.append(_name(expr, dim_names, symbol_names))
        return
    if kind is ExprKind.CONSTANT:
        out.append(str(expr.value))
        return
    lhs, rhs = expr.lhs, expr.rhs
    assert lhs is not None
    assert rhs is not None
    if kind is not ExprKind.ADD:
        if parens:
            out.append("(")
        if kind is ExprKind.MUL and rhs.is_constant and rhs.value == -1:
            out.append("-")
            _print(lhs, dim_names, symbol_names, True, out)
        else:
            _print(lhs, dim_names, symbol_names, True, out)
            out.append(_SPELLING[kind])
            _print(rhs, dim_names, symbol_names, True, out)
        if parens:
            out.append(")")
        return
    if parens:
        out.append("(")
    if rhs.kind is ExprKind.MUL and rhs.rhs is not None and rhs.rhs.is_constant:
        assert rhs.lhs is not None
        factor = rhs.rhs.value
        if factor == -1:
            _print(lhs, dim_names, symbol_names, False, out)
            out.append(" - ")
            _print(rhs.lhs, dim_names, symbol_names, rhs.lhs.kind is ExprKind.ADD, out)
            if parens:
                out.append(")")
            return
        if factor < -1:
            _print(lhs, dim_names, symbol_names, False, out)
            out.append(" - ")
            _print(rhs.lhs, dim_names, symbol_names, True, out)
            out.append(f" * {-factor}")
            if parens:
                out.append(")")
            return
    if rhs.is_constant and rhs.value < 0:
        _print(lhs, dim_names, symbol_names, False, out)
        out.append(f" - {-rhs.value}")
    else:
        _print(lhs, dim_names, symbol_names, False, out)
        out.append(" + ")
        _print(rhs, dim_names, symbol_names, False, out)
    if parens:
        out.append(")")
