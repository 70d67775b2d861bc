"""JAX's CPU LAPACK custom calls (``lapack_{s,d,c,z}<routine>_ffi``): potrf, getrf, geqrf,
orgqr/ungqr, syevd/heevd, gesdd, geev, gees, gehrd, sytrd/hetrd, trsm and gtsv.

Each is run with the same LAPACK routine through ``scipy.linalg.lapack`` (jaxlib's CPU
kernels call scipy's LAPACK too), one call per matrix of the batch. Values are logical
arrays, so the column-major ``operand_layout_constraints`` need no data movement. Outputs
follow jaxlib's FFI kernels: the same tuple order, 1-based pivots, int32 ``info`` per batch
element, and real ``geev`` eigenvectors unpacked to complex.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xlapy.errors import InvalidArgument
from xlapy.interpreter.evaluator import Evaluator, custom_call_target
from xlapy.ir.instruction import HloInstruction
from xlapy.literal import Array, Value

PREFIX_DTYPES = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}
"""LAPACK type prefix -> the numpy dtype its routines compute in."""

Kernel = Callable[[str, dict[str, int], Sequence[Array]], tuple[object, ...]]
"""(LAPACK type prefix, backend_config, one batch element's operands) -> its outputs."""


@functools.cache
def _scipy_routine(module: str, name: str) -> Callable[..., Any]:
    """``scipy.linalg.<module>.<name>`` (``module`` is ``lapack`` or ``blas``), imported on first
    use: scipy.linalg costs ~0.2 s to import, which every interpreter run would pay."""
    routines = importlib.import_module(f"scipy.linalg.{module}")
    return getattr(routines, name)  # type: ignore[no-any-return]


def backend_config(instr: HloInstruction) -> dict[str, int]:
    """The integer entries of an MLIR attribute dictionary such as ``{uplo = 76 : ui8}``."""
    return {k: int(v) for k, v in re.findall(r"(\w+)\s*=\s*(-?\d+)", instr.backend_config or "")}


_FLAGS = ("uplo", "mode", "compute_left", "compute_right", "sort", "side", "trans_x", "diag")
"""The backend_config entries read as characters (``_flag``)."""

_CHOICES = {"trans_x": "NTC"}
"""Character options with a closed set of values (the others read one value, else a default)."""


def flag(config: dict[str, int], name: str, default: str) -> str:
    """A LAPACK character option stored as its ASCII code (``uplo = 76`` is 'L')."""
    return chr(config.get(name, ord(default)))


def _check_info(name: str, info: int) -> int:
    if info < 0:  # an illegal argument: a bug of this module, not of the program
        raise InvalidArgument(f"LAPACK {name} rejected argument {-info}")
    return int(info)


# ---- kernels: one batch element each ------------------------------------------------------


def _potrf(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    lower = flag(config, "uplo", "L") == "L"
    c, info = _scipy_routine("lapack", p + "potrf")(a, lower=lower, clean=0)
    return c, np.int32(_check_info("potrf", info))


def _getrf(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    lu, piv, info = _scipy_routine("lapack", p + "getrf")(a)
    # scipy returns 0-based pivots; LAPACK (and jaxlib) return 1-based ones.
    return lu, (piv + 1).astype(np.int32), np.int32(_check_info("getrf", info))


def _geqrf(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    qr, tau, _, info = _scipy_routine("lapack", p + "geqrf")(a)
    _check_info("geqrf", info)
    return qr, tau


def _orgqr(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    a, tau = ops
    name = p + ("ungqr" if p in "cz" else "orgqr")
    if a.shape[1] == 0:
        return (a.copy(),)
    q, _, info = _scipy_routine("lapack", name)(a, tau)
    _check_info(name, info)
    return (q,)


def _syevd(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    compute_v = flag(config, "mode", "V") == "V"
    lower = flag(config, "uplo", "L") == "L"
    name = p + ("heevd" if p in "cz" else "syevd")
    w, v, info = _scipy_routine("lapack", name)(a, compute_v=int(compute_v), lower=int(lower))
    if not compute_v:
        v = np.zeros_like(a)
    return v, w, np.int32(_check_info(name, info))


def _gesdd(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    mode = flag(config, "mode", "A")
    m, n = a.shape
    k = min(m, n)
    full = mode == "A"
    u_shape = (m, m) if mode in "AN" else (m, k)
    vt_shape = (n, n) if mode in "AN" else (k, n)
    real = a.real.dtype
    if k == 0:
        return (
            a.copy(),
            np.zeros(0, real),
            _eye(u_shape, a.dtype),
            _eye(vt_shape, a.dtype),
            np.int32(0),
        )
    u, s, vt, info = _scipy_routine("lapack", p + "gesdd")(
        a, compute_uv=int(mode != "N"), full_matrices=int(full)
    )
    if mode == "N":
        u, vt = np.zeros(u_shape, a.dtype), np.zeros(vt_shape, a.dtype)
    if info == -4 and np.isnan(a).any():
        # LAPACK 3.7+: "INFO = -4: A had a NaN entry"; jaxlib passes it on as a failure,
        # which JAX's lowering turns into NaN results.
        return a.copy(), s, u, vt, np.int32(info)
    return a.copy(), s, u, vt, np.int32(_check_info("gesdd", info))


def _eye(shape: tuple[int, int], dtype: np.dtype) -> Array:
    return np.eye(*shape, dtype=dtype)


def _unpack_eigenvectors(wi: Array, v: Array, dtype: type[np.complexfloating[Any, Any]]) -> Array:
    """Real LAPACK eigenvectors to complex: a pair ``wi[j] > 0`` stores ``v[:, j] ± i
    v[:, j+1]`` in columns j and j+1."""
    out = v.astype(dtype)
    j = 0
    n = len(wi)
    while j < n:  # sequential by spec: conjugate pairs are found left to right
        if wi[j] != 0 and j + 1 < n:
            re_, im = v[:, j], v[:, j + 1]
            out[:, j] = re_ + 1j * im
            out[:, j + 1] = re_ - 1j * im
            j += 2
        else:
            j += 1
    return out


def _geev(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    left = flag(config, "compute_left", "N") == "V"
    right = flag(config, "compute_right", "V") == "V"
    n = a.shape[0]
    complex_type = np.complex64 if p in "sc" else np.complex128
    if p in "sd":
        wr, wi, vl, vr, info = _scipy_routine("lapack", p + "geev")(
            a, compute_vl=int(left), compute_vr=int(right)
        )
        vl = _unpack_eigenvectors(wi, vl, complex_type) if left else np.zeros((n, n), complex_type)
        vr = _unpack_eigenvectors(wi, vr, complex_type) if right else np.zeros((n, n), complex_type)
        return wr, wi, vl, vr, np.int32(_check_info("geev", info))
    w, vl, vr, info = _scipy_routine("lapack", p + "geev")(
        a, compute_vl=int(left), compute_vr=int(right)
    )
    if not left:
        vl = np.zeros((n, n), complex_type)
    if not right:
        vr = np.zeros((n, n), complex_type)
    return w, vl, vr, np.int32(_check_info("geev", info))


def _gees(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    compute_v = flag(config, "mode", "V") == "V"
    if flag(config, "sort", "N") != "N":
        raise InvalidArgument("lapack gees: eigenvalue sorting (sort != 'N') is not supported")
    results = _scipy_routine("lapack", p + "gees")(
        lambda *args: None, a, compute_v=int(compute_v), sort_t=0
    )
    if p in "sd":
        t, sdim, wr, wi, vs, _, info = results
        if not compute_v:
            vs = np.zeros_like(a)
        return t, vs, wr, wi, np.int32(sdim), np.int32(_check_info("gees", info))
    t, sdim, w, vs, _, info = results
    if not compute_v:
        vs = np.zeros_like(a)
    return t, vs, w, np.int32(sdim), np.int32(_check_info("gees", info))


def _gehrd(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    n = a.shape[0]
    low, high = config.get("low", 1), config.get("high") or n
    if n == 0:
        return a.copy(), np.zeros(0, a.dtype), np.int32(0)
    ht, tau, info = _scipy_routine("lapack", p + "gehrd")(a, lo=low - 1, hi=high - 1)
    return ht, tau, np.int32(_check_info("gehrd", info))


def _sytrd(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    (a,) = ops
    lower = flag(config, "uplo", "L") == "L"
    name = p + ("hetrd" if p in "cz" else "sytrd")
    n = a.shape[0]
    if n == 0:
        real = a.real.dtype
        return a.copy(), np.zeros(0, real), np.zeros(0, real), np.zeros(0, a.dtype), np.int32(0)
    c, d, e, tau, info = _scipy_routine("lapack", name)(a, lower=int(lower))
    return c, d, e, tau, np.int32(_check_info(name, info))


def _trsm(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    a, b = ops
    side = flag(config, "side", "L")
    lower = flag(config, "uplo", "L") == "L"
    trans = {"N": 0, "T": 1, "C": 2}[flag(config, "trans_x", "N")]
    unit = flag(config, "diag", "N") == "U"
    if b.size == 0:
        return (b.copy(),)
    x = _scipy_routine("blas", p + "trsm")(
        1.0, a, b, side=int(side == "R"), lower=int(lower), trans_a=trans, diag=int(unit)
    )
    return (x,)


def _gtsv(p: str, config: dict[str, int], ops: Sequence[Array]) -> tuple[object, ...]:
    dl, d, du, b = ops
    n = d.shape[0]
    if n == 0 or b.size == 0:
        return dl.copy(), d.copy(), du.copy(), b.copy(), np.int32(0)
    # jaxlib passes length-n sub/super diagonals whose first/last entry is unused.
    du2, d_out, du_out, x, info = _scipy_routine("lapack", p + "gtsv")(dl[1:], d, du[:-1], b)
    return (
        np.concatenate([dl[:1], du2]),
        d_out,
        np.concatenate([du_out, du[-1:]]),
        x,
        np.int32(_check_info("gtsv", info)),
    )


# ---- batching and registration -------------------------------------------------------------

# routine -> (kernel, rank of each operand's core (2 = matrix, 1 = vector))
ROUTINES: dict[str, tuple[Kernel, tuple[int, ...]]] = {
    "potrf": (_potrf, (2,)),
    "getrf": (_getrf, (2,)),
    "geqrf": (_geqrf, (2,)),
    "orgqr": (_orgqr, (2, 1)),
    "ungqr": (_orgqr, (2, 1)),
    "syevd": (_syevd, (2,)),
    "heevd": (_syevd, (2,)),
    "gesdd": (_gesdd, (2,)),
    "geev": (_geev, (2,)),
    "gees": (_gees, (2,)),
    "gehrd": (_gehrd, (2,)),
    "sytrd": (_sytrd, (2,)),
    "hetrd": (_sytrd, (2,)),
    "trsm": (_trsm, (2, 2)),
    "gtsv": (_gtsv, (1, 1, 1, 2)),
}


def checked_config(instr: HloInstruction) -> dict[str, int]:
    """The instruction's backend_config, its character options checked (ASCII codes, closed
    choices)."""
    config = backend_config(instr)
    for name in _FLAGS:
        if name in config and not 0 <= config[name] < 128:
            raise InvalidArgument(
                f"custom-call {instr.name}: backend_config {name} must be an ASCII character "
                f"code (76 for 'L'); got {config[name]}"
            )
        choices = _CHOICES.get(name)
        if choices and name in config and chr(config[name]) not in choices:
            codes = ", ".join(f"{ord(c)} ({c!r})" for c in choices)
            raise InvalidArgument(
                f"custom-call {instr.name}: backend_config {name} must be one of {codes}; got "
                f"{config[name]}"
            )
    return config


def batch_dims(
    instr: HloInstruction, routine: str, shapes: Sequence[tuple[int, ...]]
) -> tuple[int, ...]:
    """The batch dimensions shared by the operands of shapes ``shapes`` (the dimensions before
    each operand's matrix or vector core); raises when the operands disagree."""
    _, core_ranks = ROUTINES[routine]
    if len(shapes) != len(core_ranks):
        raise InvalidArgument(
            f"custom-call {instr.name}: {instr.attrs.custom_call_target} takes "
            f"{len(core_ranks)} operands; got {len(shapes)}"
        )
    batch = tuple(shapes[0][: len(shapes[0]) - core_ranks[0]])
    for i, (shape, r) in enumerate(zip(shapes, core_ranks, strict=True)):
        if len(shape) < r or tuple(shape[: len(shape) - r]) != batch:
            raise InvalidArgument(
                f"custom-call {instr.name}: operand {i} of {instr.attrs.custom_call_target} "
                f"must have batch dimensions {list(batch)}; got {list(shape)}"
            )
    return batch


def run_element(
    instr: HloInstruction,
    prefix: str,
    routine: str,
    config: dict[str, int],
    element: Sequence[Array],
    outputs: Sequence[Array],
    index: tuple[int, ...],
) -> None:
    """Runs the routine on one batch element's operands and stores its results at ``index``
    of ``outputs`` (one array per result, batch dimensions first)."""
    kernel, _ = ROUTINES[routine]
    dtype = PREFIX_DTYPES[prefix]
    element = [np.array(x, dtype=dtype if x.dtype.kind in "fc" else x.dtype) for x in element]
    results = kernel(prefix, config, element)
    if len(results) != len(outputs):
        raise InvalidArgument(
            f"custom-call {instr.name}: {instr.attrs.custom_call_target} produces "
            f"{len(results)} results; the instruction's shape {instr.shape} has {len(outputs)}"
        )
    for out, result in zip(outputs, results, strict=True):
        value = np.asarray(result)
        if value.shape != out.shape[len(index) :]:
            raise InvalidArgument(
                f"custom-call {instr.name}: {instr.attrs.custom_call_target} result of "
                f"shape {list(value.shape)} does not fit {list(out.shape)}"
            )
        out[index] = value.astype(out.dtype)


def _run_batched(
    instr: HloInstruction, prefix: str, routine: str, operands: Sequence[Value]
) -> Value:
    arrays = [np.asarray(v) for v in operands]
    batch = batch_dims(instr, routine, [x.shape for x in arrays])
    config = checked_config(instr)
    outputs = [np.zeros(s.dims, s.element_type.numpy) for s in instr.shape.leaves()]
    for index in np.ndindex(*batch):  # one LAPACK call per matrix of the batch
        run_element(instr, prefix, routine, config, [x[index] for x in arrays], outputs, index)
    if instr.shape.is_tuple:
        return tuple(outputs)
    return outputs[0]


TARGETS: dict[str, tuple[str, str]] = {}
"""custom_call_target -> (LAPACK type prefix, routine), for every target registered here."""


def _register(prefix: str, routine: str) -> None:
    target = f"lapack_{prefix}{routine}_ffi"
    TARGETS[target] = (prefix, routine)

    @custom_call_target(target)
    def run(ctx: Evaluator, instr: HloInstruction, operands: list[Value]) -> Value:
        return _run_batched(instr, prefix, routine, operands)

    run.__name__ = f"lapack_{prefix}{routine}"
    run.__doc__ = f"custom-call {target}: LAPACK {prefix}{routine} per batch matrix."


for _routine in ROUTINES:
    for _prefix in (
        ("c", "z")
        if _routine in ("ungqr", "heevd", "hetrd")
        else (("s", "d") if _routine in ("orgqr", "syevd", "sytrd") else ("s", "d", "c", "z"))
    ):
        _register(_prefix, _routine)
