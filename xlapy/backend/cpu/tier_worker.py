"""The worker process of tiered compilation (``xlapy.backend.cpu.tiers``):

    python -m xlapy.backend.cpu.tier_worker   # stdin: one JSON line, then the module's HLO text

The JSON line holds the module key, the parent's pid and the compile options. The worker
parses the module, compiles it synchronously (passes, every kernel into the kernel cache)
and stores the optimized module under the key; exit status 0 means all of that is done.
It exits (status 3) as soon as its parent is gone, so no worker outlives the process that
wanted its result.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path


def _exit_with_parent(parent: int) -> None:
    """Ends this process once ``parent`` is no longer its parent (it exited or was killed)."""
    while True:
        if os.getppid() != parent:
            os._exit(3)
        time.sleep(0.5)


def main() -> int:
    request = json.loads(sys.stdin.readline())
    threading.Thread(target=_exit_with_parent, args=(request["parent"],), daemon=True).start()
    text = sys.stdin.read()

    from xlapy.backend.cpu.compiler import compile_and_store
    from xlapy.backend.cpu.kernel import CompileOptions
    from xlapy.text.hlo_parser import parse_hlo

    cache_dir = request["cache_dir"]
    options = CompileOptions(
        flush_denormals=request["flush_denormals"],
        cache_dir=Path(cache_dir) if cache_dir else None,
        max_while_iterations=request["max_while_iterations"],
        compile_variants=True,
    )
    compile_and_store(parse_hlo(text), options, request["key"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
