"""Helpers of the generated-kernel tests: build a fusion (or single-op) kernel from HLO text,
run it beside the interpreter, and compare bit for bit or within a number of ulp."""

from __future__ import annotations

import numpy as np

from xlapy.backend.cpu.kernel import CompileOptions, Kernel, RunContext
from xlapy.backend.cpu.kernels.elementwise import single_op_kernel
from xlapy.backend.cpu.kernels.fusion import fusion_kernel
from xlapy.interpreter.evaluator import DeviceState, Evaluator
from xlapy.ir.opcode import Opcode
from xlapy.text.hlo_parser import parse_hlo


def run_root(text: str, args: list[np.ndarray], options: CompileOptions | None = None):
    """``(kernel value, interpreter value, kernel)`` of the entry root of ``text`` (a fusion
    or a single op whose operands are the entry parameters, in order)."""
    module = parse_hlo(text)
    root = module.entry.root
    factory = fusion_kernel if root.opcode is Opcode.FUSION else single_op_kernel
    kernel = factory(root, options or CompileOptions())
    evaluator = Evaluator(module, device=DeviceState())
    want = evaluator.evaluate(root, [np.copy(a) for a in args])
    ctx = RunContext(device=evaluator.device, evaluator=evaluator, call=evaluator.call)
    given = [np.copy(a) for a in args]
    got = kernel.run(given, ctx)
    for before, after in zip(args, given, strict=True):
        assert before.tobytes() == after.tobytes(), "the kernel changed an operand"
    return got, want, kernel


def ordered(x: np.ndarray) -> np.ndarray:
    """Float bit patterns mapped to integers in value order (adjacent floats, and -0 and +0,
    differ by 1)."""
    bits = x.view(f"i{x.dtype.itemsize}").astype(np.int64)
    magnitude = bits & np.int64((1 << (x.dtype.itemsize * 8 - 1)) - 1)
    return np.where(bits < 0, -magnitude - 1, bits)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element ulp distance; 0 where both are NaN, a huge number where one only is."""
    both_nan = np.isnan(got) & np.isnan(want)
    one_nan = np.isnan(got) != np.isnan(want)
    distance = np.abs(ordered(got) - ordered(want))
    return np.where(both_nan, 0, np.where(one_nan, np.iinfo(np.int64).max, distance))


def assert_bitwise(got: np.ndarray, want: np.ndarray, what: str) -> None:
    __tracebackhide__ = True
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if g.tobytes() != w.tobytes():
        bad = np.flatnonzero(g.view(f"u{g.dtype.itemsize}") != w.view(f"u{w.dtype.itemsize}"))
        first = bad[0]
        raise AssertionError(
            f"{what}: {bad.size} elements differ; first at {first}: got {g.flat[first]!r}, "
            f"expected {w.flat[first]!r}"
        )


def assert_ulp(got: np.ndarray, want: np.ndarray, max_ulp: int, what: str, *operands) -> None:
    __tracebackhide__ = True
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    distance = ulp_distance(got, want)
    worst = int(np.argmax(distance))
    if distance[worst] > max_ulp:
        at = ", ".join(repr(o.flat[worst]) for o in operands)
        raise AssertionError(
            f"{what}: {int(distance[worst])} ulp > {max_ulp} at ({at}): got {got.flat[worst]!r}, "
            f"expected {want.flat[worst]!r}"
        )


def build(text: str, options: CompileOptions | None = None) -> Kernel:
    """The kernel of the entry root of ``text``."""
    root = parse_hlo(text).entry.root
    factory = fusion_kernel if root.opcode is Opcode.FUSION else single_op_kernel
    return factory(root, options or CompileOptions())
