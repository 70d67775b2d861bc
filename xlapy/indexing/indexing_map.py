"""IndexingMap: an affine map plus a domain (a range for every variable and constraints).

``(d0, ..., d{N-1})[s0, ..., s{M-1}]{rt0, ..., rt{K-1}} -> (f_0(d, s, rt), ...)`` where the
``d_i`` index the source tensor, the range variables ``s_j`` enumerate values (a reduced
dimension, a window) and the runtime variables ``rt_k`` stand for data-dependent offsets.
In the affine expressions range and runtime variables share the symbol space: symbol ``j``
is ``s_j`` for ``j < M`` and ``rt_{j-M}`` after. The map is defined for the points of the
boxes that satisfy every constraint ``lo <= g(d, s) <= hi``. Maps are immutable values.

>>> from xlapy.indexing.affine import dim, symbol
>>> m = IndexingMap((symbol(0), dim(0)), [(0, 9)], [(0, 255)])
>>> print(m)
(d0)[s0] -> (s0, d0),
domain:
d0 in [0, 9],
s0 in [0, 255]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.indexing.affine import AffineExpr, ExprKind, constant, dim, symbol
from xlapy.indexing.interval import Interval


@dataclass(frozen=True, slots=True)
class Variable:
    """A dimension, range or runtime variable: its inclusive bounds and an optional name.

    Two variables are equal when their bounds are (names are only for printing).
    """

    bounds: Interval
    name: str = field(default="", compare=False)


VariableLike = Variable | Interval | tuple[int, int]


def as_variable(value: VariableLike) -> Variable:
    if isinstance(value, Variable):
        return value
    if isinstance(value, Interval):
        return Variable(value)
    lower, upper = value
    return Variable(Interval(int(lower), int(upper)))


def vars_from_sizes(sizes: Iterable[int]) -> tuple[Variable, ...]:
    """``[0, size - 1]`` for every size (XLA's ``DimVarsFromTensorSizes``)."""
    return tuple(Variable(Interval(0, int(size) - 1)) for size in sizes)


_EMPTY = Interval(0, -1)


class IndexingMap:
    """An affine map with a domain; see the module docstring.

    Build with the constructor (constraints are added as by ``AddConstraint``: a constraint
    on a bare variable tightens its bounds, an infeasible one makes the map KNOWN EMPTY),
    ``IndexingMap.undefined()`` or the helpers below. Transform with ``compose``,
    ``simplify()``, ``remove_unused_symbols()``, ``add_constraint()``: each returns a new map.
    """

    __slots__ = (
        "_constraints",
        "_dim_vars",
        "_known_empty",
        "_range_vars",
        "_results",
        "_rt_vars",
    )

    def __init__(
        self,
        results: Sequence[AffineExpr | int],
        dim_vars: Sequence[VariableLike],
        range_vars: Sequence[VariableLike] = (),
        rt_vars: Sequence[VariableLike] = (),
        constraints: Iterable[tuple[AffineExpr, Interval | tuple[int, int]]] = (),
    ) -> None:
        self._results: tuple[AffineExpr, ...] | None = tuple(
            r if isinstance(r, AffineExpr) else constant(r) for r in results
        )
        self._dim_vars = tuple(as_variable(v) for v in dim_vars)
        self._range_vars = tuple(as_variable(v) for v in range_vars)
        self._rt_vars = tuple(as_variable(v) for v in rt_vars)
        self._constraints: dict[AffineExpr, Interval] = {}
        self._known_empty = False
        self._check_arity()
        if not all(v.bounds.is_feasible for v in self.all_vars):
            self._reset_to_known_empty()
            return
        for expr, bounds in constraints:
            self._add_constraint(
                expr, bounds if isinstance(bounds, Interval) else Interval(*bounds)
            )

    # ---- alternative constructors ---------------------------------------------------
    @classmethod
    def undefined(cls) -> IndexingMap:
        """The map of an op without an indexing rule (prints ``unknown indexing``)."""
        m = cls.__new__(cls)
        m._results = None
        m._dim_vars = m._range_vars = m._rt_vars = ()
        m._constraints = {}
        m._known_empty = False
        return m

    @classmethod
    def from_tensor_sizes(
        cls,
        results: Sequence[AffineExpr | int],
        dim_sizes: Sequence[int],
        symbol_sizes: Sequence[int] = (),
    ) -> IndexingMap:
        """Dimensions ``[0, dim_sizes[i] - 1]`` and range variables ``[0, symbol_sizes[j] - 1]``."""
        return cls(results, vars_from_sizes(dim_sizes), vars_from_sizes(symbol_sizes))

    @classmethod
    def identity(cls, dim_sizes: Sequence[int]) -> IndexingMap:
        return cls.from_tensor_sizes([dim(i) for i in range(len(dim_sizes))], dim_sizes)

    @classmethod
    def scalar(cls, dim_sizes: Sequence[int]) -> IndexingMap:
        """``(d0, ...) -> ()``: every point reads the single element of a scalar."""
        return cls.from_tensor_sizes([], dim_sizes)

    def _copy(self) -> IndexingMap:
        m = IndexingMap.__new__(IndexingMap)
        m._results = self._results
        m._dim_vars = self._dim_vars
        m._range_vars = self._range_vars
        m._rt_vars = self._rt_vars
        m._constraints = dict(self._constraints)
        m._known_empty = self._known_empty
        return m

    def _check_arity(self) -> None:
        assert self._results is not None
        for expr in (*self._results, *self._constraints):
            if expr.used_dims() and max(expr.used_dims()) >= len(self._dim_vars):
                raise InvalidArgument(
                    f"indexing map: {expr} uses a dimension beyond d{len(self._dim_vars) - 1}"
                )
            if expr.used_symbols() and max(expr.used_symbols()) >= self.num_symbols:
                raise InvalidArgument(
                    f"indexing map: {expr} uses symbol {max(expr.used_symbols())} but the map "
                    f"has {self.num_symbols} symbols"
                )

    # ---- queries --------------------------------------------------------------------
    @property
    def is_undefined(self) -> bool:
        return self._results is None

    @property
    def is_known_empty(self) -> bool:
        """True when the domain is known to be empty (False does not prove it is not)."""
        return self._known_empty

    @property
    def results(self) -> tuple[AffineExpr, ...]:
        if self._results is None:
            raise InvalidArgument("indexing map: the map is undefined")
        return self._results

    @property
    def dim_vars(self) -> tuple[Variable, ...]:
        return self._dim_vars

    @property
    def range_vars(self) -> tuple[Variable, ...]:
        return self._range_vars

    @property
    def rt_vars(self) -> tuple[Variable, ...]:
        return self._rt_vars

    @property
    def all_vars(self) -> tuple[Variable, ...]:
        return (*self._dim_vars, *self._range_vars, *self._rt_vars)

    @property
    def constraints(self) -> Mapping[AffineExpr, Interval]:
        """``expr -> interval`` in insertion order (read-only view)."""
        return _ReadOnly(self._constraints)

    @property
    def num_dims(self) -> int:
        return len(self._dim_vars)

    @property
    def num_symbols(self) -> int:
        return len(self._range_vars) + len(self._rt_vars)

    @property
    def num_results(self) -> int:
        return len(self.results)

    def dim_bound(self, position: int) -> Interval:
        return self._dim_vars[position].bounds

    def symbol_bound(self, position: int) -> Interval:
        """Bounds of symbol ``position`` (a range variable, or a runtime variable after them)."""
        n = len(self._range_vars)
        return (
            self._range_vars[position].bounds
            if position < n
            else self._rt_vars[position - n].bounds
        )

    def bound_of(self, leaf: AffineExpr) -> Interval:
        if leaf.kind is ExprKind.DIM:
            return self.dim_bound(leaf.value)
        return self.symbol_bound(leaf.value)

    def dim_names(self) -> list[str]:
        return [v.name or f"d{i}" for i, v in enumerate(self._dim_vars)]

    def symbol_names(self) -> list[str]:
        """Printed names of all symbols: ``s<j>`` for range variables, ``rt<k>`` after."""
        names = [v.name or f"s{i}" for i, v in enumerate(self._range_vars)]
        names += [v.name or f"rt{i}" for i, v in enumerate(self._rt_vars)]
        return names

    def is_symbol_constrained(self, position: int) -> bool:
        return any(position in e.used_symbols() for e in self._constraints)

    def evaluate(self, dims: Sequence[Any], symbols: Sequence[Any] = ()) -> tuple[Any, ...]:
        """The results at a point (ignores the domain); ints or numpy arrays."""
        self._expect_arity(dims, symbols)
        return tuple(e.evaluate(dims, symbols) for e in self.results)

    def constraints_satisfied(self, dims: Sequence[Any], symbols: Sequence[Any] = ()) -> Any:
        """Whether the point satisfies every constraint (an array for array inputs)."""
        self._expect_arity(dims, symbols)
        if self._known_empty:
            return False
        ok: Any = True
        for expr, bounds in self._constraints.items():
            value = expr.evaluate(dims, symbols)
            ok = ok & (value >= bounds.lower) & (value <= bounds.upper)
        return ok

    def _expect_arity(self, dims: Sequence[Any], symbols: Sequence[Any]) -> None:
        if len(dims) != self.num_dims or len(symbols) != self.num_symbols:
            raise InvalidArgument(
                f"indexing map: expected {self.num_dims} dims and {self.num_symbols} symbols; "
                f"got {len(dims)} and {len(symbols)}"
            )

    def domain_points(self, limit: int = 1 << 22) -> np.ndarray:
        """Every point of the domain as an int64 array of shape (num_points, dims + symbols),
        filtered by the constraints. Raises when the boxes hold more than ``limit`` points."""
        if self.is_undefined:
            raise InvalidArgument("indexing map: an undefined map has no domain")
        variables = self.all_vars
        if self._known_empty:
            return np.zeros((0, len(variables)), dtype=np.int64)
        total = 1
        for v in variables:
            total *= v.bounds.size
        if total > limit:
            raise InvalidArgument(
                f"indexing map: domain has {total} points, more than the limit {limit}"
            )
        axes = [np.arange(v.bounds.lower, v.bounds.upper + 1, dtype=np.int64) for v in variables]
        if not axes:
            return np.zeros((1, 0), dtype=np.int64)
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(axes))
        dims = [grid[:, i] for i in range(self.num_dims)]
        syms = [grid[:, self.num_dims + j] for j in range(self.num_symbols)]
        mask = np.broadcast_to(np.asarray(self.constraints_satisfied(dims, syms)), (len(grid),))
        result: np.ndarray = grid[mask]
        return result

    def image(self, limit: int = 1 << 22) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The set of ``(dim point, result point)`` pairs over the domain (for tests)."""
        points = self.domain_points(limit)
        n = self.num_dims
        dims = [points[:, i] for i in range(n)]
        syms = [points[:, n + j] for j in range(self.num_symbols)]
        values = [np.broadcast_to(np.asarray(v), (len(points),)) for v in self.evaluate(dims, syms)]
        return {
            (tuple(int(x) for x in row[:n]), tuple(int(v[k]) for v in values))
            for k, row in enumerate(points)
        }

    # ---- transformations (each returns a new map) -------------------------------------
    def add_constraint(self, expr: AffineExpr, bounds: Interval | tuple[int, int]) -> IndexingMap:
        m = self._copy()
        m._add_constraint(expr, bounds if isinstance(bounds, Interval) else Interval(*bounds))
        return m

    def simplify(self, *, replace_point_dims: bool = True) -> IndexingMap:
        """The simplified map (see ``xlapy.indexing.simplify``); same (point, result) pairs."""
        from xlapy.indexing.simplify import simplify_map

        return simplify_map(self, replace_point_dims=replace_point_dims)

    def remove_unused_symbols(self) -> IndexingMap:
        """Drops range/runtime variables used neither by results nor by constraints that also
        use a kept variable (constraints on dropped symbols only are dropped with them)."""
        return self.remove_unused(remove_dims=False)[0]

    def remove_unused_vars(self) -> IndexingMap:
        """Like ``remove_unused_symbols`` but also drops unused dimensions (renumbering)."""
        return self.remove_unused(remove_dims=True)[0]

    def remove_unused(self, *, remove_dims: bool) -> tuple[IndexingMap, list[int], list[int]]:
        """The map without unused variables, with the old positions of the kept dims and
        symbols."""
        all_dims = list(range(self.num_dims))
        all_syms = list(range(self.num_symbols))
        if self.is_undefined or (self.num_symbols == 0 and not remove_dims):
            return self, all_dims, all_syms
        used_dims: set[int] = set()
        used_syms: set[int] = set()
        for e in self.results:
            used_dims |= e.used_dims()
            used_syms |= e.used_symbols()
        if not remove_dims:
            used_dims = set(range(self.num_dims))
        candidates = []
        for e in self._constraints:
            d, s = e.used_dims(), e.used_symbols()
            if (not d or remove_dims) and d.isdisjoint(used_dims) and s.isdisjoint(used_syms):
                candidates.append(e)
                continue
            used_dims |= d
            used_syms |= s
        dropped = [
            e
            for e in candidates
            if e.used_dims().isdisjoint(used_dims) and e.used_symbols().isdisjoint(used_syms)
        ]
        if len(used_dims) == self.num_dims and len(used_syms) == self.num_symbols and not dropped:
            return self, all_dims, all_syms
        m = self._copy()
        for e in dropped:
            del m._constraints[e]
        keep_dims = sorted(used_dims)
        keep_syms = sorted(used_syms)
        dim_map = {old: dim(new) for new, old in enumerate(keep_dims)}
        sym_map = {old: symbol(new) for new, old in enumerate(keep_syms)}
        dim_repl = [dim_map.get(i, constant(0)) for i in range(self.num_dims)]
        sym_repl = [sym_map.get(j, constant(0)) for j in range(self.num_symbols)]
        assert m._results is not None
        m._results = tuple(e.replace(dim_repl, sym_repl) for e in m._results)
        n_range = len(self._range_vars)
        m._dim_vars = tuple(self._dim_vars[i] for i in keep_dims)
        m._range_vars = tuple(self._range_vars[j] for j in keep_syms if j < n_range)
        m._rt_vars = tuple(self._rt_vars[j - n_range] for j in keep_syms if j >= n_range)
        old = m._constraints
        m._constraints = {}
        for e, bounds in old.items():
            m._add_constraint(e.replace(dim_repl, sym_repl), bounds)
        return m, keep_dims, keep_syms

    def with_results(self, results: Sequence[AffineExpr]) -> IndexingMap:
        """The same domain with other results."""
        m = self._copy()
        m._results = tuple(results)
        m._check_arity()
        return m

    def with_rt_vars_replaced(self, replacements: Mapping[int, AffineExpr]) -> IndexingMap:
        """Substitutes runtime variable ``k`` by ``replacements[k]`` (a constant or an
        expression of the dims) and drops the substituted variables."""
        if not replacements:
            return self
        n_range = len(self._range_vars)
        keep = [k for k in range(len(self._rt_vars)) if k not in replacements]
        sym_repl: list[AffineExpr] = [symbol(j) for j in range(n_range)]
        for k in range(len(self._rt_vars)):
            if k in replacements:
                sym_repl.append(replacements[k])
            else:
                sym_repl.append(symbol(n_range + keep.index(k)))
        results = [e.replace(None, sym_repl) for e in self.results]
        constraints = [(e.replace(None, sym_repl), b) for e, b in self._constraints.items()]
        return IndexingMap(
            results,
            self._dim_vars,
            self._range_vars,
            [self._rt_vars[k] for k in keep],
            constraints,
        )

    def permute_rt_vars(self, order: Sequence[int]) -> IndexingMap:
        """The same map with runtime variable ``k`` being this map's variable ``order[k]``
        (``order`` is a permutation of the runtime variables)."""
        n_range, n_rt = len(self._range_vars), len(self._rt_vars)
        if sorted(order) != list(range(n_rt)):
            raise InvalidArgument(
                f"indexing map: a runtime variable order must permute 0..{n_rt - 1}; "
                f"got {list(order)}"
            )
        if self.is_undefined or list(order) == list(range(n_rt)):
            return self
        sym_repl = [symbol(j) for j in range(n_range)]
        sym_repl += [symbol(n_range + list(order).index(k)) for k in range(n_rt)]
        m = self._copy()
        assert m._results is not None
        m._results = tuple(e.replace(None, sym_repl) for e in m._results)
        m._rt_vars = tuple(self._rt_vars[k] for k in order)
        m._constraints = {e.replace(None, sym_repl): b for e, b in self._constraints.items()}
        return m

    # ---- in-place helpers (used while a new map is being built) -------------------------
    def _add_constraint(self, expr: AffineExpr, bounds: Interval) -> None:
        """XLA's ``AddConstraint``: tightens a variable's bounds, checks a constant, or
        intersects with an existing constraint; anything infeasible makes the map empty."""
        if self._known_empty:
            return
        if not bounds.is_feasible:
            self._reset_to_known_empty()
            return
        if expr.kind is ExprKind.DIM or expr.kind is ExprKind.SYMBOL:
            self._set_bound(expr, self.bound_of(expr).intersect(bounds))
            if not self.bound_of(expr).is_feasible:
                self._reset_to_known_empty()
            return
        if expr.is_constant:
            if not bounds.contains(expr.value):
                self._reset_to_known_empty()
            return
        current = self._constraints.get(expr)
        merged = bounds if current is None else current.intersect(bounds)
        self._constraints[expr] = merged
        if not merged.is_feasible:
            self._reset_to_known_empty()

    def _set_bound(self, leaf: AffineExpr, bounds: Interval) -> None:
        if leaf.kind is ExprKind.DIM:
            dims = list(self._dim_vars)
            dims[leaf.value] = Variable(bounds, dims[leaf.value].name)
            self._dim_vars = tuple(dims)
            return
        n_range = len(self._range_vars)
        if leaf.value < n_range:
            rv = list(self._range_vars)
            rv[leaf.value] = Variable(bounds, rv[leaf.value].name)
            self._range_vars = tuple(rv)
        else:
            rt = list(self._rt_vars)
            k = leaf.value - n_range
            rt[k] = Variable(bounds, rt[k].name)
            self._rt_vars = tuple(rt)

    def _reset_to_known_empty(self) -> None:
        """XLA's canonical empty map: results all 0, dims and range variables ``[0, -1]``."""
        assert self._results is not None
        self._results = tuple(constant(0) for _ in self._results)
        self._dim_vars = tuple(Variable(_EMPTY, v.name) for v in self._dim_vars)
        self._range_vars = tuple(Variable(_EMPTY, v.name) for v in self._range_vars)
        self._constraints = {}
        self._known_empty = True

    # ---- value semantics ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IndexingMap):
            return NotImplemented
        return (
            self._results == other._results
            and self._dim_vars == other._dim_vars
            and self._range_vars == other._range_vars
            and self._rt_vars == other._rt_vars
            and self._constraints == other._constraints
            and self._known_empty == other._known_empty
        )

    def __hash__(self) -> int:
        return hash(
            (
                self._results,
                self._dim_vars,
                self._range_vars,
                self._rt_vars,
                frozenset(self._constraints.items()),
            )
        )

    def __mul__(self, other: IndexingMap) -> IndexingMap:
        """``a * b`` is ``compose(a, b)``: apply ``a`` first, then ``b``."""
        return compose(self, other)

    def to_string(self, *, multiline: bool = True) -> str:
        from xlapy.indexing.text import format_indexing_map

        return format_indexing_map(self, multiline=multiline)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"IndexingMap({self.to_string(multiline=False)})"


class _ReadOnly(Mapping[AffineExpr, Interval]):
    __slots__ = ("_data",)

    def __init__(self, data: dict[AffineExpr, Interval]) -> None:
        self._data = data

    def __getitem__(self, key: AffineExpr) -> Interval:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def compose(first: IndexingMap, second: IndexingMap) -> IndexingMap:
    """``second ∘ first``: ``first`` maps A's indices to B's, ``second`` B's to C's.

    Symbols of the result are ``[range(second), range(first), rt(second), rt(first)]``;
    constraints of both maps are carried over, and every result of ``first`` is
    constrained to the bounds of the matching dimension of ``second`` (XLA's
    ``ComposeIndexingMaps``). The result is not simplified.
    """
    if first.is_undefined or second.is_undefined:
        return IndexingMap.undefined()
    if first.num_results != second.num_dims:
        raise InvalidArgument(
            f"compose: the first map has {first.num_results} results but the second has "
            f"{second.num_dims} dimensions"
        )
    r2, t2 = len(second.range_vars), len(second.rt_vars)
    r1, t1 = len(first.range_vars), len(first.rt_vars)
    # Position of each original symbol in the composed symbol list.
    second_syms = [symbol(j) for j in range(r2)] + [symbol(r2 + r1 + k) for k in range(t2)]
    first_syms = [symbol(r2 + j) for j in range(r1)] + [symbol(r2 + r1 + t2 + k) for k in range(t1)]
    first_results = [e.replace(None, first_syms) for e in first.results]
    results = [e.replace(first_results, second_syms) for e in second.results]
    composed = IndexingMap(
        results,
        first.dim_vars,
        (*second.range_vars, *first.range_vars),
        (*second.rt_vars, *first.rt_vars),
    )
    if first.is_known_empty or second.is_known_empty:
        # A map without variables cannot show its emptiness through infeasible bounds.
        composed._reset_to_known_empty()
        return composed
    for expr, bounds in second.constraints.items():
        composed._add_constraint(expr.replace(first_results, second_syms), bounds)
    for expr, bounds in first.constraints.items():
        composed._add_constraint(expr.replace(None, first_syms), bounds)
    for expr, var in zip(first_results, second.dim_vars, strict=True):
        composed._add_constraint(expr, var.bounds)
    return composed
