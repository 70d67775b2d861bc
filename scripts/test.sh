#!/usr/bin/env bash
# Runs the test suite in a fresh virtualenv (.venv), installing what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'
.venv/bin/ruff check xlapy tests
.venv/bin/python -m pytest -n auto "$@"
