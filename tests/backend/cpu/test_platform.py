"""The ``cpu`` platform runs every program the interpreter runs, with the interpreter's results:
the JAX programs of ``examples/`` and ``tests/e2e/data`` (HLO; XLA-optimized HLO and StableHLO
with ``-m slow``),
the SPMD programs of ``tests/e2e/collectives``; ``xlapy.compile``/``Executable`` and
``xlapy.run(platform=)`` keep ``xlapy.run``'s conventions and error messages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xlapy
from tests.backend.cpu.platform_util import (
    VARIANTS,
    assert_agrees,
    inputs,
    only_generic_while,
    programs,
)
from xlapy.errors import InvalidArgument
from xlapy.text.hlo_parser import parse_hlo

COLLECTIVES = Path(__file__).resolve().parents[2] / "e2e" / "collectives"


@pytest.mark.parametrize(
    ("name", "directory", "variant"),
    [
        # The optimized-HLO and StableHLO forms of a program compile to mostly the same kernels
        # as its HLO; they run with the slow tests (cold kernel compiles dominate).
        pytest.param(
            name,
            directory,
            variant,
            id=f"{name}-{variant}",
            marks=[pytest.mark.slow] if variant != "hlo" else [],
        )
        for name, directory in programs()
        for variant in VARIANTS
    ],
)
def test_program_on_cpu_equals_interpreter(name: str, directory: Path, variant: str) -> None:
    module = xlapy.load(directory / f"{name}{VARIANTS[variant]}")
    args = inputs(directory, name)
    flush = variant == "opt"
    want = xlapy.run(module, *args, flush_denormals=flush, platform="interpreter")
    exe = xlapy.compile(module, flush_denormals=flush)
    got = exe(*args)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_agrees(g, w, f"{name} ({variant}) output {i}")
    for arg, again in zip(args, inputs(directory, name), strict=True):
        assert np.array_equal(arg, again, equal_nan=arg.dtype.kind in "fc"), "an input changed"


@pytest.mark.parametrize("name", sorted(p.stem for p in COLLECTIVES.glob("*.hlo")))
def test_spmd_program_on_cpu_equals_interpreter(name: str) -> None:
    module = xlapy.load(COLLECTIVES / f"{name}.hlo")
    devices = module.config.replica_count * module.config.num_partitions
    with np.load(COLLECTIVES / f"{name}.npz") as data:
        args = [
            [data[f"arg{i}.dev{d}"] for d in range(devices)]
            for i in range(len(module.entry.parameters))
        ]
    want = xlapy.run(module, *args, platform="interpreter")
    got = xlapy.run(module, *args, platform="cpu")
    assert len(got) == devices
    for d in range(devices):
        for i, (g, w) in enumerate(zip(got[d], want[d], strict=True)):
            assert_agrees(g, w, f"{name}: out{i} on device {d}")


LOOP = """HloModule loop
cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[3] get-tuple-element(p), index=1
  y = f32[3] add(x, x)
  ROOT t = (s32[], f32[3]) tuple(j, y)
}
ENTRY main {
  x = f32[3] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[3]) tuple(z, x)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  ROOT r = f32[3] get-tuple-element(w), index=1
}
"""


def test_executable_attributes_and_report() -> None:
    module = parse_hlo(LOOP)
    with only_generic_while():
        exe = xlapy.compile(module)
    assert isinstance(exe, xlapy.Executable)
    assert exe.platform == "cpu"
    assert exe.module is not module, "the optimized module is a copy"
    assert exe.compile_seconds > 0
    got = exe(np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(got[0], np.array([32, 64, 96], np.float32))
    report = exe.report()
    lines = report.splitlines()
    assert lines[0].startswith("module loop on cpu: compiled in")
    assert "ENTRY main: " in report
    assert "(run by %w)" in report, "the while's condition and body are plans of their own"
    while_line = next(line for line in lines if line.lstrip().startswith("%w "))
    assert "kernel" in while_line
    assert "loop in Python over compiled" in while_line
    parameter_line = next(line for line in lines if " parameter " in line)
    assert " free " in parameter_line
    sources = exe.report(sources=True)
    assert "def plan_main(args, ctx, donations):" in sources
    assert "def plan_body(args, ctx, donations):" in sources


def test_report_names_fallbacks_and_why() -> None:
    @xlapy.custom_call_target("test_platform_double")
    def double(ctx, instr, operands):  # type: ignore[no-untyped-def]
        return operands[0] * 2

    text = """HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="test_platform_double"
}
"""
    exe = xlapy.compile(parse_hlo(text))
    np.testing.assert_array_equal(exe(np.ones(2, np.float32))[0], np.full(2, 2, np.float32))
    report = exe.report()
    line = next(line for line in report.splitlines() if line.lstrip().startswith("%c "))
    assert " fallback " in line
    assert "interpreter eval (" in line
    assert "interpreter evals (custom-call x1)" in report


def test_interpreter_platform_runs_the_module_as_written() -> None:
    module = parse_hlo(LOOP)
    exe = xlapy.compile(module, platform="interpreter")
    assert exe.module is module
    assert exe.platform == "interpreter"
    np.testing.assert_array_equal(exe([1.0, 1.0, 1.0])[0], np.full(3, 32, np.float32))
    assert "reference interpreter" in exe.report()


def test_run_platform_cpu_caches_per_module_and_options() -> None:
    module = parse_hlo(LOOP)
    x = np.ones(3, np.float32)
    from xlapy.backend.cpu.compiler import compiled

    first = xlapy.run(module, x, platform="cpu")
    exe = compiled(module, False)
    assert compiled(module, False) is exe
    assert compiled(module, True) is not exe
    np.testing.assert_array_equal(first[0], xlapy.run(module, x, platform="interpreter")[0])


BAD_CALLS = [
    pytest.param((), {}, id="no arguments"),
    pytest.param((np.ones(3, np.float64),), {}, id="wrong dtype"),
    pytest.param((np.ones(4, np.float32),), {}, id="wrong shape"),
    pytest.param(("x",), {}, id="string"),
    pytest.param((np.ones(3, np.float32),), {"replicas": 0}, id="replicas"),
    pytest.param((np.ones(3, np.float32),), {"timeout": -1}, id="timeout"),
    pytest.param((np.ones(3, np.float32),), {"infeed": "abc"}, id="infeed"),
    pytest.param((np.ones(3, np.float32),), {"outfeed": ()}, id="outfeed"),
    pytest.param(([np.ones(3, np.float32)] * 3,), {"replicas": 2}, id="per-device list"),
]


@pytest.mark.parametrize(("args", "options"), BAD_CALLS)
def test_bad_arguments_raise_the_interpreters_errors(args: tuple, options: dict) -> None:
    module = parse_hlo(LOOP)
    with pytest.raises(InvalidArgument) as interpreter:
        xlapy.run(module, *args, platform="interpreter", **options)
    with pytest.raises(InvalidArgument) as cpu:
        xlapy.run(module, *args, platform="cpu", **options)
    with pytest.raises(InvalidArgument) as executable:
        xlapy.compile(module)(*args, **options)
    assert str(cpu.value) == str(interpreter.value)
    assert str(executable.value) == str(interpreter.value)


def test_bad_platform_and_module() -> None:
    module = parse_hlo(LOOP)
    with pytest.raises(InvalidArgument, match=r"run: platform must be one of 'cpu', 'interpreter'"):
        xlapy.run(module, np.ones(3, np.float32), platform="gpu")
    with pytest.raises(InvalidArgument, match=r"compile: platform must be one of"):
        xlapy.compile(module, platform="gpu")
    with pytest.raises(InvalidArgument, match=r"compile: expected an HloModule"):
        xlapy.compile("HloModule m")  # type: ignore[arg-type]


def test_runtime_errors_are_the_interpreters() -> None:
    text = """HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="no_such_target"
}
"""
    module = parse_hlo(text)
    with pytest.raises(xlapy.Unimplemented) as interpreter:
        xlapy.run(module, np.ones(2, np.float32), platform="interpreter")
    with pytest.raises(xlapy.Unimplemented) as cpu:
        xlapy.run(module, np.ones(2, np.float32), platform="cpu")
    assert str(cpu.value) == str(interpreter.value)


def test_user_custom_call_errors_pass_through_unchanged() -> None:
    @xlapy.custom_call_target("test_platform_raises")
    def raises(ctx, instr, operands):  # type: ignore[no-untyped-def]
        raise RuntimeError("from the user's callback")

    text = """HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="test_platform_raises"
}
"""
    with pytest.raises(RuntimeError, match="from the user's callback"):
        xlapy.run(parse_hlo(text), np.ones(2, np.float32), platform="cpu")


def test_results_never_share_a_constants_memory() -> None:
    text = """HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  c = f32[2] constant({1, 2})
  ROOT t = (f32[2], f32[2]) tuple(x, c)
}
"""
    exe = xlapy.compile(parse_hlo(text))
    x = np.zeros(2, np.float32)
    first = exe(x)
    first[1][:] = 7
    np.testing.assert_array_equal(exe(x)[1], np.array([1, 2], np.float32))


def test_plain_calls_convert_arguments_as_run_does() -> None:
    """A call with only arguments takes the Executable's short road: numpy scalars, Python
    numbers and lists, read-only arrays and tuple parameters give ``xlapy.run``'s results."""
    text = """HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  s = f32[] parameter(1)
  t = (s32[2], f32[]) parameter(2)
  b = f32[3] broadcast(s), dimensions={}
  y = f32[3] multiply(x, b)
  i = s32[2] get-tuple-element(t), index=0
  ROOT r = (f32[3], s32[2]) tuple(y, i)
}
"""
    module = parse_hlo(text)
    exe = xlapy.compile(module)
    frozen = np.arange(3, dtype=np.float32)
    frozen.flags.writeable = False
    for args in [
        (np.ones(3, np.float32), np.float32(2.5), (np.array([1, 2], np.int32), np.float32(0))),
        ([1, 2, 3], 2.0, ([4, 5], 1.5)),
        (frozen, np.array(3, np.float32), [np.array([7, 8], np.int32), 0.0]),
    ]:
        want = xlapy.run(module, *args, platform="interpreter")
        for got in (exe(*args), exe(*args)):
            assert len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                assert g.dtype == w.dtype
                np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(frozen, np.arange(3, dtype=np.float32))
    with pytest.raises(InvalidArgument) as interpreter:
        xlapy.run(
            module, np.ones(3, np.float32), np.float64(1), ([1, 2], 0.0), platform="interpreter"
        )
    with pytest.raises(InvalidArgument) as executable:
        exe(np.ones(3, np.float32), np.float64(1), ([1, 2], 0.0))
    assert str(executable.value) == str(interpreter.value)


def test_plain_calls_start_from_a_fresh_device_state() -> None:
    """Plain calls reuse a session: its RNG counter starts again at each call, as on a fresh
    device (the interpreter's result, every time), and a failed call leaves nothing behind."""
    text = """HloModule m
ENTRY main {
  lo = f32[] parameter(0)
  hi = f32[] parameter(1)
  a = f32[5] rng(lo, hi), distribution=rng_uniform
  b = f32[5] rng(lo, hi), distribution=rng_uniform
  ROOT t = (f32[5], f32[5]) tuple(a, b)
}
"""
    module = parse_hlo(text)
    exe = xlapy.compile(module)
    want = xlapy.run(module, np.float32(0), np.float32(1), platform="interpreter")
    assert not np.array_equal(want[0], want[1])
    for _ in range(3):
        got = exe(np.float32(0), np.float32(1))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    with pytest.raises(InvalidArgument):
        exe(np.float32(0))
    np.testing.assert_array_equal(exe(np.float32(0), np.float32(1))[1], want[1])
