#!/usr/bin/env bash
# Runs the test suite in a virtualenv (.venv), installing what it needs first: the test tools
# and the oracle extra (JAX/XLA), so every test that compares with XLA runs, the models extra
# (flax, optax, equinox: tests/test_models.py runs the benchmark's real models through
# xlapy.jit), and the mpi extra (mpi4py, MPICH), so the MPI runtime's tests (mpirun -n 2 and
# -n 4 on loopback) run.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test,oracle,models,mpi]'
.venv/bin/ruff check xlapy tests benchmarks
.venv/bin/ruff format --check -q xlapy tests benchmarks
XLAPY_REQUIRE_EXTRAS=1 .venv/bin/python -m pytest -n auto "$@"
