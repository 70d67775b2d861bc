"""Fusion composition: INDEXING.md §5 examples and XLA's fusion tests (printed forms)."""

from __future__ import annotations

import pytest

from tests.indexing.conftest import assert_printed, parse_root
from xlapy.indexing.per_op import output_to_input

SOFTMAX = """
add_computation {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT add = f32[] add(p0, p1)
}
max_computation {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT max = f32[] maximum(p0, p1)
}
softmax {
  p0 = f32[2,65,125]{2,1,0} parameter(0)
  bitcast0 = f32[65,2,125]{2,1,0} bitcast(p0)
  constant_neg_inf_1 = f32[] constant(-inf)
  reduce0 = f32[2,65]{1,0} reduce(p0, constant_neg_inf_1), dimensions={2}, to_apply=max_computation
  bitcast1 = f32[130]{0} bitcast(reduce0)
  bcast1 = f32[130,125]{1,0} broadcast(bitcast1), dimensions={0}
  bitcast2 = f32[65,2,125]{2,1,0} bitcast(bcast1)
  subtract0 = f32[65,2,125]{2,1,0} subtract(bitcast0, bitcast2)
  exponential0 = f32[65,2,125]{2,1,0} exponential(subtract0)
  bitcast3 = f32[65,2,125]{2,1,0} bitcast(p0)
  reduce1 = f32[2,65]{1,0} reduce(p0, constant_neg_inf_1), dimensions={2}, to_apply=max_computation
  bitcast4 = f32[130]{0} bitcast(reduce1)
  bcast2 = f32[130,125]{1,0} broadcast(bitcast4), dimensions={0}
  bitcast5 = f32[65,2,125]{2,1,0} bitcast(bcast2)
  subtract1 = f32[65,2,125]{2,1,0} subtract(bitcast3, bitcast5)
  exponential1 = f32[65,2,125]{2,1,0} exponential(subtract1)
  constant_zero_1 = f32[] constant(0)
  reduce2 = f32[65,2]{1,0} reduce(exponential1, constant_zero_1), dimensions={2}, to_apply=add_computation
  bitcast6 = f32[130]{0} bitcast(reduce2)
  bcast3 = f32[130,125]{1,0} broadcast(bitcast6), dimensions={0}
  bitcast7 = f32[65,2,125]{2,1,0} bitcast(bcast3)
  divide = f32[65,2,125]{2,1,0} divide(exponential0, bitcast7)
  ROOT bitcast8 = f32[2,65,125]{2,1,0} bitcast(divide)
}
ENTRY e {
  p0 = f32[2,65,125]{2,1,0} parameter(0)
  ROOT fusion = f32[2,65,125]{2,1,0} fusion(p0), kind=kLoop, calls=softmax
}
"""

MAX = """
max {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT max = f32[] maximum(p0, p1)
}
"""


def fusion_of(body: str, params: str, shape: str, args: str, extra: str = "") -> str:
    return f"""{extra}
    f {{
    {body}
    }}
    ENTRY e {{
    {params}
      ROOT fusion = {shape} fusion({args}), kind=kLoop, calls=f
    }}"""


CASES = [
    (
        # INDEXING.md §5.1: p0 + transpose(p0) reads p0 twice.
        "tensor_plus_transposed",
        fusion_of(
            """p0 = f32[1000, 1000] parameter(0)
      transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
      ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)""",
            "p0 = f32[1000,1000] parameter(0)",
            "f32[1000,1000]",
            "p0",
        ),
        """operand id = 0
             (d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]
             (d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]""",
    ),
    (
        # INDEXING.md §5.2: both paths give the same map, deduplicated.
        "transpose_of_transpose_dedup",
        fusion_of(
            """p0 = f32[20, 10, 50] parameter(0)
      lhs_transpose_1 = f32[10, 20, 50] transpose(p0), dimensions={1, 0, 2}
      lhs_e = f32[10, 20, 50] exponential(lhs_transpose_1)
      lhs_transpose_2 = f32[10, 50, 20] transpose(lhs_e), dimensions={0, 2, 1}
      rhs_transpose_1 = f32[50, 10, 20] transpose(p0), dimensions={2, 1, 0}
      rhs_log = f32[50, 10, 20] exponential(rhs_transpose_1)
      rhs_transpose_2 = f32[10, 50, 20] transpose(rhs_log), dimensions={1, 0, 2}
      ROOT add = f32[10, 50, 20] add(lhs_transpose_2, rhs_transpose_2)""",
            "p0 = f32[20, 10, 50] parameter(0)",
            "f32[10, 50, 20]",
            "p0",
        ),
        """operand id = 0 (d0, d1, d2) -> (d2, d0, d1),
           domain: d0 in [0, 9], d1 in [0, 49], d2 in [0, 19]""",
    ),
    (
        # INDEXING.md §5.3.
        "softmax",
        SOFTMAX,
        """operand id = 0
             (d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124]
             (d0, d1, d2)[s0] -> (d0, d1, s0),
               domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124], s0 in [0, 124]""",
    ),
    (
        # INDEXING.md §6 item 5: reshape chains cancel.
        "chained_generic_reshapes",
        fusion_of(
            """p0 = f32[10, 10, 10] parameter(0)
      reshape1 = f32[50, 20] reshape(p0)
      ROOT reshape2 = f32[10, 10, 10] reshape(reshape1)""",
            "p0 = f32[10, 10, 10] parameter(0)",
            "f32[10, 10, 10]",
            "p0",
        ),
        """operand id = 0 (d0, d1, d2) -> (d0, d1, d2),
           domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]""",
    ),
    (
        "collapse_of_expand",
        fusion_of(
            """p0 = f32[128] parameter(0)
      expand = f32[8, 16] reshape(p0)
      ROOT collapse = f32[128] reshape(expand)""",
            "p0 = f32[128] parameter(0)",
            "f32[128]",
            "p0",
        ),
        "operand id = 0 (d0) -> (d0), domain: d0 in [0, 127]",
    ),
    (
        "reduce_of_reduce",
        fusion_of(
            """p0 = f32[150, 20, 10, 50] parameter(0)
      p0_init = f32[] parameter(1)
      reduce_1 = f32[20, 10] reduce(p0, p0_init), dimensions={0, 3}, to_apply=max
      ROOT reduce_2 = f32[10] reduce(reduce_1, p0_init), dimensions={0}, to_apply=max""",
            """p0 = f32[150, 20, 10, 50] parameter(0)
      p0_init = f32[] constant(-inf)""",
            "f32[10]",
            "p0, p0_init",
            MAX,
        ),
        """operand id = 0 (d0)[s0, s1, s2] -> (s0, s2, d0, s1),
             domain: d0 in [0, 9], s0 in [0, 149], s1 in [0, 49], s2 in [0, 19]
           operand id = 1 (d0) -> (), domain: d0 in [0, 9]""",
    ),
    (
        "reduce_of_broadcast",
        fusion_of(
            """p0 = f32[15, 20] parameter(0)
      p0_init = f32[] parameter(1)
      p0_bcast = f32[15, 32, 20, 64] broadcast(p0), dimensions={0, 2}
      ROOT reduce_2 = f32[15, 64] reduce(p0_bcast, p0_init), dimensions={1, 2}, to_apply=max""",
            """p0 = f32[15, 20] parameter(0)
      p0_init = f32[] constant(-inf)""",
            "f32[15, 64]",
            "p0, p0_init",
            MAX,
        ),
        """operand id = 0 (d0, d1)[s0] -> (d0, s0),
             domain: d0 in [0, 14], d1 in [0, 63], s0 in [0, 19]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 14], d1 in [0, 63]""",
    ),
    (
        "reduced_slice",
        fusion_of(
            """p0 = f32[150, 64, 1024] parameter(0)
      p0_init = f32[] parameter(1)
      p0_slice = f32[16, 32, 128] slice(f32[150, 64, 1024] p0),
                slice={[5:21:1], [0:64:2], [50:434:3]}
      ROOT reduce = f32[32] reduce(p0_slice, p0_init), dimensions={0, 2}, to_apply=max""",
            """p0 = f32[150, 64, 1024] parameter(0)
      p0_init = f32[] constant(-inf)""",
            "f32[32]",
            "p0, p0_init",
            MAX,
        ),
        """operand id = 0 (d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50),
             domain: d0 in [0, 31], s0 in [0, 15], s1 in [0, 127]
           operand id = 1 (d0) -> (), domain: d0 in [0, 31]""",
    ),
    (
        "slice_of_slice",
        fusion_of(
            """p0 = f32[150, 64, 1024] parameter(0)
      p0_slice_1 = f32[16, 32, 128] slice(f32[150, 64, 1024] p0),
                slice={[5:21:1], [0:64:2], [50:434:3]}
      ROOT p0_slice_2 = f32[7, 9, 24] slice(f32[16, 32, 128] p0_slice_1),
                slice={[3:16:2], [4:30:3], [5:100:4]}""",
            "p0 = f32[150, 64, 1024] parameter(0)",
            "f32[7, 9, 24]",
            "p0",
        ),
        """operand id = 0 (d0, d1, d2) -> (d0 * 2 + 8, d1 * 6 + 8, d2 * 12 + 65),
           domain: d0 in [0, 6], d1 in [0, 8], d2 in [0, 23]""",
    ),
    (
        "slice_of_all_concatenate_inputs",
        fusion_of(
            """p0 = f32[2, 5, 7] parameter(0)
      p1 = f32[2, 11, 7] parameter(1)
      p2 = f32[2, 17, 7] parameter(2)
      concat = f32[2, 33, 7] concatenate(p0, p1, p2), dimensions={1}
      ROOT slice = f32[2, 11, 7] slice(concat), slice={[0:2:1], [0:33:3], [0:7:1]}""",
            """p0 = f32[2, 5, 7] parameter(0)
      p1 = f32[2, 11, 7] parameter(1)
      p2 = f32[2, 17, 7] parameter(2)""",
            "f32[2, 11, 7]",
            "p0, p1, p2",
        ),
        """operand id = 0 (d0, d1, d2) -> (d0, d1 * 3, d2),
             domain: d0 in [0, 1], d1 in [0, 1], d2 in [0, 6]
           operand id = 1 (d0, d1, d2) -> (d0, d1 * 3 - 5, d2),
             domain: d0 in [0, 1], d1 in [2, 5], d2 in [0, 6]
           operand id = 2 (d0, d1, d2) -> (d0, d1 * 3 - 16, d2),
             domain: d0 in [0, 1], d1 in [6, 10], d2 in [0, 6]""",
    ),
    (
        "slice_of_one_concatenate_input",
        fusion_of(
            """p0 = f32[2, 5, 7] parameter(0)
      p1 = f32[2, 11, 7] parameter(1)
      p2 = f32[2, 17, 7] parameter(2)
      concat = f32[2, 33, 7] concatenate(p0, p1, p2), dimensions={1}
      ROOT slice = f32[2, 3, 7] slice(concat), slice={[0:2:1], [0:5:2], [0:7:1]}""",
            """p0 = f32[2, 5, 7] parameter(0)
      p1 = f32[2, 11, 7] parameter(1)
      p2 = f32[2, 17, 7] parameter(2)""",
            "f32[2, 3, 7]",
            "p0, p1, p2",
        ),
        """operand id = 0 (d0, d1, d2) -> (d0, d1 * 2, d2),
             domain: d0 in [0, 1], d1 in [0, 2], d2 in [0, 6]
           operand id = 1 KNOWN EMPTY
           operand id = 2 KNOWN EMPTY""",
    ),
    (
        "reshape_of_concat",
        fusion_of(
            """p0 = f32[2] parameter(0)
      p1 = f32[30] parameter(1)
      concat = f32[32] concatenate(p0, p1), dimensions={0}
      ROOT reshape = f32[4, 8] reshape(concat)""",
            """p0 = f32[2] parameter(0)
      p1 = f32[30] parameter(1)""",
            "f32[4, 8]",
            "p0, p1",
        ),
        """operand id = 0 (d0, d1) -> (d0 * 8 + d1),
             domain: d0 in [0, 3], d1 in [0, 7], d0 * 8 + d1 in [0, 1]
           operand id = 1 (d0, d1) -> (d0 * 8 + d1 - 2),
             domain: d0 in [0, 3], d1 in [0, 7], d0 * 8 + d1 in [2, 31]""",
    ),
    (
        "reverse_reshape",
        fusion_of(
            """p0 = f32[10, 11] parameter(0)
      reverse.0 = f32[10, 11] reverse(p0), dimensions={0, 1}
      reshape.0 = f32[110] reshape(reverse.0)
      reverse.1 = f32[110] reverse(reshape.0), dimensions={0}
      ROOT reshape.1 = f32[10, 11] reshape(reverse.1)""",
            "p0 = f32[10, 11] parameter(0)",
            "f32[10, 11]",
            "p0",
        ),
        "operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 10]",
    ),
    (
        "exponential_duplication",
        fusion_of(
            """p0 = f32[4] parameter(0)
      p1 = f32[4] parameter(1)
      add0 = f32[4] add(p0, p1)
      slice1.0 = f32[3] slice(add0), slice={[0:3]}
      slice1.1 = f32[3] slice(add0), slice={[1:4]}
      add1 = f32[3]{0} add(slice1.0, slice1.1)
      slice2.0 = f32[2] slice(add1), slice={[0:2]}
      slice2.1 = f32[2] slice(add1), slice={[1:3]}
      ROOT add2 = f32[2] add(slice2.0, slice2.1)""",
            """p0 = f32[4] parameter(0)
      p1 = f32[4] parameter(1)""",
            "f32[2]",
            "p0, p1",
        ),
        """operand id = 0
             (d0) -> (d0), domain: d0 in [0, 1]
             (d0) -> (d0 + 1), domain: d0 in [0, 1]
             (d0) -> (d0 + 2), domain: d0 in [0, 1]
           operand id = 1
             (d0) -> (d0), domain: d0 in [0, 1]
             (d0) -> (d0 + 1), domain: d0 in [0, 1]
             (d0) -> (d0 + 2), domain: d0 in [0, 1]""",
    ),
    (
        # The outer slice's offsets are rt0, rt1 (XLA's listing order; test_runtime_vars.py
        # has XLA's own text); the inner slice's keep the constraints bounding its indices.
        "dynamic_slice_of_dynamic_slice",
        fusion_of(
            """%src = s32[150, 64] parameter(0)
      %of11 = s32[] parameter(1)
      %of12 = s32[] parameter(2)
      %of21 = s32[] parameter(3)
      %of22 = s32[] parameter(4)
      %ds1 = s32[50, 32] dynamic-slice(%src, %of11, %of12), dynamic_slice_sizes={50, 32}
      ROOT %ds2 = s32[25, 16] dynamic-slice(%ds1, %of21, %of22), dynamic_slice_sizes={25, 16}""",
            """%p0 = s32[150, 64] parameter(0)
      %p1 = s32[] parameter(1)
      %p2 = s32[] parameter(2)
      %p3 = s32[] parameter(3)
      %p4 = s32[] parameter(4)""",
            "s32[25, 16]",
            "p0, p1, p2, p3, p4",
        ),
        """operand id = 0
             (d0, d1){rt0, rt1, rt2, rt3} -> (d0 + rt0 + rt2, d1 + rt1 + rt3),
             domain: d0 in [0, 24], d1 in [0, 15],
               rt0 in [0, 25], rt1 in [0, 16], rt2 in [0, 100], rt3 in [0, 32]
             runtime variables:
             rt0: %of21 = s32[] parameter(3); (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
             rt1: %of22 = s32[] parameter(4); (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
             rt2: %of11 = s32[] parameter(1); (d0, d1){rt0, rt1} -> (),
               domain: d0 in [0, 24], d1 in [0, 15], rt0 in [0, 25], rt1 in [0, 16],
               d0 + rt0 in [0, 49], d1 + rt1 in [0, 31]
             rt3: %of12 = s32[] parameter(2); (d0, d1){rt0, rt1} -> (),
               domain: d0 in [0, 24], d1 in [0, 15], rt0 in [0, 25], rt1 in [0, 16],
               d0 + rt0 in [0, 49], d1 + rt1 in [0, 31]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
           operand id = 2 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
           operand id = 3 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]
           operand id = 4 (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]""",
    ),
    (
        "constant_offset_is_folded",
        """fused_computation {
        p0 = s32[4096] parameter(0)
        offset = s64[] constant(42)
        ROOT dynamic-slice = s32[10] dynamic-slice(p0, offset), dynamic_slice_sizes={10}
      }
      ENTRY main {
        p0 = s32[4096] parameter(0)
        ROOT fusion = s32[10] fusion(p0), kind=kInput, calls=fused_computation
      }""",
        "operand id = 0 (d0) -> (d0 + 42), domain: d0 in [0, 9]",
    ),
    (
        "constant_offset_out_of_range_is_kept",
        """fused_computation {
        p0 = s32[100] parameter(0)
        offset = s64[] constant(99)
        ROOT dynamic-slice = s32[10] dynamic-slice(p0, offset), dynamic_slice_sizes={10}
      }
      ENTRY main {
        p0 = s32[100] parameter(0)
        ROOT fusion = s32[10] fusion(p0), kind=kInput, calls=fused_computation
      }""",
        """operand id = 0 (d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 90]
           runtime variables:
           rt0: %offset = s64[] constant(99); (d0) -> (), domain: d0 in [0, 9]""",
    ),
    (
        # XLA substitutes the iota here, although iota values 33..41 are clamped to 32;
        # xlapy keeps the runtime variable because the iota leaves the feasible range
        # (--match-xla substitutes it: test_runtime_vars.py).
        "iota_offset_out_of_range_is_kept",
        """fused_computation {
        p0 = f32[33,76] parameter(0)
        iota = s64[42,1] iota(), iota_dimension=0
        ROOT gather = f32[42,1,1] gather(p0, iota), offset_dims={1,2},
          collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,1}
      }
      ENTRY main {
        p0 = f32[33,76] parameter(0)
        ROOT fusion = f32[42,1,1] fusion(p0), kind=kInput, calls=fused_computation
      }""",
        """operand id = 0 (d0, d1, d2){rt0} -> (rt0, 0),
             domain: d0 in [0, 41], d1 in [0, 0], d2 in [0, 0], rt0 in [0, 32]
           runtime variables:
           rt0: %iota = s64[42,1]{1,0} iota(); (d0, d1, d2) -> (d0, 0),
             domain: d0 in [0, 41], d1 in [0, 0], d2 in [0, 0]""",
    ),
    (
        "iota_offset_is_folded",
        """fused_computation {
        p0 = f32[33,76] parameter(0)
        iota = s64[30,1] iota(), iota_dimension=0
        ROOT gather = f32[30,1,1] gather(p0, iota), offset_dims={1,2},
          collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,1}
      }
      ENTRY main {
        p0 = f32[33,76] parameter(0)
        ROOT fusion = f32[30,1,1] fusion(p0), kind=kInput, calls=fused_computation
      }""",
        """operand id = 0 (d0, d1, d2) -> (d0, 0),
             domain: d0 in [0, 29], d1 in [0, 0], d2 in [0, 0]""",
    ),
    (
        "pad_and_dynamic_slice",
        """fused_computation {
        bitcast = s32[1,4096]{1,0} parameter(0)
        constant = s32[] constant(0)
        pad = s32[1,8192]{1,0} pad(bitcast, constant), padding=0_0x4096_0
        slice = s32[1]{0} parameter(1)
        bitcast.4 = s32[] bitcast(slice)
        ROOT dynamic-slice = s32[1,4096]{1,0} dynamic-slice(pad, constant, bitcast.4),
          dynamic_slice_sizes={1,4096}
      }
      ENTRY main {
        param_0 = s32[1,4096]{1,0} parameter(0)
        param_1 = s32[1]{0} parameter(1)
        ROOT fusion = s32[1,4096]{1,0} fusion(param_0, param_1), kind=kInput,
          calls=fused_computation
      }""",
        """operand id = 0
             (d0, d1){rt0} -> (0, d1 + rt0 - 4096),
             domain: d0 in [0, 0], d1 in [0, 4095], rt0 in [0, 4096], d1 + rt0 in [4096, 8191]
             runtime variables:
             rt0: %bitcast.4 = s32[] bitcast(%slice); (d0, d1) -> (),
               domain: d0 in [0, 0], d1 in [0, 4095]
           operand id = 1 (d0, d1) -> (0), domain: d0 in [0, 0], d1 in [0, 4095]""",
    ),
    (
        "with_unsupported_op",
        fusion_of(
            """p0 = f32[20, 20] parameter(0)
      p1 = f32[4,4] parameter(1)
      p2 = f32[4,3] parameter(2)
      lhs = f32[4,3] triangular-solve(f32[4,4] p1, f32[4,3] p2),
        left_side=true, lower=true, transpose_a=NO_TRANSPOSE, unit_diagonal=true
      rhs = f32[4, 3] slice(f32[20, 20] p0), slice={[0:20:6], [0:5:2]}
      ROOT add = f32[4, 3] add(lhs, rhs)""",
            """p0 = f32[20, 20] parameter(0)
      p1 = f32[4, 4] parameter(1)
      p2 = f32[4, 3] parameter(2)""",
            "f32[4, 3]",
            "p0, p1, p2",
        ),
        """operand id = 0 (d0, d1) -> (d0 * 6, d1 * 2), domain: d0 in [0, 3], d1 in [0, 2]
           operand id = 1 unknown indexing
           operand id = 2 unknown indexing""",
    ),
    (
        "multi_output_fusion_through_tuple",
        fusion_of(
            """p0 = f32[4, 6] parameter(0)
      t = f32[6, 4] transpose(p0), dimensions={1, 0}
      n = f32[4, 6] negate(p0)
      ROOT tuple = (f32[6, 4], f32[4, 6]) tuple(t, n)""",
            "p0 = f32[4, 6] parameter(0)",
            "(f32[6, 4], f32[4, 6])",
            "p0",
        ),
        "operand id = 0 (d0, d1) -> (d1, d0), domain: d0 in [0, 5], d1 in [0, 3]",
    ),
    (
        "variadic_reduce_through_get_tuple_element",
        """add {
          a0 = f32[] parameter(0)
          a1 = s32[] parameter(1)
          b0 = f32[] parameter(2)
          b1 = s32[] parameter(3)
          sum0 = f32[] add(a0, b0)
          sum1 = s32[] add(a1, b1)
          ROOT t = (f32[], s32[]) tuple(sum0, sum1)
        }
        f {
          p0 = f32[8, 5] parameter(0)
          p1 = s32[8, 5] parameter(1)
          c0 = f32[] constant(0)
          c1 = s32[] constant(0)
          r = (f32[5], s32[5]) reduce(p0, p1, c0, c1), dimensions={0}, to_apply=add
          ROOT g = s32[5] get-tuple-element(r), index=1
        }
        ENTRY e {
          p0 = f32[8, 5] parameter(0)
          p1 = s32[8, 5] parameter(1)
          ROOT fusion = s32[5] fusion(p0, p1), kind=kLoop, calls=f
        }""",
        """operand id = 0 (d0)[s0] -> (s0, d0), domain: d0 in [0, 4], s0 in [0, 7]
           operand id = 1 (d0)[s0] -> (s0, d0), domain: d0 in [0, 4], s0 in [0, 7]""",
    ),
]


@pytest.mark.parametrize(("name", "hlo", "expected"), CASES, ids=[c[0] for c in CASES])
def test_fusion(name: str, hlo: str, expected: str) -> None:
    assert_printed(output_to_input(parse_root(hlo)).to_string(), expected)


def test_multi_output_fusion_second_output() -> None:
    hlo = CASES[[c[0] for c in CASES].index("multi_output_fusion_through_tuple")][1]
    assert_printed(
        output_to_input(parse_root(hlo), 1).to_string(),
        "operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 5]",
    )
