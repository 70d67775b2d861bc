"""Eval functions, one module per op family; each registers with ``@evaluates(Opcode.X)``.

A process imports only the modules of the opcodes it evaluates (``evaluator.evaluator_for``:
importing all ~30 modules costs ~15-60 ms, more than a small program's whole run), by the
index below; ``evaluator.load_evaluators`` imports every module. The index may name more
than needed (importing a module registers its dependencies' evals too), never less: an
opcode it misses, or a stale entry, makes ``evaluator_for`` import every module, so the
index costs time when wrong, never a result (``tests/interpreter/test_eval_index.py`` keeps
it exact).
"""

MODULES: dict[str, str] = {
    "async_ops": "async-done async-start async-update copy-done copy-start",
    "batch_norm": "batch-norm-grad batch-norm-inference batch-norm-training",
    "binary_arith": "add atan2 complex divide maximum minimum mulhi multiply power remainder "
    "subtract",
    "bitwise": "and count-leading-zeros not or popcnt shift-left shift-right-arithmetic "
    "shift-right-logical xor",
    "collectives": "all-gather all-gather-done all-gather-start all-reduce all-reduce-done "
    "all-reduce-start all-to-all collective-broadcast collective-permute collective-permute-done "
    "collective-permute-start collective-reduce partition-id ragged-all-to-all reduce-scatter "
    "replica-id",
    "compare_select": "clamp compare select",
    "contraction": "dot ragged-dot scaled-dot",
    "control_flow": "call conditional fusion while",
    "convert": "bitcast-convert convert copy reduce-precision stochastic-convert",
    "convolution": "convolution dynamic-conv",
    "dynamic_shapes": "dynamic-broadcast-in-dim dynamic-gather dynamic-iota dynamic-pad "
    "dynamic-reshape get-dimension-size real-dynamic-slice set-dimension-size",
    "feeds": "infeed outfeed recv recv-done send send-done",
    "fft": "fft",
    "gather_scatter": "gather scatter",
    "linalg": "cholesky triangular-solve",
    "quantized": "uniform-dequantize uniform-quantize",
    "reduce": "map reduce scan",
    "rng": "rng rng-bit-generator rng-get-and-update-state",
    "shape_ops": "add-dependency after-all bitcast broadcast constant domain get-tuple-element "
    "iota opt-barrier reshape transpose tuple",
    "slicing": "concatenate dynamic-slice dynamic-update-slice pad reverse slice",
    "sort": "sort topk",
    "special_functions": "bessel-i1e digamma erf erf-inv erfc igamma igammac lgamma next-after "
    "polygamma zeta",
    "unary_math": "abs acos acosh asin asinh atan atanh cbrt ceil cosh cosine exponential "
    "exponential-minus-one floor imag is-finite log log-plus-one logistic negate real "
    "round-nearest-afz round-nearest-even rsqrt sign sine sinh sqrt tan tanh",
    "windows": "reduce-window select-and-scatter",
}
"""Module of this package -> the opcodes (``Opcode.value``, space-separated) whose evals
importing it registers."""


CUSTOM_CALL_MODULES = ("checks", "jax_custom_calls", "lapack", "parallel", "sharding_annotations",
                       "sort")  # fmt: skip
"""The modules that register custom-call targets (``@custom_call_target``): a custom call
whose target is not registered yet imports these (then, failing that, every module)."""


def module_of(opcode: str) -> str | None:
    """The module whose import registers the eval of ``opcode`` (an ``Opcode.value``), or
    None when the index names none."""
    if not _by_opcode:
        _by_opcode.update({op: module for module, ops in MODULES.items() for op in ops.split()})
    return _by_opcode.get(opcode)


_by_opcode: dict[str, str] = {}
