"""``xlapy.jit``: a JAX user's function, decorated with ``@xlapy.jit`` instead of ``@jax.jit``,
gives the same outputs on both platforms — every program of ``examples/`` and ``tests/e2e``
(their generators hold the JAX functions and inputs), plus pytrees, static arguments, PRNG
keys, caching and the comparison report."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import xlapy  # noqa: E402
from xlapy.errors import InvalidArgument  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_generator_{path.parent.name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _programs() -> dict[str, tuple[Callable[..., Any], Path, bool]]:
    """name -> (JAX function, data directory, needs x64). tests/e2e's generator turns on
    jax_enable_x64 when imported: the flag is put back and its programs run under
    ``jax.enable_x64``, so no other test sees it."""
    programs = {}
    x64 = jax.config.jax_enable_x64
    for generator, directory, wide in (
        (ROOT / "examples" / "generate.py", ROOT / "examples", False),
        (ROOT / "tests" / "e2e" / "generate_more.py", ROOT / "tests" / "e2e" / "data", True),
    ):
        table = _load(generator)
        jax.config.update("jax_enable_x64", x64)
        for name, entry in table.EXAMPLES.items():
            programs[name] = (entry[0], directory, wide)
    return programs


PROGRAMS = _programs()


def _inputs(directory: Path, name: str) -> list[np.ndarray]:
    with np.load(directory / f"{name}.inputs.npz") as data:
        return [data[f"arg{i}"] for i in range(len(data.files))]


def _assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Integers, bools and NaN positions exactly; floats within 4 ulp or 1e-6 of the output's
    largest magnitude (the e2e tests' tolerance)."""
    __tracebackhide__ = True
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} vs {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    if want.dtype.kind not in "fc":
        assert np.array_equal(got, want), what
        return
    g, w = got.astype(np.complex128), want.astype(np.complex128)
    assert np.array_equal(np.isnan(g), np.isnan(w)), f"{what}: NaNs differ"
    scale = np.max(np.abs(w[~np.isnan(w)]), initial=0.0)
    ok = np.isnan(w) | (g == w) | (np.abs(g - w) <= np.maximum(1e-6 * scale, 4 * _ulp(want)))
    assert ok.all(), (
        f"{what}: {np.count_nonzero(~ok)} elements differ, e.g. {got[~ok][:3]} vs {want[~ok][:3]}"
    )


def _ulp(x: np.ndarray) -> np.ndarray:
    real = x.real if np.iscomplexobj(x) else x
    return np.spacing(np.abs(real).astype(real.dtype)).astype(np.float64)


# Programs of thousands of instructions whose cold cpu compile takes most of a minute: their
# cpu runs are in the slow set (tests/backend/cpu runs their HLO on cpu by default).
HEAVY = {"random_distributions", "random_permutation", "random_threefry", "rng_bits"}
CASES = [
    pytest.param(name, platform, marks=[pytest.mark.slow] if cpu_heavy else [])
    for name in sorted(PROGRAMS)
    for platform in ("interpreter", "cpu")
    for cpu_heavy in [platform == "cpu" and name in HEAVY]
]


@pytest.mark.parametrize(("name", "platform"), CASES)
def test_program_through_xlapy_jit(name: str, platform: str) -> None:
    """The decorated function's outputs equal the interpreter's on the StableHLO JAX printed
    for it (exactly on the interpreter platform; within the e2e tolerance on cpu)."""
    fn, directory, wide = PROGRAMS[name]
    args = _inputs(directory, name)
    with jax.enable_x64(wide):
        got = jax.tree_util.tree_leaves(xlapy.jit(fn, platform=platform)(*args))
    want = xlapy.run(xlapy.load(directory / f"{name}.mlir"), *args, platform="interpreter")
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert isinstance(g, np.ndarray)
        if platform == "interpreter":
            assert g.dtype == w.dtype
            assert g.tobytes() == w.tobytes(), f"{name} output {i}"
        else:
            _assert_close(g, w, f"{name} output {i}")


def test_pytrees_static_arguments_and_the_cache() -> None:
    calls = []

    def model(params: dict[str, Any], x: Any, activation: str) -> Any:
        calls.append(activation)  # traced once per signature
        y = x @ params["w"] + params["b"]
        return {"out": jnp.tanh(y) if activation == "tanh" else jax.nn.relu(y), "n": x.shape[0]}

    f = xlapy.jit(model, platform="interpreter", static_argnums=2)
    params = {"w": np.eye(3, dtype=np.float32), "b": np.array([0.0, -5.0, 1.0], np.float32)}
    x = np.array([[1.0, 2.0, -3.0]], np.float32)
    relu = f(params, x, "relu")
    assert relu["out"].tolist() == [[1.0, 0.0, 0.0]]
    assert relu["n"].tolist() == 1
    np.testing.assert_array_equal(f(params, x, "tanh")["out"], np.tanh(np.float32([[1, -3, -2]])))
    f(params, 2 * x, "relu")
    assert calls == ["relu", "tanh"]  # same signature, same program
    module = f.lower(params, x, "relu")
    assert isinstance(module, xlapy.HloModule)
    assert [p.shape.to_hlo(layout=False) for p in module.entry.parameters] == [
        "f32[3]",
        "f32[3,3]",
        "f32[1,3]",
    ]


def test_prng_keys_and_python_scalars() -> None:
    sample = xlapy.jit(lambda key, scale: scale * jax.random.normal(key, (4,)))
    key = jax.random.key(7)
    want = np.asarray(jax.jit(lambda k, s: s * jax.random.normal(k, (4,)))(key, 2.0))
    got = sample(key, 2.0)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_numpy_default_dtypes_are_converted_as_jax_jit_converts_them() -> None:
    """numpy's float64/int64/complex128 arrays (np.random.randn, np.arange) are passed as
    jax.jit passes them with x64 off: as float32/int32/complex64, the module's parameters."""

    def f(x, n, z):
        return x * 2, n + 1, z * 1j

    x = np.random.default_rng(0).standard_normal(5)
    n = np.arange(5)
    z = np.array([1 + 2j, 3 - 4j])
    want = jax.jit(f)(x, n, z)
    got = xlapy.jit(f, platform="interpreter")(x, n, z)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, np.asarray(w))


def test_compare_reports_the_difference_per_output(capsys: pytest.CaptureFixture[str]) -> None:
    f = xlapy.jit(lambda x: (jnp.exp(x), x.astype(jnp.int32)), platform="interpreter", compare=True)
    f(np.linspace(-3, 3, 64, dtype=np.float32))
    first, second = f.last_comparison
    assert first.path == "[0]"
    assert first.max_ulp <= 2
    assert (second.max_abs, second.max_ulp) == (0.0, 0)
    assert "xlapy.jit <lambda> vs XLA:CPU: [1]: max abs 0" in capsys.readouterr().err


def test_bad_use_is_a_clear_error() -> None:
    with pytest.raises(InvalidArgument, match="platform must be one of"):
        xlapy.jit(lambda x: x, platform="gpu")
    with pytest.raises(InvalidArgument, match="expected a function"):
        xlapy.jit(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="static arguments must be hashable"):
        xlapy.jit(lambda x, s: x, static_argnums=1)(np.ones(2), [1, 2])


def test_jit_numpy_and_jax_arguments_share_one_program():
    """A numpy array and a jax array of the same shape and dtype are one signature: the
    second call reuses the first call's program."""
    import jax.numpy as jnp

    jitted = xlapy.jit(lambda x: x * 2)
    first = jitted(np.arange(4, dtype=np.float32))
    second = jitted(jnp.arange(4, dtype=jnp.float32))
    np.testing.assert_array_equal(first, second)
    assert len(jitted._cache) == 1
    jitted(np.arange(4, dtype=np.float64))  # canonicalized to float32 by JAX's lowering too
    jitted(np.arange(4, dtype=np.int32))
    assert len(jitted._cache) == 3
