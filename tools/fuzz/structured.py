"""Structured inputs drawn by hypothesis: builder programs, ``xlapy.run`` calls, indexing maps.

* ``builder``: a ``BuilderProgram`` is a list of ``ops.*`` calls whose arguments are drawn from
  each function's signature (operands from earlier results or Python values, int lists, shapes,
  element types, computations, dimension-number configs, enums; valid and invalid), then the
  module built from the last result is exercised as a loaded one (``targets.exercise``).
* ``run-args``: a ``RunCall`` is ``xlapy.run`` on an example program with drawn arguments
  (arrays of right and wrong dtype and shape, Python numbers, ragged lists, None, strings,
  per-device lists) and options (replicas, partitions, timeout, max_memory, platform, runtime).
* ``indexing-maps``: a ``MapText`` is indexing-map text built from a random affine map; small
  maps are also checked for meaning: simplification must keep the map's image on its domain.

Every case has ``run(stage)`` and ``source()`` (a Python script that replays it).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

import xlapy
from tools.fuzz import corpus
from tools.fuzz.judge import judge
from tools.fuzz.targets import RUN_MEMORY, Case, RoundTripError, Stage, exercise, simplify_map_text
from xlapy import ops
from xlapy.builder import config
from xlapy.errors import XlaError

_PREAMBLE = (
    f"import sys\nsys.path.insert(0, {str(corpus.ROOT)!r})\n"
    "from tools.fuzz.structured import *  # noqa: F403\nnan, inf = float('nan'), float('inf')\n"
)


# ---- placeholders: drawn values with a replayable repr -------------------------------------


@dataclass(frozen=True)
class Ref:
    """The ``index``-th op made so far (modulo their number)."""

    index: int


@dataclass(frozen=True)
class Builder:
    """The program's builder (``other``: a second, unrelated builder)."""

    other: bool = False


@dataclass(frozen=True)
class Comp:
    """A prepared computation argument, by name (see ``computations``)."""

    name: str


@dataclass(frozen=True)
class Array:
    """A numpy array of ``dtype`` (``values`` reshaped to ``shape``)."""

    values: tuple[Any, ...]
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Config:
    """``xlapy.builder.config.<cls>(**fields)``."""

    cls: str
    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class EnumValue:
    """``xlapy.builder.config.<cls>.<member>``."""

    cls: str
    member: str


def computations() -> dict[str, Callable[..., Any]]:
    """Computation arguments: Python functions traced by the builder (reducers, comparators,
    bodies), one returning a non-op, one taking no parameters."""
    return {
        "add": lambda x, y: ops.Add(x, y),
        "max": lambda x, y: ops.Max(x, y),
        "less": lambda x, y: ops.Lt(x, y),
        "first": lambda *xs: xs[0] if xs else 0.0,  # (a Python value: a constant)
        "tuple": lambda *xs: ops.Tuple(xs[0].builder, list(xs)) if xs else 0.0,
        "negate": lambda x: ops.Neg(x),
        "not-an-op": lambda *xs: 3,
        "nothing": lambda: None,
    }


def resolve(value: Any, pool: list[Any], builders: tuple[Any, Any]) -> Any:
    """The real argument a placeholder stands for (containers resolved item by item)."""
    if isinstance(value, Ref):
        return pool[value.index % len(pool)] if pool else None
    if isinstance(value, Builder):
        return builders[value.other]
    if isinstance(value, Comp):
        return computations()[value.name]
    if isinstance(value, Array):
        return np.array(value.values).astype(value.dtype).reshape(value.shape)
    if isinstance(value, Config):
        fields = {k: resolve(v, pool, builders) for k, v in value.fields}
        return getattr(config, value.cls)(**fields)
    if isinstance(value, EnumValue):
        return getattr(getattr(config, value.cls), value.member)
    if isinstance(value, list | tuple):
        items = [resolve(v, pool, builders) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


# ---- builder programs ----------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """``ops.<fn>(*args, **kwargs)``."""

    fn: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class BuilderProgram:
    """Parameters of ``params`` shapes, then ``calls`` in order; each successful call's op
    joins the pool later calls draw operands from."""

    params: tuple[str, ...]
    calls: tuple[Call, ...]

    def run(self, stage: Stage) -> None:
        stage("builder")
        builder, other = xlapy.XlaBuilder("fuzz"), xlapy.XlaBuilder("other")
        pool: list[Any] = []
        for i, shape in enumerate(self.params):
            pool.append(ops.Parameter(builder, i, shape))
        ops.Parameter(other, 0, "f32[]")
        for call in self.calls:
            fn = getattr(ops, call.fn)
            args = resolve(call.args, pool, (builder, other))
            kwargs = {k: resolve(v, pool, (builder, other)) for k, v in call.kwargs}
            try:
                result = fn(*args, **kwargs)
            except XlaError as err:
                if judge(err, "builder", "builder") is not None:
                    raise
                continue
            if isinstance(result, xlapy.XlaOp) and result.builder is builder:
                pool.append(result)
        stage("build")
        module = builder.build(pool[-1])
        exercise(module, stage, len(self.calls))

    def source(self) -> str:
        return f"{_PREAMBLE}{self!r}.run(print)\n"


_SHAPES = ["f32[]", "f32[2]", "f32[2,3]", "s32[]", "s32[3]", "pred[2]", "f16[2,2]", "u8[4]",
           "c64[2]", "bf16[3]", "s64[1,2,3]", "f32[0]", "(f32[], s32[])", "token[]"]  # fmt: skip
_BAD_SHAPES = ["f32[-1]", "q8[2]", "f32[2", "(", "f32[2147483648,2147483648]", "", "f32[<=3]"]
_TYPES = ["f32", "s32", "pred", "u8", "f16", "bf16", "c64", "s64", "f64", "s4", "f8e4m3fn",
          "token", "tuple", "opaque", "f33", "F32", "int32", "float64", "bool"]  # fmt: skip
_WORDS = ["SAME", "VALID", "same", "EQ", "LT", "GT", "FFT", "IFFT", "RFFT", "IRFFT", "DEFAULT",
          "HIGHEST", "TOTALORDER", "SIGNED", "FLOAT", "kLoop", "NO_TRANSPOSE", "TRANSPOSE",
          "ADJOINT", "rng_default", "three_fry", "philox", "b01f_01io->b01f", "bf_io->bf", "",
          "x", "é", "{}", "host"]  # fmt: skip
_ENUMS = ["Padding", "ComparisonDirection", "ComparisonType", "FftType", "Precision",
          "RandomAlgorithm", "RandomDistribution", "TransposeA"]  # fmt: skip

small_ints = st.one_of(
    st.integers(-2, 6),
    st.sampled_from([0, 1, 2, 2**31 - 1, 2**31, 2**63, -(2**63), 10**20, -5]),
)
int_lists = st.lists(small_ints, max_size=5)
python_values = st.one_of(
    st.integers(-3, 10),
    st.sampled_from([2**64, -(2**70), 0.5, float("nan"), float("inf"), 1 + 2j, True, None]),
    st.lists(st.integers(-3, 3), max_size=4),
    st.just([[1, 2], [3]]),
    st.text(max_size=3),
)


@st.composite
def arrays(draw: st.DrawFn) -> Array:
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    dtype = draw(st.sampled_from(["float32", "int32", "bool", "uint8", "float16", "complex64",
                                  "int64", "float64"]))  # fmt: skip
    values = tuple(draw(st.integers(-3, 5)) for _ in range(int(np.prod(shape, dtype=np.int64))))
    return Array(values, dtype, shape)


def _configs(annotation: str) -> st.SearchStrategy[Any] | None:
    """Dimension-number and other config dataclasses named in ``annotation``."""
    lists = int_lists
    if "RaggedDotDimensionNumbers" in annotation:
        dot = _configs("DotDimensionNumbers")
        assert dot is not None
        return st.builds(lambda d, a, b: Config("RaggedDotDimensionNumbers", (
            ("dot_dimension_numbers", d), ("lhs_ragged_dimensions", a),
            ("rhs_group_dimensions", b))), dot, lists, lists)  # fmt: skip
    names = {
        "DotDimensionNumbers": ["lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                "lhs_batch_dimensions", "rhs_batch_dimensions"],
        "GatherDimensionNumbers": ["offset_dims", "collapsed_slice_dims", "start_index_map",
                                   "index_vector_dim", "operand_batching_dims",
                                   "start_indices_batching_dims"],
        "ScatterDimensionNumbers": ["update_window_dims", "inserted_window_dims",
                                    "scatter_dims_to_operand_dims", "index_vector_dim",
                                    "input_batching_dims", "scatter_indices_batching_dims"],
    }  # fmt: skip
    for cls, fields in names.items():
        if cls in annotation:
            values = [small_ints if f == "index_vector_dim" else lists for f in fields]
            return st.tuples(*values).map(
                lambda v, cls=cls, fields=fields: Config(cls, tuple(zip(fields, v, strict=True)))
            )
    if "ChannelHandle" in annotation:
        return st.one_of(small_ints, st.builds(lambda h: Config("ChannelHandle", (("handle", h),)),
                                               small_ints))  # fmt: skip
    if "ResultAccuracy" in annotation:
        return st.one_of(st.none(), st.builds(
            lambda m, u: Config("ResultAccuracy", (("mode", m), ("ulps", u))),
            st.sampled_from(["default", "highest", "tolerance", "bogus"]), small_ints))  # fmt: skip
    if "PrecisionArg" in annotation:
        return st.one_of(st.none(), st.lists(st.sampled_from(
            [EnumValue("Precision", "DEFAULT"), EnumValue("Precision", "HIGHEST"), "HIGH", 3]),
            max_size=3))  # fmt: skip
    if "GroupsArg" in annotation:
        return st.one_of(st.none(), st.lists(int_lists, max_size=3))
    return None


def value_for(name: str, annotation: str) -> st.SearchStrategy[Any]:
    """A strategy for the parameter ``name`` of an ``ops`` function, by its annotation."""
    a = annotation.replace("'", "")
    if name == "builder" or a == "XlaBuilder":
        return st.sampled_from([Builder(), Builder(), Builder(True)])
    if "ComputationLike" in a:
        comps = st.sampled_from([Comp(n) for n in computations()])
        return st.lists(comps, max_size=3) if a.startswith("Sequence") else comps
    special = _configs(a)
    if special is not None:
        return special
    if "XlaOp" in a or "Operand" in a:
        refs = st.builds(Ref, st.integers(0, 12))
        if a.startswith("Sequence"):
            return st.one_of(st.lists(refs, max_size=4), refs)
        return st.one_of(refs, refs, refs, python_values, arrays())
    if "Sequence[Sequence[int]]" in a or "PaddingConfig" in a:
        return st.lists(st.lists(small_ints, max_size=3), max_size=4)
    if "Sequence[bool]" in a:
        return st.lists(st.booleans(), max_size=4)
    if "Sequence[int]" in a:
        return st.one_of(int_lists, st.none()) if "None" in a else int_lists
    if "ConvolutionDimensionNumbers" in a:
        return st.sampled_from([None, "b01f_01io->b01f", "bf_io->bf", "b0f_0io->b0f", "bad"])
    if "Shape | str" in a or a == "Shape":
        return st.sampled_from(_SHAPES + _BAD_SHAPES)
    if a == "object" or "element_type" in name or name == "type":
        return st.sampled_from(_TYPES)
    for enum in _ENUMS:
        if enum in a:
            members = [EnumValue(enum, m.name) for m in getattr(config, enum)]
            return st.one_of(st.sampled_from(members), st.sampled_from(_WORDS))
    if a.startswith("int"):
        return small_ints
    if a.startswith("float"):
        return st.one_of(st.floats(allow_nan=True), small_ints)
    if a.startswith("bool"):
        return st.one_of(st.booleans(), st.none())
    if a.startswith("str"):
        return st.sampled_from(_WORDS)
    return st.one_of(python_values, st.builds(Ref, st.integers(0, 12)), st.just(Builder()))


def _functions() -> dict[str, inspect.Signature]:
    out = {}
    for name in sorted(dir(ops)):
        fn = getattr(ops, name)
        if name[:1].isupper() and inspect.isfunction(fn):
            out[name] = inspect.signature(fn)
    return out


_VARARGS = st.one_of(st.builds(Ref, st.integers(0, 12)), st.just(Builder()), int_lists,
                     st.sampled_from([Comp("add"), Comp("first"), "f32[2]", 0, 1, "x"]),
                     st.lists(st.builds(Ref, st.integers(0, 12)), max_size=3))  # fmt: skip


@st.composite
def calls(draw: st.DrawFn) -> Call:
    signatures = _functions()
    name = draw(st.sampled_from(sorted(signatures)))
    args: list[Any] = []
    kwargs: list[tuple[str, Any]] = []
    for p in signatures[name].parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            args.extend(draw(st.lists(_VARARGS, max_size=5)))
            continue
        if p.kind is p.VAR_KEYWORD:
            continue
        optional = p.default is not inspect.Parameter.empty
        if optional and draw(st.integers(0, 2)) == 0:
            continue  # left to its default
        value = draw(value_for(p.name, str(p.annotation)))
        if p.kind is p.KEYWORD_ONLY or (optional and draw(st.booleans())):
            kwargs.append((p.name, value))
        else:
            args.append(value)
    return Call(name, tuple(args), tuple(kwargs))


@st.composite
def builder_programs(draw: st.DrawFn) -> BuilderProgram:
    params = tuple(draw(st.lists(st.sampled_from(_SHAPES[:-2]), min_size=1, max_size=3)))
    return BuilderProgram(params, tuple(draw(st.lists(calls(), min_size=1, max_size=6))))


# ---- xlapy.run calls -------------------------------------------------------------------------

_PROGRAMS = ["examples/mlp.hlo", "examples/control_flow.hlo", "examples/dtypes_mix.hlo",
             "examples/integer_ops.hlo", "tests/e2e/collectives/psum.hlo",
             "tests/e2e/collectives/ppermute.hlo", "tests/e2e/data/while_tuple.hlo"]  # fmt: skip
_MODULES: dict[str, xlapy.HloModule] = {}


@dataclass(frozen=True)
class RunCall:
    """``xlapy.run(load(program), *args, **options)``."""

    program: str
    args: tuple[Any, ...]
    options: tuple[tuple[str, Any], ...] = ()

    def run(self, stage: Stage) -> None:
        stage("load")
        if self.program not in _MODULES:
            _MODULES[self.program] = xlapy.load(corpus.ROOT / self.program)
        module = _MODULES[self.program]
        options = dict(self.options)
        options.setdefault("platform", "interpreter")
        options.setdefault("timeout", 1.0)
        options.setdefault("max_memory", RUN_MEMORY)
        args = resolve(self.args, [], (None, None))
        stage("run")
        xlapy.run(module, *args, **options)

    def source(self) -> str:
        return f"{_PREAMBLE}{self!r}.run(print)\n"


def _argument_for(shape: xlapy.Shape) -> st.SearchStrategy[Any]:
    """Right and wrong arguments for a parameter of ``shape``."""
    if shape.is_tuple:
        parts = [_argument_for(s) for s in shape.tuple_shapes]
        return st.one_of(st.tuples(*parts), st.lists(st.integers(0, 2), max_size=3), st.none())
    dims = tuple(max(d, 0) for d in shape.dims) if shape.is_array else ()
    size = int(np.prod(dims, dtype=np.int64))
    dtype = np.dtype(shape.element_type.numpy).name if shape.is_array else "float32"
    exact = st.lists(st.integers(-3, 5), min_size=size, max_size=size).map(
        lambda v: Array(tuple(v), dtype, dims)
    )
    wrong = st.builds(lambda d: Array((1,) * size, d, dims),
                      st.sampled_from(["float64", "int8", "bool", "complex128", "uint64"]))  # fmt: skip
    nested = st.just(np.ones(dims).tolist())
    return st.one_of(exact, exact, wrong, nested, python_values, arrays())


@st.composite
def run_calls(draw: st.DrawFn) -> RunCall:
    program = draw(st.sampled_from(_PROGRAMS))
    if program not in _MODULES:
        _MODULES[program] = xlapy.load(corpus.ROOT / program)
    module = _MODULES[program]
    devices = module.config.replica_count * module.config.num_partitions
    args = []
    for p in module.entry.parameters:
        value = draw(_argument_for(p.shape))
        if devices > 1 and draw(st.integers(0, 2)) == 0:
            value = [draw(_argument_for(p.shape)) for _ in range(draw(st.integers(0, devices + 1)))]
        args.append(value)
    if draw(st.integers(0, 9)) == 0:
        args = args[: draw(st.integers(0, len(args)))] + draw(st.lists(python_values, max_size=2))
    counts = st.sampled_from([None, 0, -1, 1, 2, 3, 2**31, "2", 1.5, True])
    options = {
        "replicas": counts,
        "partitions": counts,
        "timeout": st.sampled_from([0.5, 0, -1, float("nan"), "1", True]),
        "max_memory": st.sampled_from([None, 0, -5, 1, 1024, 2**70, "1G", True]),
        "platform": st.sampled_from(["interpreter", "tpu", "", 3]),
        "runtime": st.sampled_from(["local", "nccl", None]),
        "infeed": st.sampled_from([[], [1.0], "abc", None, 3]),
        "outfeed": st.sampled_from([None, [], "x"]),
    }
    chosen = draw(st.lists(st.sampled_from(sorted(options)), max_size=3, unique=True))
    return RunCall(program, tuple(args), tuple((k, draw(options[k])) for k in chosen))


# ---- indexing maps ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MapText:
    """Indexing-map text; ``check_image`` also compares the image before and after
    simplification (small maps only)."""

    text: str
    check_image: bool = False

    def run(self, stage: Stage) -> None:
        simplify_map_text(self.text, stage)
        if not self.check_image:
            return
        from xlapy.indexing.text import parse_indexing_map

        stage("image")
        original = parse_indexing_map(self.text)
        before = original.image(4096)
        simplified = original.simplify()
        candidates = [("simplify", simplified)]
        if before:
            # As XLA's, removing unused symbols drops the constraints on them alone: the image
            # is kept when they are satisfiable (a non-empty domain), not otherwise.
            candidates.append(("remove_unused_symbols", simplified.remove_unused_symbols()))
        for step, result in candidates:
            after = result.image(4096)
            if before != after:
                missing = sorted(before - after)[:3]
                extra = sorted(after - before)[:3]
                raise RoundTripError(
                    f"{step} changed the map's image: lost {missing}, gained {extra}; got "
                    f"{result.to_string(multiline=False)}"
                )

    def source(self) -> str:
        return f"{_PREAMBLE}{self!r}.run(print)\n"


@st.composite
def _expr(draw: st.DrawFn, names: list[str], depth: int, big: bool) -> str:
    numbers = st.integers(-3, 9) if not big else st.sampled_from([0, -1, 2**62, 10**30, 7])
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        if names and draw(st.booleans()):
            return draw(st.sampled_from(names))
        return str(draw(numbers))
    op = draw(st.sampled_from(["+", "-", "*", "floordiv", "mod", "neg"]))
    lhs = draw(_expr(names, depth - 1, big))
    if op == "neg":
        return f"-({lhs})"
    rhs = draw(_expr(names, depth - 1, big)) if op in "+-" else str(draw(numbers))
    if op == "*" and draw(st.booleans()):
        lhs, rhs = rhs, lhs
    return f"({lhs} {op} {rhs})"


@st.composite
def map_texts(draw: st.DrawFn) -> MapText:
    big = draw(st.integers(0, 4)) == 0
    dims = [f"d{i}" for i in range(draw(st.integers(0, 3)))]
    syms = [f"s{i}" for i in range(draw(st.integers(0, 2)))]
    rts = [f"rt{i}" for i in range(draw(st.integers(0, 1)))]
    names = dims + syms + rts
    results = [draw(_expr(names, 3, big)) for _ in range(draw(st.integers(0, 3)))]
    bound = st.integers(-2, 5) if not big else st.sampled_from([-(2**63), 0, 2**63, 10**40])
    domain = []
    for name in names:
        lo = draw(bound)
        domain.append(f"{name} in [{lo}, {lo + draw(st.integers(-1, 4))}]")
    for _ in range(draw(st.integers(0, 2))):
        domain.append(f"{draw(_expr(names, 2, big))} in [{draw(bound)}, {draw(bound)}]")
    head = "(" + ", ".join(dims) + ")"
    head += f"[{', '.join(syms)}]" if syms else ""
    head += "{" + ", ".join(rts) + "}" if rts else ""
    text = f"{head} -> ({', '.join(results)})"
    if names:
        text += ", domain: " + ", ".join(domain)
    return MapText(text, check_image=not big)


# ---- running hypothesis in the worker --------------------------------------------------------

STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "builder": builder_programs,
    "run-args": run_calls,
    "indexing-maps": map_texts,
}


class _Found(Exception):
    """Raised in the property for a finding, so hypothesis shrinks the input."""


@dataclass
class _State:
    executed: int = 0
    last_finding: Any = None
    stop: bool = field(default=False)


def fuzz_structured(reporter: Any, target: str, seed: int, cases: int, deadline: float) -> None:
    """Runs ``cases`` hypothesis examples of ``target`` (until ``deadline``) through
    ``reporter.execute``; each failure is shrunk by hypothesis and its smallest input sent."""
    state = _State()
    batch = 0
    while state.executed < cases and time.time() < deadline and not reporter.exit_after_case:
        examples = min(25, cases - state.executed)

        @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink),
                  report_multiple_bugs=False)  # fmt: skip
        @given(STRATEGIES[target]())
        def prop(data: Any) -> None:
            if reporter.exit_after_case:
                return
            state.executed += 1
            _, finding = reporter.execute(Case(target, f"hypothesis {target}", data))
            if finding is not None:
                state.last_finding = finding
                raise _Found

        try:
            hypothesis_seed(seed * 1000 + batch)(prop)()
        except _Found:
            reporter.conn.send(("finding", state.last_finding))
        except Exception as err:  # hypothesis's own failures (Flaky, Unsatisfiable...)
            reporter.conn.send(("note", f"hypothesis {target}: {type(err).__name__}: {err}"))
        batch += 1


__all__ = [
    "Array",
    "Builder",
    "BuilderProgram",
    "Call",
    "Comp",
    "Config",
    "EnumValue",
    "MapText",
    "Ref",
    "RunCall",
    "computations",
    "fuzz_structured",
]  # fmt: skip
