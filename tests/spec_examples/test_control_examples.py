"""OPS.md worked examples of calls, control flow, side effects, random numbers, collectives
and the internal HLO instructions, built with the builder."""

import numpy as np
import pytest
from spec_util import S, assert_close, assert_equal, run

import xlapy
from xlapy import XlaBuilder, ops
from xlapy.builder.config import ChannelHandle, RandomAlgorithm, ReplicaGroup
from xlapy.ir import Opcode


def _comp(name, fn, *shapes):
    sub = XlaBuilder(name)
    fn(*[ops.Parameter(sub, i, S(s), f"p{i}") for i, s in enumerate(shapes)])
    return sub.build()


ADD = _comp("add", ops.Add, "f32[]", "f32[]")


# ---- calls and control flow ------------------------------------------------------------


def test_call_and_composite_call():
    square = _comp("square", lambda x: ops.Mul(x, x), "f32[2]")
    b = XlaBuilder("call")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    plain = ops.Call(b, square, [x])
    composite = ops.CompositeCall(b, square, [x], name="foo.square", attributes="{n = 1 : i32}",
                                  version=1)  # fmt: skip
    assert plain.shape == composite.shape == S("f32[2]")
    instr = composite.instruction
    assert instr.attrs.is_composite is True
    assert instr.frontend_attributes["composite.name"] == "foo.square"
    assert instr.frontend_attributes["composite.version"] == "1"
    ops.Tuple(b, [plain, composite])
    got = run(b.build(), np.array([2, -3], np.float32))
    assert_equal(got[0], np.array([4, 9], np.float32))
    assert_equal(got[1], np.array([4, 9], np.float32))


def test_call_without_operands():
    b = XlaBuilder("call")
    sub = XlaBuilder("seven")
    ops.ConstantR0(sub, 7)
    out = ops.Call(b, sub.build(), [])
    assert out.shape == S("s32[]")
    assert int(run(b.build())[0]) == 7


@pytest.mark.parametrize(("pred", "want"), [(True, 11.0), (False, 20.0)])
def test_conditional_with_predicate(pred, want):
    plus = _comp("plus_one", lambda x: ops.Add(x, ops.ConstantR0(x.builder, 1.0)), "f32[]")
    times = _comp("times_two", lambda x: ops.Mul(x, ops.ConstantR0(x.builder, 2.0)), "f32[]")
    b = XlaBuilder("cond")
    ten = ops.ConstantR0(b, 10.0)
    out = ops.Conditional(ops.ConstantR0(b, pred), ten, plus, ten, times)
    assert out.shape == S("f32[]")
    assert float(run(b.build())[0]) == want


@pytest.mark.parametrize(("index", "want"), [(0, 0), (1, 10), (2, 20), (-1, 20), (7, 20)])
def test_conditional_with_index_runs_the_last_branch_when_out_of_range(index, want):
    branches = [_comp(f"b{k}", lambda x, k=k: ops.Mul(x, ops.ConstantR0(x.builder, k)), "s32[]")
                for k in range(3)]  # fmt: skip
    b = XlaBuilder("case")
    ten = ops.ConstantR0(b, 10)
    out = ops.Conditional(ops.ConstantR0(b, index), branches, [ten, ten, ten])
    assert out.shape == S("s32[]")
    assert int(run(b.build())[0]) == want


def test_while_example():
    state = S("(s32[], f32[10])")
    cond = _comp("cond", lambda t: ops.Lt(ops.GetTupleElement(t, 0), ops.ConstantR0(t.builder, 1000)),
                 "(s32[], f32[10])")  # fmt: skip

    def body_fn(t):
        b = t.builder
        step = ops.Add(ops.GetTupleElement(t, 0), ops.ConstantR0(b, 1))
        vec = ops.Add(ops.GetTupleElement(t, 1), ops.Constant(b, np.arange(10, dtype=np.float32)))
        ops.Tuple(b, [step, vec])

    body = _comp("body", body_fn, "(s32[], f32[10])")
    b = XlaBuilder("loop")
    init = ops.Tuple(b, [ops.ConstantR0(b, 0), ops.Constant(b, np.zeros(10, np.float32))])
    out = ops.While(cond, body, init)
    assert out.shape == state
    got = run(b.build())
    assert int(got[0]) == 1000
    assert_equal(got[1], 1000 * np.arange(10, dtype=np.float32))


def test_custom_call_example():
    b = XlaBuilder("custom")
    x = ops.Constant(b, np.array([1, 2], np.float32))
    y = ops.Constant(b, np.array([[10, 20, 30], [40, 50, 60]], np.float32))
    out = ops.CustomCall(b, "myfunc", [x, y], S("f32[3,3]"))
    assert out.shape == S("f32[3,3]")
    assert out.instruction.attrs.custom_call_target == "myfunc"

    @xlapy.custom_call_target("myfunc")
    def myfunc(ctx, instr, operands):
        xv, yv = operands
        z = np.zeros((3, 3), np.float32)
        z[0, 0] = xv[1] + yv[1, 0]
        return z

    got = run(b.build())[0]
    assert got[0, 0] == 42.0


def test_optimization_barrier_and_tokens():
    b = XlaBuilder("barrier")
    t = ops.Tuple(b, [ops.ConstantR0(b, 1), ops.ConstantR0(b, 2.0)])
    out = ops.OptimizationBarrier(t)
    assert out.shape == t.shape
    token = ops.AfterAll(b, [ops.CreateToken(b), ops.CreateToken(b)])
    assert token.shape == S("token[]")
    got = run(b.build(out))
    assert (int(got[0]), float(got[1])) == (1, 2.0)


def test_infeed_and_outfeed():
    b = XlaBuilder("feeds")
    data = ops.Infeed(b, S("s32[3]"))
    assert data.shape == S("s32[3]")
    token = ops.Outfeed(ops.Add(data, data), S("s32[3]"), "")
    assert token.shape == S("token[]")
    module = b.build(data)
    outfeed: list = []
    got = run(module, infeed=[np.array([1, 2, 3], np.int32)], outfeed=outfeed)
    assert_equal(got[0], np.array([1, 2, 3], np.int32))
    assert_equal(outfeed[0], np.array([2, 4, 6], np.int32))


def test_send_and_recv_structure():
    b = XlaBuilder("channels")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    done = ops.Send(x, ChannelHandle(5))
    assert done.shape == S("token[]")
    got = ops.Recv(b, S("f32[2]"), ChannelHandle(5))
    assert got.shape == S("f32[2]")
    opcodes = [i.opcode for i in b.instructions]
    for opcode in (Opcode.SEND, Opcode.SEND_DONE, Opcode.RECV, Opcode.RECV_DONE):
        assert opcode in opcodes
    pair = ops.RecvWithToken(ops.CreateToken(b), S("s32[]"), 6)
    assert pair.shape == S("(s32[], token[])")


def test_replica_and_partition_ids():
    b = XlaBuilder("ids")
    out = ops.Tuple(b, [ops.ReplicaId(b), ops.PartitionId(b)])
    assert out.shape == S("(u32[], u32[])")
    per_device = run(b.build(), replicas=2, partitions=2)
    assert [(int(r), int(p)) for r, p in per_device] == [(0, 0), (0, 1), (1, 0), (1, 1)]


# ---- random numbers ----------------------------------------------------------------------


def test_rng_uniform_and_normal():
    b = XlaBuilder("rng")
    u = ops.RngUniform(ops.ConstantR0(b, 2.0), ops.ConstantR0(b, 3.0), S("f32[100]"))
    n = ops.RngNormal(ops.ConstantR0(b, 0.0), ops.ConstantR0(b, 1.0), S("f32[3,4]"))
    i = ops.RngUniform(ops.ConstantR0(b, 0), ops.ConstantR0(b, 5), S("s32[50]"))
    assert (u.shape, n.shape, i.shape) == (S("f32[100]"), S("f32[3,4]"), S("s32[50]"))
    got = run(b.build(ops.Tuple(b, [u, n, i])))
    assert np.all((got[0] >= 2) & (got[0] < 3))
    assert got[1].shape == (3, 4)
    assert np.all((got[2] >= 0) & (got[2] < 5))


def test_rng_bernoulli():
    b = XlaBuilder("bernoulli")
    out = ops.RngBernoulli(ops.ConstantR0(b, 0.5), S("u32[64]"))
    assert out.shape == S("u32[64]")
    got = run(b.build())[0]
    assert set(np.unique(got)) <= {0, 1}


def test_rng_bit_generator_three_fry_state():
    b = XlaBuilder("bits")
    state = ops.BitcastConvertType(ops.Constant(b, np.array([[1, 4], [0, 1]], np.uint32)), "u64")
    out = ops.RngBitGenerator(RandomAlgorithm.THREE_FRY, state, S("u64[100,100]"))
    assert out.shape == S("(u64[2], u64[100,100])")
    new_state = ops.BitcastConvertType(ops.GetTupleElement(out, 0), "u32")
    got = run(b.build(new_state))[0]
    assert_equal(got, np.array([[1, 4], [10000, 1]], np.uint32))


# ---- collectives -------------------------------------------------------------------------


def _collective(make, shape="f32[2]"):
    b = XlaBuilder("collective")
    x = ops.Parameter(b, 0, S(shape), "x")
    out = make(x)
    return out, b.build()


def test_all_gather_example():
    out, module = _collective(lambda x: ops.AllGather(x, 0, 2))
    assert out.shape == S("f32[4]")
    got = run(
        module, [np.array([1.0, 2.5], np.float32), np.array([3.0, 5.25], np.float32)], replicas=2
    )
    for device in got:
        assert_equal(device[0], np.array([1.0, 2.5, 3.0, 5.25], np.float32))


def test_all_reduce_and_cross_replica_sum_examples():
    out, module = _collective(lambda x: ops.AllReduce(x, ADD))
    assert out.shape == S("f32[2]")
    got = run(
        module, [np.array([1.0, 2.5], np.float32), np.array([3.0, 5.25], np.float32)], replicas=2
    )
    for device in got:
        assert_equal(device[0], np.array([4.0, 7.75], np.float32))
    _, module = _collective(lambda x: ops.CrossReplicaSum(x))
    got = run(
        module, [np.array([1.0, 2.5], np.float32), np.array([3.0, 5.1], np.float32)], replicas=2
    )
    for device in got:
        assert_close(device[0], [4.0, 7.6])


def test_all_reduce_of_a_tuple_reduces_each_element():
    b = XlaBuilder("tuple_all_reduce")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    out = ops.AllReduce(ops.Tuple(b, [x, ops.Neg(x)]), ADD, [ReplicaGroup([0, 1])])
    assert out.shape == S("(f32[2], f32[2])")


def test_all_to_all_example_1_shape():
    b = XlaBuilder("alltoall")
    x = ops.Parameter(b, 0, S("f32[4,16]"), "x")
    out = ops.AllToAll(x, 1, 0, 4)
    assert out.shape == S("f32[16,4]")


def test_all_to_all_example_2_values():
    out, module = _collective(lambda x: ops.AllToAll(x, 1, 0, 2), "f32[2,4]")
    assert out.shape == S("f32[4,2]")
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    c = 10 + a
    got = run(module, [a, c], replicas=2)
    assert_equal(got[0][0], np.concatenate([a[:, :2], c[:, :2]]))
    assert_equal(got[1][0], np.concatenate([a[:, 2:], c[:, 2:]]))


def test_reduce_scatter_example():
    out, module = _collective(lambda x: ops.ReduceScatter(x, ADD, 0, 2))
    assert out.shape == S("f32[1]")
    got = run(
        module, [np.array([1.0, 2.25], np.float32), np.array([3.0, 5.25], np.float32)], replicas=2
    )
    assert_equal(got[0][0], np.array([4.0], np.float32))
    assert_equal(got[1][0], np.array([7.5], np.float32))


def test_collective_broadcast_example():
    out, module = _collective(lambda x: ops.CollectiveBroadcast(x, [[2, 1], [0]]), "s32[1]")
    assert out.shape == S("s32[1]")
    got = run(module, [np.array([v], np.int32) for v in (1, 2, 3, 4)], replicas=4)
    assert [int(d[0][0]) for d in got] == [1, 3, 3, 0]


def test_collective_permute_example():
    _out, module = _collective(lambda x: ops.CollectivePermute(x, [(0, 1), (1, 2)]), "s32[2]")
    got = run(module, [np.array(v, np.int32) for v in ([1, 2], [3, 4], [5, 6])], replicas=3)
    assert [list(d[0]) for d in got] == [[0, 0], [1, 2], [3, 4]]


def test_ragged_all_to_all_example():
    b = XlaBuilder("ragged")
    names = ["input", "input_offsets", "send_sizes", "output", "output_offsets", "recv_sizes"]
    shapes = ["s32[3]", "s32[2]", "s32[2]", "s32[4]", "s32[2]", "s32[2]"]
    params = [
        ops.Parameter(b, i, S(s), n) for i, (s, n) in enumerate(zip(shapes, names, strict=True))
    ]
    out = ops.RaggedAllToAll(*params)
    assert out.shape == S("s32[4]")
    arrays = [
        [[1, 2, 2], [3, 4, 0]], [[0, 1], [0, 1]], [[1, 2], [1, 1]], [[0, 0, 0, 0], [0, 0, 0, 0]],
        [[0, 0], [1, 2]], [[1, 1], [2, 1]],
    ]  # fmt: skip
    args = [[np.array(v, np.int32) for v in per_replica] for per_replica in arrays]
    got = run(b.build(), *args, replicas=2)
    assert_equal(got[0][0], np.array([1, 3, 0, 0], np.int32))
    assert_equal(got[1][0], np.array([2, 2, 4, 0], np.int32))


# ---- internal HLO instructions -----------------------------------------------------------


def test_internal_instructions_build_with_their_shapes():
    b = XlaBuilder("internal")
    x = ops.Parameter(b, 0, S("f32[4]"), "x")
    token = ops.CreateToken(b)
    assert ops.AddDependency(x, token).shape == S("f32[4]")
    assert ops.Copy(x).shape == S("f32[4]")
    start = ops.CopyStart(x)
    assert start.shape == S("(f32[4], f32[4], u32[])")
    assert ops.CopyDone(start).shape == S("f32[4]")
    assert ops.Bitcast(x, S("s32[2,2]")).shape == S("s32[2,2]")
    neg = _comp("neg", ops.Neg, "f32[4]")
    assert ops.Fusion(b, [x], neg, "kLoop").shape == S("f32[4]")
    async_start = ops.AsyncStart(b, [x], neg)
    assert async_start.shape == S("((f32[4]), f32[4], s32[])")
    assert ops.AsyncDone(ops.AsyncUpdate(async_start)).shape == S("f32[4]")
    gather = ops.AllGatherStart(x, 0, 2)
    assert gather.shape == S("(f32[4], f32[8])")
    assert ops.AllGatherDone(gather).shape == S("f32[8]")
    assert ops.AllReduceDone(ops.AllReduceStart(x, ADD)).shape == S("f32[4]")
    permute = ops.CollectivePermuteStart(x, [(0, 1)])
    assert permute.shape == S("(f32[4], f32[4], u32[], u32[])")
    assert ops.CollectivePermuteDone(permute).shape == S("f32[4]")
    assert ops.RngGetAndUpdateState(b, 4).shape == S("u64[2]")
    assert ops.Domain(
        x, '{kind="sharding", entry={maximal device=0}, exit={maximal device=1}}'
    ).shape == S("f32[4]")
