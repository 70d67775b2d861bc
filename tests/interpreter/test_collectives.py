"""Collectives on the in-process SPMD runtime (OPS.md examples and StableHLO process groups)."""

import numpy as np
import pytest

import xlapy
from xlapy import dtypes
from xlapy.errors import EvaluationError
from xlapy.ir import HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir import attrs as A
from xlapy.shape import Shape

F32 = dtypes.F32


def _module(shape: Shape, make_root, replicas: int = 1, partitions: int = 1) -> HloModule:
    """A module whose entry takes one parameter of ``shape`` and returns ``make_root(param)``."""
    m = HloModule("m")
    m.config.replica_count = replicas
    m.config.num_partitions = partitions
    entry = HloComputation("main")
    p = entry.add_instruction(
        HloInstruction(Opcode.PARAMETER, shape, attrs={"parameter_number": 0})
    )
    root = make_root(p, m)
    entry.add_instruction(root, root=True)
    m.add_computation(entry, entry=True)
    return m


def _adder(m: HloModule) -> HloComputation:
    comp = HloComputation("add")
    s = Shape.scalar(F32)
    a = comp.add_instruction(HloInstruction(Opcode.PARAMETER, s, attrs={"parameter_number": 0}))
    b = comp.add_instruction(HloInstruction(Opcode.PARAMETER, s, attrs={"parameter_number": 1}))
    comp.add_instruction(HloInstruction(Opcode.ADD, s, [a, b]), root=True)
    m.add_computation(comp)
    m.computations.insert(0, m.computations.pop())
    return comp


def _groups(*groups):
    return A.ReplicaGroups(tuple(tuple(g) for g in groups))


def test_all_reduce_spec_example():
    # OPS.md AllReduce: [1.0, 2.5] and [3.0, 5.25] summed ==> [4.0, 7.75] on both replicas.
    shape = Shape.array(F32, [2])
    m = _module(
        shape,
        lambda p, m: HloInstruction(Opcode.ALL_REDUCE, shape, [p], {"to_apply": _adder(m)}),
        replicas=2,
    )
    x = [np.array([1.0, 2.5], np.float32), np.array([3.0, 5.25], np.float32)]
    out = xlapy.run(m, x, platform="interpreter")
    for device in out:
        np.testing.assert_array_equal(device[0], np.array([4.0, 7.75], np.float32))


def test_all_gather_spec_example():
    shape = Shape.array(F32, [2])
    m = _module(
        shape,
        lambda p, m: HloInstruction(
            Opcode.ALL_GATHER, Shape.array(F32, [4]), [p], {"dimensions": (0,)}
        ),
        replicas=2,
    )
    x = [np.array([1.0, 2.5], np.float32), np.array([3.0, 5.25], np.float32)]
    for device in xlapy.run(m, x, platform="interpreter"):
        np.testing.assert_array_equal(device[0], np.array([1.0, 2.5, 3.0, 5.25], np.float32))


def test_all_to_all_derived_example():
    # OPS.md AllToAll example 2: split along 1, concat along 0 is expressed in HLO as the
    # tuple form; here the array form with split = concat = dimension 1.
    shape = Shape.array(dtypes.S64, [2, 4])
    m = _module(
        shape,
        lambda p, m: HloInstruction(Opcode.ALL_TO_ALL, shape, [p], {"dimensions": (1,)}),
        replicas=2,
    )
    a = np.arange(8, dtype=np.int64).reshape(2, 4)
    b = a + 10
    r0, r1 = (d[0] for d in xlapy.run(m, [a, b], platform="interpreter"))
    np.testing.assert_array_equal(r0, np.concatenate([a[:, :2], b[:, :2]], axis=1))
    np.testing.assert_array_equal(r1, np.concatenate([a[:, 2:], b[:, 2:]], axis=1))


def test_collective_permute_missing_source_gives_zeros():
    # OPS.md CollectivePermute: [1,2],[3,4],[5,6], pairs {(0,1),(1,2)} ==> [0,0],[1,2],[3,4].
    shape = Shape.array(dtypes.S32, [2])
    m = _module(
        shape,
        lambda p, m: HloInstruction(
            Opcode.COLLECTIVE_PERMUTE, shape, [p], {"source_target_pairs": ((0, 1), (1, 2))}
        ),
        replicas=3,
    )
    xs = [np.array(v, np.int32) for v in ([1, 2], [3, 4], [5, 6])]
    got = [d[0].tolist() for d in xlapy.run(m, xs, platform="interpreter")]
    assert got == [[0, 0], [1, 2], [3, 4]]


def test_collective_broadcast_derived_example():
    # 4 replicas [1],[2],[3],[4], groups {{2,1},{0}} ==> [1],[3],[3],[0].
    shape = Shape.array(dtypes.S32, [1])
    m = _module(
        shape,
        lambda p, m: HloInstruction(
            Opcode.COLLECTIVE_BROADCAST, shape, [p], {"replica_groups": _groups([2, 1], [0])}
        ),
        replicas=4,
    )
    xs = [np.array([v], np.int32) for v in (1, 2, 3, 4)]
    assert [d[0].tolist() for d in xlapy.run(m, xs, platform="interpreter")] == [[1], [3], [3], [0]]


@pytest.mark.parametrize(
    ("channel", "use_global", "groups", "expected"),
    [
        # cross_replica: groups of replica ids, per partition.
        (None, False, [[0, 1]], [[0, 2], [1, 3], [0, 2], [1, 3]]),
        # cross_replica_and_partition: each replica group spans every partition.
        (1, False, [[0], [1]], [[0, 1], [0, 1], [2, 3], [2, 3]]),
        # flattened_ids: groups of flat device ids.
        (1, True, [[0, 3], [1, 2]], [[0, 3], [1, 2], [1, 2], [0, 3]]),
    ],
)
def test_process_groups(channel, use_global, groups, expected):
    # 2 replicas x 2 partitions; all-gather the flat device id to observe each group.
    shape = Shape.array(dtypes.S32, [1])
    out_shape = Shape.array(
        dtypes.S32, [len(groups[0]) * (1 if use_global or channel is None else 2)]
    )
    m = _module(
        shape,
        lambda p, m: HloInstruction(
            Opcode.ALL_GATHER,
            out_shape,
            [p],
            {
                "dimensions": (0,),
                "replica_groups": _groups(*groups),
                "channel_id": channel,
                "use_global_device_ids": use_global,
            },
        ),
        replicas=2,
        partitions=2,
    )
    xs = [np.array([d], np.int32) for d in range(4)]
    assert [d[0].tolist() for d in xlapy.run(m, xs, platform="interpreter")] == expected


def test_replica_and_partition_ids():
    shape = Shape.array(F32, [1])
    m = _module(
        shape,
        lambda p, m: HloInstruction(Opcode.PARTITION_ID, Shape.scalar(dtypes.U32)),
        replicas=2,
        partitions=3,
    )
    got = [int(d[0]) for d in xlapy.run(m, np.zeros(1, np.float32), platform="interpreter")]
    assert got == [0, 1, 2, 0, 1, 2]


def test_collective_that_some_devices_never_reach_names_them():
    from xlapy.interpreter.runtime import Runtime

    runtime = Runtime(2, 1, timeout=0.2)
    with pytest.raises(EvaluationError, match=r"all-reduce x: devices \[1\] of group \[0, 1\]"):
        runtime.exchange(("x", 0), [0, 1], 0, np.zeros(1), "all-reduce x")


def test_device_outside_every_group_is_an_error():
    shape = Shape.array(F32, [1])
    m = _module(
        shape,
        lambda p, m: HloInstruction(
            Opcode.ALL_GATHER,
            Shape.array(F32, [2]),
            [p],
            {"dimensions": (0,), "replica_groups": _groups([0, 1])},
        ),
        replicas=3,
    )
    with pytest.raises(xlapy.XlaError, match="device 2 is in no replica group"):
        xlapy.run(m, np.zeros(1, np.float32), timeout=2, platform="interpreter")


def test_infeed_empty_queue_is_an_error():
    from xlapy.literal import TOKEN  # noqa: F401

    tok = Shape.token()
    data = Shape.array(F32, [2])
    m = _module(tok, lambda p, m: HloInstruction(Opcode.INFEED, Shape.tuple_of([data, tok]), [p]))
    (value, _token) = xlapy.run(
        m, None, infeed=[np.array([1, 2], np.float32)], platform="interpreter"
    )
    np.testing.assert_array_equal(value, [1, 2])
    with pytest.raises(EvaluationError, match="infeed queue is empty"):
        xlapy.run(m, None, platform="interpreter")


def test_collective_skipped_by_control_flow_fails_fast_naming_devices():
    # Replica 1 takes the branch without the all-reduce and finishes; replica 0 must not wait
    # for the timeout.
    import time

    m = xlapy.load(
        """HloModule m, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

yes {
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups={}, to_apply=add
}

no {
  p = f32[2] parameter(0)
  ROOT r = f32[2] copy(p)
}

ENTRY main {
  x = f32[2] parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  c = pred[] compare(id, zero), direction=EQ
  ROOT r = f32[2] conditional(c, x, x), true_computation=yes, false_computation=no
}
"""
    )
    start = time.monotonic()
    with pytest.raises(EvaluationError, match=r"all-reduce r.*devices \[1\].*finished"):
        xlapy.run(m, np.ones(2, np.float32), timeout=20, platform="interpreter")
    assert time.monotonic() - start < 10


def test_ragged_all_to_all_spec_example():
    # OPS.md RaggedAllToAll, 2 replicas: results [1, 3, 0, 0] and [2, 2, 4, 0].
    m = xlapy.load(
        """HloModule m, replica_count=2

ENTRY main {
  input = f32[3] parameter(0)
  input_offsets = s32[2] parameter(1)
  send_sizes = s32[2] parameter(2)
  output = f32[4] parameter(3)
  output_offsets = s32[2] parameter(4)
  recv_sizes = s32[2] parameter(5)
  ROOT r = f32[4] ragged-all-to-all(input, input_offsets, send_sizes, output, output_offsets, recv_sizes), replica_groups={{0,1}}
}
"""
    )

    def per_device(a, b, dtype):
        return [np.array(a, dtype), np.array(b, dtype)]

    r0, r1 = xlapy.run(
        m,
        per_device([1, 2, 2], [3, 4, 0], np.float32),
        per_device([0, 1], [0, 1], np.int32),
        per_device([1, 2], [1, 1], np.int32),
        np.zeros(4, np.float32),
        per_device([0, 0], [1, 2], np.int32),
        per_device([1, 1], [2, 1], np.int32),
        platform="interpreter",
    )
    assert r0[0].tolist() == [1, 3, 0, 0]
    assert r1[0].tolist() == [2, 2, 4, 0]
