"""The compiled ``cpu`` platform: passes, then one kernel per instruction (numba loop nests,
BLAS, numpy), falling back to the interpreter's eval for instructions without one.

``compile(module, "cpu")`` returns an ``Executable``; importing this package also registers
the ``cpu`` platform of ``xlapy.run``. Numba and the kernel modules load on the first compile.
"""

import os

# numba's OpenMP workers and OpenBLAS's threads both spin between calls by default, and each
# steals the cores the other needs: a 256x784x512 matmul after a parallel numba kernel took
# 76-108 ms instead of 1.3. Passive waiting (set before numba starts its pool) avoids it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from xlapy.backend.cpu.compiler import compile, run_on_cpu
from xlapy.backend.cpu.executable import Executable
from xlapy.interpreter.run import register_platform

register_platform("cpu", run_on_cpu)

__all__ = ["Executable", "compile"]
