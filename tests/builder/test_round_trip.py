"""Builder output round-trips through the HLO printer and parser, and re-inferring every
instruction of the parsed module gives the stored shape (what the verifier checks)."""

import numpy as np
import pytest

import xlapy
from xlapy import XlaBuilder, ops
from xlapy.builder.config import (
    ChannelHandle,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    Padding,
    RandomAlgorithm,
    ScatterDimensionNumbers,
)
from xlapy.ir import Opcode
from xlapy.shape_inference import infer_shape

S = xlapy.shape
hlo_printer = pytest.importorskip("xlapy.text.hlo_printer")
hlo_parser = pytest.importorskip("xlapy.text.hlo_parser")

NEEDS_RESULT = {
    Opcode.PARAMETER, Opcode.CONVERT, Opcode.BITCAST_CONVERT, Opcode.BROADCAST, Opcode.RESHAPE,
    Opcode.IOTA, Opcode.RNG, Opcode.RNG_BIT_GENERATOR, Opcode.INFEED, Opcode.RECV,
    Opcode.CUSTOM_CALL, Opcode.DOT, Opcode.CONVOLUTION, Opcode.BITCAST, Opcode.CONSTANT,
    Opcode.ALL_GATHER, Opcode.REDUCE_SCATTER, Opcode.ASYNC_START, Opcode.ALL_GATHER_START,
}  # fmt: skip


def _elementwise(b):
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    y = ops.Parameter(b, 1, S("f32[3]"), "y")
    z = ops.Select(x > 0.0, ops.Exp(x), ops.Add(x, y, [1]))
    ops.Tuple(
        b, [z, ops.EqTotalOrder(x, x), ops.ConvertElementType(x, "bf16"), ops.Clamp(0.0, x, 1.0)]
    )


def _shapes(b):
    x = ops.Parameter(b, 0, S("s32[4,6]"), "x")
    parts = [
        ops.Pad(x, ops.ConstantR0(b, 0), [(1, 0, 1), (0, -1, 0)]),
        ops.Slice(x, [1, 0], [4, 6], [2, 3]),
        ops.Rev(ops.Transpose(x, [1, 0]), [0]),
        ops.ConcatInDim(b, [x, x], 1),
        ops.Reshape(x, [2, 12]),
        ops.BroadcastInDim(ops.Collapse(x, [0, 1]), [2, 24], [1]),
        ops.DynamicSlice(x, [ops.ConstantR0(b, 1), ops.ConstantR0(b, 2)], [2, 2]),
        ops.Iota(b, S("s32[3,2]"), 1),
        x[1:3, ::2],
    ]
    ops.Tuple(b, parts)


def _gather_scatter(b):
    x = ops.Parameter(b, 0, S("f32[5,4]"), "x")
    i = ops.Parameter(b, 1, S("s32[3,1]"), "i")
    g = ops.Gather(x, i, GatherDimensionNumbers([1], [0], [0], 1), [1, 4])
    s = ops.Scatter(x, i, g, lambda a, c: a + c, ScatterDimensionNumbers([1], [0], [0], 1))
    ops.Tuple(b, [g, s])


def _contractions(b):
    x = ops.Parameter(b, 0, S("f32[1,2,6,6]"), "x")
    w = ops.Parameter(b, 1, S("f32[4,2,3,3]"), "w")
    conv = ops.ConvGeneralDilated(x, w, [2, 1], Padding.SAME, [1, 1], [1, 2])
    m = ops.Parameter(b, 2, S("s8[3,4]"), "m")
    dot = ops.DotGeneral(m, m, DotDimensionNumbers([1], [1]), None, "s32")
    ops.Tuple(b, [conv, dot, ops.Fft(ops.ConvertElementType(x, "c64"), "FFT", [6, 6])])


def _reductions(b):
    x = ops.Parameter(b, 0, S("f32[4,6]"), "x")
    zero = ops.ConstantR0(b, 0.0)
    r = ops.Reduce(x, zero, lambda p, q: p + q, [1])
    w = ops.ReduceWindow(x, zero, lambda p, q: ops.Max(p, q), [2, 2], [2, 2], Padding.VALID)
    sas = ops.SelectAndScatter(x, lambda p, q: ops.Ge(p, q), [2, 2], [2, 2], Padding.VALID, w, zero,
                               lambda p, q: p + q)  # fmt: skip
    srt = ops.Sort([x, ops.Iota(b, S("s32[4,6]"), 1)], lambda a, c, d, e: ops.Gt(a, c), 1, True)
    ops.Tuple(b, [r, w, sas, srt, ops.TopK(x, 2), ops.Map(b, [x], lambda v: ops.Neg(v), [0, 1])])


def _control(b):
    x = ops.Parameter(b, 0, S("s32[]"), "x")
    loop = ops.While(lambda t: ops.Lt(t, ops.ConstantR0(t.builder, 10)),
                     lambda t: ops.Add(t, ops.ConstantR0(t.builder, 3)), x)  # fmt: skip
    cond = ops.Conditional(x, [lambda v: ops.Neg(v), lambda v: v], [x, x])
    call = ops.Call(b, lambda v: ops.Mul(v, v), [x])
    ops.Tuple(b, [loop, cond, call])


def _side_effects(b):
    data = ops.Infeed(b, S("f32[2]"))
    ops.Outfeed(data, S("f32[2]"), "cfg")
    ops.Send(data, ChannelHandle(3))
    got = ops.Recv(b, S("f32[2]"), ChannelHandle(3))
    state = ops.Constant(b, np.array([1, 2], np.uint64))
    bits = ops.RngBitGenerator(RandomAlgorithm.PHILOX, state, S("u32[4]"))
    rng = ops.RngUniform(ops.ConstantR0(b, 0.0), ops.ConstantR0(b, 1.0), S("f32[3]"))
    custom = ops.CustomCall(b, "my_target", [got], S("f32[2]"), opaque="cfg=1")
    ops.Tuple(b, [bits, rng, custom, ops.ReplicaId(b)])


def _collectives(b):
    x = ops.Parameter(b, 0, S("f32[4,8]"), "x")
    ops.Tuple(
        b,
        [
            ops.CrossReplicaSum(x, [[0, 1]]),
            ops.AllGather(x, 1, 2, [[0, 1]]),
            ops.ReduceScatter(x, lambda p, q: p + q, 1, 2, [[0, 1]]),
            ops.AllToAll(x, 1, 0, 2, [[0, 1]]),
            ops.CollectivePermute(x, [(0, 1), (1, 0)]),
        ],
    )


BUILDERS = [_elementwise, _shapes, _gather_scatter, _contractions, _reductions, _control,
            _side_effects, _collectives]  # fmt: skip


@pytest.mark.parametrize("make", BUILDERS, ids=lambda f: f.__name__.strip("_"))
def test_print_parse_print_is_a_fixed_point(make):
    b = XlaBuilder(make.__name__.strip("_"))
    make(b)
    module = b.build()
    text = hlo_printer.print_hlo(module)
    again = hlo_printer.print_hlo(hlo_parser.parse_hlo(text))
    assert again == text


@pytest.mark.parametrize("make", BUILDERS, ids=lambda f: f.__name__.strip("_"))
def test_reinferring_the_parsed_module_gives_the_stored_shapes(make):
    b = XlaBuilder(make.__name__.strip("_"))
    make(b)
    module = hlo_parser.parse_hlo(hlo_printer.print_hlo(b.build()))
    for instr in module.instructions():
        result = instr.shape if instr.opcode in NEEDS_RESULT else None
        shape = infer_shape(instr.opcode, [o.shape for o in instr.operands], instr.attrs,
                            result=result, name=instr.name)  # fmt: skip
        assert shape.compatible(instr.shape), f"{instr.name}: {shape} != {instr.shape}"


def test_parsed_module_runs_like_the_built_one():
    b = XlaBuilder("shapes")
    _shapes(b)
    module = b.build()
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    want = xlapy.run(module, x, platform="interpreter")
    got = xlapy.run(hlo_parser.parse_hlo(hlo_printer.print_hlo(module)), x, platform="interpreter")
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
