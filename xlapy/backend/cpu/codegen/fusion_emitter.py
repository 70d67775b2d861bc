"""From a root instruction to a compiled ``Kernel``: outputs and leaves become flat array
arguments, the loop plan is chosen (one loop over the output index, a reduction plan, or a
scan for a cumulative reduce-window),
the kernel source is written to the disk cache and compiled by numba, and a runner calls it.

Generated modules look like this (gelu, shortened)::

    @numba.njit("void(float32[::1], float32[::1])", cache=True, error_model="numpy",
                nogil=True, parallel=True)
    def fusion_gelu(p0, out0):
        for i0 in numba.prange(16777216):
            param_0 = p0[U(i0)]
            integer_pow_1 = np.float32(param_0 * param_0)
            ...
            tanh_0 = np.float32(tanh_f32(mul_3))
            ...
            out0[U(i0)] = mul_0
"""

from __future__ import annotations

import hashlib
import math
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numba.core.errors import NumbaError

from xlapy.backend.cpu.codegen import (
    data_movement,
    elemental,  # noqa: F401  (registers the elementwise generators)
    numba_types,
    reduce_window_emitter,  # noqa: F401  (registers the reduce-window generator)
    reduction_emitter,
    scan_emitter,
)
from xlapy.backend.cpu.codegen.loop_emitter import (
    Index,
    KernelArg,
    KernelEmitter,
    Output,
    Val,
    rename,
)
from xlapy.backend.cpu.kernel import (
    CompileOptions,
    Kernel,
    NoKernel,
    RunContext,
    require_generation,
)
from xlapy.backend.cpu.launch_lock import guarded
from xlapy.backend.cpu.source_cache import load_source
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Array, Value

PARALLEL_WORK = 1 << 23
"""Work (elements of the largest array, times 1 + 4 per transcendental op) from which a
kernel's outer loop runs on several threads. Below it a kernel takes a few ms at most on one
core, and joining threads can cost more than that on a loaded machine (a worker that is not
scheduled holds up the whole loop: measured 0.5 ms serial vs 58 ms median in parallel for a
4096x1024 row sum under load 13 on 2 cores)."""
TRANSCENDENTAL = frozenset(
    {
        Opcode.EXP, Opcode.EXPM1, Opcode.LOG, Opcode.LOG1P, Opcode.TANH, Opcode.LOGISTIC,
        Opcode.SIN, Opcode.COS, Opcode.TAN, Opcode.POWER, Opcode.ATAN2, Opcode.ERF, Opcode.ERFC,
        Opcode.CBRT, Opcode.ACOS, Opcode.ASIN, Opcode.ATAN, Opcode.ACOSH, Opcode.ASINH,
        Opcode.ATANH, Opcode.COSH, Opcode.SINH,
    }
)  # fmt: skip


def estimated_work(instructions: Sequence[HloInstruction]) -> int:
    """The largest array's elements times ``1 + 4 * (transcendental ops)``."""
    largest = max(
        (math.prod(s.dims) for i in instructions for s in i.shape.leaves() if s.is_array),
        default=1,
    )
    return largest * (1 + 4 * sum(1 for i in instructions if i.opcode in TRANSCENDENTAL))


_RUNTIME_MODULES = ("fast_math.py", "narrow.py", "scalar_ops.py")


def runtime_version() -> str:
    """A hash of the helper modules generated kernels import (part of every kernel's source,
    so a changed helper invalidates numba's cache of its callers)."""
    digest = hashlib.sha256()
    for name in _RUNTIME_MODULES:
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()[:16]


def _instructions(root: HloInstruction, leaves: Mapping[int, int]) -> list[HloInstruction]:
    """Every instruction reachable from ``root`` without crossing a leaf, and the bodies of
    the reductions among them."""
    seen: dict[int, HloInstruction] = {}
    stack = [root]
    while stack:
        instr = stack.pop()
        if id(instr) in seen:
            continue
        seen[id(instr)] = instr
        if id(instr) in leaves:
            continue
        stack.extend(instr.operands)
        for comp in instr.called_computations():
            stack.extend(comp.instructions)
    return list(seen.values())


def _outputs(em: KernelEmitter, root: HloInstruction) -> tuple[list[Output], bool]:
    """The output arrays of ``root`` (tuple roots: one per element; a variadic reduce's
    get-tuple-element reads its result)."""
    targets: list[tuple[HloInstruction, int]] = []
    if root.opcode is Opcode.TUPLE:
        for element in root.operands:
            if element.shape.is_tuple:
                raise NoKernel(f"tuple {root.name}: nested tuple output {element.name}")
            if (
                element.opcode is Opcode.GET_TUPLE_ELEMENT
                and element.operands[0].opcode is Opcode.REDUCE
            ):
                targets.append((element.operands[0], element.attrs.index))
            else:
                targets.append((element, 0))
    elif root.shape.is_tuple:
        if root.opcode not in (Opcode.REDUCE, Opcode.REDUCE_WINDOW):
            raise NoKernel(f"{root.opcode.value} {root.name}: tuple-shaped root")
        targets = [(root, k) for k in range(len(root.shape.tuple_shapes))]
    else:
        targets = [(root, 0)]
    outputs = []
    for instr, position in targets:
        shape = instr.shape.tuple_shapes[position] if instr.shape.is_tuple else instr.shape
        numba_types.check(shape.element_type, f"{instr.opcode.value} {instr.name}")
        arg = em.add_arg(f"out{len(outputs)}", shape.element_type, ("output", len(outputs)))
        outputs.append(Output(instr, position, arg))
    return outputs, root.shape.is_tuple


def _bind_leaf(em: KernelEmitter, instr: HloInstruction, position: int) -> None:
    """Reads of leaf ``instr`` (operand ``position`` of the kernel) from an array argument."""
    if not instr.shape.is_array:
        raise NoKernel(f"{instr.opcode.value} {instr.name}: tuple operand")
    t = instr.shape.element_type
    numba_types.check(t, f"{instr.opcode.value} {instr.name}")
    args: list[KernelArg] = []

    def read(index: Index) -> Val:
        if not args:
            args.append(em.add_arg(f"in{position}", t, ("operand", position)))
        offset = em.flat_index(index, instr.shape.dims)
        return em.emit(instr.name, em.load(args[0], offset), t, index=index)

    em.bindings[id(instr)] = read


_NO_ALIAS_PLANS = frozenset({"row reduction", "column reduction"})
"""The kernels compiled with ``no_alias.NoAliasCompiler`` (measured faster or the same; a loop
fusion's nest of short loops can become slower, see ``no_alias``)."""


def compile_kernel(
    name: str,
    root: HloInstruction,
    leaves: Mapping[int, int],
    options: CompileOptions,
    description: str,
    header: str,
) -> Kernel:
    """Compiles the computation of ``root`` whose leaves (``id(instr) -> operand position``)
    are the kernel's operands.

    Raises:
        NoKernel: an op, type or output layout the code generator does not handle, or
            generated kernels are switched off (the quick tier).
    """
    require_generation(f"{description} {root.name}")
    start = time.perf_counter()
    instructions = _instructions(root, leaves)
    numba_types.check_static(instructions, f"{root.opcode.value} {root.name}")
    em = KernelEmitter(name)
    em.flush_denormals = options.flush_denormals
    for instr in instructions:
        if id(instr) in leaves:
            _bind_leaf(em, instr, leaves[id(instr)])
    outputs, is_tuple = _outputs(em, root)
    parallel = options.parallel and estimated_work(instructions) >= PARALLEL_WORK
    reduces = {id(o.instr): o.instr for o in outputs if o.instr.opcode is Opcode.REDUCE}
    if any(scan_emitter.cumulative(o.instr) for o in outputs):
        plan, candidates = scan_emitter.emit_scan(em, outputs, parallel)
    elif reduces:
        plan, candidates = reduction_emitter.emit_reductions(
            em, outputs, list(reduces.values()), parallel
        )
    else:
        dims = outputs[0].dims
        if any(o.dims != dims for o in outputs):
            raise NoKernel(f"{root.opcode.value} {root.name}: outputs of different shapes")
        with em.output_loops(dims, parallel) as index:
            frame = em.current
            values = [em.scalar(o.instr, index) for o in outputs]  # every read before a store
            for o, value in zip(outputs, values, strict=True):
                em.store(frame, o, index, value)
        plan, candidates = "loop", tuple(outputs)
    if plan in _NO_ALIAS_PLANS:  # runner passes fresh outputs or an unshared donated operand
        em.mark_no_alias()
    in_place = _in_place(em, outputs, candidates, leaves, instructions)
    variant = _in_place_function(em, outputs, in_place) if in_place else ""
    try:
        source, module, names = load_kernel_module(em, header, options.cache_dir, variant)
    except NumbaError as exc:
        first = str(exc).strip().splitlines()[0]
        raise NoKernel(f"{description} {root.name}: numba could not compile it: {first}") from exc
    function = getattr(module, names[em.name])
    in_place_function = getattr(module, names[f"{em.name}_in_place"], None)
    if in_place_function is not None and options.compile_variants:
        _compile_now(
            in_place_function,
            [a for a in em.args if a.source[0] != "output" or (a.source[1] not in in_place)],
        )
    ops = sum(1 for i in instructions if id(i) not in leaves and i.opcode is not Opcode.PARAMETER)
    how = f"numba {plan} {description}, {ops} ops" + (", parallel" if em.parallel else "")
    notes = () if em.exact else ("float results within a few ulp (reassociation, fast exp)",)
    return Kernel(
        run=runner(
            function,
            em.args,
            outputs,
            is_tuple,
            in_place=in_place,
            in_place_function=in_place_function,
        ),
        how=how,
        source=source,
        compile_seconds=time.perf_counter() - start,
        exact=em.exact,
        notes=notes,
        views=(),
    )


def load_kernel_module(
    em: KernelEmitter, header: str, cache_dir: Path | None, extra: str = ""
) -> tuple[str, ModuleType, dict[str, str]]:
    """The readable source (HLO names, the HLO quoted; what reports show) and the module that
    runs: the same code without the quote and with canonical names (``KernelEmitter
    .canonical_names``, returned), stored under the hash of that text, so a fusion renamed in
    another program finds the first one's compiled code.

    Raises:
        NumbaError: numba could not compile it.
    """
    code = _module_code(em, extra)
    described = "\n".join(("    " + line).rstrip() for line in header.strip().splitlines())
    quote = f'"""Kernel {em.name}, generated by xlapy.backend.cpu.codegen from:\n\n{described}\n"""'
    renames = em.canonical_names(code)
    return f"{quote}\n{code}", load_source(rename(code, renames), cache_dir), renames


def _module_code(em: KernelEmitter, extra: str) -> str:
    """The generated module without its quote: the helper-version hash, imports and the
    kernel function (then ``extra`` functions)."""
    lines = [
        f"# runtime {runtime_version()}",
        "import math",
        "",
        "import numba",
        "import numpy as np",
        "",
        *em.imports(),
        "",
        "U = np.uint64",
        "",
        "",
        em.function_source(),
        "",
    ]
    if extra:
        lines += ["", extra, ""]
    return "\n".join(lines)


def _in_place_function(
    em: KernelEmitter, outputs: Sequence[Output], in_place: Mapping[int, int]
) -> str:
    """The kernel's variant for donated operands: each in-place output is its operand's own
    array (``out0 = in0``), compiled on its first call (by the tier worker at once:
    ``CompileOptions.compile_variants``).

    Why a variant: called with ``out0`` and ``in0`` on the same buffer, the kernel's loop
    fails LLVM's run-time overlap check and runs scalar (an 8K-element tanh: 100 us against
    7 us into a fresh buffer); with one array under two names LLVM sees a single pointer and
    vectorizes as before.
    """
    aliased = {outputs[k].arg.name: p for k, p in in_place.items()}
    operand = {a.source[1]: a.name for a in em.args if a.source[0] == "operand"}
    params = [a.name for a in em.args if a.name not in aliased]
    lines = [
        '@numba.njit(cache=True, error_model="numpy", nogil=True'
        + (", parallel=True" if em.parallel else "")
        + em.no_alias_option()
        + ")",
        f"def {em.name}_in_place({', '.join(params)}):",
        *(f"    {name} = {operand[p]}" for name, p in aliased.items()),
    ]
    body: list[str] = []
    em.top.render(1, body)
    return "\n".join(lines + body)


def _compile_now(function: Any, args: Sequence[KernelArg]) -> None:
    """Compiles a lazily typed kernel for the flat arrays of ``args`` into numba's cache
    under the key its first call looks up (argument types only, no return type)."""
    from numba.core import sigutils

    types = ", ".join(numba_types.array_type(a.type) for a in args)
    arg_types, _ = sigutils.normalize_signature(f"void({types})")
    function.compile(tuple(arg_types))


def _in_place(
    em: KernelEmitter,
    outputs: Sequence[Output],
    candidates: Sequence[Output],
    leaves: Mapping[int, int],
    instructions: Sequence[HloInstruction],
) -> dict[int, int]:
    """Outputs that may overwrite an operand's buffer when the program donates it: the kernel
    reads that operand only at the element the output stores (same offset, same type and
    size), so each element is read before it is overwritten and never again (a loop
    kernel, or a reduction's output shaped like its input, stored where the input is read;
    the NaN pass of a float max/min reads such outputs back, not the operand). Only
    ``candidates`` are considered: every output of a loop kernel, where all elements are
    computed before any is stored, and in reductions the outputs stored with the input's
    reads (reduce results are stored after reads of other operands they do not order)."""
    by_position = {leaves[id(i)]: i for i in instructions if id(i) in leaves}
    result: dict[int, int] = {}
    for k, out in enumerate(outputs):
        stores = em.stores.get(out.arg.name, [])
        if out not in candidates:
            continue
        if len(stores) != 1:
            continue
        for arg in em.args:
            kind, position = arg.source
            if kind != "operand" or position in result.values():
                continue
            leaf = by_position[position]  # type: ignore[index]
            if (
                em.reads.get(arg.name) == {stores[0]}
                and arg.type is out.type
                and leaf.shape.dims == out.dims
            ):
                result[k] = position  # type: ignore[assignment]
                break
    return result


def runner(
    function: Callable[..., None],
    args: Sequence[KernelArg],
    outputs: Sequence[Output],
    is_tuple: bool,
    *,
    state: bool = False,
    in_place: Mapping[int, int] | None = None,
    in_place_function: Callable[..., None] | None = None,
) -> Callable[[list[Value], RunContext], Value]:
    """``run(operands, ctx)``: flat views of the operands (with ``state``, of the leaves of
    the one tuple operand), the constants, fresh flat outputs; one call. When the program
    donates the operand of every ``in_place`` output, ``in_place_function`` (the kernel
    without those outputs, see ``_in_place_function``) writes them into the operands'
    buffers instead. A parallel kernel is ``launch_lock.guarded``."""
    function = guarded(function)
    in_place_function = guarded(in_place_function) if in_place_function else None
    reuse = dict(in_place or {})
    # Per argument: ("operand", (position, storage dtype or None when no view is needed)),
    # ("array", a constant) or ("output", k). f16/bf16 travel as their uint16 patterns.
    plan: list[tuple[str, object]] = []
    for arg in args:
        kind, what = arg.source
        storage = numba_types.storage_dtype(arg.type)
        if kind == "constant":
            assert isinstance(what, HloInstruction)
            plan.append(("array", data_movement.constant_value(what).view(storage)))
        elif kind == "operand":
            cast = None if storage == np.dtype(arg.type.numpy) else storage
            plan.append(("operand", (what, cast)))
        else:
            plan.append((kind, what))
    shapes = [(o.dims, numba_types.storage_dtype(o.type), np.dtype(o.type.numpy)) for o in outputs]
    sizes = [math.prod(dims) for dims, _, _ in shapes]
    views = [None if storage == dtype else dtype for _, storage, dtype in shapes]

    def run(operands: list[Value], ctx: RunContext) -> Value:
        if state:
            operands = list(operands[0]) if isinstance(operands[0], tuple) else operands
        results: list[Array | None] = [None] * len(shapes)
        call = function
        if in_place_function is not None and ctx.donatable:
            for k, position in reuse.items():
                donated = None
                if position in ctx.donatable:
                    donated = _donated_buffer(operands, position, shapes[k][2])
                if donated is None:
                    results = [None] * len(shapes)
                    break
                results[k] = donated.view(shapes[k][1])
            else:
                call = in_place_function
        arrays: list[object] = []
        for kind, what in plan:
            if kind == "operand":
                position, view_as = typing.cast("tuple[int, np.dtype[Any] | None]", what)
                x = operands[position]
                # reshape(-1) is a view of a C-contiguous array and a C-ordered copy otherwise
                flat = (x if type(x) is np.ndarray else np.asarray(x)).reshape(-1)
                arrays.append(flat if view_as is None else flat.view(view_as))
            elif kind == "output":
                k = typing.cast(int, what)
                if results[k] is None:
                    results[k] = np.empty(sizes[k], shapes[k][1])
                elif call is in_place_function:
                    continue  # the variant writes into its operand's array
                arrays.append(results[k])
            else:
                arrays.append(what)
        call(*arrays)
        shaped = [
            (r if view is None else r.view(view)).reshape(dims)  # type: ignore[union-attr]
            for r, view, (dims, _, _) in zip(results, views, shapes, strict=True)
        ]
        return tuple(shaped) if is_tuple else shaped[0]

    return run


def _donated_buffer(operands: list[Value], position: int, dtype: np.dtype) -> Array | None:
    """The flat buffer of donated operand ``position`` if a kernel may write its result
    there (contiguous, writable, of the result's type, shared with no other operand)."""
    value = operands[position]
    if not (
        isinstance(value, np.ndarray)
        and value.dtype == dtype
        and value.flags.c_contiguous
        and value.flags.writeable
    ):
        return None
    for k, other in enumerate(operands):
        if k != position and isinstance(other, np.ndarray) and np.may_share_memory(value, other):
            return None
    return value.reshape(-1)
