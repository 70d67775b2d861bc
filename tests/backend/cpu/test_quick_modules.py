"""The quick tier's kernel modules by opcode (``kernel.QUICK_MODULES``): a quick plan imports
only the modules that list its opcodes, so each module must register factories for no
opcode beyond its set (one it did not list would never be tried on the quick tier)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import numpy as np
import pytest

from xlapy.backend.cpu import kernel, kernels
from xlapy.ir.opcode import Opcode


def test_each_quick_module_registers_only_the_opcodes_it_lists() -> None:
    for name in kernel.QUICK_MODULES:
        importlib.import_module(f"{kernels.__name__}.{name}")
    registered: dict[str, set[str]] = {}
    for opcode, entries in kernel.KERNELS.items():
        for entry in entries:
            module = entry.factory.__module__.rsplit(".", 1)[-1]
            if module in kernel.QUICK_MODULES:
                registered.setdefault(module, set()).add(opcode.value)
    assert set(registered) == set(kernel.QUICK_MODULES)
    for module, opcodes in registered.items():
        listed = {op.value for op in kernel.QUICK_MODULES[module]}
        assert opcodes <= listed, (module, sorted(opcodes - listed))


_PLAN = """
import sys, numpy as np, xlapy
text = '''HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY main {
  x = f32[4,8] parameter(0)
  w = f32[8,2] parameter(1)
  d = f32[4,2] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,2] sort(d), dimensions={1}, to_apply=lt
  ROOT t = (f32[4,2], f32[4,2]) tuple(s, d)
}'''
exe = xlapy.compile(xlapy.load(text), cache_dir=sys.argv[1], tiered=True)
x = np.arange(32, dtype=np.float32).reshape(4, 8) - 9
w = np.stack([np.ones(8), np.full(8, 2.0)], axis=1).astype(np.float32)
s, d = exe(x, w)
print(np.asarray(s).tolist(), np.asarray(d).tolist())
print(sorted(m.rsplit(".", 1)[-1] for m in sys.modules if m.startswith("xlapy.backend.cpu.kernels.")))
print(sorted(m for m in sys.modules if m.startswith("xlapy.indexing")))
"""


def test_a_quick_plan_imports_the_kernel_modules_of_its_opcodes(tmp_path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PLAN, str(tmp_path)], capture_output=True, text=True, check=True
    )
    values, modules, indexing = run.stdout.splitlines()
    d = [[r, 2 * r] for r in (sum(range(8 * i, 8 * i + 8)) - 72 for i in range(4))]
    assert (
        values
        == f"{[sorted(row) for row in np.array(d, float).tolist()]} {np.array(d, float).tolist()}"
    )
    loaded = set(ast.literal_eval(modules))
    assert {"dot", "sort", "basic"} <= loaded
    assert not loaded & {
        "scan",
        "convolution",
        "fft",
        "complex_elementwise",
        "slicing",
        "scatter_numpy",
    }
    assert ast.literal_eval(indexing) == []


def test_a_quick_module_factory_for_an_unlisted_opcode_is_refused() -> None:
    def factory(instr: object, options: object) -> None:
        raise kernel.NoKernel("never built")

    factory.__module__ = f"{kernels.__name__}.basic"
    with pytest.raises(RuntimeError, match=r"serves sort, which kernel\.QUICK_MODULES does not"):
        kernel.kernel_for(Opcode.SORT)(factory)
    assert all(e.factory is not factory for e in kernel.KERNELS.get(Opcode.SORT, []))
    factory.__module__ = f"{kernels.__name__}.not_a_quick_module"
    try:
        kernel.kernel_for(Opcode.SORT, priority=-99)(factory)
    finally:
        kernel.KERNELS[Opcode.SORT] = [
            e for e in kernel.KERNELS[Opcode.SORT] if e.factory is not factory
        ]


_SCAN = """
import sys, numpy as np, xlapy
text = '''HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,64] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[4,64] reduce-window(x, zero), window={size=1x64 pad=0_0x63_0}, to_apply=add
}'''
module = xlapy.load(text)
exe = xlapy.compile(module, cache_dir=sys.argv[1], tiered=True)
x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
got = np.asarray(exe(x))
want = np.asarray(xlapy.run(module, x, platform="interpreter"))
print(got.tobytes() == want.tobytes(), "scan" in exe.report())
print(sorted(m for m in sys.modules if m.startswith("xlapy.indexing")))
"""


def test_a_quick_cumulative_sum_imports_no_indexing_analysis(tmp_path) -> None:
    """The quick tier's scan kernel (a cumulative reduce-window) gives the interpreter's bits
    without the indexing analysis, which only its compiled form uses (~13 ms to import)."""
    run = subprocess.run(
        [sys.executable, "-c", _SCAN, str(tmp_path)], capture_output=True, text=True, check=True
    )
    same, indexing = run.stdout.splitlines()
    assert same == "True True"
    assert ast.literal_eval(indexing) == []
