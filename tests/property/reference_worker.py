"""A child process that runs the StableHLO reference interpreter shipped in jaxlib.

The interpreter aborts its process on what it does not support (``LLVM ERROR: Unsupported
op``) and traps on integer division by zero (SIGFPE), so it runs here, away from pytest:
``ReferenceWorker.run`` sends a module and its arguments, and a crash of the child becomes an
answer ("unavailable") instead of the end of the test session.
"""

from __future__ import annotations

import os
import pickle
import re
import select
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# Ops the reference interpreter does not implement (after CHLO legalization and inlining).
_UNSUPPORTED = re.compile(r'(?:=|^)\s*"?((?:chlo|mhlo|sdy)\.\w+|stablehlo\.custom_call)', re.M)
_DENSE_TOKEN = re.compile(
    r"0x[0-9A-Fa-f]+|true|false|[-+]?(?:inf|nan|[0-9][0-9.]*(?:e[-+]?[0-9]+)?)"
)


def _mlir_type(dtype: np.dtype) -> str:
    from xlapy import dtypes

    return dtypes.from_numpy(dtype).mlir


def _to_attribute(ir: Any, array: np.ndarray) -> Any:
    """A dense attribute holding ``array``'s exact bits (the hex form works for every type)."""
    dims = "x".join(str(d) for d in array.shape)
    element = _mlir_type(array.dtype)
    tensor = f"tensor<{dims}x{element}>" if dims else f"tensor<{element}>"
    if array.size == 0:
        return ir.Attribute.parse(f"dense<> : {tensor}")
    data = np.ascontiguousarray(array).tobytes().hex()
    return ir.Attribute.parse(f'dense<"0x{data}"> : {tensor}')


def _from_attribute(attr: Any, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """The values of a dense attribute as an array of ``dtype`` (exact: MLIR prints floats
    in a form that round-trips, or as hex bits)."""
    if dtype.type.__module__ == "numpy" and dtype.kind in "biuf":
        return np.array(attr, dtype=dtype).reshape(shape)
    text = str(attr)
    hexdata = re.match(r'dense<"0x([0-9A-Fa-f]*)">', text)
    if hexdata:
        return np.frombuffer(bytes.fromhex(hexdata.group(1)), dtype=dtype).reshape(shape).copy()
    body = text[text.index("<") + 1 : text.rindex("> :")]
    is_float = dtype.kind == "f" or (dtype.type.__module__ != "numpy" and "float" in dtype.name)
    width = dtype.itemsize

    def element(token: str) -> Any:
        if token in ("true", "false"):
            return token == "true"
        if token.startswith("0x"):
            return np.array(int(token, 16), dtype=f"u{width}").view(dtype)[()]
        return float(token) if is_float else int(token)

    items = [element(t) for t in _DENSE_TOKEN.findall(body)]
    if is_float:
        flat = np.array([np.asarray(v).astype(dtype) for v in items], dtype=dtype)
    else:
        flat = np.array(items, dtype=object).astype(dtype)
    if flat.size == 1 and int(np.prod(shape)) != 1:  # splat
        flat = np.full(shape, flat[0], dtype=dtype)
    return flat.reshape(shape)


def evaluate(
    text: str, args: Sequence[np.ndarray], outputs: Sequence[tuple[np.dtype, tuple[int, ...]]]
) -> tuple[str, Any]:
    """Runs StableHLO ``text`` on ``args``: ``("ok", arrays)`` or ``("unavailable", why)``."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir, passmanager
    from jaxlib.mlir._mlir_libs import _stablehlo

    with jax_mlir.make_ir_context():
        _stablehlo.register_stablehlo_passes()
        module = ir.Module.parse(text)
        passes = "builtin.module(func.func(chlo-legalize-to-stablehlo),inline)"
        passmanager.PassManager.parse(passes).run(module.operation)
        unsupported = _UNSUPPORTED.search(str(module))
        if unsupported:
            return "unavailable", f"the reference interpreter lacks {unsupported.group(1)}"
        attrs = [_to_attribute(ir, a) for a in args]
        try:
            results = _stablehlo.eval_module(module, attrs)
        except Exception as exc:  # the interpreter only says "interpreter failed"
            return "unavailable", f"eval_module failed: {exc}"
        if len(results) != len(outputs):
            return "unavailable", f"{len(results)} results for {len(outputs)} outputs"
        return "ok", [
            _from_attribute(r, np.dtype(d), tuple(s))
            for r, (d, s) in zip(results, outputs, strict=True)
        ]


def _read_frame(stream: Any) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    size = int.from_bytes(header, "little")
    return pickle.loads(stream.read(size))


def _write_frame(stream: Any, value: Any) -> None:
    data = pickle.dumps(value)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


def serve() -> None:  # pragma: no cover - runs in the child
    """The child's loop: one request frame in, one answer frame out, until stdin closes."""
    while True:
        try:
            request = _read_frame(sys.stdin.buffer)
        except EOFError:
            return
        _write_frame(sys.stdout.buffer, evaluate(*request))


class ReferenceWorker:
    """The child process (``python -c 'reference_worker.serve()'``); restarted after a
    crash."""

    def __init__(self, timeout: float = 120.0) -> None:
        self.timeout = timeout
        self._process: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        here = str(Path(__file__).resolve().parent)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
        self._process = subprocess.Popen(
            [sys.executable, "-c", "import reference_worker; reference_worker.serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        return self._process

    def _stop(self) -> int | None:
        process, self._process = self._process, None
        if process is None:
            return None
        if process.poll() is None:
            process.kill()
        return process.wait()

    def run(
        self,
        text: str,
        args: Sequence[np.ndarray],
        outputs: Sequence[tuple[np.dtype, tuple[int, ...]]],
    ) -> tuple[str, Any]:
        process = self._process
        if process is None or process.poll() is not None:
            process = self._start()
        assert process.stdin is not None
        assert process.stdout is not None
        try:
            _write_frame(process.stdin, (text, list(args), list(outputs)))
            ready, _, _ = select.select([process.stdout], [], [], self.timeout)
            if not ready:
                self._stop()
                return "unavailable", f"the reference interpreter took over {self.timeout} s"
            return _read_frame(process.stdout)
        except (EOFError, BrokenPipeError, ConnectionResetError):
            code = self._stop()
            return "unavailable", f"the reference interpreter crashed (exit code {code})"


WORKER = ReferenceWorker()
