"""Compiled JAX LAPACK custom calls (``lapack_{s,d,c,z}<routine>_ffi``): the interpreter's
per-matrix routine (``xlapy.interpreter.evals.lapack``), with the instruction's checks, its
backend_config and output shapes settled once at compile time, and the batch walked as one
flat index. Each matrix runs the same scipy LAPACK call with the same arguments as the
interpreter's eval, so results are bit for bit the interpreter's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, kernel_for
from xlapy.backend.cpu.kernels import lapack_direct
from xlapy.interpreter.evals.lapack import (
    PREFIX_DTYPES,
    TARGETS,
    batch_dims,
    checked_config,
    flag,
    run_element,
)
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.opcode import Opcode
from xlapy.literal import Value


@kernel_for(Opcode.CUSTOM_CALL, priority=5)
def lapack_kernel(instr: HloInstruction, options: CompileOptions) -> Kernel:
    """A LAPACK custom call over a batch of matrices, one routine call per matrix."""
    target = instr.attrs.custom_call_target
    if target not in TARGETS:
        raise NoKernel(f"custom-call target {target!r} is not a LAPACK routine")
    if not instr.shape.is_static or not all(op.shape.is_static for op in instr.operands):
        raise NoKernel(f"custom-call {instr.name}: dynamic dimensions")
    prefix, routine = TARGETS[target]
    shapes = [tuple(op.shape.dims) for op in instr.operands]
    batch = batch_dims(instr, routine, shapes)
    config = checked_config(instr)
    leaves = list(instr.shape.leaves())
    count = math.prod(batch)
    flat_shapes = [(count, *s[len(batch) :]) for s in shapes]
    out_shapes = [(count, *leaf.dims[len(batch) :]) for leaf in leaves]
    out_types = [leaf.element_type.numpy for leaf in leaves]
    is_tuple = instr.shape.is_tuple

    def run(operands: list[Value], ctx: RunContext) -> Value:
        arrays = [np.asarray(v).reshape(s) for v, s in zip(operands, flat_shapes, strict=True)]
        outputs = [np.zeros(s, t) for s, t in zip(out_shapes, out_types, strict=True)]
        for i in range(count):
            run_element(instr, prefix, routine, config, [x[i] for x in arrays], outputs, (i,))
        results = tuple(out.reshape(leaf.dims) for out, leaf in zip(outputs, leaves, strict=True))
        return results if is_tuple else results[0]

    direct = _direct(instr, prefix, routine, config, shapes, batch, run)
    if direct is not None and count > 0:
        started = time.perf_counter()
        lapack_direct.type_calls(routine, prefix)  # compiled (or loaded) now, not by a call
        return Kernel(
            run=direct,
            how=f"LAPACK {prefix}{routine}, {count} matrices, one compiled loop",
            compile_seconds=time.perf_counter() - started,
            views=(),
        )
    return Kernel(run=run, how=f"LAPACK {prefix}{routine} per matrix, {count} matrices", views=())


def _direct(
    instr: HloInstruction,
    prefix: str,
    routine: str,
    config: dict[str, int],
    shapes: list[tuple[int, ...]],
    batch: tuple[int, ...],
    per_matrix: Callable[[list[Value], RunContext], Value],
) -> Callable[[list[Value], RunContext], Value] | None:
    """The whole-batch C calls of ``lapack_direct`` for potrf, getrf, trsm, geqrf,
    orgqr/ungqr, real syevd and real gesdd computing singular vectors on non-empty
    matrices of the routine's own type (None otherwise: the per-matrix path). A gesdd batch
    with a failure (info != 0, e.g. a NaN) runs again on ``per_matrix``, which reports or
    passes it on as the interpreter does."""
    dtype = np.dtype(PREFIX_DTYPES[prefix])
    types = [np.dtype(op.shape.element_type.numpy) for op in instr.operands]
    cores = [s[len(batch) :] for s in shapes]
    if any(d == 0 for core in cores for d in core):
        return None
    nb = len(batch)
    core = cores[0]
    k = min(core)
    full = flag(config, "mode", "A") == "A"
    expected = {
        "potrf": [(shapes[0], dtype), (batch, np.dtype(np.int32))],
        "getrf": [
            (shapes[0], dtype),
            ((*batch, min(core)), np.dtype(np.int32)),
            (batch, np.dtype(np.int32)),
        ],
        "trsm": [(shapes[-1], dtype)],
        "geqrf": [(shapes[0], dtype), ((*batch, min(core)), dtype)],
        "orgqr": [(shapes[0], dtype)],
        "ungqr": [(shapes[0], dtype)],
        "syevd": [
            (shapes[0], dtype),
            ((*batch, core[0]), dtype),
            (batch, np.dtype(np.int32)),
        ],
        "gesdd": [
            (shapes[0], dtype),
            ((*batch, k), dtype),
            ((*batch, core[0], core[0] if full else k), dtype),
            ((*batch, core[1] if full else k, core[1]), dtype),
            (batch, np.dtype(np.int32)),
        ],
    }.get(routine)
    leaves = [(tuple(s.dims), np.dtype(s.element_type.numpy)) for s in instr.shape.leaves()]
    if leaves != expected:
        return None
    if routine == "potrf" and types == [dtype]:
        lower = flag(config, "uplo", "L") == "L"

        def run_potrf(operands: list[Value], ctx: RunContext) -> Value:
            a = np.asarray(operands[0])
            c, info = lapack_direct.potrf(prefix, a.reshape(-1, *a.shape[nb:]), lower)
            return c.reshape(a.shape), info.reshape(batch)

        return run_potrf
    if routine == "getrf" and types == [dtype]:

        def run_getrf(operands: list[Value], ctx: RunContext) -> Value:
            a = np.asarray(operands[0])
            lu, piv, info = lapack_direct.getrf(prefix, a.reshape(-1, *a.shape[nb:]))
            return lu.reshape(a.shape), piv.reshape(*batch, -1), info.reshape(batch)

        return run_getrf
    if routine == "trsm" and types == [dtype, dtype]:
        right = flag(config, "side", "L") == "R"
        lower = flag(config, "uplo", "L") == "L"
        trans = flag(config, "trans_x", "N")
        unit = flag(config, "diag", "N") == "U"

        def run_trsm(operands: list[Value], ctx: RunContext) -> Value:
            a, b = (np.asarray(v) for v in operands)
            x = lapack_direct.trsm(
                prefix,
                a.reshape(-1, *a.shape[nb:]),
                b.reshape(-1, *b.shape[nb:]),
                right,
                lower,
                trans,
                unit,
            )
            return x.reshape(b.shape)

        return run_trsm
    if routine == "geqrf" and types == [dtype]:

        def run_geqrf(operands: list[Value], ctx: RunContext) -> Value:
            a = np.asarray(operands[0])
            qr, tau, _ = lapack_direct.geqrf(prefix, a.reshape(-1, *a.shape[nb:]))
            return qr.reshape(a.shape), tau.reshape(*batch, -1)

        return run_geqrf
    if routine in ("orgqr", "ungqr") and types == [dtype, dtype] and core[0] >= core[1]:

        def run_orgqr(operands: list[Value], ctx: RunContext) -> Value:
            a, tau = (np.asarray(v) for v in operands)
            q, _ = lapack_direct.orgqr(
                prefix, a.reshape(-1, *a.shape[nb:]), tau.reshape(-1, tau.shape[-1])
            )
            return q.reshape(a.shape)

        return run_orgqr
    if routine == "syevd" and types == [dtype] and flag(config, "mode", "V") == "V":
        lower = flag(config, "uplo", "L") == "L"

        def run_syevd(operands: list[Value], ctx: RunContext) -> Value:
            a = np.asarray(operands[0])
            v, w, info = lapack_direct.syevd(prefix, a.reshape(-1, *a.shape[nb:]), lower)
            return v.reshape(a.shape), w.reshape(*batch, -1), info.reshape(batch)

        return run_syevd
    if (
        routine == "gesdd"
        and prefix in "sd"
        and types == [dtype]
        and flag(config, "mode", "A") in "AS"
    ):

        def run_gesdd(operands: list[Value], ctx: RunContext) -> Value:
            a = np.asarray(operands[0])
            s, u, vt, info = lapack_direct.gesdd(prefix, a.reshape(-1, *a.shape[nb:]), full)
            if info.any():
                return per_matrix(operands, ctx)
            return (
                np.array(a, copy=True),
                s.reshape(*batch, -1),
                u.reshape(*batch, *u.shape[1:]),
                vt.reshape(*batch, *vt.shape[1:]),
                info.reshape(batch),
            )

        return run_gesdd
    return None
