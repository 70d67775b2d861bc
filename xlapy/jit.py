"""``xlapy.jit``: the front door for JAX users. A decorator with the feel of ``jax.jit`` that
lowers the function with JAX, loads the StableHLO into xlapy, runs it on an xlapy platform and
returns the outputs in the function's own pytree structure, as numpy arrays.

JAX is an optional dependency: it is imported when a jitted function is first called or
lowered, with a clear error when it is missing. Nothing else in xlapy imports this module.

    @xlapy.jit
    def f(x, params):
        return jnp.tanh(x @ params["w"] + params["b"])

    f(x, {"w": w, "b": b})            # numpy outputs, computed by xlapy's cpu platform
    f.lower(x, {"w": w, "b": b})      # the xlapy HloModule
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.ir.module import HloModule

PLATFORMS = ("cpu", "interpreter")


@functools.cache  # the jax module once imported (an import statement per call: ~0.5 us)
def _jax() -> Any:
    try:
        import jax
    except ImportError as err:
        raise Unimplemented(
            "xlapy.jit lowers Python functions with JAX, which is not installed; install it "
            "with `pip install 'xlapy[oracle]'` (or load JAX-exported text with xlapy.load)"
        ) from err
    return jax


@dataclass(frozen=True)
class OutputDifference:
    """How far one output of xlapy is from XLA:CPU's (``compare=True``).

    Attributes:
        path: the output's place in the result pytree (``jax.tree_util.keystr`` form).
        max_abs: the largest absolute difference (0 for equal integers/bools).
        max_rel: the largest difference relative to XLA's magnitude at that element.
        max_ulp: the largest distance in units in the last place (floats; 0 otherwise).
    """

    path: str
    max_abs: float
    max_rel: float
    max_ulp: int

    def __str__(self) -> str:
        return (
            f"{self.path or 'output'}: max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}, "
            f"max ulp {self.max_ulp}"
        )


_NO_STATIC: tuple[tuple[Any, ...], tuple[Any, ...]] = ((), ())
"""The static values of a call without static arguments (``Jitted._split``)."""


@dataclass
class _Compiled:
    module: HloModule
    executable: Any
    out_tree: Any


class Jitted:
    """A function compiled by ``xlapy.jit``; call it like the function itself."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        platform: str,
        flush_denormals: bool,
        static_argnums: tuple[int, ...],
        static_argnames: tuple[str, ...],
        donate_argnums: tuple[int, ...],
        compare: bool,
        in_shardings: Any = None,
        out_shardings: Any = None,
    ) -> None:
        if platform not in PLATFORMS:
            raise InvalidArgument(
                f"xlapy.jit: platform must be one of {PLATFORMS}; got {platform!r}"
            )
        self.fn = fn
        self.platform = platform
        self.flush_denormals = flush_denormals
        self.static_argnums = static_argnums
        self.static_argnames = static_argnames
        self.donate_argnums = donate_argnums
        self.compare = compare
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self.last_comparison: list[OutputDifference] = []
        self._cache: dict[Hashable, _Compiled] = {}
        self._lock = threading.Lock()
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "jitted")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __repr__(self) -> str:
        return f"<xlapy.jit of {self.__name__} on {self.platform}>"

    # ---- lowering ---------------------------------------------------------------------
    @property
    def sharded(self) -> bool:
        return self.in_shardings is not None or self.out_shardings is not None

    def _jax_jit(self) -> Any:
        jax = _jax()
        shardings = {}
        if self.in_shardings is not None:
            shardings["in_shardings"] = self.in_shardings
        if self.out_shardings is not None:
            shardings["out_shardings"] = self.out_shardings
        return jax.jit(
            self.fn,
            static_argnums=self.static_argnums,
            static_argnames=self.static_argnames,
            donate_argnums=self.donate_argnums,
            keep_unused=True,  # the module then takes every leaf of the dynamic arguments
            **shardings,
        )

    def _flatten(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[list[Any], Any, Any]:
        """The dynamic arguments' leaves and pytree structure, and the static values."""
        if kwargs or self.static_argnums:
            dynamic, static = self._split(args, kwargs)
        else:  # the common call: every argument dynamic (what _split gives, without its work)
            dynamic, static = (tuple(args), {}), _NO_STATIC
        leaves, tree = _jax().tree_util.tree_flatten(dynamic)
        return leaves, tree, static

    def _signature(self, leaves: Sequence[Any], tree: Any, static: Any) -> Hashable:
        """The cache key: the pytree structure, each leaf's shape and dtype, static values."""
        avals = tuple([_aval_key(leaf) for leaf in leaves])
        if static is _NO_STATIC:
            return (tree, avals, static)
        try:
            hash(static)
        except TypeError as err:
            raise InvalidArgument(
                f"xlapy.jit {self.__name__}: static arguments must be hashable; got {static!r}"
            ) from err
        return (tree, avals, static)

    def _split(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, Any]:
        n = len(args)
        static_positions = {i % n if n else i for i in self.static_argnums}
        dynamic_args = tuple(a for i, a in enumerate(args) if i not in static_positions)
        static_args = tuple((i, args[i]) for i in sorted(static_positions) if i < n)
        dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        static_kwargs = tuple(
            sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames)
        )
        return (dynamic_args, dynamic_kwargs), (static_args, static_kwargs)

    def _compile(
        self,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        flat: tuple[list[Any], Any, Any] | None = None,
    ) -> _Compiled:
        key = self._signature(*(flat or self._flatten(args, kwargs)))
        compiled = self._cache.get(key)  # a dict read is atomic: the lock only to fill it
        if compiled is not None:
            return compiled
        with self._lock:
            compiled = self._cache.get(key)
            if compiled is not None:
                return compiled
            import xlapy

            lowered = self._jax_jit().lower(*args, **kwargs)
            # With shardings, the global program (HLO text: shardings as XLA reads them) is
            # partitioned by xlapy.compile; its executable takes and returns global arrays.
            module = xlapy.load(
                lowered.as_text(dialect="hlo") if self.sharded else lowered.as_text()
            )
            executable = xlapy.compile(
                module, platform=self.platform, flush_denormals=self.flush_denormals
            )
            compiled = _Compiled(module, executable, lowered.out_tree)
            self._cache[key] = compiled
            return compiled

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Waits until every program compiled so far runs on its compiled tier (``cpu``
        programs start on a quick tier: ``xlapy.compile(tiered=)``); True when they do."""
        with self._lock:
            executables = [c.executable for c in self._cache.values()]
        return all(exe.wait_compiled(timeout) for exe in executables if exe.platform == "cpu")

    def lower(self, *args: Any, **kwargs: Any) -> HloModule:
        """The xlapy module JAX lowers ``fn`` to for these arguments (before xlapy's passes)."""
        return self._compile(args, kwargs).module

    # ---- calling ----------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        jax = _jax()
        flat = self._flatten(args, kwargs)
        compiled = self._compile(args, kwargs, flat)
        values = [_host_value(jax, leaf) for leaf in flat[0]]
        outputs = compiled.executable(*values)
        result = jax.tree_util.tree_unflatten(compiled.out_tree, [np.asarray(o) for o in outputs])
        if self.compare:
            self.last_comparison = self._compare(args, kwargs, result)
            for difference in self.last_comparison:
                print(f"xlapy.jit {self.__name__} vs XLA:CPU: {difference}", file=sys.stderr)
        return result

    def _compare(
        self, args: Sequence[Any], kwargs: dict[str, Any], result: Any
    ) -> list[OutputDifference]:
        jax = _jax()
        expected = self._jax_jit()(*args, **kwargs)
        want = jax.tree_util.tree_flatten_with_path(expected)[0]
        got = jax.tree_util.tree_leaves(result)
        return [
            _difference(jax.tree_util.keystr(path), np.asarray(g), np.asarray(w))
            for (path, w), g in zip(want, got, strict=True)
        ]


def jit(
    fn: Callable[..., Any] | None = None,
    *,
    platform: str = "cpu",
    flush_denormals: bool = False,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    donate_argnums: int | Sequence[int] = (),
    compare: bool = False,
    in_shardings: Any = None,
    out_shardings: Any = None,
) -> Any:
    """Compiles ``fn`` with JAX's front end and runs it on xlapy (``@xlapy.jit`` or
    ``@xlapy.jit(platform="interpreter")``).

    Args:
        fn: a function of arrays and pytrees of arrays (what ``jax.jit`` accepts).
        platform: ``"cpu"`` (compiled) or ``"interpreter"`` (the exact reference).
        flush_denormals: flush f32/bf16 subnormals as XLA:CPU does.
        static_argnums, static_argnames: arguments that are Python values baked into the
            program (a new program per distinct value), as in ``jax.jit``.
        donate_argnums: passed to JAX's lowering (xlapy never mutates its inputs).
        compare: also run ``jax.jit(fn)`` on XLA:CPU and print the largest difference of
            each output to stderr (kept in ``.last_comparison``).
        in_shardings, out_shardings: JAX shardings (``NamedSharding``s, pytrees of them), as
            in ``jax.jit``: the program is then partitioned by xlapy over the mesh's devices
            (``xlapy.sharding``) and run on as many xlapy devices; arguments and outputs stay
            global arrays.

    Returns:
        A ``Jitted`` callable: outputs come back in ``fn``'s pytree structure as numpy arrays;
        programs are cached per input signature (pytree structure, shapes, dtypes, static
        values). ``.lower(*args)`` gives the xlapy module.
    """

    def wrap(f: Callable[..., Any]) -> Jitted:
        if not callable(f):
            raise InvalidArgument(f"xlapy.jit: expected a function; got {type(f).__name__}")
        return Jitted(
            f,
            platform=platform,
            flush_denormals=flush_denormals,
            static_argnums=_ints(static_argnums),
            static_argnames=(static_argnames,)
            if isinstance(static_argnames, str)
            else tuple(static_argnames),
            donate_argnums=_ints(donate_argnums),
            compare=compare,
            in_shardings=in_shardings,
            out_shardings=out_shardings,
        )

    return wrap if fn is None else wrap(fn)


def _ints(value: int | Sequence[int]) -> tuple[int, ...]:
    return (value,) if isinstance(value, int) else tuple(int(v) for v in value)


def _aval_key(leaf: Any) -> Hashable:
    """Shape, dtype (a numpy dtype as itself: hashing it is cheap, its name is not) and weak
    typing of an array leaf; the type name of a Python scalar."""
    if type(leaf) is np.ndarray:  # the common case first
        return (leaf.shape, leaf.dtype, False)
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):  # jax arrays (PRNG keys too)
        dtype = leaf.dtype if isinstance(leaf.dtype, np.dtype) else str(leaf.dtype)
        return (tuple(leaf.shape), dtype, bool(getattr(leaf, "weak_type", False)))
    return (type(leaf).__name__,)  # Python scalars: JAX lowers them weakly typed


# numpy types jax.jit takes as they are, with or without x64.
_UNCHANGED = frozenset(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.float16,
        np.float32, np.complex64,
    )
)  # fmt: skip


def _host_value(jax: Any, leaf: Any) -> Any:
    """A leaf as xlapy takes it: numpy arrays (PRNG key arrays as their key data)."""
    if type(leaf) is np.ndarray and leaf.dtype in _UNCHANGED:
        return leaf
    if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        return np.asarray(jax.random.key_data(leaf))
    if isinstance(leaf, bool | int | float | complex):
        return np.asarray(jax.numpy.asarray(leaf))  # the dtype JAX gave the parameter
    array = np.asarray(leaf)
    # As jax.jit: with x64 off, float64/int64/uint64/complex128 arrays become 32-bit ones.
    return array.astype(jax.dtypes.canonicalize_dtype(array.dtype), copy=False)


def _difference(path: str, got: np.ndarray, want: np.ndarray) -> OutputDifference:
    if got.shape != want.shape or got.size == 0:
        return OutputDifference(path, 0.0 if got.shape == want.shape else float("inf"), 0.0, 0)
    if want.dtype.kind not in "fc":
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        return OutputDifference(path, float(diff.max()), 0.0, 0)
    g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    w = want.astype(g.dtype)
    both_nan = np.isnan(g) & np.isnan(w)
    with np.errstate(all="ignore"):
        diff = np.where(both_nan | (g == w), 0.0, np.abs(g - w))
        rel = np.where(diff == 0, 0.0, diff / np.maximum(np.abs(w), np.finfo(np.float64).tiny))
    ulp = 0
    if want.dtype.kind == "f" and want.dtype.itemsize in (2, 4, 8):
        ulp = int(np.max(np.where(both_nan, 0, _ulp_distance(got.astype(want.dtype), want))))
    return OutputDifference(path, float(np.nanmax(diff)), float(np.nanmax(rel)), ulp)


def _ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|position(a) - position(b)| on the line of representable values (IEEE types)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(bits).astype(np.int64)
    ib = b.view(bits).astype(np.int64)
    low = np.iinfo(bits).min
    ia = np.where(ia < 0, low - ia, ia)
    ib = np.where(ib < 0, low - ib, ib)
    return np.abs(ia - ib)


__all__ = ["Jitted", "OutputDifference", "jit"]
