"""Does an indexing map read every element at most once? A sufficient test on the map's
expressions, used by fusion to refuse recomputing an expensive producer (``fusion.py``).

The test recovers the map's variables from its results: a result that is a sum of terms
``c * a`` whose coefficients grow faster than the spans of the smaller terms (a mixed-radix
number) determines each ``a``; knowing both ``x floordiv n`` and ``x mod n`` determines
``x``; point constraints are known values. The map is injective when every dimension and
range variable with more than one value is determined. Runtime variables count as fixed
when their own maps use no output index (one value per evaluation, as for dynamic-slice).

>>> from xlapy.indexing import parse_indexing_map
>>> is_injective(parse_indexing_map("(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"))
True
>>> is_injective(parse_indexing_map("(d0, d1) -> (d1), domain: d0 in [0, 3], d1 in [0, 7]"))
False
>>> is_injective(parse_indexing_map("(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 3], s0 in [0, 2]"))
False
"""

from __future__ import annotations

from xlapy.indexing.affine import AffineExpr, ExprKind, dim, symbol
from xlapy.indexing.indexing_map import IndexingMap
from xlapy.indexing.per_op import OperandIndexing
from xlapy.indexing.simplify import RangeEvaluator

_Key = tuple[ExprKind, AffineExpr, int]  # (floordiv or mod, dividend, divisor)


def reads_each_element_once(indexings: list[OperandIndexing]) -> bool:
    """True when the accesses ``indexings`` (all the ways a consumer reads one operand) read
    each element of it at most once: a single access path whose map is injective.

    An undefined map, two different access paths (``p0 + transpose(p0)``) or runtime
    variables that vary with the output index (gather) give False.
    """
    live = [oi for oi in indexings if oi.map.is_undefined or not oi.map.is_known_empty]
    if not live:
        return True
    if len(live) != 1:
        return False
    (indexing,) = live
    m = indexing.map
    if m.is_undefined or len(indexing.rt_vars) != len(m.rt_vars):
        return False
    fixed_rt = all(not e.used_dims() for rt in indexing.rt_vars for e in rt.map.results)
    return fixed_rt and is_injective(m)


def is_injective(m: IndexingMap) -> bool:
    """True when no two points of ``m``'s domain (dimensions and range variables; runtime
    variables held fixed) map to the same result, as far as the rules above can show."""
    if m.is_undefined:
        return False
    if m.is_known_empty:
        return True
    return _Prover(m).proves_injective()


class _Prover:
    def __init__(self, m: IndexingMap) -> None:
        self.map = m
        self.ranges = RangeEvaluator(m)
        n_range = len(m.range_vars)
        self.goal = {dim(i) for i in range(m.num_dims) if not m.dim_bound(i).is_point}
        self.goal |= {symbol(j) for j in range(n_range) if not m.symbol_bound(j).is_point}
        self.known: set[AffineExpr] = {
            symbol(j) for j in range(m.num_symbols) if j >= n_range or m.symbol_bound(j).is_point
        }
        self.known |= {dim(i) for i in range(m.num_dims) if m.dim_bound(i).is_point}
        self.known_atoms: set[_Key] = set()

    def proves_injective(self) -> bool:
        pending = list(self.map.results)
        pending += [e for e, bounds in self.map.constraints.items() if bounds.is_point]
        progress = True
        while progress and not self.goal <= self.known:
            progress = False
            for expr in list(pending):
                learned = self._learn_from(expr)
                if learned is not None:
                    pending.remove(expr)
                    pending.extend(learned)
                    progress = True
        return self.goal <= self.known

    def _is_known(self, atom: AffineExpr) -> bool:
        leaves = {e for e in atom.walk() if e.kind in (ExprKind.DIM, ExprKind.SYMBOL)}
        return leaves <= self.known or _key(atom) in self.known_atoms

    def _learn_from(self, expr: AffineExpr) -> list[AffineExpr] | None:
        """When ``expr`` (a known value) determines its unknown terms: records them and
        returns the expressions that became known in turn (None when nothing is learned)."""
        terms: list[tuple[int, AffineExpr]] = []
        for summand in expr.summands():
            if summand.is_constant:
                continue
            atom, factor = _split_factor(summand)
            if not self._is_known(atom):
                terms.append((abs(factor), atom))
        if not terms:
            return []
        terms.sort(key=lambda t: t[0])
        span = 0  # the largest value the smaller terms can add up to
        for factor, atom in terms:
            if factor <= span:
                return None
            r = self.ranges.range(atom)
            span += factor * (r.upper - r.lower)
        learned: list[AffineExpr] = []
        for _, atom in terms:
            learned.extend(self._record(atom))
        return learned

    def _record(self, atom: AffineExpr) -> list[AffineExpr]:
        if atom.kind in (ExprKind.DIM, ExprKind.SYMBOL):
            self.known.add(atom)
            return []
        key = _key(atom)
        if key is None:  # a nested sum or product: its own terms are now known values
            return [atom]
        self.known_atoms.add(key)
        kind, dividend, divisor = key
        partner = ExprKind.MOD if kind is ExprKind.FLOORDIV else ExprKind.FLOORDIV
        r = self.ranges.range(dividend)
        if (partner, dividend, divisor) in self.known_atoms or (
            kind is ExprKind.MOD and r.lower >= 0 and r.upper < divisor
        ):
            return [dividend]
        return []


def _split_factor(summand: AffineExpr) -> tuple[AffineExpr, int]:
    factor = summand.constant_rhs(ExprKind.MUL)
    if factor is not None:
        assert summand.lhs is not None
        return summand.lhs, factor
    return summand, 1


def _key(atom: AffineExpr) -> _Key | None:
    for kind in (ExprKind.FLOORDIV, ExprKind.MOD):
        divisor = atom.constant_rhs(kind)
        if divisor is not None and divisor > 0:
            assert atom.lhs is not None
            return (kind, atom.lhs, divisor)
    return None
