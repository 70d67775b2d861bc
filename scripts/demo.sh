#!/usr/bin/env bash
# The main job, end to end on a fresh machine: install xlapy into .venv, then parse, print
# and run a real JAX-produced program, and run StableHLO conformance tests with `interpret`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e .
XLAPY=.venv/bin/xlapy
echo "== xlapy print examples/mlp.hlo"
$XLAPY print examples/mlp.hlo
echo "== xlapy run examples/mlp.hlo"
$XLAPY run examples/mlp.hlo --inputs examples/mlp.inputs.npz
if [ -d ../shared/conformance/stablehlo/interpret ]; then
  echo "== xlapy interpret (StableHLO reference-interpreter tests)"
  $XLAPY interpret ../shared/conformance/stablehlo/interpret/add.mlir
fi
