"""Printed maps for XLA-style HLO snippets of every op (XLA's indexing_analysis_test form).

Where xlapy is deliberately more precise than XLA the expectation says so in a comment.
"""

from __future__ import annotations

import pytest

from tests.indexing.conftest import assert_printed, parse_root
from xlapy.indexing.per_op import input_to_output, output_to_input

MAX = """
max {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT max = f32[] maximum(p0, p1)
}
"""

O2I = [
    (
        "elementwise",
        """ENTRY e {
          p0 = f32[10, 20] parameter(0)
          p1 = f32[10, 20] parameter(1)
          ROOT add0 = f32[10, 20] add(p0, p1)
        }""",
        """operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]
           operand id = 1 (d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]""",
    ),
    (
        "map",
        """mapper {
          a = f32[] parameter(0)
          b = f32[] parameter(1)
          ROOT add = f32[] add(a, b)
        }
        ENTRY e {
          p0 = f32[10, 20] parameter(0)
          p1 = f32[10, 20] parameter(1)
          ROOT add0 = f32[10, 20] map(%p0, %p1), dimensions={}, to_apply=mapper
        }""",
        """operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]
           operand id = 1 (d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]""",
    ),
    (
        "select_scalar_predicate",
        """ENTRY e {
          p0 = pred[] parameter(0)
          p1 = f32[1000, 1000] parameter(1)
          p2 = f32[1000, 1000] parameter(2)
          ROOT select = f32[1000, 1000] select(p0, p1, p2)
        }""",
        """operand id = 0 (d0, d1) -> (), domain: d0 in [0, 999], d1 in [0, 999]
           operand id = 1 (d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]
           operand id = 2 (d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]""",
    ),
    (
        "clamp_scalar_bounds",
        """ENTRY e {
          lo = f32[] parameter(0)
          x = f32[4, 5] parameter(1)
          hi = f32[] parameter(2)
          ROOT c = f32[4, 5] clamp(lo, x, hi)
        }""",
        """operand id = 0 (d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 4]
           operand id = 1 (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 4]
           operand id = 2 (d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 4]""",
    ),
    (
        "broadcast",
        """ENTRY e {
          p0 = f32[20] parameter(0)
          ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
        }""",
        """operand id = 0 (d0, d1, d2) -> (d1),
           domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]""",
    ),
    (
        "transpose",
        """ENTRY e {
          p0 = f32[3, 12288, 6, 128] parameter(0)
          ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
        }""",
        """operand id = 0 (d0, d1, d2, d3) -> (d0, d3, d1, d2),
           domain: d0 in [0, 2], d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]""",
    ),
    (
        "reverse",
        """ENTRY e {
          p0 = f32[1, 17, 9, 9] parameter(0)
          ROOT reverse = f32[1, 17, 9, 9] reverse(p0), dimensions={1, 2}
        }""",
        """operand id = 0 (d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),
           domain: d0 in [0, 0], d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]""",
    ),
    (
        "reduce",
        MAX
        + """ENTRY e {
          p0 = f32[150, 20, 10, 50] parameter(0)
          p0_init = f32[] constant(-inf)
          ROOT reduce = f32[150, 10] reduce(p0, p0_init), dimensions={3, 1}, to_apply=max
        }""",
        """operand id = 0 (d0, d1)[s0, s1] -> (d0, s0, d1, s1),
             domain: d0 in [0, 149], d1 in [0, 9], s0 in [0, 19], s1 in [0, 49]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 149], d1 in [0, 9]""",
    ),
    (
        "slice",
        """ENTRY e {
          p0 = f32[10, 20, 50] parameter(0)
          ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0),
            slice={[5:10:1], [3:20:7], [0:50:2]}
        }""",
        """operand id = 0 (d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),
           domain: d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]""",
    ),
    (
        "reshape_collapse",
        """ENTRY e {
          p0 = f32[4,8] parameter(0)
          ROOT reshape = f32[32] reshape(p0)
        }""",
        "operand id = 0 (d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]",
    ),
    (
        "reshape_expand",
        """ENTRY e {
          p0 = f32[32] parameter(0)
          ROOT reshape = f32[4, 8] reshape(p0)
        }""",
        "operand id = 0 (d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]",
    ),
    (
        "reshape_expand_and_collapse",
        """ENTRY e {
          p0 = f32[4, 8, 12] parameter(0)
          ROOT reshape = f32[32, 3, 4] reshape(p0)
        }""",
        """operand id = 0 (d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),
           domain: d0 in [0, 31], d1 in [0, 2], d2 in [0, 3]""",
    ),
    (
        "reshape_expand_subshape",
        """ENTRY e {
          p0 = f32[16, 8] parameter(0)
          ROOT reshape = f32[4, 4, 8] reshape(p0)
        }""",
        """operand id = 0 (d0, d1, d2) -> (d0 * 4 + d1, d2),
           domain: d0 in [0, 3], d1 in [0, 3], d2 in [0, 7]""",
    ),
    (
        # INDEXING.md §4.8.3 example 1; the seed's form simplifies to this (see test_seed).
        "reshape_generic_2d_to_3d",
        """ENTRY e {
          p0 = f32[4,8] parameter(0)
          ROOT reshape = f32[2, 4, 4] reshape(p0)
        }""",
        """operand id = 0 (d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, (d1 mod 2) * 4 + d2),
           domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]""",
    ),
    (
        "reshape_generic_3d_to_2d",
        """ENTRY e {
          p0 = f32[2, 4, 4] parameter(0)
          ROOT reshape = f32[4, 8] reshape(p0)
        }""",
        """operand id = 0 (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 2 + d1 floordiv 4, d1 mod 4),
           domain: d0 in [0, 3], d1 in [0, 7]""",
    ),
    (
        "bitcast_is_reshape",
        """ENTRY e {
          p0 = f32[4, 32] parameter(0)
          ROOT bitcast = f32[4, 8, 4] bitcast(p0)
        }""",
        """operand id = 0 (d0, d1, d2) -> (d0, d1 * 4 + d2),
           domain: d0 in [0, 3], d1 in [0, 7], d2 in [0, 3]""",
    ),
    (
        "bitcast_preserves_size1_dims",
        """ENTRY e {
          p0 = f32[32] parameter(0)
          ROOT bitcast = f32[1, 32] bitcast(p0)
        }""",
        "operand id = 0 (d0, d1) -> (d0 * 32 + d1), domain: d0 in [0, 0], d1 in [0, 31]",
    ),
    (
        "bitcast_is_transpose",
        """ENTRY e {
          p0 = f32[3, 12288, 6, 128] parameter(0)
          ROOT bitcast = f32[3, 6, 128, 12288] {2, 1, 3, 0} bitcast(p0)
        }""",
        """operand id = 0 (d0, d1, d2, d3) -> (d0, d3, d1, d2),
           domain: d0 in [0, 2], d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]""",
    ),
    (
        "bitcast_transpose_reshape_transpose",
        """ENTRY e {
          p0 = f32[16, 17, 3] parameter(0)
          ROOT bitcast = f32[51, 16] {0, 1} bitcast(p0)
        }""",
        """operand id = 0 (d0, d1) -> (d1, d0 floordiv 3, d0 mod 3),
           domain: d0 in [0, 50], d1 in [0, 15]""",
    ),
    (
        "concatenate",
        """ENTRY e {
          p0 = f32[2, 5, 7] parameter(0)
          p1 = f32[2, 11, 7] parameter(1)
          p2 = f32[2, 17, 7] parameter(2)
          ROOT concat = f32[2, 33, 7] concatenate(
            f32[2, 5, 7] p0, f32[2, 11, 7] p1, f32[2, 17, 7] p2), dimensions={1}
        }""",
        """operand id = 0 (d0, d1, d2) -> (d0, d1, d2),
             domain: d0 in [0, 1], d1 in [0, 4], d2 in [0, 6]
           operand id = 1 (d0, d1, d2) -> (d0, d1 - 5, d2),
             domain: d0 in [0, 1], d1 in [5, 15], d2 in [0, 6]
           operand id = 2 (d0, d1, d2) -> (d0, d1 - 16, d2),
             domain: d0 in [0, 1], d1 in [16, 32], d2 in [0, 6]""",
    ),
    (
        # XLA prints one map ``(d0, d1) -> ()`` over the whole output for the padding value;
        # xlapy lists the padding regions exactly (one map per region).
        "pad",
        """ENTRY e {
          p0 = f32[4, 4] parameter(0)
          p1 = f32[] parameter(1)
          ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
        }""",
        """operand id = 0 (d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),
             domain: d0 in [1, 7], d1 in [4, 7], (d0 - 1) mod 2 in [0, 0]
           operand id = 1
             (d0, d1) -> (), domain: d0 in [0, 0], d1 in [0, 15]
             (d0, d1) -> (), domain: d0 in [0, 11], d1 in [0, 3]
             (d0, d1) -> (), domain: d0 in [0, 11], d1 in [8, 15]
             (d0, d1) -> (), domain: d0 in [1, 7], d1 in [0, 15], (d0 + 1) mod 2 in [1, 1]
             (d0, d1) -> (), domain: d0 in [8, 11], d1 in [0, 15]""",
    ),
    (
        "pad_negative",
        """ENTRY e {
          p0 = f32[7] parameter(0)
          p1 = f32[] parameter(1)
          ROOT pad = f32[5] pad(p0, p1), padding=-3_-5_1
        }""",
        """operand id = 0 (d0) -> ((d0 + 3) floordiv 2),
             domain: d0 in [0, 4], (d0 + 3) mod 2 in [0, 0]
           operand id = 1 (d0) -> (), domain: d0 in [0, 4], (d0 + 1) mod 2 in [1, 1]""",
    ),
    (
        "reduce_window_no_padding",
        MAX
        + """ENTRY e {
          c_inf = f32[] constant(-inf)
          p0 = f32[1024, 514]parameter(0)
          ROOT reduce-window = f32[1024, 3] reduce-window(p0, c_inf),
            window={size=1x512 pad=0_0x0_0}, to_apply=max
        }""",
        """operand id = 0 (d0, d1)[s0] -> (d0, d1 + s0),
             domain: d0 in [0, 1023], d1 in [0, 2], s0 in [0, 511]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 1023], d1 in [0, 2]""",
    ),
    (
        "reduce_window_padding_and_stride",
        MAX
        + """ENTRY e {
          c_inf = f32[] constant(-inf)
          p0 = f32[13, 17] parameter(0)
          ROOT reduce-window = f32[7, 17] reduce-window(p0, c_inf),
           window={size=3x2 stride=2x1 pad=1_1x0_1}, to_apply=max
        }""",
        """operand id = 0 (d0, d1)[s0, s1] -> (d0 * 2 + s0 - 1, d1 + s1),
             domain: d0 in [0, 6], d1 in [0, 16], s0 in [0, 2], s1 in [0, 1],
             d0 * 2 + s0 in [1, 13], d1 + s1 in [0, 16]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 6], d1 in [0, 16]""",
    ),
    (
        "reduce_window_base_dilation",
        MAX
        + """ENTRY e {
          c_inf = f32[] constant(-inf)
          p0 = f32[2, 3] parameter(0)
          ROOT reduce-window = f32[3, 5] reduce-window(p0, c_inf),
           window={size=1x1 pad=0_0x0_0 lhs_dilate=2x2}, to_apply=max
        }""",
        """operand id = 0 (d0, d1) -> (d0 floordiv 2, d1 floordiv 2),
             domain: d0 in [0, 2], d1 in [0, 4], d0 mod 2 in [0, 0], d1 mod 2 in [0, 0]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 2], d1 in [0, 4]""",
    ),
    (
        "reduce_window_window_dilation",
        MAX
        + """ENTRY e {
          c_inf = f32[] constant(-inf)
          p0 = f32[7, 3] parameter(0)
          ROOT reduce-window = f32[4, 3] reduce-window(p0, c_inf),
           window={size=2x1 pad=0_0x0_0 rhs_dilate=3x1}, to_apply=max
        }""",
        """operand id = 0 (d0, d1)[s0] -> (d0 + s0 * 3, d1),
             domain: d0 in [0, 3], d1 in [0, 2], s0 in [0, 1]
           operand id = 1 (d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 2]""",
    ),
    (
        "dot",
        """ENTRY e {
          p0 = f32[4, 38, 17, 11, 18, 10] parameter(0)
          p1 = f32[17, 10, 16, 18, 22, 38] parameter(1)
          ROOT dot = f32[10, 38, 4, 11, 16, 22] dot(p0, p1),
            lhs_batch_dims={5,1}, rhs_batch_dims={1,5},
            lhs_contracting_dims={4,2}, rhs_contracting_dims={3,0}
        }""",
        """operand id = 0 (d0, d1, d2, d3, d4, d5)[s0, s1] -> (d2, d1, s1, d3, s0, d0),
             domain: d0 in [0, 9], d1 in [0, 37], d2 in [0, 3], d3 in [0, 10], d4 in [0, 15],
             d5 in [0, 21], s0 in [0, 17], s1 in [0, 16]
           operand id = 1 (d0, d1, d2, d3, d4, d5)[s0, s1] -> (s1, d0, d4, s0, d5, d1),
             domain: d0 in [0, 9], d1 in [0, 37], d2 in [0, 3], d3 in [0, 10], d4 in [0, 15],
             d5 in [0, 21], s0 in [0, 17], s1 in [0, 16]""",
    ),
    (
        "convolution_no_padding",
        """ENTRY e {
          p0 = f32[1,12,10,4] parameter(0)
          p1 = f32[4,3,5,8] parameter(1)
          ROOT conv = f32[1,10,6,8] convolution(p0, p1),
            window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f
        }""",
        """operand id = 0 (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 + s1, s2),
             domain: d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]
           operand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
             domain: d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]""",
    ),
    (
        # XLA's kernel map has no constraints; xlapy drops kernel elements that only meet
        # padding (they do not affect the output).
        "convolution_padding_and_stride",
        """ENTRY e {
          p0 = f32[1,12,10,4] parameter(0)
          p1 = f32[4,3,5,8] parameter(1)
          ROOT conv = f32[1,6,5,8] convolution(p0, p1),
            window={size=3x5 stride=2x2 pad=1_1x2_2}, dim_labels=b01f_i01o->b01f
        }""",
        """operand id = 0
             (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 * 2 + s0 - 1, d2 * 2 + s1 - 2, s2),
             domain: d0 in [0, 0], d1 in [0, 5], d2 in [0, 4], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3],
             d1 * 2 + s0 in [1, 12], d2 * 2 + s1 in [2, 11]
           operand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
             domain: d0 in [0, 0], d1 in [0, 5], d2 in [0, 4], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3],
             d1 * 2 + s0 in [1, 12], d2 * 2 + s1 in [2, 11]""",
    ),
    (
        "convolution_lhs_dilation",
        """ENTRY e {
          p0 = f32[1,12,10,4] parameter(0)
          p1 = f32[4,3,5,8] parameter(1)
          ROOT conv = f32[1,21,15,8] convolution(p0, p1),
            window={size=3x5 pad=0_0x0_0 lhs_dilate=2x2}, dim_labels=b01f_i01o->b01f
        }""",
        """operand id = 0
             (d0, d1, d2, d3)[s0, s1, s2] -> (d0, (d1 + s0) floordiv 2, (d2 + s1) floordiv 2, s2),
             domain: d0 in [0, 0], d1 in [0, 20], d2 in [0, 14], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3],
             (d1 + s0) mod 2 in [0, 0], (d2 + s1) mod 2 in [0, 0]
           operand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
             domain: d0 in [0, 0], d1 in [0, 20], d2 in [0, 14], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3],
             (d1 + s0) mod 2 in [0, 0], (d2 + s1) mod 2 in [0, 0]""",
    ),
    (
        "convolution_rhs_dilation",
        """ENTRY e {
          p0 = f32[1,12,10,4] parameter(0)
          p1 = f32[4,3,5,8] parameter(1)
          ROOT conv = f32[1,8,2,8] convolution(p0, p1),
            window={size=3x5 pad=0_0x0_0 rhs_dilate=2x2}, dim_labels=b01f_i01o->b01f
        }""",
        """operand id = 0 (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0 * 2, d2 + s1 * 2, s2),
             domain: d0 in [0, 0], d1 in [0, 7], d2 in [0, 1], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]
           operand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
             domain: d0 in [0, 0], d1 in [0, 7], d2 in [0, 1], d3 in [0, 7],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]""",
    ),
    (
        "convolution_feature_groups",
        """ENTRY e {
          p0 = f32[1,12,10,24] parameter(0)
          p1 = f32[4,3,5,48] parameter(1)
          ROOT conv = f32[1,10,6,48] convolution(p0, p1),
            window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f, feature_group_count=6
        }""",
        """operand id = 0
             (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 + s1, (d3 floordiv 8) * 4 + s2),
             domain: d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 47],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]
           operand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
             domain: d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 47],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]""",
    ),
    (
        # XLA reads every batch group (a range variable s3); xlapy reads the group of the
        # output feature (output features are split into batch_group_count groups).
        "convolution_batch_groups",
        """ENTRY e {
          p0 = f32[14,12,10,4] parameter(0)
          p1 = f32[4,3,5,21] parameter(1)
          ROOT conv = f32[2,10,6,21] convolution(p0, p1),
            window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f, batch_group_count=7
        }""",
        """operand id = 0
             (d0, d1, d2, d3)[s0, s1, s2] -> ((d3 floordiv 3) * 2 + d0, d1 + s0, d2 + s1, s2),
             domain: d0 in [0, 1], d1 in [0, 9], d2 in [0, 5], d3 in [0, 20],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]
           operand id = 1 (d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3),
             domain: d0 in [0, 1], d1 in [0, 9], d2 in [0, 5], d3 in [0, 20],
             s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]""",
    ),
    (
        "dynamic_slice",
        """ENTRY e {
          %src = s32[2,2,258] parameter(0)
          %of1 = s32[] parameter(1)
          %of2 = s32[] parameter(2)
          %of3 = s32[] parameter(3)
          ROOT %ds = s32[1,2,32] dynamic-slice(s32[2,2,258] %src,
            s32[] %of1, s32[] %of2, s32[] %of3), dynamic_slice_sizes={1, 2, 32}
        }""",
        """operand id = 0
             (d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2),
             domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31],
             rt0 in [0, 1], rt1 in [0, 0], rt2 in [0, 226]
             runtime variables:
             rt0: %of1 = s32[] parameter(1); (d0, d1, d2) -> (),
               domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
             rt1: %of2 = s32[] parameter(2); (d0, d1, d2) -> (),
               domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
             rt2: %of3 = s32[] parameter(3); (d0, d1, d2) -> (),
               domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
           operand id = 1 (d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
           operand id = 2 (d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]
           operand id = 3 (d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]""",
    ),
    (
        "dynamic_update_slice",
        """ENTRY e {
          %src = s32[20,30] parameter(0)
          %upd = s32[5,10] parameter(1)
          %of1 = s32[] parameter(2)
          %of2 = s32[] parameter(3)
          ROOT %dus = s32[20,30] dynamic-update-slice(
              s32[20,30] %src, s32[5,10] %upd, s32[] %of1, s32[] %of2)
        }""",
        """operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 19], d1 in [0, 29]
           operand id = 1 (d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),
             domain: d0 in [0, 19], d1 in [0, 29], rt0 in [0, 15], rt1 in [0, 20]
             runtime variables:
             rt0: %of1 = s32[] parameter(2); (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]
             rt1: %of2 = s32[] parameter(3); (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]
           operand id = 2 (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]
           operand id = 3 (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]""",
    ),
    (
        "gather",
        """ENTRY main {
          operand = f32[33,76,70] parameter(0)
          indices = s32[1806,2] parameter(1)
          ROOT r = f32[1806,7,8,4] gather(operand, indices), offset_dims={1,2,3},
            collapsed_slice_dims={}, start_index_map={0,1},
            index_vector_dim=1, slice_sizes={7,8,4}
        }""",
        """operand id = 0
             (d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3),
             domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3],
             rt0 in [0, 26], rt1 in [0, 68]
             runtime variables:
             rt0: %indices = s32[1806,2]{1,0} parameter(1); (d0, d1, d2, d3) -> (d0, 0),
               domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3]
             rt1: %indices = s32[1806,2]{1,0} parameter(1); (d0, d1, d2, d3) -> (d0, 1),
               domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3]
           operand id = 1 (d0, d1, d2, d3)[s0] -> (d0, s0),
             domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3], s0 in [0, 1]""",
    ),
    (
        "sort",
        """compare {
          a = f32[] parameter(0)
          b = f32[] parameter(1)
          ROOT lt = pred[] compare(a, b), direction=LT
        }
        ENTRY e {
          p0 = f32[4, 6] parameter(0)
          ROOT s = f32[4, 6] sort(p0), dimensions={1}, to_apply=compare
        }""",
        "operand id = 0 (d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 3], d1 in [0, 5], s0 in [0, 5]",
    ),
    (
        "tuple",
        """ENTRY e {
          p0 = f32[4] parameter(0)
          p1 = s32[3] parameter(1)
          ROOT t = (f32[4], s32[3]) tuple(p0, p1)
        }""",
        """operand id = 0 (d0) -> (d0), domain: d0 in [0, 3]
           operand id = 1""",
    ),
    (
        "unsupported",
        """ENTRY e {
          p1 = f32[4,4] parameter(1)
          p2 = f32[4,3] parameter(2)
          ROOT out = f32[4,3] triangular-solve(f32[4,4] p1, f32[4,3] p2),
            left_side=true, lower=true, transpose_a=NO_TRANSPOSE, unit_diagonal=true
        }""",
        "operand id = 0 unknown indexing operand id = 1 unknown indexing",
    ),
]

I2O = [
    (
        "broadcast",
        """ENTRY e {
          p0 = f32[20] parameter(0)
          ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
        }""",
        0,
        """operand id = 0 (d0)[s0, s1] -> (s0, d0, s1),
           domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]""",
    ),
    (
        "transpose",
        """ENTRY e {
          p0 = f32[3, 12288, 6, 128] parameter(0)
          ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
        }""",
        0,
        """operand id = 0 (d0, d1, d2, d3) -> (d0, d2, d3, d1),
           domain: d0 in [0, 2], d1 in [0, 12287], d2 in [0, 5], d3 in [0, 127]""",
    ),
    (
        "slice",
        """ENTRY e {
          p0 = f32[10, 20, 50] parameter(0)
          ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0),
              slice={[5:10:1], [3:20:7], [0:50:2]}
        }""",
        0,
        """operand id = 0 (d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2),
           domain: d0 in [5, 9], d1 in [3, 17], d2 in [0, 48],
           (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]""",
    ),
    (
        "reshape",
        """ENTRY e {
          p0 = f32[4, 8, 12] parameter(0)
          ROOT reshape = f32[32, 3, 4] reshape(p0)
        }""",
        0,
        """operand id = 0 (d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4),
           domain: d0 in [0, 3], d1 in [0, 7], d2 in [0, 11]""",
    ),
    (
        "bitcast_trt",
        """ENTRY e {
          p0 = f32[16, 17, 3] parameter(0)
          ROOT bitcast = f32[51, 16] {0, 1} bitcast(p0)
        }""",
        0,
        """operand id = 0 (d0, d1, d2) -> (d1 * 3 + d2, d0),
           domain: d0 in [0, 15], d1 in [0, 16], d2 in [0, 2]""",
    ),
    (
        "concatenate_1",
        """ENTRY e {
          p0 = f32[2, 5, 7] parameter(0)
          p1 = f32[2, 11, 7] parameter(1)
          p2 = f32[2, 17, 7] parameter(2)
          ROOT concat = f32[2, 33, 7] concatenate(p0, p1, p2), dimensions={1}
        }""",
        1,
        """operand id = 0 (d0, d1, d2) -> (d0, d1 + 5, d2),
           domain: d0 in [0, 1], d1 in [0, 10], d2 in [0, 6]""",
    ),
    (
        "reduce_input",
        MAX
        + """ENTRY e {
          p0 = f32[150, 20, 10, 50] parameter(0)
          p0_init = f32[] constant(-inf)
          ROOT reduce = f32[150, 10] reduce(p0, p0_init), dimensions={3, 1}, to_apply=max
        }""",
        0,
        """operand id = 0 (d0, d1, d2, d3) -> (d0, d2),
           domain: d0 in [0, 149], d1 in [0, 19], d2 in [0, 9], d3 in [0, 49]""",
    ),
    (
        "reduce_init",
        MAX
        + """ENTRY e {
          p0 = f32[150, 20, 10, 50] parameter(0)
          p0_init = f32[] constant(-inf)
          ROOT reduce = f32[150, 10] reduce(p0, p0_init), dimensions={3, 1}, to_apply=max
        }""",
        1,
        "operand id = 0 ()[s0, s1] -> (s0, s1), domain: s0 in [0, 149], s1 in [0, 9]",
    ),
    (
        "reverse",
        """ENTRY e {
          p0 = f32[1, 17, 9, 9] parameter(0)
          ROOT reverse = f32[1, 17, 9, 9] reverse(p0), dimensions={1, 2}
        }""",
        0,
        """operand id = 0 (d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),
           domain: d0 in [0, 0], d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]""",
    ),
    (
        # INDEXING.md §4.11 (with the seed's d1/d2 slip corrected).
        "dot_rhs",
        """ENTRY e {
          p0 = f32[4, 128, 256] parameter(0)
          p1 = f32[4, 256, 64] parameter(1)
          ROOT dot = f32[4, 128, 64] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0},
            lhs_contracting_dims={2}, rhs_contracting_dims={1}
        }""",
        1,
        """operand id = 0 (d0, d1, d2)[s0] -> (d0, s0, d2),
           domain: d0 in [0, 3], d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]""",
    ),
    (
        "pad",
        """ENTRY e {
          p0 = f32[4, 4] parameter(0)
          p1 = f32[] parameter(1)
          ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
        }""",
        0,
        """operand id = 0 (d0, d1) -> (d0 * 2 + 1, d1 + 4),
           domain: d0 in [0, 3], d1 in [0, 3]""",
    ),
    (
        "unsupported",
        """ENTRY e {
          p1 = f32[4,4] parameter(1)
          p2 = f32[4,3] parameter(2)
          ROOT out = f32[4,3] triangular-solve(f32[4,4] p1, f32[4,3] p2),
            left_side=true, lower=true, transpose_a=NO_TRANSPOSE, unit_diagonal=true
        }""",
        1,
        "operand id = 0 unknown indexing",
    ),
]


@pytest.mark.parametrize(("name", "hlo", "expected"), O2I, ids=[c[0] for c in O2I])
def test_output_to_input(name: str, hlo: str, expected: str) -> None:
    assert_printed(output_to_input(parse_root(hlo)).to_string(), expected)


@pytest.mark.parametrize(("name", "hlo", "input_id", "expected"), I2O, ids=[c[0] for c in I2O])
def test_input_to_output(name: str, hlo: str, input_id: int, expected: str) -> None:
    assert_printed(input_to_output(parse_root(hlo), input_id).to_string(), expected)


def test_variadic_reduce_every_output() -> None:
    root = parse_root(
        """min {
          tmp_0 = f32[] parameter(0)
          tmp_1 = f32[] parameter(2)
          tmp_2 = s32[] parameter(1)
          tmp_3 = s32[] parameter(3)
          cmp = pred[] compare(tmp_0, tmp_1), direction=GE
          select1 = f32[] select(cmp, tmp_0, tmp_1)
          select2 = s32[] select(cmp, tmp_2, tmp_3)
          ROOT tmp_4 = (f32[], s32[]) tuple(select1, select2)
        }
        ENTRY e {
          p0 = f32[256,10] parameter(0)
          p0_init = f32[] constant(-inf)
          p1 = s32[256,10] parameter(1)
          p1_init = s32[] constant(0)
          ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init),
            dimensions={0}, to_apply=min
        }"""
    )
    expected = """
        operand id = 0 (d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]
        operand id = 1 (d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]
        operand id = 2 (d0) -> (), domain: d0 in [0, 9]
        operand id = 3 (d0) -> (), domain: d0 in [0, 9]"""
    for output_id in (0, 1):
        assert_printed(output_to_input(root, output_id).to_string(), expected)
    to_output = "operand id = 0 (d0, d1) -> (d1), domain: d0 in [0, 255], d1 in [0, 9]"
    assert_printed(
        input_to_output(root, 1).to_string(), to_output + to_output.replace("0 (", "1 (", 1)
    )
    init = "operand id = 0 ()[s0] -> (s0), domain: s0 in [0, 9]"
    assert_printed(input_to_output(root, 2).to_string(), init + init.replace("0 (", "1 (", 1))


def test_physical_layout() -> None:
    root = parse_root(
        """ENTRY e {
          p0 = f32[10, 20, 30] parameter(0)
          ROOT add0 = f32[10, 20, 30]{1, 0, 2} exponential(p0)
        }"""
    )
    assert_printed(
        output_to_input(root, physical_layout=True).to_string(),
        """operand id = 0 (d0, d1, d2) -> (d1, d2, d0),
           domain: d0 in [0, 29], d1 in [0, 9], d2 in [0, 19]""",
    )
    assert_printed(
        input_to_output(root, 0, physical_layout=True).to_string(),
        """operand id = 0 (d0, d1, d2) -> (d2, d0, d1),
           domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]""",
    )
    root = parse_root(
        """ENTRY e {
          p0 = f32[10, 20, 30]{1, 0, 2} parameter(0)
          ROOT add0 = f32[10, 20, 30]{1, 0, 2} exponential(p0)
        }"""
    )
    assert_printed(
        output_to_input(root, physical_layout=True).to_string(),
        """operand id = 0 (d0, d1, d2) -> (d0, d1, d2),
           domain: d0 in [0, 29], d1 in [0, 9], d2 in [0, 19]""",
    )


def test_copy_and_transpose_via_layout() -> None:
    """A layout-changing copy is the identity logically and a transpose physically."""
    root = parse_root(
        """ENTRY e {
          p0 = f32[10, 20]{1, 0} parameter(0)
          ROOT c = f32[10, 20]{0, 1} copy(p0)
        }"""
    )
    assert_printed(
        output_to_input(root).to_string(),
        "operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]",
    )
    assert_printed(
        output_to_input(root, physical_layout=True).to_string(),
        "operand id = 0 (d0, d1) -> (d1, d0), domain: d0 in [0, 19], d1 in [0, 9]",
    )


def test_constant_and_iota_have_no_operands() -> None:
    for hlo in (
        "ENTRY e { ROOT c1 = bf16[2, 2] constant({{1, 2}, {3, 4}}) }",
        "ENTRY e { ROOT iota = s32[5,5,111,42] iota(), iota_dimension=0 }",
    ):
        assert output_to_input(parse_root(hlo)).to_string() == ""
