"""The front doors of global-view programs: ``xlapy run GLOBAL`` (threads and ``mpirun``),
``xlapy opt --pipeline=spmd`` then ``xlapy run SPMD --partitions N`` with per-device inputs,
``xlapy.compile`` and ``xlapy.jit(in_shardings=, out_shardings=)``; and clear errors."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xlapy
from tests.sharding.corpus import DATA, assert_matches_xla, load
from xlapy.errors import Unimplemented
from xlapy.sharding.global_io import split
from xlapy.sharding.partitioner_tiling import Tiling

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "import sys; from xlapy.cli import main; sys.exit(main())"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    run = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout,
                         env=_env())  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def _global_inputs(name: str, folder: Path) -> Path:
    _, args, _ = load(name)
    path = folder / "in.npz"
    np.savez(path, **{f"arg{i}": a for i, a in enumerate(args)})
    return path


def _outputs(path: Path) -> list[np.ndarray]:
    data = np.load(path)
    return [data[f"out{j}"] for j in range(len(data.files))]


@pytest.mark.parametrize(
    ("name", "platform"), [("mlp_megatron", "cpu"), ("uneven_gspmd", "interpreter")]
)
def test_cli_run_global_program(tmp_path, name, platform):
    inputs = _global_inputs(name, tmp_path)
    out = tmp_path / "out.npz"
    program = str(DATA / f"part_{name}.hlo")
    _cli("run", program, "--inputs", str(inputs), "--outputs", str(out), "--platform", platform)
    assert_matches_xla(_outputs(out), load(name)[2], name)


def test_cli_run_global_stablehlo(tmp_path):
    name = "dp_step"
    inputs = _global_inputs(name, tmp_path)
    out = tmp_path / "out.npz"
    program = str(DATA / f"part_{name}.mlir")
    _cli(
        "run", program, "--inputs", str(inputs), "--outputs", str(out), "--platform", "interpreter"
    )
    assert_matches_xla(_outputs(out), load(name)[2], name)


def test_opt_spmd_then_run_per_device(tmp_path):
    name = "fsdp_step"
    printed = _cli("opt", str(DATA / f"part_{name}.hlo"), "--pipeline=spmd").stdout
    spmd_path = tmp_path / "spmd.hlo"
    spmd_path.write_text(printed)
    spmd = xlapy.load(spmd_path)
    assert spmd.config.num_partitions == 8
    _, args, want = load(name)
    pieces = {}
    for i, (param, arg) in enumerate(zip(spmd.entry.parameters, args, strict=True)):
        tiling = Tiling.from_sharding(param.sharding, arg.ndim, 8, param.name)
        for d, piece in enumerate(split(arg, tiling)):
            pieces[f"arg{i}.dev{d}"] = piece
    np.savez(tmp_path / "in.npz", **pieces)
    out = tmp_path / "out.npz"
    _cli("run", str(spmd_path), "--partitions", "8", "--inputs", str(tmp_path / "in.npz"),
         "--outputs", str(out), "--platform", "interpreter")  # fmt: skip
    got = np.load(out)
    # The loss (out3, replicated) is the same on every device and equals XLA's.
    for d in range(8):
        np.testing.assert_allclose(got[f"out3.dev{d}"], want[3], rtol=2e-5)


def test_jit_with_named_shardings():
    code = """
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp, numpy as np, xlapy
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2, 4), ("a", "b"))
def f(x, w):
    return jnp.tanh(x @ w).sum(0)
ins = (NamedSharding(mesh, P("a", None)), NamedSharding(mesh, P(None, "b")))
g = xlapy.jit(f, in_shardings=ins, out_shardings=NamedSharding(mesh, P("b")),
              platform="interpreter")
x = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
w = np.random.default_rng(1).standard_normal((16, 32)).astype(np.float32)
got, want = g(x, w), np.asarray(jax.jit(f)(x, w))
assert got.shape == (32,), got.shape
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
assert g.lower(x, w).entry.parameters[0].sharding is not None
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=_env())  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok" in run.stdout, run.stdout


def test_replicated_program_over_a_mesh_gives_one_global_result(tmp_path):
    # jax.jit over 8 devices with every value replicated: one result, not one per device.
    program = tmp_path / "rep.hlo"
    program.write_text("""HloModule rep, num_partitions=8

ENTRY main {
  x = f32[4,3] parameter(0), sharding={replicated}
  ROOT s = f32[4,3] sine(x), sharding={replicated}
}
""")
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.savez(tmp_path / "in.npz", arg0=x)
    out = tmp_path / "out.npz"
    _cli("run", str(program), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(out),
         "--platform", "interpreter")  # fmt: skip
    assert list(np.load(out)) == ["out0"]
    np.testing.assert_allclose(np.load(out)["out0"], np.sin(x), rtol=1e-6)


def test_device_dependent_op_is_refused_by_name():
    module = xlapy.load("""HloModule r, num_partitions=4

ENTRY main {
  p = f32[8] parameter(0), sharding={devices=[4]<=[4]}
  id = u32[] partition-id()
  c = f32[] convert(id)
  b = f32[8] broadcast(c), dimensions={}
  ROOT a = f32[8] add(p, b), sharding={devices=[4]<=[4]}
}
""")
    from xlapy.sharding.partitioner import partition_module

    with pytest.raises(Unimplemented, match="partition-id id cannot be partitioned"):
        partition_module(module)


def _mpirun() -> str:
    found = shutil.which("mpirun", path=str(Path(sys.executable).parent)) or shutil.which("mpirun")
    if found is None:
        pytest.fail("mpirun not found: pip install -e '.[mpi]' installs MPICH's")
    return found


@pytest.mark.parametrize(("ranks", "name", "platform"), [
    (2, "mlp_megatron", "cpu"), (4, "scan_carry", "interpreter"), (4, "uneven", "interpreter"),
])  # fmt: skip
def test_mpirun_global_program(tmp_path, ranks, name, platform):
    inputs = _global_inputs(name, tmp_path)
    out = tmp_path / "out.npz"
    command = [_mpirun(), "-n", str(ranks), *CLI, "run", str(DATA / f"part_{name}.hlo"),
               "--inputs", str(inputs), "--outputs", str(out), "--runtime", "mpi",
               "--platform", platform]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, env=_env())
    assert run.returncode == 0, run.stdout + run.stderr
    assert_matches_xla(_outputs(out), load(name)[2], name)
