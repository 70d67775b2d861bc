"""stablehlo.custom_call with one tuple-typed result, as XLA's HLO -> StableHLO conversion writes
multi-result calls (JAX's LAPACK kernels), and located errors for layout lists that do not fit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import xlapy
from xlapy.errors import InvalidArgument
from xlapy.ir.opcode import Opcode
from xlapy.text.stablehlo_parser import parse_stablehlo

TUPLE = "tuple<tensor<3x3xf32>, tensor<3xi32>, tensor<i32>>"


def _program(result_layouts: str) -> str:
    # The call as jax.jit(lu_factor).lower(...).compiler_ir("hlo") converted to StableHLO.
    return f"""func.func @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>) {{
      %0 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {{api_version = 4 : i32,
        backend_config = {{}}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
        output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0],
          operand_index = 0, operand_tuple_indices = []>],
        result_layouts = [{result_layouts}]}} : (tensor<3x3xf32>) -> {TUPLE}
      %1 = stablehlo.get_tuple_element %0[0] : ({TUPLE}) -> tensor<3x3xf32>
      %2 = stablehlo.get_tuple_element %0[1] : ({TUPLE}) -> tensor<3xi32>
      return %1, %2 : tensor<3x3xf32>, tensor<3xi32>
    }}"""


LAYOUTS = "dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>"


def test_a_tuple_result_is_the_tuple_shaped_call_and_runs() -> None:
    module = parse_stablehlo(_program(LAYOUTS))
    call = module.entry.root.operands[0].operands[0]
    assert call.opcode is Opcode.CUSTOM_CALL
    assert call.shape.to_hlo() == "(f32[3,3]{0,1}, s32[3]{0}, s32[])"
    a = np.array([[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [8.0, 7.0, 9.0]], np.float32)
    lu, pivots = xlapy.run(module, a, platform="interpreter")
    want_lu, want_pivots = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu, want_lu, rtol=1e-6)
    assert pivots.tolist() == (want_pivots + 1).tolist()  # LAPACK's 1-based pivots


@pytest.mark.parametrize(
    ("layouts", "message"),
    [
        ("dense<[0, 1]> : tensor<2xindex>", "result_layouts has 1 entries; the custom_call has 3 "
         "tuple elements"),
        ("dense<[0, 2]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>",
         r"result_layouts\[0\] must be a permutation of the 2 dimensions"),
    ],
)  # fmt: skip
def test_layouts_that_do_not_fit_are_located_errors(layouts: str, message: str) -> None:
    with pytest.raises(InvalidArgument, match=rf"<string>:2:\d+: error: .*{message}"):
        parse_stablehlo(_program(layouts))
