"""Regression tests for fuzzing findings about the operands of ops (``scripts/fuzz.sh``, issue
#14): each input must now work and round-trip, or raise an ``XlaError`` naming the place."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.builder.xla_builder import XlaOp
from xlapy.errors import InvalidArgument, ParseError
from xlapy.shape import Shape
from xlapy.text.hlo_printer import print_hlo
from xlapy.text.stablehlo_printer import print_stablehlo

SCALAR_SLICES = """HloModule m
ENTRY e {
  p = f32[] parameter(0)
  u = f32[] constant(2)
  d = f32[] dynamic-slice(p), dynamic_slice_sizes={}
  ROOT s = f32[] dynamic-update-slice(d, u)
}
"""


def test_builder_dynamic_slice_of_a_scalar_round_trips() -> None:
    # Found by the builder target: DynamicSlice(x, [], []) of an f32[] built a one-operand
    # dynamic-slice (valid, as in XLA) whose printed HLO the verifier refused ('[arity]: takes
    # the operand and its start indices; got 1 operand(s)').
    b = xlapy.XlaBuilder("b")
    x = ops.Parameter(b, 0, Shape.scalar(xlapy.dtypes.F32), "x")
    ops.DynamicUpdateSlice(ops.DynamicSlice(x, [], []), ops.ConstantR0(b, np.float32(2)), [])
    text = print_hlo(b.build())
    assert print_hlo(xlapy.load(text)) == text


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_scalar_dynamic_slices_load_print_and_run(platform: str) -> None:
    module = xlapy.load(SCALAR_SLICES)
    again = xlapy.load(print_stablehlo(module))
    for program in (module, again):
        assert xlapy.run(program, np.float32(5), platform=platform) == [np.float32(2)]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # 'operand, *indices = operands' was a ValueError.
        ("  ROOT d = f32[1] dynamic-slice(), dynamic_slice_sizes={1}",
         "4:19: error: dynamic-slice %d: takes the operand and its start indices; got no "
         "operands"),
        ("  p = f32[3] parameter(0)\n  ROOT d = f32[1] dynamic-slice(p), dynamic_slice_sizes={1}",
         "5:19: error: dynamic-slice %d [C2]: needs one start index per operand dimension (1); "
         "got 0 for operand f32[3]"),
    ],
)  # fmt: skip
def test_dynamic_slice_operand_counts_are_located(body: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        xlapy.load(f"HloModule m\nENTRY e {{\n  x = f32[] parameter(0)\n{body}\n}}\n")
    assert message in str(info.value)


def test_builder_dynamic_slice_needs_an_index_per_dimension() -> None:
    b = xlapy.XlaBuilder("b")
    y = ops.Parameter(b, 0, Shape.array(xlapy.dtypes.F32, (3,)), "y")
    with pytest.raises(InvalidArgument, match=r"dynamic-slice \[C2\]: needs one start index"):
        ops.DynamicSlice(y, [], [])


TRSM = """HloModule m
ENTRY e {{
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  ROOT x = f32[2,2] custom-call(a, b), custom_call_target="lapack_strsm_ffi", backend_config="{{{config}}}"
}}
"""


@pytest.mark.parametrize(
    ("config", "message"),
    [
        # Found by the mlir target: chr() of a ui8 attribute holding 2^63 - 1.
        ("diag = 9223372036854775807 : ui8, side = 76 : ui8, trans_x = 78 : ui8",
         "backend_config diag must be an ASCII character code (76 for 'L'); got "
         "9223372036854775807"),
        ("side = 300 : ui8", "backend_config side must be an ASCII character code"),
        # {'N': 0, 'T': 1, 'C': 2}['X'] was a KeyError.
        ("trans_x = 88 : ui8", "backend_config trans_x must be one of 78 ('N'), 84 ('T'), 67 "
         "('C'); got 88"),
    ],
)  # fmt: skip
def test_lapack_trsm_options_are_checked(config: str, message: str) -> None:
    module = xlapy.load(TRSM.format(config=config))
    a = np.array([[2, 0], [1, 4]], np.float32)
    with pytest.raises(InvalidArgument) as info:
        xlapy.run(module, a, a, platform="interpreter")
    assert str(info.value).startswith(f"custom-call x: {message}")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Found by the builder target: Reshape(x, x, x) iterated the XlaOp, whose refusal
        # ('XlaOp x is not iterable; index it instead') named no function.
        (lambda x: ops.Reshape(x, x, x), "Reshape: dimensions must be a sequence of ints; got "
         "XlaOp(x: f32[])"),
        (lambda x: ops.Transpose(x, x), "Transpose: permutation must be a sequence of ints"),
        (lambda x: ops.Broadcast(x, x), "Broadcast: broadcast_sizes must be a sequence of ints"),
    ],
)  # fmt: skip
def test_builder_an_op_where_ints_go_names_the_function(
    call: Callable[[XlaOp], object], message: str
) -> None:
    b = xlapy.XlaBuilder("b")
    x = ops.Parameter(b, 0, Shape.scalar(xlapy.dtypes.F32), "x")
    with pytest.raises(InvalidArgument) as info:
        call(x)
    assert str(info.value).startswith(message)
