"""Shardy attributes converted to HloShardings (hand-computed tile assignments), and
StableHLO ``mhlo.sharding`` on ops, arguments and results."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.errors import InvalidArgument, XlaError
from xlapy.sharding import HloSharding
from xlapy.sharding.sdy import (
    manual_sharding,
    parse_manual_axes,
    parse_mesh,
    parse_meshes,
    parse_tensor_sharding,
    to_hlo_sharding,
)
from xlapy.text.stablehlo_parser import parse_stablehlo

MESHES = {
    "mesh": parse_mesh('<["data"=2, "model"=4]>'),
    "m42": parse_mesh('#sdy.mesh<["a"=4, "b"=2]>'),
}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('<@mesh, [{"data"}, {}]>', "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"),
        ('<@mesh, [{}, {"model"}]>', "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"),
        ('<@mesh, [{"data"}, {"model"}]>', "{devices=[2,4]<=[8]}"),
        ('<@mesh, [{"model", "data"}]>', "{devices=[8]<=[2,4]T(1,0)}"),
        ("<@mesh, []>", "{replicated}"),
        ('<@mesh, [{}, {?}]>', "{replicated}"),
        ('<@m42, [{"b", "a"}, {}]>', "{devices=[8,1]<=[4,2]T(1,0)}"),
        ('<@mesh, [{"data"}p1, {}], replicated={"model"}>',
         "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"),
        # sub-axes of "model"=4: (1)2 is its major half, (2)2 its minor half
        ('<@mesh, [{"model":(1)2}, {"data"}]>',
         "{devices=[2,2,2]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}"),
        ('<@mesh, [{"model":(2)2}, {"model":(1)2}]>',
         "{devices=[2,2,2]<=[2,2,2]T(2,1,0) last_tile_dim_replicate}"),
        ('<mesh<["x"=4], device_ids=[3,2,1,0]>, [{"x"}]>', "{devices=[4]3,2,1,0}"),
        ("<mesh<[], device_ids=[3]>, [{}]>", "{maximal device=3}"),
    ],
)  # fmt: skip
def test_tensor_sharding_to_hlo(text, want):
    assert str(to_hlo_sharding(parse_tensor_sharding(text), MESHES)) == want


def test_sub_axis_devices_by_hand():
    # model = 4 split as m1 (major, 2) x m2 (minor, 2); device = data*4 + m1*2 + m2.
    s = to_hlo_sharding(parse_tensor_sharding('<@mesh, [{"model":(1)2}, {"data"}]>'), MESHES)
    want = np.empty((2, 2, 2), np.int64)
    for m1 in range(2):
        for d in range(2):
            for m2 in range(2):
                want[m1, d, m2] = d * 4 + m1 * 2 + m2
    np.testing.assert_array_equal(s.tile_assignment, want)


def test_open_dims_manual_axes_and_meshes():
    t = parse_tensor_sharding('#sdy.sharding<@m42, [{"b", ?}, {?}]>')
    assert t.open_dims == (0, 1)
    assert parse_manual_axes('#sdy<manual_axes{"data", "model"}>') == ("data", "model")
    assert manual_sharding(MESHES["mesh"], ["data", "model"], 2) == HloSharding.manual()
    assert str(manual_sharding(MESHES["m42"], ["b"], 2)) == (
        "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"
    )
    meshes = parse_meshes('{mesh = #sdy.mesh<["data"=2, "model"=4]>, one = #sdy.mesh<["x"=2]>}')
    assert meshes["mesh"] == MESHES["mesh"]
    assert meshes["one"].axes == (("x", 2),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('<@nowhere, [{"x"}]>', "undefined mesh"),
        ('<@mesh, [{"data"}, {"data"}]>', "used twice"),
        ('<@mesh, [{"model":(1)3}]>', "does not divide"),
        ('<@mesh, [{"bogus"}]>', "no axis"),
    ],
)
def test_conversion_errors(text, message):
    with pytest.raises(InvalidArgument, match=message):
        to_hlo_sharding(parse_tensor_sharding(text), MESHES)


MHLO = """module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}, %arg1: tensor<8x4xf32>) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]0,2,1,3}"}) {
    %0 = stablehlo.add %arg0, %arg1 {mhlo.sharding = "{devices=[1,4]<=[4]}"} : tensor<8x4xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "unspecified_dims=[1]", mhlo.sharding = "{replicated}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}"""


def test_mhlo_sharding_on_args_ops_results():
    module = parse_stablehlo(MHLO)
    entry = module.entry
    assert str(entry.parameter(0).sharding) == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    assert entry.parameter(1).sharding is None
    add = next(i for i in entry.instructions if i.opcode.value == "add")
    assert str(add.sharding) == "{devices=[1,4]<=[4]}"
    # The constraint keeps its own sharding; the result's goes on a copy of it (the root).
    root = entry.root
    assert root.opcode.value == "copy"
    assert str(root.sharding) == "{devices=[4,1]0,2,1,3}"
    constraint = root.operands[0]
    assert constraint.attrs.custom_call_target == "Sharding"
    assert str(constraint.sharding) == "{replicated}"
    assert constraint.backend_config == "unspecified_dims=[1]"
    assert module.config.num_partitions == 4


def test_bad_mhlo_sharding_is_located():
    bad = MHLO.replace('"{devices=[1,4]<=[4]}"', '"{devices=[1,4]<=[3]}"')
    with pytest.raises(XlaError, match=r":3:\d+: .*mhlo.sharding"):
        parse_stablehlo(bad)


SDY_OPS = """module @jit_f attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x4xf32>) -> tensor<8xf32> {
    %0 = stablehlo.exponential %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y", "x"}]>]>} : (tensor<8x4xf32>, tensor<f32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}"""


def test_sdy_sharding_on_ops():
    entry = parse_stablehlo(SDY_OPS).entry
    exp = next(i for i in entry.instructions if i.opcode.value == "exponential")
    assert str(exp.sharding) == "{devices=[2,4]<=[8]}"
    assert str(entry.root.sharding) == "{devices=[8]<=[2,4]T(1,0)}"


NAMED = [
    "{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}",
    "{mesh['a'=4], [{'a':(1)2}, {?}]}",
    "{mesh['a'=2,'b'=2], [{}, {}], unreduced={'a'}}",
    "{mesh['a'=2,'b'=2], replicated}",
    "{maximal_mesh[device_id=1]}",
    "{mesh['a'=2,'b'=4], [{'b'}, {}]}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], replicated={'b'}}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], manual={'b'}}",
    "{mesh['a'=2,'b'=4], [{'b','a'}, {}]}",
    "{mesh['a'=8], [{'a':(2)4}, {'a':(1)2}]}",
]


@pytest.mark.parametrize("text", NAMED)
def test_named_shardings_convert_as_xla(text):
    from jax._src.lib import xla_client as xc

    from xlapy.sharding.sdy import named_to_hlo

    want = str(xc.HloSharding.from_string(text).v3_to_v2_sharding())
    assert str(named_to_hlo(text)) == want


def test_named_shardings_in_hlo_are_resolved_before_propagation():
    from xlapy.sharding.read import import_sdy_hlo
    from xlapy.text.hlo_parser import parse_hlo

    text = (
        "HloModule m, num_partitions=4\n\nENTRY e {\n"
        "  p = f32[8,4] parameter(0), sharding={mesh['a'=2,'b'=2], [{'a'}, {'b'}]}\n"
        "  ROOT n = f32[8,4] negate(p)\n}\n"
    )
    module = parse_hlo(text)
    assert str(module.entry.parameter(0).sharding) == "{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}"
    assert import_sdy_hlo(module)
    assert str(module.entry.parameter(0).sharding) == "{devices=[2,2]<=[4]}"
