"""The range-aware indexing-map simplifier: ordered rule lists over affine expressions.

MLIR's own canonicalization (in ``affine``) cannot use the ranges of variables; these rules
can (``d1 mod 16 -> d1`` when ``d1 <= 15``). ``simplify_map`` follows XLA's
``IndexingMap::Simplify``: constraints first (simplify their expressions, drop the
always-true ones, detect always-false ones, move constants and factors into the ranges,
merge ``mod`` constraints), then every result with the tightened ranges. No rule changes
the set of (point, result) pairs of a map; each is tested by exhaustive evaluation.

Rule lists, tried in order for a node of that kind (the first rule that returns an
expression wins; ``Simplifier.simplify`` repeats until nothing changes):
``MOD_RULES``, ``FLOORDIV_RULES``, ``MUL_RULES`` take ``(simplifier, lhs, constant)`` with
the already simplified left operand; ``SUM_RULES`` rewrite the collected terms of a sum;
``CONSTRAINT_RULES`` move a constraint ``expr in [lo, hi]`` towards a bare variable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from xlapy.indexing.affine import AffineExpr, ExprKind, constant, sort_key
from xlapy.indexing.indexing_map import IndexingMap
from xlapy.indexing.interval import Interval

_MAX_ITERATIONS = 64


class RangeEvaluator:
    """Bounds of expressions from the variables' bounds (and, optionally, from constraints
    on exactly that expression)."""

    def __init__(self, indexing_map: IndexingMap, *, use_constraints: bool = True) -> None:
        self.map = indexing_map
        self.use_constraints = use_constraints
        self._cache: dict[AffineExpr, Interval] = {}

    def range(self, expr: AffineExpr) -> Interval:
        cached = self._cache.get(expr)
        if cached is None:
            cached = self._compute(expr)
            self._cache[expr] = cached
        return cached

    def _compute(self, expr: AffineExpr) -> Interval:
        kind = expr.kind
        if kind is ExprKind.CONSTANT:
            return Interval.point(expr.value)
        if kind is ExprKind.DIM or kind is ExprKind.SYMBOL:
            return self.map.bound_of(expr)
        assert expr.lhs is not None
        assert expr.rhs is not None
        lhs = self.range(expr.lhs)
        rhs = self.range(expr.rhs)
        if kind is ExprKind.ADD:
            result = lhs + rhs
        elif kind is ExprKind.MUL:
            result = lhs * rhs
        elif kind is ExprKind.FLOORDIV:
            result = lhs.floordiv(rhs.lower)
        else:
            m = rhs.lower
            if m > 0:
                result = lhs if (lhs.lower >= 0 and lhs.upper < m) else Interval(0, m - 1)
            else:
                result = lhs if (lhs.upper <= 0 and lhs.lower > m) else Interval(m + 1, 0)
        if self.use_constraints:
            bound = self.map.constraints.get(expr)
            if bound is not None:
                result = result.intersect(bound)
        return result

    def invalidate(self) -> None:
        self._cache.clear()


def _constant_rhs(expr: AffineExpr, kind: ExprKind) -> int | None:
    return expr.constant_rhs(kind)


def _map_summands(expr: AffineExpr, fn: Callable[[AffineExpr], AffineExpr]) -> AffineExpr:
    """Applies ``fn`` to every summand of a nested sum and re-adds (XLA's ``MapSummands``)."""
    if expr.kind is ExprKind.ADD:
        assert expr.lhs is not None
        assert expr.rhs is not None
        lhs = _map_summands(expr.lhs, fn)
        rhs = _map_summands(expr.rhs, fn)
        if lhs is expr.lhs and rhs is expr.rhs:
            return expr
        return lhs + rhs
    return fn(expr)


def _split_multiplier(expr: AffineExpr) -> tuple[AffineExpr, int]:
    factor = _constant_rhs(expr, ExprKind.MUL)
    if factor is not None:
        assert expr.lhs is not None
        return expr.lhs, factor
    return expr, 1


def split_sum_by_gcd(expr: AffineExpr) -> tuple[AffineExpr, int, AffineExpr]:
    """Splits a sum into ``multiplied * g + rest`` where ``g`` is the gcd of the constant
    factors of the summands that have one (``(zero, 1, expr)`` when there is none)."""
    factors = [f for f in (_constant_rhs(s, ExprKind.MUL) for s in expr.summands()) if f]
    g = 0
    for f in factors:
        g = math.gcd(g, f)
    if g <= 1:
        return constant(0), 1, expr
    multiplied = constant(0)
    rest = constant(0)
    for summand in expr.summands():
        factor = _constant_rhs(summand, ExprKind.MUL)
        if factor:
            assert summand.lhs is not None
            multiplied = multiplied + summand.lhs * (factor // g)
        else:
            rest = rest + summand
    return multiplied, g, rest


class Simplifier:
    """Simplifies expressions against one map's variable ranges (XLA's AffineExprSimplifier).

    Args:
        range_evaluator: supplies the bounds.
        replace_point_dims: replace any expression whose range is a single value by that
            value (XLA's ``SimplifyPointDimensions::kReplace``).
    """

    def __init__(self, range_evaluator: RangeEvaluator, *, replace_point_dims: bool = True):
        self.ranges = range_evaluator
        self.replace_point_dims = replace_point_dims
        self.fired: list[str] = []

    def range(self, expr: AffineExpr) -> Interval:
        return self.ranges.range(expr)

    def simplify(self, expr: AffineExpr) -> AffineExpr:
        """Applies ``simplify_once`` until a fixed point."""
        for _ in range(_MAX_ITERATIONS):
            simplified = self.simplify_once(expr)
            if simplified is expr:
                return expr
            expr = simplified
        return expr

    def simplify_once(self, expr: AffineExpr) -> AffineExpr:
        if expr.is_constant:
            return expr
        if self.replace_point_dims:
            bounds = self.range(expr)
            if bounds.is_point:
                return constant(bounds.lower)
        kind = expr.kind
        if kind is ExprKind.ADD:
            return self._rewrite_sum(expr)
        if kind in (ExprKind.MUL, ExprKind.MOD, ExprKind.FLOORDIV):
            assert expr.lhs is not None
            assert expr.rhs is not None
            lhs = self.simplify_once(expr.lhs)
            c = expr.rhs.value
            rules = _RULES_BY_KIND[kind]
            for rule in rules:
                result = rule(self, lhs, c)
                if result is not None:
                    self.fired.append(rule.__name__)
                    return result
            if lhs is expr.lhs:
                return expr
            return _build(kind, lhs, c)
        return expr

    def _rewrite_sum(self, expr: AffineExpr) -> AffineExpr:
        terms = _SumTerms()
        for summand in expr.summands():
            lhs, factor = _split_multiplier(self.simplify_once(summand))
            if lhs.kind is ExprKind.MOD:
                terms.mods.append((lhs, factor))
            elif lhs.kind is ExprKind.FLOORDIV:
                terms.divs.append((lhs, factor))
            else:
                terms.add(lhs, factor)
        if terms.divs:
            for rule in SUM_RULES:
                if rule(self, terms):
                    self.fired.append(rule.__name__)
        return terms.rebuild()


def _build(kind: ExprKind, lhs: AffineExpr, c: int) -> AffineExpr:
    if kind is ExprKind.MUL:
        return lhs * c
    if kind is ExprKind.FLOORDIV:
        return lhs // c
    return lhs % c


# ---- mod rules ----------------------------------------------------------------------------


def mod_without_wraparound(s: Simplifier, lhs: AffineExpr, m: int) -> AffineExpr | None:
    """Rewrites ``a mod m`` to ``a - k * m`` when ``a`` stays in ``[k * m, k * m + m - 1]``."""
    if m <= 0:
        return None
    bounds = s.range(lhs)
    offset = -(bounds.lower // m) * m
    if bounds.upper + offset < m:
        return lhs + offset
    return None


def mod_of_scaled(s: Simplifier, lhs: AffineExpr, m: int) -> AffineExpr | None:
    """Rewrites ``(c * a) mod (a * b)`` to ``(c mod b) * a`` when ``a > 0`` divides the modulus."""
    factor = _constant_rhs(lhs, ExprKind.MUL)
    if factor is not None and factor > 0 and m > 0 and m % factor == 0:
        assert lhs.lhs is not None
        return (lhs.lhs % (m // factor)) * factor
    return None


def mod_drop_multiples(s: Simplifier, lhs: AffineExpr, m: int) -> AffineExpr | None:
    """Rewrites ``(x + k * m * y + c) mod m`` to ``(x + (c mod m)) mod m`` (drops summands that
    are multiples of the modulus and reduces the constant) when anything was dropped."""
    if m <= 0:
        return None
    extracted = 0

    def drop(summand: AffineExpr) -> AffineExpr:
        nonlocal extracted
        if summand.is_constant:
            extracted += summand.value
            return constant(0)
        factor = _constant_rhs(summand, ExprKind.MUL)
        if factor is not None and factor % m == 0:
            return constant(0)
        return summand

    new_lhs = _map_summands(lhs, drop)
    rem = extracted % m
    if rem:
        new_lhs = new_lhs + rem
    if new_lhs is lhs:
        return None
    return new_lhs % m


def mod_extract_gcd(s: Simplifier, lhs: AffineExpr, m: int) -> AffineExpr | None:
    """Rewrites ``(g * a) mod m`` to ``(a mod (m / g)) * g`` when every summand has a factor
    whose gcd ``g > 1`` divides ``m``."""
    if m <= 0:
        return None
    multiplied, g, rest = split_sum_by_gcd(lhs)
    if g == 1 or m % g or s.range(rest) != Interval(0, 0):
        return None
    return (multiplied % (m // g)) * g


def mod_split_small_remainder(s: Simplifier, lhs: AffineExpr, m: int) -> AffineExpr | None:
    """Rewrites ``(g * a + b) mod m`` to ``(g * a) mod m + b`` when ``g`` divides ``m`` and
    ``b`` lies in ``[0, g - 1]``."""
    if m <= 0:
        return None
    multiplied, g, rest = split_sum_by_gcd(lhs)
    if g == 1 or m % g or not Interval(0, g - 1).contains(s.range(rest)):
        return None
    return (multiplied * g) % m + rest


MOD_RULES = (
    mod_without_wraparound,
    mod_of_scaled,
    mod_drop_multiples,
    mod_extract_gcd,
    mod_split_small_remainder,
)


# ---- floordiv rules -----------------------------------------------------------------------


def floordiv_of_mod(s: Simplifier, lhs: AffineExpr, d: int) -> AffineExpr | None:
    """Rewrites ``(c mod (a * b)) floordiv a`` to ``(c floordiv a) mod b`` when ``a > 1``
    divides the modulus."""
    modulus = _constant_rhs(lhs, ExprKind.MOD)
    if d > 1 and modulus is not None and modulus > 0 and modulus % d == 0:
        assert lhs.lhs is not None
        return (lhs.lhs // d) % (modulus // d)
    return None


def floordiv_of_floordiv(s: Simplifier, lhs: AffineExpr, d: int) -> AffineExpr | None:
    """Rewrites ``(a floordiv b) floordiv c`` to ``a floordiv (b * c)`` when ``c > 1``."""
    inner = _constant_rhs(lhs, ExprKind.FLOORDIV)
    if d > 1 and inner is not None:
        assert lhs.lhs is not None
        return lhs.lhs // (d * inner)
    return None


def floordiv_of_sum(s: Simplifier, lhs: AffineExpr, d: int) -> AffineExpr | None:
    """Rewrites ``(k * d * x + y) floordiv d`` to ``k * x + y floordiv d`` (also for constant
    multiples of ``d``), then reduces ``(g * a + b) floordiv d`` to ``(g/h * a) floordiv (d/h)``
    with ``h = gcd(g, d)`` when ``b`` lies in ``[0, h - 1]`` (or divides a constant ``b`` by
    ``h``), then absorbs a single inner ``(a floordiv c)`` summand:
    ``(a floordiv c + r) floordiv d -> (a + r * c) floordiv (c * d)``."""
    if d <= 1:
        return None
    extracted = constant(0)

    def extract(summand: AffineExpr) -> AffineExpr:
        nonlocal extracted
        factor = _constant_rhs(summand, ExprKind.MUL)
        if factor is not None and factor % d == 0:
            assert summand.lhs is not None
            extracted = extracted + summand.lhs * (factor // d)
            return constant(0)
        if summand.is_constant:
            count = summand.value // d
            if count:
                extracted = extracted + count
                return constant(summand.value - count * d)
        return summand

    dividend = _map_summands(lhs, extract)
    divisor = d
    multiplied, g, rest = split_sum_by_gcd(dividend)
    h = math.gcd(divisor, g)
    rest_range = s.range(rest)
    if h != 1 and Interval(0, h - 1).contains(rest_range):
        dividend = multiplied * (g // h)
        divisor //= h
    elif rest_range.is_point and rest_range.lower != 0:
        h = math.gcd(rest_range.lower, h)
        if h != 1:
            dividend = multiplied * (g // h) + rest_range.lower // h
            divisor //= h
    inner = [c for c in (_constant_rhs(t, ExprKind.FLOORDIV) for t in dividend.summands()) if c]
    if len(inner) == 1 and inner[0] > 0:
        c = inner[0]

        def absorb(summand: AffineExpr) -> AffineExpr:
            if _constant_rhs(summand, ExprKind.FLOORDIV) is not None:
                assert summand.lhs is not None
                return summand.lhs
            return summand * c

        dividend = _map_summands(dividend, absorb)
        divisor *= c
    if dividend is lhs:
        return None
    return dividend // divisor + extracted


FLOORDIV_RULES = (floordiv_of_mod, floordiv_of_floordiv, floordiv_of_sum)


# ---- mul rules ----------------------------------------------------------------------------


def mul_distribute_over_sum(s: Simplifier, lhs: AffineExpr, c: int) -> AffineExpr | None:
    """Rewrites ``(a + b) * c`` to ``a * c + b * c``."""
    if lhs.kind is ExprKind.ADD:
        return _map_summands(lhs, lambda t: t * c)
    return None


MUL_RULES = (mul_distribute_over_sum,)

_RULES_BY_KIND: dict[
    ExprKind, tuple[Callable[[Simplifier, AffineExpr, int], AffineExpr | None], ...]
]
_RULES_BY_KIND = {
    ExprKind.MOD: MOD_RULES,
    ExprKind.FLOORDIV: FLOORDIV_RULES,
    ExprKind.MUL: MUL_RULES,
}


# ---- sum rules ----------------------------------------------------------------------------


@dataclass
class _SumTerms:
    """The terms of a sum being rewritten: ``mods`` and ``divs`` as (node, factor) pairs
    (``None`` once consumed), everything else merged into ``others`` (node -> factor)."""

    mods: list[tuple[AffineExpr | None, int]] = field(default_factory=list)
    divs: list[tuple[AffineExpr | None, int]] = field(default_factory=list)
    others: dict[AffineExpr, int] = field(default_factory=dict)

    def add(self, expr: AffineExpr, factor: int) -> None:
        self.others[expr] = self.others.get(expr, 0) + factor

    def rebuild(self) -> AffineExpr:
        """Merges like terms, sorts them canonically and adds them up from zero."""
        for node, factor in (*self.mods, *self.divs):
            if node is not None:
                self.add(node, factor)
        terms = sorted((expr * factor for expr, factor in self.others.items()), key=sort_key)
        result = constant(0)
        for term in terms:
            result = result + term
        return result


def sum_fold_mod_and_div(s: Simplifier, terms: _SumTerms) -> bool:
    """Rewrites ``(x mod c) * k + (x floordiv c) * (c * k)`` to ``x * k``."""
    changed = False
    for i, (mod, mod_factor) in enumerate(terms.mods):
        if mod is None:
            continue
        c = _constant_rhs(mod, ExprKind.MOD)
        if c is None:
            continue
        assert mod.lhs is not None
        quotient = s.simplify(mod.lhs // c) if c != 0 else None
        for j, (div, div_factor) in enumerate(terms.divs):
            if div is None or div is not quotient or mod_factor == 0:
                continue
            if div_factor % mod_factor or div_factor // mod_factor != c:
                continue
            terms.add(mod.lhs, mod_factor)
            terms.divs[j] = (None, 0)
            terms.mods[i] = (None, 0)
            changed = True
            break
    return changed


def sum_div_to_mod(s: Simplifier, terms: _SumTerms) -> bool:
    """Rewrites ``(x floordiv c) * (-k * c)`` to ``(x mod c) * k - x * k`` (for ``k >= 0``), so
    that the ``x`` terms can cancel against the rest of the sum."""
    changed = False
    for j, (div, div_factor) in enumerate(terms.divs):
        if div is None or div_factor > 0:
            continue
        c = _constant_rhs(div, ExprKind.FLOORDIV)
        if c is None or c <= 0 or div_factor % c:
            continue
        b = div_factor // c
        assert div.lhs is not None
        for summand in div.lhs.summands():
            terms.add(summand, b)
        terms.mods.append((div.lhs % c, -b))
        terms.divs[j] = (None, 0)
        changed = True
    return changed


SUM_RULES = (sum_fold_mod_and_div, sum_div_to_mod)


# ---- constraint rules ---------------------------------------------------------------------


def constraint_sum_with_constant(
    s: Simplifier, expr: AffineExpr, bounds: Interval
) -> tuple[AffineExpr, Interval] | None:
    """Rewrites ``a + c in [lo, hi]`` to ``a in [lo - c, hi - c]`` when ``c`` is a single value."""
    if expr.kind is not ExprKind.ADD:
        return None
    assert expr.lhs is not None
    assert expr.rhs is not None
    rhs = s.range(expr.rhs)
    if not rhs.is_point:
        return None
    return expr.lhs, Interval(bounds.lower - rhs.lower, bounds.upper - rhs.lower)


def constraint_sum_drop_small_term(
    s: Simplifier, expr: AffineExpr, bounds: Interval
) -> tuple[AffineExpr, Interval] | None:
    """Rewrites ``g * a + b in [0, hi]`` to ``g * a in [0, hi]`` when ``b`` lies in
    ``[0, g - 1]`` and cannot change ``(hi - b) floordiv g``."""
    if expr.kind is not ExprKind.ADD or bounds.lower != 0:
        return None
    multiplied, g, rest = split_sum_by_gcd(expr)
    if g == 1:
        return None
    rest_range = s.range(rest)
    if not Interval(0, g - 1).contains(rest_range):
        return None
    if not (Interval.point(bounds.upper) - rest_range).floordiv(g).is_point:
        return None
    return multiplied * g, bounds


def constraint_scaled(
    s: Simplifier, expr: AffineExpr, bounds: Interval
) -> tuple[AffineExpr, Interval] | None:
    """Rewrites ``a * c in [lo, hi]`` to ``a in [ceil(lo / c), floor(hi / c)]`` (bounds
    negated and swapped for ``c < 0``)."""
    factor = _constant_rhs(expr, ExprKind.MUL)
    if factor is None:
        return None
    assert expr.lhs is not None
    lo, hi = bounds.lower, bounds.upper
    if factor < 0:
        factor, lo, hi = -factor, -hi, -lo
    return expr.lhs, Interval(-(-lo // factor), hi // factor)


def constraint_floordiv(
    s: Simplifier, expr: AffineExpr, bounds: Interval
) -> tuple[AffineExpr, Interval] | None:
    """Rewrites ``a floordiv c in [lo, hi]`` to ``a in [lo * c, (hi + 1) * c - 1]`` for
    ``c > 0``, and ``a floordiv c`` to ``(-a) floordiv (-c)`` for ``c < 0``."""
    divisor = _constant_rhs(expr, ExprKind.FLOORDIV)
    if divisor is None:
        return None
    assert expr.lhs is not None
    if divisor < 0:
        return (-expr.lhs) // (-divisor), bounds
    return expr.lhs, Interval(bounds.lower * divisor, (bounds.upper + 1) * divisor - 1)


CONSTRAINT_RULES = (
    constraint_sum_with_constant,
    constraint_sum_drop_small_term,
    constraint_scaled,
    constraint_floordiv,
)


def _simplify_constraint_range(
    s: Simplifier, expr: AffineExpr, bounds: Interval
) -> tuple[AffineExpr, Interval]:
    for _ in range(_MAX_ITERATIONS):
        for rule in CONSTRAINT_RULES:
            result = rule(s, expr, bounds)
            if result is not None:
                s.fired.append(rule.__name__)
                expr, bounds = result
                break
        else:
            break
    return expr, bounds


# ---- the map simplifier ---------------------------------------------------------------------


def simplify_expr(expr: AffineExpr, indexing_map: IndexingMap) -> AffineExpr:
    """``expr`` simplified with the ranges (and constraints) of ``indexing_map``."""
    return Simplifier(RangeEvaluator(indexing_map)).simplify(expr)


def _simplify_constraint_exprs(m: IndexingMap) -> bool:
    """Simplifies every constraint's expression; drops always-true constraints and makes the
    map KNOWN EMPTY on an always-false one. True when an expression was rewritten."""
    s = Simplifier(RangeEvaluator(m, use_constraints=False))
    to_add: list[tuple[AffineExpr, Interval]] = []
    to_remove: list[AffineExpr] = []
    for expr, bounds in m.constraints.items():
        simplified = s.simplify(expr)
        evaluated = s.range(simplified)
        if bounds.contains(evaluated):
            to_remove.append(expr)
            continue
        if not evaluated.intersect(bounds).is_feasible:
            m._reset_to_known_empty()
            return True
        if simplified is not expr:
            to_remove.append(expr)
            to_add.append((simplified, bounds))
    for expr in to_remove:
        del m._constraints[expr]
    for expr, bounds in to_add:
        m._add_constraint(expr, bounds)
    return bool(to_add)


def _simplify_constraint_ranges(m: IndexingMap) -> bool:
    s = Simplifier(RangeEvaluator(m, use_constraints=False))
    changes = []
    for expr, bounds in m.constraints.items():
        new_expr, new_bounds = _simplify_constraint_range(s, expr, bounds)
        if new_expr is not expr or new_bounds != bounds:
            changes.append((expr, new_expr, new_bounds))
    for expr, _, _ in changes:
        del m._constraints[expr]
    for _, new_expr, new_bounds in changes:
        m._add_constraint(new_expr, new_bounds)
    return bool(changes)


def _merge_mod_constraints(m: IndexingMap) -> bool:
    """Merges ``x mod a == r`` and ``x mod b == r`` into ``x mod lcm(a, b) == r`` and rounds
    the bounds of a variable ``x`` to the nearest values with the right residue."""
    groups: dict[AffineExpr, dict[int, list[AffineExpr]]] = {}
    for expr, bounds in m.constraints.items():
        modulus = _constant_rhs(expr, ExprKind.MOD)
        if modulus is None or modulus <= 0 or not bounds.is_point:
            continue
        if not Interval(0, modulus - 1).contains(bounds.lower):
            continue
        assert expr.lhs is not None
        groups.setdefault(expr.lhs, {}).setdefault(bounds.lower, []).append(expr)
    changed = False
    for lhs, by_residue in groups.items():
        for residue, exprs in by_residue.items():
            modulus = 1
            for e in exprs:
                assert e.rhs is not None
                modulus = math.lcm(modulus, e.rhs.value)
            if len(exprs) > 1:
                for e in exprs:
                    del m._constraints[e]
                m._add_constraint(lhs % modulus, Interval.point(residue))
                changed = True
            if m.is_known_empty:
                return True
            if lhs.kind in (ExprKind.DIM, ExprKind.SYMBOL):
                old = m.bound_of(lhs)
                lo = (old.lower // modulus) * modulus + residue
                if lo < old.lower:
                    lo += modulus
                hi = (old.upper // modulus) * modulus + residue
                if hi > old.upper:
                    hi -= modulus
                new = Interval(lo, hi)
                if new != old:
                    m._set_bound(lhs, new)
                    changed = True
                    if not new.is_feasible:
                        m._reset_to_known_empty()
                        return True
    return changed


def simplify_map(indexing_map: IndexingMap, *, replace_point_dims: bool = True) -> IndexingMap:
    """XLA's ``IndexingMap::Simplify``: constraints to a fixed point, ``mod`` constraints
    merged, then the results simplified with the tightened ranges. Unused symbols are kept
    (see ``IndexingMap.remove_unused_symbols``)."""
    if indexing_map.is_undefined or indexing_map.is_known_empty:
        return indexing_map
    m = indexing_map._copy()
    for _ in range(_MAX_ITERATIONS):
        did = _simplify_constraint_exprs(m)
        if m.is_known_empty:
            return m
        did |= _simplify_constraint_ranges(m)
        if m.is_known_empty:
            return m
        if not did:
            break
    _merge_mod_constraints(m)
    if m.is_known_empty:
        return m
    s = Simplifier(RangeEvaluator(m), replace_point_dims=replace_point_dims)
    results = tuple(s.simplify(e) for e in m.results)
    return m.with_results(results)


RULES: dict[str, Callable[..., object]] = {
    rule.__name__: rule
    for rule in (*MOD_RULES, *FLOORDIV_RULES, *MUL_RULES, *SUM_RULES, *CONSTRAINT_RULES)
}
"""Every rule by name (the tests check each one)."""
