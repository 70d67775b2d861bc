"""Every opcode of the registry parses, prints and re-parses to the same module; for XLA's own
opcodes the text we print is exactly what jaxlib prints (default, short and canonical forms)."""

from __future__ import annotations

import pytest
from test_hlo_roundtrip import assert_round_trip, xla_print

from xlapy.ir import REGISTRY, Opcode
from xlapy.ir.opcode import EXTENSIONS
from xlapy.text.hlo_parser import parse_hlo
from xlapy.text.hlo_printer import PrintOptions, is_sugared_async, print_hlo

ALL_OPS = r"""
HloModule all_ops, replica_count=2, num_partitions=1

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = pred[] compare(a, b), direction=LT
}

ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = pred[] compare(a, b), direction=GE
}

neg4 {
  a = f32[4,4] parameter(0)
  ROOT n = f32[4,4] negate(a)
}

abs4 {
  a = f32[4,4] parameter(0)
  ROOT n = f32[4,4] abs(a)
}

async_abs {
  a = f32[4,4] parameter(0)
  ROOT n = f32[4,4] abs(a)
}

cond {
  a = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(a), index=0
  k = s32[] constant(3)
  ROOT c = pred[] compare(i, k), direction=LT
}

body {
  a = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(a), index=0
  x = f32[4,4] get-tuple-element(a), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[4,4] exponential(x)
  ROOT t = (s32[], f32[4,4]) tuple(j, y)
}

scan_body {
  x = f32[4] parameter(0)
  c = f32[4] parameter(1)
  s = f32[4] add(x, c)
  ROOT t = (f32[4], f32[4]) tuple(s, s)
}

ENTRY main {
  p0 = f32[4,4] parameter(0)
  p1 = f32[4,4] parameter(1)
  pi = s32[4,4] parameter(2)
  pr = pred[4,4] parameter(3)
  s = f32[] parameter(4)
  i = s32[] parameter(5)
  cx = c64[4,4] parameter(6)
  u = u32[4,4] parameter(7)
  q = pred[] parameter(8)
  tok = token[] after-all()
  abs = f32[4,4] abs(p0)
  acos = f32[4,4] acos(p0)
  acosh = f32[4,4] acosh(p0)
  add = f32[4,4] add(p0, p1)
  add-dependency = f32[4,4] add-dependency(p0, tok)
  all-gather = f32[8,4] all-gather(p0), channel_id=1, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true
  all-gather-start = (f32[4,4], f32[8,4]) all-gather-start(p0), replica_groups={{0,1}}, dimensions={0}
  all-gather-done = f32[8,4] all-gather-done(all-gather-start)
  all-reduce = f32[4,4] all-reduce(p0), replica_groups=[1,2]<=[2], to_apply=add
  all-reduce-start = f32[4,4] all-reduce-start(p0), replica_groups={}, to_apply=add
  all-reduce-done = f32[4,4] all-reduce-done(all-reduce-start)
  all-to-all = f32[4,4] all-to-all(p0), replica_groups={{0,1}}, dimensions={0}
  and = pred[4,4] and(pr, pr)
  asin = f32[4,4] asin(p0)
  asinh = f32[4,4] asinh(p0)
  async-start = ((f32[4,4]), f32[4,4], s32[]) async-start(p0), calls=async_abs, async_execution_thread="parallel"
  async-update = ((f32[4,4]), f32[4,4], s32[]) async-update(async-start), calls=async_abs
  async-done = f32[4,4] async-done(async-update), calls=async_abs
  atan2 = f32[4,4] atan2(p0, p1)
  atanh = f32[4,4] atanh(p0)
  bn-grad = (f32[4,4], f32[4], f32[4]) batch-norm-grad(p0, s, s, s, p0), epsilon=0.001, feature_index=1
  bn-inf = f32[4,4] batch-norm-inference(p0, s, s, s, s), epsilon=0.001, feature_index=1
  bn-train = (f32[4,4], f32[4], f32[4]) batch-norm-training(p0, s, s), epsilon=0.001, feature_index=1
  bitcast = f32[16] bitcast(p0)
  bitcast-convert = s32[4,4] bitcast-convert(p0)
  broadcast = f32[4,4] broadcast(s), dimensions={}
  call = f32[4,4] call(p0), to_apply=neg4
  cbrt = f32[4,4] cbrt(p0)
  ceil = f32[4,4] ceil(p0)
  cholesky = f32[4,4] cholesky(p0), lower=true
  clamp = f32[4,4] clamp(p0, p1, p0)
  clz = s32[4,4] count-leading-zeros(pi)
  collective-broadcast = f32[4,4] collective-broadcast(p0), replica_groups={{0,1}}
  collective-permute = f32[4,4] collective-permute(p0), channel_id=2, source_target_pairs={{0,1},{1,0}}
  collective-permute-start = (f32[4,4], f32[4,4]) collective-permute-start(p0), channel_id=3, source_target_pairs={{0,1}}
  collective-permute-done = f32[4,4] collective-permute-done(collective-permute-start)
  compare = pred[4,4] compare(p0, p1), direction=LT, type=TOTALORDER
  complex = c64[4,4] complex(p0, p1)
  concatenate = f32[8,4] concatenate(p0, p1), dimensions={0}
  conditional = f32[4,4] conditional(q, p0, p1), true_computation=neg4, false_computation=abs4
  case = f32[4,4] conditional(i, p0, p1), branch_computations={neg4, abs4}
  constant = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })
  convert = f32[4,4] convert(pi)
  convolution = f32[4,4] convolution(p0, p1), window={size=1 pad=0_0}, dim_labels=bf_io->bf
  copy = f32[4,4]{0,1} copy(p0)
  copy-start = (f32[4,4], f32[4,4], u32[]) copy-start(p0), cross_program_prefetch_index=0
  copy-done = f32[4,4] copy-done(copy-start)
  cosine = f32[4,4] cosine(p0)
  cosh = f32[4,4] cosh(p0)
  custom-call = (f32[4,4], s32[]) custom-call(p0, pi), custom_call_target="my_target", operand_layout_constraints={f32[4,4]{0,1}, s32[4,4]{1,0}}, custom_call_has_side_effect=true, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={key = 1 : i64}
  divide = f32[4,4] divide(p0, p1)
  domain = f32[4,4] domain(p0), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}
  dot = f32[4,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,default}
  dynamic-reshape = f32[<=16] dynamic-reshape(p0, i)
  dynamic-slice = f32[2,2] dynamic-slice(p0, i, i), dynamic_slice_sizes={2,2}
  dynamic-update-slice = f32[4,4] dynamic-update-slice(p0, dynamic-slice, i, i)
  erf = f32[4,4] erf(p0)
  exponential = f32[4,4] exponential(p0), result_accuracy={tolerance={atol=0.001,rtol=0,ulps=2}}
  expm1 = f32[4,4] exponential-minus-one(p0), result_accuracy={mode=highest}
  fft = c64[4,4] fft(cx), fft_type=IFFT, fft_length={4}
  floor = f32[4,4] floor(p0)
  fusion = f32[4,4] fusion(p0), kind=kLoop, calls=neg4
  gather = f32[4,1,4] gather(p0, pi), offset_dims={2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,4}, indices_are_sorted=true
  get-dimension-size = s32[] get-dimension-size(p0), dimensions={1}
  tuple = (f32[4,4], f32[4,4]) tuple(p0, p1)
  get-tuple-element = f32[4,4] get-tuple-element(tuple), index=1
  imag = f32[4,4] imag(cx)
  infeed = ((f32[4,4]), token[]) infeed(tok), infeed_config="cfg"
  iota = s32[4,4] iota(), iota_dimension=1
  is-finite = pred[4,4] is-finite(p0)
  log = f32[4,4] log(p0)
  log-plus-one = f32[4,4] log-plus-one(p0)
  logistic = f32[4,4] logistic(p0)
  map = f32[4,4] map(p0, p1), dimensions={0,1}, to_apply=add
  maximum = f32[4,4] maximum(p0, p1)
  minimum = f32[4,4] minimum(p0, p1)
  mulhi = s32[4,4] mulhi(pi, pi)
  multiply = f32[4,4] multiply(p0, p1)
  negate = f32[4,4] negate(p0)
  not = pred[4,4] not(pr)
  opt-barrier = (f32[4,4], f32[4,4]) opt-barrier(tuple)
  or = pred[4,4] or(pr, pr)
  outfeed = token[] outfeed(p0, tok), outfeed_config="o", outfeed_shape=f32[4,4]{0,1}
  pad = f32[6,9] pad(p0, s), padding=1_1x0_1_1
  partition-id = u32[] partition-id()
  popcnt = s32[4,4] popcnt(pi)
  power = f32[4,4] power(p0, p1)
  ragged-all-to-all = f32[4,4] ragged-all-to-all(p0, p1, pi, pi, pi, pi), replica_groups={{0,1}}
  ragged-dot = f32[2,4,4] ragged-dot(p0, p1, pi), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={0}, rhs_group_dims={}
  real = f32[4,4] real(cx)
  recv = (f32[4,4], u32[], token[]) recv(tok), channel_id=5
  recv-done = (f32[4,4], token[]) recv-done(recv), channel_id=5
  reduce = f32[4] reduce(p0, s), dimensions={1}, to_apply=add
  reduce-precision = f32[4,4] reduce-precision(p0), exponent_bits=5, mantissa_bits=10
  reduce-scatter = f32[2,4] reduce-scatter(p0), channel_id=6, replica_groups={{0,1}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  reduce-window = f32[2,4] reduce-window(p0, s), window={size=2x1 stride=2x1 pad=0_0x0_0 lhs_dilate=1x1 rhs_dilate=1x1}, to_apply=add
  remainder = f32[4,4] remainder(p0, p1)
  replica-id = u32[] replica-id()
  reshape = f32[16] reshape(p0), inferred_dimension=0
  reverse = f32[4,4] reverse(p0), dimensions={0,1}
  rng = f32[4,4] rng(s, s), distribution=rng_normal
  rng-bit-generator = (u64[2], u32[4,4]) rng-bit-generator(u), algorithm=rng_three_fry
  rng-get-and-update-state = u64[2] rng-get-and-update-state(), delta=16
  round-nearest-afz = f32[4,4] round-nearest-afz(p0)
  round-nearest-even = f32[4,4] round-nearest-even(p0)
  rsqrt = f32[4,4] rsqrt(p0)
  scaled-dot = f32[4,4] scaled-dot(p0, p1, p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  scan = (f32[4,4], f32[4]) scan(p0, s), dimensions={0}, num_carries=1, is_reverse=true, to_apply=scan_body
  scatter = f32[4,4] scatter(p0, pi, p1), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=add
  select = f32[4,4] select(pr, p0, p1)
  select-and-scatter = f32[4,4] select-and-scatter(p0, p1, s), window={size=2x2 stride=2x2}, select=ge, scatter=add
  send = (f32[4,4], u32[], token[]) send(p0, tok), channel_id=7, is_host_transfer=true
  send-done = token[] send-done(send), channel_id=7, is_host_transfer=true
  set-dimension-size = f32[<=4,4] set-dimension-size(p0, i), dimensions={0}
  shift-left = s32[4,4] shift-left(pi, pi)
  shift-right-arithmetic = s32[4,4] shift-right-arithmetic(pi, pi)
  shift-right-logical = s32[4,4] shift-right-logical(pi, pi)
  sign = f32[4,4] sign(p0)
  sine = f32[4,4] sine(p0)
  sinh = f32[4,4] sinh(p0)
  slice = f32[2,2] slice(p0), slice={[0:4:2], [1:3]}
  sort = (f32[4,4], f32[4,4]) sort(p0, p1), dimensions={1}, is_stable=true, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    c = f32[] parameter(2)
    d = f32[] parameter(3)
    ROOT r = pred[] compare(a, b), direction=GT
  }
  sqrt = f32[4,4] sqrt(p0)
  stochastic-convert = bf16[4,4] stochastic-convert(p0, u)
  subtract = f32[4,4] subtract(p0, p1)
  tan = f32[4,4] tan(p0)
  tanh = f32[4,4] tanh(p0)
  topk = (f32[4,2], s32[4,2]) topk(p0), k=2, largest=false
  transpose = f32[4,4]{0,1} transpose(p0), dimensions={1,0}
  triangular-solve = f32[4,4] triangular-solve(p0, p1), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT
  init = (s32[], f32[4,4]) tuple(i, p0)
  while = (s32[], f32[4,4]) while(init), condition=cond, body=body, backend_config={"known_trip_count":{"n":"3"}}
  xor = pred[4,4] xor(pr, pr), control-predecessors={while, sort}
  ROOT root = (f32[4,4], pred[4,4]) tuple(add, xor)
}
"""

# xlapy's extension opcodes and XLA opcodes newer than jaxlib 0.10 (atan, shuffle,
# collective-reduce): only our own parser reads these.
EXTENSION_OPS = r"""
HloModule extensions

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  n = s32[] parameter(2)
  d = s32[1] parameter(3)
  atan = f32[4] atan(x), result_accuracy={mode=highest}
  shuffle = f32[4] shuffle(x)
  collective-reduce = f32[4] collective-reduce(x), replica_groups={}, to_apply=add
  bessel-i1e = f32[4] bessel-i1e(x)
  digamma = f32[4] digamma(x)
  dbid = f32[2,4] dynamic-broadcast-in-dim(x, d), dimensions={1}, known_expanding_dimensions={0}
  dconv = f32[4] dynamic-conv(x, y, d), window={size=1}, dim_labels=bf_io->bf
  dgather = f32[4] dynamic-gather(x, d, d), offset_dims={0}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1
  diota = s32[<=4] dynamic-iota(d), iota_dimension=0
  dpad = f32[<=9] dynamic-pad(x, n, d, d, d)
  erfc = f32[4] erfc(x)
  erf-inv = f32[4] erf-inv(x)
  igamma = f32[4] igamma(x, y)
  igammac = f32[4] igammac(x, y)
  lgamma = f32[4] lgamma(x)
  next-after = f32[4] next-after(x, y)
  polygamma = f32[4] polygamma(x, y)
  rds = f32[<=4] real-dynamic-slice(x, d, d, d)
  uq = s8[4] uniform-quantize(x)
  udq = f32[4] uniform-dequantize(uq)
  ROOT zeta = f32[4] zeta(x, y)
}
"""


def _opcodes(text: str) -> set[Opcode]:
    found = set()
    for comp in parse_hlo(text).computations:
        for instr in comp.instructions:
            found.add(instr.opcode)
            if is_sugared_async(instr):
                found.add(instr.attrs.calls.root.opcode)
    return found


def test_every_opcode_is_covered():
    covered = _opcodes(ALL_OPS) | _opcodes(EXTENSION_OPS)
    assert sorted(op.value for op in REGISTRY if op not in covered) == []
    assert _opcodes(EXTENSION_OPS) >= EXTENSIONS


@pytest.mark.parametrize("text", [ALL_OPS, EXTENSION_OPS], ids=["xla_ops", "extension_ops"])
@pytest.mark.parametrize(
    "options",
    [PrintOptions(print_large_constants=True), PrintOptions.short_parsable()],
    ids=["lossless", "short_parsable"],
)
def test_every_opcode_round_trips(text, options):
    assert_round_trip(text, options, frozenset({"control_predecessors"}))


def test_canonical_printing_of_every_opcode_is_stable():
    canonical = PrintOptions.canonical()
    expected = print_hlo(parse_hlo(ALL_OPS), options=canonical)
    assert print_hlo(parse_hlo(print_hlo(parse_hlo(ALL_OPS))), options=canonical) == expected


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("default", PrintOptions.default()),
        ("short_parsable", PrintOptions.short_parsable()),
        ("canonical", PrintOptions.canonical()),
    ],
)
def test_every_xla_opcode_prints_exactly_as_xla(preset, options):
    (xla,) = xla_print([ALL_OPS], preset)
    assert print_hlo(parse_hlo(ALL_OPS), options=options) == xla
