"""The compiled ``cpu`` platform: passes, then one kernel per instruction (numba loop nests,
BLAS, numpy), falling back to the interpreter's eval for instructions without one.

``compile(module, "cpu")`` returns an ``Executable``; importing this package also registers
the ``cpu`` platform of ``xlapy.run``. Numba and the kernel modules load on the first compile.
"""

from xlapy.backend.cpu.compiler import compile, run_on_cpu
from xlapy.backend.cpu.executable import Executable
from xlapy.interpreter.run import register_platform

register_platform("cpu", run_on_cpu)

__all__ = ["Executable", "compile"]
