#!/usr/bin/env bash
# Fuzzes every input path of xlapy for SECONDS (default 60) and prints what it found, with a
# reproducer per finding (saved under fuzz-findings/). Exit status 1 when something was found.
#
#   scripts/fuzz.sh [SECONDS] [extra options of python -m tools.fuzz]
#   FUZZ_SEED=7 scripts/fuzz.sh 600                 # a fixed seed (default: the time)
#   FUZZ_ATHERIS=hlo scripts/fuzz.sh 120            # also a coverage-guided atheris run
#                                                   # (pip install atheris, or '.[fuzz]')
#   scripts/fuzz.sh differential [SECONDS] [--log FILE]   # random programs, cpu vs interpreter
#                                                   # (tools/fuzz/differential.py)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
if [[ "${1:-}" == differential ]]; then
    shift
    SECONDS_TOTAL=${1:-60}
    shift || true
    SEED_ARGS=()
    if [[ -n "${FUZZ_SEED:-}" ]]; then
        SEED_ARGS=(--seed "$FUZZ_SEED")
    fi
    exec "$PYTHON" -m tools.fuzz.differential --seconds "$SECONDS_TOTAL" "${SEED_ARGS[@]}" "$@"
fi
SECONDS_TOTAL=${1:-60}
shift || true
SEED_ARGS=()
if [[ -n "${FUZZ_SEED:-}" ]]; then
    SEED_ARGS=(--seed "$FUZZ_SEED")
fi
status=0
if [[ -n "${FUZZ_ATHERIS:-}" ]]; then
    # Half the time for the coverage-guided harness on one target, half for the campaign.
    half=$(( ${SECONDS_TOTAL%.*} / 2 ))
    "$PYTHON" tools/fuzz/atheris_harness.py "$FUZZ_ATHERIS" -max_total_time="$half" \
        -timeout=10 -rss_limit_mb=4096 -artifact_prefix=fuzz-findings/atheris- || status=1
    SECONDS_TOTAL=$half
fi
"$PYTHON" -m tools.fuzz --seconds "$SECONDS_TOTAL" "${SEED_ARGS[@]}" "$@" || status=$?
exit "$status"
