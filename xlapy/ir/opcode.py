"""The Opcode enum: one sorted line per HLO opcode; the value is the HLO text name.

``Opcode("add")`` parses a name, ``.value`` prints it. Extension opcodes (StableHLO and CHLO ops
that have no HLO opcode) are listed after XLA's own and are marked in ``EXTENSIONS``.
"""

from __future__ import annotations

import enum


class Opcode(enum.Enum):
    """Every opcode XLA prints (xla/hlo/ir/hlo_opcode.h), then xlapy's extensions."""

    # Members compare by identity; hashing them by identity too (in C) rather than by name
    # (enum's Python-level __hash__) makes the many opcode-keyed dict lookups cheaper.
    __hash__ = object.__hash__

    # keep-sorted start
    ABS = "abs"
    ACOS = "acos"
    ACOSH = "acosh"
    ADD = "add"
    ADD_DEPENDENCY = "add-dependency"
    AFTER_ALL = "after-all"
    ALL_GATHER = "all-gather"
    ALL_GATHER_DONE = "all-gather-done"
    ALL_GATHER_START = "all-gather-start"
    ALL_REDUCE = "all-reduce"
    ALL_REDUCE_DONE = "all-reduce-done"
    ALL_REDUCE_START = "all-reduce-start"
    ALL_TO_ALL = "all-to-all"
    AND = "and"
    ASIN = "asin"
    ASINH = "asinh"
    ASYNC_DONE = "async-done"
    ASYNC_START = "async-start"
    ASYNC_UPDATE = "async-update"
    ATAN = "atan"
    ATAN2 = "atan2"
    ATANH = "atanh"
    BATCH_NORM_GRAD = "batch-norm-grad"
    BATCH_NORM_INFERENCE = "batch-norm-inference"
    BATCH_NORM_TRAINING = "batch-norm-training"
    BITCAST = "bitcast"
    BITCAST_CONVERT = "bitcast-convert"
    BROADCAST = "broadcast"
    CALL = "call"
    CBRT = "cbrt"
    CEIL = "ceil"
    CHOLESKY = "cholesky"
    CLAMP = "clamp"
    CLZ = "count-leading-zeros"
    COLLECTIVE_BROADCAST = "collective-broadcast"
    COLLECTIVE_PERMUTE = "collective-permute"
    COLLECTIVE_PERMUTE_DONE = "collective-permute-done"
    COLLECTIVE_PERMUTE_START = "collective-permute-start"
    COLLECTIVE_REDUCE = "collective-reduce"
    COMPARE = "compare"
    COMPLEX = "complex"
    CONCATENATE = "concatenate"
    CONDITIONAL = "conditional"
    CONSTANT = "constant"
    CONVERT = "convert"
    CONVOLUTION = "convolution"
    COPY = "copy"
    COPY_DONE = "copy-done"
    COPY_START = "copy-start"
    COS = "cosine"
    COSH = "cosh"
    CUSTOM_CALL = "custom-call"
    DIVIDE = "divide"
    DOMAIN = "domain"
    DOT = "dot"
    DYNAMIC_RESHAPE = "dynamic-reshape"
    DYNAMIC_SLICE = "dynamic-slice"
    DYNAMIC_UPDATE_SLICE = "dynamic-update-slice"
    ERF = "erf"
    EXP = "exponential"
    EXPM1 = "exponential-minus-one"
    FFT = "fft"
    FLOOR = "floor"
    FUSION = "fusion"
    GATHER = "gather"
    GET_DIMENSION_SIZE = "get-dimension-size"
    GET_TUPLE_ELEMENT = "get-tuple-element"
    IMAG = "imag"
    INFEED = "infeed"
    IOTA = "iota"
    IS_FINITE = "is-finite"
    LOG = "log"
    LOG1P = "log-plus-one"
    LOGISTIC = "logistic"
    MAP = "map"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    MULHI = "mulhi"
    MULTIPLY = "multiply"
    NEGATE = "negate"
    NOT = "not"
    OPTIMIZATION_BARRIER = "opt-barrier"
    OR = "or"
    OUTFEED = "outfeed"
    PAD = "pad"
    PARAMETER = "parameter"
    PARTITION_ID = "partition-id"
    POPCNT = "popcnt"
    POWER = "power"
    RAGGED_ALL_TO_ALL = "ragged-all-to-all"
    RAGGED_DOT = "ragged-dot"
    REAL = "real"
    RECV = "recv"
    RECV_DONE = "recv-done"
    REDUCE = "reduce"
    REDUCE_PRECISION = "reduce-precision"
    REDUCE_SCATTER = "reduce-scatter"
    REDUCE_WINDOW = "reduce-window"
    REMAINDER = "remainder"
    REPLICA_ID = "replica-id"
    RESHAPE = "reshape"
    REVERSE = "reverse"
    RNG = "rng"
    RNG_BIT_GENERATOR = "rng-bit-generator"
    RNG_GET_AND_UPDATE_STATE = "rng-get-and-update-state"
    ROUND_NEAREST_AFZ = "round-nearest-afz"
    ROUND_NEAREST_EVEN = "round-nearest-even"
    RSQRT = "rsqrt"
    SCALED_DOT = "scaled-dot"
    SCAN = "scan"
    SCATTER = "scatter"
    SELECT = "select"
    SELECT_AND_SCATTER = "select-and-scatter"
    SEND = "send"
    SEND_DONE = "send-done"
    SET_DIMENSION_SIZE = "set-dimension-size"
    SHIFT_LEFT = "shift-left"
    SHIFT_RIGHT_ARITHMETIC = "shift-right-arithmetic"
    SHIFT_RIGHT_LOGICAL = "shift-right-logical"
    SHUFFLE = "shuffle"
    SIGN = "sign"
    SIN = "sine"
    SINH = "sinh"
    SLICE = "slice"
    SORT = "sort"
    SQRT = "sqrt"
    STOCHASTIC_CONVERT = "stochastic-convert"
    SUBTRACT = "subtract"
    TAN = "tan"
    TANH = "tanh"
    TOPK = "topk"
    TRANSPOSE = "transpose"
    TRIANGULAR_SOLVE = "triangular-solve"
    TUPLE = "tuple"
    WHILE = "while"
    XOR = "xor"
    # keep-sorted end

    # xlapy extensions: StableHLO / CHLO ops with no HLO opcode.
    # keep-sorted start
    BESSEL_I1E = "bessel-i1e"
    DIGAMMA = "digamma"
    DYNAMIC_BROADCAST_IN_DIM = "dynamic-broadcast-in-dim"
    DYNAMIC_CONV = "dynamic-conv"
    DYNAMIC_GATHER = "dynamic-gather"
    DYNAMIC_IOTA = "dynamic-iota"
    DYNAMIC_PAD = "dynamic-pad"
    ERFC = "erfc"
    ERF_INV = "erf-inv"
    IGAMMA = "igamma"
    IGAMMAC = "igammac"
    LGAMMA = "lgamma"
    NEXT_AFTER = "next-after"
    POLYGAMMA = "polygamma"
    REAL_DYNAMIC_SLICE = "real-dynamic-slice"
    UNIFORM_DEQUANTIZE = "uniform-dequantize"
    UNIFORM_QUANTIZE = "uniform-quantize"
    ZETA = "zeta"
    # keep-sorted end

    def __str__(self) -> str:
        return self.value


EXTENSIONS: frozenset[Opcode] = frozenset(
    {
        Opcode.BESSEL_I1E,
        Opcode.DIGAMMA,
        Opcode.DYNAMIC_BROADCAST_IN_DIM,
        Opcode.DYNAMIC_CONV,
        Opcode.DYNAMIC_GATHER,
        Opcode.DYNAMIC_IOTA,
        Opcode.DYNAMIC_PAD,
        Opcode.ERF_INV,
        Opcode.ERFC,
        Opcode.IGAMMA,
        Opcode.IGAMMAC,
        Opcode.LGAMMA,
        Opcode.NEXT_AFTER,
        Opcode.POLYGAMMA,
        Opcode.REAL_DYNAMIC_SLICE,
        Opcode.UNIFORM_DEQUANTIZE,
        Opcode.UNIFORM_QUANTIZE,
        Opcode.ZETA,
    }
)
"""Opcodes xlapy adds for StableHLO/CHLO ops; XLA's own parser does not know them."""
