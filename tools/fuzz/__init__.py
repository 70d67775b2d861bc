"""xlapy's fuzzers (issue #14): every input path is fed random and mutated input, and every
input must either work or raise an ``xlapy.errors.XlaError`` naming the place.

Input paths (``targets.TARGETS``): HLO text, StableHLO text (pretty and generic), ``.npz``
inputs of ``xlapy run``, ``xlapy.run`` arguments, ``ops.*`` builder calls, indexing-map text
(``xlapy indexing --simplify``). Text inputs are mutations of the real programs in
``examples/``, ``tests/`` and ``../shared/conformance`` (``corpus``, ``mutate``); structured
inputs are drawn by hypothesis (``structured``).

Each case runs in a forked worker process (``sandbox``) bounded in time and memory: a case
that hangs outside the evaluator, grows the worker past its memory limit, or ends in another
exception, an "internal error" or a located-nowhere message is a finding, reported with a
minimal reproducer (``campaign``). ``python -m tools.fuzz --seconds N`` (``scripts/fuzz.sh``)
runs a campaign; ``tools/fuzz/atheris_harness.py`` is a coverage-guided harness over the same
targets when the optional ``atheris`` package is installed.
"""
