"""Helpers of the op-kernel tests: build one instruction's compiled kernel, run it next to the
interpreter's eval, and compare the two (bit for bit, or within a float tolerance)."""

from __future__ import annotations

import numpy as np

import xlapy
from xlapy.backend.cpu.kernel import CompileOptions, Kernel, NoKernel, RunContext, factories
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.instruction import HloInstruction
from xlapy.ir.module import HloModule
from xlapy.text.hlo_parser import parse_hlo


def type_name(x: np.ndarray) -> str:
    return xlapy.dtypes.from_numpy(x.dtype).name


def shape_text(x: np.ndarray) -> str:
    return f"{type_name(x)}[{','.join(map(str, x.shape))}]"


def root_of(module: HloModule) -> HloInstruction:
    return module.entry.root


def build(instr: HloInstruction, options: CompileOptions | None = None) -> Kernel:
    """The highest-priority kernel of ``instr`` (raises NoKernel like the platform sees it)."""
    options = options or CompileOptions()
    reasons = []
    for factory in factories(instr.opcode):
        try:
            return factory(instr, options)
        except NoKernel as exc:
            reasons.append(str(exc))
    raise NoKernel("; ".join(reasons) or "no factory")


def run_both(text: str, *args: np.ndarray, donate: bool = False, device=None, options=None):
    """``(kernel value, interpreter value, kernel)`` of the entry root of ``text`` applied to
    ``args`` (the root's operands must be the parameters, in order). With ``donate`` every
    operand is donatable (the kernel gets copies, so the interpreter sees the originals)."""
    module = parse_hlo(text)
    instr = root_of(module)
    kernel = build(instr, options)
    operands = list(args)
    evaluator = Evaluator(module, device=device or DeviceState())
    want = Evaluator(module, device=DeviceState()).evaluate(instr, [np.copy(a) for a in operands])
    given = [np.copy(a) for a in operands]
    ctx = RunContext(
        device=evaluator.device,
        evaluator=evaluator,
        call=evaluator.call,
        donatable=frozenset(range(len(operands))) if donate else frozenset(),
    )
    got = kernel.run(given, ctx)
    if not donate:
        for before, after in zip(operands, given, strict=True):
            assert_same(after, before)
    return got, want, kernel


def assert_same(got, want) -> None:
    """Bit-identical values (arrays or tuples of arrays): dtype, shape and bytes."""
    __tracebackhide__ = True
    if isinstance(want, tuple):
        assert isinstance(got, tuple), f"got {type(got).__name__}, expected a tuple"
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_same(g, w)
        return
    assert isinstance(got, np.ndarray), f"got {type(got).__name__}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), (
        f"values differ:\n got {got!r}\nwant {want!r}"
    )


def assert_outputs_same(got, want) -> list[np.ndarray]:
    """A program's outputs (one value or a tuple/list of them) bit-identical to ``want``'s;
    returns ``want``'s as a list of arrays."""
    __tracebackhide__ = True
    got = got if isinstance(got, tuple | list) else (got,)
    want = want if isinstance(want, tuple | list) else (want,)
    assert len(got) == len(want), f"{len(got)} outputs, expected {len(want)}"
    for g, w in zip(got, want, strict=True):
        assert_same(np.asarray(g), np.asarray(w))
    return [np.asarray(w) for w in want]


def assert_close(got, want, rtol: float, atol: float = 0.0) -> None:
    """Same dtype and shape, values within ``rtol`` of the largest magnitude (plus ``atol``)."""
    __tracebackhide__ = True
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    wide = np.complex128 if got.dtype.kind == "c" else np.float64
    g, w = got.astype(wide), want.astype(wide)
    scale = float(np.abs(w).max(initial=0.0))
    err = float(np.abs(g - w).max(initial=0.0))
    assert err <= rtol * max(scale, 1.0) + atol, f"max abs error {err} (scale {scale})"


def random_array(rng: np.random.Generator, dtype, shape) -> np.ndarray:
    """Random values of any numpy/ml_dtypes dtype (integers over their range, floats normal)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)
