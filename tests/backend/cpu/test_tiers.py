"""Tiered compilation (``xlapy.backend.cpu.tiers``): a program starts on the quick tier (no
passes, no generated kernels) while a worker process compiles it; the compiled tier then
replaces it. Bits agree between the tiers where the compiled kernels are exact; a second
process starts on the compiled tier from the cache; a failed worker leaves a compile in this
process; no worker outlives its parent."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import xlapy
from tests.backend.cpu.platform_util import cache_files
from tests.threaded_programs import SPMD, bits
from xlapy.backend.cpu import tiers
from xlapy.ir.module import HloModule

# Exact kernels only (integer and float adds/multiplies in one loop fusion, an integer row
# sum): every tier computes the interpreter's bits.
EXACT = """
HloModule exact
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = f32[64,32] parameter(0)
  k = s32[64,32] parameter(1)
  m = f32[64,32] multiply(x, x)
  y = f32[64,32] add(m, x)
  kk = s32[64,32] multiply(k, k)
  zero = s32[] constant(0)
  r = s32[64] reduce(kk, zero), dimensions={1}, to_apply=add_s32
  ROOT t = (f32[64,32], s32[64]) tuple(y, r)
}
"""


def _args() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    k = rng.integers(-1000, 1000, (64, 32)).astype(np.int32)
    return x, k


def _same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True))


def test_quick_tier_runs_at_once_then_the_compiled_tier_replaces_it(tmp_path: Path) -> None:
    module = xlapy.load(EXACT)
    exe = xlapy.compile(module, cache_dir=tmp_path, tiered=True)
    assert exe.tier == "quick"
    assert "quick tier" in exe.report()
    quick = exe(*_args())
    want = xlapy.compile(module, platform="interpreter")(*_args())
    assert _same_bits(quick, want)
    assert exe.wait_compiled(timeout=300), exe.report()
    assert exe.tier == "compiled"
    assert exe.tier_state is not None
    assert exe.tier_state.status == "compiled"
    compiled = exe(*_args())
    assert _same_bits(compiled, quick)
    report = exe.report()
    assert "compiled tier installed" in report
    assert "numba loop fusion" in report  # generated kernels run now
    assert any(tmp_path.rglob("m_*.hlo")), "the worker stored no optimized module"
    # A new compile of the same module loads the compiled tier from the cache (no worker).
    again = xlapy.compile(module, cache_dir=tmp_path, tiered=True)
    assert again.tier_state is not None
    assert again.tier_state.worker == 0
    assert _same_bits(again(*_args()), want)
    assert again.wait_compiled(timeout=300), again.report()
    assert _same_bits(again(*_args()), want)


_SECOND = """
import sys, xlapy
module = xlapy.load(sys.stdin.read())
exe = xlapy.compile(module, cache_dir=sys.argv[1], tiered=True)
worker = exe.tier_state.worker
loaded = exe.wait_compiled(timeout=300)
synchronous = xlapy.compile(module, cache_dir=sys.argv[1], tiered=False)
print(worker, loaded, exe.tier, synchronous.tier, "numba.np.arraymath" in sys.modules)
"""


def test_second_process_loads_the_compiled_tier_from_the_cache(tmp_path: Path) -> None:
    """A second process starts on the quick tier too (its first call waits for nothing) and
    loads the compiled tier on a thread, with no worker; a synchronous compile takes the
    optimized module from the cache. Neither compiles or writes anything."""
    exe = xlapy.compile(xlapy.load(EXACT), cache_dir=tmp_path, tiered=True)
    assert exe.wait_compiled(timeout=300), exe.report()
    before = cache_files(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _SECOND, str(tmp_path)],
        input=EXACT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # No worker, and numba's compiler never initialised: every kernel came from the cache.
    assert done.stdout.split() == ["0", "True", "compiled", "compiled", "False"]
    assert cache_files(tmp_path) == before, "the second process wrote to the cache"


def test_failed_worker_falls_back_to_a_compile_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_worker(key: str, options: object) -> tuple[subprocess.Popen[bytes], bytes]:
        command = (
            "import sys; sys.stdin.read(); print('worker broke', file=sys.stderr); sys.exit(5)"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        return proc, b""

    monkeypatch.setattr(tiers, "start_worker", failing_worker)
    exe = xlapy.compile(xlapy.load(EXACT), cache_dir=tmp_path, tiered=True)
    quick = exe(*_args())
    assert exe.wait_compiled(timeout=300)
    assert exe.tier == "compiled"
    assert exe.tier_state is not None
    assert "exit 5" in exe.tier_state.note
    assert "worker broke" in exe.tier_state.note
    assert "passes:" in exe.report()
    assert _same_bits(exe(*_args()), quick)


def test_threads_calling_while_the_tier_changes_agree(tmp_path: Path) -> None:
    exe = xlapy.compile(xlapy.load(EXACT), cache_dir=tmp_path, tiered=True)
    want = exe(*_args())
    results: list[list[np.ndarray]] = []
    errors: list[BaseException] = []

    def calls() -> None:
        try:
            deadline = time.monotonic() + 300
            while exe.tier == "quick" and time.monotonic() < deadline:
                results.append(exe(*_args()))
            for _ in range(3):
                results.append(exe(*_args()))
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=calls) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert exe.tier == "compiled"
    assert all(_same_bits(r, want) for r in results)


def test_spmd_on_both_tiers(tmp_path: Path) -> None:
    exe = xlapy.compile(xlapy.load(SPMD), cache_dir=tmp_path, tiered=True)
    eight = np.arange(8, dtype=np.float32)
    want = [(eight * 6).tobytes()]  # partitions 0 + 1 + 2 + 3
    assert exe.tier == "quick"
    assert all(bits(device) == want for device in exe(eight))
    assert exe.wait_compiled(timeout=300), exe.report()
    assert all(bits(device) == want for device in exe(eight))


_EXIT = """
import sys, time, xlapy
exe = xlapy.compile(xlapy.load(sys.stdin.read()), cache_dir=sys.argv[1], tiered=True)
while not exe.tier_state.worker:  # the watcher thread starts the worker
    time.sleep(0.01)
print(exe.tier_state.worker, flush=True)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_process_exits_promptly_and_leaves_no_worker(tmp_path: Path) -> None:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _EXIT, str(tmp_path)],
        input=EXACT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - start < 60
    worker = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker), f"worker {worker} outlived its parent"


def test_worker_exits_when_its_parent_is_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _EXIT + "time.sleep(600)\n", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdin is not None
    assert parent.stdout is not None
    parent.stdin.write(EXACT)
    parent.stdin.close()
    worker = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker), f"worker {worker} outlived its killed parent"


def test_synchronous_compile_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module: HloModule = xlapy.load(EXACT)
    monkeypatch.setenv("XLAPY_TIERED", "0")
    exe = xlapy.compile(module, cache_dir=tmp_path)
    assert exe.tier == "compiled"
    assert exe.tier_state is None
    monkeypatch.setenv("XLAPY_TIERED", "1")
    fresh = tmp_path / "fresh"
    assert xlapy.compile(module, cache_dir=fresh).tier == "quick"
    assert xlapy.compile(module, cache_dir=fresh / "2", tiered=False).tier == "compiled"


def test_one_worker_at_a_time_and_one_off_runs_compile_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loop compiling many modules queues their background compiles (one worker process at
    a time, not one per module); ``xlapy.run(platform="cpu")`` returns the compiled program's
    result at once (no quick tier, no worker) even where tiers are on."""
    monkeypatch.setenv("XLAPY_TIERED", "1")
    modules = [
        xlapy.load(EXACT.replace("HloModule exact", f"HloModule exact{i}")) for i in range(3)
    ]
    executables = [xlapy.compile(m, cache_dir=tmp_path, tiered=True) for m in modules]
    most, deadline = 0, time.monotonic() + 600
    while not all(exe.tier == "compiled" for exe in executables):
        assert time.monotonic() < deadline, [exe.report() for exe in executables]
        with tiers._workers_lock:
            most = max(most, len(tiers._workers))
        time.sleep(0.01)
    assert most == 1
    result = xlapy.run(xlapy.load(EXACT), *_args(), platform="cpu")
    with tiers._workers_lock:
        assert not tiers._workers
    want = xlapy.run(xlapy.load(EXACT), *_args(), platform="interpreter")
    assert _same_bits(list(result), list(want))


POTRF = """
HloModule potrf
ENTRY main {
  a = f32[3,4,4] parameter(0)
  t = f32[3,4,4] transpose(a), dimensions={0,2,1}
  s = f32[3,4,4] add(a, t)
  ROOT c = (f32[3,4,4], s32[3]) custom-call(s), custom_call_target="lapack_spotrf_ffi",
    api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
}
"""

_DONATING = """
import sys
import numpy as np
import xlapy
from tests.backend.cpu.test_fusion_kernels_in_place import attention
from tests.backend.cpu.test_fusion_kernels_while_dots import CELL
from tests.backend.cpu.test_tiers import POTRF
from numba.core.dispatcher import Dispatcher
from xlapy.backend.cpu.kernels import lapack_direct
exe = xlapy.compile(attention(2, 24, 8), cache_dir=sys.argv[1], tiered=True)
q, k, v = (np.random.default_rng(i).standard_normal((2, 24, 8)).astype(np.float32) for i in range(3))
exe(q, k, v)
assert exe.wait_compiled(timeout=300), exe.report()
cell = xlapy.compile(xlapy.load(CELL.replace("STEPS", "3")), cache_dir=sys.argv[1], tiered=True)
shapes = [(16, 64), (3, 16, 32), (3, 16, 64), (64, 32), (64, 64)]
cell_args = [np.random.default_rng(5).standard_normal(s).astype(np.float32) for s in shapes]
cell(*cell_args)
assert cell.wait_compiled(timeout=300), cell.report()
lazy = []  # numba types (or loads from its cache) a dispatcher's call it has no overload for
typing_call = Dispatcher._compile_for_args
Dispatcher._compile_for_args = lambda self, *a, **k: lazy.append(self) or typing_call(self, *a, **k)
loaded = set(sys.modules)
results = [exe(q, k, v)[0] for _ in range(2)]
cell(*cell_args)  # numba's np.dot: scipy.linalg imported before the swap
imported = sorted(set(sys.modules) - loaded)
print(np.array_equal(results[0], results[1]), "numba.np.arraymath" in sys.modules, imported)
in_calls = list(lazy)
potrf = xlapy.compile(xlapy.load(POTRF), cache_dir=sys.argv[1], tiered=True)
a = np.eye(4, dtype=np.float32) + np.zeros((3, 1, 1), np.float32)
potrf(a)
assert potrf.wait_compiled(timeout=300), potrf.report()
typed = list(lapack_direct._batched.signatures)
lazy.clear()  # typed while the compiled tier was built: counted from its calls on
factors = [potrf(a)[0] for _ in range(2)]
print(bool(typed) and lapack_direct._batched.signatures == typed, in_calls + lazy)
print(np.array_equal(factors[0], np.sqrt(a + a)))
"""


def test_compiled_tier_compiles_nothing_on_its_calls(tmp_path: Path) -> None:
    """The worker compiles the in-place variants (typed on a kernel's first call elsewhere),
    so the compiled tier's calls, donating the softmax's intermediates, load every kernel
    from the cache: numba's compiler never initialises in this process. Nor do they import
    anything (``tiers.warm_first_call``): the modules that rebuilding the kernels' numba
    environments imports were imported before the tier was installed. No call types or
    loads a lazily typed dispatcher: the tier-up thread loads the in-place variants, and a
    LAPACK kernel's compiled loop (``lapack_direct._batched``) is typed when the kernel is
    built."""
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", _DONATING, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        env=dict(
            os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
        ),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "[]", "True", "[]", "True"]


def test_jit_starts_on_the_quick_tier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import jax.numpy as jnp

    monkeypatch.setenv("XLAPY_TIERED", "1")
    monkeypatch.setenv("XLAPY_CACHE_DIR", str(tmp_path))
    f = xlapy.jit(lambda x, k: (x * x + x, jnp.sum(k * k, axis=1)))
    x, k = _args()
    first = f(x, k)
    assert f.wait_compiled(timeout=300)
    second = f(x, k)
    assert _same_bits(list(first), list(second))
    assert _same_bits(list(second), [x * x + x, np.sum(k * k, axis=1, dtype=np.int32)])


def test_a_dropped_executable_starts_no_worker(tmp_path: Path) -> None:
    """A compile queued for the worker slot whose executable is gone when the slot frees
    starts no worker (a shape sweep drops most of its executables)."""
    import gc

    with tiers._worker_slot:  # both queue until the slot frees; one is dropped meanwhile
        kept = xlapy.compile(xlapy.load(EXACT), cache_dir=tmp_path, tiered=True)
        other = EXACT.replace("f32[64,32]", "f32[64,33]").replace("s32[64,32]", "s32[64,33]")
        dropped = xlapy.compile(xlapy.load(other), cache_dir=tmp_path, tiered=True)
        state = dropped.tier_state
        watcher = dropped.tier_watcher
        assert state is not None
        assert watcher is not None
        del dropped
        gc.collect()
    watcher.join(timeout=300)
    assert not watcher.is_alive()
    assert state.worker == 0
    assert "dropped" in state.note
    assert kept.wait_compiled(timeout=300), kept.report()


# A dot, a sort with a total-order comparator, an elementwise op, a segment sum (scatter-add
# with repeated and out-of-bounds ids) and an FFT: the quick tier runs them with prebuilt
# numpy/BLAS kernels and interpreter evals.
_MIXED = """
HloModule mixed
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}
ENTRY main {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[16,8] negate(d)
  s = f32[16,8] sort(e), dimensions={1}, to_apply=lt
  zero = f32[] constant(0)
  z = f32[4,8] broadcast(zero), dimensions={}
  ids = s32[16,1] constant({{0},{0},{1},{3},{3},{3},{5},{-1},{2},{2},{0},{1},{1},{3},{2},{0}})
  g = f32[4,8] scatter(z, ids, d), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  c = c64[16,8] convert(d)
  f = c64[16,8] fft(c), fft_type=FFT, fft_length={8}
  ROOT t = (f32[16,8], f32[16,8], f32[4,8], c64[16,8]) tuple(s, d, g, f)
}
"""

_NO_NUMBA = """
import sys, numpy as np, xlapy
exe = xlapy.compile(xlapy.load(sys.stdin.read()), cache_dir=sys.argv[1], tiered=True)
rng = np.random.default_rng(1)
x = rng.standard_normal((16, 32)).astype(np.float32)
w = rng.standard_normal((32, 8)).astype(np.float32)
quick = exe(x, w)
print(exe.tier, "numba" in sys.modules)
assert exe.wait_compiled(timeout=300)
compiled = exe(x, w)
print(exe.tier, *[a.tobytes() == b.tobytes() for a, b in zip(quick, compiled)])
"""


@pytest.mark.parametrize("warm", [False, True])
def test_quick_tier_imports_no_numba(tmp_path: Path, warm: bool) -> None:
    """The quick tier's compile and first call import no numba (0.5-0.9 s) and compile
    nothing, with an empty cache and with the compiled tier cached by an earlier process;
    its BLAS dot, sort, numpy scatter and FFT give the compiled tier's bits."""
    runs = 2 if warm else 1
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", _NO_NUMBA, str(tmp_path)],
            input=_MIXED,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["quick", "False", "compiled", *["True"] * 4]
