"""``max_while_iterations`` (issue #14): off by default; with N, a loop whose condition still
holds after N iterations fails naming the loop, the count and its state, on the interpreter and
on every kind of cpu while kernel (whole-loop numba kernel, loop over compiled plans), through
the API and the CLI; loops under the bound run unchanged."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.backend.cpu.codegen.while_emitter import FIRST_CHUNK
from xlapy.errors import EvaluationError, InvalidArgument
from xlapy.interpreter.loop_limit import describe_state

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend" / "cpu"))
from platform_util import only_generic_while

DATA = Path(__file__).parent / "data"
X = np.array([1.0, -2.0, 0.25, 3.0], np.float32)

STOPPED_AT_100 = (
    "while w [max_while_iterations]: a loop may run at most 100 iterations "
    "(--max-while-iterations / max_while_iterations=); got condition cond still true after 100 "
    "iterations, state (s32[] 100, f32[4], pred[] false)"
)

NESTED = """HloModule nested

inner_cond {
  p = (s32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(j, five), direction=LT
}

inner_body {
  p = (s32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  k = s32[] add(j, one)
  a = f32[] get-tuple-element(p), index=1
  c = f32[] constant(1.5)
  m = f32[] multiply(a, c)
  ROOT t = (s32[], f32[]) tuple(k, m)
}

outer_cond {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

outer_body {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  k = s32[] add(i, one)
  a = f32[] get-tuple-element(p), index=1
  zero = s32[] constant(0)
  start = (s32[], f32[]) tuple(zero, a)
  inner = (s32[], f32[]) while(start), condition=inner_cond, body=inner_body
  b = f32[] get-tuple-element(inner), index=1
  ROOT t = (s32[], f32[]) tuple(k, b)
}

ENTRY main {
  x = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, x)
  outer = (s32[], f32[]) while(init), condition=outer_cond, body=outer_body
  ROOT r = f32[] get-tuple-element(outer), index=1
}
"""

KERNELS = {
    "interpreter": ("interpreter", nullcontext, ""),
    "cpu-whole-loop": ("cpu", nullcontext, "numba whole loop"),
    "cpu-loop-over-plans": ("cpu", only_generic_while, "loop in Python"),
}


def _infinite() -> xlapy.HloModule:
    return xlapy.load(DATA / "infinite_loop.hlo")


def _compile(
    module: xlapy.HloModule, kind: str, limit: int | None, how: str = ""
) -> xlapy.Executable:
    platform, context, _ = KERNELS[kind]
    scope: AbstractContextManager[None] = context()
    with scope:
        exe = xlapy.compile(module, platform, max_while_iterations=limit)
    if how:
        assert how in exe.report(), exe.report()
    return exe


@pytest.mark.parametrize("kind", KERNELS)
def test_infinite_loop_stops_at_the_bound(kind: str) -> None:
    exe = _compile(_infinite(), kind, 100, KERNELS[kind][2])
    with pytest.raises(EvaluationError) as info:
        exe(X)
    assert str(info.value) == STOPPED_AT_100


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_run_stops_an_infinite_loop(platform: str) -> None:
    with pytest.raises(EvaluationError, match=r"while w \[max_while_iterations\].* 7 iterations"):
        xlapy.run(_infinite(), X, platform=platform, max_while_iterations=7)


@pytest.mark.parametrize("kind", KERNELS)
def test_loops_under_the_bound_run_unchanged(kind: str) -> None:
    module = xlapy.load(NESTED)
    x = np.float32(0.75)
    want = xlapy.run(module, x, platform="interpreter")
    assert want == [np.float32(0.75 * 1.5**15)]
    for limit in (None, 5, 6, 1000):  # the inner loop makes exactly 5 iterations per run
        got = _compile(module, kind, limit)(x)
        assert [v.tobytes() for v in got] == [v.tobytes() for v in want], limit


@pytest.mark.parametrize("kind", KERNELS)
def test_the_bound_applies_to_each_run_of_an_inner_loop(kind: str) -> None:
    exe = _compile(xlapy.load(NESTED), kind, 4)
    with pytest.raises(EvaluationError) as info:
        exe(np.float32(2.0))
    message = str(info.value)
    assert message.startswith("while inner [max_while_iterations]: a loop may run at most 4 ")
    assert message.endswith("got condition inner_cond still true after 4 iterations, state "
                            "(s32[] 4, f32[] 10.125)")  # fmt: skip


def test_bounded_executables_from_eight_threads() -> None:
    stopped = _compile(_infinite(), "cpu-whole-loop", 100)
    under = _compile(xlapy.load(NESTED), "cpu-whole-loop", 5)
    want = under(np.float32(0.5))[0].tobytes()

    def work(i: int) -> str:
        if i % 2:
            return under(np.float32(0.5))[0].tobytes().hex()
        try:
            stopped(X)
        except EvaluationError as err:
            return str(err)
        return "no error"

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(32)))
    for i, got in enumerate(results):
        assert got == (want.hex() if i % 2 else STOPPED_AT_100), i


@pytest.mark.parametrize("value", [0, -3, True, 2.5, "10"])
def test_the_bound_must_be_a_positive_int(value: object) -> None:
    module = _infinite()
    with pytest.raises(InvalidArgument, match=r"run: max_while_iterations must be a positive"):
        xlapy.run(module, X, max_while_iterations=value, platform="interpreter")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match=r"compile: max_while_iterations must be a posi"):
        xlapy.compile(module, max_while_iterations=value)  # type: ignore[arg-type]


def test_state_description() -> None:
    scalars = (np.int32(3), np.float32(0.5), np.bool_(True))
    state = (*(np.asarray(s) for s in scalars), np.zeros((2, 3), np.float64))
    assert describe_state(state) == "(s32[] 3, f32[] 0.5, pred[] true, f64[2,3])"
    assert describe_state(np.asarray(np.uint8(7))) == "u8[] 7"
    many = tuple(np.asarray(np.int32(i)) for i in range(10))
    assert describe_state(many).endswith("s32[] 7, ... 2 more)")


def _xlapy(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "xlapy", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_cli_run_stops_an_infinite_loop(tmp_path: Path, platform: str) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=X)
    program = str(DATA / "infinite_loop.hlo")
    done = _xlapy("run", program, "--inputs", str(inputs), "--platform", platform,
                  "--max-while-iterations", "100")  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"error: {STOPPED_AT_100}\n"
    refused = _xlapy("run", program, "--inputs", str(inputs), "--max-while-iterations", "0")
    assert refused.returncode == 2
    assert "--max-while-iterations: must be positive; got '0'" in refused.stderr


@pytest.mark.parametrize("platform", ["interpreter", "cpu"])
def test_cli_interpret_fails_the_test_with_an_infinite_loop(platform: str) -> None:
    program = str(DATA / "infinite_loop.mlir")
    done = _xlapy("interpret", program, "--platform", platform, "--max-while-iterations", "7")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        f"FAIL {program}:main: EvaluationError: while while [max_while_iterations]: a loop may "
        "run at most 7 iterations (--max-while-iterations / max_while_iterations=); got "
        "condition region_0 still true after 7 iterations, state s32[] 7",
        "0 passed, 1 failed",
    ]


@pytest.mark.parametrize("kind", KERNELS)
def test_the_bound_holds_across_the_chunks_of_a_compiled_loop(kind: str) -> None:
    limit = 3 * FIRST_CHUNK + 5  # the whole-loop kernel returns to Python after each chunk
    exe = _compile(_infinite(), kind, limit, KERNELS[kind][2])
    with pytest.raises(EvaluationError) as info:
        exe(X)
    message = str(info.value)
    assert f"got condition cond still true after {limit} iterations" in message
    assert message.endswith(f"state (s32[] {limit}, f32[4], pred[] {str(limit % 2 == 1).lower()})")


@pytest.mark.parametrize("kind", ["cpu-whole-loop", "cpu-loop-over-plans"])
def test_a_long_compiled_loop_runs_to_its_end(kind: str) -> None:
    count = 5 * FIRST_CHUNK + 3  # several chunks of the whole-loop kernel, then an odd rest
    program = (DATA / "infinite_loop.hlo").read_text().replace("constant(-1)", f"constant({count})")
    got = _compile(xlapy.load(program), kind, None, KERNELS[kind][2])(X)
    i, x, flip = got
    assert int(i) == count
    assert bool(flip) is bool(count % 2)
    np.testing.assert_array_equal(x, X + np.float32(0.5 * count))  # exact: halves of small ints
