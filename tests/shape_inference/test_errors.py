"""One bad input per opcode (at least), asserting the op, the spec label where there is one,
and the values named in the message; plus positive inference checks of the trickier rules."""

import re

import pytest

import xlapy
from xlapy import InvalidArgument, Literal, XlaBuilder, ops
from xlapy.ir import Opcode
from xlapy.ir import attrs as A
from xlapy.shape_inference import INFER, infer_shape
from xlapy.shape_inference.common import type_allowed
from xlapy.shape_inference.elementwise import BINARY_TYPES, UNARY_TYPES

S = xlapy.shape


def comp(name, fn, *shapes):
    b = XlaBuilder(name)
    fn(*[ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes)])
    return b.build().entry


ADD_F32 = comp("add", ops.Add, "f32[]", "f32[]")
NEG_F32 = comp("neg", ops.Neg, "f32[]")
LT_F32 = comp("lt", ops.Lt, "f32[]", "f32[]")
GT_S32 = comp("gt", ops.Gt, "s32[]", "s32[]")
TRUE = comp("true", lambda x: ops.ConstantR0(x.builder, True), "f32[]")
CONV_DNUMS = A.ConvolutionDimensionNumbers.from_labels("bf0_oi0->bf0")
GROUPS_01 = A.ReplicaGroups(((0, 1),))
BAD_GROUPS = A.ReplicaGroups(((0, 0),))
PAIRS_DUP = ((0, 1), (2, 1))


def W(*sizes, **kw):
    return A.Window.make(sizes, **kw)


# (opcode, operand shapes, attrs, declared result, regex)
CASES = [
    (Opcode.ADD, ["f32[2,3]", "f32[3]"], {}, None,
     r"add \[C1\]: lhs and rhs must have the same shape .*; got f32\[2,3\] \(lhs\) and f32\[3\] \(rhs\)"),
    (Opcode.ADD, ["f32[2]", "s32[2]"], {}, None,
     r"add \[C1\]: lhs and rhs must have the same element type; got f32\[2\] \(lhs\) and s32\[2\]"),
    (Opcode.ADD_DEPENDENCY, ["f32[2]", "f32[]"], {}, None, r"add-dependency: the dependency must be a token; got f32\[\]"),
    (Opcode.AFTER_ALL, ["token[]", "f32[]"], {}, None, r"after-all: input 1 must be a token; got f32\[\]"),
    (Opcode.ALL_GATHER, ["f32[2]"], {"dimensions": (1,), "replica_groups": GROUPS_01}, None,
     r"all-gather \[C1\]: the dimension must be in \[0, 1\) of f32\[2\]; got 1"),
    (Opcode.ALL_GATHER_START, ["f32[2]"], {"dimensions": (0,), "replica_groups": BAD_GROUPS}, None,
     r"all-gather-start \[C2\]: replica_groups must not repeat an id"),
    (Opcode.ALL_GATHER_DONE, ["f32[2]"], {}, None, r"all-gather-done: operand must be an all-gather-start result"),
    (Opcode.ALL_REDUCE, ["s32[2]"], {"to_apply": ADD_F32}, None,
     r"all-reduce \[C5\]: computation must have type \(s32\[\], s32\[\]\) -> s32\[\] for operand 0 s32\[2\]; got \(f32\[\], f32\[\]\) -> f32\[\]"),
    (Opcode.ALL_REDUCE_START, ["f32[2]"], {"to_apply": ADD_F32, "use_global_device_ids": True}, None,
     r"all-reduce-start \[C4\]: use_global_device_ids needs a positive channel_id"),
    (Opcode.ALL_REDUCE_DONE, [], {}, None, r"all-reduce-done: takes 1 operand\(s\); got 0"),
    (Opcode.ALL_TO_ALL, ["f32[3]"], {"dimensions": (0,), "replica_groups": GROUPS_01}, None,
     r"all-to-all \[C2\]: dimension 0 of f32\[3\] must be a multiple of the group size 2"),
    (Opcode.ASYNC_START, ["f32[]"], {"calls": ADD_F32}, None,
     r"async-start: the wrapped computation must take \(f32\[\]\); got \(f32\[\], f32\[\]\) -> f32\[\]"),
    (Opcode.ASYNC_UPDATE, ["f32[]"], {}, None, r"async-update: operand must be an async state tuple; got f32\[\]"),
    (Opcode.ASYNC_DONE, ["(f32[])"], {}, None, r"async-done: operand must be an async state tuple"),
    (Opcode.BATCH_NORM_GRAD, ["f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[2,4]"],
     {"epsilon": 0.1, "feature_index": 1}, None, r"batch-norm-grad \[C3\]: grad_output must have the operand's type"),
    (Opcode.BATCH_NORM_INFERENCE, ["f32[2,3]", "f32[3]", "f32[3]", "f32[2]", "f32[3]"],
     {"epsilon": 0.1, "feature_index": 1}, None,
     r"batch-norm-inference \[C5\]: mean must be a vector of size 3 \(dimension 1 of f32\[2,3\]\); got f32\[2\]"),
    (Opcode.BATCH_NORM_TRAINING, ["f32[2,3]", "f32[3]", "f32[3]"], {"epsilon": 0.1, "feature_index": 2}, None,
     r"batch-norm-training \[C1\]: feature_index must be in \[0, 2\) of f32\[2,3\]; got 2"),
    (Opcode.BITCAST, ["f32[4]"], {}, "f32[5]", r"bitcast: operand and result must have the same size in bits"),
    (Opcode.BITCAST_CONVERT, ["f32[3]"], {}, "c64[]", r"bitcast-convert \[C2\]: cannot bitcast between complex and non-complex"),
    (Opcode.BITCAST_CONVERT, ["f16[3]"], {}, "f32[]",
     r"bitcast-convert \[C1\]: converting f16 to the wider f32 needs a minor dimension of size 2; got f16\[3\]"),
    (Opcode.BROADCAST, ["f32[3]"], {"dimensions": (0,)}, "f32[2,3]",
     r"broadcast \[C5\]: operand dimension 0 \(size 3\) maps to result dimension 0 \(size 2\)"),
    (Opcode.BROADCAST, ["f32[3]"], {"dimensions": ()}, "f32[2,3]",
     r"broadcast \[C2\]: dimensions must have one entry per operand dimension; got \{\} for operand f32\[3\]"),
    (Opcode.CALL, ["f32[2]"], {"to_apply": NEG_F32}, None, r"call: to_apply must take \(f32\[2\]\); got \(f32\[\]\) -> f32\[\]"),
    (Opcode.CHOLESKY, ["f32[2,3]"], {}, None, r"cholesky \[C3\]: the minor two dimensions of a must be equal; got f32\[2,3\]"),
    (Opcode.CLAMP, ["f32[2]", "f32[3]", "f32[]"], {}, None,
     r"clamp \[C1\]: min must be a scalar or have the shape of operand; got f32\[2\] \(min\) and f32\[3\] \(operand\)"),
    (Opcode.COLLECTIVE_BROADCAST, ["f32[2]"], {"replica_groups": A.ReplicaGroups(((0, 2, 0),))}, None,
     r"collective-broadcast \[C1\]: replica_groups must not repeat an id"),
    (Opcode.COLLECTIVE_PERMUTE, ["f32[2]"], {"source_target_pairs": PAIRS_DUP}, None,
     r"collective-permute \[C3\]: no two pairs may have the same target"),
    (Opcode.COLLECTIVE_PERMUTE_START, ["f32[2]"], {"source_target_pairs": ((0, 1), (0, 2))}, None,
     r"collective-permute-start \[C2\]: no two pairs may have the same source"),
    (Opcode.COLLECTIVE_PERMUTE_DONE, ["f32[2]"], {}, None, r"collective-permute-done: operand must be a collective-permute-start result"),
    (Opcode.COLLECTIVE_REDUCE, ["f32[2]"], {"to_apply": NEG_F32}, None, r"collective-reduce \[C5\]: computation must have type"),
    (Opcode.COMPARE, ["f32[2]", "f32[3]"], {"direction": A.ComparisonDirection.LT}, None,
     r"compare \[C2\]: lhs and rhs must have the same shape"),
    (Opcode.COMPARE, ["s32[2]", "s32[2]"], {"direction": A.ComparisonDirection.LT, "type": A.ComparisonType.FLOAT}, None,
     r"compare \[C3\]: comparison type FLOAT is not legal for element type s32; expected SIGNED"),
    (Opcode.COMPLEX, ["f16[2]", "f16[2]"], {}, None, r"complex \[C1\]: lhs must have element type f32 or f64; got f16\[2\]"),
    (Opcode.CONCATENATE, ["f32[2,3]", "f32[3]"], {"dimensions": (0,)}, None,
     r"^concatenate \[C2\]: all inputs must have the same rank; got f32\[2,3\] \(input 0\) and f32\[3\] \(input 1\)$"),
    (Opcode.CONCATENATE, ["f32[2,3]", "f32[2,4]"], {"dimensions": (0,)}, None,
     r"concatenate \[C2\]: all inputs must have the same shape except in dimension 0"),
    (Opcode.CONDITIONAL, ["s32[]", "f32[]", "f32[]"], {"branch_computations": (NEG_F32, TRUE)}, None,
     r"conditional \[C3\]: all branches must return the same shape; got f32\[\] \(branch 0\) and pred\[\] \(branch 1\)"),
    (Opcode.CONSTANT, [], {"literal": Literal.from_numpy([1, 2])}, "s64[3]",
     r"constant \[C1\]: the literal has shape s64\[2\] but the result is s64\[3\]"),
    (Opcode.CONVERT, ["(f32[])"], {}, "s32[]", r"convert: operand must be an array; got \(f32\[\]\)"),
    (Opcode.CONVOLUTION, ["f32[1,2,5]", "f32[3,3,2]"], {"window": W(2), "dim_labels": CONV_DNUMS}, None,
     r"convolution \[C15\]: the kernel input feature size 3 times feature_group_count 1 must equal the lhs feature size 2"),
    (Opcode.COPY, [], {}, None, r"copy: takes 1 operand\(s\); got 0"),
    (Opcode.COPY_START, [], {}, None, r"copy-start: takes 1 operand\(s\); got 0"),
    (Opcode.COPY_DONE, ["f32[2]"], {}, None, r"copy-done: operand must be a copy-start result"),
    (Opcode.CUSTOM_CALL, [], {"custom_call_target": "f"}, None, r"custom-call: the result shape must be given"),
    (Opcode.DOMAIN, [], {"domain": A.RawAttribute("{}")}, None, r"domain: takes 1 operand\(s\); got 0"),
    (Opcode.DOT, ["f32[2,3]", "f32[4,5]"], {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)}, None,
     r"dot \[C11\]: contracting dimensions must have the same size; got lhs dimension 1 of f32\[2,3\] and rhs dimension 0 of f32\[4,5\]"),
    (Opcode.DOT, ["s8[2,3]", "s8[3,2]"], {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)}, "s4[2,2]",
     r"dot: preferred_element_type s4 must not be narrower than the operand type s8"),
    (Opcode.DYNAMIC_RESHAPE, ["f32[6]", "s32[]"], {}, "f32[2,3]", r"dynamic-reshape: needs one size operand per result dimension \(2\); got 1"),
    (Opcode.DYNAMIC_SLICE, ["f32[4]", "s32[]"], {"dynamic_slice_sizes": (5,)}, None,
     r"dynamic-slice \[C4\]: slice_sizes\[0\] must be in \[0, 4\]; got \{5\} for operand f32\[4\]"),
    (Opcode.DYNAMIC_SLICE, ["f32[4,4]", "s32[]", "s64[]"], {"dynamic_slice_sizes": (1, 1)}, None,
     r"dynamic-slice: start index 0 and start index 1 must have the same element type"),
    (Opcode.DYNAMIC_UPDATE_SLICE, ["f32[4]", "f32[5]", "s32[]"], {}, None,
     r"dynamic-update-slice \[C6\]: update dimension 0 \(size 5\) must fit in the operand \(size 4\)"),
    (Opcode.FFT, ["f32[8]"], {"fft_type": A.FftType.FFT, "fft_length": (8,)}, None,
     r"fft \[C2\]: FFT needs a complex operand; got f32\[8\]"),
    (Opcode.FFT, ["c64[4]"], {"fft_type": A.FftType.IRFFT, "fft_length": (4,)}, None,
     r"fft \[C5\]: IRFFT with fft_length \{4\} needs trailing operand dimensions \{3\}; got c64\[4\]"),
    (Opcode.FUSION, ["f32[]", "f32[]"], {"kind": A.FusionKind.LOOP, "calls": NEG_F32}, None,
     r"fusion: the fused computation must take \(f32\[\], f32\[\]\)"),
    (Opcode.GATHER, ["f32[3,3]", "s32[2,1]"],
     {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,), "index_vector_dim": 1,
      "slice_sizes": (2, 3)}, None,
     r"gather \[C9\]: collapsed dimension 0 must have slice size <= 1; got slice_sizes \{2,3\}"),
    (Opcode.GATHER, ["f32[3,3]", "s32[2,1]"],
     {"offset_dims": (1,), "collapsed_slice_dims": (), "start_index_map": (0,), "index_vector_dim": 1,
      "slice_sizes": (1, 3)}, None,
     r"gather \[C1\]: operand rank 2 must equal size\(offset_dims\) \+ size\(collapsed_slice_dims\)"),
    (Opcode.GET_DIMENSION_SIZE, ["f32[2]"], {"dimensions": (1,)}, None,
     r"get-dimension-size \[C1\]: dimension must be in \[0, 1\) of f32\[2\]; got 1"),
    (Opcode.GET_TUPLE_ELEMENT, ["(f32[], s32[])"], {"index": 2}, None,
     r"get-tuple-element \[C1\]: index must be in \[0, 2\) for \(f32\[\], s32\[\]\); got 2"),
    (Opcode.INFEED, ["f32[]"], {}, "(f32[], token[])", r"infeed \[C2\]: operand must be a token; got f32\[\]"),
    (Opcode.IOTA, [], {"iota_dimension": 2}, "s32[4,8]", r"iota \[C1\]: iota_dimension must be in \[0, 2\) of s32\[4,8\]; got 2"),
    (Opcode.MAP, ["f32[2]", "f32[3]"], {"to_apply": ADD_F32}, None,
     r"map \[C1\]: all inputs must have the same shape; got f32\[2\] \(input 0\) and f32\[3\] \(input 1\)"),
    (Opcode.OPTIMIZATION_BARRIER, [], {}, None, r"opt-barrier: takes 1 operand\(s\); got 0"),
    (Opcode.OUTFEED, ["f32[2]", "token[]"], {"outfeed_shape": S("f32[3]")}, None,
     r"outfeed: shape_with_layout f32\[3\] must be the operand's shape f32\[2\]"),
    (Opcode.PAD, ["f32[2,3,4]", "f32[]"], {"padding": A.PaddingConfig.make([(1, 1), (0, 0)])}, None,
     r"^pad \[C2\]: padding_config has 2 dimensions but operand f32\[2,3,4\] has rank 3$"),
    (Opcode.PAD, ["f32[2]", "f32[]"], {"padding": A.PaddingConfig.make([(-2, -1, 0)])}, None,
     r"pad \[C4\]: dimension 0 would have negative size -1"),
    (Opcode.PAD, ["f32[2]", "s32[]"], {"padding": A.PaddingConfig.make([(0, 0)])}, None,
     r"pad \[C1\]: operand and padding_value must have the same element type"),
    (Opcode.PARAMETER, [], {"parameter_number": 0}, None, r"parameter: the result shape must be given"),
    (Opcode.PARTITION_ID, ["f32[]"], {}, None, r"partition-id: takes 0 operand\(s\); got 1"),
    (Opcode.RAGGED_ALL_TO_ALL, ["f32[4]", "s32[2]", "s32[2]", "f32[4,2]", "s32[2]", "s32[2]"], {}, None,
     r"ragged-all-to-all: input and output must have the same dimensions except the outermost"),
    (Opcode.RAGGED_DOT, ["f32[4,2]", "f32[3,2,2]", "s32[2]"],
     {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (1,), "lhs_ragged_dims": (0,), "rhs_group_dims": (0,)}, None,
     r"ragged-dot: rhs group dimension 0 of f32\[3,2,2\] must have one entry per group \(2"),
    (Opcode.RECV, ["token[]"], {}, "(f32[], token[])", r"recv: the result must be \(data, u32\[\], token\[\]\)"),
    (Opcode.RECV_DONE, ["token[]"], {}, None, r"recv-done: operand must be a recv context"),
    (Opcode.REDUCE, ["f32[2,3]", "f32[]"], {"dimensions": (2,), "to_apply": ADD_F32}, None,
     r"reduce \[C4\]: every entry of dimensions must be in \[0, 2\) of f32\[2,3\]; got \{2\}"),
    (Opcode.REDUCE, ["s32[2,3]", "s32[]"], {"dimensions": (0,), "to_apply": ADD_F32}, None,
     r"reduce \[C6\]: the reduction computation must have type \(s32\[\], s32\[\]\) -> s32\[\]; got \(f32\[\], f32\[\]\) -> f32\[\]"),
    (Opcode.REDUCE_PRECISION, ["f32[2]"], {"exponent_bits": 0, "mantissa_bits": 2}, None,
     r"reduce-precision \[C2\]: exponent_bits must be at least 1; got 0"),
    (Opcode.REDUCE_SCATTER, ["f32[3]"], {"dimensions": (0,), "to_apply": ADD_F32, "replica_groups": GROUPS_01}, None,
     r"reduce-scatter \[C1\]: dimension 0 of f32\[3\] must be a multiple of the group size 2"),
    (Opcode.REDUCE_WINDOW, ["f32[4]", "f32[]"], {"window": W(0), "to_apply": ADD_F32}, None,
     r"reduce-window \[C5\]: every window size must be positive; got window \{size=0\}"),
    (Opcode.REDUCE_WINDOW, ["f32[4,4]", "f32[]"], {"window": W(2), "to_apply": ADD_F32}, None,
     r"reduce-window \[C4\]: the window has 1 dimensions but input f32\[4,4\] has rank 2"),
    (Opcode.REPLICA_ID, ["f32[]"], {}, None, r"replica-id: takes 0 operand\(s\); got 1"),
    (Opcode.RESHAPE, ["f32[2,3]"], {}, "f32[5]",
     r"reshape \[C2\]: operand and result must have the same number of elements; got f32\[2,3\] \(6 elements\) -> f32\[5\] \(5 elements\)"),
    (Opcode.REVERSE, ["f32[2]"], {"dimensions": (0, 0)}, None, r"reverse \[C2\]: dimensions must not repeat a dimension; got \{0,0\}"),
    (Opcode.RNG, ["f32[]", "s32[]"], {"distribution": A.RandomDistribution.UNIFORM}, "f32[3]",
     r"rng \[C1\]: b must have the output element type f32; got s32\[\]"),
    (Opcode.RNG, ["s32[]", "s32[]"], {"distribution": A.RandomDistribution.NORMAL}, "s32[3]",
     r"rng \[C2\]: a normal distribution needs a floating-point type; got s32\[3\]"),
    (Opcode.RNG_BIT_GENERATOR, ["u64[4]"], {"algorithm": A.RandomAlgorithm.THREE_FRY}, "u32[8]",
     r"rng-bit-generator \[C2\]: rng_three_fry needs a u64 state of size 2; got u64\[4\]"),
    (Opcode.RNG_GET_AND_UPDATE_STATE, ["f32[]"], {"delta": 1}, None, r"rng-get-and-update-state: takes 0 operand\(s\); got 1"),
    (Opcode.SCALED_DOT, ["f32[4,32]", "f32[3,1]", "f32[32,8]", "f32[1,8]"],
     {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)}, None,
     r"scaled-dot: every dimension of lhs must be a multiple of lhs_scale's; got f32\[4,32\] and f32\[3,1\]"),
    (Opcode.SCAN, ["f32[3]", "f32[]"], {"dimensions": (0,), "num_carries": 1, "to_apply": NEG_F32}, None,
     r"scan: to_apply must take \(f32\[\], f32\[\]\); got \(f32\[\]\) -> f32\[\]"),
    (Opcode.SCATTER, ["f32[5]", "s32[3,1]", "f32[2]"],
     {"update_window_dims": (), "inserted_window_dims": (0,), "scatter_dims_to_operand_dims": (0,),
      "index_vector_dim": 1, "to_apply": ADD_F32}, None,
     r"scatter \[C4\]: update scatter dimension 0 must have size 3 \(from scatter_indices s32\[3,1\]\); got updates f32\[2\]"),
    (Opcode.SELECT, ["pred[3]", "f32[2]", "f32[2]"], {}, None,
     r"select \[C1\]: pred must be a scalar or have the shape of on_true; got pred\[3\] \(pred\) and f32\[2\] \(on_true\)"),
    (Opcode.SELECT, ["s32[]", "f32[2]", "f32[2]"], {}, None, r"select: pred must have pred element type; got s32\[\]"),
    (Opcode.SELECT_AND_SCATTER, ["f32[6]", "f32[2]", "f32[]"], {"window": W(2, stride=[2]), "select": LT_F32, "scatter": ADD_F32}, None,
     r"select-and-scatter \[C3\]: source must have one element per window position, shape f32\[3\]; got f32\[2\]"),
    (Opcode.SEND, ["f32[2]", "f32[]"], {}, None, r"send: the token operand must be a token; got f32\[\]"),
    (Opcode.SEND_DONE, ["token[]"], {}, None, r"send-done: operand must be a send context"),
    (Opcode.SET_DIMENSION_SIZE, ["f32[4]", "s64[]"], {"dimensions": (0,)}, None, r"set-dimension-size: size must be an s32 scalar; got s64\[\]"),
    (Opcode.SHUFFLE, [], {}, None, r"shuffle: the result shape must be given"),
    (Opcode.SLICE, ["f32[4]"], {"slice": A.SliceSpec((A.SliceDimension(1, 5, 1),))}, None,
     r"slice \[C3\]: dimension 0 needs 0 <= start <= limit <= 4; got start 1, limit 5 for operand f32\[4\]"),
    (Opcode.SORT, ["s32[4]"], {"dimensions": (0,), "to_apply": LT_F32}, None,
     r"sort \[C5\]: comparator must have type \(s32\[\], s32\[\]\) -> pred\[\]; got \(f32\[\], f32\[\]\) -> pred\[\]"),
    (Opcode.STOCHASTIC_CONVERT, ["f32[2]", "u16[2]"], {}, "s8[2]", r"stochastic-convert: random must be unsigned with the operand's bit width"),
    (Opcode.TOPK, ["f32[3]"], {"k": 4}, None, r"topk: k must be in \[0, 3\] \(the last dimension of f32\[3\]\); got 4"),
    (Opcode.TRANSPOSE, ["f32[2,3]"], {"dimensions": (0, 0)}, None,
     r"transpose \[C2\]: permutation must be a permutation of \[0, 2\); got \{0,0\} for operand f32\[2,3\]"),
    (Opcode.TRIANGULAR_SOLVE, ["f32[3,3]", "f32[2,3]"], {"left_side": True}, None,
     r"triangular-solve \[C3\]: with left_side=true, dimension 0 of b must equal 3"),
    (Opcode.TUPLE, ["f32[]"], {"index": 0}, None, r"tuple: unknown attribute 'index'"),
    (Opcode.WHILE, ["f32[]"], {"condition": NEG_F32, "body": NEG_F32}, None,
     r"while \[C1\]: condition must return pred\[\]; got \(f32\[\]\) -> f32\[\]"),
    (Opcode.DYNAMIC_BROADCAST_IN_DIM, ["f32[3]", "s32[1]"], {"dimensions": (0,)}, "f32[2,3]",
     r"dynamic-broadcast-in-dim: output_dimensions must be a vector of 2 sizes; got s32\[1\]"),
    (Opcode.DYNAMIC_CONV, ["f32[1,2,5]", "f32[3,3,2]", "s32[1,2]"], {"window": W(2), "dim_labels": CONV_DNUMS}, "f32[1,3,4]",
     r"dynamic-conv \[C15\]"),
    (Opcode.DYNAMIC_GATHER, ["f32[3,3]", "s32[2,1]", "s32[3]"],
     {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,), "index_vector_dim": 1}, "f32[2,3]",
     r"dynamic-gather \[C20\]: slice_sizes must be a vector of 2 sizes; got s32\[3\]"),
    (Opcode.DYNAMIC_IOTA, ["f32[1]"], {"iota_dimension": 0}, "s32[4]", r"dynamic-iota: output_shape must have integer element type"),
    (Opcode.DYNAMIC_PAD, ["f32[2]", "f32[]", "s32[2]", "s32[1]", "s32[1]"], {}, "f32[4]",
     r"dynamic-pad \[C2\]: edge_padding_low needs one entry per operand dimension; got s32\[2\] for f32\[2\]"),
    (Opcode.REAL_DYNAMIC_SLICE, ["f32[4]", "f32[1]", "s32[1]", "s32[1]"], {}, "f32[2]",
     r"real-dynamic-slice: start_indices must have integer element type"),
    (Opcode.UNIFORM_QUANTIZE, ["f32[]"], {}, "s8[]", r"uniform-quantize \[C1\]: the result must be a quantized tensor"),
    (Opcode.UNIFORM_DEQUANTIZE, ["f32[2]"], {}, None, r"uniform-dequantize \[C1\]: operand must be a quantized tensor"),
]  # fmt: skip


def _bad_type(allowed):
    for name in ("s32", "u32", "f32", "pred", "c64"):
        if not type_allowed(xlapy.dtypes.from_name(name), allowed):
            return name
    raise AssertionError(allowed)


for _opcode, _allowed in UNARY_TYPES.items():
    _t = _bad_type(_allowed)
    CASES.append((_opcode, [f"{_t}[2]"], {}, None,
                  rf"{re.escape(_opcode.value)}: operand must have .* element type; got {_t}\[2\]"))  # fmt: skip
for _opcode, _allowed in BINARY_TYPES.items():
    if _allowed == "any":
        CASES.append(
            (_opcode, ["f32[2]", "f32[3]"], {}, None, rf"{re.escape(_opcode.value)} \[C1\]")
        )
        continue
    _t = _bad_type(_allowed)
    CASES.append((_opcode, [f"{_t}[2]", f"{_t}[2]"], {}, None,
                  rf"{re.escape(_opcode.value)}: lhs must have .* element type; got {_t}\[2\]"))  # fmt: skip


@pytest.mark.parametrize(
    ("opcode", "operands", "attrs", "result", "pattern"),
    CASES,
    ids=[f"{c[0].value}-{i}" for i, c in enumerate(CASES)],
)
def test_bad_input_is_rejected_with_a_clear_message(opcode, operands, attrs, result, pattern):
    shapes = [S(s) for s in operands]
    declared = S(result) if result is not None else None
    with pytest.raises(InvalidArgument, match=pattern):
        infer_shape(opcode, shapes, attrs, result=declared)


def test_every_opcode_has_a_bad_input_case():
    covered = {c[0] for c in CASES}
    assert [op.value for op in INFER if op not in covered] == []


# ---- positive rules --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opcode", "operands", "attrs", "result", "want"),
    [
        (Opcode.ABS, ["c128[2]"], {}, None, "f64[2]"),
        (Opcode.IS_FINITE, ["bf16[3]"], {}, None, "pred[3]"),
        (Opcode.COMPARE, ["u8[2]", "u8[2]"], {"direction": A.ComparisonDirection.EQ}, None, "pred[2]"),
        (Opcode.COMPLEX, ["f64[2]", "f64[2]"], {}, None, "c128[2]"),
        (Opcode.DOT, ["bf16[2,3]", "bf16[3]"], {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)},
         "f32[2]", "f32[2]"),
        (Opcode.FFT, ["f64[3,8]"], {"fft_type": A.FftType.RFFT, "fft_length": (8,)}, None, "c128[3,5]"),
        (Opcode.FFT, ["c64[3,5]"], {"fft_type": A.FftType.IRFFT, "fft_length": (8,)}, None, "f32[3,8]"),
        (Opcode.SET_DIMENSION_SIZE, ["f32[4,5]", "s32[]"], {"dimensions": (1,)}, None, "f32[4,<=5]"),
        (Opcode.REDUCE_WINDOW, ["f32[3,2]", "f32[]"],
         {"window": W(2, 1, stride=[4, 1], padding=[(2, 1), (0, 0)], base_dilation=[2, 1],
                      window_dilation=[3, 1]), "to_apply": ADD_F32}, None, "f32[2,2]"),
        (Opcode.CONVOLUTION, ["f32[1,2,5]", "f32[3,2,2]"], {"window": W(2, stride=[2]), "dim_labels": CONV_DNUMS},
         None, "f32[1,3,2]"),
        (Opcode.ALL_GATHER, ["f32[2,3]"], {"dimensions": (1,), "replica_groups": A.ReplicaGroups(((0, 1, 2),))},
         None, "f32[2,9]"),
        (Opcode.ALL_GATHER, ["f32[2,3]"], {"dimensions": (1,)}, "f32[2,12]", "f32[2,12]"),
        (Opcode.REDUCE_SCATTER, ["f32[8]"], {"dimensions": (0,), "to_apply": ADD_F32}, "f32[2]", "f32[2]"),
        (Opcode.TOPK, ["f32[2,5]"], {"k": 3}, None, "(f32[2,3], s32[2,3])"),
        (Opcode.INFEED, ["token[]"], {}, "((f32[2], s32[]), token[])", "((f32[2], s32[]), token[])"),
        (Opcode.SEND, ["f32[2]", "token[]"], {"channel_id": 1}, None, "(f32[2], u32[], token[])"),
        (Opcode.RNG_BIT_GENERATOR, ["u64[3]"], {"algorithm": A.RandomAlgorithm.PHILOX}, "u32[4]",
         "(u64[3], u32[4])"),
    ],
)  # fmt: skip
def test_inferred_shapes(opcode, operands, attrs, result, want):
    declared = S(result) if result is not None else None
    got = infer_shape(opcode, [S(s) for s in operands], attrs, result=declared)
    assert got.compatible(S(want)), f"{got} != {want}"
