"""The compiled ``cpu`` platform: passes, then one kernel per instruction (numba loop nests,
BLAS, numpy), falling back to the interpreter's eval for instructions without one."""
