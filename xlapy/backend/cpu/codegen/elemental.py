"""Element generators of elementwise ops (XLA's elemental IR emitter): unary and binary
arithmetic, bitwise and logical ops, compare, select, clamp, convert and bitcast-convert.

Each op becomes one statement ``<name> = <ctor>(<expression>)`` over its operands' elements
read at the op's indexing map (identity; scalars of select/clamp at ``()``). Numerics are the
interpreter's: integers are widened, computed and truncated back to their width (two's
complement wrap-around); XLA's integer rules come from ``scalar_ops``; f16 and bf16 compute in
f32 (f64 for the interpreter's precise functions) and round after every op (``narrow``); float32
``exp/log/tanh/logistic/erf/erfc`` use the inline forms of ``fast_math`` (a few ulp, as
XLA:CPU), and the functions the interpreter evaluates in f64 (``math.*``) are evaluated in f64
and rounded once to the result type, as the interpreter does. Under ``flush_denormals`` operands and
results are flushed to zero by the rules of ``flush_rule``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xlapy import dtypes
from xlapy.backend.cpu.codegen import numba_types
from xlapy.backend.cpu.codegen.loop_emitter import Index, KernelEmitter, Val, generates
from xlapy.backend.cpu.codegen.numba_types import ctor
from xlapy.backend.cpu.kernel import NoKernel
from xlapy.dtypes import ElementType
from xlapy.interpreter.evals.convert import _fpu_conversion
from xlapy.ir.attrs import ComparisonDirection, ComparisonType
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode

# Functions of the float types evaluated in f64 with libm and rounded once (the interpreter's
# "precise" rows): the name of the ``math`` function.
_LIBM = {
    Opcode.EXPM1: "expm1",
    Opcode.LOG1P: "log1p",
    Opcode.SIN: "sin",
    Opcode.COS: "cos",
    Opcode.TAN: "tan",
    Opcode.ACOS: "acos",
    Opcode.ASIN: "asin",
    Opcode.ATAN: "atan",
    Opcode.ACOSH: "acosh",
    Opcode.ASINH: "asinh",
    Opcode.ATANH: "atanh",
}
# Inline float32 forms (fast_math) and the f64 function used for float64.
_FAST = {
    Opcode.EXP: ("exp_f32", "math.exp"),
    Opcode.LOG: ("log_f32", "math.log"),
    Opcode.TANH: ("tanh_f32", "math.tanh"),
    Opcode.LOGISTIC: ("logistic_f32", "logistic_f64"),
    Opcode.ERF: ("erf_f32", "math.erf"),
    Opcode.ERFC: ("erfc_f32", "math.erfc"),
}
LIBM_F64 = frozenset(
    {*_LIBM, *_FAST, Opcode.CBRT, Opcode.COSH, Opcode.SINH, Opcode.POWER, Opcode.ATAN2}
)
"""Ops whose float64 results come from LLVM's libm, where the interpreter calls numpy's own
routines: the two may differ in the last bit or two (the differential fuzzer found f64
``exponential-minus-one(1.0)`` and ``power(2.5, 2.5)``), so a kernel with one is not
bit-exact. Narrower types round the f64 result once and keep the interpreter's bits."""
_ROUNDING = {
    Opcode.CEIL: "np.ceil",
    Opcode.FLOOR: "np.floor",
    Opcode.ROUND_NEAREST_EVEN: "np.rint",
    Opcode.SQRT: "np.sqrt",
}
_ARITHMETIC = {
    Opcode.ADD: "+",
    Opcode.SUBTRACT: "-",
    Opcode.MULTIPLY: "*",
}
_BITWISE = {Opcode.AND: "&", Opcode.OR: "|", Opcode.XOR: "^"}
_COMPARE = {
    ComparisonDirection.EQ: "==",
    ComparisonDirection.NE: "!=",
    ComparisonDirection.LT: "<",
    ComparisonDirection.LE: "<=",
    ComparisonDirection.GT: ">",
    ComparisonDirection.GE: ">=",
}


def _mask(t: ElementType) -> str:
    return f"np.uint64({(1 << t.bits) - 1})"


def _pattern(t: ElementType, a: str) -> str:
    """The ``t.bits``-wide bit pattern of integer ``a`` as uint64."""
    if t.bits == 64:
        return f"np.uint64({a})"
    return f"(np.uint64({a}) & {_mask(t)})"


# Signed integer add, subtract, multiply and negate are emitted in uint64 and truncated to the
# type ("modular"): numba compiles int64 arithmetic to LLVM's ``add nsw`` (overflow is undefined
# behaviour), and LLVM used it: an s64 sum ``max(INT_MIN, x) + INT_MIN`` was folded to
# ``x | INT_MIN`` (the differential fuzzer's finding; the interpreter wraps to ``x + INT_MIN``).
# Unsigned arithmetic is a plain ``add``, and two's complement wrap-around gives the same bits.


def _wide(t: ElementType, a: str) -> str:
    """Integer ``a`` widened to the 64-bit type of its signedness."""
    return f"np.int64({a})" if t.is_signed else f"np.uint64({a})"


# ---- unary ----------------------------------------------------------------------------------


def unary_expression(em: KernelEmitter, opcode: Opcode, t: ElementType, a: str) -> str | None:
    """Source of ``opcode(a)`` for an operand of type ``t`` (None: not supported)."""
    if t.is_float:
        if t.bits == 64 and opcode in LIBM_F64:
            em.exact = False
        return _float_unary(em, opcode, t, a)
    if t.is_integer:
        return _integer_unary(em, opcode, t, a)
    if opcode is Opcode.NOT:
        return f"not {a}"
    if opcode is Opcode.COPY:
        return a
    return None


def _float_unary(em: KernelEmitter, opcode: Opcode, t: ElementType, a: str) -> str | None:
    c = ctor(t)
    if opcode is Opcode.ABS:
        return f"abs({a})"
    if opcode is Opcode.NEGATE:
        return f"-{a}"
    if opcode in (Opcode.COPY, Opcode.REAL):
        return a
    if opcode is Opcode.IMAG:
        return f"{c}(0.0)"
    if opcode is Opcode.SIGN:
        return f"{c}(1.0) if {a} > 0 else ({c}(-1.0) if {a} < 0 else {a})"
    narrow = t in numba_types.NARROW
    if opcode is Opcode.SQRT and narrow:  # precise: f64, then one rounding to the type
        return f"np.sqrt(np.float64({a}))"
    if opcode in _ROUNDING:
        return f"{_ROUNDING[opcode]}({a})"
    if opcode is Opcode.ROUND_NEAREST_AFZ:
        return f"{em.helper('scalar_ops', 'round_nearest_afz')}({a})"
    if opcode is Opcode.RSQRT:
        return f"1.0 / np.sqrt(np.float64({a}))"
    if opcode is Opcode.CBRT:
        return f"np.cbrt(np.float64({a}))"
    if opcode is Opcode.IS_FINITE:
        return f"math.isfinite({a})"
    if opcode is Opcode.ERFC and t is dtypes.F64:
        # The interpreter's f64 erfc (scipy's) is up to ~54 ulp from the exact value for x
        # in [6, 10], where libm's is within 2: this one stays on the interpreter's eval.
        return None
    if opcode in _FAST:
        fast, wide = _FAST[opcode]
        if t is dtypes.F32:
            em.exact = False
            return f"{em.helper('fast_math', fast)}({a})"
        if "." not in wide:
            wide = em.helper("fast_math", wide)
        return f"{wide}(np.float64({a}))" if narrow else f"{wide}({a})"
    if opcode in (Opcode.COSH, Opcode.SINH):  # CHLO's decomposition, as the interpreter
        bits = 32 if narrow else t.bits
        return f"{em.helper('fast_math', f'{opcode.value}_f{bits}')}({a})"
    if opcode in _LIBM:
        return f"math.{_LIBM[opcode]}(np.float64({a}))"
    return None


def _integer_unary(em: KernelEmitter, opcode: Opcode, t: ElementType, a: str) -> str | None:
    if opcode is Opcode.NEGATE:  # modular
        return f"np.uint64(0) - np.uint64({a})"
    if opcode is Opcode.ABS:
        return (
            f"np.int64(np.uint64(0) - np.uint64({a})) if {a} < 0 else np.int64({a})"
            if t.is_signed
            else a
        )
    if opcode is Opcode.SIGN:
        return f"1 if {a} > 0 else (-1 if {a} < 0 else 0)" if t.is_signed else f"1 if {a} else 0"
    if opcode is Opcode.NOT:
        return f"~{a}"
    if opcode is Opcode.COPY:
        return a
    if opcode is Opcode.CLZ:
        return f"{em.helper('scalar_ops', 'count_leading_zeros')}({_pattern(t, a)}, {t.bits})"
    if opcode is Opcode.POPCNT:
        return f"{em.helper('scalar_ops', 'popcount')}({_pattern(t, a)})"
    return None


# ---- binary ---------------------------------------------------------------------------------


def binary_expression(
    em: KernelEmitter, opcode: Opcode, t: ElementType, a: str, b: str
) -> str | None:
    """Source of ``opcode(a, b)`` for operands of type ``t`` (None: not supported)."""
    if t.is_float:
        if t.bits == 64 and opcode in LIBM_F64:
            em.exact = False
        return _float_binary(em, opcode, a, b)
    if t.is_integer:
        return _integer_binary(em, opcode, t, a, b)
    if t.is_pred:
        op = {
            Opcode.AND: "&",
            Opcode.OR: "|",
            Opcode.XOR: "^",
            Opcode.ADD: "|",
            Opcode.MAXIMUM: "|",
            Opcode.MULTIPLY: "&",
            Opcode.MINIMUM: "&",
        }.get(opcode)
        return None if op is None else f"{a} {op} {b}"
    return None


def _float_binary(em: KernelEmitter, opcode: Opcode, a: str, b: str) -> str | None:
    if opcode in _ARITHMETIC:
        return f"{a} {_ARITHMETIC[opcode]} {b}"
    if opcode is Opcode.DIVIDE:
        return f"{a} / {b}"
    if opcode is Opcode.REMAINDER:
        return f"np.fmod(np.float64({a}), np.float64({b}))"
    if opcode is Opcode.MAXIMUM:
        return f"{em.helper('scalar_ops', 'maximum_float')}({a}, {b})"
    if opcode is Opcode.MINIMUM:
        return f"{em.helper('scalar_ops', 'minimum_float')}({a}, {b})"
    if opcode is Opcode.POWER:
        return f"np.float64({a}) ** np.float64({b})"
    if opcode is Opcode.ATAN2:
        return f"math.atan2(np.float64({a}), np.float64({b}))"
    return None


def _integer_binary(
    em: KernelEmitter, opcode: Opcode, t: ElementType, a: str, b: str
) -> str | None:
    signed = t.is_signed
    if opcode in _ARITHMETIC:  # modular (see above)
        return f"np.uint64({a}) {_ARITHMETIC[opcode]} np.uint64({b})"
    if opcode in _BITWISE:
        return f"{a} {_BITWISE[opcode]} {b}"
    if opcode is Opcode.MAXIMUM:
        return f"{a} if {a} > {b} else {b}"
    if opcode is Opcode.MINIMUM:
        return f"{a} if {a} < {b} else {b}"
    if opcode in (Opcode.DIVIDE, Opcode.REMAINDER):
        kind = "divide" if opcode is Opcode.DIVIDE else "remainder"
        helper = em.helper("scalar_ops", f"{kind}_{'signed' if signed else 'unsigned'}")
        return f"{helper}({_wide(t, a)}, {_wide(t, b)})"
    amount = _pattern(t, b)
    if opcode is Opcode.SHIFT_LEFT:
        return f"{em.helper('scalar_ops', 'shift_left')}(np.uint64({a}), {amount}, {t.bits})"
    if opcode is Opcode.SHIFT_RIGHT_LOGICAL:
        helper = em.helper("scalar_ops", "shift_right_logical")
        return f"{helper}({_pattern(t, a)}, {amount}, {t.bits})"
    if opcode is Opcode.SHIFT_RIGHT_ARITHMETIC:
        helper = em.helper("scalar_ops", "shift_right_arithmetic")
        as_signed = f"np.int64({numba_types.signed_ctor(t)}({a}))"
        return f"{helper}({as_signed}, {amount}, {t.bits})"
    if opcode is Opcode.POWER:
        helper = em.helper("scalar_ops", "power_integer")
        return f"{helper}(np.uint64({a}), np.uint64({b}), {signed})"
    if opcode is Opcode.MULHI:
        if t.bits == 64:
            helper = em.helper("scalar_ops", f"mulhi_{'signed' if signed else 'unsigned'}64")
            return f"{helper}({a}, {b})"
        shift = f"np.int64({t.bits})" if signed else f"np.uint64({t.bits})"
        return f"({_wide(t, a)} * {_wide(t, b)}) >> {shift}"
    return None


# ---- compare, select, clamp, convert, bitcast-convert ---------------------------------------


def compare_expression(
    em: KernelEmitter, instr: HloInstruction, t: ElementType, a: str, b: str
) -> str:
    """``a <direction> b`` with the comparison type's reading of the operands."""
    op = _COMPARE[instr.attrs.direction]
    ctype: ComparisonType | None = instr.attrs.type
    if ctype is ComparisonType.TOTALORDER:
        if not t.is_float:
            raise NoKernel(f"compare {instr.name}: TOTALORDER on {t}")
        if t in numba_types.NARROW:
            key = em.helper("narrow", "total_order_key16")
            bits = em.helper("narrow", f"f32_to_{t.name}")
            return f"{key}({bits}({a})) {op} {key}({bits}({b}))"
        helper = em.helper("scalar_ops", f"total_order_key_f{t.bits}")
        return f"{helper}({a}) {op} {helper}({b})"
    if t.is_pred:
        return f"np.uint8({a}) {op} np.uint8({b})"
    if t.is_integer and ctype is ComparisonType.SIGNED and not t.is_signed:
        s = numba_types.signed_ctor(t)
        return f"{s}({a}) {op} {s}({b})"
    if t.is_integer and ctype is ComparisonType.UNSIGNED and t.is_signed:
        u = numba_types.unsigned_ctor(t)
        return f"{u}({a}) {op} {u}({b})"
    return f"{a} {op} {b}"


def convert_expression(em: KernelEmitter, source: ElementType, target: ElementType, a: str) -> str:
    """XLA's convert: x -> pred is ``x != 0``; float -> int truncates and saturates (NaN ->
    0); every other conversion is numba's (one rounding, or integer wrap-around)."""
    if source is target:
        return a
    if target.is_pred:
        return f"{a} != 0" if not source.is_pred else a
    if source.is_pred:
        return f"1 if {a} else 0"
    if target in numba_types.NARROW and source.is_integer and source.bits == 64:
        # rounded to odd at 53 bits first, so that rounding to the narrow type is single
        return f"{em.helper('narrow', 'int64_to_f64_odd')}({a}, {source.is_signed})"
    if source.is_float and target.is_integer:
        lo = -(1 << (target.bits - 1)) if target.is_signed else 0
        hi = (1 << (target.bits - 1)) - 1 if target.is_signed else (1 << target.bits) - 1
        if target.is_signed:
            return f"{em.helper('scalar_ops', 'float_to_signed')}({a}, {lo}, {hi})"
        return f"{em.helper('scalar_ops', 'float_to_unsigned')}({a}, np.uint64({hi}))"
    return a


def bitcast_expression(em: KernelEmitter, source: ElementType, target: ElementType, a: str) -> str:
    """Same-width bit reinterpretation (integer <-> integer, float <-> integer)."""
    if source.is_float and target.is_float:
        raise NoKernel(f"bitcast-convert {source} -> {target}")
    if source in numba_types.NARROW:
        return f"{em.helper('narrow', f'f32_to_{source.name}')}({a})"
    if target in numba_types.NARROW:
        return f"{em.helper('narrow', f'{target.name}_to_f32')}(np.uint16({a}))"
    if source.is_float:
        return f"{em.helper('scalar_ops', f'f{source.bits}_bits')}({a})"
    if target.is_float:
        helper = em.helper("scalar_ops", f"f{target.bits}_from_bits")
        return f"{helper}({numba_types.signed_ctor(source)}({a}))"
    return a


def _reduce_precision(em: KernelEmitter, instr: HloInstruction, x: Val) -> str | None:
    """reduce-precision of f32/f64 on the value's own bits (f16/bf16: the interpreter)."""
    if x.type not in (dtypes.F32, dtypes.F64):
        return None
    exponent_bits, mantissa_bits = instr.attrs.exponent_bits, instr.attrs.mantissa_bits
    if exponent_bits < 1 or mantissa_bits < 0:
        raise NoKernel(f"reduce-precision {instr.name}: invalid exponent/mantissa bits")
    helper = em.helper("scalar_ops", f"reduce_precision_f{x.type.bits}")
    return f"{helper}({x.text}, {exponent_bits}, {mantissa_bits})"


def _clamp(em: KernelEmitter, t: ElementType, low: str, x: str, high: str) -> str:
    if t.is_float:
        mx = em.helper("scalar_ops", "maximum_float")
        mn = em.helper("scalar_ops", "minimum_float")
        return f"{mn}({mx}({x}, {low}), {high})"
    if t.is_pred:
        return f"({x} | {low}) & {high}"
    raised = f"({x} if {x} > {low} else {low})"
    return f"{raised} if {raised} < {high} else {high}"


# ---- generators ---------------------------------------------------------------------------

ExpressionFn = Callable[[KernelEmitter, HloInstruction, Sequence[Val]], "str | None"]
_EXPRESSIONS: dict[Opcode, ExpressionFn] = {}

UNARY = (
    Opcode.ABS, Opcode.NEGATE, Opcode.SIGN, Opcode.CEIL, Opcode.FLOOR, Opcode.ROUND_NEAREST_AFZ,
    Opcode.ROUND_NEAREST_EVEN, Opcode.SQRT, Opcode.RSQRT, Opcode.CBRT, Opcode.EXP, Opcode.LOG,
    Opcode.TANH, Opcode.LOGISTIC, Opcode.IS_FINITE, Opcode.COPY, Opcode.REAL, Opcode.IMAG,
    Opcode.NOT, Opcode.CLZ, Opcode.POPCNT, Opcode.COSH, Opcode.SINH, Opcode.ERF, Opcode.ERFC,
    *_LIBM,
)  # fmt: skip
BINARY = (
    Opcode.ADD, Opcode.SUBTRACT, Opcode.MULTIPLY, Opcode.DIVIDE, Opcode.REMAINDER,
    Opcode.MAXIMUM, Opcode.MINIMUM, Opcode.POWER, Opcode.ATAN2, Opcode.AND, Opcode.OR,
    Opcode.XOR, Opcode.SHIFT_LEFT, Opcode.SHIFT_RIGHT_LOGICAL, Opcode.SHIFT_RIGHT_ARITHMETIC,
    Opcode.MULHI,
)  # fmt: skip

for _op in UNARY:
    _EXPRESSIONS[_op] = lambda em, instr, v: unary_expression(
        em, instr.opcode, v[0].type, v[0].text
    )
for _op in BINARY:
    _EXPRESSIONS[_op] = lambda em, instr, v: binary_expression(
        em, instr.opcode, v[0].type, v[0].text, v[1].text
    )
_EXPRESSIONS[Opcode.COMPARE] = lambda em, instr, v: compare_expression(
    em, instr, v[0].type, v[0].text, v[1].text
)
_EXPRESSIONS[Opcode.SELECT] = lambda em, instr, v: f"{v[1].text} if {v[0].text} else {v[2].text}"
_EXPRESSIONS[Opcode.CLAMP] = lambda em, instr, v: _clamp(
    em, v[1].type, v[0].text, v[1].text, v[2].text
)
_EXPRESSIONS[Opcode.CONVERT] = lambda em, instr, v: convert_expression(
    em, v[0].type, instr.shape.element_type, v[0].text
)
_EXPRESSIONS[Opcode.REDUCE_PRECISION] = lambda em, instr, v: _reduce_precision(em, instr, v[0])
_EXPRESSIONS[Opcode.BITCAST_CONVERT] = lambda em, instr, v: bitcast_expression(
    em, v[0].type, instr.shape.element_type, v[0].text
)

ELEMENTWISE: tuple[Opcode, ...] = tuple(_EXPRESSIONS)
_BIT_PRESERVING = (Opcode.SELECT, Opcode.COPY, Opcode.REAL, Opcode.BITCAST_CONVERT)
"""Ops whose f16/bf16 results are operand values as they are (no rounding to apply)."""
"""Opcodes with an elementwise generator."""


def wrap(em: KernelEmitter, t: ElementType, expr: str) -> str:
    """``expr`` converted to ``t`` (integer conversion truncates: the wrap-around; f16 and
    bf16 values are rounded to the type: f32 values directly, f64 values to odd first)."""
    if t in numba_types.NARROW:
        return f"{em.helper('narrow', f'round_{t.name}')}({expr})"
    return f"{ctor(t)}({expr})" if not t.is_pred else f"np.bool_({expr})"


# ---- flush to zero ------------------------------------------------------------------------

_KEEP_BITS = frozenset(
    {
        Opcode.ABS, Opcode.NEGATE, Opcode.COPY, Opcode.REAL, Opcode.IMAG, Opcode.SELECT,
        Opcode.BITCAST_CONVERT, Opcode.REDUCE_PRECISION,
    }
)  # fmt: skip
"""Ops XLA:CPU does on the bits: nothing is flushed (the interpreter's rows say the same)."""


def flush_helper(em: KernelEmitter, t: ElementType) -> str | None:
    """The helper flushing subnormal values of ``t`` to zero when the kernel is compiled
    with ``flush_denormals``; None when nothing is flushed (flushing off, integers, pred,
    f16, whose values are never subnormal in the f32 they are computed in)."""
    if not em.flush_denormals:
        return None
    if t in (dtypes.F32, dtypes.BF16):
        return em.helper("scalar_ops", "flush_f32")
    if t is dtypes.F64:
        return em.helper("scalar_ops", "flush_f64")
    return None


def flush_rule(instr: HloInstruction) -> tuple[tuple[int, ...], bool]:
    """``(operands read with subnormals as zeros, whether a subnormal result becomes
    zero)`` under ``flush_denormals``: XLA:CPU's DAZ/FTZ as the interpreter applies them
    (its elementwise rows, compare, clamp and convert): sign and data-movement ops keep
    bits; remainder reads only its divisor as flushed and keeps its result; power flushes
    only its result; TOTALORDER compares bits; convert flushes where XLA:CPU converts with
    an FPU instruction (``evals.convert``)."""
    op = instr.opcode
    every = tuple(range(len(instr.operands)))
    if op in _KEEP_BITS:
        return (), False
    if op is Opcode.REMAINDER:
        return (1,), False
    if op is Opcode.POWER:
        return (), True
    if op is Opcode.COMPARE:
        return ((), False) if instr.attrs.type is ComparisonType.TOTALORDER else (every, False)
    if op is Opcode.CONVERT:
        source, target = instr.operands[0].shape.element_type, instr.shape.element_type
        fpu = source is not target and _fpu_conversion(source, target)
        return (every if fpu else ()), fpu
    return every, True


def flushed(em: KernelEmitter, value: Val) -> Val:
    """``value`` with a subnormal read as zero (itself when nothing is flushed)."""
    helper = flush_helper(em, value.type)
    if helper is None or value.text in em.flushed:
        return value
    hint = f"{value.text}_ftz" if value.text.isidentifier() else "flushed"
    result = em.emit(hint, f"{helper}({value.text})", value.type, [value])
    em.flushed.add(result.text)
    return result


@generates(*ELEMENTWISE)
def elementwise(em: KernelEmitter, instr: HloInstruction, index: Index) -> Val:
    """One statement: the op's expression on its operands' elements at ``index``."""
    result = instr.shape.element_type
    numba_types.check(result, f"{instr.opcode.value} {instr.name}")
    for operand in instr.operands:
        if not operand.shape.is_array:
            raise NoKernel(f"{instr.opcode.value} {instr.name}: tuple operand")
        numba_types.check(operand.shape.element_type, f"{instr.opcode.value} {instr.name}")
    if instr.opcode is Opcode.BITCAST_CONVERT and instr.shape.rank != instr.operands[0].shape.rank:
        raise NoKernel(f"bitcast-convert {instr.name}: changes the element width")
    vals = [em.operand(instr, k, index) for k in range(len(instr.operands))]
    flush_result = False
    if em.flush_denormals:
        positions, flush_result = flush_rule(instr)
        vals = [flushed(em, v) if k in positions else v for k, v in enumerate(vals)]
    expr = _EXPRESSIONS[instr.opcode](em, instr, vals)
    if expr is None:
        raise NoKernel(f"{instr.opcode.value} {instr.name}: not compiled for {vals[0].type}")
    if len(vals) == 1 and expr == vals[0].text and vals[0].type is result:
        return vals[0]
    if result in numba_types.NARROW and instr.opcode in _BIT_PRESERVING:
        return em.emit(instr.name, expr, result, vals)  # NaN payloads kept, as the interpreter
    value = wrap(em, result, expr)
    helper = flush_helper(em, result) if flush_result else None
    if helper is None:
        return em.emit(instr.name, value, result, vals)
    flushed_value = em.emit(instr.name, f"{helper}({value})", result, vals)  # rounded first
    em.flushed.add(flushed_value.text)
    return flushed_value
