"""XLA:CPU from jaxlib as an oracle: a StableHLO program compiled and run as ``jax.jit`` runs
it (used by ``tests/text/test_translate.py`` and ``tools/fuzz/differential.py --xla``)."""

from __future__ import annotations

import functools

import numpy as np


@functools.cache
def xla_backend() -> object:
    """XLA:CPU from jaxlib, with the LAPACK custom-call targets registered (as JAX does before
    lowering a linalg op)."""
    from jax._src import xla_bridge
    from jax._src.lax import linalg

    linalg.initialize_lapack()
    return xla_bridge.get_backend("cpu")


def run_xla(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """Compiles StableHLO ``text`` with XLA:CPU (as ``jax.jit`` does, from MLIR text) and
    runs it on one device."""
    import jax
    from jaxlib import _jax

    backend = xla_backend()
    device = backend.devices()[0]  # type: ignore[attr-defined]
    executable = backend.compile_and_load(  # type: ignore[attr-defined]
        text, _jax.DeviceList((device,)), _jax.CompileOptions()
    )
    with jax.enable_x64(True):
        buffers = [jax.device_put(a, device) for a in args]
    results = executable.execute_sharded(buffers).disassemble_into_single_device_arrays()
    return [np.asarray(r[0]) for r in results]
