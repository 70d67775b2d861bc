"""Builder mistakes raise InvalidArgument at the call site naming the function, the argument,
the rule and the value; no ops.* function lets a TypeError/AttributeError/ValueError escape."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from xlapy import dtypes
from xlapy.builder import XlaBuilder, ops
from xlapy.builder.xla_builder import XlaOpUsageError
from xlapy.errors import InvalidArgument, XlaError


@pytest.fixture
def b():
    return XlaBuilder("b")


@pytest.fixture
def x(b):
    return ops.Parameter(b, 0, "f32[2,3]", "x")


@pytest.fixture
def i(b):
    return ops.Parameter(b, 1, "s32[]", "i")


def add(a, c):
    return a + c


# (call, fragments the message must contain, in order)
CASES = [
    (lambda b, x, i: ops.Pad(x, 0.0, None),
     ["Pad: padding_config must be a PaddingConfig or a sequence of sequences of ints", "None"]),
    (lambda b, x, i: ops.Transpose(x, [1.5, 0]),
     ["Transpose: permutation must be a sequence of ints", "[1.5, 0]"]),
    (lambda b, x, i: ops.Add(x),
     ["Add: missing a required argument: 'rhs'", "Add(lhs, rhs, broadcast_dimensions=...)"]),
    (lambda b, x, i: ops.Add(x, ops.Parameter(XlaBuilder("c"), 0, "f32[]")),
     ["Add: rhs", "belongs to builder 'c', not to 'b'"]),
    (lambda b, x, i: ops.Gather(x, i, None, [1, 1]),
     ["Gather: dimension_numbers must be a GatherDimensionNumbers; got None"]),
    (lambda b, x, i: ops.Gather(x, i, ops.GatherDimensionNumbers((0,), (), (0,), "x"), [1, 1]),
     ["Gather: index_vector_dim must be an int; got 'x'"]),
    (lambda b, x, i: ops.DotGeneral(x, x, ops.DotDimensionNumbers([1.0], [1])),
     ["DotGeneral: lhs_contracting_dims must be a sequence of ints; got 1.0 at index 0"]),
    (lambda b, x, i: ops.ConvertElementType(x, "s99"),
     ["ConvertElementType: element type must be an element type", "'s99'"]),
    (lambda b, x, i: ops.ConvertElementType(x, object()),
     ["ConvertElementType: element type must be an element type", "object"]),
    (lambda b, x, i: ops.ConvertElementType(x, x),
     ["ConvertElementType: element type must be an element type"]),
    (lambda b, x, i: ops.Compare(x, x, direction="XX"),
     ["Compare: direction must be a ComparisonDirection (EQ, GE, GT, LE, LT, NE); got 'XX'"]),
    (lambda b, x, i: ops.Fft(x, "ZZZ", [3]), ["Fft: fft_type must be a FftType", "'ZZZ'"]),
    (lambda b, x, i: ops.ReduceWindow(x, ops.ConstantR0(b, 0.0), add, [1, 1], [1, 1], "middle"),
     ["ReduceWindow: padding must be a Padding (same, valid); got 'middle'"]),
    (lambda b, x, i: ops.Reduce(x, ops.ConstantR0(b, 0.0), lambda a: a, [0]),
     ["Reduce: computation must take 2 parameter(s) (f32[], f32[]); got <lambda>(a)"]),
    (lambda b, x, i: ops.Sort(x, lambda a: a),
     ["Sort: comparator must take 2 parameter(s) (f32[], f32[])"]),
    (lambda b, x, i: ops.Reduce(x, ops.ConstantR0(b, 0.0), add, [5]),
     ["reduce [C4]: every entry of dimensions must be in [0, 2) of f32[2,3]; got {5}"]),
    (lambda b, x, i: ops.ConcatInDim(b, [x, x], 1.5), ["ConcatInDim: dimension must be an int; got 1.5"]),
    (lambda b, x, i: ops.ConcatInDim(b, [x, x], 9),
     ["concatenate [C4]: dimension must be in [0, 2) of f32[2,3]; got 9"]),
    (lambda b, x, i: ops.Broadcast(x, [-2]), ["Broadcast: broadcast_sizes must be sizes >= 0; got [-2]"]),
    (lambda b, x, i: ops.Iota(b, "s32", -3), ["Iota: size must be sizes >= 0; got [-3]"]),
    (lambda b, x, i: ops.Constant(b, [[1], [1, 2]]),
     ["Constant: value must be a number, a (rectangular) list of numbers or an array"]),
    (lambda b, x, i: ops.ConstantR0(b, 300, "u8"), ["ConstantR0: value 300 is out of the range of u8"]),
    (lambda b, x, i: i + 1.5, ["Add: operand 1.5 cannot become s32 without changing its value"]),
    (lambda b, x, i: i + 2**40, ["Add: operand 1099511627776 is out of the range of s32"]),
    (lambda b, x, i: x + None, ["Add: operand must be an XlaOp or a number", "for f32; got None"]),
    (lambda b, x, i: x["a"], ["index: indices must be ints", "got 'a'"]),
    (lambda b, x, i: x[1.5], ["index: indices must be ints", "got 1.5"]),
    (lambda b, x, i: x[5], ["index 5 is out of bounds for dimension 0 of size 2"]),
    (lambda b, x, i: ops.Reshape(None, [0], [6]), ["Reshape: operand must be an XlaOp; got NoneType"]),
    (lambda b, x, i: ops.Conditional(i, x, lambda a: a, x, lambda a, c: a),
     ["Conditional: false_computation must take 1 parameter(s) (f32[2,3])"]),
    (lambda b, x, i: ops.AsyncDone(x),
     ["AsyncDone: operand must be the result of AsyncStart or AsyncUpdate; got x (parameter)"]),
    (lambda b, x, i: ops.RecvDone(x), ["RecvDone: context must be the result of a recv instruction"]),
    (lambda b, x, i: ops.CustomCall(b, None, [x], "f32[2]"),
     ["CustomCall: call_target_name must be a non-empty str; got None"]),
    (lambda b, x, i: ops.Dot(x, x, precision_config=["zzz"]),
     ["Dot: precision_config must be a PrecisionConfig or a sequence of Precisions", "['zzz']"]),
    (lambda b, x, i: ops.AllReduce(x, add, None, "c"),
     ["AllReduce: channel_id must be a ChannelHandle or an int or None; got str 'c'"]),
    (lambda b, x, i: ops.TopK(x, 10), ["topk: k must be in [0, 3]", "got 10"]),
    (lambda b, x, i: ops.Select(x, x, x), ["select: pred must have pred element type; got f32[2,3]"]),
    (lambda b, x, i: ops.Parameter(b, 0, "f32[]"), ["parameter number 0 is already used by x"]),
    (lambda b, x, i: ops.Parameter(b, 2, "f32[2"), ["not a shape: 'f32[2'", "1:6"]),
    (lambda b, x, i: XlaBuilder(3), ["XlaBuilder needs a non-empty str name; got 3"]),
    (lambda b, x, i: b.build(3), ["root must be an XlaOp; got int"]),
]  # fmt: skip


@pytest.mark.parametrize(("call", "fragments"), CASES, ids=[str(n) for n in range(len(CASES))])
def test_mistake_is_an_invalid_argument_naming_op_argument_and_value(call, fragments, b, x, i):
    with pytest.raises(InvalidArgument) as info:
        call(b, x, i)
    message = str(info.value)
    position = 0
    for fragment in fragments:
        found = message.find(fragment, position)
        assert found >= 0, f"{fragment!r} not in order in {message!r}"
        position = found + len(fragment)


def test_xla_op_used_as_a_python_value_is_invalid_argument_and_type_error(x):
    with pytest.raises(XlaOpUsageError, match="x has no truth value"):
        bool(x)
    with pytest.raises(TypeError, match="x is not iterable"):
        list(x)
    assert issubclass(XlaOpUsageError, InvalidArgument)


def test_python_scalars_still_work_where_lossless(b, x, i):
    assert (x + 1).shape.to_hlo(layout=False) == "f32[2,3]"
    assert (i * 2).dtype is dtypes.S32
    assert ops.Clamp(0.0, x, 1.0).shape.to_hlo(layout=False) == "f32[2,3]"
    assert ops.DynamicSlice(x, [0, np.int32(1)], [1, 1]).shape.to_hlo(layout=False) == "f32[1,1]"
    assert ops.ConstantR0(b, 255, "u8").dtype is dtypes.U8


# ---- every function, one bad argument at a time -------------------------------------------

BAD_VALUES = [None, 1.5, "zzz", object(), -1, 100, [None], [1.5], np.float32(2), {"a": 1}, True]


def _plausible(annotation: str, b, x):
    if "XlaBuilder" in annotation:
        return b
    if "Sequence[XlaOp]" in annotation or "Sequence[Operand]" in annotation:
        return [x]
    if "XlaOp" in annotation or "Operand" in annotation:
        return x
    if "ComputationLike" in annotation:
        return lambda a, c=None: a
    if "Sequence[Sequence[int]]" in annotation:
        return [(0, 0), (0, 0)]
    if "Sequence[int]" in annotation:
        return (0,)
    if "Sequence[bool]" in annotation:
        return (False,)
    return {"int": 0, "float": 0.001, "bool": False}.get(annotation, "f32[2,3]" if "Shape" in
                                                         annotation else None)  # fmt: skip


FUNCTIONS = sorted(
    name for name in dir(ops) if name[:1].isupper() and inspect.isfunction(getattr(ops, name))
)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_no_raw_exception_for_any_single_bad_argument(name):
    fn = getattr(ops, name)
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    for position in range(len(params)):
        for bad in [*BAD_VALUES, "other-builder", "tuple-op"]:
            b = XlaBuilder("b")
            x = ops.Parameter(b, 0, "f32[2,3]")
            args = [_plausible(str(p.annotation), b, x) for p in params]
            if bad == "other-builder":
                bad = ops.Parameter(XlaBuilder("b2"), 0, "f32[2,3]")
            elif bad == "tuple-op":
                bad = ops.Tuple(b, [x, x])
            args[position] = bad
            try:
                fn(*args)
            except XlaError:
                pass
            except Exception as err:  # every other exception is the finding
                pytest.fail(
                    f"{name}({params[position].name}={bad!r:.40}) raised "
                    f"{type(err).__name__}: {err}"
                )


def test_every_wrapped_function_names_itself():
    with pytest.raises(InvalidArgument, match=re.escape("PadInDim: dimno must be an int")):
        ops.PadInDim(ops.Parameter(XlaBuilder("b"), 0, "f32[2]"), 0.0, "0", 1, 1)
