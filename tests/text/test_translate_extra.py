"""HLO -> StableHLO for collectives, send/recv and feeds, custom calls and the test ops they
stand for, dynamic-shape ops, the constructs with no StableHLO form (Unimplemented naming the
instruction), and ``xlapy translate``. Same checks as ``test_translate_ops``: bit-identical
results through xlapy's parser and through what jaxlib's MLIR prints back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_translate_ops import HAS_JAX, mlir_reprint, round_trip, same, sample

import xlapy
from xlapy.cli import main as cli_main
from xlapy.errors import Unimplemented
from xlapy.text.stablehlo_parser import parse_stablehlo
from xlapy.text.stablehlo_printer import print_stablehlo

# ---- collectives and communication ---------------------------------------------------------------

COLLECTIVES = """HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  ar = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add
  ar2 = (f32[4], f32[4]) all-reduce(x, ar), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
  ag = f32[8] all-gather(x), replica_groups={}, dimensions={0}
  rs = f32[2] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  a2a = f32[4] all-to-all(x), replica_groups={{0,1}}, dimensions={0}
  lo = f32[2] slice(x), slice={[0:2]}
  hi = f32[2] slice(x), slice={[2:4]}
  a2t = (f32[2], f32[2]) all-to-all(lo, hi), replica_groups={{0,1}}
  cp = f32[4] collective-permute(x), source_target_pairs={{0,1},{1,0}}
  cb = f32[4] collective-broadcast(x), replica_groups={{1,0}}
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  ars = f32[4] all-reduce-start(x), replica_groups={{0,1}}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  ags = (f32[4], f32[8]) all-gather-start(x), replica_groups={{0,1}}, dimensions={0}
  agd = f32[8] all-gather-done(ags)
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  cpd = f32[4] collective-permute-done(cps)
  ROOT t = (f32[4], (f32[4], f32[4]), f32[8], f32[2], f32[4], (f32[2], f32[2]), f32[4], f32[4], u32[], u32[], f32[4], f32[8], f32[4]) tuple(ar, ar2, ag, rs, a2a, a2t, cp, cb, rid, pid, ard, agd, cpd)
}"""


def test_collectives_on_two_replicas() -> None:
    text = round_trip(COLLECTIVES, [sample("f32[4]"), sample("f32[4]", 1)])
    assert "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>" in text
    assert "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>" in text
    assert "use_global_device_ids" in text
    assert "replica_groups = dense<> : tensor<0x0xi64>" in text


def test_send_recv_infeed_outfeed() -> None:
    hlo = """HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  tok = token[] after-all()
  s = (f32[3], u32[], token[]) send(x, tok), channel_id=5
  sd = token[] send-done(s), channel_id=5
  r = (f32[3], u32[], token[]) recv(sd), channel_id=5
  rd = (f32[3], token[]) recv-done(r), channel_id=5
  y = f32[3] get-tuple-element(rd), index=0
  t2 = token[] get-tuple-element(rd), index=1
  in = ((s32[2], f32[]), token[]) infeed(t2), infeed_config="cfg"
  d = (s32[2], f32[]) get-tuple-element(in), index=0
  t3 = token[] get-tuple-element(in), index=1
  o = token[] outfeed(y, t3), outfeed_config="out", outfeed_shape=f32[3]{0}
  ROOT t = (f32[3], (s32[2], f32[])) tuple(y, d)
}"""
    queued = (np.array([7, 8], np.int32), np.array(2.5, np.float32))
    outfeeds: dict[str, list[Any]] = {}
    for reader in ("original", "printed"):
        module = (
            xlapy.load(hlo)
            if reader == "original"
            else parse_stablehlo(print_stablehlo(xlapy.load(hlo)))
        )
        outfeeds[reader] = []
        result = xlapy.run(
            module,
            sample("f32[3]"),
            infeed=[queued],
            outfeed=outfeeds[reader],
            platform="interpreter",
        )
        assert same(result, [sample("f32[3]"), *queued])
    assert same(outfeeds["original"], outfeeds["printed"])
    text = print_stablehlo(xlapy.load(hlo))
    assert '"stablehlo.send"' in text
    assert '"stablehlo.recv"' in text
    assert 'infeed_config = "cfg"' in text
    assert 'outfeed_config = "out"' in text
    if HAS_JAX:
        mlir_reprint(text)


# ---- custom calls ---------------------------------------------------------------------------------


def test_custom_call_attributes_survive() -> None:
    """Target, api version, backend config (string or typed-FFI dictionary), side effect,
    layouts, aliasing, called computations and frontend attributes read back unchanged."""
    hlo = """HloModule m
callee {
  a = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(a)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  a = (f32[2,3], s32[]) custom-call(x), custom_call_target="my.target", operand_layout_constraints={f32[2,3]{0,1}}, custom_call_has_side_effect=true, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING, backend_config="a \\"quoted\\" config", frontend_attributes={k="v"}
  b = f32[2,3] custom-call(x), custom_call_target="ffi_target", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 1 : i64}
  c = f32[2,3] custom-call(x), custom_call_target="with calls", called_computations={callee}
  ROOT t = ((f32[2,3], s32[]), f32[2,3], f32[2,3]) tuple(a, b, c)
}"""
    module = xlapy.load(hlo)
    text = print_stablehlo(module)
    again = parse_stablehlo(text)
    assert print_stablehlo(again) == text
    if HAS_JAX:
        mlir_reprint(text)
    calls = [i for i in module.instructions() if i.opcode.value == "custom-call"]
    reread = [i for i in again.instructions() if i.opcode.value == "custom-call"]
    for old, new in zip(calls, reread, strict=True):
        for key in ("custom_call_target", "api_version", "custom_call_has_side_effect",
                    "output_to_operand_aliasing", "operand_layout_constraints"):  # fmt: skip
            assert old.attrs[key] == new.attrs[key], key
        assert old.backend_config == new.backend_config
        assert old.shape == new.shape
        assert [c.name for c in old.attrs.called_computations] == [
            c.name for c in new.attrs.called_computations
        ]
    assert reread[0].frontend_attributes == {"k": "v"}
    assert 'stablehlo.custom_call @"with calls"(%arg0) {called_computations = [@callee]}' in text


def test_check_and_interpreter_ops() -> None:
    """The custom calls the StableHLO test ops lower to print back as those ops, with their
    parameters (tolerances, ULP bounds, probe ids)."""
    text = round_trip(
        """module {
  func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    %p = interpreter.probe %x, probe_id = "p0" : tensor<3xf32>
    check.expect_eq %p, %x : tensor<3xf32>
    check.expect_almost_eq %p, %x, tolerance = 0.5 : tensor<3xf32>
    check.expect_close %p, %x, max_ulp_difference = 2 : tensor<3xf32>, tensor<3xf32>
    check.expect_eq_const %x, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    stablehlo.custom_call @check.expect_almost_eq(%x, %p) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    %e = stablehlo.custom_call @check.eq(%x, %p) : (tensor<3xf32>, tensor<3xf32>) -> tensor<i1>
    return %p : tensor<3xf32>
  }
}""",
        np.array([1, 2, 3], np.float32),
    )
    assert '"interpreter.probe"(%arg0) {probe_id = "p0"}' in text
    assert '"check.expect_almost_eq"(%0, %arg0) {tolerance = 5' in text
    assert "max_ulp_difference = 2 : i64, min_ulp_difference = 0 : i64" in text
    assert "stablehlo.custom_call @check.eq(" in text


# ---- dynamic shapes --------------------------------------------------------------------------------


def test_dynamic_ops() -> None:
    round_trip(
        """module {
  func.func @main(%x: tensor<3xf32>, %n: tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<6xf32>, tensor<1x2xf32>, tensor<7xf32>, tensor<i32>, tensor<2x3xf32>) {
    %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %b = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] {known_expanding_dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    %i = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi64>
    %six = stablehlo.constant dense<[6]> : tensor<1xi64>
    %r = stablehlo.dynamic_reshape %b, %six : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
    %start = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
    %limit = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %step = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %sl = stablehlo.real_dynamic_slice %b, %start, %limit, %step : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %lo = stablehlo.constant dense<[1]> : tensor<1xi64>
    %hi = stablehlo.constant dense<[1]> : tensor<1xi64>
    %in = stablehlo.constant dense<[1]> : tensor<1xi64>
    %p = stablehlo.dynamic_pad %x, %z, %lo, %hi, %in : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<7xf32>
    %d = stablehlo.get_dimension_size %b, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
    %idx = stablehlo.constant dense<[[0], [1]]> : tensor<2x1xi64>
    %sizes = stablehlo.constant dense<[1, 3]> : tensor<2xi64>
    %g = "stablehlo.dynamic_gather"(%b, %idx, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x3xf32>
    return %b, %i, %r, %sl, %p, %d, %g : tensor<2x3xf32>, tensor<2x3xi64>, tensor<6xf32>, tensor<1x2xf32>, tensor<7xf32>, tensor<i32>, tensor<2x3xf32>
  }
}""",
        sample("f32[3]"),
        np.int32(2),
    )


def test_hlo_dynamic_reshape_gets_a_shape_tensor() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  a = s32[] constant(3)
  b = s32[] constant(4)
  ROOT r = f32[3,4] dynamic-reshape(x, a, b)
}""",
        sample("f32[2,6]"),
    )
    assert "stablehlo.dynamic_reshape %arg0, %" in text
    assert "tensor<2xi32>" in text


# ---- what has no StableHLO form --------------------------------------------------------------------

NO_FORM = {
    "igamma": "f32[4] igamma(x, x)",
    "stochastic-convert": "bf16[4] stochastic-convert(x, u)",
    "rng-get-and-update-state": "u64[2] rng-get-and-update-state(), delta=16",
    "topk": "(f32[2], s32[2]) topk(x), k=2, largest=false",
    "constant": "f32[4] constant({...})",
    "bitcast": "s16[4,2] bitcast(x)",
    "reduce-window": "f32[4] reduce-window(x, z), window={size=2 pad=0_1 rhs_reversal=1}, to_apply=add",
}


@pytest.mark.parametrize("opcode", sorted(NO_FORM))
def test_no_stablehlo_form_is_unimplemented(opcode: str) -> None:
    hlo = f"""HloModule m
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[4] parameter(0)
  u = u32[4] parameter(1)
  z = f32[] constant(0)
  ROOT bad = {NO_FORM[opcode]}
}}"""
    module = xlapy.load(hlo, verify=False)
    with pytest.raises(Unimplemented, match=f"^{opcode} bad \\[stablehlo\\]: .*; got "):
        print_stablehlo(module)


# ---- xlapy translate --------------------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "control_flow.hlo"


def test_translate_to_stablehlo_and_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "control_flow.mlir"
    assert cli_main(["translate", str(EXAMPLE), "--to", "stablehlo", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("module @jit_control_flow attributes {mhlo.num_partitions = 1 : i32")
    assert "func.func public @main(" in text
    assert cli_main(["translate", str(out), "--to", "hlo"]) == 0
    hlo = capsys.readouterr().out
    assert hlo.startswith("HloModule jit_control_flow")
    args = [sample("f32[8]"), np.int32(3)]
    original = xlapy.load(EXAMPLE)
    assert same(
        xlapy.run(xlapy.load(hlo), *args, platform="interpreter"),
        xlapy.run(original, *args, platform="interpreter"),
    )
    assert cli_main(["translate", str(EXAMPLE), "--to", "stablehlo"]) == 0
    assert capsys.readouterr().out == text


def test_translate_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["translate", str(tmp_path / "missing.hlo"), "--to", "stablehlo"]) == 2
    assert "missing.hlo: no such file" in capsys.readouterr().err
    bad = tmp_path / "igamma.hlo"
    bad.write_text(
        "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT g = f32[4] igamma(x, x)\n}\n"
    )
    assert cli_main(["translate", str(bad), "--to", "stablehlo"]) == 2
    assert "igamma g [stablehlo]: this opcode has no StableHLO form" in capsys.readouterr().err
    blocked = tmp_path / "file"
    blocked.write_text("")
    target = str(blocked / "out.mlir")
    assert cli_main(["translate", str(EXAMPLE), "--to", "stablehlo", "-o", target]) == 2
    assert "cannot be written" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["translate", str(EXAMPLE), "--to", "mhlo"])


def test_bounded_dynamic_dimensions() -> None:
    text = round_trip(
        """HloModule m
ENTRY e {
  x = f32[4,4] parameter(0)
  i = s32[] parameter(1)
  s = f32[<=4,4] set-dimension-size(x, i), dimensions={0}
  g = s32[] get-dimension-size(s), dimensions={0}
  n = f32[<=4,4] negate(s)
  ROOT t = (f32[<=4,4], s32[]) tuple(n, g)
}""",
        sample("f32[4,4]"),
        np.int32(3),
    )
    assert "tensor<?x4xf32, #stablehlo.bounds<4, ?>>" in text


def test_quantized_types_print_as_written() -> None:
    """Quantized tensor types print as ``!quant.uniform`` element types; a quantized constant
    takes the generic form with its storage integers (jaxlib has no quant dialect, so only
    xlapy reads these back)."""
    source = """module {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
    %c = "stablehlo.constant"() <{value = dense<[1, -2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
    %s = stablehlo.add %q, %c : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
    %d = stablehlo.uniform_dequantize %s : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<2xf32>
    return %d : tensor<2xf32>
  }
}"""
    text = print_stablehlo(xlapy.load(source))
    assert print_stablehlo(parse_stablehlo(text)) == text
    assert (
        "stablehlo.uniform_quantize %arg0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32"
        in text
    )
    assert (
        '"stablehlo.constant"() <{value = dense<[1, -2]> : tensor<2xi8>}> : () -> tensor<2x!quant'
        in text
    )
