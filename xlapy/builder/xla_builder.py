"""XlaBuilder and XlaOp: build HLO from Python the way XLA's C++ builder does.

Every op function (``xlapy.builder.ops``) ends in ``XlaBuilder.add``, which runs shape
inference at once, so a bad op raises ``InvalidArgument`` on the line that built it.
``XlaBuilder.build`` turns the instructions into an ``HloModule`` (callees first, entry last,
names unique). Python operators and indexing on XlaOp are sugar over the same op functions.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from xlapy.errors import InvalidArgument, Unimplemented
from xlapy.ir.clone import clone_computation
from xlapy.ir.computation import HloComputation
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.ir.opcode import Opcode
from xlapy.shape import Shape
from xlapy.shape_inference import infer_shape, make_attrs
from xlapy.text.limits import array_size_problem

if TYPE_CHECKING:
    from xlapy.dtypes import ElementType

XlaComputation: TypeAlias = HloModule
"""What ``XlaBuilder.build`` returns; usable wherever an op takes a computation."""

ComputationLike: TypeAlias = "XlaBuilder | HloModule | HloComputation | Callable[..., Any]"

Operand: TypeAlias = "XlaOp | complex | np.ndarray | np.generic | Sequence[Any]"
"""An operand that may also be a Python/numpy number or array: it becomes a constant of the
other operand's element type (``as_op``)."""


class XlaOpUsageError(InvalidArgument, TypeError):
    """An XlaOp used as a Python value (``if op:``, ``for v in op``); also a TypeError, so
    Python's protocols (iteration, truth tests) see the usual exception type."""


class XlaOp:
    """A handle to a value being built: its ``shape`` and the ``builder`` that owns it.

    Arithmetic operators, comparisons (``< <= > >=``; use ``ops.Eq``/``ops.Ne`` for
    equality), ``@`` (Dot), ``-x``, ``~x``, ``abs(x)``, shifts, bit operators and numpy-style
    indexing (ints, slices with positive steps, ``...``, ``None``, scalar XlaOps) build ops.
    """

    __slots__ = ("_builder", "_instr")

    def __init__(self, builder: XlaBuilder, instr: HloInstruction) -> None:
        self._builder = builder
        self._instr = instr

    @property
    def shape(self) -> Shape:
        return self._instr.shape

    @property
    def builder(self) -> XlaBuilder:
        return self._builder

    @property
    def name(self) -> str:
        return self._instr.name

    @property
    def instruction(self) -> HloInstruction:
        """The instruction as built (before ``build`` copies it into a module)."""
        return self._instr

    @property
    def dtype(self) -> ElementType:
        return self._instr.shape.element_type

    @property
    def ndim(self) -> int:
        return self._instr.shape.rank

    @property
    def T(self) -> XlaOp:  # noqa: N802
        """The transpose (dimensions reversed)."""
        from xlapy.builder import ops

        return ops.Transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    def __repr__(self) -> str:
        return f"XlaOp({self._instr.name}: {self.shape.to_hlo(layout=False)})"

    def __bool__(self) -> bool:
        raise XlaOpUsageError(
            f"XlaOp {self._instr.name} has no truth value while building; use ops.Select or "
            "ops.Conditional to branch on it"
        )

    def __iter__(self) -> Any:
        raise XlaOpUsageError(f"XlaOp {self._instr.name} is not iterable; index it instead")

    # ---- operators -----------------------------------------------------------------
    def _binary(self, name: str, other: object, reverse: bool = False) -> XlaOp:
        from xlapy.builder import ops

        token = CURRENT_OP.set(name)  # conversion errors name the op, as inside ops.<name>
        try:
            rhs = as_op(self._builder, other, self.dtype)
        finally:
            CURRENT_OP.reset(token)
        fn = getattr(ops, name)
        return fn(rhs, self) if reverse else fn(self, rhs)  # type: ignore[no-any-return]

    def __add__(self, other: object) -> XlaOp:
        return self._binary("Add", other)

    def __radd__(self, other: object) -> XlaOp:
        return self._binary("Add", other, True)

    def __sub__(self, other: object) -> XlaOp:
        return self._binary("Sub", other)

    def __rsub__(self, other: object) -> XlaOp:
        return self._binary("Sub", other, True)

    def __mul__(self, other: object) -> XlaOp:
        return self._binary("Mul", other)

    def __rmul__(self, other: object) -> XlaOp:
        return self._binary("Mul", other, True)

    def __truediv__(self, other: object) -> XlaOp:
        return self._binary("Div", other)

    def __rtruediv__(self, other: object) -> XlaOp:
        return self._binary("Div", other, True)

    def __mod__(self, other: object) -> XlaOp:
        return self._binary("Rem", other)

    def __rmod__(self, other: object) -> XlaOp:
        return self._binary("Rem", other, True)

    def __pow__(self, other: object) -> XlaOp:
        return self._binary("Pow", other)

    def __rpow__(self, other: object) -> XlaOp:
        return self._binary("Pow", other, True)

    def __matmul__(self, other: object) -> XlaOp:
        return self._binary("Dot", other)

    def __rmatmul__(self, other: object) -> XlaOp:
        return self._binary("Dot", other, True)

    def __and__(self, other: object) -> XlaOp:
        return self._binary("And", other)

    def __rand__(self, other: object) -> XlaOp:
        return self._binary("And", other, True)

    def __or__(self, other: object) -> XlaOp:
        return self._binary("Or", other)

    def __ror__(self, other: object) -> XlaOp:
        return self._binary("Or", other, True)

    def __xor__(self, other: object) -> XlaOp:
        return self._binary("Xor", other)

    def __rxor__(self, other: object) -> XlaOp:
        return self._binary("Xor", other, True)

    def __lshift__(self, other: object) -> XlaOp:
        return self._binary("ShiftLeft", other)

    def __rshift__(self, other: object) -> XlaOp:
        """Arithmetic shift for signed types, logical for unsigned ones (as numpy)."""
        name = "ShiftRightLogical" if self.dtype.is_unsigned else "ShiftRightArithmetic"
        return self._binary(name, other)

    def __lt__(self, other: object) -> XlaOp:
        return self._binary("Lt", other)

    def __le__(self, other: object) -> XlaOp:
        return self._binary("Le", other)

    def __gt__(self, other: object) -> XlaOp:
        return self._binary("Gt", other)

    def __ge__(self, other: object) -> XlaOp:
        return self._binary("Ge", other)

    def __neg__(self) -> XlaOp:
        from xlapy.builder import ops

        return ops.Neg(self)

    def __pos__(self) -> XlaOp:
        return self

    def __invert__(self) -> XlaOp:
        from xlapy.builder import ops

        return ops.Not(self)

    def __abs__(self) -> XlaOp:
        from xlapy.builder import ops

        return ops.Abs(self)

    def __getitem__(self, key: object) -> XlaOp:
        from xlapy.builder.indexing import index

        return index(self, key)


CURRENT_OP: ContextVar[str] = ContextVar("xlapy_builder_op", default="")
"""The builder function being called (set by ``argcheck.validated``), for argument errors."""


def argument_error(what: str, message: str) -> InvalidArgument:
    """``<function>: <what> <message>`` naming the op function being called, when known."""
    op = CURRENT_OP.get()
    return InvalidArgument(f"{op}: {what} {message}" if op else f"{what} {message}")


def as_op(builder: XlaBuilder, value: object, dtype: ElementType, what: str = "operand") -> XlaOp:
    """``value`` if it is an XlaOp, else a scalar/array constant of element type ``dtype``.

    Python numbers and lists become ``dtype`` only when no value changes (no truncated
    fraction, no integer out of range, no complex part dropped); numpy values keep their dtype.
    """
    if isinstance(value, XlaOp):
        return value
    from xlapy.builder import ops

    if isinstance(value, np.ndarray | np.generic):
        if value.dtype.kind not in "biufcV":
            raise argument_error(
                what, f"must be an XlaOp or numbers; got an array of {value.dtype}"
            )
        return ops.Constant(builder, value)
    return ops.Constant(builder, python_constant(value, dtype, what))


_KINDS = {"pred": "b", "int": "biu", "float": "biuf", "complex": "biufc"}


def python_constant(value: object, dtype: ElementType, what: str) -> np.ndarray:
    """A Python number or (nested) list as an array of ``dtype``, refusing lossy conversions."""
    want = dtype.numpy
    kind = (
        "pred" if dtype.is_pred else "complex" if dtype.is_complex
        else "float" if dtype.is_float else "int" if dtype.is_integer else None
    )  # fmt: skip
    try:
        raw = np.asarray(value) if value is not None and not isinstance(value, str) else None
    except (ValueError, TypeError):
        raw = None
    if raw is None or raw.dtype.kind not in "biufc" or want is None or kind is None:
        raise argument_error(
            what,
            f"must be an XlaOp or a number (or list of numbers) for {dtype}; got {value!r:.60}",
        )
    if raw.dtype.kind not in _KINDS[kind]:
        raise argument_error(
            what,
            f"{value!r:.60} cannot become {dtype} without changing its value; pass an XlaOp or "
            "a numpy value of the intended type",
        )
    with np.errstate(all="ignore"):
        array = raw.astype(want)
    if kind == "int" and not np.array_equal(array.astype(raw.dtype), raw):
        raise argument_error(what, f"{value!r:.60} is out of the range of {dtype}")
    return array


class XlaBuilder:
    """Builds one computation; ``create_sub_builder`` makes builders for the computations
    that ops such as Reduce, Map, Sort and While take.

    Example::

        b = XlaBuilder("axpy")
        x = ops.Parameter(b, 0, xlapy.shape("f32[3]"), "x")
        y = ops.Parameter(b, 1, xlapy.shape("f32[3]"), "y")
        ops.Add(ops.Mul(ops.ConstantR0(b, 2.0), x), y)
        module = b.build()
    """

    def __init__(self, name: str = "builder") -> None:
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"XlaBuilder needs a non-empty str name; got {name!r}")
        self.name = name
        self.parent: XlaBuilder | None = None
        self._instrs: list[HloInstruction] = []
        self._params: dict[int, HloInstruction] = {}
        self._built: HloModule | None = None

    def __repr__(self) -> str:
        return f"<XlaBuilder {self.name}: {len(self._instrs)} instructions>"

    @property
    def instructions(self) -> tuple[HloInstruction, ...]:
        return tuple(self._instrs)

    def create_sub_builder(self, name: str) -> XlaBuilder:
        """A builder for a computation that an op of this builder will call."""
        sub = XlaBuilder(name)
        sub.parent = self
        return sub

    def get_shape(self, op: XlaOp) -> Shape:
        self.check_owned(op)
        return op.shape

    def check_owned(self, op: object, what: str = "operand") -> XlaOp:
        """``op`` if it is an XlaOp of this builder; raises naming both builders otherwise."""
        if not isinstance(op, XlaOp):
            raise argument_error(what, f"must be an XlaOp; got {type(op).__name__}")
        if op.builder is not self:
            raise argument_error(
                what,
                f"{op.name} belongs to builder {op.builder.name!r}, not to {self.name!r}; "
                "every operand of an op must come from the same builder",
            )
        return op

    # ---- adding instructions -----------------------------------------------------------
    def add(
        self,
        opcode: Opcode,
        operands: Sequence[XlaOp] = (),
        attrs: Mapping[str, Any] | None = None,
        result: Shape | None = None,
        *,
        name: str | None = None,
        frontend_attributes: Mapping[str, str] | None = None,
        backend_config: str = "",
    ) -> XlaOp:
        """Infers the result shape (raising InvalidArgument here, at the call site) and
        appends the instruction."""
        for i, op in enumerate(operands):
            self.check_owned(op, f"{opcode.value}: operand {i}")
        checked = make_attrs(opcode, attrs)
        shape = infer_shape(opcode, [op.shape for op in operands], checked, result=result)
        for leaf in shape.leaves():
            problem = leaf.is_array and array_size_problem(leaf.element_type, leaf.dims)
            if problem:
                raise InvalidArgument(f"{opcode.value}: the result {shape} is too large: {problem}")
        if any(leaf.element_type.is_quantized for leaf in shape.leaves()):
            raise Unimplemented(
                f"{opcode.value}: XlaBuilder builds HLO, which has no quantized element types "
                f"(XLA's HLO has none); got {shape.to_mlir()}. Write quantized programs in "
                "StableHLO text"
            )
        if opcode is Opcode.PARAMETER:
            number = checked.parameter_number
            if number in self._params:
                raise InvalidArgument(
                    f"parameter: parameter number {number} is already used by "
                    f"{self._params[number].name} in builder {self.name!r}"
                )
        instr = HloInstruction(
            opcode,
            shape,
            [op.instruction for op in operands],
            checked,
            name=name or opcode.value,
            frontend_attributes=frontend_attributes,
            backend_config=backend_config,
        )
        if opcode is Opcode.PARAMETER:
            self._params[checked.parameter_number] = instr
        self._instrs.append(instr)
        self._built = None
        return XlaOp(self, instr)

    def computation(
        self,
        comp: ComputationLike,
        param_shapes: Sequence[Shape] | None = None,
        name: str = "computation",
    ) -> HloComputation:
        """The HloComputation for a computation argument: a built module (its entry), an
        HloComputation, a sub-builder (built now) or a Python function (traced on parameters
        of ``param_shapes``, returning an XlaOp or a tuple of them)."""
        if isinstance(comp, HloModule):
            return comp.entry
        if isinstance(comp, HloComputation):
            return comp
        if isinstance(comp, XlaBuilder):
            if comp is self:
                raise argument_error(
                    name, f"is the builder {self.name!r}, which cannot call itself"
                )
            return comp.build().entry
        if callable(comp):
            if param_shapes is None:
                raise InvalidArgument(
                    f"{name}: a Python function needs known parameter shapes; pass a built "
                    "computation instead"
                )
            from xlapy.builder import ops

            fn_name = getattr(comp, "__name__", "")
            _check_signature(comp, param_shapes, name)
            label = fn_name if fn_name.isidentifier() else name
            sub = self.create_sub_builder(re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_"))
            params = [ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(param_shapes)]
            out = comp(*params)
            if isinstance(out, tuple | list):
                out = ops.Tuple(
                    sub, [as_op(sub, o, p.dtype) for o, p in zip(out, params, strict=False)]
                )
            elif not isinstance(out, XlaOp):
                out = as_op(sub, out, params[0].dtype if params else _default_dtype())
            return sub.build(out).entry
        raise argument_error(
            name,
            "must be an XlaComputation (HloModule), an XlaBuilder or a function; got "
            f"{type(comp).__name__}",
        )

    # ---- building ---------------------------------------------------------------------
    def build(self, root: XlaOp | None = None) -> HloModule:
        """The module: every called computation (callees first), then this one as entry.

        Args:
            root: the result op; the last op added when omitted.

        Raises:
            InvalidArgument: no instructions, a root from another builder, or parameter
                numbers that are not 0..n-1.
        """
        if root is None and self._built is not None:
            return self._built
        if not self._instrs:
            raise InvalidArgument(f"builder {self.name!r} has no instructions to build")
        if root is not None:
            self.check_owned(root, "root")
        numbers = sorted(self._params)
        if numbers != list(range(len(numbers))):
            missing = sorted(set(range(len(numbers))) - set(numbers))
            raise InvalidArgument(
                f"builder {self.name!r}: parameter numbers must be 0..{len(numbers) - 1}; "
                f"missing {missing}, got {numbers[-1]}"
            )
        staging = HloComputation(self.name)
        staging.instructions = list(self._instrs)
        staging.root = root.instruction if root is not None else self._instrs[-1]
        module = HloModule(self.name)
        entry = clone_computation(staging, module, {})
        module.entry = entry
        if root is None:
            self._built = module
        return module


def _check_signature(fn: Callable[..., Any], param_shapes: Sequence[Shape], name: str) -> None:
    """A Python function given as a computation must accept one argument per parameter."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # builtins without a signature: called as they are
    try:
        signature.bind(*param_shapes)
    except TypeError:
        shapes = ", ".join(s.to_hlo(layout=False) for s in param_shapes)
        raise argument_error(
            name,
            f"must take {len(param_shapes)} parameter(s) ({shapes}); got "
            f"{getattr(fn, '__name__', 'a function')}{signature}",
        ) from None


def _default_dtype() -> ElementType:
    from xlapy import dtypes

    return dtypes.F32


def builder_of(*values: object) -> XlaBuilder:
    """The builder of the first XlaOp among ``values`` (nested sequences searched)."""
    for value in values:
        if isinstance(value, XlaOp):
            return value.builder
        if isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, XlaOp):
                    return item.builder
    raise InvalidArgument("cannot tell which builder to use: no XlaOp among the arguments")
